// The wrappers CCurl.h declares for libcurl's variadic calls: each calls the variadic function with the one
// argument type its options take, through the address found once in libcurl.so.4 (loaded on first use).
#include "CCurl.h"
#include "CLazyLibrary.h"

extern struct lazy_library lazy_curl;

typedef CURLcode (*easy_setopt_function)(CURL *, CURLoption, ...);
typedef CURLcode (*easy_getinfo_function)(CURL *, CURLINFO, ...);
typedef CURLMcode (*multi_setopt_function)(CURLM *, CURLMoption, ...);

static void *easy_setopt_slot, *easy_getinfo_slot, *multi_setopt_slot;

static easy_setopt_function easy_setopt(void) {
    return (easy_setopt_function)lazy_library_function(&lazy_curl, &easy_setopt_slot, "curl_easy_setopt");
}
static easy_getinfo_function easy_getinfo(void) {
    return (easy_getinfo_function)lazy_library_function(&lazy_curl, &easy_getinfo_slot, "curl_easy_getinfo");
}
static multi_setopt_function multi_setopt(void) {
    return (multi_setopt_function)lazy_library_function(&lazy_curl, &multi_setopt_slot, "curl_multi_setopt");
}

CURLcode CCurl_easy_setopt_long(CURL *h, CURLoption o, long v) { return easy_setopt()(h, o, v); }
CURLcode CCurl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return easy_setopt()(h, o, v); }
CURLcode CCurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return easy_setopt()(h, o, v); }
CURLcode CCurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return easy_setopt()(h, o, v); }
CURLcode CCurl_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { return easy_setopt()(h, o, f); }
CURLcode CCurl_easy_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f) { return easy_setopt()(h, CURLOPT_XFERINFOFUNCTION, f); }
CURLcode CCurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return easy_getinfo()(h, i, v); }
CURLcode CCurl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return easy_getinfo()(h, i, v); }
CURLcode CCurl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return easy_getinfo()(h, i, v); }
CURLMcode CCurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return multi_setopt()(m, o, v); }
size_t CCurl_writefunc_error(void) { return (size_t)-1; }
