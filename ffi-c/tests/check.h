/*
 * The checks the C tests share: each one, on failure, prints where and in
 * which test (`current`) and returns 1 from the test function.
 */
#ifndef ZLINK_TESTS_CHECK_H
#define ZLINK_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

#include <zlink.h>

/* The test running now, for the failure messages. */
static const char *current;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "  FAIL %s:%d in %s: %s\n", __FILE__, __LINE__,      \
                    current, #cond);                                             \
            return 1;                                                            \
        }                                                                        \
    } while (0)

#define CHECK_RC(call, want)                                                     \
    do {                                                                         \
        zlink_result rc_ = (call);                                               \
        if (rc_ != (want)) {                                                     \
            fprintf(stderr, "  FAIL %s:%d in %s: %s = %u (%s), want %s\n",       \
                    __FILE__, __LINE__, current, #call, rc_,                      \
                    zlink_result_text(rc_), #want);                              \
            return 1;                                                            \
        }                                                                        \
    } while (0)

#define OK(call) CHECK_RC(call, ZLINK_RESULT_OK)
#define ID(s) (const uint8_t *)(s), strlen(s)

#endif
