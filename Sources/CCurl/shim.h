#ifndef PUSHBRIDGE_CCURL_SHIM_H
#define PUSHBRIDGE_CCURL_SHIM_H
#include <curl/curl.h>

/// Typed wrappers for curl's variadic setopt/getinfo calls, which Swift cannot call directly.
static inline CURLcode pb_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode pb_curl_easy_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode pb_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pb_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode pb_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode pb_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

static inline CURLMcode pb_curl_multi_setopt_ptr(CURLM *m, CURLMoption o, void *v) { return curl_multi_setopt(m, o, v); }
/// Installs (or, with NULL, removes) the multi socket API's callbacks.
static inline CURLMcode pb_curl_multi_setopt_socketfunction(CURLM *m, curl_socket_callback f) { return curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, f); }
static inline CURLMcode pb_curl_multi_setopt_timerfunction(CURLM *m, curl_multi_timer_callback f) { return curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, f); }
/// The socket argument of `curl_multi_socket_action` that means "a timeout passed".
static inline curl_socket_t pb_curl_socket_timeout(void) { return CURL_SOCKET_TIMEOUT; }

/// The result code of a finished transfer (the `data` member of CURLMsg is a union).
static inline CURLcode pb_curl_msg_result(const CURLMsg *m) { return m->data.result; }
#endif
