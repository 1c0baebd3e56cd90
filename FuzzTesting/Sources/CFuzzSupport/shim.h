#ifndef EVENTTREE_FUZZ_SUPPORT_H
#define EVENTTREE_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type fuzz_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links): parses libFuzzer's
/// command line and runs `callback` on every input. The fuzz targets call it from their
/// own `main`, so that they link as ordinary executables (see Package.swift).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
