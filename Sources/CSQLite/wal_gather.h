#ifndef PUSHBRIDGE_CSQLITE_WAL_GATHER_H
#define PUSHBRIDGE_CSQLITE_WAL_GATHER_H
/*
 * The "pb-walgather" VFS: SQLite's "unix" VFS with the write-ahead log's writes gathered.
 *
 * SQLite writes each WAL frame as two pwrite(2)s (the 24-byte frame header, then the page),
 * ~30 system calls for a commit of 15 frames. A WAL file opened through this VFS copies each
 * write that continues the previous one into a buffer and writes the buffer with one call
 * (through unix's own xWrite, so its error codes are unix's: SQLITE_FULL, SQLITE_IOERR_WRITE):
 *
 *  - right after the page of a commit frame (a 24-byte frame header whose "database size after
 *    commit" word is non-zero, then the write that follows it): the commit's frames are in the
 *    kernel before xWrite returns, so before SQLite publishes the commit in the wal-index, and
 *    a failure is that xWrite's error, where SQLite expects it;
 *  - before any other call on the file that reads it, sizes it, truncates it, syncs it, hands
 *    it a file control or closes it, and before a write that does not continue the buffer;
 *  - when the buffer would pass PB_WALGATHER_LIMIT bytes.
 * A commit header written when nothing is buffered (SQLite rewriting checksums, which reads
 * each frame first) is written through at once. A failed write of the buffer keeps the buffer
 * (every byte SQLite was told was written is written before anything after it, or never, as
 * if SQLite had failed at that byte); the next call that must flush retries it. Every other
 * file (the database, -shm, journals) is unix's own file, opened by unix.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define PB_WALGATHER_NAME "pb-walgather"
/* Below 128 KiB: unix's write masks its length to 17 bits (seekAndWriteFd), and a multiple
 * of 128 KiB would be written as nothing and reported as SQLITE_FULL. */
#define PB_WALGATHER_LIMIT (120 * 1024)

typedef struct pb_walgather_file {
    sqlite3_file base;        /* pMethods = the gathering methods */
    sqlite3_file *real;       /* unix's file, in the same allocation after this header */
    unsigned char *buffer;    /* bytes written to [start, start + length) not yet passed on */
    int capacity;
    int length;
    sqlite3_int64 start;
    sqlite3_int64 commitPage; /* offset of a commit frame's page, or -1 */
    sqlite3_int64 flushes;    /* writes passed on (for tests) */
} pb_walgather_file;

static sqlite3_vfs *pb_walgather_unix(void) {
    static sqlite3_vfs *unix_vfs;
    if (!unix_vfs) unix_vfs = sqlite3_vfs_find("unix");
    return unix_vfs;
}

static int pb_walgather_flush(pb_walgather_file *file) {
    if (file->length == 0) return SQLITE_OK;
    int rc = file->real->pMethods->xWrite(file->real, file->buffer, file->length, file->start);
    if (rc != SQLITE_OK) return rc; /* kept: retried by the next flush */
    file->flushes += 1;
    file->length = 0;
    return SQLITE_OK;
}

static int pb_walgather_close(sqlite3_file *f) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    int flushed = pb_walgather_flush(file);
    int rc = file->real->pMethods->xClose(file->real);
    free(file->buffer);
    file->buffer = NULL;
    return flushed != SQLITE_OK ? flushed : rc;
}

static int pb_walgather_read(sqlite3_file *f, void *data, int amount, sqlite3_int64 offset) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    int rc = pb_walgather_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xRead(file->real, data, amount, offset);
}

static int pb_walgather_write(sqlite3_file *f, const void *data, int amount, sqlite3_int64 offset) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    const unsigned char *bytes = (const unsigned char *)data;
    int isCommitPage = offset == file->commitPage;
    int isCommitHeader = amount == 24 && (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
    int rc;
    file->commitPage = isCommitHeader ? offset + 24 : -1;
    if (file->length > 0 && (offset != file->start + file->length || file->length + amount > PB_WALGATHER_LIMIT)) {
        rc = pb_walgather_flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    if ((isCommitHeader && file->length == 0) || amount > PB_WALGATHER_LIMIT) {
        return file->real->pMethods->xWrite(file->real, data, amount, offset);
    }
    if (file->length + amount > file->capacity) {
        int capacity = PB_WALGATHER_LIMIT;
        unsigned char *grown = (unsigned char *)realloc(file->buffer, (size_t)capacity);
        if (!grown) {
            rc = pb_walgather_flush(file);
            if (rc != SQLITE_OK) return rc;
            return file->real->pMethods->xWrite(file->real, data, amount, offset);
        }
        file->buffer = grown;
        file->capacity = capacity;
    }
    if (file->length == 0) file->start = offset;
    memcpy(file->buffer + file->length, bytes, (size_t)amount);
    file->length += amount;
    return isCommitPage ? pb_walgather_flush(file) : SQLITE_OK;
}

static int pb_walgather_truncate(sqlite3_file *f, sqlite3_int64 size) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    int rc = pb_walgather_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int pb_walgather_sync(sqlite3_file *f, int flags) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    int rc = pb_walgather_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xSync(file->real, flags);
}

static int pb_walgather_file_size(sqlite3_file *f, sqlite3_int64 *size) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    int rc = pb_walgather_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int pb_walgather_lock(sqlite3_file *f, int level) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    return file->real->pMethods->xLock(file->real, level);
}

static int pb_walgather_unlock(sqlite3_file *f, int level) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int pb_walgather_check_reserved(sqlite3_file *f, int *out) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, out);
}

static int pb_walgather_file_control(sqlite3_file *f, int op, void *arg) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    int rc = pb_walgather_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileControl(file->real, op, arg);
}

static int pb_walgather_sector_size(sqlite3_file *f) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    return file->real->pMethods->xSectorSize(file->real);
}

static int pb_walgather_device_characteristics(sqlite3_file *f) {
    pb_walgather_file *file = (pb_walgather_file *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static const sqlite3_io_methods pb_walgather_methods = {
    1, pb_walgather_close, pb_walgather_read, pb_walgather_write, pb_walgather_truncate, pb_walgather_sync,
    pb_walgather_file_size, pb_walgather_lock, pb_walgather_unlock, pb_walgather_check_reserved,
    pb_walgather_file_control, pb_walgather_sector_size, pb_walgather_device_characteristics,
    0, 0, 0, 0, 0, 0
};

static int pb_walgather_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    sqlite3_vfs *unix_vfs = pb_walgather_unix();
    (void)vfs;
    if (!(flags & SQLITE_OPEN_WAL)) return unix_vfs->xOpen(unix_vfs, name, f, flags, outFlags);
    pb_walgather_file *file = (pb_walgather_file *)f;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)((char *)f + ((sizeof(pb_walgather_file) + 15) & ~(size_t)15));
    file->commitPage = -1;
    int rc = unix_vfs->xOpen(unix_vfs, name, file->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        /* unix may have set pMethods on its failure path; closing it is its business. */
        if (file->real->pMethods) file->real->pMethods->xClose(file->real);
        file->base.pMethods = 0;
        return rc;
    }
    file->base.pMethods = &pb_walgather_methods;
    return SQLITE_OK;
}

static int pb_walgather_delete(sqlite3_vfs *v, const char *name, int syncDir) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xDelete(u, name, syncDir); }
static int pb_walgather_access(sqlite3_vfs *v, const char *name, int flags, int *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xAccess(u, name, flags, out); }
static int pb_walgather_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xFullPathname(u, name, n, out); }
static void *pb_walgather_dl_open(sqlite3_vfs *v, const char *name) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xDlOpen(u, name); }
static void pb_walgather_dl_error(sqlite3_vfs *v, int n, char *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; u->xDlError(u, n, out); }
static void (*pb_walgather_dl_sym(sqlite3_vfs *v, void *h, const char *sym))(void) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xDlSym(u, h, sym); }
static void pb_walgather_dl_close(sqlite3_vfs *v, void *h) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; u->xDlClose(u, h); }
static int pb_walgather_randomness(sqlite3_vfs *v, int n, char *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xRandomness(u, n, out); }
static int pb_walgather_sleep(sqlite3_vfs *v, int us) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xSleep(u, us); }
static int pb_walgather_current_time(sqlite3_vfs *v, double *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xCurrentTime(u, out); }
static int pb_walgather_last_error(sqlite3_vfs *v, int n, char *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xGetLastError(u, n, out); }
static int pb_walgather_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *out) { sqlite3_vfs *u = pb_walgather_unix(); (void)v; return u->xCurrentTimeInt64(u, out); }

/// Registers the "pb-walgather" VFS (not as the default) once; SQLITE_OK when it is registered.
static inline int pb_walgather_register(void) {
    static sqlite3_vfs vfs;
    if (sqlite3_vfs_find(PB_WALGATHER_NAME)) return SQLITE_OK;
    sqlite3_vfs *unix_vfs = pb_walgather_unix();
    if (!unix_vfs) return SQLITE_ERROR;
    vfs.iVersion = 2;
    vfs.szOsFile = (int)((sizeof(pb_walgather_file) + 15) & ~(size_t)15) + unix_vfs->szOsFile;
    vfs.mxPathname = unix_vfs->mxPathname;
    vfs.zName = PB_WALGATHER_NAME;
    vfs.xOpen = pb_walgather_open;
    vfs.xDelete = pb_walgather_delete;
    vfs.xAccess = pb_walgather_access;
    vfs.xFullPathname = pb_walgather_full_pathname;
    vfs.xDlOpen = pb_walgather_dl_open;
    vfs.xDlError = pb_walgather_dl_error;
    vfs.xDlSym = pb_walgather_dl_sym;
    vfs.xDlClose = pb_walgather_dl_close;
    vfs.xRandomness = pb_walgather_randomness;
    vfs.xSleep = pb_walgather_sleep;
    vfs.xCurrentTime = pb_walgather_current_time;
    vfs.xGetLastError = pb_walgather_last_error;
    vfs.xCurrentTimeInt64 = pb_walgather_current_time_int64;
    return sqlite3_vfs_register(&vfs, 0);
}

/// Writes passed on to unix by the WAL of `db` (a connection opened with "pb-walgather"), or
/// -1 when it has none open or was opened with another VFS. For tests.
static inline sqlite3_int64 pb_walgather_flushes(sqlite3 *db) {
    sqlite3_file *wal = 0;
    sqlite3_vfs *vfs = 0;
    /* By name, not by address: Swift may emit this header's statics once per object file. */
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || !vfs) return -1;
    if (strcmp(vfs->zName, PB_WALGATHER_NAME) != 0) return -1;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK || !wal || !wal->pMethods) return -1;
    if (wal->pMethods->iVersion != 1 || wal->pMethods->xSectorSize == 0) return -1;
    return ((pb_walgather_file *)wal)->flushes;
}
#endif
