#include <stddef.h>
#if defined(__linux__)
#include <malloc.h>
#endif

/// jemalloc's control call, present when the program runs with jemalloc as its malloc (`places` and `places-bench`
/// link it: see Package.swift). Declared weak, so in a program without jemalloc (the test runner) it is NULL.
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));

/// Hands the pages malloc holds free back to the system, in every arena; returns 1 when the call was made and
/// succeeded, 0 otherwise or where the C library has no such call. With jemalloc: `arena.<MALLCTL_ARENAS_ALL>.purge`
/// (4096 in jemalloc 5), which returns every unused page at once rather than after its decay time; otherwise glibc's
/// `malloc_trim`, which does nothing for memory jemalloc holds. Swift does not see either (malloc.h is not in the C
/// library's module, and mallctl is jemalloc's), hence this header.
static inline int places_release_free_malloc_memory(void) {
    if (mallctl != NULL) {
        return mallctl("arena.4096.purge", NULL, NULL, NULL, 0) == 0;
    }
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
