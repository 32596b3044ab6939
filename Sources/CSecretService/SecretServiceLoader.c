#include "CSecretService.h"

#include <CLibraryLoader.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libsecret 0.20's and GLib 2's types, as far as these calls use them (their ABI has been stable since libsecret 0.18
// and GLib 2.0). Objects are opaque pointers.
typedef struct {
    unsigned int domain;
    int code;
    char *message;
} dl_gerror;

typedef struct dl_glist {
    void *data;
    struct dl_glist *next;
    struct dl_glist *prev;
} dl_glist;

typedef struct {
    const char *name;
    int type; // SECRET_SCHEMA_ATTRIBUTE_STRING = 0
} dl_schema_attribute;

typedef struct {
    const char *name;
    int flags; // SECRET_SCHEMA_NONE = 0: the schema's name is matched too (xdg:schema)
    dl_schema_attribute attributes[32];
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} dl_secret_schema;

enum {
    SERVICE_OPEN_SESSION = 1 << 1,
    SEARCH_ALL = 1 << 1,
    SEARCH_LOAD_SECRETS = 1 << 3,
};

// The functions the wrappers call, in the order of `symbols`.
struct dl_secret_functions {
    void *(*service_get_sync)(int flags, void *cancellable, dl_gerror **error);
    void *(*collection_for_alias_sync)(void *service, const char *alias, int flags, void *cancellable,
                                       dl_gerror **error);
    int (*collection_get_locked)(void *collection);
    int (*service_unlock_sync)(void *service, dl_glist *objects, void *cancellable, dl_glist **unlocked,
                               dl_gerror **error);
    dl_glist *(*service_search_sync)(void *service, const dl_secret_schema *schema, void *attributes, int flags,
                                     void *cancellable, dl_gerror **error);
    int (*item_get_locked)(void *item);
    void *(*item_get_secret)(void *item);
    void *(*item_get_attributes)(void *item);
    int (*item_delete_sync)(void *item, void *cancellable, dl_gerror **error);
    const char *(*value_get)(void *value, size_t *length);
    void (*value_unref)(void *value);
    int (*password_storev_sync)(const dl_secret_schema *schema, void *attributes, const char *collection,
                                const char *label, const char *password, void *cancellable, dl_gerror **error);
    void *(*hash_table_new)(unsigned int (*hash)(const void *), int (*equal)(const void *, const void *));
    int (*hash_table_insert)(void *table, void *key, void *value);
    void *(*hash_table_lookup)(void *table, const void *key);
    void (*hash_table_unref)(void *table);
    unsigned int (*str_hash)(const void *);
    int (*str_equal)(const void *, const void *);
    dl_glist *(*list_append)(dl_glist *list, void *data);
    void (*list_free)(dl_glist *list);
    void (*object_unref)(void *object);
    void (*error_free)(dl_gerror *error);
};

static const char *const symbols[] = {
    "secret_service_get_sync",  "secret_collection_for_alias_sync", "secret_collection_get_locked",
    "secret_service_unlock_sync", "secret_service_search_sync",     "secret_item_get_locked",
    "secret_item_get_secret",   "secret_item_get_attributes",       "secret_item_delete_sync",
    "secret_value_get",         "secret_value_unref",               "secret_password_storev_sync",
    "g_hash_table_new",         "g_hash_table_insert",              "g_hash_table_lookup",
    "g_hash_table_unref",       "g_str_hash",                       "g_str_equal",
    "g_list_append",            "g_list_free",                      "g_object_unref",
    "g_error_free",
};
_Static_assert(sizeof(struct dl_secret_functions) == sizeof symbols / sizeof symbols[0] * sizeof(void *),
               "one function pointer per symbol");

// Written once by dl_library_load, before `library.loaded` is set (release); read only after it is seen (acquire).
static struct dl_secret_functions secret;
static struct dl_library library = DL_LIBRARY_INIT;
// One call at a time: each _sync call runs a main context of its own, and the items of one search are not shared.
static pthread_mutex_t calls = PTHREAD_MUTEX_INITIALIZER;

static const char *const attribute_names[DL_SECRET_ATTRIBUTE_COUNT] = {"application", "profile", "home", "kind"};

static const dl_secret_schema schema = {
    .name = "io.github.device-login.Tokens",
    .flags = 0,
    .attributes = {{"application", 0}, {"profile", 0}, {"home", 0}, {"kind", 0}, {NULL, 0}},
};

static void set_error(char *error, size_t error_size, const char *message) {
    if (error != NULL && error_size > 0) {
        snprintf(error, error_size, "%s", message != NULL ? message : "unknown error");
    }
}

// Copies GLib's message into `error` and frees it.
static void take_error(dl_gerror *failure, char *error, size_t error_size, const char *fallback) {
    set_error(error, error_size, failure != NULL && failure->message != NULL ? failure->message : fallback);
    if (failure != NULL) secret.error_free(failure);
}

int dl_secret_load(const char *name, char *error, size_t error_size) {
    return dl_library_load(&library, name, symbols, sizeof symbols / sizeof symbols[0], &secret, sizeof secret,
                           error, error_size);
}

int dl_secret_is_loaded(void) {
    return dl_library_is_loaded(&library);
}

// The attributes to match: each name with its value, those whose value is NULL left out. The strings are the
// caller's (the table frees nothing).
static void *attributes(const char *const *values) {
    void *table = secret.hash_table_new(secret.str_hash, secret.str_equal);
    for (size_t index = 0; index < DL_SECRET_ATTRIBUTE_COUNT; index++) {
        if (values[index] != NULL) secret.hash_table_insert(table, (void *)attribute_names[index], (void *)values[index]);
    }
    return table;
}

static void free_items(dl_glist *items) {
    for (dl_glist *item = items; item != NULL; item = item->next) secret.object_unref(item->data);
    secret.list_free(items);
}

// The default collection's state (called with `calls` held); on DL_SECRET_OK, `*service` holds a reference.
static int default_collection(int unlock, void **service, char *error, size_t error_size) {
    dl_gerror *failure = NULL;
    *service = secret.service_get_sync(SERVICE_OPEN_SESSION, NULL, &failure);
    if (*service == NULL) {
        take_error(failure, error, error_size, "no Secret Service answers");
        return DL_SECRET_FAILED;
    }
    void *collection = secret.collection_for_alias_sync(*service, "default", 0, NULL, &failure);
    if (collection == NULL) {
        if (failure != NULL) {
            take_error(failure, error, error_size, "the default collection cannot be read");
            return DL_SECRET_FAILED;
        }
        set_error(error, error_size, "the Secret Service has no default collection");
        return DL_SECRET_NOT_FOUND;
    }
    int state = DL_SECRET_OK;
    if (secret.collection_get_locked(collection)) {
        state = DL_SECRET_LOCKED;
        if (unlock) {
            dl_glist *objects = secret.list_append(NULL, collection);
            dl_glist *unlocked = NULL;
            int count = secret.service_unlock_sync(*service, objects, NULL, &unlocked, &failure);
            secret.list_free(objects);
            free_items(unlocked);
            if (count < 0 || failure != NULL) {
                take_error(failure, error, error_size, "the default collection could not be unlocked");
                secret.object_unref(collection);
                return DL_SECRET_FAILED;
            }
            if (!secret.collection_get_locked(collection)) state = DL_SECRET_OK;
        }
        if (state == DL_SECRET_LOCKED) set_error(error, error_size, "the default collection is locked");
    }
    secret.object_unref(collection);
    return state;
}

int dl_secret_default_collection(int unlock, char *error, size_t error_size) {
    if (!dl_secret_is_loaded()) return DL_SECRET_NOT_LOADED;
    pthread_mutex_lock(&calls);
    void *service = NULL;
    int state = default_collection(unlock, &service, error, error_size);
    if (service != NULL) secret.object_unref(service);
    pthread_mutex_unlock(&calls);
    return state;
}

int dl_secret_store(const char *const *values, const char *label, const char *secret_text, size_t length,
                    int unlock, char *error, size_t error_size) {
    if (!dl_secret_is_loaded()) return DL_SECRET_NOT_LOADED;
    char *text = malloc(length + 1);
    if (text == NULL) {
        set_error(error, error_size, "out of memory");
        return DL_SECRET_FAILED;
    }
    memcpy(text, secret_text, length);
    text[length] = '\0';
    pthread_mutex_lock(&calls);
    void *service = NULL;
    int state = default_collection(unlock, &service, error, error_size);
    if (state == DL_SECRET_OK) {
        dl_gerror *failure = NULL;
        void *table = attributes(values);
        if (!secret.password_storev_sync(&schema, table, NULL, label, text, NULL, &failure)) {
            take_error(failure, error, error_size, "the item could not be stored");
            state = DL_SECRET_FAILED;
        }
        secret.hash_table_unref(table);
    }
    if (service != NULL) secret.object_unref(service);
    pthread_mutex_unlock(&calls);
    explicit_bzero(text, length);
    free(text);
    return state;
}

// The items matching `values`, or NULL with `*state` set (called with `calls` held).
static dl_glist *search(const char *const *values, int flags, int *state, char *error, size_t error_size) {
    dl_gerror *failure = NULL;
    void *service = secret.service_get_sync(SERVICE_OPEN_SESSION, NULL, &failure);
    if (service == NULL) {
        take_error(failure, error, error_size, "no Secret Service answers");
        *state = DL_SECRET_FAILED;
        return NULL;
    }
    void *table = attributes(values);
    dl_glist *items = secret.service_search_sync(service, &schema, table, flags, NULL, &failure);
    secret.hash_table_unref(table);
    secret.object_unref(service);
    if (failure != NULL) {
        take_error(failure, error, error_size, "the Secret Service could not be searched");
        free_items(items);
        *state = DL_SECRET_FAILED;
        return NULL;
    }
    *state = items == NULL ? DL_SECRET_NOT_FOUND : DL_SECRET_OK;
    return items;
}

long dl_secret_lookup(const char *const *values, char *buffer, size_t capacity, char *error, size_t error_size) {
    if (!dl_secret_is_loaded()) return DL_SECRET_NOT_LOADED;
    pthread_mutex_lock(&calls);
    int state = DL_SECRET_OK;
    // Without SECRET_SEARCH_UNLOCK nothing prompts: a locked item comes back locked, without its secret.
    dl_glist *items = search(values, SEARCH_LOAD_SECRETS, &state, error, error_size);
    long result = state;
    if (items != NULL) {
        void *item = items->data;
        void *value = secret.item_get_locked(item) ? NULL : secret.item_get_secret(item);
        if (value == NULL) {
            set_error(error, error_size, "the item is locked");
            result = DL_SECRET_LOCKED;
        } else {
            size_t length = 0;
            const char *bytes = secret.value_get(value, &length);
            if (bytes == NULL || length > capacity) {
                set_error(error, error_size, "the item's secret is larger than a record");
                result = DL_SECRET_TOO_LARGE;
            } else {
                memcpy(buffer, bytes, length);
                result = (long)length;
            }
            secret.value_unref(value);
        }
        free_items(items);
    } else if (state == DL_SECRET_NOT_FOUND) {
        set_error(error, error_size, "no item");
    }
    pthread_mutex_unlock(&calls);
    return result;
}

long dl_secret_clear(const char *const *values, char *error, size_t error_size) {
    if (!dl_secret_is_loaded()) return DL_SECRET_NOT_LOADED;
    pthread_mutex_lock(&calls);
    int state = DL_SECRET_OK;
    dl_glist *items = search(values, SEARCH_ALL, &state, error, error_size);
    long result = state == DL_SECRET_NOT_FOUND ? 0 : state;
    for (dl_glist *item = items; item != NULL && result >= 0; item = item->next) {
        if (secret.item_get_locked(item->data)) {
            set_error(error, error_size, "an item is locked");
            result = DL_SECRET_LOCKED;
        }
    }
    for (dl_glist *item = items; item != NULL && result >= 0; item = item->next) {
        dl_gerror *failure = NULL;
        if (secret.item_delete_sync(item->data, NULL, &failure)) {
            result += 1;
        } else {
            take_error(failure, error, error_size, "an item could not be deleted");
            result = DL_SECRET_FAILED;
        }
    }
    free_items(items);
    pthread_mutex_unlock(&calls);
    return result;
}

long dl_secret_list_profiles(const char *const *values, char *buffer, size_t capacity, char *error,
                             size_t error_size) {
    if (!dl_secret_is_loaded()) return DL_SECRET_NOT_LOADED;
    pthread_mutex_lock(&calls);
    int state = DL_SECRET_OK;
    dl_glist *items = search(values, SEARCH_ALL, &state, error, error_size);
    long result = state == DL_SECRET_NOT_FOUND ? 0 : state;
    size_t used = 0;
    for (dl_glist *item = items; item != NULL && result >= 0; item = item->next) {
        void *table = secret.item_get_attributes(item->data);
        const char *profile = table != NULL ? secret.hash_table_lookup(table, "profile") : NULL;
        if (profile != NULL) {
            size_t length = strlen(profile) + 1;
            if (length > capacity - used) {
                set_error(error, error_size, "too many items");
                result = DL_SECRET_TOO_LARGE;
            } else {
                memcpy(buffer + used, profile, length);
                used += length;
            }
        }
        if (table != NULL) secret.hash_table_unref(table);
    }
    free_items(items);
    pthread_mutex_unlock(&calls);
    return result < 0 ? result : (long)used;
}
