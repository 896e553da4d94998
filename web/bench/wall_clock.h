/* Force-included into bench/mtlx/mtlx-bench.c for the WebAssembly build: Emscripten has
 * no CPU-time clock (its clock_gettime takes only the realtime and monotonic clocks and
 * fails on the others), so there the thread's CPU time is read as the monotonic clock,
 * the wall time of one single-threaded compile. */
#include <time.h>
#undef CLOCK_THREAD_CPUTIME_ID
#define CLOCK_THREAD_CPUTIME_ID CLOCK_MONOTONIC
