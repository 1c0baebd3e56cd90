// A test-only SQLite VFS for the reliability harness: power cuts and injected faults.
// See include/faultvfs.h. Only the harness links it; the library never does.
#include "faultvfs.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// One write (or truncate) not yet made durable by a sync: enough to undo it.
typedef struct Undo {
    long long offset;      // where the old bytes go back
    long long old_size;    // the file's size before the operation
    int length;            // how many old bytes
    unsigned char *bytes;  // the old bytes (NULL when the range was past the end)
    struct Undo *previous;
} Undo;

// The undo log of one path, kept across closes: closing a file does not make it durable.
typedef struct Tracked {
    char *path;
    Undo *last;
    struct Tracked *next;
} Tracked;

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
    Tracked *tracked;  // NULL for files whose contents do not matter (the -shm index)
} FaultFile;

static sqlite3_vfs *parent;
static sqlite3_vfs vfs;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static Tracked *tracked_files;
static atomic_llong operations;
static atomic_llong injected;
static long long cut_at = -1;
static long long fail_from = -1;
static int fail_code;
static int fail_kinds;

static Tracked *track(const char *path) {
    for (Tracked *t = tracked_files; t; t = t->next)
        if (strcmp(t->path, path) == 0) return t;
    Tracked *t = calloc(1, sizeof(Tracked));
    t->path = strdup(path);
    t->next = tracked_files;
    tracked_files = t;
    return t;
}

static long long file_size(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    long long size = lseek(fd, 0, SEEK_END);
    close(fd);
    return size < 0 ? 0 : size;
}

// Saves what [offset, offset + length) holds now, before a write or truncate changes it.
static void remember(Tracked *t, long long offset, long long length) {
    Undo *undo = calloc(1, sizeof(Undo));
    undo->offset = offset;
    undo->old_size = file_size(t->path);
    long long available = undo->old_size - offset;
    if (available > length) available = length;
    if (available > 0) {
        undo->bytes = malloc((size_t)available);
        int fd = open(t->path, O_RDONLY);
        long long got = fd < 0 ? 0 : pread(fd, undo->bytes, (size_t)available, offset);
        if (fd >= 0) close(fd);
        undo->length = got > 0 ? (int)got : 0;
    }
    undo->previous = t->last;
    t->last = undo;
}

static void forget(Tracked *t) {
    Undo *undo = t->last;
    while (undo) {
        Undo *previous = undo->previous;
        free(undo->bytes);
        free(undo);
        undo = previous;
    }
    t->last = NULL;
}

// Power is cut: every unsynced change goes back, newest first; then the process ends.
static void cut_power(void) {
    for (Tracked *t = tracked_files; t; t = t->next) {
        int fd = open(t->path, O_WRONLY);
        if (fd < 0) continue;
        for (Undo *undo = t->last; undo; undo = undo->previous) {
            if (undo->length > 0) (void)!pwrite(fd, undo->bytes, (size_t)undo->length, undo->offset);
            if (ftruncate(fd, undo->old_size) != 0) {}
        }
        close(fd);
    }
    _exit(99);
}

// Counts an operation of `kind` (1 write/truncate, 2 sync); returns an injected error
// code, or SQLITE_OK to go ahead. Called with `mutex` held.
static int count_operation(int kind) {
    long long number = atomic_fetch_add(&operations, 1) + 1;
    if (cut_at > 0 && number >= cut_at) cut_power();
    if (fail_from > 0 && number >= fail_from && (fail_kinds & kind)) {
        atomic_fetch_add(&injected, 1);
        return fail_code;
    }
    return SQLITE_OK;
}

static int fault_close(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    return rc;
}

static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}

static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *f = (FaultFile *)file;
    if (!f->tracked) return f->real->pMethods->xWrite(f->real, buffer, amount, offset);
    pthread_mutex_lock(&mutex);
    int rc = count_operation(1);
    if (rc == SQLITE_OK) {
        remember(f->tracked, offset, amount);
        rc = f->real->pMethods->xWrite(f->real, buffer, amount, offset);
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    FaultFile *f = (FaultFile *)file;
    if (!f->tracked) return f->real->pMethods->xTruncate(f->real, size);
    pthread_mutex_lock(&mutex);
    int rc = count_operation(1);
    if (rc == SQLITE_OK) {
        long long old_size = file_size(f->tracked->path);
        if (old_size > size) remember(f->tracked, size, old_size - size);
        rc = f->real->pMethods->xTruncate(f->real, size);
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fault_sync(sqlite3_file *file, int flags) {
    FaultFile *f = (FaultFile *)file;
    if (!f->tracked) return f->real->pMethods->xSync(f->real, flags);
    pthread_mutex_lock(&mutex);
    int rc = count_operation(2);
    if (rc == SQLITE_OK) {
        rc = f->real->pMethods->xSync(f->real, flags);
        if (rc == SQLITE_OK) forget(f->tracked);
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xFileSize(f->real, size);
}

static int fault_lock(sqlite3_file *file, int level) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int fault_unlock(sqlite3_file *file, int level) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int fault_check_reserved_lock(sqlite3_file *file, int *out) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int fault_file_control(sqlite3_file *file, int op, void *argument) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xFileControl(f->real, op, argument);
}

static int fault_sector_size(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int fault_device_characteristics(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    // No SQLITE_IOCAP_POWERSAFE_OVERWRITE or atomic-write claims: the power-cut model
    // keeps only what a sync made durable.
    return f->real->pMethods->xDeviceCharacteristics(f->real)
        & ~(SQLITE_IOCAP_POWERSAFE_OVERWRITE | SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_SAFE_APPEND
            | SQLITE_IOCAP_SEQUENTIAL | SQLITE_IOCAP_BATCH_ATOMIC);
}

static int fault_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xShmMap(f->real, page, size, extend, out);
}

static int fault_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}

static void fault_shm_barrier(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    f->real->pMethods->xShmBarrier(f->real);
}

static int fault_shm_unmap(sqlite3_file *file, int delete_flag) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xShmUnmap(f->real, delete_flag);
}

static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    // No memory-mapped reads: every read goes through xRead.
    (void)file; (void)offset; (void)amount;
    *out = 0;
    return SQLITE_OK;
}

static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    (void)file; (void)offset; (void)pointer;
    return SQLITE_OK;
}

static const sqlite3_io_methods methods = {
    3, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap,
    fault_fetch, fault_unfetch,
};

static int fault_open(sqlite3_vfs *self, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)self;
    FaultFile *f = (FaultFile *)file;
    memset(f, 0, sizeof(FaultFile));
    f->real = (sqlite3_file *)&f[1];
    int rc = parent->xOpen(parent, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        f->base.pMethods = 0;
        return rc;
    }
    f->base.pMethods = &methods;
    if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL))) {
        pthread_mutex_lock(&mutex);
        f->tracked = track(name);
        pthread_mutex_unlock(&mutex);
    }
    return SQLITE_OK;
}

static int fault_delete(sqlite3_vfs *self, const char *name, int sync_directory) {
    (void)self;
    pthread_mutex_lock(&mutex);
    for (Tracked *t = tracked_files; t; t = t->next)
        if (strcmp(t->path, name) == 0) forget(t);
    pthread_mutex_unlock(&mutex);
    return parent->xDelete(parent, name, sync_directory);
}

static int fault_access(sqlite3_vfs *self, const char *name, int flags, int *out) {
    (void)self;
    return parent->xAccess(parent, name, flags, out);
}

static int fault_full_pathname(sqlite3_vfs *self, const char *name, int size, char *out) {
    (void)self;
    return parent->xFullPathname(parent, name, size, out);
}

static void *fault_dl_open(sqlite3_vfs *self, const char *name) { (void)self; return parent->xDlOpen(parent, name); }
static void fault_dl_error(sqlite3_vfs *self, int size, char *out) { (void)self; parent->xDlError(parent, size, out); }
static void (*fault_dl_sym(sqlite3_vfs *self, void *handle, const char *symbol))(void) {
    (void)self;
    return parent->xDlSym(parent, handle, symbol);
}
static void fault_dl_close(sqlite3_vfs *self, void *handle) { (void)self; parent->xDlClose(parent, handle); }
static int fault_randomness(sqlite3_vfs *self, int size, char *out) { (void)self; return parent->xRandomness(parent, size, out); }
static int fault_sleep(sqlite3_vfs *self, int microseconds) { (void)self; return parent->xSleep(parent, microseconds); }
static int fault_current_time(sqlite3_vfs *self, double *out) { (void)self; return parent->xCurrentTime(parent, out); }
static int fault_get_last_error(sqlite3_vfs *self, int size, char *out) {
    (void)self;
    return parent->xGetLastError ? parent->xGetLastError(parent, size, out) : 0;
}
static int fault_current_time_int64(sqlite3_vfs *self, sqlite3_int64 *out) {
    (void)self;
    return parent->xCurrentTimeInt64(parent, out);
}

int eventtree_faultvfs_install(void) {
    parent = sqlite3_vfs_find(0);
    if (!parent) return SQLITE_ERROR;
    vfs.iVersion = 2;
    vfs.szOsFile = (int)sizeof(FaultFile) + parent->szOsFile;
    vfs.mxPathname = parent->mxPathname;
    vfs.zName = "eventtree-faultvfs";
    vfs.xOpen = fault_open;
    vfs.xDelete = fault_delete;
    vfs.xAccess = fault_access;
    vfs.xFullPathname = fault_full_pathname;
    vfs.xDlOpen = fault_dl_open;
    vfs.xDlError = fault_dl_error;
    vfs.xDlSym = fault_dl_sym;
    vfs.xDlClose = fault_dl_close;
    vfs.xRandomness = fault_randomness;
    vfs.xSleep = fault_sleep;
    vfs.xCurrentTime = fault_current_time;
    vfs.xGetLastError = fault_get_last_error;
    vfs.xCurrentTimeInt64 = fault_current_time_int64;
    return sqlite3_vfs_register(&vfs, 1);
}

void eventtree_faultvfs_cut_power_at(long long operation) {
    pthread_mutex_lock(&mutex);
    cut_at = operation;
    pthread_mutex_unlock(&mutex);
}

void eventtree_faultvfs_fail_from(long long first, int code, int kinds) {
    pthread_mutex_lock(&mutex);
    fail_from = first;
    fail_code = code;
    fail_kinds = kinds;
    pthread_mutex_unlock(&mutex);
}

void eventtree_faultvfs_heal(void) {
    pthread_mutex_lock(&mutex);
    fail_from = -1;
    pthread_mutex_unlock(&mutex);
}

long long eventtree_faultvfs_operations(void) { return atomic_load(&operations); }

long long eventtree_faultvfs_injected(void) { return atomic_load(&injected); }
