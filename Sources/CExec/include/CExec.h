#ifndef DEVICELOGIN_CEXEC_H
#define DEVICELOGIN_CEXEC_H

#include <signal.h>
#include <spawn.h>

// What `device-login exec` (ChildLauncher, in Swift) needs from C:
// - posix_spawn_file_actions_addclosefrom_np, a GNU extension (glibc 2.34) declared only with _GNU_SOURCE, which
//   Swift's Glibc module is not built with;
// - a signal handler that keeps each signal's sender (siginfo_t), which a Swift closure cannot be: it runs in a
//   signal handler, where only async-signal-safe code may run (no Swift runtime, no allocation).

/// Adds to `actions` the closing, in the child, of every descriptor from `lowest` up
/// (`posix_spawn_file_actions_addclosefrom_np`). Returns 0, or an error number: ENOSYS where the C library has no
/// such action (the caller then closes the descriptors it knows of one by one).
int dl_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// Adds to `set` the signals the C library keeps for itself (glibc: 32 and 33, its thread cancellation and setxid
/// signals, which `sigaddset` refuses). glibc's posix_spawn sets those to be ignored in the child unless they are
/// in its "set to default" set, and an ignored signal stays ignored across exec: every command would start with
/// them ignored. Does nothing with other C libraries.
void dl_spawn_add_libc_signals(sigset_t *set);

/// One caught signal, as the handler of dl_catch_signals writes it to its pipe.
typedef struct {
    /// The signal's number.
    int number;
    /// Its `si_code`: SI_USER for kill(2), SI_KERNEL for the terminal's signals, ...
    int code;
    /// Its `si_pid`: the sending process, or 0.
    int sender;
} dl_caught_signal;

/// Catches `signals` (`count` of them, at most 32) with a handler that writes a dl_caught_signal for each delivery
/// to a pipe, and returns the pipe's reading end (close-on-exec, non-blocking), or -1 with errno set. The actions
/// the signals had are kept, for dl_release_signals. Calls may nest (the handler is installed once, with the first
/// call's signals, and records are drained then); each must be matched by one dl_release_signals. A record that
/// does not fit in the pipe (a flood of signals) is dropped.
int dl_catch_signals(const int *signals, int count);

/// Ends one dl_catch_signals; the last one puts the previous actions back. The pipe stays open for the next use.
void dl_release_signals(void);

/// While signals are caught: installs the handler again for each caught signal whose action someone else replaced
/// meanwhile (libdispatch installs its own the first time a Dispatch source for a signal is registered, which
/// happens later, on its manager thread), keeping that action as the one dl_release_signals puts back. Returns how
/// many were replaced.
int dl_recatch_signals(void);

/// Tells AddressSanitizer that the calling thread leaves its frames without returning: `dispatchMain()` ends the main
/// thread with pthread_exit and then runs libdispatch's signal thread on the same stack, where the redzones of the
/// frames it left are still poisoned, and a signal frame the kernel writes there (dl_catch's, or libdispatch's own
/// handler) was reported as a stack error. Clears them (`__asan_handle_no_return`); does nothing in a build without
/// the sanitizer.
void dl_leave_frames(void);

#endif
