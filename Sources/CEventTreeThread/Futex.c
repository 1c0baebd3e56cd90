#include "CEventTreeThread.h"

#if defined(__linux__)
#include <errno.h>
#include <linux/futex.h>
#include <time.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

int eventtree_futex_wait(void *_Nonnull word, unsigned int expected, long long nanoseconds) {
    struct timespec timeout = {.tv_sec = nanoseconds / 1000000000, .tv_nsec = nanoseconds % 1000000000};
    long status = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, nanoseconds < 0 ? NULL : &timeout, NULL, 0);
    return status == -1 && errno == ETIMEDOUT;
}

void eventtree_futex_wake(void *_Nonnull word, int count) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}
#endif
