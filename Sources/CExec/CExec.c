#define _GNU_SOURCE
#include "CExec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))

int dl_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

#else

int dl_spawn_add_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    (void)actions;
    (void)lowest;
    return ENOSYS;
}

#endif

#if defined(__GLIBC__) && defined(__SIGRTMIN)

void dl_spawn_add_libc_signals(sigset_t *set) {
    // sigset_t is an array of unsigned long in glibc; signal N is bit N - 1.
    unsigned long *words = (unsigned long *)set;
    const int bits = (int)(8 * sizeof(unsigned long));
    for (int number = __SIGRTMIN; number < SIGRTMIN; number++) {
        words[(number - 1) / bits] |= 1UL << ((number - 1) % bits);
    }
}

#else

void dl_spawn_add_libc_signals(sigset_t *set) {
    (void)set;
}

#endif

enum { dl_maximum_signals = 32 };

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;
/// The pipe: [0] is read by the Swift side, [1] written by the handler. Created once, never closed.
static int dl_pipe[2] = {-1, -1};
/// The writing end as the handler reads it.
static volatile sig_atomic_t dl_write_end = -1;
static int dl_users = 0;
static int dl_signals[dl_maximum_signals];
static struct sigaction dl_previous[dl_maximum_signals];
static int dl_signal_count = 0;

// Not instrumented by AddressSanitizer: the kernel writes `info` into the signal frame on whatever stack the thread
// is on, and when that is memory ASan had poisoned (libdispatch's main thread clears its stack with an alloca
// before it sleeps in sigsuspend), ASan would report the kernel's own siginfo as an overflow.
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize("address")))
#endif
static void dl_catch(int number, siginfo_t *info, void *context) {
    (void)context;
    int saved = errno;
    dl_caught_signal record = {number, info ? info->si_code : 0, info ? (int)info->si_pid : 0};
    int descriptor = dl_write_end;
    if (descriptor >= 0) {
        // Atomic: a record is far smaller than PIPE_BUF. A full pipe drops it (EAGAIN).
        ssize_t written = write(descriptor, &record, sizeof record);
        (void)written;
    }
    errno = saved;
}

// The action dl_catch_signals installs, and dl_recatch_signals again: dl_catch, with the sender (SA_SIGINFO).
static struct sigaction dl_catching(void) {
    struct sigaction catching;
    memset(&catching, 0, sizeof catching);
    catching.sa_sigaction = dl_catch;
    catching.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&catching.sa_mask);
    return catching;
}

static int dl_open_pipe(void) {
    if (dl_pipe[0] >= 0) {
        dl_caught_signal stale;
        while (read(dl_pipe[0], &stale, sizeof stale) > 0) {
        }
        return 0;
    }
    int ends[2];
    if (pipe(ends) != 0) return -1;
    for (int index = 0; index < 2; index++) {
        if (fcntl(ends[index], F_SETFD, FD_CLOEXEC) != 0 || fcntl(ends[index], F_SETFL, O_NONBLOCK) != 0) {
            int failure = errno;
            close(ends[0]);
            close(ends[1]);
            errno = failure;
            return -1;
        }
    }
    dl_pipe[0] = ends[0];
    dl_pipe[1] = ends[1];
    dl_write_end = ends[1];
    return 0;
}

int dl_catch_signals(const int *signals, int count) {
    if (count < 0 || count > dl_maximum_signals) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&dl_lock);
    if (dl_users == 0) {
        if (dl_open_pipe() != 0) {
            int failure = errno;
            pthread_mutex_unlock(&dl_lock);
            errno = failure;
            return -1;
        }
        struct sigaction catching = dl_catching();
        dl_signal_count = 0;
        for (int index = 0; index < count; index++) {
            if (sigaction(signals[index], &catching, &dl_previous[dl_signal_count]) == 0) {
                dl_signals[dl_signal_count] = signals[index];
                dl_signal_count += 1;
            }
        }
    }
    dl_users += 1;
    int reading = dl_pipe[0];
    pthread_mutex_unlock(&dl_lock);
    return reading;
}

int dl_recatch_signals(void) {
    pthread_mutex_lock(&dl_lock);
    int replaced = 0;
    if (dl_users > 0) {
        struct sigaction catching = dl_catching();
        for (int index = 0; index < dl_signal_count; index++) {
            struct sigaction current;
            if (sigaction(dl_signals[index], NULL, &current) != 0) continue;
            if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == dl_catch) continue;
            if (sigaction(dl_signals[index], &catching, NULL) == 0) {
                dl_previous[index] = current;
                replaced += 1;
            }
        }
    }
    pthread_mutex_unlock(&dl_lock);
    return replaced;
}

void dl_release_signals(void) {
    pthread_mutex_lock(&dl_lock);
    if (dl_users > 0) {
        dl_users -= 1;
        if (dl_users == 0) {
            for (int index = 0; index < dl_signal_count; index++) {
                sigaction(dl_signals[index], &dl_previous[index], NULL);
            }
            dl_signal_count = 0;
        }
    }
    pthread_mutex_unlock(&dl_lock);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DL_ADDRESS_SANITIZER 1
#endif
#endif
#if !defined(DL_ADDRESS_SANITIZER) && defined(__SANITIZE_ADDRESS__)
#define DL_ADDRESS_SANITIZER 1
#endif
#ifdef DL_ADDRESS_SANITIZER
void __asan_handle_no_return(void);
#endif

void dl_leave_frames(void) {
#ifdef DL_ADDRESS_SANITIZER
    __asan_handle_no_return();
#endif
}
