#include "CCurl.h"

#include <CLibraryLoader.h>
#include <stdio.h>
#include <string.h>

// Every libcurl function the wrappers call: the field that holds it, and its symbol.
#define DL_CURL_FUNCTIONS(X)                         \
    X(global_init, curl_global_init)                 \
    X(easy_init, curl_easy_init)                     \
    X(easy_cleanup, curl_easy_cleanup)               \
    X(easy_reset, curl_easy_reset)                   \
    X(easy_setopt, curl_easy_setopt)                 \
    X(easy_getinfo, curl_easy_getinfo)               \
    X(easy_strerror, curl_easy_strerror)             \
    X(multi_init, curl_multi_init)                   \
    X(multi_cleanup, curl_multi_cleanup)             \
    X(multi_setopt, curl_multi_setopt)               \
    X(multi_add_handle, curl_multi_add_handle)       \
    X(multi_remove_handle, curl_multi_remove_handle) \
    X(multi_perform, curl_multi_perform)             \
    X(multi_poll, curl_multi_poll)                   \
    X(multi_wakeup, curl_multi_wakeup)               \
    X(multi_info_read, curl_multi_info_read)         \
    X(multi_strerror, curl_multi_strerror)           \
    X(share_init, curl_share_init)                   \
    X(share_cleanup, curl_share_cleanup)             \
    X(share_setopt, curl_share_setopt)               \
    X(slist_append, curl_slist_append)               \
    X(slist_free_all, curl_slist_free_all)

// Each field has the type of the libcurl function it holds, as libcurl's header declares it.
struct dl_curl_functions {
#define DL_CURL_FIELD(field, symbol) __typeof__(symbol) *field;
    DL_CURL_FUNCTIONS(DL_CURL_FIELD)
#undef DL_CURL_FIELD
};

// The symbols, in the order of the struct's fields.
static const char *const curl_symbols[] = {
#define DL_CURL_SYMBOL(field, symbol) #symbol,
    DL_CURL_FUNCTIONS(DL_CURL_SYMBOL)
#undef DL_CURL_SYMBOL
};
_Static_assert(sizeof(struct dl_curl_functions) == sizeof curl_symbols / sizeof curl_symbols[0] * sizeof(void *),
               "one function pointer per symbol");

// Written once by dl_library_load, before `library.loaded` is set (release); read only after it is seen (acquire),
// and never written again.
static struct dl_curl_functions curl;
static struct dl_library library = DL_LIBRARY_INIT;

int dl_curl_is_loaded(void) {
    return dl_library_is_loaded(&library);
}

int dl_curl_load(const char *name, char *error, size_t error_size) {
    return dl_library_load(&library, name, curl_symbols, sizeof curl_symbols / sizeof curl_symbols[0], &curl,
                           sizeof curl, error, error_size);
}

// The wrappers: each answers with its failure value while no library is loaded.
#define DL_CURL_READY(failure)      \
    if (!dl_curl_is_loaded()) {     \
        return failure;             \
    }

static const char not_loaded[] = "libcurl is not loaded";

CURLcode dl_curl_global_init_default(void) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.global_init(CURL_GLOBAL_DEFAULT);
}

CURL *dl_curl_easy_init(void) {
    DL_CURL_READY(NULL)
    return curl.easy_init();
}

void dl_curl_easy_cleanup(CURL *handle) {
    DL_CURL_READY()
    curl.easy_cleanup(handle);
}

void dl_curl_easy_reset(CURL *handle) {
    DL_CURL_READY()
    curl.easy_reset(handle);
}

const char *dl_curl_easy_strerror(CURLcode code) {
    DL_CURL_READY(not_loaded)
    return curl.easy_strerror(code);
}

CURLcode dl_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_setopt(handle, option, value);
}

CURLcode dl_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_setopt(handle, option, value);
}

CURLcode dl_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_setopt(handle, option, value);
}

CURLcode dl_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_setopt(handle, option, value);
}

CURLcode dl_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_setopt(handle, option, value);
}

CURLcode dl_curl_setopt_write_function(CURL *handle, CURLoption option, dl_curl_write_callback fn) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_setopt(handle, option, fn);
}

CURLcode dl_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    DL_CURL_READY(CURLE_FAILED_INIT)
    return curl.easy_getinfo(handle, info, value);
}

CURLM *dl_curl_multi_init(void) {
    DL_CURL_READY(NULL)
    return curl.multi_init();
}

CURLMcode dl_curl_multi_cleanup(CURLM *multi) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_cleanup(multi);
}

CURLMcode dl_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_setopt(multi, option, value);
}

CURLMcode dl_curl_multi_add_handle(CURLM *multi, CURL *handle) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_add_handle(multi, handle);
}

CURLMcode dl_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_remove_handle(multi, handle);
}

CURLMcode dl_curl_multi_perform(CURLM *multi, int *running) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_perform(multi, running);
}

CURLMcode dl_curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms,
                             int *ret) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_poll(multi, extra_fds, extra_nfds, timeout_ms, ret);
}

CURLMcode dl_curl_multi_wakeup(CURLM *multi) {
    DL_CURL_READY(CURLM_INTERNAL_ERROR)
    return curl.multi_wakeup(multi);
}

const char *dl_curl_multi_strerror(CURLMcode code) {
    DL_CURL_READY(not_loaded)
    return curl.multi_strerror(code);
}

int dl_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    DL_CURL_READY(0)
    int remaining = 0;
    CURLMsg *message;
    while ((message = curl.multi_info_read(multi, &remaining)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

CURLSH *dl_curl_share_init(void) {
    DL_CURL_READY(NULL)
    return curl.share_init();
}

CURLSHcode dl_curl_share_cleanup(CURLSH *share) {
    DL_CURL_READY(CURLSHE_NOT_BUILT_IN)
    return curl.share_cleanup(share);
}

CURLSHcode dl_curl_share_data(CURLSH *share, curl_lock_data data) {
    DL_CURL_READY(CURLSHE_NOT_BUILT_IN)
    return curl.share_setopt(share, CURLSHOPT_SHARE, data);
}

struct curl_slist *dl_curl_slist_append(struct curl_slist *list, const char *line) {
    DL_CURL_READY(NULL)
    return curl.slist_append(list, line);
}

void dl_curl_slist_free_all(struct curl_slist *list) {
    DL_CURL_READY()
    curl.slist_free_all(list);
}
