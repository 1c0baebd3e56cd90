#include "CEventTreeThread.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

void eventtree_futex_wait(void *_Nonnull word, unsigned int expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void eventtree_futex_wake_one(void *_Nonnull word) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#endif
