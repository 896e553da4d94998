/* The benchmarks' clock and median, in one place for every program under bench/
 * (each includes it as "../BenchTime.h", so no build needs an extra include path). */
#ifndef FMAG_BENCH_TIME_H
#define FMAG_BENCH_TIME_H

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on clock id: CLOCK_MONOTONIC for wall time; a process or thread CPU clock
 * where other work on a shared machine must not count against a single-thread figure. */
static inline double bench_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n-1] and returns its median (the upper middle for even n; 0 when empty). */
static inline double bench_median(double *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, bench_cmp_double);
    return v[n / 2];
}

#endif
