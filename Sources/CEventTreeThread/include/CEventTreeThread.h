#ifndef CEVENTTREE_THREAD_H
#define CEVENTTREE_THREAD_H

// The calling thread's delivery stack (EventTree's `DeliveryStack`), as a thread-local
// pointer: every raise reads it, and a `__thread` variable costs a couple of instructions
// where `pthread_getspecific` costs a call (linked into an executable, the access becomes a
// plain load from the thread's block; in a shared library it stays a `__tls_get_addr` call).
// The pointer is unretained: EventTree keeps the stack alive with a pthread key whose
// destructor releases it and clears this pointer when the thread exits.

extern __thread void *_Nullable eventtree_delivery_stack;

static inline void *_Nullable eventtree_current_delivery_stack(void) {
    return eventtree_delivery_stack;
}

static inline void eventtree_set_current_delivery_stack(void *_Nullable stack) {
    eventtree_delivery_stack = stack;
}

// The calling thread's number as EventTreeJournal's `RaisingThread` numbers the threads that
// hand a journal their raises (0 until it is numbered): read once a journaled raise, a load
// where `pthread_getspecific` is a call.
extern __thread long eventtree_raising_thread;

static inline long eventtree_raising_thread_number(void) {
    return eventtree_raising_thread;
}

static inline void eventtree_set_raising_thread_number(long number) {
    eventtree_raising_thread = number;
}

// Asks for the cache lines of `bytes` bytes at `start`, to be written (a hint: nothing is
// read or written, and an address needs no mapping), so that memory another core used last
// is on its way before the first store to it. Four lines a turn: for the kilobyte a raise's
// records take, the loop's own compare and branch were most of the cost.
static inline void eventtree_prefetch_for_write(const void *_Nonnull start, long bytes) {
    const char *base = start;
    long offset = 0;
    for (; offset + 192 < bytes; offset += 256) {
        __builtin_prefetch(base + offset, 1, 3);
        __builtin_prefetch(base + offset + 64, 1, 3);
        __builtin_prefetch(base + offset + 128, 1, 3);
        __builtin_prefetch(base + offset + 192, 1, 3);
    }
    for (; offset < bytes; offset += 64) __builtin_prefetch(base + offset, 1, 3);
}

// A reading of the processor's cycle counter (x86-64's time-stamp counter, arm64's virtual
// counter): a few instructions where `clock_gettime` costs a call and a seqlock. 0 on other
// processors, where EventTree never reads it (see `CycleCounter.isUsable`).
static inline unsigned long long eventtree_cycle_counter(void) {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    unsigned long long value;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    return 0;
#endif
}

#if defined(__linux__)
// Sleeps while the 32-bit word at `word` holds `expected`, until woken (or spuriously), or
// for at most `nanoseconds` (monotonic) when that is not negative: the waiting half of
// EventTree's `UnfairLock` and `Condition`. Returns 1 when the time ran out, else 0.
int eventtree_futex_wait(void *_Nonnull word, unsigned int expected, long long nanoseconds);

// Wakes up to `count` threads sleeping on `word`.
void eventtree_futex_wake(void *_Nonnull word, int count);
#endif

#endif
