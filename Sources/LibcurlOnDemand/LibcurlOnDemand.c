// libcurl, loaded on first use.
//
// Why: Foundation's URLSession (FoundationNetworking) is built on libcurl, and libcurl needs some thirty shared
// libraries (TLS, Kerberos, LDAP, SSH, HTTP/2, IDN, compression). Linked normally, the dynamic loader maps and
// relocates all of them at every start of `places`, about 11 ms, although most commands (search, details,
// spots) never touch the network (issue #18: a 20 ms CLI).
//
// How: the executable defines the libcurl functions FoundationNetworking calls (every `curl_*` symbol
// `nm -u lib_CFURLSessionInterface.a` lists in the toolchain's swift_static). Each one loads libcurl.so.4 with
// dlopen on the first call and forwards to the real function. The Swift targets that import FoundationNetworking,
// and those above them (the import's link request travels with them), are compiled with
// `-disable-autolink-library curl` (Package.swift), so with the Swift standard library linked statically nothing
// asks for -lcurl and libcurl is no longer a DT_NEEDED entry: `ldd places` does not list it.
// In a build against the shared Foundation libraries (debug, tests), libFoundationNetworking.so needs libcurl
// itself and calls it directly; these functions are linked but unused.
//
// If a later toolchain's FoundationNetworking calls a libcurl function not listed here, the static release link
// fails naming it ("undefined reference to curl_…"): add it to LIBCURL_FUNCTIONS and below.
#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CURL_DISABLE_TYPECHECK
#include "LibcurlOnDemand.h"
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

// curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic with exactly one argument after the
// option: a long, a curl_off_t, a pointer or a function pointer. On the 64-bit Linux ABIs (x86-64, aarch64) each
// of those is passed in one 8-byte integer slot, so reading it as a pointer and passing it on is exact.
_Static_assert(sizeof(void *) == 8 && sizeof(long) == 8 && sizeof(curl_off_t) == 8,
               "forwarding curl_easy_setopt's argument as one pointer needs a 64-bit ABI");

#define LIBCURL_FUNCTIONS(X)                                                                                   \
    X(curl_easy_cleanup) X(curl_easy_getinfo) X(curl_easy_init) X(curl_easy_pause) X(curl_easy_setopt)        \
    X(curl_easy_strerror) X(curl_free) X(curl_global_init) X(curl_multi_add_handle) X(curl_multi_assign)      \
    X(curl_multi_cleanup) X(curl_multi_info_read) X(curl_multi_init) X(curl_multi_remove_handle)              \
    X(curl_multi_setopt) X(curl_multi_socket_action) X(curl_slist_append) X(curl_slist_free_all) X(curl_url)  \
    X(curl_url_get) X(curl_url_set) X(curl_version) X(curl_version_info)

static struct {
#define FIELD(name) __typeof__(&name) name;
    LIBCURL_FUNCTIONS(FIELD)
#undef FIELD
} real;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;
// Why libcurl could not be loaded, as a user reads it; empty when it was.
static char missing[512];

static void record_missing(const char *what, const char *detail) {
    snprintf(missing, sizeof missing, "libcurl is not installed: %s (%s); install it (Debian/Ubuntu: apt-get install libcurl4)",
             what, detail ? detail : "unknown error");
}

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        record_missing("cannot load libcurl.so.4", dlerror());
        return;
    }
    // A handle's lookup starts in that library, so these are libcurl's own functions, never the ones below.
#define RESOLVE(name)                                                                                           \
    if (!(real.name = (__typeof__(&name))dlsym(library, #name))) {                                            \
        record_missing("libcurl.so.4 lacks " #name, dlerror());                                                \
        return;                                                                                                \
    }
    LIBCURL_FUNCTIONS(RESOLVE)
#undef RESOLVE
}

const char *places_libcurl_missing(void) {
    pthread_once(&loaded, load);
    return missing[0] ? missing : NULL;
}

// Callers ask places_libcurl_missing() before they make a URLSession, so this is a last resort: without libcurl
// nothing network-bound can work, and one line and an exit beat handing Foundation a null handle it traps on.
static inline void ensure_loaded(void) {
    if (places_libcurl_missing()) {
        fprintf(stderr, "%s: %s\n", program_invocation_short_name, missing);
        exit(1);
    }
}

CURL *curl_easy_init(void) { ensure_loaded(); return real.curl_easy_init(); }
void curl_easy_cleanup(CURL *handle) { ensure_loaded(); real.curl_easy_cleanup(handle); }
CURLcode curl_easy_pause(CURL *handle, int bitmask) { ensure_loaded(); return real.curl_easy_pause(handle, bitmask); }
const char *curl_easy_strerror(CURLcode code) { ensure_loaded(); return real.curl_easy_strerror(code); }
void curl_free(void *pointer) { ensure_loaded(); real.curl_free(pointer); }
CURLcode curl_global_init(long flags) { ensure_loaded(); return real.curl_global_init(flags); }
char *curl_version(void) { ensure_loaded(); return real.curl_version(); }
curl_version_info_data *curl_version_info(CURLversion age) { ensure_loaded(); return real.curl_version_info(age); }

// The variadic three: the one argument after the option is read as a pointer and passed on (see above).
#define FORWARD_ONE_ARGUMENT(name, Result, Handle, Option)                                                      \
    Result name(Handle handle, Option option, ...) {                                                           \
        va_list arguments;                                                                                     \
        va_start(arguments, option);                                                                           \
        void *value = va_arg(arguments, void *);                                                               \
        va_end(arguments);                                                                                     \
        ensure_loaded();                                                                                       \
        return real.name(handle, option, value);                                                               \
    }
FORWARD_ONE_ARGUMENT(curl_easy_setopt, CURLcode, CURL *, CURLoption)
FORWARD_ONE_ARGUMENT(curl_easy_getinfo, CURLcode, CURL *, CURLINFO)
FORWARD_ONE_ARGUMENT(curl_multi_setopt, CURLMcode, CURLM *, CURLMoption)
#undef FORWARD_ONE_ARGUMENT

CURLM *curl_multi_init(void) { ensure_loaded(); return real.curl_multi_init(); }
CURLMcode curl_multi_add_handle(CURLM *multi, CURL *easy) { ensure_loaded(); return real.curl_multi_add_handle(multi, easy); }
CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *easy) { ensure_loaded(); return real.curl_multi_remove_handle(multi, easy); }
CURLMcode curl_multi_cleanup(CURLM *multi) { ensure_loaded(); return real.curl_multi_cleanup(multi); }
CURLMsg *curl_multi_info_read(CURLM *multi, int *queued) { ensure_loaded(); return real.curl_multi_info_read(multi, queued); }
CURLMcode curl_multi_assign(CURLM *multi, curl_socket_t socket, void *pointer) {
    ensure_loaded();
    return real.curl_multi_assign(multi, socket, pointer);
}
CURLMcode curl_multi_socket_action(CURLM *multi, curl_socket_t socket, int events, int *running) {
    ensure_loaded();
    return real.curl_multi_socket_action(multi, socket, events, running);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) {
    ensure_loaded();
    return real.curl_slist_append(list, text);
}
void curl_slist_free_all(struct curl_slist *list) { ensure_loaded(); real.curl_slist_free_all(list); }

CURLU *curl_url(void) { ensure_loaded(); return real.curl_url(); }
CURLUcode curl_url_get(CURLU *url, CURLUPart part, char **text, unsigned int flags) {
    ensure_loaded();
    return real.curl_url_get(url, part, text, flags);
}
CURLUcode curl_url_set(CURLU *url, CURLUPart part, const char *text, unsigned int flags) {
    ensure_loaded();
    return real.curl_url_set(url, part, text, flags);
}
#else
const char *places_libcurl_missing(void) { return NULL; }
#endif
