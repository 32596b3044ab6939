#ifndef DEVICELOGIN_CCURL_H
#define DEVICELOGIN_CCURL_H

// libcurl, loaded at run time: the binary does not link it, so a command that makes no request (`token` with a
// valid stored token, the credential helpers) never loads it or the ~36 libraries it brings.
//
// The header is still libcurl's own, for its types and constants, and each function-pointer field in the loader is
// declared with the type of the libcurl function it holds (`__typeof__`), so a signature that changes fails the
// build. The Swift side calls only the dl_curl_ functions below, never libcurl's: calling one of those would fail
// to link, since nothing provides them.
//
// Every function but dl_curl_load expects dl_curl_load to have succeeded; before that, each returns its failure
// value (CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR, CURLSHE_NOT_BUILT_IN, NULL, or a fixed message) and never
// crashes.

#include <curl/curl.h>
#include <stddef.h>

/// Loads libcurl from `name` (dlopen with RTLD_LAZY | RTLD_LOCAL, then dlsym of every function below).
///
/// Thread-safe. The first library that loads becomes the one every dl_curl_ function calls, for the life of the
/// process; a later successful call leaves it in place (and drops its own reference). A failed call changes nothing.
/// Returns 1 on success; 0 on failure, with the dynamic loader's message (dlerror) in `error`, NUL-terminated and
/// truncated to `error_size` bytes.
int dl_curl_load(const char *name, char *error, size_t error_size);

/// Whether dl_curl_load has succeeded.
int dl_curl_is_loaded(void);

// CURL_GLOBAL_DEFAULT is a macro built from other macros, which Swift does not import.
CURLcode dl_curl_global_init_default(void);

CURL *dl_curl_easy_init(void);
void dl_curl_easy_cleanup(CURL *handle);
void dl_curl_easy_reset(CURL *handle);
const char *dl_curl_easy_strerror(CURLcode code);

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per argument type.
CURLcode dl_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode dl_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode dl_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode dl_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode dl_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);

// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION (data to take), and CURLOPT_READFUNCTION, whose callback
// has the same shape (data is then the buffer to fill with at most size * count bytes of the request body).
typedef size_t (*dl_curl_write_callback)(char *data, size_t size, size_t count, void *context);
CURLcode dl_curl_setopt_write_function(CURL *handle, CURLoption option, dl_curl_write_callback fn);

CURLcode dl_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

CURLM *dl_curl_multi_init(void);
CURLMcode dl_curl_multi_cleanup(CURLM *multi);
CURLMcode dl_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode dl_curl_multi_add_handle(CURLM *multi, CURL *handle);
CURLMcode dl_curl_multi_remove_handle(CURLM *multi, CURL *handle);
CURLMcode dl_curl_multi_perform(CURLM *multi, int *running);
CURLMcode dl_curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms,
                             int *ret);
/// The one multi-handle call libcurl allows from any thread.
CURLMcode dl_curl_multi_wakeup(CURLM *multi);
const char *dl_curl_multi_strerror(CURLMcode code);

/// Reads the multi handle's messages up to the next finished transfer. Returns 1 and sets *easy and *result when
/// one is found, 0 when there is none left. Keeps the CURLMsg union on the C side.
int dl_curl_multi_next_done(CURLM *multi, CURL **easy, CURLcode *result);

CURLSH *dl_curl_share_init(void);
CURLSHcode dl_curl_share_cleanup(CURLSH *share);
/// Makes a share handle share one kind of data (CURLSHOPT_SHARE reads an int-sized curl_lock_data).
CURLSHcode dl_curl_share_data(CURLSH *share, curl_lock_data data);

struct curl_slist *dl_curl_slist_append(struct curl_slist *list, const char *line);
void dl_curl_slist_free_all(struct curl_slist *list);

#endif
