#include "CKeyring.h"

#include <errno.h>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>

// From <linux/keyctl.h>, spelled out so that the kernel headers are not needed to build.
enum {
    DL_KEYCTL_GET_KEYRING_ID = 0,
    DL_KEYCTL_JOIN_SESSION_KEYRING = 1,
    DL_KEYCTL_REVOKE = 3,
    DL_KEYCTL_DESCRIBE = 6,
    DL_KEYCTL_LINK = 8,
    DL_KEYCTL_UNLINK = 9,
    DL_KEYCTL_SEARCH = 10,
    DL_KEYCTL_READ = 11,
    DL_KEYCTL_SETPERM = 5,
    DL_KEYCTL_INVALIDATE = 21,
    DL_KEYCTL_GET_PERSISTENT = 22,
};

int32_t dl_add_key(const char *type, const char *description, const void *payload, size_t length, int32_t keyring) {
    return (int32_t)syscall(SYS_add_key, type, description, payload, length, keyring);
}

int32_t dl_keyctl_get_persistent(int32_t uid, int32_t destination) {
    return (int32_t)syscall(SYS_keyctl, DL_KEYCTL_GET_PERSISTENT, (long)uid, (long)destination);
}

int32_t dl_keyctl_get_keyring_id(int32_t keyring, int create) {
    return (int32_t)syscall(SYS_keyctl, DL_KEYCTL_GET_KEYRING_ID, (long)keyring, (long)create);
}

int32_t dl_keyctl_search(int32_t keyring, const char *type, const char *description) {
    return (int32_t)syscall(SYS_keyctl, DL_KEYCTL_SEARCH, (long)keyring, type, description, 0L);
}

long dl_keyctl_read(int32_t key, void *buffer, size_t capacity) {
    return syscall(SYS_keyctl, DL_KEYCTL_READ, (long)key, buffer, capacity);
}

long dl_keyctl_setperm(int32_t key, uint32_t permissions) {
    return syscall(SYS_keyctl, DL_KEYCTL_SETPERM, (long)key, (unsigned long)permissions);
}

long dl_keyctl_link(int32_t key, int32_t keyring) {
    return syscall(SYS_keyctl, DL_KEYCTL_LINK, (long)key, (long)keyring);
}

long dl_keyctl_unlink(int32_t key, int32_t keyring) {
    return syscall(SYS_keyctl, DL_KEYCTL_UNLINK, (long)key, (long)keyring);
}

long dl_keyctl_invalidate(int32_t key) {
    return syscall(SYS_keyctl, DL_KEYCTL_INVALIDATE, (long)key);
}

long dl_keyctl_revoke(int32_t key) {
    return syscall(SYS_keyctl, DL_KEYCTL_REVOKE, (long)key);
}

int32_t dl_keyctl_join_new_session(void) {
    return (int32_t)syscall(SYS_keyctl, DL_KEYCTL_JOIN_SESSION_KEYRING, (const char *)0);
}

long dl_keyctl_describe(int32_t key, char *buffer, size_t capacity) {
    return syscall(SYS_keyctl, DL_KEYCTL_DESCRIBE, (long)key, buffer, capacity);
}

#else

static long dl_no_keyrings(void) {
    errno = ENOSYS;
    return -1;
}

int32_t dl_add_key(const char *type, const char *description, const void *payload, size_t length, int32_t keyring) {
    (void)type, (void)description, (void)payload, (void)length, (void)keyring;
    return (int32_t)dl_no_keyrings();
}
int32_t dl_keyctl_get_persistent(int32_t uid, int32_t destination) {
    (void)uid, (void)destination;
    return (int32_t)dl_no_keyrings();
}
int32_t dl_keyctl_get_keyring_id(int32_t keyring, int create) {
    (void)keyring, (void)create;
    return (int32_t)dl_no_keyrings();
}
int32_t dl_keyctl_search(int32_t keyring, const char *type, const char *description) {
    (void)keyring, (void)type, (void)description;
    return (int32_t)dl_no_keyrings();
}
long dl_keyctl_read(int32_t key, void *buffer, size_t capacity) {
    (void)key, (void)buffer, (void)capacity;
    return dl_no_keyrings();
}
long dl_keyctl_setperm(int32_t key, uint32_t permissions) {
    (void)key, (void)permissions;
    return dl_no_keyrings();
}
long dl_keyctl_link(int32_t key, int32_t keyring) {
    (void)key, (void)keyring;
    return dl_no_keyrings();
}
long dl_keyctl_unlink(int32_t key, int32_t keyring) {
    (void)key, (void)keyring;
    return dl_no_keyrings();
}
long dl_keyctl_invalidate(int32_t key) {
    (void)key;
    return dl_no_keyrings();
}
long dl_keyctl_revoke(int32_t key) {
    (void)key;
    return dl_no_keyrings();
}
int32_t dl_keyctl_join_new_session(void) { return (int32_t)dl_no_keyrings(); }
long dl_keyctl_describe(int32_t key, char *buffer, size_t capacity) {
    (void)key, (void)buffer, (void)capacity;
    return dl_no_keyrings();
}

#endif
