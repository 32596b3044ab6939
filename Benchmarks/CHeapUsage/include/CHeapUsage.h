#ifndef DEVICELOGIN_CHEAPUSAGE_H
#define DEVICELOGIN_CHEAPUSAGE_H

// For device-login-bench: the bytes the C heap has handed out and not yet taken back, which Swift's Glibc module
// does not expose (mallinfo2 is declared in <malloc.h>, outside the module).

/// The bytes in use in the process's heap: `mallinfo2()`'s `uordblks` (allocated chunks in every arena) plus
/// `hblkhd` (chunks allocated with mmap), glibc 2.33 and later. Returns -1 where there is no such count (another
/// C library). It takes glibc's arena locks, one arena at a time, and allocates nothing.
long long dl_heap_bytes_in_use(void);

#endif
