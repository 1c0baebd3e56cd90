#ifndef CEVENTTREE_THREAD_H
#define CEVENTTREE_THREAD_H

// What EventTree needs from the platform beyond what Swift imports the same way everywhere:
// a thread-local pointer, a condition variable on the monotonic clock, and a thread's name.
// Every function has one POSIX signature; where Linux and Darwin differ, Platform.c holds
// the difference (the only place in the package that does).

#include <pthread.h>
#include <stddef.h>
#include <time.h>

// The calling thread's delivery stack (EventTree's `DeliveryStack`), as a thread-local
// pointer: every raise reads it, and a `__thread` variable costs a couple of instructions
// where `pthread_getspecific` costs a call. The pointer is unretained: EventTree keeps the
// stack alive with a pthread key whose destructor releases it and clears this pointer when
// the thread exits.
extern __thread void *_Nullable eventtree_delivery_stack;

static inline void *_Nullable eventtree_current_delivery_stack(void) {
    return eventtree_delivery_stack;
}

static inline void eventtree_set_current_delivery_stack(void *_Nullable stack) {
    eventtree_delivery_stack = stack;
}

// The calling thread's number as EventTreeJournal's `RaisingThread` numbers the threads that
// hand a journal their raises (0 until it is numbered).
extern __thread long eventtree_raising_thread;

static inline long eventtree_raising_thread_number(void) {
    return eventtree_raising_thread;
}

static inline void eventtree_set_raising_thread_number(long number) {
    eventtree_raising_thread = number;
}

// Initialises `condition` so that `eventtree_cond_wait_until` measures deadlines on the
// monotonic clock. Returns pthread's status (0: done).
int eventtree_cond_init(pthread_cond_t *_Nonnull condition);

// Waits on `condition` with `mutex` held (released during the wait) until signalled or until
// the monotonic clock reaches `deadline` nanoseconds. Returns 0 when signalled (or woken
// spuriously), ETIMEDOUT when the deadline passed.
int eventtree_cond_wait_until(
    pthread_cond_t *_Nonnull condition, pthread_mutex_t *_Nonnull mutex, long long deadline);

// Nanoseconds on the monotonic clock (inline: a recorded handler call reads it once).
static inline long long eventtree_monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

// Writes the calling thread's name (empty when it has none) into `buffer`. Returns 0 when done.
int eventtree_thread_name(char *_Nonnull buffer, size_t size);

#endif
