// The per-thread block cache; what and why in include/CBlockCache.h.
#include "CBlockCache.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// Sizes 64, 128, ..., 4096: seven lists.
#define SMALLEST_SHIFT 6
#define SIZES 7
// The block's size, in front of it; 16 bytes so a block keeps malloc's 16-byte alignment
// (max_align_t on x86_64 and arm64), which a library built for malloc may rely on.
#define HEADER 16
#define MOST_PER_SIZE 64

typedef struct {
    void *head[SIZES];
    unsigned count[SIZES];
    int started;   // the destructor key is set for this thread
    int ended;     // the thread's destructor ran: no more caching on it
    pb_block_cache_stats stats;
} thread_cache;

static __thread thread_cache cache;
static pthread_key_t end_key;
static pthread_once_t end_key_once = PTHREAD_ONCE_INIT;

/// At thread end: every cached block back to free, and no caching from then on (a later
/// destructor of the same thread may still free blocks).
static void thread_ended(void *value) {
    thread_cache *c = value;
    for (int i = 0; i < SIZES; i++) {
        void *block = c->head[i];
        while (block) {
            void *next = *(void **)block;
            free((char *)block - HEADER);
            block = next;
        }
        c->head[i] = NULL;
        c->count[i] = 0;
    }
    c->stats.cached = 0;
    c->ended = 1;
}

static void make_end_key(void) { pthread_key_create(&end_key, thread_ended); }

/// The list index of a size up to PB_BLOCK_CACHE_LARGEST, rounded up; -1 above it.
static int size_index(size_t n) {
    if (n > PB_BLOCK_CACHE_LARGEST) return -1;
    int index = 0;
    size_t size = (size_t)1 << SMALLEST_SHIFT;
    while (size < n) { size <<= 1; index++; }
    return index;
}

static size_t index_size(int index) { return (size_t)1 << (SMALLEST_SHIFT + index); }

static inline size_t header_size(const void *block) { return (size_t)*(const uint64_t *)((const char *)block - HEADER); }

size_t pb_block_roundup(size_t n) {
    int index = size_index(n);
    return index >= 0 ? index_size(index) : (n + 7) & ~(size_t)7;
}

size_t pb_block_size(const void *block) { return block ? header_size(block) : 0; }

void *pb_block_alloc(size_t n) {
    int index = size_index(n);
    if (index >= 0 && cache.head[index]) {
        void *block = cache.head[index];
        cache.head[index] = *(void **)block;
        cache.count[index]--;
        cache.stats.cached--;
        cache.stats.hits++;
        return block;
    }
    size_t size = index >= 0 ? index_size(index) : (n + 7) & ~(size_t)7;
    char *raw = malloc(HEADER + size);
    if (!raw) return NULL;
    cache.stats.misses++;
    *(uint64_t *)raw = size;
    return raw + HEADER;
}

void *pb_block_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) return NULL;
    void *block = pb_block_alloc(count * size);
    if (block) memset(block, 0, count * size);
    return block;
}

void pb_block_free(void *block) {
    if (!block) return;
    size_t size = header_size(block);
    int index = size <= PB_BLOCK_CACHE_LARGEST ? size_index(size) : -1;
    if (index >= 0 && index_size(index) == size && !cache.ended && cache.count[index] < MOST_PER_SIZE
        && (cache.count[index] + 1) * size <= PB_BLOCK_CACHE_BYTES_PER_SIZE) {
        if (!cache.started) {
            pthread_once(&end_key_once, make_end_key);
            pthread_setspecific(end_key, &cache);
            cache.started = 1;
        }
        *(void **)block = cache.head[index];
        cache.head[index] = block;
        cache.count[index]++;
        cache.stats.cached++;
        return;
    }
    free((char *)block - HEADER);
}

void *pb_block_realloc(void *block, size_t n) {
    if (!block) return pb_block_alloc(n);
    size_t size = header_size(block);
    if (pb_block_roundup(n) == size) return block;
    if (size > PB_BLOCK_CACHE_LARGEST && n > PB_BLOCK_CACHE_LARGEST) {
        // Neither side is ever cached: glibc's realloc may grow it in place.
        size_t grown = (n + 7) & ~(size_t)7;
        char *raw = realloc((char *)block - HEADER, HEADER + grown);
        if (!raw) return NULL;
        *(uint64_t *)raw = grown;
        return raw + HEADER;
    }
    void *moved = pb_block_alloc(n);
    if (!moved) return NULL;
    memcpy(moved, block, size < n ? size : n);
    pb_block_free(block);
    return moved;
}

char *pb_block_strdup(const char *string) {
    size_t length = strlen(string) + 1;
    char *copy = pb_block_alloc(length);
    if (copy) memcpy(copy, string, length);
    return copy;
}

pb_block_cache_stats pb_block_cache_thread_stats(void) { return cache.stats; }

// SQLite's interface: sizes are ints.
static void *sqlite_malloc(int n) { return n < 0 ? NULL : pb_block_alloc((size_t)n); }
static void *sqlite_realloc(void *block, int n) { return n < 0 ? NULL : pb_block_realloc(block, (size_t)n); }
static int sqlite_size(void *block) { return (int)pb_block_size(block); }
static int sqlite_roundup(int n) { return n < 0 ? n : (int)pb_block_roundup((size_t)n); }
static int sqlite_init(void *unused) { (void)unused; pthread_once(&end_key_once, make_end_key); return SQLITE_OK; }
static void sqlite_shutdown(void *unused) { (void)unused; }

int pb_block_cache_install_sqlite(void) {
    static const sqlite3_mem_methods methods = {
        sqlite_malloc, pb_block_free, sqlite_realloc, sqlite_size, sqlite_roundup, sqlite_init, sqlite_shutdown, NULL,
    };
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}
