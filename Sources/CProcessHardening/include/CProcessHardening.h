#ifndef DEVICELOGIN_CPROCESSHARDENING_H
#define DEVICELOGIN_CPROCESSHARDENING_H

// prctl(2) is variadic, which Swift cannot call. These two typed wrappers are the only way the Swift side
// (ProcessHardening in the DeviceLogin core) touches it.

/// Sets the process's "dumpable" attribute (`prctl(PR_SET_DUMPABLE, value)`, Linux).
/// Returns 0, or -1 with `errno` set (ENOSYS where there is no such attribute).
int dl_set_dumpable(int value);

/// The process's "dumpable" attribute (`prctl(PR_GET_DUMPABLE)`, Linux): 0 or 1.
/// Returns -1 with `errno` set (ENOSYS where there is no such attribute).
int dl_get_dumpable(void);

#endif
