/* The unit tests' shared expectation macro: a failed EXPECT prints its file, line
 * and condition, counts in `failures`, and the test goes on (one run reports every
 * failure). Each test program includes this once and returns failures != 0. */
#ifndef FMAG_UNITTESTS_EXPECT_H
#define FMAG_UNITTESTS_EXPECT_H

#include <stdio.h>

static int failures;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond);         \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
