#ifndef CCURL_H
#define CCURL_H
// libcurl, as Swift imports it, and typed, non-variadic wrappers for its variadic calls, which Swift cannot import.
// Each wrapper is named <Module>_<cfunction>_<argument kind>. The functions are defined in CurlForwarders.c and the
// wrappers in CurlTypedCalls.c; both load libcurl.so.4 on the first call (CLazyLibrary.h says why): the program
// does not link libcurl.
#include <curl/curl.h>

/// curl_easy_setopt with a `long` argument (flags, sizes, timeouts).
CURLcode CCurl_easy_setopt_long(CURL *h, CURLoption o, long v);
/// curl_easy_setopt with a `curl_off_t` argument (the *_LARGE options).
CURLcode CCurl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v);
/// curl_easy_setopt with a C string argument (URL, CA file, error buffer is separate).
CURLcode CCurl_easy_setopt_string(CURL *h, CURLoption o, const char *v);
/// curl_easy_setopt with an opaque pointer argument (WRITEDATA, PRIVATE, HTTPHEADER, ERRORBUFFER).
CURLcode CCurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v);
/// curl_easy_setopt for CURLOPT_WRITEFUNCTION / CURLOPT_HEADERFUNCTION (same C signature).
CURLcode CCurl_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f);
/// curl_easy_setopt for CURLOPT_XFERINFOFUNCTION.
CURLcode CCurl_easy_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f);
/// curl_easy_getinfo returning a `long` (response code, HTTP version).
CURLcode CCurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v);
/// curl_easy_getinfo returning a `curl_off_t` (sizes, speeds).
CURLcode CCurl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v);
/// curl_easy_getinfo returning a pointer (CURLINFO_PRIVATE, effective URL).
CURLcode CCurl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v);
/// curl_multi_setopt with a `long` argument (CURLMOPT_MAX_TOTAL_CONNECTIONS, PIPELINING).
CURLMcode CCurl_multi_setopt_long(CURLM *m, CURLMoption o, long v);

/// CURL_WRITEFUNC_PAUSE / error sentinels as plain values (macros with casts do not import).
size_t CCurl_writefunc_error(void);

#endif
