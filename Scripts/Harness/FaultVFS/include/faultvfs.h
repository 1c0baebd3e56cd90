#ifndef EVENTTREE_FAULTVFS_H
#define EVENTTREE_FAULTVFS_H

/// A test-only SQLite VFS layered over the default one, for the reliability harness.
///
/// It counts the I/O operations that matter for durability (writes, syncs and truncates
/// of the database and its write-ahead log) and can, at a chosen operation:
/// - cut the power: undo every write and truncate not yet made durable by a sync of that
///   file, then end the process at once (_exit), as a power loss would;
/// - inject faults: make operations fail with a given SQLite error code for a while.

/// Registers the VFS as the default one. Returns an SQLite result code.
int eventtree_faultvfs_install(void);

/// Cuts the power at the `operation`-th counted operation (1-based): that operation is
/// not performed, unsynced writes are undone and the process exits with status 99.
void eventtree_faultvfs_cut_power_at(long long operation);

/// Makes counted operations from `first` (1-based) on fail with `code` (for example
/// SQLITE_FULL or SQLITE_IOERR_WRITE) until `eventtree_faultvfs_heal` is called.
/// `kinds` selects which: 1 writes and truncates, 2 syncs, 3 both.
void eventtree_faultvfs_fail_from(long long first, int code, int kinds);

/// Stops injecting faults.
void eventtree_faultvfs_heal(void);

/// How many operations were counted so far.
long long eventtree_faultvfs_operations(void);

/// How many operations failed because of an injected fault.
long long eventtree_faultvfs_injected(void);

#endif
