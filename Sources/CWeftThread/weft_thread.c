#include "weft_thread.h"

__thread uint64_t weft_statistics_last_id = 0;
__thread void *weft_statistics_last_block = 0;
