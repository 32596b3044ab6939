#ifndef DEVICELOGIN_CKEYRING_H
#define DEVICELOGIN_CKEYRING_H

#include <stddef.h>
#include <stdint.h>

// The kernel key retention service (keyrings(7)) has no libc wrappers, and syscall(2) is variadic, which Swift
// cannot call. These typed wrappers are the only way the Swift side (KernelKeyring in the DeviceLogin core) reaches
// add_key(2) and keyctl(2). Each returns what the system call returns: a key serial number, a length or 0, or -1
// with errno set (ENOSYS off Linux).

/// add_key(2): creates or updates the key of `type` and `description` in `keyring`; its serial number.
int32_t dl_add_key(const char *type, const char *description, const void *payload, size_t length, int32_t keyring);

/// keyctl(KEYCTL_GET_PERSISTENT, uid, destination): the user's persistent keyring (uid -1: the caller's), linked
/// into `destination`; its serial number.
int32_t dl_keyctl_get_persistent(int32_t uid, int32_t destination);

/// keyctl(KEYCTL_GET_KEYRING_ID, keyring, create): the serial number of a special keyring (KEY_SPEC_*).
int32_t dl_keyctl_get_keyring_id(int32_t keyring, int create);

/// keyctl(KEYCTL_SEARCH, keyring, type, description, 0): the key found in `keyring` or its descendants.
int32_t dl_keyctl_search(int32_t keyring, const char *type, const char *description);

/// keyctl(KEYCTL_READ, key, buffer, capacity): the payload's whole length (which may exceed `capacity`: read again).
long dl_keyctl_read(int32_t key, void *buffer, size_t capacity);

/// keyctl(KEYCTL_SETPERM, key, permissions).
long dl_keyctl_setperm(int32_t key, uint32_t permissions);

/// keyctl(KEYCTL_LINK, key, keyring).
long dl_keyctl_link(int32_t key, int32_t keyring);

/// keyctl(KEYCTL_UNLINK, key, keyring).
long dl_keyctl_unlink(int32_t key, int32_t keyring);

/// keyctl(KEYCTL_INVALIDATE, key): the key is gone at once for everyone.
long dl_keyctl_invalidate(int32_t key);

/// keyctl(KEYCTL_REVOKE, key): the key stays, but every use fails with EKEYREVOKED (for tests).
long dl_keyctl_revoke(int32_t key);

/// keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL): the calling process (thread group) gets a new anonymous session
/// keyring; its serial number. For tests, so that they never touch the user's keys.
int32_t dl_keyctl_join_new_session(void);

/// keyctl(KEYCTL_DESCRIBE, key, buffer, capacity): "type;uid;gid;perm;description"; the whole length with its NUL.
long dl_keyctl_describe(int32_t key, char *buffer, size_t capacity);

#endif
