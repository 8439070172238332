// Thread-local slots: Swift has no thread-local storage of its own, and pthread_getspecific (with the lazy
// creation of its key) is a call per cache hit (pinned by Benchmarks 3). Reached through these inline functions, a slot
// is one load relative to the thread pointer in the executable. One pair for WeftNodes' statistics; one for the
// stack guard that WeftLayout checks at each level of nesting (a tree built in code can be deep enough to run
// off a thread's stack: about 1 KB per nested spec and 5 KB per nested node in a release build).
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

/// Asks the processor to bring the cache line at `address` in (a hint: never faults, does nothing if it is there).
static inline void weft_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// How far above the bottom of a thread's stack a layout stops nesting: a quarter of the stack where that is less.
#define WEFT_STACK_MARGIN (256 * 1024)

/// This thread's stack guard (see `weft_thread_prepare_stack_guard`): the bottom of the zone, WEFT_STACK_MARGIN
/// bytes high, where a layout stops nesting; 0 until prepared, 1 where the stack could not be found (then the
/// guard never trips: no frame lies that low).
extern __thread uintptr_t weft_stack_guard;

/// Finds this thread's stack (pthread_getattr_np) and sets its guard: the zone ends a quarter of the stack above
/// its bottom, or WEFT_STACK_MARGIN, whichever is less. Out of line: it runs once per thread.
void weft_thread_find_stack(void);

/// Sets this thread's stack guard if it is not set yet (a load and a compare once it is).
static inline void weft_thread_prepare_stack_guard(void) {
    if (weft_stack_guard == 0) weft_thread_find_stack();
}

/// Whether the caller's frame lies in the zone at the bottom of this thread's stack: nesting deeper would risk
/// running off its end. A frame above the zone, or below it (a stack of the caller's own making, well apart from
/// the thread's), never counts as low; no frame does on a thread whose guard is not prepared. One thread-local
/// load, a subtraction and a compare with a constant.
static inline _Bool weft_thread_stack_is_low(void) {
    return (uintptr_t)__builtin_frame_address(0) - weft_stack_guard < WEFT_STACK_MARGIN;
}

/// The bytes of stack left below the caller's frame, down to the stack's bottom (0 if not known).
uintptr_t weft_thread_stack_left(void);

#endif
