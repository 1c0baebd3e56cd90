// The platform differences EventTree has, in one place: everything else in the package
// compiles the same code on Linux and on Apple's systems.
#define _GNU_SOURCE
#include "CEventTreeThread.h"

#include <errno.h>
#include <time.h>

int eventtree_cond_init(pthread_cond_t *_Nonnull condition) {
#if defined(__APPLE__)
    // Darwin has no pthread_condattr_setclock: timed waits are made relative instead.
    return pthread_cond_init(condition, NULL);
#else
    pthread_condattr_t attributes;
    int status = pthread_condattr_init(&attributes);
    if (status != 0) return status;
    status = pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    if (status == 0) status = pthread_cond_init(condition, &attributes);
    pthread_condattr_destroy(&attributes);
    return status;
#endif
}

int eventtree_cond_wait_until(
    pthread_cond_t *_Nonnull condition, pthread_mutex_t *_Nonnull mutex, long long deadline) {
#if defined(__APPLE__)
    long long remaining = deadline - eventtree_monotonic_nanoseconds();
    if (remaining <= 0) return ETIMEDOUT;
    struct timespec relative = {.tv_sec = remaining / 1000000000LL, .tv_nsec = remaining % 1000000000LL};
    return pthread_cond_timedwait_relative_np(condition, mutex, &relative);
#else
    struct timespec absolute = {.tv_sec = deadline / 1000000000LL, .tv_nsec = deadline % 1000000000LL};
    return pthread_cond_timedwait(condition, mutex, &absolute);
#endif
}

int eventtree_thread_name(char *_Nonnull buffer, size_t size) {
    if (size == 0) return EINVAL;
    buffer[0] = 0;
    return pthread_getname_np(pthread_self(), buffer, size);
}
