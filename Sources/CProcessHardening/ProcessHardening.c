#include "CProcessHardening.h"

#include <errno.h>

#if defined(__linux__)
#include <sys/prctl.h>

int dl_set_dumpable(int value) {
    return prctl(PR_SET_DUMPABLE, (unsigned long)value, 0UL, 0UL, 0UL);
}

int dl_get_dumpable(void) {
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
}

#else

int dl_set_dumpable(int value) {
    (void)value;
    errno = ENOSYS;
    return -1;
}

int dl_get_dumpable(void) {
    errno = ENOSYS;
    return -1;
}

#endif
