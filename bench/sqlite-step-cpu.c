// CPU seconds per SQL statement of any program that uses the system's libsqlite3, for finding
// which query of `report` or `readiness` costs what (docs/benchmarks.md, "Report and readiness
// over 1,000,000 rows"). Wraps sqlite3_step with the calling thread's CPU clock and prints, at
// each statement's reset or finalize, "TRACE <cpu s> s <rows> rows: <sql>" on stderr for every
// run over 5 ms. Not built by the package; a measuring aid only:
//   gcc -shared -fPIC -O2 -o /tmp/sqlite-step-cpu.so bench/sqlite-step-cpu.c -ldl -lsqlite3
//   LD_PRELOAD=/tmp/sqlite-step-cpu.so report-bench 1000000 AUDIT.sqlite 2> trace.txt
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef struct sqlite3_stmt sqlite3_stmt;
extern const char *sqlite3_sql(sqlite3_stmt *);

enum { SLOTS = 4096 };
static __thread sqlite3_stmt *statements[SLOTS];
static __thread double seconds[SLOTS];
static __thread long rows[SLOTS];

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// The statement's slot (statements are per thread here: one reader connection per thread).
static int slot(sqlite3_stmt *statement) {
    uintptr_t start = ((uintptr_t)statement >> 4) % SLOTS;
    for (int i = 0; i < SLOTS; i++) {
        int j = (int)((start + i) % SLOTS);
        if (statements[j] == statement || statements[j] == NULL) { statements[j] = statement; return j; }
    }
    return (int)start;
}

static void report(sqlite3_stmt *statement) {
    int j = slot(statement);
    if (seconds[j] > 0.005) {
        char text[400];
        const char *sql = sqlite3_sql(statement);
        snprintf(text, sizeof text, "%s", sql ? sql : "?");
        for (char *p = text; *p; p++) if (*p == '\n') *p = ' ';
        fprintf(stderr, "TRACE %.3f s %ld rows: %s\n", seconds[j], rows[j], text);
    }
    seconds[j] = 0;
    rows[j] = 0;
}

int sqlite3_step(sqlite3_stmt *statement) {
    static int (*real)(sqlite3_stmt *);
    if (!real) real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_step");
    double started = cpu_now();
    int code = real(statement);
    int j = slot(statement);
    seconds[j] += cpu_now() - started;
    if (code == 100) rows[j]++;  // SQLITE_ROW
    return code;
}

int sqlite3_reset(sqlite3_stmt *statement) {
    static int (*real)(sqlite3_stmt *);
    if (!real) real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_reset");
    if (statement) report(statement);
    return real(statement);
}

// A finalized statement's slot is freed for the next statement at that address (a freed slot in
// a probe chain can split a colliding statement's figures over two lines: rare, and harmless
// for a measuring aid).
int sqlite3_finalize(sqlite3_stmt *statement) {
    static int (*real)(sqlite3_stmt *);
    if (!real) real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_finalize");
    if (statement) {
        report(statement);
        statements[slot(statement)] = NULL;
    }
    return real(statement);
}
