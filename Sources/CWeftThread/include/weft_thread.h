// One thread-local slot pair for WeftNodes' statistics: Swift has no thread-local storage of its own, and
// pthread_getspecific (with the lazy creation of its key) cost about 90 instructions per cache hit. Reached
// through these inline functions, a slot is one load relative to the thread pointer in the executable.
#ifndef WEFT_THREAD_H
#define WEFT_THREAD_H

#include <stdint.h>

/// The last statistics instance this thread counted in (its identifier, never reused; 0: none) and this
/// thread's block of counters for it (unretained: this thread's table of blocks holds it).
extern __thread uint64_t weft_statistics_last_id;
extern __thread void *weft_statistics_last_block;

static inline uint64_t weft_thread_statistics_id(void) { return weft_statistics_last_id; }
static inline void *weft_thread_statistics_block(void) { return weft_statistics_last_block; }
static inline void weft_thread_remember_statistics(uint64_t identifier, void *block) {
    weft_statistics_last_id = identifier;
    weft_statistics_last_block = block;
}

/// A number that tells this thread apart from every other live thread (the address of its slot).
static inline uintptr_t weft_thread_token(void) { return (uintptr_t)&weft_statistics_last_id; }

/// The Swift runtime's try-retain (exported by libswiftCore, C calling convention): retains a native Swift
/// object and returns it, or returns null without retaining it once its deinit has begun.
extern void *swift_tryRetain(void *object);

/// Retains `object` unless its deinit has begun (see WeftSync's `BackReference`); whether it did.
static inline _Bool weft_try_retain(void *object) { return swift_tryRetain(object) != 0; }

#endif
