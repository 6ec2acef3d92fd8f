/*
 * The C runner of the language-neutral scenario suite
 * (testdata/scenarios/NAME.json, format in its README): plays every file
 * through libzlink as a small host would, with the semantics of the Rust
 * runner (core/tests/scenarios.rs), and names the scenario and the step
 * that did not give what the file says.
 *
 *     scenarios DIR      (ffi-c/tests/run.sh passes testdata/scenarios)
 *
 * Prints "ok   NAME" or "FAIL c: NAME: step N (kind): why" per file, then
 * a count line; exits non-zero on any failure or if fewer than 40 files
 * were found. Built with -std=c11 -Wall -Wextra -Werror and run under
 * valgrind (memcheck, leaks are errors) like every C test.
 *
 * The host: every node (routing ID n, node generation 1, lease n, mesh
 * "scenario") shares one memory store and one manual clock; one FIFO of
 * frames is the network. Errors are named as the README names them: by
 * the error's kind (zlink_error_kind; see error_name).
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlink.h>

#include "json.h"

#define LANGUAGE "c"
#define MIN_SCENARIOS 40
#define MAX_NODES 256
#define CARRY_LIMIT 100000
/* Where a Message or Request frame holds its target's object kind: after
 * the 10-byte header and the u64 operation ID (core/src/wire/codec.rs). */
#define KIND_AT (10 + 8)

/* The defaults of zlink_send_options (the header: NULL means "no instance
 * intent, 5000 ms deadline, 5000 ms request timeout"), spelled out because
 * a step that sets one field must pass the struct. */
#define DEFAULT_DEADLINE_MS 5000
#define DEFAULT_TIMEOUT_MS 5000

/* ------------------------------------------------------------ growable arrays */

#define VEC(T)                                                                   \
    struct {                                                                     \
        T *items;                                                                \
        size_t len, cap;                                                         \
    }

/* Makes room for one more item: the (possibly moved) items, and *ok says
 * whether there is room (false: out of memory, the items are unchanged). */
static bool vec_ok_;

static void *vec_room(void *items, size_t len, size_t *cap, size_t size) {
    vec_ok_ = true;
    if (len < *cap) return items;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p = ncap > SIZE_MAX / size ? NULL : realloc(items, ncap * size);
    if (p == NULL) {
        vec_ok_ = false;
        return items;
    }
    *cap = ncap;
    return p;
}

/* Appends x to v: 0, or -1 (and the step fails) when out of memory. */
#define VEC_PUSH(run, v, x)                                                      \
    ((v).items = vec_room((v).items, (v).len, &(v).cap, sizeof *(v).items),      \
     vec_ok_ ? ((v).items[(v).len++] = (x), 0) : failf((run), "out of memory"))

#define VEC_FREE(v)                                                              \
    do {                                                                         \
        free((v).items);                                                         \
        (v).items = NULL;                                                        \
        (v).len = (v).cap = 0;                                                   \
    } while (0)

/* ------------------------------------------------------------ the run */

/* One frame in flight. */
typedef struct {
    uint64_t from;
    uint64_t to;
    uint8_t *bytes;
    size_t len;
} envelope;

/* A frame filter from a `rule` step; the strings point into the document. */
typedef struct {
    bool active;
    const char *command; /* NULL: any */
    bool has_from, has_to;
    uint64_t from, to;
} matcher;

typedef struct {
    uint64_t op;
    uint64_t node;
} delivered_entry;

typedef struct {
    uint64_t op;
    zlink_failure failure;
    zlink_unavailable_reason reason;
} ended_entry;

typedef struct {
    uint64_t op;
    uint32_t outcome; /* a zlink_outcome's tag */
    zlink_failure failure;
    zlink_unavailable_reason reason;
    const char *kind; /* Replied: the error reply's kind, "Handler" or "Decode" */
    uint8_t *payload; /* Reply: a copy of the answer */
    size_t payload_len;
} completed_entry;

typedef struct {
    uint64_t node;
    char tag[48];
} event_entry;

typedef struct {
    const char *name; /* points into the document */
    uint64_t op;
} name_entry;

typedef struct {
    const char *name;
    uint64_t correlation;
    uint64_t op;
} request_entry;

typedef struct {
    /* the nodes */
    zlink_clock *clock;
    zlink_store *store;
    zlink_runtime **nodes;
    size_t node_count;
    /* the network: a FIFO (items[head..len]) and the frames held back */
    VEC(envelope) network;
    size_t head;
    VEC(envelope) held_back;
    matcher drop_rule, hold_rule;
    /* frames matching these are corrupted as they are carried */
    matcher truncate_rule, corrupt_kind_rule;
    /* named operations */
    VEC(name_entry) names;
    VEC(request_entry) requests;
    /* the host */
    bool reply;
    const char *restore;
    /* the ledger */
    VEC(delivered_entry) delivered;
    VEC(ended_entry) ended;
    VEC(completed_entry) completed;
    VEC(event_entry) events;
    uint64_t late, dropped, held, refreshed, invalidated;
    /* why the current step failed (the first reason wins) */
    char why[2048];
} run_t;

/* Records why the step fails (unless a reason is already recorded);
 * always returns -1. */
static int failf(run_t *run, const char *fmt, ...) {
    if (run->why[0] != '\0') return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->why, sizeof run->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------ names */

static const char *result_name(zlink_result rc) {
    static const char *const names[] = {
        "OK", "NULL_POINTER", "INVALID_HANDLE", "INVALID_UTF8", "TOO_LONG",
        "INVALID_ARGUMENT", "INVALID_CONFIG", "STORE_FAILURE", "WRITE_REJECTED",
        "NOT_OWNED", "NOT_COMMITTED", "NO_REPLY_ROUTE", "THREADS", "EXHAUSTED",
        "WRONG_THREAD", "PANIC", "UNKNOWN_SESSION", "SESSION_CLOSING",
        "BINDING_SEALED", "NOT_BOUND", "LOG_SUBSCRIBER_TAKEN", "ALREADY_RELOCATING",
        "NOT_RELOCATING", "AFTER_RELAY_READY", "STATE_TOO_LARGE", "RELOCATION_REFUSED",
        "WIRE_INVALID", "FORKED",
    };
    return rc < sizeof names / sizeof *names ? names[rc] : "UNKNOWN";
}

/*
 * The README's (the Rust runner's) name of a failed call: the error's kind
 * (zlink_error_kind, the same names as the core's errors), except that any
 * store write refused (ZLINK_RESULT_WRITE_REJECTED, or the store failing
 * the write) is "Write", as the README groups them.
 */
static const char *error_name(zlink_result rc, const char *kind) {
    if (rc == ZLINK_RESULT_STORE_FAILURE || rc == ZLINK_RESULT_WRITE_REJECTED) return "Write";
    return kind;
}

/* A failed call: its code, name and message (copied; the error is freed). */
typedef struct {
    zlink_result rc;
    const char *name; /* NULL: no README name */
    char kind[64];
    char message[512];
} call_error;

/* Takes the outcome of a call made with `&err` (passed as `errp`: read
 * only once the call has returned): frees the error and fills `out`.
 * Returns rc. */
static zlink_result take(zlink_result rc, zlink_error **errp, call_error *out) {
    zlink_error *err = *errp;
    *errp = NULL;
    out->rc = rc;
    out->name = NULL;
    out->kind[0] = '\0';
    out->message[0] = '\0';
    if (rc != ZLINK_RESULT_OK) {
        const char *m = err != NULL ? zlink_error_message(err) : NULL;
        const char *k = err != NULL ? zlink_error_kind(err) : NULL;
        snprintf(out->message, sizeof out->message, "%s", m != NULL ? m : "");
        snprintf(out->kind, sizeof out->kind, "%s", k != NULL ? k : "");
        out->name = k != NULL ? error_name(rc, out->kind) : NULL;
    }
    zlink_error_free(err);
    return rc;
}

/* "NAME (ZLINK_RESULT_X: message)" for messages. */
static const char *describe(const call_error *e, char *buf, size_t n) {
    snprintf(buf, n, "%s (ZLINK_RESULT_%s: %s)", e->name != NULL ? e->name : "<no README name>",
             result_name(e->rc), e->message);
    return buf;
}

/* Fails the step with a call's error: `what: ...`. */
static int fail_call(run_t *run, const char *what, const call_error *e) {
    char buf[768];
    return failf(run, "%s: %s", what, describe(e, buf, sizeof buf));
}

static const char *reason_name(zlink_unavailable_reason r) {
    switch (r) {
    case ZLINK_UNAVAILABLE_REASON_CREATING: return "Creating";
    case ZLINK_UNAVAILABLE_REASON_RELEASING: return "Releasing";
    case ZLINK_UNAVAILABLE_REASON_LEASE_EXPIRED: return "LeaseExpired";
    case ZLINK_UNAVAILABLE_REASON_OWNER_NOT_LIVE: return "OwnerNotLive";
    case ZLINK_UNAVAILABLE_REASON_STALE_ROUTE: return "StaleRoute";
    case ZLINK_UNAVAILABLE_REASON_ADMISSION_DEADLINE_PASSED: return "AdmissionDeadlinePassed";
    case ZLINK_UNAVAILABLE_REASON_FOLLOW_HOP_LIMIT: return "FollowHopLimit";
    case ZLINK_UNAVAILABLE_REASON_RELOCATION_FAILED: return "RelocationFailed";
    default: return NULL;
    }
}

/* The scenarios' name of a Session-side decision, NULL for another kind. */
static const char *session_event_name(uint32_t tag) {
    switch (tag) {
    case ZLINK_DECISION_BOUND: return "Bound";
    case ZLINK_DECISION_BIND_REFUSED: return "BindRefused";
    case ZLINK_DECISION_PUSHED: return "Pushed";
    case ZLINK_DECISION_RELAY_REFUSED: return "RelayRefused";
    case ZLINK_DECISION_SEALED: return "Sealed";
    case ZLINK_DECISION_SESSION_CLOSED: return "Closed";
    case ZLINK_DECISION_IGNORED: return "Ignored";
    default: return NULL;
    }
}

static const char *relocation_event_name(uint32_t e) {
    switch (e) {
    case ZLINK_RELOCATION_EVENT_RESTORE: return "Restore";
    case ZLINK_RELOCATION_EVENT_CUTOVER: return "Cutover";
    case ZLINK_RELOCATION_EVENT_COMMIT_DUE: return "CommitDue";
    case ZLINK_RELOCATION_EVENT_COMMITTED: return "Committed";
    case ZLINK_RELOCATION_EVENT_HANDED_OFF: return "HandedOff";
    case ZLINK_RELOCATION_EVENT_ABORTING: return "Aborting";
    case ZLINK_RELOCATION_EVENT_ABORTED: return "Aborted";
    case ZLINK_RELOCATION_EVENT_FAILED: return "Failed";
    case ZLINK_RELOCATION_EVENT_COMMIT_RETRY: return "CommitRetry";
    case ZLINK_RELOCATION_EVENT_IGNORED: return "Ignored";
    default: return "Unknown";
    }
}

static const char *outcome_name(uint32_t o) {
    switch (o) {
    case ZLINK_OUTCOME_REPLY: return "Reply";
    case ZLINK_OUTCOME_ERROR: return "Error";
    case ZLINK_OUTCOME_TIMEOUT: return "Timeout";
    case ZLINK_OUTCOME_CANCELLED: return "Cancelled";
    case ZLINK_OUTCOME_SHUTDOWN: return "Shutdown";
    default: return NULL;
    }
}

/* A command's number (the header's fourth byte) by its name in the wire
 * vectors' JSON (docs/wire.md); -1 for an unknown name. */
static int command_number(const char *name) {
    static const struct {
        const char *name;
        int number;
    } table[] = {
        {"Message", 1},
        {"Request", 2},
        {"Reply", 3},
        {"Rejection", 4},
        {"SessionBind", 10},
        {"SessionBindReply", 11},
        {"SessionTombstone", 12},
        {"SessionTombstoneAck", 13},
        {"SessionRelay", 14},
        {"SessionPush", 15},
        {"SessionRefused", 16},
        {"SessionRelocationSeal", 42},
        {"SessionRelocationSealed", 43},
        {"SessionRelocationRoute", 44},
        {"RelocationRestore", 45},
        {"RelocationRelayReady", 46},
        {"RelocationCutover", 47},
        {"RelocationCommitted", 48},
        {"RelocationAbort", 49},
        {"MessageFollow", 50},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        if (strcmp(table[i].name, name) == 0) return table[i].number;
    }
    return -1;
}

/* ------------------------------------------------------------ reading steps */

/* A string field: its bytes and length (it may hold NULs). */
typedef struct {
    const char *s;
    size_t len;
} text;

static int str_of(run_t *run, const json_value *v, const char *k, text *out) {
    const json_value *f = json_get(v, k);
    out->s = "";
    out->len = 0;
    if (f == NULL || f->type != JSON_STRING) return failf(run, "missing \"%s\"", k);
    out->s = f->string;
    out->len = f->len;
    return 0;
}

static int u64_of(run_t *run, const json_value *v, const char *k, uint64_t *out) {
    *out = 0;
    if (!json_u64(json_get(v, k), out)) return failf(run, "missing \"%s\"", k);
    return 0;
}

/* A NUL-terminated string field for the C API's `const char *` inputs: a
 * string with a NUL inside cannot be passed through it. */
static int cstr_of(run_t *run, const json_value *v, const char *k, const char **out) {
    *out = "";
    text t;
    if (str_of(run, v, k, &t) != 0) return -1;
    if (strlen(t.s) != t.len)
        return failf(run, "\"%s\" holds a NUL byte: the C API takes it NUL-terminated", k);
    *out = t.s;
    return 0;
}

static int kind_of(run_t *run, const json_value *v, uint32_t *out) {
    *out = ZLINK_OBJECT_KIND_ACTOR;
    const char *k = json_str(json_get(v, "kind"));
    if (k == NULL || strcmp(k, "actor") == 0) {
        *out = ZLINK_OBJECT_KIND_ACTOR;
    } else if (strcmp(k, "spot") == 0) {
        *out = ZLINK_OBJECT_KIND_SPOT;
    } else {
        return failf(run, "unknown kind \"%s\"", k);
    }
    return 0;
}

/* A `payload` or `state`: the string's bytes, or empty. */
static text payload_of(const json_value *v, const char *k) {
    const json_value *f = json_get(v, k);
    text t = {"", 0};
    if (f != NULL && f->type == JSON_STRING) {
        t.s = f->string;
        t.len = f->len;
    }
    return t;
}

#define IDP(t) (const uint8_t *)(t).s, (t).len

/* The expected error of a step (`expect.error`), or NULL. */
static const char *expected_error(const json_value *step) {
    return json_str(json_get(json_get(step, "expect"), "error"));
}

/*
 * Checks a call's error against `expect.error`: 1 when the step expected
 * exactly this error (nothing more to check), 0 when the call succeeded and
 * no error was expected, -1 (the step fails) otherwise.
 */
static int check_error(run_t *run, const json_value *step, const call_error *e) {
    const char *want = expected_error(step);
    char buf[768];
    if (e->rc != ZLINK_RESULT_OK) {
        if (want != NULL && e->name != NULL && strcmp(e->name, want) == 0) return 1;
        if (want != NULL)
            return failf(run, "expected error %s, got %s", want, describe(e, buf, sizeof buf));
        return failf(run, "unexpected error %s", describe(e, buf, sizeof buf));
    }
    if (want != NULL) return failf(run, "expected error %s, the call succeeded", want);
    return 0;
}

/* ------------------------------------------------------------ the host */

static int node_of(run_t *run, uint64_t rid, zlink_runtime **out) {
    *out = NULL;
    if (rid == 0 || rid > run->node_count) return failf(run, "no node %" PRIu64, rid);
    *out = run->nodes[rid - 1];
    return 0;
}

static const char *name_of(const run_t *run, uint64_t op, char *buf, size_t n) {
    const char *best = NULL;
    for (size_t i = 0; i < run->names.len; i++) {
        if (run->names.items[i].op == op &&
            (best == NULL || strcmp(run->names.items[i].name, best) < 0))
            best = run->names.items[i].name;
    }
    if (best != NULL) return best;
    snprintf(buf, n, "#%" PRIu64, op);
    return buf;
}

static int op_named(run_t *run, const char *name, uint64_t *out) {
    *out = 0;
    for (size_t i = 0; i < run->names.len; i++) {
        if (strcmp(run->names.items[i].name, name) == 0) {
            *out = run->names.items[i].op;
            return 0;
        }
    }
    return failf(run, "no operation named \"%s\"", name);
}

static int set_name(run_t *run, const char *name, uint64_t op) {
    for (size_t i = 0; i < run->names.len; i++) {
        if (strcmp(run->names.items[i].name, name) == 0) {
            run->names.items[i].op = op;
            return 0;
        }
    }
    name_entry e = {name, op};
    return VEC_PUSH(run, run->names, e);
}

static int set_request(run_t *run, const char *name, uint64_t correlation, uint64_t op) {
    for (size_t i = 0; i < run->requests.len; i++) {
        if (strcmp(run->requests.items[i].name, name) == 0) {
            run->requests.items[i].correlation = correlation;
            run->requests.items[i].op = op;
            return 0;
        }
    }
    request_entry e = {name, correlation, op};
    return VEC_PUSH(run, run->requests, e);
}

static bool matches(const matcher *m, const envelope *e) {
    if (!m->active) return false;
    if (m->has_from && m->from != e->from) return false;
    if (m->has_to && m->to != e->to) return false;
    if (m->command != NULL) {
        int byte = e->len > 3 ? e->bytes[3] : -1;
        if (command_number(m->command) != byte) return false;
    }
    return true;
}

static matcher matcher_of(const json_value *v) {
    matcher m = {0};
    if (v == NULL || v->type == JSON_NULL) return m;
    m.active = true;
    m.command = json_str(json_get(v, "command"));
    m.has_from = json_u64(json_get(v, "from"), &m.from);
    m.has_to = json_u64(json_get(v, "to"), &m.to);
    return m;
}

/* Puts a copy of one frame on the network (or drops or holds it). */
static int post(run_t *run, uint64_t from, const zlink_outbound *out) {
    envelope e = {from, out->to.rid, NULL, out->bytes.len};
    e.bytes = malloc(e.len ? e.len : 1);
    if (e.bytes == NULL) return failf(run, "out of memory");
    if (e.len) memcpy(e.bytes, out->bytes.data, e.len);
    if (matches(&run->drop_rule, &e)) {
        run->dropped++;
        free(e.bytes);
        return 0;
    }
    if (matches(&run->hold_rule, &e)) {
        if (VEC_PUSH(run, run->held_back, e) != 0) {
            free(e.bytes);
            return -1;
        }
        return 0;
    }
    if (VEC_PUSH(run, run->network, e) != 0) {
        free(e.bytes);
        return -1;
    }
    return 0;
}

static int post_all(run_t *run, uint64_t from, const zlink_outbound *frames, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (post(run, from, &frames[i]) != 0) return -1;
    }
    return 0;
}

static int event(run_t *run, uint64_t at, const char *fmt, ...) {
    event_entry e = {.node = at};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.tag, sizeof e.tag, fmt, ap);
    va_end(ap);
    return VEC_PUSH(run, run->events, e);
}


/* An object ID out of a decision (never a NULL pointer: the C API refuses
 * NULL IDs). */
static const uint8_t *id_ptr(const zlink_bytes *b) {
    return b->data != NULL ? b->data : (const uint8_t *)"";
}

/* A Deliver: recorded; a request is answered "re:" + payload if the host
 * replies. */
static int deliver(run_t *run, uint64_t at, const zlink_decision *d) {
    const zlink_operation *op = &d->deliver.operation;
    delivered_entry e = {op->operation_id, at};
    if (VEC_PUSH(run, run->delivered, e) != 0) return -1;
    if (!run->reply || !op->is_request) return 0;
    zlink_runtime *rt;
    if (node_of(run, at, &rt) != 0) return -1;
    size_t n = 3 + op->payload.len;
    uint8_t *answer = malloc(n);
    if (answer == NULL) return failf(run, "out of memory");
    memcpy(answer, "re:", 3);
    if (op->payload.len) memcpy(answer + 3, op->payload.ptr, op->payload.len);
    zlink_outbound out;
    zlink_error *err = NULL;
    call_error ce;
    zlink_result rc = take(zlink_reply(rt, d, answer, n, &out, &err), &err, &ce);
    free(answer);
    if (rc != ZLINK_RESULT_OK) return fail_call(run, "reply", &ce);
    int r = post(run, at, &out);
    zlink_bytes_free(&out.bytes);
    return r;
}

static int act(run_t *run, uint64_t at, const zlink_decision *d);

/* A RELOCATION decision: its deliveries (as Deliver) and session relays in
 * order, then its frames, then the event; a Restore is answered as
 * `host.restore` says. */
static int relocation(run_t *run, uint64_t at, const zlink_decision *d) {
    zlink_runtime *rt;
    if (node_of(run, at, &rt) != 0) return -1;
    zlink_decision_list list;
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_relocation_deliveries(d, &list, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_relocation_deliveries", &ce);
    int r = 0;
    for (size_t i = 0; r == 0 && i < list.count; i++) {
        const zlink_decision *x = &list.items[i];
        if (x->tag == ZLINK_DECISION_DELIVER) {
            r = deliver(run, at, x);
        } else if (x->tag == ZLINK_DECISION_SESSION_DELIVER) {
            r = event(run, at, "SessionDeliver");
        } else {
            r = failf(run, "zlink_relocation_deliveries gave a decision of kind %u",
                      (unsigned)x->tag);
        }
    }
    zlink_decision_list_free(&list);
    if (r != 0) return -1;
    const zlink_relocation *step = &d->relocation;
    if (post_all(run, at, step->send, step->send_count) != 0) return -1;
    if (event(run, at, "Relocation.%s", relocation_event_name(step->event.tag)) != 0) return -1;
    if (step->event.tag != ZLINK_RELOCATION_EVENT_RESTORE) return 0;
    const zlink_relocation_identity *moved = &step->event.restore.identity;
    if (strcmp(run->restore, "ready") == 0) {
        zlink_outbound_list frames;
        err = NULL;
        if (take(zlink_relocation_restored(rt, moved->kind, id_ptr(&moved->id), moved->id.len,
                                           &frames, &err),
                 &err, &ce) != ZLINK_RESULT_OK)
            return fail_call(run, "relocation_restored", &ce);
        r = post_all(run, at, frames.items, frames.count);
        zlink_outbound_list_free(&frames);
        return r;
    }
    if (strcmp(run->restore, "fail") == 0) {
        zlink_decision aborted;
        err = NULL;
        if (take(zlink_abort_relocation(rt, moved->kind, id_ptr(&moved->id), moved->id.len,
                                        &aborted, &err),
                 &err, &ce) != ZLINK_RESULT_OK)
            return fail_call(run, "abort_relocation", &ce);
        r = relocation(run, at, &aborted);
        zlink_decision_free(&aborted);
        return r;
    }
    return 0; /* "ignore" */
}

/* What a host does with one decision of node `at`. */
static int act(run_t *run, uint64_t at, const zlink_decision *d) {
    zlink_runtime *rt;
    if (node_of(run, at, &rt) != 0) return -1;
    switch (d->tag) {
    case ZLINK_DECISION_DELIVER: return deliver(run, at, d);
    case ZLINK_DECISION_RELAY: {
        if (post(run, at, &d->relay.forward) != 0) return -1;
        if (d->relay.notice != NULL) {
            if (post(run, at, &d->relay.notice->outbound) != 0) return -1;
            zlink_error *err = NULL;
            call_error ce;
            if (take(zlink_notice_settled(rt, d, true, &err), &err, &ce) != ZLINK_RESULT_OK)
                return fail_call(run, "zlink_notice_settled", &ce);
        }
        return 0;
    }
    case ZLINK_DECISION_REJECT: return post(run, at, &d->reject.outbound);
    case ZLINK_DECISION_SEND: return post_all(run, at, d->send.outbounds, d->send.outbounds_count);
    case ZLINK_DECISION_ENDED: {
        ended_entry e = {d->ended.operation_id, d->ended.failure, d->ended.reason};
        return VEC_PUSH(run, run->ended, e);
    }
    case ZLINK_DECISION_COMPLETED: {
        const zlink_completion *c = &d->completed.completion;
        completed_entry e = {c->operation_id, c->outcome.tag, ZLINK_FAILURE_NONE,
                             ZLINK_UNAVAILABLE_REASON_NONE, NULL, NULL, 0};
        if (c->outcome.tag == ZLINK_OUTCOME_ERROR) {
            /* HANDLER and DECODE are errors the target replied. */
            const zlink_outcome_error *error = &c->outcome.error;
            e.failure = error->kind == ZLINK_REQUEST_ERROR_KIND_UNAVAILABLE ? ZLINK_FAILURE_UNAVAILABLE
                        : error->kind == ZLINK_REQUEST_ERROR_KIND_INVALID_OPERATION
                            ? ZLINK_FAILURE_INVALID_OPERATION
                            : ZLINK_FAILURE_REPLIED;
            e.reason = error->reason;
            e.kind = error->kind == ZLINK_REQUEST_ERROR_KIND_HANDLER  ? "Handler"
                     : error->kind == ZLINK_REQUEST_ERROR_KIND_DECODE ? "Decode"
                                                                      : NULL;
        }
        if (c->outcome.tag == ZLINK_OUTCOME_REPLY) {
            const zlink_bytes *payload = &c->outcome.reply.payload;
            e.payload_len = payload->len;
            e.payload = malloc(e.payload_len ? e.payload_len : 1);
            if (e.payload == NULL) return failf(run, "out of memory");
            if (e.payload_len) memcpy(e.payload, payload->data, e.payload_len);
        }
        if (VEC_PUSH(run, run->completed, e) != 0) {
            free(e.payload);
            return -1;
        }
        return 0;
    }
    case ZLINK_DECISION_LATE:
        run->late++;
        return event(run, at, "Late");
    case ZLINK_DECISION_ROUTE_REFRESHED:
        run->refreshed++;
        run->invalidated += d->route_refreshed.invalidated ? 1 : 0;
        return event(run, at, "RouteRefreshed");
    case ZLINK_DECISION_DROPPED:
        run->dropped++;
        return event(run, at, "Dropped");
    case ZLINK_DECISION_PEER_REFUSED: return event(run, at, "PeerRefused");
    case ZLINK_DECISION_FOREIGN_SENDER: return event(run, at, "ForeignSender");
    case ZLINK_DECISION_HELD:
        run->held++;
        return event(run, at, "Held");
    case ZLINK_DECISION_SESSION_DELIVER: return event(run, at, "SessionDeliver");
    case ZLINK_DECISION_RELOCATION: return relocation(run, at, d);
    default:
        if (session_event_name(d->tag) != NULL)
            return event(run, at, "Session.%s", session_event_name(d->tag));
        return failf(run, "a decision of unknown kind %u", (unsigned)d->tag);
    }
}

/* Runs node `at`'s timers if they are due, as a host's loop does. */
static int due(run_t *run, uint64_t at) {
    zlink_runtime *rt;
    if (node_of(run, at, &rt) != 0) return -1;
    uint64_t now = 0, deadline = 0;
    bool has = false;
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_now(rt, &now, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_now", &ce);
    err = NULL;
    if (take(zlink_next_deadline(rt, &deadline, &has, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_next_deadline", &ce);
    if (!has || deadline > now) return 0;
    zlink_decision_list list;
    err = NULL;
    if (take(zlink_on_timeout(rt, now, &list, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_on_timeout", &ce);
    int r = 0;
    for (size_t i = 0; r == 0 && i < list.count; i++) r = act(run, at, &list.items[i]);
    zlink_decision_list_free(&list);
    return r;
}

/* Carries one frame: 1 if one was carried, 0 if none was in flight, -1. */
static int step_frame(run_t *run) {
    if (run->head == run->network.len) return 0;
    envelope e = run->network.items[run->head++];
    if (run->head == run->network.len) run->head = run->network.len = 0;
    /* The corruption rules: a frame matching `truncate` loses its last
     * byte, one matching `corrupt_kind` gets 0xEE at its target's kind. */
    if (matches(&run->truncate_rule, &e) && e.len > 0) e.len--;
    if (matches(&run->corrupt_kind_rule, &e) && e.len > KIND_AT) e.bytes[KIND_AT] = 0xEE;
    zlink_runtime *rt;
    if (node_of(run, e.to, &rt) != 0) {
        free(e.bytes);
        return -1;
    }
    zlink_decision d;
    zlink_error *err = NULL;
    call_error ce;
    zlink_result rc = take(zlink_on_frame(rt, e.from, e.bytes, e.len, &d, &err), &err, &ce);
    free(e.bytes);
    if (rc != ZLINK_RESULT_OK) return fail_call(run, "zlink_on_frame", &ce);
    int r = act(run, e.to, &d);
    zlink_decision_free(&d);
    if (r != 0) return -1;
    if (due(run, e.to) != 0) return -1;
    return 1;
}

/* ------------------------------------------------------------ setting up */

static void config_of(const json_value *v, zlink_config *c) {
    zlink_config_default(c, NULL);
    if (v == NULL) return;
    uint64_t x;
    if (json_u64(json_get(v, "route_cache_max_age_ms"), &x)) c->route_cache_max_age_ms = x;
    if (json_u64(json_get(v, "message_follow_duration_ms"), &x))
        c->message_follow_duration_ms = x;
    if (json_u64(json_get(v, "max_follow_hops"), &x)) c->max_follow_hops = (uint8_t)x;
    if (json_u64(json_get(v, "session_relocation_seal_timeout_ms"), &x))
        c->session_relocation_seal_timeout_ms = x;
    if (json_u64(json_get(v, "session_bind_timeout_ms"), &x)) c->session_bind_timeout_ms = x;
    if (json_u64(json_get(v, "owner_lease_duration_ms"), &x)) c->owner_lease_duration_ms = x;
    if (json_u64(json_get(v, "store_timeout_ms"), &x)) c->store_timeout_ms = x;
    if (json_u64(json_get(v, "store_attempts"), &x)) c->store_attempts = (uint32_t)x;
    if (json_u64(json_get(v, "max_object_id_bytes"), &x)) c->max_object_id_bytes = x;
    if (json_u64(json_get(v, "max_message_bytes"), &x)) c->max_message_bytes = x;
    if (json_u64(json_get(v, "relocation_timeout_ms"), &x)) c->relocation_timeout_ms = x;
    if (json_u64(json_get(v, "max_relocation_state_bytes"), &x))
        c->max_relocation_state_bytes = x;
}

static zlink_node_identity identity(uint64_t rid) {
    zlink_node_identity id = {.mesh = "scenario", .rid = rid, .generation = 1, .lease = rid};
    return id;
}

static void run_free(run_t *run) {
    for (size_t i = 0; i < run->node_count; i++) zlink_runtime_free(run->nodes[i], NULL);
    free(run->nodes);
    zlink_store_free(run->store, NULL);
    zlink_clock_free(run->clock, NULL);
    for (size_t i = run->head; i < run->network.len; i++) free(run->network.items[i].bytes);
    VEC_FREE(run->network);
    for (size_t i = 0; i < run->held_back.len; i++) free(run->held_back.items[i].bytes);
    VEC_FREE(run->held_back);
    VEC_FREE(run->names);
    VEC_FREE(run->requests);
    VEC_FREE(run->delivered);
    VEC_FREE(run->ended);
    for (size_t i = 0; i < run->completed.len; i++) free(run->completed.items[i].payload);
    VEC_FREE(run->completed);
    VEC_FREE(run->events);
}

static int run_new(run_t *run, const json_value *scenario) {
    memset(run, 0, sizeof *run);
    zlink_config config;
    config_of(json_get(scenario, "config"), &config);
    uint64_t n = 2;
    json_u64(json_get(scenario, "nodes"), &n);
    if (n > MAX_NODES) return failf(run, "%" PRIu64 " nodes, over this runner's %d", n, MAX_NODES);
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_clock_manual_new(&run->clock, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_clock_manual_new", &ce);
    err = NULL;
    if (take(zlink_store_memory_new(run->clock, &run->store, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_store_memory_new", &ce);
    run->nodes = calloc(n ? n : 1, sizeof *run->nodes);
    if (run->nodes == NULL) return failf(run, "out of memory");
    for (uint64_t rid = 1; rid <= n; rid++) {
        zlink_node_identity id = identity(rid);
        err = NULL;
        if (take(zlink_runtime_new(&id, &config, run->store, run->clock,
                                   &run->nodes[run->node_count], &err),
                 &err, &ce) != ZLINK_RESULT_OK) {
            char buf[768];
            return failf(run, "node %" PRIu64 " does not start: %s", rid,
                         describe(&ce, buf, sizeof buf));
        }
        run->node_count++;
    }
    const json_value *host = json_get(scenario, "host");
    run->reply = true;
    json_bool(json_get(host, "reply"), &run->reply);
    run->restore = json_str(json_get(host, "restore"));
    if (run->restore == NULL) run->restore = "ready";
    return 0;
}

/* ------------------------------------------------------------ expectations */

/* `want[key]`, if a string, must be `got`. */
static int expect_field(run_t *run, const json_value *want, const char *key, const char *got) {
    const char *w = json_str(json_get(want, key));
    if (w != NULL && (got == NULL || strcmp(w, got) != 0)) {
        if (got == NULL) return failf(run, "%s is None, expected \"%s\"", key, w);
        return failf(run, "%s is Some(\"%s\"), expected \"%s\"", key, got, w);
    }
    return 0;
}

static int expect_tag(run_t *run, const json_value *want, const char *tag, bool has_node,
                      uint64_t node, const char *reason) {
    if (expect_field(run, want, "tag", tag) != 0) return -1;
    if (expect_field(run, want, "reason", reason) != 0) return -1;
    static const char *const keys[] = {"node", "to"};
    for (size_t i = 0; i < 2; i++) {
        uint64_t w;
        if (json_u64(json_get(want, keys[i]), &w) && (!has_node || w != node)) {
            if (!has_node) return failf(run, "%s is None, expected %" PRIu64, keys[i], w);
            return failf(run, "%s is Some(%" PRIu64 "), expected %" PRIu64, keys[i], node, w);
        }
    }
    return 0;
}

static const char *failure_name(zlink_failure f) {
    switch (f) {
    case ZLINK_FAILURE_UNAVAILABLE: return "Unavailable";
    case ZLINK_FAILURE_INVALID_OPERATION: return "InvalidOperation";
    case ZLINK_FAILURE_REPLIED: return "Replied";
    default: return NULL;
    }
}

static int check_outcome(run_t *run, const json_value *want, const completed_entry *c) {
    if (expect_field(run, want, "outcome", outcome_name(c->outcome)) != 0) return -1;
    const char *error = NULL, *reason = NULL;
    if (c->outcome == ZLINK_OUTCOME_ERROR) {
        error = failure_name(c->failure);
        if (c->failure == ZLINK_FAILURE_UNAVAILABLE) reason = reason_name(c->reason);
    }
    if (expect_field(run, want, "error", error) != 0) return -1;
    if (expect_field(run, want, "reason", reason) != 0) return -1;
    const char *kind = NULL;
    if (c->outcome == ZLINK_OUTCOME_ERROR && c->failure == ZLINK_FAILURE_REPLIED) kind = c->kind;
    if (expect_field(run, want, "kind", kind) != 0) return -1;
    const json_value *w = json_get(want, "payload");
    if (w != NULL && w->type == JSON_STRING && c->outcome == ZLINK_OUTCOME_REPLY &&
        (w->len != c->payload_len || memcmp(w->string, c->payload, w->len) != 0))
        return failf(run, "reply \"%.*s\", expected \"%s\"", (int)c->payload_len,
                     (const char *)c->payload, w->string);
    return 0;
}

/* A counter zlink_stats does not hold (the list's later ones), read from
 * its line in zlink_metrics_text: "METRIC VALUE". */
static int metric_of(run_t *run, zlink_runtime *rt, const char *metric, uint64_t *out) {
    *out = 0;
    zlink_bytes text_;
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_metrics_text(rt, &text_, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_metrics_text", &ce);
    const char *p = (const char *)text_.data, *end = p + text_.len;
    size_t n = strlen(metric);
    bool found = false;
    while (p < end && !found) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL) eol = end;
        if ((size_t)(eol - p) > n + 1 && memcmp(p, metric, n) == 0 && p[n] == ' ') {
            found = true;
            for (const char *d = p + n + 1; d < eol && *d >= '0' && *d <= '9'; d++)
                *out = *out * 10 + (uint64_t)(*d - '0');
        }
        p = eol + 1;
    }
    zlink_bytes_free(&text_);
    if (!found) return failf(run, "no metric %s in zlink_metrics_text", metric);
    return 0;
}

static int stat_of(run_t *run, zlink_runtime *rt, const zlink_stats *s, const char *name,
                   uint64_t *out) {
    *out = 0;
    if (strcmp(name, "requests_undecodable_answered") == 0)
        return metric_of(run, rt, "zlink_requests_undecodable_answered_total", out);
    static const struct {
        const char *name;
        size_t offset;
    } table[] = {
        {"cache_hits", offsetof(zlink_stats, cache_hits)},
        {"cache_misses", offsetof(zlink_stats, cache_misses)},
        {"store_reads", offsetof(zlink_stats, store_reads)},
        {"relays", offsetof(zlink_stats, relays)},
        {"notifications_sent", offsetof(zlink_stats, notifications_sent)},
        {"rejections_sent", offsetof(zlink_stats, rejections_sent)},
        {"frames_dropped", offsetof(zlink_stats, frames_dropped)},
        {"relocation_held", offsetof(zlink_stats, relocation_held)},
        {"relocation_relayed", offsetof(zlink_stats, relocation_relayed)},
        {"relocation_committed", offsetof(zlink_stats, relocation_committed)},
        {"relocation_aborted", offsetof(zlink_stats, relocation_aborted)},
        {"requests_unroutable", offsetof(zlink_stats, requests_unroutable)},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        if (strcmp(table[i].name, name) == 0) {
            memcpy(out, (const char *)s + table[i].offset, sizeof *out);
            return 0;
        }
    }
    return failf(run, "unknown stat \"%s\"", name);
}

/* Whether node `rid` owns (kind, id) now. */
static int owns(run_t *run, uint64_t rid, uint32_t kind, text id, bool *out) {
    *out = false;
    zlink_runtime *rt;
    if (node_of(run, rid, &rt) != 0) return -1;
    zlink_route_end end;
    bool found = false;
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_owner_route_end(rt, kind, IDP(id), &end, &found, &err), &err, &ce) !=
        ZLINK_RESULT_OK) {
        /* An ID the node refuses is one it cannot own (the core's `owned`
         * answers None for it). */
        if (ce.name != NULL &&
            (strcmp(ce.name, "EmptyObjectId") == 0 || strcmp(ce.name, "ObjectIdTooLong") == 0)) {
            *out = false;
            return 0;
        }
        return fail_call(run, "zlink_owner_route_end", &ce);
    }
    *out = found;
    return 0;
}

/* A short rendering of an expected value for messages. */
static const char *show(const json_value *v, char *buf, size_t n) {
    if (v == NULL) {
        snprintf(buf, n, "nothing");
    } else if (v->type == JSON_NUMBER && v->is_u64) {
        snprintf(buf, n, "%" PRIu64, v->u64);
    } else if (v->type == JSON_NUMBER) {
        snprintf(buf, n, "%.17g", v->number);
    } else if (v->type == JSON_STRING) {
        snprintf(buf, n, "\"%s\"", v->string);
    } else {
        static const char *const types[] = {"null", "a boolean", "a number", "a string",
                                            "an array", "an object"};
        snprintf(buf, n, "%s", types[v->type]);
    }
    return buf;
}

/* The member of object `v` that follows `after` (NULL: the first) in key
 * order, skipping repeated keys: the order the Rust runner's JSON map
 * (serde_json, sorted keys, the last of a repeated key) walks. */
static const json_member *next_member(const json_value *v, const json_member *after) {
    const json_member *next = NULL;
    for (size_t i = 0; i < v->count; i++) {
        const json_member *m = &v->members[i];
        if (after != NULL && strcmp(m->key, after->key) <= 0) continue;
        if (next == NULL || strcmp(m->key, next->key) <= 0) next = m; /* <=: the last wins */
    }
    return next;
}

static int expect_step(run_t *run, const json_value *step) {
    char nb[32];
    const json_value *list;
    if ((list = json_get(step, "delivered")) != NULL && list->type == JSON_ARRAY) {
        for (size_t i = 0; i < list->count; i++) {
            const json_value *want = list->items[i];
            text name;
            uint64_t op, node, times = 1;
            if (str_of(run, want, "op", &name) != 0 || op_named(run, name.s, &op) != 0 ||
                u64_of(run, want, "node", &node) != 0)
                return -1;
            json_u64(json_get(want, "times"), &times);
            uint64_t count = 0;
            bool elsewhere = false;
            char at[256] = "";
            size_t used = 0;
            for (size_t j = 0; j < run->delivered.len; j++) {
                if (run->delivered.items[j].op != op) continue;
                count++;
                if (run->delivered.items[j].node != node) elsewhere = true;
                if (used < sizeof at) {
                    int w = snprintf(at + used, sizeof at - used, "%s%" PRIu64, used ? ", " : "",
                                     run->delivered.items[j].node);
                    if (w > 0) used += (size_t)w;
                }
            }
            if (count != times || elsewhere)
                return failf(run, "%s delivered at [%s], expected %" PRIu64
                                  " time(s) at node %" PRIu64,
                             name_of(run, op, nb, sizeof nb), at, times, node);
        }
    }
    if ((list = json_get(step, "not_delivered")) != NULL && list->type == JSON_ARRAY) {
        for (size_t i = 0; i < list->count; i++) {
            const char *name = json_str(list->items[i]);
            uint64_t op;
            if (name == NULL) return failf(run, "op names are strings");
            if (op_named(run, name, &op) != 0) return -1;
            for (size_t j = 0; j < run->delivered.len; j++) {
                if (run->delivered.items[j].op == op)
                    return failf(run, "%s was delivered at node %" PRIu64,
                                 name_of(run, op, nb, sizeof nb), run->delivered.items[j].node);
            }
        }
    }
    if ((list = json_get(step, "completed")) != NULL && list->type == JSON_ARRAY) {
        for (size_t i = 0; i < list->count; i++) {
            const json_value *want = list->items[i];
            text name;
            uint64_t op;
            if (str_of(run, want, "op", &name) != 0 || op_named(run, name.s, &op) != 0) return -1;
            const completed_entry *one = NULL;
            size_t count = 0;
            for (size_t j = 0; j < run->completed.len; j++) {
                if (run->completed.items[j].op == op) {
                    one = &run->completed.items[j];
                    count++;
                }
            }
            if (count != 1)
                return failf(run, "%s completed %zu times", name_of(run, op, nb, sizeof nb), count);
            if (check_outcome(run, want, one) != 0) {
                char inner[sizeof run->why];
                memcpy(inner, run->why, sizeof inner);
                run->why[0] = '\0';
                return failf(run, "%s: %s", name_of(run, op, nb, sizeof nb), inner);
            }
        }
    }
    if ((list = json_get(step, "ended")) != NULL && list->type == JSON_ARRAY) {
        for (size_t i = 0; i < list->count; i++) {
            const json_value *want = list->items[i];
            text name;
            uint64_t op;
            if (str_of(run, want, "op", &name) != 0 || op_named(run, name.s, &op) != 0) return -1;
            const ended_entry *one = NULL;
            size_t count = 0;
            for (size_t j = 0; j < run->ended.len; j++) {
                if (run->ended.items[j].op == op) {
                    one = &run->ended.items[j];
                    count++;
                }
            }
            if (count != 1)
                return failf(run, "%s ended %zu times", name_of(run, op, nb, sizeof nb), count);
            const char *reason = one->failure == ZLINK_FAILURE_UNAVAILABLE
                                     ? reason_name(one->reason)
                                     : NULL;
            if (expect_field(run, want, "failure", failure_name(one->failure)) != 0 ||
                expect_field(run, want, "reason", reason) != 0)
                return -1;
        }
    }
    if ((list = json_get(step, "events")) != NULL && list->type == JSON_ARRAY) {
        size_t from = 0;
        for (size_t i = 0; i < list->count; i++) {
            const json_value *want = list->items[i];
            uint64_t node;
            text tag;
            if (u64_of(run, want, "node", &node) != 0 || str_of(run, want, "tag", &tag) != 0)
                return -1;
            size_t j = from;
            while (j < run->events.len &&
                   !(run->events.items[j].node == node &&
                     strcmp(run->events.items[j].tag, tag.s) == 0))
                j++;
            if (j == run->events.len) {
                char all[1024] = "";
                size_t used = 0;
                for (size_t k = 0; k < run->events.len && used < sizeof all; k++) {
                    int w = snprintf(all + used, sizeof all - used, "%s(%" PRIu64 ", \"%s\")",
                                     k ? ", " : "", run->events.items[k].node,
                                     run->events.items[k].tag);
                    if (w > 0) used += (size_t)w;
                }
                return failf(run, "no event %s at node %" PRIu64 " (in order) among [%s]", tag.s,
                             node, all);
            }
            from = j + 1;
        }
    }
    if ((list = json_get(step, "no_events")) != NULL && list->type == JSON_ARRAY) {
        for (size_t i = 0; i < list->count; i++) {
            const json_value *want = list->items[i];
            text tag;
            if (str_of(run, want, "tag", &tag) != 0) return -1;
            uint64_t node;
            bool any_node = !json_u64(json_get(want, "node"), &node);
            for (size_t j = 0; j < run->events.len; j++) {
                if (strcmp(run->events.items[j].tag, tag.s) == 0 &&
                    (any_node || run->events.items[j].node == node))
                    return failf(run, "event %s happened at node %" PRIu64, tag.s,
                                 run->events.items[j].node);
            }
        }
    }
    const json_value *want;
    if ((want = json_get(step, "peer_endpoint")) != NULL) {
        uint64_t rid_node, rid;
        zlink_runtime *rt;
        if (u64_of(run, want, "node", &rid_node) != 0 || node_of(run, rid_node, &rt) != 0 ||
            u64_of(run, want, "rid", &rid) != 0)
            return -1;
        zlink_bytes got = {0};
        bool found = false;
        zlink_error *err = NULL;
        call_error ce;
        if (take(zlink_peer_endpoint(rt, rid, &got, &found, &err), &err, &ce) != ZLINK_RESULT_OK)
            return fail_call(run, "zlink_peer_endpoint", &ce);
        const json_value *e = json_get(want, "endpoint");
        const char *expected = json_str(e);
        bool same = found ? expected != NULL && e->len == got.len &&
                                (got.len == 0 || memcmp(e->string, got.data, got.len) == 0)
                          : expected == NULL;
        int r = 0;
        if (!same) {
            char g[300];
            if (found) {
                snprintf(g, sizeof g, "Some(\"%.*s\")", (int)(got.len > 256 ? 256 : got.len),
                         (const char *)got.data);
            } else {
                snprintf(g, sizeof g, "None");
            }
            r = expected != NULL
                    ? failf(run, "peer endpoint %s, expected Some(\"%s\")", g, expected)
                    : failf(run, "peer endpoint %s, expected None", g);
        }
        if (found) zlink_bytes_free(&got);
        if (r != 0) return -1;
    }
    if ((want = json_get(step, "owner")) != NULL) {
        uint32_t kind;
        text id;
        if (kind_of(run, want, &kind) != 0 || str_of(run, want, "id", &id) != 0) return -1;
        uint64_t expected = 0;
        bool has_expected = json_u64(json_get(want, "node"), &expected);
        char owners[256] = "";
        size_t used = 0, count = 0;
        bool same = true;
        for (uint64_t rid = 1; rid <= run->node_count; rid++) {
            bool owned;
            if (owns(run, rid, kind, id, &owned) != 0) return -1;
            if (!owned) continue;
            if (!has_expected || rid != expected || count > 0) same = false;
            count++;
            if (used < sizeof owners) {
                int w = snprintf(owners + used, sizeof owners - used, "%s%" PRIu64,
                                 used ? ", " : "", rid);
                if (w > 0) used += (size_t)w;
            }
        }
        if (has_expected && count == 0) same = false;
        if (!same) {
            if (has_expected)
                return failf(run, "owners of \"%s\": [%s], expected [%" PRIu64 "]", id.s, owners,
                             expected);
            return failf(run, "owners of \"%s\": [%s], expected []", id.s, owners);
        }
    }
    if ((want = json_get(step, "count")) != NULL && want->type == JSON_OBJECT) {
        for (const json_member *m = next_member(want, NULL); m != NULL;
             m = next_member(want, m)) {
            const char *k = m->key;
            uint64_t got;
            if (strcmp(k, "delivered") == 0) got = run->delivered.len;
            else if (strcmp(k, "held") == 0) got = run->held;
            else if (strcmp(k, "late") == 0) got = run->late;
            else if (strcmp(k, "dropped") == 0) got = run->dropped;
            else if (strcmp(k, "in_flight") == 0) got = run->network.len - run->head;
            else if (strcmp(k, "refreshed") == 0) got = run->refreshed;
            else if (strcmp(k, "invalidated") == 0) got = run->invalidated;
            else if (strcmp(k, "completed") == 0) got = run->completed.len;
            else if (strcmp(k, "ended") == 0) got = run->ended.len;
            else return failf(run, "unknown count \"%s\"", k);
            uint64_t w;
            if (!json_u64(m->value, &w) || w != got) {
                char shown[64];
                return failf(run, "count %s is %" PRIu64 ", expected %s", k, got,
                             show(m->value, shown, sizeof shown));
            }
        }
    }
    if ((want = json_get(step, "stats")) != NULL && want->type == JSON_OBJECT) {
        uint64_t rid;
        zlink_runtime *rt;
        if (!json_u64(json_get(want, "node"), &rid)) return failf(run, "stats needs a node");
        if (node_of(run, rid, &rt) != 0) return -1;
        zlink_stats s;
        zlink_error *err = NULL;
        call_error ce;
        if (take(zlink_stats_get(rt, &s, &err), &err, &ce) != ZLINK_RESULT_OK)
            return fail_call(run, "zlink_stats_get", &ce);
        for (const json_member *m = next_member(want, NULL); m != NULL;
             m = next_member(want, m)) {
            const char *k = m->key;
            if (strcmp(k, "node") == 0) continue;
            uint64_t got, w;
            if (stat_of(run, rt, &s, k, &got) != 0) return -1;
            if (!json_u64(m->value, &w) || w != got) {
                char shown[64];
                return failf(run, "node %" PRIu64 " stat %s is %" PRIu64 ", expected %s", rid, k,
                             got, show(m->value, shown, sizeof shown));
            }
        }
    }
    bool once;
    if (json_bool(json_get(step, "exactly_once"), &once) && once) {
        /* no op delivered twice (the smallest such op is named) */
        bool found = false;
        uint64_t twice = 0, twice_n = 0;
        for (size_t i = 0; i < run->delivered.len; i++) {
            uint64_t op = run->delivered.items[i].op, n = 0;
            for (size_t j = 0; j < run->delivered.len; j++) n += run->delivered.items[j].op == op;
            if (n > 1 && (!found || op < twice)) {
                found = true;
                twice = op;
                twice_n = n;
            }
        }
        if (found)
            return failf(run, "%s delivered %" PRIu64 " times", name_of(run, twice, nb, sizeof nb),
                         twice_n);
        /* every named op delivered or ended or completed, not both
         * delivered and ended (names in order, as the Rust runner's map) */
        const char *last = NULL;
        for (;;) {
            const name_entry *next = NULL;
            for (size_t i = 0; i < run->names.len; i++) {
                const name_entry *e = &run->names.items[i];
                if ((last == NULL || strcmp(e->name, last) > 0) &&
                    (next == NULL || strcmp(e->name, next->name) < 0))
                    next = e;
            }
            if (next == NULL) break;
            last = next->name;
            bool delivered = false, ended = false, completed = false;
            for (size_t j = 0; j < run->delivered.len; j++)
                delivered |= run->delivered.items[j].op == next->op;
            for (size_t j = 0; j < run->ended.len; j++) ended |= run->ended.items[j].op == next->op;
            for (size_t j = 0; j < run->completed.len; j++)
                completed |= run->completed.items[j].op == next->op;
            if (delivered && ended) return failf(run, "%s both delivered and ended", next->name);
            if (!delivered && !ended && !completed)
                return failf(run, "%s lost: neither delivered nor ended", next->name);
        }
    }
    if ((want = json_get(step, "order")) != NULL) {
        uint64_t node;
        if (u64_of(run, want, "node", &node) != 0) return -1;
        const json_value *ops = json_get(want, "ops");
        if (ops == NULL || ops->type != JSON_ARRAY) return failf(run, "order needs ops");
        uint64_t *want_ops = calloc(ops->count ? ops->count : 1, sizeof *want_ops);
        if (want_ops == NULL) return failf(run, "out of memory");
        for (size_t i = 0; i < ops->count; i++) {
            const char *name = json_str(ops->items[i]);
            if (op_named(run, name != NULL ? name : "", &want_ops[i]) != 0) {
                free(want_ops);
                return -1;
            }
        }
        /* the ops delivered at `node`, in delivery order, must be `ops` */
        size_t k = 0;
        bool same = true;
        char at[512] = "";
        size_t used = 0;
        for (size_t j = 0; j < run->delivered.len; j++) {
            const delivered_entry *d = &run->delivered.items[j];
            bool listed = false;
            for (size_t i = 0; i < ops->count; i++) listed |= want_ops[i] == d->op;
            if (d->node != node || !listed) continue;
            if (k >= ops->count || want_ops[k] != d->op) same = false;
            k++;
            if (used < sizeof at) {
                int w = snprintf(at + used, sizeof at - used, "%s\"%s\"", used ? ", " : "",
                                 name_of(run, d->op, nb, sizeof nb));
                if (w > 0) used += (size_t)w;
            }
        }
        free(want_ops);
        if (!same || k != ops->count)
            return failf(run, "delivered at node %" PRIu64 " in order [%s]", node, at);
    }
    return 0;
}

/* ------------------------------------------------------------ steps */

static int lifecycle_step(run_t *run, const json_value *step, const char *what) {
    uint64_t rid;
    zlink_runtime *rt;
    uint32_t kind;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
        kind_of(run, step, &kind) != 0 || str_of(run, step, "id", &id) != 0)
        return -1;
    zlink_error *err = NULL;
    call_error ce;
    zlink_result rc;
    if (strcmp(what, "activate") == 0) {
        rc = zlink_activate(rt, kind, IDP(id), NULL, &err);
    } else if (strcmp(what, "create") == 0) {
        rc = zlink_create(rt, kind, IDP(id), NULL, &err);
    } else if (strcmp(what, "publish_ready") == 0) {
        rc = zlink_publish_ready(rt, kind, IDP(id), NULL, &err);
    } else if (strcmp(what, "begin_release") == 0) {
        rc = zlink_begin_release(rt, kind, IDP(id), NULL, &err);
    } else if (strcmp(what, "complete_release") == 0) {
        rc = zlink_complete_release(rt, kind, IDP(id), &err);
    } else { /* release */
        rc = zlink_begin_release(rt, kind, IDP(id), NULL, &err);
        if (rc == ZLINK_RESULT_OK) rc = zlink_complete_release(rt, kind, IDP(id), &err);
    }
    take(rc, &err, &ce);
    return check_error(run, step, &ce) < 0 ? -1 : 0;
}

/* ensure_manual_peer / peer_closed: `expect` {"replacement": bool, "rid"?} */
static int peer_step(run_t *run, const json_value *step, bool closed) {
    uint64_t rid;
    zlink_runtime *rt;
    const char *endpoint;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
        cstr_of(run, step, "endpoint", &endpoint) != 0)
        return -1;
    zlink_peer_descriptor d;
    bool found = false;
    zlink_error *err = NULL;
    call_error ce;
    take(closed ? zlink_peer_closed(rt, endpoint, &d, &found, &err)
                : zlink_ensure_manual_peer(rt, endpoint, &d, &found, &err),
         &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    int r = checked < 0 ? -1 : 0;
    const json_value *expect = json_get(step, "expect");
    bool w;
    uint64_t want_rid;
    if (r == 0 && json_bool(json_get(expect, "replacement"), &w) && w != found) {
        r = found ? failf(run, "expected replacement %s, got Some(rid %" PRIu64 ")",
                          w ? "true" : "false", d.rid)
                  : failf(run, "expected replacement %s, got None", w ? "true" : "false");
    }
    if (r == 0 && found && json_u64(json_get(expect, "rid"), &want_rid) && d.rid != want_rid)
        r = failf(run, "replacement names %" PRIu64 ", expected %" PRIu64, d.rid, want_rid);
    if (found) zlink_peer_descriptor_free(&d);
    return r;
}

static int resolve_step(run_t *run, const json_value *step) {
    uint64_t rid;
    zlink_runtime *rt;
    uint32_t kind;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
        kind_of(run, step, &kind) != 0 || str_of(run, step, "id", &id) != 0)
        return -1;
    zlink_resolution res;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_resolve(rt, kind, IDP(id), &res, &err), &err, &ce);
    int checked = check_error(run, step, &ce);
    if (checked != 0) return checked < 0 ? -1 : 0;
    const json_value *want = json_get(step, "expect");
    if (want == NULL) return 0;
    const char *tag = "?", *reason = NULL;
    bool has_node = false;
    uint64_t node = 0;
    switch (res.tag) {
    case ZLINK_RESOLUTION_TAG_READY_ROUTE:
        tag = "ReadyRoute";
        has_node = true;
        node = res.route.node_rid;
        break;
    case ZLINK_RESOLUTION_TAG_MISSING: tag = "Missing"; break;
    case ZLINK_RESOLUTION_TAG_UNAVAILABLE:
        tag = "Unavailable";
        reason = reason_name(res.reason);
        break;
    case ZLINK_RESOLUTION_TAG_STORE_FAILURE: tag = "StoreFailure"; break;
    }
    if (expect_tag(run, want, tag, has_node, node, reason) != 0) {
        char inner[sizeof run->why];
        memcpy(inner, run->why, sizeof inner);
        run->why[0] = '\0';
        return failf(run, "%s (%s%s%s)", inner, tag, reason ? " " : "", reason ? reason : "");
    }
    return 0;
}

static int lookup_cached_step(run_t *run, const json_value *step) {
    uint64_t rid;
    zlink_runtime *rt;
    uint32_t kind;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
        kind_of(run, step, &kind) != 0 || str_of(run, step, "id", &id) != 0)
        return -1;
    zlink_ready_route route;
    bool found = false;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_lookup_cached(rt, kind, IDP(id), &route, &found, &err), &err, &ce);
    int checked = check_error(run, step, &ce);
    if (checked != 0) return checked < 0 ? -1 : 0;
    const json_value *expect = json_get(step, "expect");
    bool w;
    uint64_t n;
    if (json_bool(json_get(expect, "hit"), &w) && w != found) {
        if (found)
            return failf(run, "expected hit %s, got a route to node %" PRIu64,
                         w ? "true" : "false", route.node_rid);
        return failf(run, "expected hit %s, got None", w ? "true" : "false");
    }
    if (found && json_u64(json_get(expect, "node"), &n) && route.node_rid != n)
        return failf(run, "expected node %" PRIu64 ", got %" PRIu64, n, route.node_rid);
    return 0;
}

static int send_step(run_t *run, const json_value *step, bool request) {
    uint64_t rid;
    uint32_t kind;
    text id;
    zlink_runtime *rt;
    if (u64_of(run, step, "node", &rid) != 0 || kind_of(run, step, &kind) != 0 ||
        str_of(run, step, "id", &id) != 0)
        return -1;
    text payload = payload_of(step, "payload");
    zlink_send_options options = {.instance_intent = false,
                                  .deadline_ms = DEFAULT_DEADLINE_MS,
                                  .timeout_ms = DEFAULT_TIMEOUT_MS};
    json_bool(json_get(step, "instance"), &options.instance_intent);
    if (node_of(run, rid, &rt) != 0) return -1;
    uint64_t ms;
    if (request && json_u64(json_get(step, "timeout_ms"), &ms)) options.timeout_ms = ms;
    zlink_sent sent;
    zlink_error *err = NULL;
    call_error ce;
    take(request ? zlink_request(rt, kind, IDP(id), IDP(payload), &options, &sent, &err)
                 : zlink_send(rt, kind, IDP(id), IDP(payload), &options, &sent, &err),
         &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    const char *tag = "?", *reason = NULL;
    bool has_to = false;
    uint64_t to = 0;
    int r = checked < 0 ? -1 : 0;
    switch (sent.tag) {
    case ZLINK_SENT_TAG_SUBMITTED: tag = "Submitted"; break;
    case ZLINK_SENT_TAG_NOT_FOUND: tag = "NotFound"; break;
    case ZLINK_SENT_TAG_COLD_ACTIVATION: tag = "ColdActivation"; break;
    case ZLINK_SENT_TAG_UNAVAILABLE:
        tag = "Unavailable";
        reason = reason_name(sent.reason);
        break;
    case ZLINK_SENT_TAG_STORE_FAILURE: tag = "StoreFailure"; break;
    }
    if (sent.tag == ZLINK_SENT_TAG_SUBMITTED) {
        has_to = true;
        to = sent.outbound.to.rid;
        const char *as = json_str(json_get(step, "as"));
        if (r == 0 && as != NULL && request)
            r = set_request(run, as, sent.correlation, sent.operation_id);
        if (r == 0 && as != NULL) r = set_name(run, as, sent.operation_id);
        if (r == 0) r = post(run, rid, &sent.outbound);
        zlink_bytes_free(&sent.outbound.bytes);
    }
    if (r != 0) return -1;
    const json_value *want = json_get(step, "expect");
    return want != NULL ? expect_tag(run, want, tag, has_to, to, reason) : 0;
}

static int cancel_step(run_t *run, const json_value *step) {
    text name;
    if (str_of(run, step, "op", &name) != 0) return -1;
    const request_entry *req = NULL;
    for (size_t i = 0; i < run->requests.len; i++) {
        if (strcmp(run->requests.items[i].name, name.s) == 0) req = &run->requests.items[i];
    }
    if (req == NULL) return failf(run, "no request named \"%s\"", name.s);
    uint64_t rid;
    zlink_runtime *rt;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0) return -1;
    bool cancelled = false;
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_cancel(rt, req->correlation, &cancelled, &err), &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_cancel", &ce);
    if (cancelled) {
        /* zlink_cancel reports only that this was the terminal result: the
         * completion (the request's operation, Cancelled) is recorded here. */
        completed_entry c = {req->op, ZLINK_OUTCOME_CANCELLED, ZLINK_FAILURE_NONE,
                             ZLINK_UNAVAILABLE_REASON_NONE, NULL, NULL, 0};
        if (VEC_PUSH(run, run->completed, c) != 0) return -1;
    }
    bool w;
    if (json_bool(json_get(json_get(step, "expect"), "cancelled"), &w) && w != cancelled)
        return failf(run, "expected cancelled %s, got %s", w ? "true" : "false",
                     cancelled ? "true" : "false");
    return 0;
}

static int begin_relocation_step(run_t *run, const json_value *step) {
    uint64_t rid, target;
    zlink_runtime *rt, *target_rt;
    uint32_t kind;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || u64_of(run, step, "target", &target) != 0 ||
        node_of(run, target, &target_rt) != 0)
        return -1;
    (void)target_rt; /* its identity: routing ID `target`, node generation 1 */
    text state = payload_of(step, "state");
    if (node_of(run, rid, &rt) != 0 || kind_of(run, step, &kind) != 0 ||
        str_of(run, step, "id", &id) != 0)
        return -1;
    zlink_relocation_started started;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_begin_relocation(rt, kind, IDP(id), target, 1, NULL, 0,
                                (const uint8_t *)state.s, state.len, &started, &err),
         &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    int r = checked < 0 ? -1 : post_all(run, rid, started.frames.items, started.frames.count);
    zlink_outbound_list_free(&started.frames);
    return r;
}

static int abort_relocation_step(run_t *run, const json_value *step) {
    uint64_t rid;
    zlink_runtime *rt;
    uint32_t kind;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
        kind_of(run, step, &kind) != 0 || str_of(run, step, "id", &id) != 0)
        return -1;
    zlink_decision d;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_abort_relocation(rt, kind, IDP(id), &d, &err), &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    int r = checked < 0 ? -1 : relocation(run, rid, &d);
    zlink_decision_free(&d);
    return r;
}

static int bind_step(run_t *run, const json_value *step) {
    uint64_t rid, owner_rid, session;
    zlink_runtime *rt, *owner;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || str_of(run, step, "id", &id) != 0 ||
        u64_of(run, step, "owner", &owner_rid) != 0 || node_of(run, owner_rid, &owner) != 0)
        return -1;
    zlink_route_end end;
    bool found = false;
    zlink_error *err = NULL;
    call_error ce;
    if (take(zlink_owner_route_end(owner, ZLINK_OBJECT_KIND_ACTOR, IDP(id), &end, &found, &err),
             &err, &ce) != ZLINK_RESULT_OK)
        return fail_call(run, "zlink_owner_route_end", &ce);
    if (!found) return failf(run, "node %" PRIu64 " does not own \"%s\"", owner_rid, id.s);
    zlink_actor_route actor_ref = {
        .owner = end.node,
        .object_generation = end.fence.object_generation,
        .authority_owner_generation = end.fence.authority_owner_generation,
        .owner_lease_generation = end.fence.owner_lease_generation,
        .lease_remaining_ms = 0,
    };
    if (node_of(run, rid, &rt) != 0 || u64_of(run, step, "session", &session) != 0) return -1;
    zlink_outbound out;
    err = NULL;
    take(zlink_bind(rt, session, ZLINK_OBJECT_KIND_ACTOR, IDP(id), &actor_ref, &out, &err), &err,
         &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    int r = checked < 0 ? -1 : post(run, rid, &out);
    zlink_bytes_free(&out.bytes);
    return r;
}

static int session_send_step(run_t *run, const json_value *step) {
    uint64_t rid, session;
    zlink_runtime *rt;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || str_of(run, step, "id", &id) != 0 ||
        node_of(run, rid, &rt) != 0 || u64_of(run, step, "session", &session) != 0)
        return -1;
    text payload = payload_of(step, "payload");
    zlink_session_sent sent;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_session_send(rt, session, ZLINK_OBJECT_KIND_ACTOR, IDP(id), IDP(payload), &sent,
                            &err),
         &err, &ce);
    /* The Rust runner builds the Actor's key before the call: a bad ID fails
     * the step there, whatever the step expects. */
    if (ce.rc != ZLINK_RESULT_OK && ce.name != NULL &&
        (strcmp(ce.name, "EmptyObjectId") == 0 || strcmp(ce.name, "ObjectIdTooLong") == 0))
        return fail_call(run, "the Actor's key", &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    int r = checked < 0 ? -1 : 0;
    const char *tag = "?";
    bool has_op = false;
    switch (sent.tag) {
    case ZLINK_SESSION_SENT_TAG_SENT:
        tag = "Sent";
        has_op = true;
        if (r == 0) r = post(run, rid, &sent.outbound);
        break;
    case ZLINK_SESSION_SENT_TAG_HELD:
        tag = "Held";
        has_op = true;
        break;
    case ZLINK_SESSION_SENT_TAG_UNAVAILABLE: tag = "Unavailable"; break;
    }
    zlink_bytes_free(&sent.outbound.bytes);
    if (r != 0) return -1;
    const char *as = json_str(json_get(step, "as"));
    if (as != NULL && has_op && set_name(run, as, sent.operation_id) != 0) return -1;
    const json_value *want = json_get(step, "expect");
    return want != NULL ? expect_tag(run, want, tag, false, 0, NULL) : 0;
}

/* The Actor's owner pushes on the binding Session `session` (opened on node
 * `session_node`, lifecycle 1) holds, if it has one there. */
static int push_step(run_t *run, const json_value *step) {
    uint64_t rid, session, session_node;
    zlink_runtime *rt;
    text id;
    if (u64_of(run, step, "node", &rid) != 0 || str_of(run, step, "id", &id) != 0 ||
        node_of(run, rid, &rt) != 0 || u64_of(run, step, "session", &session) != 0 ||
        u64_of(run, step, "session_node", &session_node) != 0)
        return -1;
    zlink_session_ref ref = {.id = session, .generation = 1};
    snprintf(ref.owner.mesh, sizeof ref.owner.mesh, "%s", "scenario");
    ref.owner.rid = session_node;
    ref.owner.generation = 1;
    text payload = payload_of(step, "payload");
    zlink_outbound out;
    bool pushed = false;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_push(rt, ZLINK_OBJECT_KIND_ACTOR, IDP(id), &ref, IDP(payload), &out, &pushed, &err),
         &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    if (checked < 0) return -1;
    if (pushed) {
        int r = post(run, rid, &out);
        zlink_bytes_free(&out.bytes);
        if (r != 0) return -1;
    }
    bool w;
    if (json_bool(json_get(json_get(step, "expect"), "pushed"), &w) && w != pushed)
        return failf(run, "expected pushed %s, got %s", w ? "true" : "false",
                     pushed ? "true" : "false");
    return 0;
}

/* A step's `expect.removed`: how many cached routes its call removed. */
static int expect_removed(run_t *run, const json_value *step, size_t removed) {
    uint64_t w;
    const json_value *want = json_get(json_get(step, "expect"), "removed");
    if (want != NULL && json_u64(want, &w) && w != removed)
        return failf(run, "removed %zu, expected %" PRIu64, removed, w);
    return 0;
}

/* `owner_lease_invalidated` and `store_recovered`: the host reports what its
 * transport or its store saw. */
static int invalidation_step(run_t *run, const json_value *step, bool lease) {
    uint64_t rid, of = 0, gen = 0;
    zlink_runtime *rt;
    if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0) return -1;
    if (lease && (u64_of(run, step, "of", &of) != 0 || u64_of(run, step, "lease", &gen) != 0))
        return -1;
    size_t removed = 0;
    zlink_error *err = NULL;
    call_error ce;
    if (lease)
        take(zlink_on_owner_lease_invalidated(rt, of, gen, &removed, &err), &err, &ce);
    else
        take(zlink_on_store_recovery(rt, &removed, &err), &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK || checked < 0) return checked < 0 ? -1 : 0;
    return expect_removed(run, step, removed);
}

static int disconnect_step(run_t *run, const json_value *step) {
    uint64_t rid, session;
    zlink_runtime *rt;
    if (u64_of(run, step, "node", &rid) != 0) return -1;
    bool physical = true;
    json_bool(json_get(step, "physical"), &physical);
    if (node_of(run, rid, &rt) != 0 || u64_of(run, step, "session", &session) != 0) return -1;
    zlink_outbound_list frames;
    zlink_error *err = NULL;
    call_error ce;
    take(zlink_disconnect_session(rt, session, physical, &frames, &err), &err, &ce);
    int checked = check_error(run, step, &ce);
    if (ce.rc != ZLINK_RESULT_OK) return checked < 0 ? -1 : 0;
    int r = checked < 0 ? -1 : post_all(run, rid, frames.items, frames.count);
    zlink_outbound_list_free(&frames);
    return r;
}

static int run_step(run_t *run, const json_value *step) {
    text what_t;
    if (str_of(run, step, "do", &what_t) != 0) return -1;
    const char *what = what_t.s;
    zlink_error *err = NULL;
    call_error ce;
    if (strcmp(what, "activate") == 0 || strcmp(what, "create") == 0 ||
        strcmp(what, "publish_ready") == 0 || strcmp(what, "begin_release") == 0 ||
        strcmp(what, "complete_release") == 0 || strcmp(what, "release") == 0)
        return lifecycle_step(run, step, what);
    if (strcmp(what, "publish_descriptor") == 0) {
        uint64_t rid;
        zlink_runtime *rt;
        const char *endpoint, *ident;
        if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
            cstr_of(run, step, "endpoint", &endpoint) != 0 ||
            cstr_of(run, step, "identity", &ident) != 0)
            return -1;
        take(zlink_publish_descriptor(rt, endpoint, ident, NULL, &err), &err, &ce);
        return check_error(run, step, &ce) < 0 ? -1 : 0;
    }
    if (strcmp(what, "add_manual_peer") == 0) {
        uint64_t rid;
        zlink_runtime *rt;
        const char *endpoint;
        if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
            cstr_of(run, step, "endpoint", &endpoint) != 0)
            return -1;
        take(zlink_add_manual_peer(rt, endpoint, &err), &err, &ce);
        return check_error(run, step, &ce) < 0 ? -1 : 0;
    }
    if (strcmp(what, "ensure_manual_peer") == 0) return peer_step(run, step, false);
    if (strcmp(what, "peer_closed") == 0) return peer_step(run, step, true);
    if (strcmp(what, "peer_opened") == 0) {
        uint64_t rid, peer;
        zlink_runtime *rt;
        const char *endpoint;
        if (u64_of(run, step, "node", &rid) != 0 || node_of(run, rid, &rt) != 0 ||
            cstr_of(run, step, "endpoint", &endpoint) != 0 || u64_of(run, step, "rid", &peer) != 0)
            return -1;
        take(zlink_peer_opened(rt, endpoint, peer, &err), &err, &ce);
        return check_error(run, step, &ce) < 0 ? -1 : 0;
    }
    if (strcmp(what, "resolve") == 0) return resolve_step(run, step);
    if (strcmp(what, "lookup_cached") == 0) return lookup_cached_step(run, step);
    if (strcmp(what, "send") == 0) return send_step(run, step, false);
    if (strcmp(what, "request") == 0) return send_step(run, step, true);
    if (strcmp(what, "cancel") == 0) return cancel_step(run, step);
    if (strcmp(what, "carry") == 0) {
        for (uint64_t n = 0;; n++) {
            int r = step_frame(run);
            if (r < 0) return -1;
            if (r == 0) return 0;
            if (n + 1 > CARRY_LIMIT) return failf(run, "the network never went quiet");
        }
    }
    if (strcmp(what, "step") == 0) {
        uint64_t frames;
        if (u64_of(run, step, "frames", &frames) != 0) return -1;
        for (uint64_t i = 0; i < frames; i++) {
            int r = step_frame(run);
            if (r < 0) return -1;
            if (r == 0) break; /* nothing more in flight: the rest do nothing */
        }
        return 0;
    }
    if (strcmp(what, "rule") == 0) {
        const json_value *v;
        if ((v = json_get(step, "drop")) != NULL) run->drop_rule = matcher_of(v);
        if ((v = json_get(step, "hold")) != NULL) run->hold_rule = matcher_of(v);
        if ((v = json_get(step, "truncate")) != NULL) run->truncate_rule = matcher_of(v);
        if ((v = json_get(step, "corrupt_kind")) != NULL) run->corrupt_kind_rule = matcher_of(v);
        return 0;
    }
    if (strcmp(what, "release_held") == 0) {
        for (size_t i = 0; i < run->held_back.len; i++) {
            if (VEC_PUSH(run, run->network, run->held_back.items[i]) != 0) {
                /* the rest stay held (and are freed with the run) */
                memmove(run->held_back.items, run->held_back.items + i,
                        (run->held_back.len - i) * sizeof *run->held_back.items);
                run->held_back.len -= i;
                return -1;
            }
        }
        run->held_back.len = 0;
        return 0;
    }
    if (strcmp(what, "advance") == 0) {
        uint64_t ms;
        if (u64_of(run, step, "ms", &ms) != 0) return -1;
        if (take(zlink_manual_clock_advance(run->clock, ms, &err), &err, &ce) != ZLINK_RESULT_OK)
            return fail_call(run, "zlink_manual_clock_advance", &ce);
        for (uint64_t rid = 1; rid <= run->node_count; rid++) {
            if (due(run, rid) != 0) return -1;
        }
        return 0;
    }
    if (strcmp(what, "begin_relocation") == 0) return begin_relocation_step(run, step);
    if (strcmp(what, "abort_relocation") == 0) return abort_relocation_step(run, step);
    if (strcmp(what, "host") == 0) {
        json_bool(json_get(step, "reply"), &run->reply);
        const char *restore = json_str(json_get(step, "restore"));
        if (restore != NULL) run->restore = restore;
        return 0;
    }
    if (strcmp(what, "open_session") == 0) {
        uint64_t session, rid;
        zlink_runtime *rt;
        if (u64_of(run, step, "session", &session) != 0 || u64_of(run, step, "node", &rid) != 0 ||
            node_of(run, rid, &rt) != 0)
            return -1;
        if (take(zlink_open_session(rt, session, 1, NULL, &err), &err, &ce) != ZLINK_RESULT_OK)
            return fail_call(run, "zlink_open_session", &ce);
        return 0;
    }
    if (strcmp(what, "bind") == 0) return bind_step(run, step);
    if (strcmp(what, "session_send") == 0) return session_send_step(run, step);
    if (strcmp(what, "disconnect") == 0) return disconnect_step(run, step);
    if (strcmp(what, "push") == 0) return push_step(run, step);
    if (strcmp(what, "owner_lease_invalidated") == 0) return invalidation_step(run, step, true);
    if (strcmp(what, "store_recovered") == 0) return invalidation_step(run, step, false);
    if (strcmp(what, "expect") == 0) return expect_step(run, step);
    return failf(run, "unknown step \"%s\"", what);
}

/* ------------------------------------------------------------ a scenario */

/* The `build` step: whether nodes of this config start, and if not, under
 * which config rule. The C API validates a config where it starts a node
 * (zlink_runtime_new, the core's Runtime::builder().build()). */
static int build_step(const json_value *first, char *why, size_t why_len) {
    zlink_config config;
    config_of(json_get(first, "config"), &config);
    const char *want = expected_error(first);
    zlink_node_identity id = identity(1);
    zlink_runtime *rt = NULL;
    zlink_error *err = NULL;
    call_error ce;
    const char *got = NULL;
    if (take(zlink_runtime_new(&id, &config, NULL, NULL, &rt, &err), &err, &ce) ==
        ZLINK_RESULT_OK) {
        zlink_runtime_free(rt, NULL);
    } else if (ce.rc != ZLINK_RESULT_INVALID_CONFIG || ce.name == NULL) {
        char buf[768];
        snprintf(why, why_len, "step 1 (build): zlink_runtime_new: %s",
                 describe(&ce, buf, sizeof buf));
        return -1;
    } else {
        got = ce.name;
    }
    if ((got == NULL && want == NULL) || (got != NULL && want != NULL && strcmp(got, want) == 0))
        return 0;
    char g[64], w[64];
    snprintf(g, sizeof g, got ? "Some(\"%s\")" : "None", got ? got : "");
    snprintf(w, sizeof w, want ? "Some(\"%s\")" : "None", want ? want : "");
    snprintf(why, why_len, "step 1 (build): config error %s, expected %s", g, w);
    return -1;
}

/* Plays one scenario; on failure `why` names the step. */
static int play(const json_value *scenario, char *why, size_t why_len) {
    const json_value *steps = json_get(scenario, "steps");
    if (steps == NULL || steps->type != JSON_ARRAY) {
        snprintf(why, why_len, "no steps");
        return -1;
    }
    const json_value *first = json_at(steps, 0);
    const char *first_do = json_str(json_get(first, "do"));
    if (first_do != NULL && strcmp(first_do, "build") == 0) return build_step(first, why, why_len);
    run_t *run = malloc(sizeof *run);
    if (run == NULL) {
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    int r = run_new(run, scenario);
    if (r != 0) {
        snprintf(why, why_len, "%s", run->why);
    } else {
        for (size_t i = 0; i < steps->count; i++) {
            run->why[0] = '\0';
            if (run_step(run, steps->items[i]) != 0) {
                const char *what = json_str(json_get(steps->items[i], "do"));
                snprintf(why, why_len, "step %zu (%s): %s", i + 1, what ? what : "?",
                         run->why[0] ? run->why : "failed");
                r = -1;
                break;
            }
        }
    }
    run_free(run);
    free(run);
    return r;
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            char *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (b == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    if (buf != NULL && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SCENARIOS_DIR (testdata/scenarios)\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "%s: cannot open %s\n", LANGUAGE, dir);
        return 1;
    }
    char **files = NULL;
    size_t count = 0, cap = 0;
    int status = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        size_t n = strlen(entry->d_name);
        if (n <= 5 || strcmp(entry->d_name + n - 5, ".json") != 0) continue;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **f = realloc(files, ncap * sizeof *f);
            if (f == NULL) {
                status = 1;
                break;
            }
            files = f;
            cap = ncap;
        }
        files[count] = malloc(n + 1);
        if (files[count] == NULL) {
            status = 1;
            break;
        }
        memcpy(files[count++], entry->d_name, n + 1);
    }
    closedir(d);
    if (status != 0) {
        fprintf(stderr, "%s: out of memory\n", LANGUAGE);
    } else if (count > 0) {
        qsort(files, count, sizeof *files, by_name);
    }
    size_t passed = 0, failures = 0;
    for (size_t i = 0; status == 0 && i < count; i++) {
        size_t n = strlen(files[i]);
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)(n - 5), files[i]);
        size_t plen = strlen(dir) + 1 + n + 1;
        char *path = malloc(plen);
        char why[4096] = "";
        json_value *doc = NULL;
        int ok = 0;
        if (path == NULL) {
            snprintf(why, sizeof why, "out of memory");
            ok = -1;
        } else {
            snprintf(path, plen, "%s/%s", dir, files[i]);
            size_t len = 0;
            char *textbuf = read_file(path, &len);
            char jwhy[256];
            if (textbuf == NULL) {
                snprintf(why, sizeof why, "cannot read %s", path);
                ok = -1;
            } else if (json_parse(textbuf, len, &doc, jwhy, sizeof jwhy) != 0) {
                snprintf(why, sizeof why, "not JSON: %s", jwhy);
                ok = -1;
            }
            free(textbuf);
        }
        if (ok == 0) {
            const json_value *nv = json_get(doc, "name");
            char play_why[sizeof why - 64];
            int named = nv != NULL && nv->type == JSON_STRING && strlen(nv->string) == nv->len &&
                        strcmp(nv->string, name) == 0;
            int played = play(doc, play_why, sizeof play_why);
            if (!named && played != 0) {
                snprintf(why, sizeof why, "its \"name\" is not its file name; %s", play_why);
            } else if (!named) {
                snprintf(why, sizeof why, "its \"name\" is not its file name");
            } else if (played != 0) {
                snprintf(why, sizeof why, "%s", play_why);
            }
            ok = named && played == 0 ? 0 : -1;
        }
        json_free(doc);
        free(path);
        if (ok == 0) {
            passed++;
            printf("ok   %s\n", name);
        } else {
            failures++;
            printf("FAIL %s: %s: %s\n", LANGUAGE, name, why);
        }
        fflush(stdout);
    }
    for (size_t i = 0; i < count; i++) free(files[i]);
    free(files);
    if (status != 0) return 1;
    if (failures == 0) {
        printf("%zu scenarios passed\n", passed);
    } else {
        printf("%zu scenarios passed, %zu of %zu failed\n", passed, failures, count);
    }
    if (count < MIN_SCENARIOS) {
        printf("%s: only %zu scenarios in %s (at least %d expected)\n", LANGUAGE, count, dir,
               MIN_SCENARIOS);
        return 1;
    }
    return failures == 0 ? 0 : 1;
}
