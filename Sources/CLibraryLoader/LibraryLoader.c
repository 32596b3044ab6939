#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_message(char *error, size_t error_size, const char *message) {
    if (error != NULL && error_size > 0) {
        snprintf(error, error_size, "%s", message != NULL ? message : "unknown error");
    }
}

int dl_library_is_loaded(struct dl_library *library) {
    return __atomic_load_n(&library->loaded, __ATOMIC_ACQUIRE);
}

int dl_library_load(struct dl_library *library, const char *name, const char *const *symbols, size_t count,
                    void *table, size_t table_size, char *error, size_t error_size) {
    if (name == NULL || name[0] == '\0') {
        copy_message(error, error_size, "no library name");
        return 0;
    }
    if (count == 0 || table_size != count * sizeof(void *)) {
        copy_message(error, error_size, "the function table does not match its list of symbols");
        return 0;
    }
    void **found = calloc(count, sizeof(void *));
    if (found == NULL) {
        copy_message(error, error_size, "out of memory");
        return 0;
    }
    void *handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (handle == NULL) {
        copy_message(error, error_size, dlerror());
        free(found);
        return 0;
    }
    for (size_t index = 0; index < count; index++) {
        dlerror();
        found[index] = dlsym(handle, symbols[index]);
        if (found[index] == NULL) {
            const char *reason = dlerror();
            if (reason != NULL) {
                copy_message(error, error_size, reason);
            } else if (error != NULL && error_size > 0) {
                snprintf(error, error_size, "no symbol %s", symbols[index]);
            }
            dlclose(handle);
            free(found);
            return 0;
        }
    }

    pthread_mutex_lock(&library->lock);
    int first = !__atomic_load_n(&library->loaded, __ATOMIC_RELAXED);
    if (first) {
        // Function pointers and data pointers have the same size and representation on every POSIX platform
        // (dlsym depends on it): the table is `count` pointers, filled in the order of `symbols`.
        memcpy(table, found, table_size);
        __atomic_store_n(&library->loaded, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&library->lock);
    free(found);
    if (!first) {
        // The library in use stays; this call's reference to it (or to another copy) is not needed.
        dlclose(handle);
    }
    return 1;
}
