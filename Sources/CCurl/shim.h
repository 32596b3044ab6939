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
typedef int (*dl_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                          curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode dl_curl_setopt_write_function(CURL *handle, CURLoption option, dl_curl_write_callback fn) {
    return curl_easy_setopt(handle, option, fn);
}

static inline CURLcode dl_curl_setopt_xferinfo_function(CURL *handle, dl_curl_xferinfo_callback fn) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, fn);
}

static inline CURLcode dl_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
