#ifndef DEVICELOGIN_CLIBRARYLOADER_H
#define DEVICELOGIN_CLIBRARYLOADER_H

// Loading a shared library at run time into a table of function pointers, once per process: what the loaders of
// libcurl (CCurl), libcrypto (CCrypto) and libqrencode (CQRencode) share. Each keeps its own table (a struct of
// function pointers, each field typed after the function it holds) and its own `dl_library`; this does the dlopen,
// the dlsym of every symbol, and the one-time publication.

#include <pthread.h>
#include <stddef.h>

/// Whether a library's table has been published, and the lock that publishes it once. Initialise with
/// DL_LIBRARY_INIT; never copy.
struct dl_library {
    pthread_mutex_t lock;
    int loaded;
};

#define DL_LIBRARY_INIT { PTHREAD_MUTEX_INITIALIZER, 0 }

/// Loads the library `name` (dlopen with RTLD_LAZY | RTLD_LOCAL) and resolves each of the `count` symbols, in order,
/// into the function pointers of `table` (`table_size` bytes: exactly `count` pointers).
///
/// RTLD_LAZY, not RTLD_NOW: every function we call is looked up here, so a library without one still fails at load;
/// what is left to first use is the binding of the library's own calls into its dependencies (libcurl brings some 30
/// of them), most of which a sign-in never makes. A login approved at once runs 36.8 M instructions with RTLD_NOW and
/// 34.0 M with RTLD_LAZY (callgrind). Read-only relocations (RELRO) are each library's own, set when it was linked;
/// the flag does not change them.
///
/// Thread-safe. The first call that resolves every symbol writes `table` (under `library`'s lock, before `loaded` is
/// set with release order) and keeps the library open for the life of the process; a later successful call leaves
/// the table as it is and drops its own reference. A failed call changes nothing. Returns 1 on success; 0 on failure,
/// with the dynamic loader's message (or what was wrong) in `error`, NUL-terminated and truncated to `error_size`.
int dl_library_load(struct dl_library *library, const char *name, const char *const *symbols, size_t count,
                    void *table, size_t table_size, char *error, size_t error_size);

/// Whether dl_library_load has succeeded for `library` (acquire order: the table is then readable).
int dl_library_is_loaded(struct dl_library *library);

#endif
