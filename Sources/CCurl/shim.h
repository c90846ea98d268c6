#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
// Typed, non-variadic wrappers for libcurl's variadic calls, which Swift cannot import.
// Each wrapper is named <Module>_<cfunction>_<argument kind>; nothing else lives here.
#include <curl/curl.h>

/// curl_easy_setopt with a `long` argument (flags, sizes, timeouts).
static inline CURLcode CCurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
/// curl_easy_setopt with a `curl_off_t` argument (the *_LARGE options).
static inline CURLcode CCurl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
/// curl_easy_setopt with a C string argument (URL, CA file, error buffer is separate).
static inline CURLcode CCurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
/// curl_easy_setopt with an opaque pointer argument (WRITEDATA, PRIVATE, HTTPHEADER, ERRORBUFFER).
static inline CURLcode CCurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
/// curl_easy_setopt for CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION (same C signature).
static inline CURLcode CCurl_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { return curl_easy_setopt(h, o, f); }
/// curl_easy_setopt for CURLOPT_XFERINFOFUNCTION.
static inline CURLcode CCurl_easy_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
/// curl_easy_getinfo returning a `long` (response code, HTTP version).
static inline CURLcode CCurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
/// curl_easy_getinfo returning a `curl_off_t` (sizes, speeds).
static inline CURLcode CCurl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
/// curl_easy_getinfo returning a pointer (CURLINFO_PRIVATE, effective URL).
static inline CURLcode CCurl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
/// curl_multi_setopt with a `long` argument (CURLMOPT_MAX_TOTAL_CONNECTIONS, PIPELINING).
static inline CURLMcode CCurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

/// CURL_WRITEFUNC_PAUSE / error sentinels as plain values (macros with casts do not import).
static inline size_t CCurl_writefunc_error(void) { return (size_t)-1; }

#endif
