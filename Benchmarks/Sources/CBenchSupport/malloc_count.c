// Counts allocations made by the calling thread, by replacing malloc and friends in the
// benchmark binary (glibc lets an executable define them; the real ones stay reachable as
// __libc_*). Counting is off unless a thread turns it on, so the cost elsewhere is one
// thread-local load.
#include "CBenchSupport.h"
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static __thread int counting __attribute__((tls_model("initial-exec")));
static __thread int64_t count __attribute__((tls_model("initial-exec")));

void bench_count_allocations(int enabled) { counting = enabled; if (enabled) count = 0; }
int64_t bench_allocations(void) { return count; }

void *malloc(size_t size) { if (counting) count++; return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { if (counting) count++; return __libc_calloc(n, size); }
void *realloc(void *pointer, size_t size) { if (counting) count++; return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { if (counting) count++; return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { if (counting) count++; return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    if (counting) count++;
    void *pointer = __libc_memalign(alignment, size);
    if (!pointer) return ENOMEM;
    *out = pointer;
    return 0;
}
