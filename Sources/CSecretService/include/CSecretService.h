#ifndef DEVICELOGIN_CSECRETSERVICE_H
#define DEVICELOGIN_CSECRETSERVICE_H

// The freedesktop Secret Service through libsecret, loaded at run time on first use: the binary links neither
// libsecret nor GLib, so it starts (and `token` answers from the kernel keyring's copy) on a box without them, and
// only the `secret-service` store is missing there. libsecret's headers are not needed to build: the few types the
// calls pass (SecretSchema, GError, GList) are declared in SecretServiceLoader.c after libsecret 0.20's stable ABI.
//
// Every item this target touches belongs to one schema, "io.github.device-login.Tokens", whose attributes are
// `application`, `profile`, `home` and `kind`; the caller gives their values. Every call runs under one lock (GLib's
// default main context is not ours to drive: the _sync calls run their own), may block on D-Bus, and never prompts
// unless told to (`unlock`). Errors are written into the caller's `error` buffer, NUL-terminated and truncated to
// `error_size`: GLib's message, which names no secret.

#include <stddef.h>

/// The outcome of a call, besides a length.
enum {
    DL_SECRET_OK = 0,
    DL_SECRET_FAILED = -1,
    /// The default collection (or the item) is locked, and the call was not to prompt.
    DL_SECRET_LOCKED = -2,
    /// No item matches; or, for dl_secret_default_collection, the service has no default collection.
    DL_SECRET_NOT_FOUND = -3,
    /// The secret is larger than the buffer.
    DL_SECRET_TOO_LARGE = -4,
    /// libsecret is not loaded.
    DL_SECRET_NOT_LOADED = -5,
};

/// The number of attributes of every item: application, profile, home and kind, in that order.
#define DL_SECRET_ATTRIBUTE_COUNT 4

/// Loads libsecret from `name` (dlopen, then dlsym of libsecret's and GLib's functions through its handle).
/// Thread-safe; 1 on success, 0 with the dynamic loader's message in `error`.
int dl_secret_load(const char *name, char *error, size_t error_size);

/// Whether dl_secret_load has succeeded.
int dl_secret_is_loaded(void);

/// Connects to the Secret Service on the session bus and looks at its default collection: DL_SECRET_OK when it is
/// unlocked, DL_SECRET_LOCKED when it is locked, DL_SECRET_NOT_FOUND when there is none, DL_SECRET_FAILED when no
/// service answers. With `unlock`, a locked collection is first unlocked through the service's own prompt (which
/// a person answers, or dismisses: then DL_SECRET_LOCKED).
int dl_secret_default_collection(int unlock, char *error, size_t error_size);

/// Stores `secret` (`length` bytes of UTF-8 text, no NUL) in the default collection, labelled `label`, with the
/// attributes `values` (DL_SECRET_ATTRIBUTE_COUNT strings): the item that has the same attributes is replaced, in
/// one step for every reader. DL_SECRET_LOCKED, without prompting, when the collection is locked and `unlock` is 0.
int dl_secret_store(const char *const *values, const char *label, const char *secret, size_t length, int unlock,
                    char *error, size_t error_size);

/// Reads the secret of the item with the attributes `values` into `buffer`, without prompting: its length, or
/// DL_SECRET_NOT_FOUND, DL_SECRET_LOCKED, DL_SECRET_TOO_LARGE (more than `capacity` bytes), DL_SECRET_FAILED.
long dl_secret_lookup(const char *const *values, char *buffer, size_t capacity, char *error, size_t error_size);

/// Deletes every item whose attributes match `values`, where a NULL value matches any: the number deleted, or
/// DL_SECRET_LOCKED (a matching item is locked: nothing is asked), DL_SECRET_FAILED.
long dl_secret_clear(const char *const *values, char *error, size_t error_size);

/// The `profile` attribute of every item whose attributes match `values` (a NULL value matches any), written into
/// `buffer` one after another, each followed by a NUL: the bytes written, or DL_SECRET_TOO_LARGE, DL_SECRET_FAILED.
long dl_secret_list_profiles(const char *const *values, char *buffer, size_t capacity, char *error,
                             size_t error_size);

#endif
