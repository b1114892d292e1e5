// The counting allocator (see include/CAllocationCounter.h). Every function forwards to
// glibc's own implementation; counting costs one relaxed atomic load when it is off.
#define _GNU_SOURCE
#include "CAllocationCounter.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/// One thread's count and name.
struct pb_alloc_slot {
    _Atomic uint64_t count;
    char name[16];
};

static atomic_int counting;
static _Atomic uint64_t total;
static _Atomic uint64_t bytes;
static _Atomic uint64_t frees;
static atomic_int slots_used;
static struct pb_alloc_slot slots[PB_ALLOC_THREAD_SLOTS];

/// This thread's slot, claimed at its first counted allocation.
static __thread struct pb_alloc_slot *own_slot;
/// Set on the bench's own threads.
static __thread int excluded;

/// Every how many counted allocations one's call stack is sampled; 0: none.
static atomic_int sample_every;
/// Samples taken (may pass PB_ALLOC_SAMPLES: those past it are dropped).
static atomic_int samples_taken;
/// Each sample's frames and depth.
static void *sample_frames[PB_ALLOC_SAMPLES][PB_ALLOC_SAMPLE_DEPTH];
static int sample_depths[PB_ALLOC_SAMPLES];
/// Set while this thread takes a sample: what `backtrace` allocates is not sampled.
static __thread int sampling;

/// Records the calling thread's stack as sample number `n` (when one is left).
static void take_sample(uint64_t n) {
    if (sampling) return;
    int every = atomic_load_explicit(&sample_every, memory_order_relaxed);
    if (every <= 0 || n % (uint64_t)every != 0) return;
    int index = atomic_fetch_add(&samples_taken, 1);
    if (index >= PB_ALLOC_SAMPLES) return;
    sampling = 1;
    sample_depths[index] = backtrace(sample_frames[index], PB_ALLOC_SAMPLE_DEPTH);
    sampling = 0;
}

/// Counts one allocation of `size` bytes when counting is on and this thread is not excluded.
static inline void count_allocation(size_t size) {
    if (!atomic_load_explicit(&counting, memory_order_relaxed) || excluded) return;
    uint64_t n = atomic_fetch_add_explicit(&total, 1, memory_order_relaxed);
    if (atomic_load_explicit(&sample_every, memory_order_relaxed) > 0) take_sample(n);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    if (own_slot == NULL) {
        int index = atomic_fetch_add(&slots_used, 1);
        if (index >= PB_ALLOC_THREAD_SLOTS) index = PB_ALLOC_THREAD_SLOTS - 1;
        own_slot = &slots[index];
        // PR_GET_NAME reads the calling thread's name without allocating.
        prctl(PR_GET_NAME, (unsigned long)own_slot->name, 0, 0, 0);
    }
    atomic_fetch_add_explicit(&own_slot->count, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_allocation(size);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_allocation(count * size);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_allocation(size);
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL && atomic_load_explicit(&counting, memory_order_relaxed) && !excluded) {
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    }
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_allocation(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    // POSIX: a power of two that is a multiple of sizeof(void *), else EINVAL.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_allocation(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *out = pointer;
    return 0;
}

void *valloc(size_t size) {
    count_allocation(size);
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count_allocation(size);
    return __libc_pvalloc(size);
}

void pb_alloc_counting(int on) { atomic_store(&counting, on ? 1 : 0); }

void pb_alloc_reset(void) {
    atomic_store(&total, 0);
    atomic_store(&bytes, 0);
    atomic_store(&frees, 0);
    for (int i = 0; i < PB_ALLOC_THREAD_SLOTS; i++) atomic_store(&slots[i].count, 0);
}

uint64_t pb_alloc_total(void) { return atomic_load(&total); }

uint64_t pb_alloc_bytes(void) { return atomic_load(&bytes); }

uint64_t pb_alloc_frees(void) { return atomic_load(&frees); }

void pb_alloc_exclude_this_thread(void) { excluded = 1; }

int pb_alloc_thread_count(void) {
    int used = atomic_load(&slots_used);
    return used < PB_ALLOC_THREAD_SLOTS ? used : PB_ALLOC_THREAD_SLOTS;
}

uint64_t pb_alloc_thread(int index, char name[16]) {
    if (index < 0 || index >= PB_ALLOC_THREAD_SLOTS) {
        name[0] = 0;
        return 0;
    }
    memcpy(name, slots[index].name, 16);
    name[15] = 0;
    return atomic_load(&slots[index].count);
}

void pb_alloc_sample_every(int every) {
    if (every > 0) {
        // The first backtrace loads the unwinder (it allocates): do it before sampling starts.
        void *frame[2];
        sampling = 1;
        backtrace(frame, 2);
        sampling = 0;
        atomic_store(&samples_taken, 0);
    }
    atomic_store(&sample_every, every > 0 ? every : 0);
}

int pb_alloc_sample_count(void) {
    int taken = atomic_load(&samples_taken);
    return taken < PB_ALLOC_SAMPLES ? taken : PB_ALLOC_SAMPLES;
}

int pb_alloc_sample(int index, void **frames) {
    if (index < 0 || index >= pb_alloc_sample_count()) return 0;
    int depth = sample_depths[index];
    memcpy(frames, sample_frames[index], sizeof(void *) * (size_t)depth);
    return depth;
}

const char *pb_alloc_module(const void *address, uintptr_t *base) {
    Dl_info info;
    if (dladdr(address, &info) == 0 || info.dli_fname == NULL) return NULL;
    *base = (uintptr_t)info.dli_fbase;
    return info.dli_fname;
}
