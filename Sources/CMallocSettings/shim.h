#if defined(__linux__)
#include <malloc.h>
#endif

/// Hands the pages malloc holds free, in every arena, back to the system (glibc's `malloc_trim`); returns 1 when
/// memory was released, 0 otherwise or where the C library has no such call. Swift does not see it (malloc.h is not
/// in the C library's module), hence this header.
static inline int places_release_free_malloc_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
