#ifndef EVENTTREE_BENCH_SUPPORT_H
#define EVENTTREE_BENCH_SUPPORT_H

#include <stdint.h>

/// Baseline 1 and 2: inserts `rows` step rows (7 integers, the shape a journal step has)
/// into a fresh WAL database at `path` with one prepared statement, `rows_per_transaction`
/// rows per transaction, synchronous=FULL when `full` else NORMAL. When `latencies` is not
/// NULL it receives each transaction's duration in nanoseconds. Returns seconds, or -1.
double bench_raw_insert(const char *path, int64_t rows, int64_t rows_per_transaction, int full, int64_t *latencies);

/// Baseline 5: reads every row of the table bench_raw_insert wrote. Returns seconds, or -1;
/// `rows` receives the count.
double bench_raw_select(const char *path, int64_t *rows);

/// Allocation counting for the calling thread (the benchmark binary replaces malloc).
void bench_count_allocations(int enabled);
int64_t bench_allocations(void);

/// The linked SQLite's version.
const char *bench_sqlite_version(void);

#endif
