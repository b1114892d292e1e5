// A per-thread cache of freed blocks for the C libraries PushBridge links (issue 31, fewer
// allocations per request): what SQLite's lookaside does (Debian builds SQLite with
// SQLITE_OMIT_LOOKASIDE, so every value SQLite copies while stepping a statement was a malloc
// and a free), for SQLite as a whole (SQLITE_CONFIG_MALLOC) and for libcurl
// (curl_global_init_mem).
//
// A block is malloc'd with a 16-byte header holding its usable size (so blocks keep malloc's
// 16-byte alignment). Sizes up to
// PB_BLOCK_CACHE_LARGEST are rounded up to a power of two from 64; a block of such a size,
// when freed, goes on its size's list in the freeing thread's cache (at most a fixed number of
// bytes per size) and the next allocation of that size on that thread takes it without
// calling malloc. Larger blocks go to malloc and free directly. A thread's cached blocks are
// given back to free when the thread ends. No lock: each thread touches its own lists only.
#ifndef PB_BLOCK_CACHE_H
#define PB_BLOCK_CACHE_H

#include <stddef.h>
#include <stdint.h>

/// The largest size a cached block has; a larger allocation is malloc'd and freed directly.
/// 2 KiB, not 4: the page buffers of a 2 KiB-page audit (about 2.3 KiB each) would round up to
/// 4 KiB, and the page caches of the audit's connections took 3.7 MB more at their peak
/// (bench/ab.sh's VmHWM, 55.4 → 51.6 MB with this limit; allocations per request the same).
#define PB_BLOCK_CACHE_LARGEST 2048

/// At most this many bytes of blocks of one size stay cached per thread (and never more than
/// 64 blocks of one size).
#define PB_BLOCK_CACHE_BYTES_PER_SIZE (128 * 1024)

/// `n` bytes (16-aligned), from the calling thread's cache when it holds a block of that size;
/// NULL when malloc fails. `n` of 0 gives a block of the smallest size.
void *pb_block_alloc(size_t n);

/// `n` zeroed bytes.
void *pb_block_calloc(size_t count, size_t size);

/// Gives a block back (to the calling thread's cache when it has room). NULL does nothing.
void pb_block_free(void *block);

/// The block resized to `n` bytes, its contents kept up to the smaller size; the same block
/// when it is already large enough for `n` and of `n`'s size. NULL `block` allocates.
void *pb_block_realloc(void *block, size_t n);

/// A copy of a NUL-terminated string in a block.
char *pb_block_strdup(const char *string);

/// The usable size of a block (what `pb_block_roundup` gave for its request).
size_t pb_block_size(const void *block);

/// The size a request of `n` bytes gets.
size_t pb_block_roundup(size_t n);

/// Makes SQLite allocate through the cache (SQLITE_CONFIG_MALLOC). Must run before SQLite is
/// initialized; returns SQLite's code (SQLITE_MISUSE after), SQLite keeping its own malloc then.
int pb_block_cache_install_sqlite(void);

/// What the calling thread's cache did since the thread started: allocations served from it
/// (`hits`), allocations that called malloc (`misses`), and blocks it holds now.
typedef struct {
    uint64_t hits;
    uint64_t misses;
    uint64_t cached;
} pb_block_cache_stats;

/// The calling thread's figures.
pb_block_cache_stats pb_block_cache_thread_stats(void);

#endif
