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

#endif
