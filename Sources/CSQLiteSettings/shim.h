#include <sqlite3.h>

/// Turns off SQLite's memory statistics for the whole process: with them on (the library's default), every
/// allocation and free SQLite makes takes a process-wide mutex to count it, a tenth of the CPU of the thread
/// that writes an import (cities1000: ~0.3 s). Nothing in places reads the statistics or sets a heap limit.
/// Only takes effect before SQLite is first used (it returns SQLITE_MISUSE, and changes nothing, after that),
/// so `places` calls it first thing. sqlite3_config is variadic, which Swift cannot call.
static inline int places_sqlite_turn_off_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
