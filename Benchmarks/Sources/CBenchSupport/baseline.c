#include "CBenchSupport.h"
#include <sqlite3.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile int64_t sink;

const char *bench_sqlite_version(void) { return sqlite3_libversion(); }

double bench_raw_insert(const char *path, int64_t rows, int64_t per_transaction, int full, int64_t *latencies) {
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) return -1;
    sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    sqlite3_exec(db, full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    sqlite3_exec(db,
        "CREATE TABLE IF NOT EXISTS steps (seq INTEGER PRIMARY KEY, event INTEGER, node INTEGER, phase INTEGER,"
        " handler INTEGER, outcome INTEGER, nanos INTEGER)", NULL, NULL, NULL);
    sqlite3_stmt *insert = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO steps VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &insert, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    double start = now();
    int64_t transaction = 0;
    for (int64_t row = 0; row < rows; row++) {
        double began = 0;
        if (row % per_transaction == 0) {
            began = now();
            sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        }
        int64_t seq = 100000 + row;
        sqlite3_bind_int64(insert, 1, seq);
        sqlite3_bind_int64(insert, 2, seq - (row % 12) - 1);
        // Node and handler ids are sequence numbers too: a long session's are in the 10⁵s.
        sqlite3_bind_int64(insert, 3, 100000 + (row % 10));
        sqlite3_bind_int64(insert, 4, 2);
        sqlite3_bind_int64(insert, 5, 200000 + (row % 10));
        sqlite3_bind_int64(insert, 6, 1);
        sqlite3_bind_int64(insert, 7, 300 + (row % 500));
        if (sqlite3_step(insert) != SQLITE_DONE) {
            sqlite3_finalize(insert);
            sqlite3_close(db);
            return -1;
        }
        sqlite3_reset(insert);
        if (row % per_transaction == per_transaction - 1 || row == rows - 1) {
            sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
            if (latencies) latencies[transaction] = (int64_t)((now() - (began > 0 ? began : start)) * 1e9);
            transaction++;
        }
    }
    double elapsed = now() - start;
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return elapsed;
}

double bench_raw_select(const char *path, int64_t *rows) {
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) return -1;
    sqlite3_stmt *select = NULL;
    if (sqlite3_prepare_v2(db, "SELECT seq, event, node, phase, handler, outcome, nanos FROM steps", -1, &select, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    double start = now();
    int64_t count = 0, sum = 0;
    while (sqlite3_step(select) == SQLITE_ROW) {
        for (int column = 0; column < 7; column++) sum += sqlite3_column_int64(select, column);
        count++;
    }
    double elapsed = now() - start;
    sqlite3_finalize(select);
    sqlite3_close(db);
    sink = sum;
    *rows = count;
    return elapsed;
}
