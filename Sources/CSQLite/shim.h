#ifndef PUSHBRIDGE_CSQLITE_SHIM_H
#define PUSHBRIDGE_CSQLITE_SHIM_H
#include <sqlite3.h>
#include "wal_gather.h"

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type pb_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// `sqlite3_config` is variadic; Swift cannot call it. Turns off SQLite's memory statistics,
/// whose global mutex every `sqlite3_malloc`/`sqlite3_free` would otherwise take. Only works
/// before the library is initialized (returns SQLITE_MISUSE after).
static inline int pb_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
