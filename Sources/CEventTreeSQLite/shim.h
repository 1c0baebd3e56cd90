#ifndef EVENTTREE_SQLITE_SHIM_H
#define EVENTTREE_SQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type eventtree_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic, which Swift cannot call; these wrap the calls we need.
static inline int eventtree_sqlite_enable_defensive(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
}

static inline int eventtree_sqlite_disable_trusted_schema(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}

static inline int eventtree_sqlite_enable_trusted_schema(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 1, (int *)0);
}

/// The journal writer's checkpoint policy, run after every commit (it replaces SQLite's
/// automatic checkpoint, which is a PASSIVE checkpoint past `wal_autocheckpoint` pages).
/// A PASSIVE checkpoint cannot restart the log while readers use it, so with readers
/// polling all the time the log would only grow: past three times the threshold, a RESTART
/// checkpoint waits (through the busy handler, briefly) for the readers of the moment to
/// finish, so that the next commit writes the log from its start and `journal_size_limit`
/// truncates it. (Three, not four: the hook runs after a commit, and a fast writer's commits
/// are large, so the log needs room above the trigger while readers delay the restart.)
static inline int eventtree_wal_hook(void *context, sqlite3 *db, const char *name, int frames) {
    int pages = (int)(long)context;
    if (frames >= 3 * pages) {
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_RESTART, (int *)0, (int *)0);
    } else if (frames >= pages) {
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, (int *)0, (int *)0);
    }
    return SQLITE_OK;
}

static inline void eventtree_install_checkpoint_policy(sqlite3 *db, int pages) {
    sqlite3_wal_hook(db, eventtree_wal_hook, (void *)(long)pages);
}

/// A budget of virtual-machine steps for the statements of a connection that reads an
/// untrusted file: the progress handler counts steps in units of 1,000 and interrupts the
/// statement (SQLITE_INTERRUPT) past the budget. The reader resets it for each query.
typedef struct eventtree_budget {
    long long used;
    long long limit;
} eventtree_budget;

static inline int eventtree_budget_step(void *context) {
    eventtree_budget *budget = (eventtree_budget *)context;
    return ++budget->used > budget->limit;
}

static inline void eventtree_install_budget(sqlite3 *db, eventtree_budget *budget) {
    sqlite3_progress_handler(db, 1000, eventtree_budget_step, budget);
}

#endif
