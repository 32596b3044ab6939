#include "CHeapUsage.h"

#if defined(__linux__)
#include <malloc.h> // on glibc, also defines __GLIBC__ and __GLIBC_MINOR__ (through features.h)
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))

long long dl_heap_bytes_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}

#else

long long dl_heap_bytes_in_use(void) {
    return -1;
}

#endif
