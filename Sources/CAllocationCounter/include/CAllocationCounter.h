// A counting allocator for `alloc-count` only (never linked into `pushbridge`): the target
// defines malloc, calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc and
// pvalloc, forwards each to glibc's own (`__libc_malloc` and the rest; glibc 2.34+ has no
// malloc hooks) and, while counting is on, counts the allocation calls of every thread not
// excluded, in total and per thread.
#ifndef PB_ALLOCATION_COUNTER_H
#define PB_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Most threads counted one by one; the allocations of threads beyond them count in the total
/// and in the last slot.
#define PB_ALLOC_THREAD_SLOTS 64

/// Starts (1) or stops (0) counting. Counts are kept when counting stops.
void pb_alloc_counting(int on);

/// Zeroes the total and every thread's count (the threads keep their slots).
void pb_alloc_reset(void);

/// Allocation calls counted since the last reset: malloc, calloc, realloc, posix_memalign,
/// aligned_alloc, memalign, valloc, pvalloc, on every thread not excluded.
uint64_t pb_alloc_total(void);

/// Bytes those calls asked for.
uint64_t pb_alloc_bytes(void);

/// `free` calls (of a non-null pointer) counted since the last reset.
uint64_t pb_alloc_frees(void);

/// The calling thread's allocations are never counted from now on (the bench's own client
/// and upstream threads).
void pb_alloc_exclude_this_thread(void);

/// How many threads have a slot (threads that allocated while counting was on).
int pb_alloc_thread_count(void);

/// Slot `index`'s allocation count since the last reset, and its thread's name as the kernel
/// had it when the thread first allocated while counting (copied to `name`, 16 bytes with the
/// terminating NUL).
uint64_t pb_alloc_thread(int index, char name[16]);

/// Most call stacks sampled between two `pb_alloc_sample_every` calls.
#define PB_ALLOC_SAMPLES 32768
/// Most frames kept per sampled stack.
#define PB_ALLOC_SAMPLE_DEPTH 48

/// From now on, every `every`-th counted allocation (by the total's count) records its call
/// stack (`backtrace`, at most PB_ALLOC_SAMPLE_DEPTH frames), forgetting the samples taken
/// before; 0 stops sampling and keeps them.
void pb_alloc_sample_every(int every);

/// How many stacks were sampled (at most PB_ALLOC_SAMPLES).
int pb_alloc_sample_count(void);

/// Copies sample `index`'s frames into `frames` (room for PB_ALLOC_SAMPLE_DEPTH) and returns
/// how many; 0 for an index out of range.
int pb_alloc_sample(int index, void **frames);

/// The path of the file (executable or shared library) `address` is in, and where it is
/// loaded (`base`); NULL when it is in none (`dladdr`).
const char *pb_alloc_module(const void *address, uintptr_t *base);

#endif
