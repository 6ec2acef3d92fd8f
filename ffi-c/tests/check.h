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
/* Library bytes (a zlink_bytes, or a zlink_str it lends) equal to `s`. */
#define BYTES_EQ(b, s) ((b).len == strlen(s) && memcmp((b).data, (s), (b).len) == 0)
#define STR_EQ(v, s) ((v).len == strlen(s) && memcmp((v).ptr, (s), (v).len) == 0)

/* The frames a decision asks its host to carry on: a SEND's, a
 * RELOCATION's, a REJECT's refusal or a RELAY's forward (its notice
 * apart); none for the other kinds. */
static inline const zlink_outbound *frames_of(const zlink_decision *d, size_t *count) {
    switch (d->tag) {
    case ZLINK_DECISION_SEND:
        *count = d->send.outbounds_count;
        return d->send.outbounds;
    case ZLINK_DECISION_RELOCATION:
        *count = d->relocation.send_count;
        return d->relocation.send;
    case ZLINK_DECISION_REJECT:
        *count = 1;
        return &d->reject.outbound;
    case ZLINK_DECISION_RELAY:
        *count = 1;
        return &d->relay.forward;
    default:
        *count = 0;
        return NULL;
    }
}

/* The step of a RELOCATION decision (0 for another kind). */
static inline uint32_t event_of(const zlink_decision *d) {
    return d->tag == ZLINK_DECISION_RELOCATION ? d->relocation.event.tag : 0;
}

/* Which relocation a RELOCATION decision is about: every event starts
 * with its identity, at the same place. */
static inline const zlink_relocation_identity *identity_of(const zlink_decision *d) {
    return &d->relocation.event.restore.identity;
}

#endif
