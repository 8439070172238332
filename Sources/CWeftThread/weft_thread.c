#define _GNU_SOURCE
#include <pthread.h>
#include "weft_thread.h"

__thread uint64_t weft_statistics_last_id = 0;
__thread void *weft_statistics_last_block = 0;

__thread uintptr_t weft_stack_guard = 0;
/// The bottom of this thread's stack, as found (0: not known).
static __thread uintptr_t weft_stack_bottom = 0;

void weft_thread_find_stack(void) {
    weft_stack_guard = 1;  // Not found (yet): a guard that never trips, set so that the search is not repeated.
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) != 0) return;
    void *low = 0;
    size_t size = 0;
    if (pthread_attr_getstack(&attributes, &low, &size) == 0 && size >= 16 * 1024) {
        // The zone is [guard, guard + WEFT_STACK_MARGIN) and ends at bottom + min(size / 4, margin); on a small
        // stack it reaches below the bottom, where no frame of this thread lies.
        size_t zone = size / 4 < WEFT_STACK_MARGIN ? size / 4 : WEFT_STACK_MARGIN;
        weft_stack_bottom = (uintptr_t)low;
        weft_stack_guard = (uintptr_t)low + zone - WEFT_STACK_MARGIN;
    }
    pthread_attr_destroy(&attributes);
}

uintptr_t weft_thread_stack_left(void) {
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    return weft_stack_bottom != 0 && frame > weft_stack_bottom ? frame - weft_stack_bottom : 0;
}
