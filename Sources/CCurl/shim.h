// Typed wrappers for libcurl's variadic calls and the macros Swift cannot import.
// Only static inline functions: every cast to curl's variadic ABI happens here, in C.
#ifndef HERALD_CCURL_SHIM_H
#define HERALD_CCURL_SHIM_H

#include <curl/curl.h>

// Easy options.
static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

typedef int (*ccurl_sockopt_callback)(void *user, curl_socket_t socket, curlsocktype purpose);
static inline CURLcode ccurl_easy_setopt_sockopt_callback(CURL *handle, ccurl_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}
typedef int (*ccurl_closesocket_callback)(void *user, curl_socket_t socket);
static inline CURLcode ccurl_easy_setopt_closesocket_callback(CURL *handle, ccurl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}

// Easy info.
static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

// Multi options.
static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

// Multi messages: the union and enum of CURLMsg are awkward from Swift.
static inline int ccurl_msg_is_done(const CURLMsg *message) { return message->msg == CURLMSG_DONE; }
static inline CURL *ccurl_msg_easy(const CURLMsg *message) { return message->easy_handle; }
static inline CURLcode ccurl_msg_result(const CURLMsg *message) { return message->data.result; }

// Macros and constants Swift does not import as typed values.
static inline long ccurl_http_version_2tls(void) { return (long)CURL_HTTP_VERSION_2TLS; }
static inline long ccurl_http_version_2_prior_knowledge(void) { return (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE; }
static inline long ccurl_sslversion_tlsv1_2(void) { return (long)CURL_SSLVERSION_TLSv1_2; }
static inline long ccurl_pipe_multiplex(void) { return (long)CURLPIPE_MULTIPLEX; }
static inline long ccurl_global_all(void) { return (long)CURL_GLOBAL_ALL; }
static inline int ccurl_version_num(void) { return LIBCURL_VERSION_NUM; }

#endif
