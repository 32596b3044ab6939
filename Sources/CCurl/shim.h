#ifndef DEVICELOGIN_CCURL_SHIM_H
#define DEVICELOGIN_CCURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call.
// These typed wrappers are the only way the Swift side touches them.

static inline CURLcode dl_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode dl_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode dl_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode dl_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*dl_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode dl_curl_setopt_write_function(CURL *handle, CURLoption option, dl_curl_write_callback fn) {
    return curl_easy_setopt(handle, option, fn);
}

static inline CURLcode dl_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode dl_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

// CURL_GLOBAL_DEFAULT is a macro built from other macros, which Swift does not import.
static inline CURLcode dl_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline CURLMcode dl_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// Makes a share handle share one kind of data (CURLSHOPT_SHARE reads an int-sized curl_lock_data).
static inline CURLSHcode dl_curl_share_data(CURLSH *share, curl_lock_data data) {
    return curl_share_setopt(share, CURLSHOPT_SHARE, data);
}

// Reads the multi handle's messages up to the next finished transfer. Returns 1 and sets *easy and *result when
// one is found, 0 when there is none left. Keeps the CURLMsg union on the C side.
static inline int dl_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result) {
    int remaining = 0;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &remaining)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

#endif
