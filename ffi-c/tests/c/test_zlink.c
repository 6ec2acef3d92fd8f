/*
 * C tests of libzlink through the installed header. Built with
 * -std=c11 -Wall -Wextra -Werror, linked once against libzlink.so and once
 * against libzlink.a, and run under valgrind by ffi-c/tests/run.sh.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlink.h>

#include "../check.h"

static int passed, failed;

static void run(const char *name, int (*test)(void)) {
    current = name;
    if (test() == 0) {
        passed++;
        printf("ok   %s\n", name);
    } else {
        failed++;
        printf("FAIL %s\n", name);
    }
}

/* Two or three nodes on one manual clock and one memory store. */
typedef struct {
    zlink_clock *clock;
    zlink_store *store;
    zlink_runtime *node[3];
} cluster;

static int cluster_new(cluster *c, int nodes) {
    memset(c, 0, sizeof *c);
    OK(zlink_clock_manual_new(&c->clock, NULL));
    OK(zlink_store_memory_new(c->clock, &c->store, NULL));
    for (int i = 0; i < nodes; i++) {
        zlink_node_identity id = {.mesh = "test-mesh",
                                  .rid = (uint64_t)i + 1,
                                  .generation = 1,
                                  .lease = (uint64_t)i + 1};
        OK(zlink_runtime_new(&id, NULL, c->store, c->clock, &c->node[i], NULL));
    }
    return 0;
}

static int cluster_free(cluster *c) {
    for (int i = 0; i < 3; i++) {
        OK(zlink_runtime_free(c->node[i], NULL));
    }
    OK(zlink_store_free(c->store, NULL));
    OK(zlink_clock_free(c->clock, NULL));
    return 0;
}

#define ACTOR ZLINK_OBJECT_KIND_ACTOR

/* Decisions other than SEND that carrying some frames produced, in order. */
typedef struct {
    zlink_decision events[32];
    int count;
} trace;

static void trace_free(trace *t) {
    for (int i = 0; i < t->count; i++) zlink_decision_free(&t->events[i]);
    t->count = 0;
}

/* The first RELOCATION decision of `t` with `event`, or NULL. */
static const zlink_decision *find_event(const trace *t, uint32_t event) {
    for (int i = 0; i < t->count; i++) {
        if (event_of(&t->events[i]) == event) return &t->events[i];
    }
    return NULL;
}

typedef struct {
    uint64_t from;
    uint64_t to;
    uint8_t *data;
    size_t len;
} frame_copy;

typedef struct {
    frame_copy q[64];
    size_t head, n;
} frame_queue;

static int enqueue(frame_queue *q, uint64_t from, const zlink_outbound *frames, size_t count) {
    for (size_t i = 0; i < count; i++) {
        CHECK(q->n < 64);
        CHECK(frames[i].sender.rid == from); /* a frame names the node that made it */
        frame_copy *f = &q->q[q->n++];
        f->from = from;
        f->to = frames[i].to.rid;
        f->len = frames[i].bytes.len;
        f->data = malloc(f->len);
        CHECK(f->data != NULL);
        memcpy(f->data, frames[i].bytes.data, f->len);
    }
    return 0;
}

static void queue_free(frame_queue *q) {
    while (q->head < q->n) free(q->q[q->head++].data);
}

/* Carries frames sent by node `from` (a rid) to their nodes (rid n is
 * node[n - 1]) until none is left: the frames of SEND and RELOCATION
 * decisions are carried on; every decision but SEND is kept in `t`. With
 * `restore`, a node given a RESTORE restores at once. A frame arrives on
 * the receiver's connection to its sender. */
static int carry_ex(cluster *c, uint64_t from, const zlink_outbound *frames, size_t count,
                    trace *t, bool restore) {
    frame_queue queue;
    frame_queue *q = &queue;
    memset(q, 0, sizeof *q);
    int rc = enqueue(q, from, frames, count);
    while (rc == 0 && q->head < q->n) {
        frame_copy f = q->q[q->head++];
        zlink_runtime *rt = f.to >= 1 && f.to <= 3 ? c->node[f.to - 1] : NULL;
        zlink_decision d;
        if (rt == NULL ||
            zlink_on_frame(rt, f.from, f.data, f.len, &d, NULL) != ZLINK_RESULT_OK) {
            fprintf(stderr, "  FAIL in %s: frame for node %llu not taken\n", current,
                    (unsigned long long)f.to);
            free(f.data);
            rc = 1;
            break;
        }
        free(f.data);
        if (event_of(&d) == ZLINK_RELOCATION_EVENT_COMMIT_DUE) {
            /* A host re-reads the deadline after every frame: the owner CAS
             * the cutover made due runs on the timer surface, now. */
            zlink_decision_free(&d);
            uint64_t now = 0;
            zlink_decision_list due;
            if (zlink_now(rt, &now, NULL) != ZLINK_RESULT_OK ||
                zlink_on_timeout(rt, now, &due, NULL) != ZLINK_RESULT_OK) {
                rc = 1;
                break;
            }
            for (size_t i = 0; rc == 0 && i < due.count; i++) {
                zlink_decision *x = &due.items[i];
                if (x->tag == ZLINK_DECISION_SEND || x->tag == ZLINK_DECISION_RELOCATION) {
                    size_t n = 0;
                    const zlink_outbound *frames = frames_of(x, &n);
                    rc = enqueue(q, f.to, frames, n);
                }
                if (rc == 0 && x->tag != ZLINK_DECISION_SEND && t->count < 32) {
                    t->events[t->count++] = *x; /* moved out of the list */
                    memset(x, 0, sizeof *x);
                }
            }
            zlink_decision_list_free(&due);
            continue;
        }
        if (d.tag == ZLINK_DECISION_SEND || d.tag == ZLINK_DECISION_RELOCATION) {
            size_t n = 0;
            const zlink_outbound *frames = frames_of(&d, &n);
            rc = enqueue(q, f.to, frames, n);
        }
        if (rc == 0 && restore && event_of(&d) == ZLINK_RELOCATION_EVENT_RESTORE) {
            zlink_outbound_list ready;
            const zlink_relocation_identity *moved = identity_of(&d);
            if (zlink_relocation_restored(rt, moved->kind, moved->id.data, moved->id.len, &ready,
                                          NULL) != ZLINK_RESULT_OK) {
                rc = 1;
            } else {
                rc = enqueue(q, f.to, ready.items, ready.count);
                zlink_outbound_list_free(&ready);
            }
        }
        if (d.tag == ZLINK_DECISION_SEND) {
            zlink_decision_free(&d);
        } else if (d.tag == ZLINK_DECISION_DROPPED || d.tag == ZLINK_DECISION_REJECT ||
                   t->count >= 32) {
            fprintf(stderr, "  FAIL in %s: decision kind %u while carrying\n", current, d.tag);
            zlink_decision_free(&d);
            rc = 1;
        } else {
            t->events[t->count++] = d;
        }
    }
    queue_free(q);
    return rc;
}

static int carry(cluster *c, uint64_t from, const zlink_outbound *frames, size_t count,
                 trace *t) {
    return carry_ex(c, from, frames, count, t, false);
}

static int carry_list(cluster *c, uint64_t from, zlink_outbound_list *list, trace *t) {
    int rc = carry(c, from, list->items, list->count, t);
    zlink_outbound_list_free(list);
    zlink_outbound_list_free(list); /* a second free is a no-op */
    return rc;
}

/* Runs `rt`'s timers due on its clock now: the one timer surface. */
static int on_timeout(zlink_runtime *rt, zlink_decision_list *out) {
    uint64_t now = 0;
    OK(zlink_now(rt, &now, NULL));
    OK(zlink_on_timeout(rt, now, out, NULL));
    return 0;
}

/* Moves Actor `id` from node[from] to node[to] with nothing saved: the whole
 * handoff, every frame carried, the target restoring at once. */
static int move_actor(cluster *c, int from, int to, const char *id) {
    zlink_relocation_started started;
    OK(zlink_begin_relocation(c->node[from], ACTOR, ID(id), (uint64_t)to + 1, 1, NULL, 0, NULL,
                              0, &started, NULL));
    CHECK(started.relocation != 0 && started.frames.count >= 1);
    CHECK(started.frames.items[0].to.rid == (uint64_t)to + 1);
    trace t = {0};
    int rc = carry_ex(c, (uint64_t)from + 1, started.frames.items, started.frames.count, &t, true);
    zlink_outbound_list_free(&started.frames);
    const zlink_decision *committed = find_event(&t, ZLINK_RELOCATION_EVENT_COMMITTED);
    const zlink_decision *handed = find_event(&t, ZLINK_RELOCATION_EVENT_HANDED_OFF);
    int ok = rc == 0 && committed && handed &&
             identity_of(committed)->relocation == started.relocation &&
             identity_of(handed)->relocation == started.relocation &&
             handed->relocation.event.handed_off.target_rid == (uint64_t)to + 1 &&
             committed->relocation.event.committed.source_rid == (uint64_t)from + 1;
    trace_free(&t);
    CHECK(ok);
    return 0;
}

static int test_version_macros_match_the_library(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", ZLINK_VERSION_MAJOR, ZLINK_VERSION_MINOR,
             ZLINK_VERSION_PATCH);
    CHECK(strcmp(zlink_version(), want) == 0);
    CHECK(strcmp(zlink_result_text(ZLINK_RESULT_OK), "ok") == 0);
    CHECK(strcmp(zlink_result_text(9999), "unknown zlink_result code") == 0);
    CHECK(ZLINK_RESULT_INVALID_HANDLE == 2 && ZLINK_RESULT_PANIC == 15);
    CHECK(ZLINK_RESULT_UNKNOWN_SESSION == 16 && ZLINK_RESULT_NOT_BOUND == 19);
    CHECK(ZLINK_RESULT_ALREADY_RELOCATING == 21 && ZLINK_RESULT_RELOCATION_REFUSED == 25);
    CHECK(ZLINK_DECISION_HELD == 20 && ZLINK_DECISION_RELOCATION == 21);
    CHECK(zlink_abi_version() == ZLINK_ABI_VERSION && ZLINK_ABI_VERSION == 2);
    CHECK(strcmp(zlink_result_text(ZLINK_RESULT_STATE_TOO_LARGE),
                 "the relocation state is over its bound") == 0);
    return 0;
}

/* Whether `text` holds `line` as a whole line. */
static bool has_line(zlink_bytes text, const char *line) {
    size_t n = strlen(line);
    for (size_t at = 0; at + n <= text.len;) {
        const uint8_t *end = memchr(text.data + at, '\n', text.len - at);
        size_t len = end ? (size_t)(end - (text.data + at)) : text.len - at;
        if (len == n && memcmp(text.data + at, line, n) == 0) return true;
        at += len + 1;
    }
    return false;
}

static int test_resolve_cold_then_warm(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    zlink_owned owned;
    OK(zlink_activate(c.node[0], ZLINK_OBJECT_KIND_ACTOR, ID("player-1"), &owned, NULL));
    CHECK(owned.state == ZLINK_AUTHORITY_STATE_READY);

    zlink_ready_route cached;
    bool found = true;
    OK(zlink_lookup_cached(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("player-1"), &cached,
                           &found, NULL));
    CHECK(!found);

    zlink_resolution cold, warm;
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("player-1"), &cold, NULL));
    CHECK(cold.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE);
    CHECK(strcmp(cold.route.mesh, "test-mesh") == 0);
    CHECK(cold.route.node_rid == 1);
    CHECK(cold.route.fence.object_generation == owned.fence.object_generation);
    CHECK(cold.route.fence.store_version == owned.store_version);
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("player-1"), &warm, NULL));
    CHECK(memcmp(&cold.route, &warm.route, sizeof cold.route) == 0);
    OK(zlink_lookup_cached(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("player-1"), &cached,
                           &found, NULL));
    CHECK(found && cached.node_rid == 1);

    zlink_stats s;
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.cache_misses == 1 && s.store_reads == 1);
    CHECK(s.cache_hits == 2 && s.cache_entries == 1);
    CHECK(s.resolutions_ready_route == 3);

    /* The same counters, and the store latency, as a scrape reads them. */
    zlink_bytes text;
    OK(zlink_metrics_text(c.node[1], &text, NULL));
    CHECK(has_line(text, "zlink_cache_hits_total 2"));
    CHECK(has_line(text, "zlink_store_read_duration_seconds_count 1"));
    CHECK(has_line(text, "zlink_resolutions_total{result=\"ready_route\"} 3"));
    zlink_bytes_free(&text);
    OK(zlink_metrics_text(c.node[0], &text, NULL));
    CHECK(has_line(text, "zlink_store_write_duration_seconds_count 2"));
    zlink_bytes_free(&text);

    zlink_resolution missing;
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("nobody"), &missing, NULL));
    CHECK(missing.tag == ZLINK_RESOLUTION_TAG_MISSING);

    /* The owner lease of node 1 ends: its routes go, records resolve Unavailable. */
    size_t removed = 0;
    OK(zlink_on_owner_lease_invalidated(c.node[1], 1, 1, &removed, NULL));
    CHECK(removed == 1);
    zlink_resolution gone;
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("player-1"), &gone, NULL));
    CHECK(gone.tag == ZLINK_RESOLUTION_TAG_UNAVAILABLE);
    CHECK(gone.reason == ZLINK_UNAVAILABLE_REASON_OWNER_NOT_LIVE);
    OK(zlink_on_store_recovery(c.node[1], &removed, NULL));
    return cluster_free(&c);
}

static int test_lease_expiry_on_the_manual_clock(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ZLINK_OBJECT_KIND_SPOT, ID("room-1"), NULL, NULL));
    OK(zlink_manual_clock_advance(c.clock, 31000, NULL));
    zlink_resolution r;
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("room-1"), &r, NULL));
    CHECK(r.tag == ZLINK_RESOLUTION_TAG_UNAVAILABLE);
    CHECK(r.reason == ZLINK_UNAVAILABLE_REASON_LEASE_EXPIRED);
    return cluster_free(&c);
}

/* Node 1 owns the actor, node 2 has its route cached, node 3 takes it over
 * by the relocation handoff. */
static int relocate(cluster *c, const char *id) {
    zlink_owned source;
    OK(zlink_activate(c->node[0], ACTOR, ID(id), &source, NULL));
    zlink_resolution r;
    OK(zlink_resolve(c->node[1], ACTOR, ID(id), &r, NULL));
    CHECK(r.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE && r.route.node_rid == 1);
    if (move_actor(c, 0, 2, id)) return 1;
    zlink_route_end end;
    bool found = true;
    OK(zlink_owner_route_end(c->node[0], ACTOR, ID(id), &end, &found, NULL));
    CHECK(!found);
    OK(zlink_owner_route_end(c->node[2], ACTOR, ID(id), &end, &found, NULL));
    CHECK(found && end.node.rid == 3);
    CHECK(end.fence.object_generation == source.fence.object_generation);
    CHECK(end.fence.authority_owner_generation == source.fence.authority_owner_generation + 1);
    /* What each node owns follows the move. */
    zlink_owned owned;
    uint64_t count = 9;
    OK(zlink_owned_get(c->node[0], ACTOR, ID(id), &owned, &found, NULL));
    CHECK(!found);
    OK(zlink_owned_count(c->node[0], &count, NULL));
    CHECK(count == 0);
    OK(zlink_owned_get(c->node[2], ACTOR, ID(id), &owned, &found, NULL));
    CHECK(found && owned.fence.authority_owner_generation == end.fence.authority_owner_generation);
    OK(zlink_owned_count(c->node[2], &count, NULL));
    CHECK(count == 1);
    return 0;
}

static int test_relocation_with_a_stale_route_is_rejected_then_refreshed(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    /* Without a Message Follow route, node 1 refuses what still comes. */
    zlink_config config;
    OK(zlink_config_get(c.node[0], &config, NULL));
    config.message_follow_duration_ms = 0;
    OK(zlink_update_config(c.node[0], &config, NULL));
    if (relocate(&c, "actor-7")) return 1;

    /* Node 2 still routes to node 1. */
    zlink_sent sent;
    OK(zlink_send(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("actor-7"), ID("hi"), NULL, &sent,
                  NULL));
    CHECK(sent.tag == ZLINK_SENT_TAG_SUBMITTED && sent.outbound.to.rid == 1);
    CHECK(sent.outbound.sender.rid == 2 && sent.outbound.command == ZLINK_FRAME_COMMAND_MESSAGE);

    zlink_decision at_old;
    OK(zlink_on_frame(c.node[0], 2, sent.outbound.bytes.data, sent.outbound.bytes.len, &at_old,
                      NULL));
    zlink_bytes_free(&sent.outbound.bytes);
    zlink_bytes_free(&sent.outbound.bytes); /* a second free is a no-op */
    CHECK(at_old.tag == ZLINK_DECISION_REJECT && at_old.reject.outbound.to.rid == 2);

    zlink_decision back;
    const zlink_bytes *refusal = &at_old.reject.outbound.bytes;
    OK(zlink_on_frame(c.node[1], 1, refusal->data, refusal->len, &back, NULL));
    zlink_decision_free(&at_old);
    zlink_decision_free(&at_old);
    CHECK(at_old.tag == 0); /* freed */
    CHECK(back.tag == ZLINK_DECISION_ENDED);
    CHECK(back.ended.failure == ZLINK_FAILURE_UNAVAILABLE);
    CHECK(back.ended.has_reason && back.ended.reason == ZLINK_UNAVAILABLE_REASON_STALE_ROUTE);
    CHECK(back.ended.kind == ACTOR && BYTES_EQ(back.ended.id, "actor-7"));
    zlink_decision_free(&back);

    zlink_resolution fresh;
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("actor-7"), &fresh, NULL));
    CHECK(fresh.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE && fresh.route.node_rid == 3);
    zlink_stats s;
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.invalidations_stale_route == 1);
    return cluster_free(&c);
}

static int test_relocation_with_message_follow_relays_and_notifies(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    if (relocate(&c, "actor-8")) return 1;

    zlink_sent sent;
    OK(zlink_send(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("actor-8"), ID("move"), NULL, &sent,
                  NULL));
    CHECK(sent.outbound.to.rid == 1);
    zlink_decision relay;
    OK(zlink_on_frame(c.node[0], 2, sent.outbound.bytes.data, sent.outbound.bytes.len, &relay,
                      NULL));
    zlink_bytes_free(&sent.outbound.bytes);
    CHECK(relay.tag == ZLINK_DECISION_RELAY && relay.relay.notice != NULL);
    const zlink_outbound *forward = &relay.relay.forward, *notice = &relay.relay.notice->outbound;
    CHECK(forward->to.rid == 3 && notice->to.rid == 2);

    zlink_decision delivered, refreshed;
    OK(zlink_on_frame(c.node[2], 1, forward->bytes.data, forward->bytes.len, &delivered, NULL));
    CHECK(delivered.tag == ZLINK_DECISION_DELIVER);
    const zlink_operation *op = &delivered.deliver.operation;
    CHECK(STR_EQ(op->payload, "move") && STR_EQ(op->id, "actor-8") && op->kind == ACTOR);
    CHECK(op->operation_id == sent.operation_id && !op->is_request);
    zlink_outbound reply;
    CHECK_RC(zlink_reply(c.node[2], &delivered, ID("x"), &reply, NULL),
             ZLINK_RESULT_NO_REPLY_ROUTE);
    OK(zlink_on_frame(c.node[1], 1, notice->bytes.data, notice->bytes.len, &refreshed, NULL));
    CHECK(refreshed.tag == ZLINK_DECISION_ROUTE_REFRESHED && refreshed.route_refreshed.invalidated);
    OK(zlink_notice_settled(c.node[0], &relay, true, NULL));
    CHECK_RC(zlink_notice_settled(c.node[0], &delivered, true, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    zlink_decision_free(&relay);
    zlink_decision_free(&delivered);
    zlink_decision_free(&refreshed);

    zlink_stats s;
    OK(zlink_stats_get(c.node[0], &s, NULL));
    CHECK(s.relays == 1 && s.notifications_sent == 1);
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.invalidations_relay_notification == 1);
    return cluster_free(&c);
}

static int test_request_reply_completes_once(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ZLINK_OBJECT_KIND_ACTOR, ID("echo"), NULL, NULL));
    zlink_sent req;
    OK(zlink_request(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("echo"), ID("ping"), NULL, &req,
                     NULL));
    CHECK(req.tag == ZLINK_SENT_TAG_SUBMITTED && req.correlation != 0);
    zlink_decision at_owner;
    OK(zlink_on_frame(c.node[0], 2, req.outbound.bytes.data, req.outbound.bytes.len, &at_owner,
                      NULL));
    zlink_bytes_free(&req.outbound.bytes);
    CHECK(at_owner.tag == ZLINK_DECISION_DELIVER && at_owner.deliver.operation.is_request);
    zlink_outbound reply;
    OK(zlink_reply(c.node[0], &at_owner, ID("pong"), &reply, NULL));
    zlink_decision_free(&at_owner);
    CHECK_RC(zlink_reply(c.node[0], &at_owner, ID("pong"), &reply, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT); /* freed */
    CHECK(reply.to.rid == 2);
    zlink_decision done, late;
    OK(zlink_on_frame(c.node[1], 1, reply.bytes.data, reply.bytes.len, &done, NULL));
    CHECK(done.tag == ZLINK_DECISION_COMPLETED);
    const zlink_completion *completion = &done.completed.completion;
    CHECK(completion->correlation == req.correlation && BYTES_EQ(completion->id, "echo"));
    CHECK(completion->outcome.tag == ZLINK_OUTCOME_REPLY);
    CHECK(BYTES_EQ(completion->outcome.reply.payload, "pong"));
    CHECK(completion->origin == NULL && !completion->origin_gone);
    OK(zlink_on_frame(c.node[1], 1, reply.bytes.data, reply.bytes.len, &late, NULL));
    CHECK(late.tag == ZLINK_DECISION_LATE && late.late.correlation == req.correlation);
    bool cancelled = true;
    OK(zlink_cancel(c.node[1], req.correlation, &cancelled, NULL));
    CHECK(!cancelled);
    zlink_bytes_free(&reply.bytes);
    zlink_decision_free(&done);
    zlink_decision_free(&late);
    return cluster_free(&c);
}

typedef struct {
    atomic_int calls;
    zlink_result result;
    zlink_resolution resolution;
    pthread_t thread;
} async_box;

static void on_resolved(void *userdata, zlink_result result, const zlink_resolution *r) {
    async_box *box = userdata;
    box->result = result;
    box->resolution = *r;
    box->thread = pthread_self();
    atomic_fetch_add(&box->calls, 1);
}

static int wait_for(async_box *box) {
    struct timespec tick = {0, 1000000};
    for (int i = 0; i < 10000 && atomic_load(&box->calls) == 0; i++) {
        nanosleep(&tick, NULL);
    }
    return atomic_load(&box->calls);
}

static int test_async_resolve_calls_back_on_a_runtime_thread(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ZLINK_OBJECT_KIND_SPOT, ID("lobby"), NULL, NULL));
    async_box cold = {0}, warm = {0}, missing = {0};
    OK(zlink_resolve_async(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("lobby"), on_resolved, &cold,
                           NULL));
    CHECK(wait_for(&cold) == 1);
    CHECK(cold.result == ZLINK_RESULT_OK);
    CHECK(cold.resolution.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE);
    CHECK(!pthread_equal(cold.thread, pthread_self()));
    OK(zlink_resolve_async(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("lobby"), on_resolved, &warm,
                           NULL));
    CHECK(wait_for(&warm) == 1);
    CHECK(memcmp(&warm.resolution.route, &cold.resolution.route, sizeof warm.resolution.route) == 0);
    /* Pending at free: the callback still runs, before free returns. */
    OK(zlink_resolve_async(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("none"), on_resolved,
                           &missing, NULL));
    CHECK_RC(zlink_resolve_async(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("none"), NULL, NULL,
                                 NULL),
             ZLINK_RESULT_NULL_POINTER);
    if (cluster_free(&c)) return 1;
    CHECK(atomic_load(&missing.calls) == 1);
    CHECK(missing.resolution.tag == ZLINK_RESOLUTION_TAG_MISSING);
    return 0;
}

static int test_bad_input_of_every_kind_is_an_error_code(void) {
    cluster c;
    if (cluster_new(&c, 1)) return 1;
    zlink_runtime *rt = c.node[0];
    zlink_resolution r;
    memset(&r, 0x5a, sizeof r);
    zlink_resolution untouched = r;

    /* NULL pointers. */
    CHECK_RC(zlink_resolve(NULL, ZLINK_OBJECT_KIND_ACTOR, ID("a"), &r, NULL),
             ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, NULL, 3, &r, NULL),
             ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, ID("a"), NULL, NULL),
             ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_runtime_new(NULL, NULL, NULL, NULL, &rt, NULL), ZLINK_RESULT_NULL_POINTER);
    CHECK(rt == c.node[0]); /* out-params untouched on failure */

    /* Invalid UTF-8, in an ID and in a mesh name. */
    zlink_error *err = NULL;
    const uint8_t bad[] = {'a', 0xff, 'b'};
    CHECK_RC(zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, bad, sizeof bad, &r, &err),
             ZLINK_RESULT_INVALID_UTF8);
    CHECK(err != NULL && zlink_error_code(err) == ZLINK_RESULT_INVALID_UTF8);
    CHECK(strstr(zlink_error_message(err), "object id") != NULL);
    zlink_error_free(err);
    zlink_runtime *other = NULL;
    zlink_node_identity bad_mesh = {.mesh = "m\xc3", .rid = 9, .generation = 1, .lease = 9};
    CHECK_RC(zlink_runtime_new(&bad_mesh, NULL, NULL, NULL, &other, NULL),
             ZLINK_RESULT_INVALID_UTF8);

    /* Over-long inputs: ID over the configured cap, over the absolute cap, mesh name. */
    char *long_id = malloc(70000);
    CHECK(long_id != NULL);
    memset(long_id, 'x', 70000);
    err = NULL;
    CHECK_RC(zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)long_id, 1025, &r,
                           &err),
             ZLINK_RESULT_TOO_LONG);
    CHECK(strstr(zlink_error_message(err), "1024") != NULL);
    zlink_error_free(err);
    CHECK_RC(zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)long_id, 70000, &r,
                           NULL),
             ZLINK_RESULT_TOO_LONG);
    free(long_id);
    zlink_node_identity long_mesh = {.mesh = "a-mesh-name-longer-than-23-bytes", .rid = 9};
    CHECK_RC(zlink_runtime_new(&long_mesh, NULL, NULL, NULL, &other, NULL),
             ZLINK_RESULT_TOO_LONG);

    /* Malformed: empty ID, unknown kind, instance intent on an Actor, bad config. */
    CHECK_RC(zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)"", 0, &r, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK_RC(zlink_resolve(rt, 7, ID("a"), &r, NULL), ZLINK_RESULT_INVALID_ARGUMENT);
    zlink_send_options intent = {.instance_intent = true, .deadline_ms = 100, .timeout_ms = 1};
    zlink_sent sent;
    CHECK_RC(zlink_send(rt, ZLINK_OBJECT_KIND_ACTOR, ID("a"), NULL, 0, &intent, &sent, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    zlink_config config;
    OK(zlink_config_default(&config, NULL));
    CHECK(config.route_cache_max_age_ms == 15000 && config.max_follow_hops == 8);
    config.route_cache_max_age_ms = 28000; /* must stay 5 s under follow (30 s) */
    zlink_node_identity ok_id = {.mesh = "m", .rid = 9, .generation = 1, .lease = 9};
    err = NULL;
    CHECK_RC(zlink_runtime_new(&ok_id, &config, NULL, NULL, &other, &err),
             ZLINK_RESULT_INVALID_CONFIG);
    CHECK(strstr(zlink_error_message(err), "route_cache_max_age") != NULL);
    zlink_error_free(err);
    CHECK(other == NULL);
    zlink_clock *system = NULL;
    OK(zlink_clock_system_new(&system, NULL));
    CHECK_RC(zlink_manual_clock_advance(system, 5, NULL), ZLINK_RESULT_INVALID_ARGUMENT);

    /* Handles: wrong type, foreign pointer, freed. */
    CHECK_RC(zlink_resolve((const zlink_runtime *)c.store, ZLINK_OBJECT_KIND_ACTOR, ID("a"),
                           &r, NULL),
             ZLINK_RESULT_INVALID_HANDLE);
    CHECK_RC(zlink_manual_clock_advance((const zlink_clock *)rt, 5, NULL),
             ZLINK_RESULT_INVALID_HANDLE);
    long local = 42;
    CHECK_RC(zlink_resolve((const zlink_runtime *)&local, ZLINK_OBJECT_KIND_ACTOR, ID("a"),
                           &r, NULL),
             ZLINK_RESULT_INVALID_HANDLE);
    CHECK_RC(zlink_resolve((const zlink_runtime *)(uintptr_t)0x13, ZLINK_OBJECT_KIND_ACTOR,
                           ID("a"), &r, NULL),
             ZLINK_RESULT_INVALID_HANDLE);
    CHECK(memcmp(&r, &untouched, sizeof r) == 0);

    OK(zlink_clock_free(system, NULL));
    CHECK_RC(zlink_manual_clock_advance(system, 5, NULL), ZLINK_RESULT_INVALID_HANDLE);
    CHECK_RC(zlink_clock_free(system, NULL), ZLINK_RESULT_INVALID_HANDLE);

    OK(zlink_runtime_new(&ok_id, NULL, NULL, NULL, &other, NULL));
    OK(zlink_runtime_free(other, NULL));
    err = NULL;
    CHECK_RC(zlink_resolve(other, ZLINK_OBJECT_KIND_ACTOR, ID("a"), &r, &err),
             ZLINK_RESULT_INVALID_HANDLE);
    CHECK(strstr(zlink_error_message(err), "freed") != NULL);
    zlink_error_free(err);
    CHECK_RC(zlink_runtime_free(other, NULL), ZLINK_RESULT_INVALID_HANDLE);
    /* A new runtime may reuse the slot: the old handle stays dead. */
    zlink_runtime *reused = NULL;
    OK(zlink_runtime_new(&ok_id, NULL, NULL, NULL, &reused, NULL));
    CHECK(reused != other);
    CHECK_RC(zlink_stats_get(other, &(zlink_stats){0}, NULL), ZLINK_RESULT_INVALID_HANDLE);
    OK(zlink_runtime_free(reused, NULL));
    CHECK(memcmp(&r, &untouched, sizeof r) == 0);

    /* Garbage frames are decisions, not errors. */
    zlink_decision d;
    OK(zlink_on_frame(rt, 1, (const uint8_t *)"garbage", 7, &d, NULL));
    CHECK(d.tag == ZLINK_DECISION_DROPPED && d.dropped.kind == ZLINK_WIRE_ERROR_KIND_BAD_MAGIC);
    CHECK(d.dropped.error.len > 0);
    zlink_decision_free(&d);
    OK(zlink_on_frame(rt, 1, NULL, 0, &d, NULL));
    CHECK(d.tag == ZLINK_DECISION_DROPPED && d.dropped.kind == ZLINK_WIRE_ERROR_KIND_TRUNCATED);
    zlink_decision_free(&d);
    CHECK_RC(zlink_on_frame(rt, 1, NULL, 5, &d, NULL), ZLINK_RESULT_NULL_POINTER);

    zlink_error_free(NULL);
    zlink_bytes_free(NULL);
    zlink_decision_free(NULL);
    zlink_decision zeroed = {0};
    zlink_decision_free(&zeroed);
    CHECK(zlink_error_message(NULL) == NULL);
    OK(zlink_runtime_free(NULL, NULL));
    return cluster_free(&c);
}

/* A frame carried on another node's connection than its sender's is
 * refused, counted, and changes nothing. */
static int test_a_frame_on_another_nodes_connection_is_refused(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    OK(zlink_activate(c.node[0], ZLINK_OBJECT_KIND_ACTOR, ID("echo"), NULL, NULL));
    zlink_sent req;
    OK(zlink_request(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("echo"), ID("ping"), NULL, &req,
                     NULL));
    uint64_t pending = 0;
    OK(zlink_pending_requests(c.node[1], &pending, NULL));
    CHECK(pending == 1);
    zlink_decision d;
    OK(zlink_on_frame(c.node[0], 3, req.outbound.bytes.data, req.outbound.bytes.len, &d, NULL));
    CHECK(d.tag == ZLINK_DECISION_FOREIGN_SENDER && d.foreign_sender.connection == 3);
    CHECK(d.foreign_sender.has_claimed && d.foreign_sender.claimed == 2);
    zlink_decision_free(&d);
    OK(zlink_on_frame(c.node[0], 2, req.outbound.bytes.data, req.outbound.bytes.len, &d, NULL));
    zlink_bytes_free(&req.outbound.bytes);
    CHECK(d.tag == ZLINK_DECISION_DELIVER);
    zlink_outbound reply;
    OK(zlink_reply(c.node[0], &d, ID("pong"), &reply, NULL));
    zlink_decision_free(&d);
    /* A reply forged on node 3's connection does not end the request. */
    OK(zlink_on_frame(c.node[1], 3, reply.bytes.data, reply.bytes.len, &d, NULL));
    CHECK(d.tag == ZLINK_DECISION_FOREIGN_SENDER);
    zlink_decision_free(&d);
    OK(zlink_on_frame(c.node[1], 1, reply.bytes.data, reply.bytes.len, &d, NULL));
    CHECK(d.tag == ZLINK_DECISION_COMPLETED && d.completed.completion.correlation == req.correlation);
    zlink_decision_free(&d);
    zlink_bytes_free(&reply.bytes);
    zlink_stats s;
    OK(zlink_stats_get(c.node[0], &s, NULL));
    CHECK(s.frames_foreign_sender == 1 && s.delivered == 1);
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.frames_foreign_sender == 1 && s.table_pending_requests == 0);
    OK(zlink_pending_requests(c.node[1], &pending, NULL));
    CHECK(pending == 0);
    return cluster_free(&c);
}

/* ---------------------------------------------------------------- sessions */

/* The ActorRef of `id` as its owner node[owner] hands it out. */
static int actor_ref(cluster *c, int owner, const char *id, zlink_actor_route *out) {
    zlink_route_end end;
    bool found = false;
    OK(zlink_owner_route_end(c->node[owner], ACTOR, ID(id), &end, &found, NULL));
    CHECK(found);
    out->owner = end.node;
    out->object_generation = end.fence.object_generation;
    out->authority_owner_generation = end.fence.authority_owner_generation;
    out->owner_lease_generation = end.fence.owner_lease_generation;
    out->lease_remaining_ms = 0;
    return 0;
}

/* node[0] binds Session `session` to `id` owned by node[owner]. */
static int bind_actor(cluster *c, uint64_t session, const char *id, int owner) {
    zlink_actor_route ref;
    if (actor_ref(c, owner, id, &ref)) return 1;
    zlink_outbound bind;
    OK(zlink_bind(c->node[0], session, ACTOR, ID(id), &ref, &bind, NULL));
    CHECK(bind.to.rid == (uint64_t)owner + 1);
    trace t = {0};
    int rc = carry(c, 1, &bind, 1, &t);
    zlink_bytes_free(&bind.bytes);
    if (rc) return 1;
    CHECK(t.count == 1 && t.events[0].tag == ZLINK_DECISION_BOUND);
    const zlink_bound *bound = &t.events[0].bound;
    CHECK(bound->session.id == session && bound->session.owner.rid == 1);
    CHECK(BYTES_EQ(bound->actor, id) && BYTES_EQ(bound->route.actor, id));
    CHECK(bound->route.route.owner.rid == (uint64_t)owner + 1);
    CHECK(bound->route.binding.token != 0);
    zlink_binding_route stored;
    bool found = false;
    OK(zlink_binding_get(c->node[0], session, ACTOR, ID(id), &stored, &found, NULL));
    CHECK(found && memcmp(&stored.route, &bound->route.route, sizeof stored.route) == 0);
    CHECK(memcmp(&stored.binding, &bound->route.binding, sizeof stored.binding) == 0);
    CHECK(memcmp(&stored.session, &bound->route.session, sizeof stored.session) == 0);
    CHECK(stored.admission_deadline_ns / 1000000 == bound->route.admission_deadline_ms);
    trace_free(&t);
    return 0;
}

/* Session-send `payload` to `id`; when sent, carry it and check delivery. */
static int session_send(cluster *c, uint64_t session, const char *id, const char *payload,
                        zlink_session_sent_tag want, uint64_t *sequence) {
    zlink_session_sent sent;
    OK(zlink_session_send(c->node[0], session, ACTOR, ID(id), ID(payload), &sent, NULL));
    CHECK(sent.tag == want);
    if (sequence) *sequence = sent.sequence;
    if (want != ZLINK_SESSION_SENT_TAG_SENT) {
        CHECK(sent.outbound.bytes.data == NULL);
        return 0;
    }
    trace t = {0};
    int rc = carry(c, 1, &sent.outbound, 1, &t);
    zlink_bytes_free(&sent.outbound.bytes);
    if (rc) return 1;
    CHECK(t.count == 1 && t.events[0].tag == ZLINK_DECISION_SESSION_DELIVER);
    const zlink_session_deliver *relay = &t.events[0].session_deliver;
    CHECK(BYTES_EQ(relay->payload, payload) && BYTES_EQ(relay->actor, id));
    CHECK(relay->relay_kind == ZLINK_RELAY_KIND_MESSAGE);
    CHECK(relay->sequence == sent.sequence && relay->session.id == session);
    CHECK(relay->operation_id == sent.operation_id);
    trace_free(&t);
    return 0;
}

static int test_session_relocation_holds_messages_until_command_44(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    zlink_session_ref sref;
    OK(zlink_open_session(c.node[0], 7, 1, &sref, NULL));
    CHECK(sref.owner.rid == 1 && sref.id == 7 && sref.generation == 1);
    zlink_owned source;
    OK(zlink_activate(c.node[1], ACTOR, ID("a1"), &source, NULL));
    OK(zlink_activate(c.node[2], ACTOR, ID("a2"), NULL, NULL));
    if (bind_actor(&c, 7, "a1", 1) || bind_actor(&c, 7, "a2", 2)) return 1;
    uint64_t s1, s2;
    if (session_send(&c, 7, "a1", "early", ZLINK_SESSION_SENT_TAG_SENT, &s1)) return 1;

    /* a1 moves from node 2 to node 3: the Restore, and command 42 answered by 43. */
    zlink_relocation_started started;
    OK(zlink_begin_relocation(c.node[1], ACTOR, ID("a1"), 3, 1, NULL, 0, NULL, 0, &started,
                              NULL));
    CHECK(started.frames.count == 2);
    CHECK(started.frames.items[0].to.rid == 3 && started.frames.items[1].to.rid == 1);
    CHECK(started.object_generation == source.fence.object_generation);
    trace t = {0};
    if (carry_list(&c, 2, &started.frames, &t)) return 1;
    CHECK(t.count == 2);
    CHECK(event_of(&t.events[0]) == ZLINK_RELOCATION_EVENT_RESTORE);
    CHECK(t.events[1].tag == ZLINK_DECISION_SEALED);
    CHECK(t.events[1].sealed.sealed && t.events[1].sealed.relocation == started.relocation);
    CHECK(BYTES_EQ(t.events[1].sealed.actor, "a1"));
    trace_free(&t);

    /* Held for a1 only; a2 is not affected; a rebind must wait. */
    if (session_send(&c, 7, "a1", "held", ZLINK_SESSION_SENT_TAG_HELD, &s2)) return 1;
    CHECK(s2 == s1 + 1);
    if (session_send(&c, 7, "a2", "other", ZLINK_SESSION_SENT_TAG_SENT, NULL)) return 1;
    zlink_actor_route ref;
    if (actor_ref(&c, 1, "a1", &ref)) return 1;
    zlink_outbound rebind;
    CHECK_RC(zlink_bind(c.node[0], 7, ACTOR, ID("a1"), &ref, &rebind, NULL),
             ZLINK_RESULT_BINDING_SEALED);

    /* The target restores: relay-ready, cutover, the owner CAS; the
     * bindings travel with the Actor and the target's command 44 releases
     * the held message, on the new route, in order. */
    zlink_outbound_list ready;
    OK(zlink_relocation_restored(c.node[2], ACTOR, ID("a1"), &ready, NULL));
    CHECK(ready.count == 1 && ready.items[0].to.rid == 2);
    if (carry_list(&c, 3, &ready, &t)) return 1;
    CHECK(t.count == 4);
    CHECK(event_of(&t.events[0]) == ZLINK_RELOCATION_EVENT_CUTOVER);
    CHECK(event_of(&t.events[1]) == ZLINK_RELOCATION_EVENT_COMMITTED);
    CHECK(event_of(&t.events[2]) == ZLINK_RELOCATION_EVENT_HANDED_OFF);
    CHECK(t.events[3].tag == ZLINK_DECISION_SESSION_DELIVER);
    CHECK(BYTES_EQ(t.events[3].session_deliver.payload, "held"));
    CHECK(t.events[3].session_deliver.sequence == s2);
    trace_free(&t);
    zlink_route_end target;
    bool found = false;
    OK(zlink_owner_route_end(c.node[2], ACTOR, ID("a1"), &target, &found, NULL));
    CHECK(found);
    zlink_binding_route stored;
    OK(zlink_binding_get(c.node[0], 7, ACTOR, ID("a1"), &stored, &found, NULL));
    CHECK(found && stored.route.owner.rid == 3);
    CHECK(stored.route.authority_owner_generation == target.fence.authority_owner_generation);
    CHECK(target.fence.authority_owner_generation == source.fence.authority_owner_generation + 1);
    if (session_send(&c, 7, "a1", "after", ZLINK_SESSION_SENT_TAG_SENT, NULL)) return 1;

    /* A lease renewal refreshes the stored routes (44, relocation 0). */
    zlink_outbound_list refresh;
    OK(zlink_renew_lease(c.node[2], ACTOR, ID("a1"), NULL, NULL));
    OK(zlink_refresh_session_routes(c.node[2], ACTOR, ID("a1"), &refresh, NULL));
    CHECK(refresh.count == 1);
    if (carry_list(&c, 3, &refresh, &t)) return 1;
    trace_free(&t);

    /* The Actor pushes to the Session on its binding. */
    zlink_outbound push;
    bool pushed = false;
    OK(zlink_push(c.node[2], ACTOR, ID("a2"), &sref, ID("hello"), &push, &pushed, NULL));
    CHECK(pushed && push.to.rid == 1);
    if (carry(&c, 3, &push, 1, &t)) return 1;
    zlink_bytes_free(&push.bytes);
    CHECK(t.count == 1 && t.events[0].tag == ZLINK_DECISION_PUSHED);
    CHECK(BYTES_EQ(t.events[0].pushed.payload, "hello"));
    CHECK(BYTES_EQ(t.events[0].pushed.actor, "a2") && t.events[0].pushed.session.id == 7);
    trace_free(&t);
    pushed = true;
    OK(zlink_push(c.node[1], ACTOR, ID("a1"), &sref, ID("gone"), &push, &pushed, NULL));
    CHECK(!pushed);

    zlink_decision_list due;
    if (on_timeout(c.node[0], &due)) return 1;
    CHECK(due.count == 0 && due.items == NULL);
    zlink_decision_list_free(&due);

    /* The connection closes: both Actors (now on node 3) are told. */
    zlink_outbound_list bye;
    OK(zlink_disconnect_session(c.node[0], 7, true, &bye, NULL));
    CHECK(bye.count == 2 && bye.items[0].to.rid == 3 && bye.items[1].to.rid == 3);
    if (carry_list(&c, 1, &bye, &t)) return 1;
    CHECK(t.count == 2);
    for (int i = 0; i < 2; i++) {
        CHECK(t.events[i].tag == ZLINK_DECISION_SESSION_DELIVER);
        CHECK(t.events[i].session_deliver.relay_kind == ZLINK_RELAY_KIND_PHYSICAL_DISCONNECT);
    }
    trace_free(&t);
    zlink_session_sent sent;
    CHECK_RC(zlink_session_send(c.node[0], 7, ACTOR, ID("a1"), ID("x"), &sent, NULL),
             ZLINK_RESULT_UNKNOWN_SESSION);
    zlink_decision none;
    CHECK_RC(zlink_abort_relocation(c.node[2], ACTOR, ID("a1"), &none, NULL),
             ZLINK_RESULT_NOT_RELOCATING);
    return cluster_free(&c);
}

static int test_a_seal_without_command_44_closes_the_session(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    OK(zlink_open_session(c.node[0], 8, 1, NULL, NULL));
    OK(zlink_activate(c.node[1], ACTOR, ID("b1"), NULL, NULL));
    OK(zlink_activate(c.node[2], ACTOR, ID("b2"), NULL, NULL));
    if (bind_actor(&c, 8, "b1", 1) || bind_actor(&c, 8, "b2", 2)) return 1;
    zlink_session_sent sent;
    CHECK_RC(zlink_session_send(c.node[0], 8, ACTOR, ID("nobody"), ID("x"), &sent, NULL),
             ZLINK_RESULT_NOT_BOUND);
    /* b1 starts moving to node 3, whose Restore is lost: only 42 arrives. */
    zlink_relocation_started started;
    OK(zlink_begin_relocation(c.node[1], ACTOR, ID("b1"), 3, 1, NULL, 0, NULL, 0, &started,
                              NULL));
    CHECK(started.frames.count == 2 && started.frames.items[1].to.rid == 1);
    trace t = {0};
    int rc = carry(&c, 2, &started.frames.items[1], 1, &t);
    zlink_outbound_list_free(&started.frames);
    if (rc) return 1;
    CHECK(t.count == 1 && t.events[0].tag == ZLINK_DECISION_SEALED);
    trace_free(&t);
    zlink_decision_list closed;
    if (on_timeout(c.node[0], &closed)) return 1;
    CHECK(closed.count == 0);
    zlink_config config;
    OK(zlink_config_get(c.node[0], &config, NULL));
    uint64_t deadline = 0, now = 0;
    bool has = false;
    OK(zlink_next_deadline(c.node[0], &deadline, &has, NULL));
    OK(zlink_now(c.node[0], &now, NULL));
    CHECK(has && deadline == now + config.session_relocation_seal_timeout_ms * 1000000);
    OK(zlink_manual_clock_advance(c.clock, config.session_relocation_seal_timeout_ms, NULL));
    if (on_timeout(c.node[0], &closed)) return 1;
    CHECK(closed.count == 2);
    CHECK(closed.items[0].tag == ZLINK_DECISION_SESSION_CLOSED);
    CHECK(closed.items[0].session_closed.session.id == 8);
    /* Every Actor is told on its stored route, the sealed one too: b2 now,
     * b1 once its relocation settles (held on its source meanwhile). */
    const zlink_send_frames *bye = &closed.items[1].send;
    CHECK(closed.items[1].tag == ZLINK_DECISION_SEND && bye->outbounds_count == 2);
    CHECK(bye->outbounds[0].to.rid + bye->outbounds[1].to.rid == 2 + 3);
    if (carry(&c, 1, bye->outbounds, 2, &t)) return 1;
    CHECK(t.count == 2);
    int delivered = 0, held = 0;
    for (int i = 0; i < 2; i++) {
        if (t.events[i].tag == ZLINK_DECISION_HELD) held++;
        if (t.events[i].tag == ZLINK_DECISION_SESSION_DELIVER &&
            t.events[i].session_deliver.relay_kind == ZLINK_RELAY_KIND_PHYSICAL_DISCONNECT &&
            BYTES_EQ(t.events[i].session_deliver.actor, "b2"))
            delivered++;
    }
    CHECK(delivered == 1 && held == 1);
    trace_free(&t);
    zlink_decision_list_free(&closed);
    zlink_decision_list_free(&closed);
    CHECK_RC(zlink_session_send(c.node[0], 8, ACTOR, ID("b2"), ID("x"), &sent, NULL),
             ZLINK_RESULT_UNKNOWN_SESSION);
    /* No relay-ready came: b1's source gives the move up on its relocation
     * timeout; once node 3 confirms, it unseals and hands the held
     * notification to b1. */
    if (on_timeout(c.node[1], &closed)) return 1;
    CHECK(closed.count == 1 && event_of(&closed.items[0]) == ZLINK_RELOCATION_EVENT_ABORTING);
    const zlink_relocation *giving_up = &closed.items[0].relocation;
    CHECK(giving_up->event.aborting.reason == ZLINK_ABORT_REASON_TIMEOUT);
    CHECK(giving_up->send_count == 1 && giving_up->send[0].to.rid == 3);
    if (carry(&c, 2, giving_up->send, 1, &t)) return 1;
    zlink_decision_list_free(&closed);
    const zlink_decision *unsealed = find_event(&t, ZLINK_RELOCATION_EVENT_ABORTED);
    CHECK(unsealed != NULL);
    CHECK(unsealed->relocation.event.aborted.reason == ZLINK_ABORT_REASON_TIMEOUT);
    CHECK(unsealed->relocation.deliver_count == 0 && unsealed->relocation.session_count == 1);
    const zlink_session_deliver *relay = &unsealed->relocation.session[0];
    CHECK(relay->relay_kind == ZLINK_RELAY_KIND_PHYSICAL_DISCONNECT);
    CHECK(BYTES_EQ(relay->actor, "b1") && relay->session.id == 8);
    zlink_decision_list held_work;
    OK(zlink_relocation_deliveries(unsealed, &held_work, NULL));
    trace_free(&t);
    CHECK(held_work.count == 1 && held_work.items[0].tag == ZLINK_DECISION_SESSION_DELIVER);
    relay = &held_work.items[0].session_deliver;
    CHECK(relay->relay_kind == ZLINK_RELAY_KIND_PHYSICAL_DISCONNECT);
    CHECK(BYTES_EQ(relay->actor, "b1") && relay->session.id == 8);
    zlink_decision_list_free(&held_work);
    return cluster_free(&c);
}

static int test_an_aborted_relocation_releases_held_messages_to_the_source(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    OK(zlink_open_session(c.node[0], 9, 1, NULL, NULL));
    OK(zlink_activate(c.node[1], ACTOR, ID("c1"), NULL, NULL));
    if (bind_actor(&c, 9, "c1", 1)) return 1;
    zlink_relocation_started started;
    OK(zlink_begin_relocation(c.node[1], ACTOR, ID("c1"), 3, 1, NULL, 0, NULL, 0, &started,
                              NULL));
    trace t = {0};
    if (carry_list(&c, 2, &started.frames, &t)) return 1;
    CHECK(find_event(&t, ZLINK_RELOCATION_EVENT_RESTORE) != NULL);
    trace_free(&t);
    uint64_t seq;
    if (session_send(&c, 9, "c1", "waiting", ZLINK_SESSION_SENT_TAG_HELD, &seq)) return 1;
    /* The source gives up before relay-ready: the target is told (49) and
     * confirms; the source unseals and its command 44 abort sends the held
     * message to it again. */
    zlink_decision aborting;
    OK(zlink_abort_relocation(c.node[1], ACTOR, ID("c1"), &aborting, NULL));
    CHECK(event_of(&aborting) == ZLINK_RELOCATION_EVENT_ABORTING);
    CHECK(aborting.relocation.event.aborting.reason == ZLINK_ABORT_REASON_REQUESTED);
    CHECK(identity_of(&aborting)->relocation == started.relocation);
    CHECK(aborting.relocation.deliver_count == 0);
    CHECK(aborting.relocation.send_count == 1 && aborting.relocation.send[0].to.rid == 3);
    int rc = carry(&c, 2, aborting.relocation.send, aborting.relocation.send_count, &t);
    zlink_decision_free(&aborting);
    if (rc) return 1;
    CHECK(t.count == 3);
    CHECK(event_of(&t.events[0]) == ZLINK_RELOCATION_EVENT_ABORTED); /* target */
    CHECK(event_of(&t.events[1]) == ZLINK_RELOCATION_EVENT_ABORTED); /* source */
    CHECK(t.events[1].relocation.event.aborted.reason == ZLINK_ABORT_REASON_REQUESTED);
    CHECK(identity_of(&t.events[1])->relocation == started.relocation);
    CHECK(t.events[2].tag == ZLINK_DECISION_SESSION_DELIVER);
    CHECK(BYTES_EQ(t.events[2].session_deliver.payload, "waiting"));
    CHECK(t.events[2].session_deliver.sequence == seq);
    trace_free(&t);
    zlink_binding_route stored;
    bool found = false;
    OK(zlink_binding_get(c.node[0], 9, ACTOR, ID("c1"), &stored, &found, NULL));
    CHECK(found && stored.route.owner.rid == 2);
    if (session_send(&c, 9, "c1", "again", ZLINK_SESSION_SENT_TAG_SENT, NULL)) return 1;
    return cluster_free(&c);
}

/* ---------------------------------------------------------------- relocation */

/* Hands one frame sent by node `from` (a rid) to its node. */
static int take(cluster *c, uint64_t from, const zlink_outbound *frame, zlink_decision *out) {
    CHECK(frame->to.rid >= 1 && frame->to.rid <= 3 && c->node[frame->to.rid - 1] != NULL);
    OK(zlink_on_frame(c->node[frame->to.rid - 1], from, frame->bytes.data, frame->bytes.len,
                      out, NULL));
    return 0;
}

/* The client node[2] sends (or requests) `payload` to the Actor `id`. */
static int client_send(cluster *c, const char *id, const char *payload, bool request,
                       zlink_sent *out) {
    if (request) {
        OK(zlink_request(c->node[2], ACTOR, ID(id), ID(payload), NULL, out, NULL));
    } else {
        OK(zlink_send(c->node[2], ACTOR, ID(id), ID(payload), NULL, out, NULL));
    }
    CHECK(out->tag == ZLINK_SENT_TAG_SUBMITTED);
    return 0;
}

/* The client's one-way `payload` for `id`, taken by the runtime it is routed to. */
static int client_to(cluster *c, const char *id, const char *payload, zlink_decision *out) {
    zlink_sent sent;
    if (client_send(c, id, payload, false, &sent)) return 1;
    int rc = take(c, 3, &sent.outbound, out);
    zlink_bytes_free(&sent.outbound.bytes);
    return rc;
}

/* node[0] moves "mover" to node[1] (client node[2]), step by step. */
static int test_relocation_handoff_moves_an_actor_between_two_runtimes(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    zlink_owned source;
    OK(zlink_activate(c.node[0], ACTOR, ID("mover"), &source, NULL));

    /* The source's host accepted a request and a message and ran neither. */
    zlink_sent q1, m1;
    if (client_send(&c, "mover", "q1", true, &q1)) return 1;
    if (client_send(&c, "mover", "m1", false, &m1)) return 1;
    CHECK(q1.outbound.to.rid == 1 && m1.outbound.to.rid == 1);
    zlink_decision saved[2];
    if (take(&c, 3, &q1.outbound, &saved[0]) || take(&c, 3, &m1.outbound, &saved[1])) return 1;
    zlink_bytes_free(&q1.outbound.bytes);
    zlink_bytes_free(&m1.outbound.bytes);
    CHECK(saved[0].tag == ZLINK_DECISION_DELIVER && saved[0].deliver.operation.is_request);
    CHECK(saved[1].tag == ZLINK_DECISION_DELIVER && !saved[1].deliver.operation.is_request);

    /* Source: hands over that work and the state, and is sealed. */
    const zlink_decision *capture[2] = {&saved[0], &saved[1]};
    zlink_relocation_started started;
    OK(zlink_begin_relocation(c.node[0], ACTOR, ID("mover"), 2, 1, capture, 2, ID("actor-state"),
                              &started, NULL));
    zlink_decision_free(&saved[0]);
    zlink_decision_free(&saved[1]);
    CHECK(started.relocation != 0);
    CHECK(started.object_generation == source.fence.object_generation);
    CHECK(started.frames.count == 1 && started.frames.items[0].to.rid == 2); /* the Restore */
    zlink_decision d;
    if (client_to(&c, "mover", "m2", &d)) return 1;
    CHECK(d.tag == ZLINK_DECISION_HELD);
    zlink_decision_free(&d);

    /* Target: the Restore brings the state; the host builds the Actor. */
    zlink_decision restore;
    if (take(&c, 1, &started.frames.items[0], &restore)) return 1;
    zlink_outbound_list_free(&started.frames);
    CHECK(event_of(&restore) == ZLINK_RELOCATION_EVENT_RESTORE);
    const zlink_relocation_event_restore *r = &restore.relocation.event.restore;
    CHECK(r->identity.relocation == started.relocation);
    CHECK(r->identity.kind == ACTOR && BYTES_EQ(r->identity.id, "mover"));
    CHECK(r->identity.object_generation == source.fence.object_generation);
    CHECK(r->source_rid == 1 && r->source_generation == 1);
    CHECK(BYTES_EQ(r->state, "actor-state"));
    CHECK(restore.relocation.send_count == 0 && restore.relocation.deliver_count == 0);
    zlink_decision_free(&restore);
    zlink_outbound_list ready, again;
    OK(zlink_relocation_restored(c.node[1], ACTOR, ID("mover"), &ready, NULL));
    CHECK(ready.count == 1 && ready.items[0].to.rid == 1); /* relay-ready */
    CHECK_RC(zlink_relocation_restored(c.node[1], ACTOR, ID("mover"), &again, NULL),
             ZLINK_RESULT_RELOCATION_REFUSED);
    zlink_decision none;
    CHECK_RC(zlink_abort_relocation(c.node[1], ACTOR, ID("mover"), &none, NULL),
             ZLINK_RESULT_AFTER_RELAY_READY);

    /* Source: relay-ready: the held message is relayed, then the cutover. */
    zlink_decision cutover;
    if (take(&c, 2, &ready.items[0], &cutover)) return 1;
    zlink_outbound_list_free(&ready);
    CHECK(event_of(&cutover) == ZLINK_RELOCATION_EVENT_CUTOVER);
    CHECK(identity_of(&cutover)->relocation == started.relocation);
    CHECK(cutover.relocation.event.cutover.relayed == 1);
    const zlink_outbound *cut = cutover.relocation.send;
    CHECK(cutover.relocation.send_count == 2 && cutover.relocation.deliver_count == 0);
    CHECK(cut[0].to.rid == 2 && cut[1].to.rid == 2);
    CHECK_RC(zlink_abort_relocation(c.node[0], ACTOR, ID("mover"), &none, NULL),
             ZLINK_RESULT_AFTER_RELAY_READY);

    /* Target: the relayed message waits; the cutover runs the owner CAS and
     * the work is delivered here, in order: saved, then relayed. */
    if (take(&c, 1, &cut[0], &d)) return 1;
    CHECK(d.tag == ZLINK_DECISION_HELD);
    zlink_decision_free(&d);
    zlink_decision due;
    if (take(&c, 1, &cut[1], &due)) return 1;
    zlink_decision_free(&cutover);
    CHECK(event_of(&due) == ZLINK_RELOCATION_EVENT_COMMIT_DUE);
    CHECK(identity_of(&due)->relocation == started.relocation);
    CHECK(due.relocation.send_count == 0);
    zlink_decision_free(&due);
    uint64_t due_at = 0, now_ns = 0;
    bool waits = false;
    OK(zlink_next_deadline(c.node[1], &due_at, &waits, NULL));
    OK(zlink_now(c.node[1], &now_ns, NULL));
    CHECK(waits && due_at <= now_ns); /* the owner CAS is due now */
    zlink_decision_list timed;
    if (on_timeout(c.node[1], &timed)) return 1;
    CHECK(timed.count == 1);
    zlink_decision committed = timed.items[0];
    memset(&timed.items[0], 0, sizeof committed); /* moved out of the list */
    zlink_decision_list_free(&timed);
    CHECK(event_of(&committed) == ZLINK_RELOCATION_EVENT_COMMITTED);
    const zlink_relocation *step = &committed.relocation;
    CHECK(step->event.committed.identity.relocation == started.relocation);
    CHECK(step->event.committed.source_rid == 1);
    CHECK(step->send_count == 1 && step->send[0].to.rid == 1); /* commit notice */
    CHECK(step->deliver_count == 3 && step->session_count == 0);
    CHECK(STR_EQ(step->deliver[0].operation.payload, "q1"));
    CHECK(STR_EQ(step->deliver[2].operation.payload, "m2"));
    zlink_decision_list work;
    OK(zlink_relocation_deliveries(&committed, &work, NULL));
    CHECK(work.count == 3);
    for (size_t i = 0; i < work.count; i++) {
        CHECK(work.items[i].tag == ZLINK_DECISION_DELIVER);
        const zlink_operation *op = &work.items[i].deliver.operation;
        CHECK(op->kind == ACTOR && STR_EQ(op->id, "mover"));
        CHECK(work.items[i].deliver.object_generation == source.fence.object_generation);
    }
    const zlink_operation *op = &work.items[0].deliver.operation;
    CHECK(STR_EQ(op->payload, "q1") && op->is_request && op->operation_id == q1.operation_id);
    op = &work.items[1].deliver.operation;
    CHECK(STR_EQ(op->payload, "m1") && op->operation_id == m1.operation_id);
    op = &work.items[2].deliver.operation;
    CHECK(STR_EQ(op->payload, "m2") && !op->is_request);
    /* The saved request is answered from the target, on its reply route. */
    zlink_outbound reply;
    OK(zlink_reply(c.node[1], &work.items[0], ID("a1"), &reply, NULL));
    zlink_decision_list_free(&work);
    zlink_decision_list_free(&work);
    CHECK(reply.to.rid == 3);
    if (take(&c, 2, &reply, &d)) return 1;
    zlink_bytes_free(&reply.bytes);
    CHECK(d.tag == ZLINK_DECISION_COMPLETED);
    CHECK(d.completed.completion.outcome.tag == ZLINK_OUTCOME_REPLY);
    CHECK(d.completed.completion.correlation == q1.correlation);
    CHECK(BYTES_EQ(d.completed.completion.outcome.reply.payload, "a1"));
    zlink_decision_free(&d);

    /* Source: the commit notice: handed off. */
    zlink_decision handed;
    if (take(&c, 2, &step->send[0], &handed)) return 1;
    zlink_decision_free(&committed);
    zlink_decision_free(&committed);
    CHECK_RC(zlink_relocation_deliveries(&committed, &work, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT); /* freed */
    CHECK(event_of(&handed) == ZLINK_RELOCATION_EVENT_HANDED_OFF);
    CHECK(identity_of(&handed)->relocation == started.relocation);
    CHECK(handed.relocation.event.handed_off.target_rid == 2);
    CHECK(handed.relocation.send_count == 0 && handed.relocation.deliver_count == 0);
    OK(zlink_relocation_deliveries(&handed, &work, NULL));
    CHECK(work.count == 0 && work.items == NULL);
    zlink_decision_free(&handed);

    /* Node 2 owns the Actor under the next owner generation; what still
     * comes to node 1 follows it there. */
    zlink_route_end end;
    bool found = true;
    OK(zlink_owner_route_end(c.node[0], ACTOR, ID("mover"), &end, &found, NULL));
    CHECK(!found);
    OK(zlink_owner_route_end(c.node[1], ACTOR, ID("mover"), &end, &found, NULL));
    CHECK(found && end.node.rid == 2);
    CHECK(end.fence.authority_owner_generation == source.fence.authority_owner_generation + 1);
    zlink_decision relay, moved;
    if (client_to(&c, "mover", "m3", &relay)) return 1;
    CHECK(relay.tag == ZLINK_DECISION_RELAY && relay.relay.forward.to.rid == 2);
    if (take(&c, 1, &relay.relay.forward, &moved)) return 1;
    zlink_decision_free(&relay);
    CHECK(moved.tag == ZLINK_DECISION_DELIVER && STR_EQ(moved.deliver.operation.payload, "m3"));
    zlink_decision_free(&moved);

    zlink_stats s;
    OK(zlink_stats_get(c.node[0], &s, NULL));
    CHECK(s.relocation_begun == 1 && s.relocation_handed_off == 1);
    CHECK(s.relocation_held == 1 && s.relocation_relayed == 1 && s.relocation_aborted == 0);
    CHECK(s.table_relocation_sources == 0 && s.table_relocation_targets == 0);
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.relocation_restores == 1 && s.relocation_committed == 1 && s.relocation_held == 1);
    CHECK(s.relocation_control_refused == 0 && s.table_relocation_targets == 0);
    return cluster_free(&c);
}

static int test_an_abort_before_relay_ready_delivers_the_held_work_on_the_source(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    zlink_owned source;
    OK(zlink_activate(c.node[0], ACTOR, ID("undo"), &source, NULL));
    zlink_decision saved;
    if (client_to(&c, "undo", "s1", &saved)) return 1;
    CHECK(saved.tag == ZLINK_DECISION_DELIVER);
    const zlink_decision *capture = &saved;
    zlink_relocation_started started;
    OK(zlink_begin_relocation(c.node[0], ACTOR, ID("undo"), 2, 1, &capture, 1, ID("st"),
                              &started, NULL));
    zlink_decision_free(&saved);
    zlink_decision d;
    if (take(&c, 1, &started.frames.items[0], &d)) return 1;
    zlink_outbound_list_free(&started.frames);
    CHECK(event_of(&d) == ZLINK_RELOCATION_EVENT_RESTORE);
    zlink_decision_free(&d);
    if (client_to(&c, "undo", "h1", &d)) return 1;
    CHECK(d.tag == ZLINK_DECISION_HELD);
    zlink_decision_free(&d);

    /* The source gives up: the target is told and confirms; then the saved
     * then the held work run here again. */
    zlink_decision aborting, confirm, aborted;
    OK(zlink_abort_relocation(c.node[0], ACTOR, ID("undo"), &aborting, NULL));
    CHECK(event_of(&aborting) == ZLINK_RELOCATION_EVENT_ABORTING);
    CHECK(aborting.relocation.event.aborting.reason == ZLINK_ABORT_REASON_REQUESTED);
    CHECK(identity_of(&aborting)->relocation == started.relocation);
    CHECK(BYTES_EQ(identity_of(&aborting)->id, "undo"));
    CHECK(aborting.relocation.send_count == 1);
    CHECK(aborting.relocation.send[0].to.rid == 2); /* 49 to the target */
    CHECK(aborting.relocation.deliver_count == 0);
    if (client_to(&c, "undo", "h2", &d)) return 1;
    CHECK(d.tag == ZLINK_DECISION_HELD); /* still sealed */
    zlink_decision_free(&d);
    if (take(&c, 1, &aborting.relocation.send[0], &confirm)) return 1;
    zlink_decision_free(&aborting);
    CHECK(event_of(&confirm) == ZLINK_RELOCATION_EVENT_ABORTED);
    CHECK(confirm.relocation.event.aborted.reason == ZLINK_ABORT_REASON_REQUESTED);
    CHECK(confirm.relocation.deliver_count == 0);
    CHECK(identity_of(&confirm)->relocation == started.relocation);
    CHECK(confirm.relocation.send_count == 1);
    CHECK(confirm.relocation.send[0].to.rid == 1); /* 49 back */
    if (take(&c, 2, &confirm.relocation.send[0], &aborted)) return 1;
    zlink_decision_free(&confirm);
    CHECK(event_of(&aborted) == ZLINK_RELOCATION_EVENT_ABORTED);
    CHECK(identity_of(&aborted)->relocation == started.relocation);
    CHECK(aborted.relocation.deliver_count == 3 && aborted.relocation.session_count == 0);
    zlink_decision_list work;
    OK(zlink_relocation_deliveries(&aborted, &work, NULL));
    zlink_decision_free(&aborted);
    CHECK(work.count == 3 && work.items[0].tag == ZLINK_DECISION_DELIVER);
    CHECK(STR_EQ(work.items[0].deliver.operation.payload, "s1"));
    CHECK(STR_EQ(work.items[1].deliver.operation.payload, "h1"));
    CHECK(STR_EQ(work.items[2].deliver.operation.payload, "h2"));
    CHECK(work.items[1].deliver.object_generation == source.fence.object_generation);
    zlink_decision_list_free(&work);
    zlink_outbound_list ready;
    CHECK_RC(zlink_relocation_restored(c.node[1], ACTOR, ID("undo"), &ready, NULL),
             ZLINK_RESULT_NOT_RELOCATING);
    if (client_to(&c, "undo", "after", &d)) return 1;
    CHECK(d.tag == ZLINK_DECISION_DELIVER && STR_EQ(d.deliver.operation.payload, "after"));
    zlink_decision_free(&d);
    zlink_route_end end;
    bool found = false;
    OK(zlink_owner_route_end(c.node[0], ACTOR, ID("undo"), &end, &found, NULL));
    CHECK(found && end.fence.authority_owner_generation ==
                       source.fence.authority_owner_generation);

    /* A second move whose Restore is lost and whose target never answers:
     * from zlink_on_timeout, the source gives it up when
     * relocation_timeout_ms passes, and unseals once more has passed (the
     * store fenced against the target). */
    OK(zlink_begin_relocation(c.node[0], ACTOR, ID("undo"), 2, 1, NULL, 0, NULL, 0, &started,
                              NULL));
    zlink_outbound_list_free(&started.frames);
    if (client_to(&c, "undo", "late", &d)) return 1;
    CHECK(d.tag == ZLINK_DECISION_HELD);
    zlink_decision_free(&d);
    zlink_config config;
    OK(zlink_config_get(c.node[0], &config, NULL));
    uint64_t deadline = 0, now = 0;
    bool has = false;
    OK(zlink_next_deadline(c.node[0], &deadline, &has, NULL));
    OK(zlink_now(c.node[0], &now, NULL));
    CHECK(has && deadline == now + config.relocation_timeout_ms * 1000000);
    zlink_decision_list due;
    if (on_timeout(c.node[0], &due)) return 1;
    CHECK(due.count == 0);
    OK(zlink_manual_clock_advance(c.clock, config.relocation_timeout_ms, NULL));
    if (on_timeout(c.node[0], &due)) return 1;
    CHECK(due.count == 1 && event_of(&due.items[0]) == ZLINK_RELOCATION_EVENT_ABORTING);
    CHECK(due.items[0].relocation.event.aborting.reason == ZLINK_ABORT_REASON_TIMEOUT);
    CHECK(identity_of(&due.items[0])->relocation == started.relocation);
    CHECK(due.items[0].relocation.send_count == 1);
    CHECK(due.items[0].relocation.send[0].to.rid == 2);
    CHECK(due.items[0].relocation.deliver_count == 0);
    zlink_decision_list_free(&due);
    OK(zlink_manual_clock_advance(c.clock, config.relocation_timeout_ms, NULL));
    if (on_timeout(c.node[0], &due)) return 1;
    CHECK(due.count == 1 && event_of(&due.items[0]) == ZLINK_RELOCATION_EVENT_ABORTED);
    CHECK(due.items[0].relocation.event.aborted.reason == ZLINK_ABORT_REASON_TIMEOUT);
    CHECK(identity_of(&due.items[0])->relocation == started.relocation);
    CHECK(due.items[0].relocation.deliver_count == 1);
    OK(zlink_relocation_deliveries(&due.items[0], &work, NULL));
    zlink_decision_list_free(&due);
    CHECK(work.count == 1 && STR_EQ(work.items[0].deliver.operation.payload, "late"));
    zlink_decision_list_free(&work);

    zlink_stats s;
    OK(zlink_stats_get(c.node[0], &s, NULL));
    CHECK(s.relocation_begun == 2 && s.relocation_aborted == 2 && s.relocation_held == 3);
    CHECK(s.relocation_handed_off == 0 && s.table_relocation_sources == 0);
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.relocation_restores == 1 && s.relocation_aborted == 1);
    CHECK(s.table_relocation_targets == 0);
    return cluster_free(&c);
}

static int test_relocation_calls_refuse_bad_input(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ACTOR, ID("busy"), NULL, NULL));
    OK(zlink_activate(c.node[0], ACTOR, ID("other"), NULL, NULL));
    zlink_config config;
    OK(zlink_config_get(c.node[0], &config, NULL));
    CHECK(config.relocation_timeout_ms == 5000);
    CHECK(config.max_relocation_state_bytes == 16u << 20);
    config.max_relocation_state_bytes = 8;
    OK(zlink_update_config(c.node[0], &config, NULL));

    zlink_relocation_started started, untouched;
    memset(&started, 0x5a, sizeof started);
    untouched = started;
    zlink_error *err = NULL;
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, NULL, 0, ID("123456789"),
                                    &started, &err),
             ZLINK_RESULT_STATE_TOO_LARGE);
    CHECK(zlink_error_code(err) == ZLINK_RESULT_STATE_TOO_LARGE);
    CHECK(strstr(zlink_error_message(err), "9 bytes, over the 8-byte bound") != NULL);
    zlink_error_free(err);
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 1, 1, NULL, 0, NULL, 0,
                                    &started, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT); /* the target is this runtime */
    CHECK_RC(zlink_begin_relocation(c.node[1], ACTOR, ID("busy"), 1, 1, NULL, 0, NULL, 0,
                                    &started, NULL),
             ZLINK_RESULT_NOT_OWNED);
    CHECK_RC(zlink_begin_relocation(c.node[0], 7, ID("busy"), 2, 1, NULL, 0, NULL, 0, &started,
                                    NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, NULL, 1, NULL, 0,
                                    &started, NULL),
             ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, NULL, 0, NULL, 0, NULL,
                                    NULL),
             ZLINK_RESULT_NULL_POINTER);
    /* Only DELIVER decisions of the object moved are saved work. */
    zlink_decision dropped, foreign;
    OK(zlink_on_frame(c.node[0], 2, (const uint8_t *)"garbage", 7, &dropped, NULL));
    zlink_sent sent;
    OK(zlink_send(c.node[1], ACTOR, ID("other"), ID("x"), NULL, &sent, NULL));
    OK(zlink_on_frame(c.node[0], 2, sent.outbound.bytes.data, sent.outbound.bytes.len, &foreign,
                      NULL));
    zlink_bytes_free(&sent.outbound.bytes);
    CHECK(foreign.tag == ZLINK_DECISION_DELIVER);
    const zlink_decision *bad[2] = {&foreign, &dropped};
    err = NULL;
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, &bad[1], 1, NULL, 0,
                                    &started, &err),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK(strstr(zlink_error_message(err), "saved[0] is not a DELIVER decision") != NULL);
    zlink_error_free(err);
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, bad, 1, NULL, 0,
                                    &started, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    zlink_decision_list list;
    CHECK_RC(zlink_relocation_deliveries(&foreign, &list, NULL), ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK_RC(zlink_relocation_deliveries(&dropped, &list, NULL), ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK_RC(zlink_relocation_deliveries(NULL, &list, NULL), ZLINK_RESULT_NULL_POINTER);
    zlink_decision_free(&dropped);
    zlink_decision_free(&foreign);
    CHECK(memcmp(&started, &untouched, sizeof started) == 0);

    /* One relocation of an object at a time. */
    OK(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, NULL, 0, ID("12345678"),
                              &started, NULL));
    zlink_relocation_started second = untouched;
    err = NULL;
    CHECK_RC(zlink_begin_relocation(c.node[0], ACTOR, ID("busy"), 2, 1, NULL, 0, NULL, 0,
                                    &second, &err),
             ZLINK_RESULT_ALREADY_RELOCATING);
    CHECK(strstr(zlink_error_message(err), "already relocating") != NULL);
    zlink_error_free(err);
    CHECK(memcmp(&second, &untouched, sizeof second) == 0);
    zlink_outbound_list_free(&started.frames);

    /* Nothing relocating there. */
    zlink_outbound_list ready;
    err = NULL;
    CHECK_RC(zlink_relocation_restored(c.node[1], ACTOR, ID("busy"), &ready, &err),
             ZLINK_RESULT_NOT_RELOCATING);
    CHECK(zlink_error_code(err) == ZLINK_RESULT_NOT_RELOCATING);
    zlink_error_free(err);
    CHECK_RC(zlink_relocation_restored(c.node[0], ACTOR, ID("busy"), &ready, NULL),
             ZLINK_RESULT_NOT_RELOCATING); /* the source is not its target */
    zlink_decision d;
    CHECK_RC(zlink_abort_relocation(c.node[0], ACTOR, ID("other"), &d, NULL),
             ZLINK_RESULT_NOT_RELOCATING);
    CHECK_RC(zlink_abort_relocation(c.node[0], ACTOR, ID("busy"), NULL, NULL),
             ZLINK_RESULT_NULL_POINTER);

    /* The new config fields are validated. */
    config.max_relocation_state_bytes = 0;
    CHECK_RC(zlink_update_config(c.node[0], &config, NULL), ZLINK_RESULT_INVALID_CONFIG);
    config.max_relocation_state_bytes = 8;
    config.relocation_timeout_ms = 0;
    CHECK_RC(zlink_update_config(c.node[0], &config, NULL), ZLINK_RESULT_INVALID_CONFIG);
    return cluster_free(&c);
}
/* ---------------------------------------------------------------- requests */

static int test_error_reply_and_spot_origin(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ACTOR, ID("svc"), NULL, NULL));
    zlink_owned lobby;
    OK(zlink_activate(c.node[1], ZLINK_OBJECT_KIND_SPOT, ID("lobby"), &lobby, NULL));
    zlink_spot_execution origin = {.id = (const uint8_t *)"lobby",
                                   .id_len = 5,
                                   .object_generation = lobby.fence.object_generation};
    zlink_sent req;
    OK(zlink_request_from(c.node[1], ACTOR, ID("svc"), ID("q"), NULL, &origin, &req, NULL));
    CHECK(req.tag == ZLINK_SENT_TAG_SUBMITTED);
    zlink_decision at_owner;
    OK(zlink_on_frame(c.node[0], 2, req.outbound.bytes.data, req.outbound.bytes.len, &at_owner,
                      NULL));
    zlink_bytes_free(&req.outbound.bytes);
    CHECK(at_owner.tag == ZLINK_DECISION_DELIVER && at_owner.deliver.operation.is_request);

    zlink_outbound reply;
    CHECK_RC(zlink_reply_error(c.node[0], &at_owner, 7, 1, ID("x"), &reply, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK_RC(zlink_reply_error(c.node[0], &at_owner, ZLINK_REPLY_ERROR_KIND_HANDLER, 1,
                               (const uint8_t *)"\xff", 1, &reply, NULL),
             ZLINK_RESULT_INVALID_UTF8);
    CHECK_RC(zlink_reply_error(c.node[0], &at_owner, ZLINK_REPLY_ERROR_KIND_HANDLER, 1,
                               (const uint8_t *)"x", ZLINK_MAX_ERROR_MESSAGE_BYTES + 1,
                               &reply, NULL),
             ZLINK_RESULT_TOO_LONG);
    OK(zlink_reply_error(c.node[0], &at_owner, ZLINK_REPLY_ERROR_KIND_HANDLER, 42, ID("boom"),
                         &reply, NULL));
    zlink_decision_free(&at_owner);
    CHECK(reply.to.rid == 2);
    zlink_decision done;
    OK(zlink_on_frame(c.node[1], 1, reply.bytes.data, reply.bytes.len, &done, NULL));
    zlink_bytes_free(&reply.bytes);
    CHECK(done.tag == ZLINK_DECISION_COMPLETED);
    const zlink_completion *completion = &done.completed.completion;
    CHECK(completion->correlation == req.correlation);
    CHECK(completion->outcome.tag == ZLINK_OUTCOME_ERROR);
    const zlink_outcome_error *error = &completion->outcome.error;
    CHECK(error->kind == ZLINK_REQUEST_ERROR_KIND_HANDLER && !error->has_reason);
    CHECK(error->code == 42 && BYTES_EQ(error->message, "boom"));
    CHECK(completion->origin != NULL && BYTES_EQ(completion->origin->spot, "lobby"));
    CHECK(completion->origin->object_generation == lobby.fence.object_generation);
    CHECK(!completion->origin_gone);
    zlink_decision_free(&done);
    zlink_decision_free(&done);
    zlink_stats s;
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.requests_errors == 1);
    return cluster_free(&c);
}

static int test_timeouts_and_shutdown_complete_pending_requests(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ACTOR, ID("slow"), NULL, NULL));
    zlink_send_options opts = {.instance_intent = false, .deadline_ms = 1000, .timeout_ms = 100};
    zlink_sent first, second;
    OK(zlink_request(c.node[1], ACTOR, ID("slow"), ID("1"), &opts, &first, NULL));
    zlink_bytes_free(&first.outbound.bytes);
    zlink_decision_list list;
    if (on_timeout(c.node[1], &list)) return 1;
    CHECK(list.count == 0 && list.items == NULL);
    OK(zlink_manual_clock_advance(c.clock, 101, NULL));
    OK(zlink_request(c.node[1], ACTOR, ID("slow"), ID("2"), &opts, &second, NULL));
    zlink_bytes_free(&second.outbound.bytes);
    if (on_timeout(c.node[1], &list)) return 1;
    CHECK(list.count == 1);
    CHECK(list.items[0].tag == ZLINK_DECISION_COMPLETED);
    const zlink_completion *completion = &list.items[0].completed.completion;
    CHECK(completion->outcome.tag == ZLINK_OUTCOME_TIMEOUT);
    CHECK(completion->correlation == first.correlation);
    CHECK(BYTES_EQ(completion->id, "slow") && completion->origin == NULL);
    zlink_decision_list_free(&list);
    zlink_decision_list_free(&list);
    OK(zlink_shutdown_requests(c.node[1], &list, NULL));
    CHECK(list.count == 1 && list.items[0].tag == ZLINK_DECISION_COMPLETED);
    completion = &list.items[0].completed.completion;
    CHECK(completion->outcome.tag == ZLINK_OUTCOME_SHUTDOWN);
    CHECK(completion->correlation == second.correlation);
    zlink_decision_list_free(&list);
    OK(zlink_shutdown_requests(c.node[1], &list, NULL));
    CHECK(list.count == 0);
    CHECK_RC(zlink_on_timeout(c.node[1], 0, NULL, NULL), ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_next_deadline(c.node[1], NULL, NULL, NULL), ZLINK_RESULT_NULL_POINTER);
    zlink_stats s;
    OK(zlink_stats_get(c.node[1], &s, NULL));
    CHECK(s.requests_timeouts == 1 && s.requests_shutdown == 1);
    return cluster_free(&c);
}

/* ---------------------------------------------------------------- manual peers */

#define ENDPOINT "10.0.0.1:7400"

static int test_manual_peer_replacement_after_close(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    zlink_peer_descriptor d;
    OK(zlink_publish_descriptor(c.node[0], ENDPOINT, "node-1-cert", &d, NULL));
    CHECK(d.rid == 1 && d.lifecycle_generation == 1 && BYTES_EQ(d.endpoint, ENDPOINT));
    CHECK(BYTES_EQ(d.security_identity, "node-1-cert"));
    zlink_peer_descriptor_free(&d);
    zlink_peer_descriptor_free(&d);

    OK(zlink_add_manual_peer(c.node[1], ENDPOINT, NULL));
    zlink_bytes where;
    bool found = true;
    OK(zlink_peer_endpoint(c.node[1], 1, &where, &found, NULL));
    CHECK(!found); /* an endpoint-only intent is never placement evidence */
    zlink_peer_descriptor_list now;
    OK(zlink_connect_manual_peers(c.node[1], &now, NULL));
    CHECK(now.count == 1 && now.items[0].rid == 1 && now.items[0].lifecycle_generation == 1);
    CHECK(BYTES_EQ(now.items[0].endpoint, ENDPOINT));
    CHECK(BYTES_EQ(now.items[0].security_identity, "node-1-cert"));
    zlink_peer_descriptor_list_free(&now);
    zlink_peer_descriptor_list_free(&now);

    /* A frame from node 1 on that connection: refused until it is open. */
    OK(zlink_activate(c.node[1], ACTOR, ID("p"), NULL, NULL));
    zlink_sent sent;
    OK(zlink_send(c.node[0], ACTOR, ID("p"), ID("hi"), NULL, &sent, NULL));
    zlink_decision d1;
    OK(zlink_on_peer_frame(c.node[1], ENDPOINT, sent.outbound.bytes.data,
                           sent.outbound.bytes.len, &d1, NULL));
    CHECK(d1.tag == ZLINK_DECISION_PEER_REFUSED);
    zlink_decision_free(&d1);
    OK(zlink_peer_opened(c.node[1], ENDPOINT, 1, NULL));
    OK(zlink_on_peer_frame(c.node[1], ENDPOINT, sent.outbound.bytes.data,
                           sent.outbound.bytes.len, &d1, NULL));
    CHECK(d1.tag == ZLINK_DECISION_DELIVER && STR_EQ(d1.deliver.operation.payload, "hi"));
    zlink_decision_free(&d1);
    OK(zlink_peer_endpoint(c.node[1], 1, &where, &found, NULL));
    CHECK(found && BYTES_EQ(where, ENDPOINT));
    zlink_bytes_free(&where);

    /* Node 1 restarts (generation 2) and publishes again: the replacement
     * waits for the open intent to close, then carries all four values. */
    zlink_node_identity restarted = {.mesh = "test-mesh", .rid = 1, .generation = 2, .lease = 5};
    OK(zlink_runtime_new(&restarted, NULL, c.store, c.clock, &c.node[2], NULL));
    OK(zlink_publish_descriptor(c.node[2], ENDPOINT, "node-1-cert-2", NULL, NULL));
    OK(zlink_ensure_manual_peer(c.node[1], ENDPOINT, &d, &found, NULL));
    CHECK(!found);
    zlink_peer_intent intent;
    OK(zlink_peer_intent_get(c.node[1], ENDPOINT, &intent, &found, NULL));
    CHECK(found && intent.has_installed && intent.installed.lifecycle_generation == 1);
    CHECK(intent.liveness == ZLINK_LIVENESS_OPEN && intent.open_rid == 1);
    CHECK(intent.has_pending && intent.pending.lifecycle_generation == 2);
    CHECK(BYTES_EQ(intent.pending.security_identity, "node-1-cert-2"));
    zlink_peer_intent_free(&intent);
    zlink_peer_intent_free(&intent);
    OK(zlink_peer_closed(c.node[1], ENDPOINT, &d, &found, NULL));
    CHECK(found && d.rid == 1 && d.lifecycle_generation == 2);
    CHECK(BYTES_EQ(d.endpoint, ENDPOINT) && BYTES_EQ(d.security_identity, "node-1-cert-2"));
    zlink_peer_descriptor_free(&d);
    OK(zlink_peer_closed(c.node[1], ENDPOINT, &d, &found, NULL));
    CHECK(!found);
    OK(zlink_peer_intent_get(c.node[1], ENDPOINT, &intent, &found, NULL));
    CHECK(found && intent.liveness == ZLINK_LIVENESS_CLOSED && !intent.has_pending);
    CHECK(intent.installed.lifecycle_generation == 2);
    zlink_peer_intent_free(&intent);
    OK(zlink_peer_intent_get(c.node[1], "10.9.9.9:1", &intent, &found, NULL));
    CHECK(!found);

    /* The old lifecycle's operation is refused on the new connection. */
    OK(zlink_peer_opened(c.node[1], ENDPOINT, 1, NULL));
    OK(zlink_on_peer_frame(c.node[1], ENDPOINT, sent.outbound.bytes.data,
                           sent.outbound.bytes.len, &d1, NULL));
    CHECK(d1.tag == ZLINK_DECISION_PEER_REFUSED);
    zlink_decision_free(&d1);
    zlink_bytes_free(&sent.outbound.bytes);

    CHECK_RC(zlink_add_manual_peer(c.node[1], "", NULL), ZLINK_RESULT_TOO_LONG);
    CHECK_RC(zlink_add_manual_peer(c.node[1], NULL, NULL), ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_peer_opened(c.node[1], "\xc3", 1, NULL), ZLINK_RESULT_INVALID_UTF8);
    return cluster_free(&c);
}

/* ---------------------------------------------------------------- config */

static int test_redis_options_are_checked_before_connecting(void) {
    zlink_redis_options options;
    OK(zlink_redis_options_default(&options, NULL));
    CHECK(options.size == sizeof(zlink_redis_options));
    CHECK(options.connect_timeout_ms == 2000 && options.response_timeout_ms == 2000);
    CHECK(options.thread_connections == 64);
    CHECK(options.write_acks_mode == ZLINK_WRITE_ACKS_MODE_ALL_REPLICAS);
    CHECK(options.write_acks_replicas == 0 && options.write_ack_timeout_ms == 1000);
    zlink_store *store = NULL;
    zlink_error *err = NULL;
    zlink_redis_options wrong = options;
    wrong.size = sizeof(zlink_redis_options) - 8;
    CHECK_RC(zlink_store_redis_open_with("redis://127.0.0.1:1", NULL, &wrong, &store, &err),
             ZLINK_RESULT_INVALID_CONFIG);
    CHECK(strstr(zlink_error_message(err), "sizeof(zlink_redis_options)") != NULL);
    zlink_error_free(err);
    zlink_redis_options zero = options;
    zero.response_timeout_ms = 0;
    err = NULL;
    CHECK_RC(zlink_store_redis_open_with("redis://127.0.0.1:1", "p", &zero, &store, &err),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK(strcmp(zlink_error_kind(err), "Config") == 0);
    zlink_error_free(err);
    /* A port nothing listens on: refused within the connect timeout. */
    options.connect_timeout_ms = 200;
    options.thread_connections = 0;
    err = NULL;
    CHECK_RC(zlink_store_redis_open_with("redis://127.0.0.1:1", NULL, &options, &store, &err),
             ZLINK_RESULT_STORE_FAILURE);
    /* Refused, or timed out when the machine is slow (valgrind). */
    CHECK(strcmp(zlink_error_kind(err), "Unreachable") == 0 ||
          strcmp(zlink_error_kind(err), "Timeout") == 0);
    zlink_error_free(err);
    CHECK(store == NULL);
    return 0;
}

/* The write acknowledgement options the bridge refuses before connecting:
 * INVALID_ARGUMENT of the store's kind Config, naming the problem. */
static int redis_open_refused(const zlink_redis_options *options, const char *says) {
    zlink_store *store = NULL;
    zlink_error *err = NULL;
    CHECK_RC(zlink_store_redis_open_with("redis://127.0.0.1:1", NULL, options, &store, &err),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK(strcmp(zlink_error_kind(err), "Config") == 0);
    if (strstr(zlink_error_message(err), says) == NULL) {
        fprintf(stderr, "  message: %s\n", zlink_error_message(err));
        zlink_error_free(err);
        CHECK(!"the message names the problem");
    }
    zlink_error_free(err);
    CHECK(store == NULL);
    return 0;
}

/* One actor activated on `store` by one runtime and resolved by another. */
static int activate_and_resolve(zlink_store *store, const char *id) {
    zlink_runtime *owner = NULL, *sender = NULL;
    zlink_node_identity a = {.mesh = "main", .rid = 1, .generation = 1, .lease = 1};
    zlink_node_identity b = {.mesh = "main", .rid = 2, .generation = 1, .lease = 2};
    OK(zlink_runtime_new(&a, NULL, store, NULL, &owner, NULL));
    OK(zlink_runtime_new(&b, NULL, store, NULL, &sender, NULL));
    zlink_owned owned;
    OK(zlink_activate(owner, ACTOR, ID(id), &owned, NULL));
    CHECK(owned.state == ZLINK_AUTHORITY_STATE_READY);
    zlink_resolution r;
    OK(zlink_resolve(sender, ACTOR, ID(id), &r, NULL));
    CHECK(r.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE && r.route.node_rid == 1);
    OK(zlink_runtime_free(sender, NULL));
    OK(zlink_runtime_free(owner, NULL));
    return 0;
}

static int test_write_acks_options(void) {
    zlink_redis_options defaults;
    OK(zlink_redis_options_default(&defaults, NULL));
    zlink_redis_options bad = defaults;
    bad.write_acks_mode = ZLINK_WRITE_ACKS_MODE_REPLICAS;
    bad.write_acks_replicas = 0;
    if (redis_open_refused(&bad, "at least 1")) return 1;
    bad.write_acks_mode = 0;
    if (redis_open_refused(&bad, "write_acks mode 0 is not ALL_REPLICAS (1)")) return 1;
    bad.write_acks_mode = 99;
    if (redis_open_refused(&bad, "write_acks mode 99")) return 1;
    bad = defaults;
    bad.write_ack_timeout_ms = 0;
    if (redis_open_refused(&bad, "write_ack_timeout")) return 1;

    /* A server of run.sh's own (ZLINK_TEST_REDIS_URL). */
    const char *url = getenv("ZLINK_TEST_REDIS_URL");
    if (url == NULL) {
        printf("     (no ZLINK_TEST_REDIS_URL: skipped the live part)\n");
        return 0;
    }
    char prefix[64];
    zlink_store *store = NULL;
    zlink_error *err = NULL;
    /* The default (every replica: none on a server without replicas). */
    snprintf(prefix, sizeof prefix, "c%ld-default", (long)getpid());
    OK(zlink_store_redis_open_with(url, prefix, &defaults, &store, NULL));
    if (activate_and_resolve(store, "acked")) return 1;
    OK(zlink_store_free(store, NULL));
    /* The primary's answer alone; a zero ack timeout is allowed then. */
    zlink_redis_options primary = defaults;
    primary.write_acks_mode = ZLINK_WRITE_ACKS_MODE_PRIMARY_ONLY;
    primary.write_ack_timeout_ms = 0;
    snprintf(prefix, sizeof prefix, "c%ld-primary", (long)getpid());
    store = NULL;
    OK(zlink_store_redis_open_with(url, prefix, &primary, &store, NULL));
    if (activate_and_resolve(store, "unacked")) return 1;
    OK(zlink_store_free(store, NULL));
    /* More replicas than the server has: refused when connecting. */
    zlink_redis_options five = defaults;
    five.write_acks_mode = ZLINK_WRITE_ACKS_MODE_REPLICAS;
    five.write_acks_replicas = 5;
    store = NULL;
    CHECK_RC(zlink_store_redis_open_with(url, NULL, &five, &store, &err),
             ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK(strcmp(zlink_error_kind(err), "Config") == 0);
    CHECK(strstr(zlink_error_message(err), "has 0") != NULL);
    zlink_error_free(err);
    CHECK(store == NULL);
    return 0;
}

/* ---------------------------------------------------------------- store recovery */

/* Runs redis-cli against the port of `url` (redis://host:PORT). */
static int redis_cli(const char *url, const char *args) {
    const char *colon = strrchr(url, ':');
    CHECK(colon != NULL);
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    CHECK(end != colon + 1 && port > 0 && port < 65536);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "redis-cli -p %ld %s >/dev/null", port, args);
    CHECK(system(cmd) == 0);
    return 0;
}

static void sleep_ms(long ms) {
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

typedef struct {
    zlink_store *store[2];
    zlink_runtime *owner, *sender;
    zlink_sent to_x, to_kept;
    zlink_decision decided[64];
    int count;
} fence_world;

static int fence_run(fence_world *w, const char *url) {
    char prefix[64], del[96];
    /* Its own prefix per process: run.sh runs this file twice (shared,
     * static) against one server. */
    snprintf(prefix, sizeof prefix, "c%ld-fence", (long)getpid());
    snprintf(del, sizeof del, "DEL '%s:{actor:x}'", prefix);
    zlink_redis_options options;
    OK(zlink_redis_options_default(&options, NULL));
    options.epoch_check_interval_ms = 50;
    OK(zlink_store_redis_open_with(url, prefix, &options, &w->store[0], NULL));
    OK(zlink_store_redis_open_with(url, prefix, &options, &w->store[1], NULL));
    zlink_node_identity a = {.mesh = "main", .rid = 1, .generation = 1, .lease = 1};
    zlink_node_identity b = {.mesh = "main", .rid = 4, .generation = 1, .lease = 4};
    OK(zlink_runtime_new(&a, NULL, w->store[0], NULL, &w->owner, NULL));
    OK(zlink_runtime_new(&b, NULL, w->store[1], NULL, &w->sender, NULL));
    OK(zlink_activate(w->owner, ACTOR, ID("x"), NULL, NULL));
    OK(zlink_activate(w->owner, ACTOR, ID("kept"), NULL, NULL));
    OK(zlink_send(w->sender, ACTOR, ID("x"), ID("m"), NULL, &w->to_x, NULL));
    OK(zlink_send(w->sender, ACTOR, ID("kept"), ID("m"), NULL, &w->to_kept, NULL));
    CHECK(w->to_x.tag == ZLINK_SENT_TAG_SUBMITTED && w->to_x.outbound.to.rid == 1);
    CHECK(w->to_kept.tag == ZLINK_SENT_TAG_SUBMITTED && w->to_kept.outbound.to.rid == 1);

    /* The store loses x's record (as a failover to a stale replica does)
     * and every client reconnects: a new store epoch. */
    if (redis_cli(url, del)) return 1;
    if (redis_cli(url, "CLIENT KILL TYPE normal")) return 1;
    sleep_ms(500); /* the owner's store sees the new epoch (checked every 50 ms) */

    zlink_decision d;
    OK(zlink_on_frame(w->owner, 4, w->to_x.outbound.bytes.data, w->to_x.outbound.bytes.len, &d,
                      NULL));
    zlink_decision_Tag held_x = d.tag;
    zlink_decision_free(&d);
    CHECK(held_x == ZLINK_DECISION_HELD);
    OK(zlink_on_frame(w->owner, 4, w->to_kept.outbound.bytes.data,
                      w->to_kept.outbound.bytes.len, &d, NULL));
    zlink_decision_Tag held_kept = d.tag;
    zlink_decision_free(&d);
    CHECK(held_kept == ZLINK_DECISION_HELD);

    /* The host's timer loop: the re-read of the records decides them. */
    const zlink_decision *lost = NULL, *deliver = NULL, *reject = NULL;
    int lost_count = 0, reject_count = 0;
    for (int polls = 0; lost == NULL || deliver == NULL; polls++) {
        if (polls >= 2000) { /* 10 s */
            fprintf(stderr, "  decided %d:", w->count);
            for (int i = 0; i < w->count; i++) fprintf(stderr, " %u", w->decided[i].tag);
            fprintf(stderr, "\n");
            CHECK(!"an OWNERSHIP_LOST and a DELIVER within 10 s");
        }
        uint64_t due = 0, now = 0;
        bool has = false;
        OK(zlink_next_deadline(w->owner, &due, &has, NULL));
        OK(zlink_now(w->owner, &now, NULL));
        if (has && due <= now) {
            zlink_decision_list list;
            OK(zlink_on_timeout(w->owner, now, &list, NULL));
            int overflow = 0;
            for (size_t i = 0; i < list.count; i++) {
                if (w->count >= 64) {
                    overflow = 1;
                    break;
                }
                zlink_decision *x = &w->decided[w->count++];
                *x = list.items[i]; /* moved out of the list */
                memset(&list.items[i], 0, sizeof list.items[i]);
                if (x->tag == ZLINK_DECISION_OWNERSHIP_LOST) {
                    lost = x;
                    lost_count++;
                } else if (x->tag == ZLINK_DECISION_DELIVER && deliver == NULL) {
                    deliver = x;
                } else if (x->tag == ZLINK_DECISION_REJECT) {
                    reject = x;
                    reject_count++;
                }
            }
            zlink_decision_list_free(&list);
            CHECK(!overflow);
        }
        sleep_ms(5);
    }

    CHECK(lost_count == 1);
    CHECK(lost->ownership_lost.kind == ACTOR && BYTES_EQ(lost->ownership_lost.id, "x"));
    CHECK(lost->ownership_lost.reason == ZLINK_LOST_REASON_MISSING);
    const zlink_operation *op = &deliver->deliver.operation;
    CHECK(op->kind == ACTOR && STR_EQ(op->id, "kept"));
    CHECK(STR_EQ(op->payload, "m") && op->operation_id == w->to_kept.operation_id);
    zlink_route_end end;
    bool found = true;
    OK(zlink_owner_route_end(w->owner, ACTOR, ID("x"), &end, &found, NULL));
    CHECK(!found);
    OK(zlink_owner_route_end(w->owner, ACTOR, ID("kept"), &end, &found, NULL));
    CHECK(found && end.node.rid == 1); /* its record still names node 1 */

    /* x's held message is refused to its sender: it ends Unavailable. */
    const zlink_outbound *refusal = &reject->reject.outbound;
    CHECK(reject_count == 1 && refusal->to.rid == 4);
    OK(zlink_on_frame(w->sender, 1, refusal->bytes.data, refusal->bytes.len, &d, NULL));
    zlink_decision_Tag ended = d.tag;
    zlink_failure failure = d.ended.failure;
    uint64_t operation = d.ended.operation_id;
    zlink_decision_free(&d);
    CHECK(ended == ZLINK_DECISION_ENDED);
    CHECK(failure == ZLINK_FAILURE_UNAVAILABLE);
    CHECK(operation == w->to_x.operation_id);
    return 0;
}

/* Owners fence themselves on a store recovery event (docs/runtime.md,
 * OwnershipLost), on run.sh's redis-server: the owner holds the frames that
 * arrive, re-reads its records, gives up the one the store lost and refuses
 * its held work. The same test as Python's, Node's and the JVM's. */
static int test_an_owner_whose_record_a_recovery_lost_holds_then_gives_the_object_up(void) {
    CHECK(ZLINK_DECISION_OWNERSHIP_LOST == 22);
    const char *url = getenv("ZLINK_TEST_REDIS_URL");
    if (url == NULL) {
        printf("     (no ZLINK_TEST_REDIS_URL: skipped)\n");
        return 0;
    }
    fence_world w;
    memset(&w, 0, sizeof w);
    int rc = fence_run(&w, url);
    for (int i = 0; i < w.count; i++) zlink_decision_free(&w.decided[i]);
    zlink_bytes_free(&w.to_x.outbound.bytes);
    zlink_bytes_free(&w.to_kept.outbound.bytes);
    OK(zlink_runtime_free(w.sender, NULL));
    OK(zlink_runtime_free(w.owner, NULL));
    OK(zlink_store_free(w.store[1], NULL));
    OK(zlink_store_free(w.store[0], NULL));
    return rc;
}

static int test_config_size_and_update(void) {
    cluster c;
    if (cluster_new(&c, 1)) return 1;
    zlink_config config;
    OK(zlink_config_default(&config, NULL));
    CHECK(config.size == sizeof(zlink_config));
    zlink_config wrong = config;
    wrong.size = sizeof(zlink_config) - 8;
    zlink_error *err = NULL;
    zlink_runtime *other = NULL;
    zlink_node_identity id = {.mesh = "m", .rid = 9, .generation = 1, .lease = 9};
    CHECK_RC(zlink_runtime_new(&id, &wrong, NULL, NULL, &other, &err),
             ZLINK_RESULT_INVALID_CONFIG);
    CHECK(strstr(zlink_error_message(err), "sizeof(zlink_config)") != NULL);
    zlink_error_free(err);
    CHECK(other == NULL);
    CHECK_RC(zlink_update_config(c.node[0], &wrong, NULL), ZLINK_RESULT_INVALID_CONFIG);

    config.message_follow_duration_ms = 60000;
    config.route_cache_max_age_ms = 20000;
    OK(zlink_update_config(c.node[0], &config, NULL));
    zlink_config now;
    OK(zlink_config_get(c.node[0], &now, NULL));
    CHECK(now.size == sizeof now && now.message_follow_duration_ms == 60000);
    CHECK(now.route_cache_max_age_ms == 20000);
    config.route_cache_max_age_ms = 58000; /* must stay 5 s under follow */
    CHECK_RC(zlink_update_config(c.node[0], &config, NULL), ZLINK_RESULT_INVALID_CONFIG);
    OK(zlink_config_get(c.node[0], &now, NULL));
    CHECK(now.route_cache_max_age_ms == 20000);
    CHECK_RC(zlink_update_config(c.node[0], NULL, NULL), ZLINK_RESULT_NULL_POINTER);
    return cluster_free(&c);
}

/* Log lines the callback collected (copied: the strings die with the call). */
typedef struct {
    pthread_mutex_t lock;
    char lines[32][512];
    zlink_log_level levels[32];
    int count;
    zlink_runtime *rt;      /* called back from the callback */
    bool reentered;
    pthread_t thread;
} log_box;

static void on_log(zlink_log_level level, const char *target, const char *message,
                   void *userdata) {
    log_box *box = userdata;
    /* The host may call into the runtime from its log callback. */
    zlink_stats s;
    bool reentered = zlink_stats_get(box->rt, &s, NULL) == ZLINK_RESULT_OK;
    pthread_mutex_lock(&box->lock);
    if (box->count < 32) {
        snprintf(box->lines[box->count], sizeof box->lines[0], "%s: %s", target, message);
        box->levels[box->count] = level;
        box->count++;
    }
    box->reentered = reentered;
    box->thread = pthread_self();
    pthread_mutex_unlock(&box->lock);
}

/* Index of the first collected line containing `text`, waiting up to 5 s; -1 if none. */
static int wait_for_line(log_box *box, const char *text) {
    struct timespec tick = {0, 1000000};
    for (int i = 0; i < 5000; i++) {
        pthread_mutex_lock(&box->lock);
        for (int j = 0; j < box->count; j++) {
            if (strstr(box->lines[j], text)) {
                pthread_mutex_unlock(&box->lock);
                return j;
            }
        }
        pthread_mutex_unlock(&box->lock);
        nanosleep(&tick, NULL);
    }
    return -1;
}

static int log_count(log_box *box) {
    pthread_mutex_lock(&box->lock);
    int n = box->count;
    pthread_mutex_unlock(&box->lock);
    return n;
}

static int test_log_callback_forwards_core_records(void) {
    CHECK(ZLINK_LOG_LEVEL_ERROR == 1 && ZLINK_LOG_LEVEL_TRACE == 5);
    CHECK(ZLINK_RESULT_LOG_SUBSCRIBER_TAKEN == 20);
    static log_box box;
    memset(&box, 0, sizeof box);
    pthread_mutex_init(&box.lock, NULL);
    zlink_error *err = NULL;
    CHECK_RC(zlink_set_log_callback(on_log, &box, 0, &err), ZLINK_RESULT_INVALID_ARGUMENT);
    CHECK(zlink_error_code(err) == ZLINK_RESULT_INVALID_ARGUMENT);
    zlink_error_free(err);
    CHECK_RC(zlink_set_log_callback(on_log, &box, 6, NULL), ZLINK_RESULT_INVALID_ARGUMENT);

    cluster c;
    if (cluster_new(&c, 2)) return 1;
    box.rt = c.node[1];
    zlink_owned owned;
    OK(zlink_activate(c.node[0], ZLINK_OBJECT_KIND_ACTOR, ID("logged"), &owned, NULL));
    zlink_resolution r;
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("logged"), &r, NULL));
    CHECK(r.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE);

    /* At WARN, the info of a store recovery is filtered out; at INFO, the
     * lease invalidation after it arrives (and is the first line: one queue). */
    OK(zlink_set_log_callback(on_log, &box, ZLINK_LOG_LEVEL_WARN, NULL));
    size_t removed = 0;
    OK(zlink_on_store_recovery(c.node[1], &removed, NULL));
    CHECK(removed == 1);
    OK(zlink_resolve(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("logged"), &r, NULL));
    OK(zlink_set_log_callback(on_log, &box, ZLINK_LOG_LEVEL_INFO, NULL));
    OK(zlink_on_owner_lease_invalidated(c.node[1], 1, 1, &removed, NULL));
    CHECK(removed == 1);
    int at = wait_for_line(&box, "owner lease invalidated");
    CHECK(at == 0);
    pthread_mutex_lock(&box.lock);
    int levels_ok = box.levels[0] == ZLINK_LOG_LEVEL_INFO;
    int text_ok = strncmp(box.lines[0], "zlink_core", 10) == 0 &&
                  strstr(box.lines[0], "removed=1") != NULL &&
                  strstr(box.lines[0], "recovered") == NULL;
    int thread_ok = !pthread_equal(box.thread, pthread_self());
    int reentered = box.reentered;
    pthread_mutex_unlock(&box.lock);
    if (!text_ok) fprintf(stderr, "  line: %s\n", box.lines[0]);
    CHECK(levels_ok && text_ok && thread_ok && reentered);

    /* Off: once the call returns, the callback is never called again. */
    OK(zlink_set_log_callback(NULL, NULL, ZLINK_LOG_LEVEL_INFO, NULL));
    int before = log_count(&box);
    OK(zlink_on_store_recovery(c.node[1], &removed, NULL));
    OK(zlink_on_owner_lease_invalidated(c.node[1], 2, 1, &removed, NULL));
    struct timespec pause = {0, 100000000};
    nanosleep(&pause, NULL);
    CHECK(log_count(&box) == before);
    pthread_mutex_destroy(&box.lock);
    return cluster_free(&c);
}

/* Batch calls: one handle check, every ID checked before anything is written. */
static int test_batch_lookup_and_resolve(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    const char *names[4] = {"batch-a", "batch-b", "nobody", "batch-c"};
    zlink_str ids[4];
    for (int i = 0; i < 4; i++) {
        ids[i] = (zlink_str){.ptr = (const uint8_t *)names[i], .len = strlen(names[i])};
        if (i != 2) OK(zlink_activate(c.node[0], ACTOR, ID(names[i]), NULL, NULL));
    }
    zlink_ready_route routes[4];
    bool found[4] = {true, true, true, true};
    OK(zlink_lookup_cached_many(c.node[1], ACTOR, ids, 4, routes, found, NULL));
    CHECK(!found[0] && !found[1] && !found[2] && !found[3]);

    zlink_resolution out[4];
    OK(zlink_resolve_many(c.node[1], ACTOR, ids, 4, out, NULL));
    for (int i = 0; i < 4; i++) {
        CHECK(out[i].tag == (i == 2 ? ZLINK_RESOLUTION_TAG_MISSING
                                    : ZLINK_RESOLUTION_TAG_READY_ROUTE));
    }
    CHECK(out[0].route.node_rid == 1 && strcmp(out[0].route.mesh, "test-mesh") == 0);
    /* Now hits: the same routes, one by one and as a batch. */
    zlink_resolution again[4];
    OK(zlink_resolve_many(c.node[1], ACTOR, ids, 4, again, NULL));
    OK(zlink_lookup_cached_many(c.node[1], ACTOR, ids, 4, routes, found, NULL));
    CHECK(found[0] && found[1] && !found[2] && found[3]);
    for (int i = 0; i < 4; i++) {
        if (i == 2) continue;
        zlink_ready_route one;
        bool hit = false;
        OK(zlink_lookup_cached(c.node[1], ACTOR, ID(names[i]), &one, &hit, NULL));
        CHECK(hit);
        CHECK(memcmp(&one, &routes[i], sizeof one) == 0);
        CHECK(memcmp(&one, &out[i].route, sizeof one) == 0);
        CHECK(memcmp(&one, &again[i].route, sizeof one) == 0);
    }
    zlink_stats s;
    OK(zlink_stats_get(c.node[1], &s, NULL));
    /* One read per miss; Missing is not cached, so "nobody" is read twice. */
    CHECK(s.cache_misses == 5 && s.store_reads == 5 && s.cache_hits == 9);

    /* A bad ID anywhere fails the whole batch and writes nothing. */
    zlink_str bad[3] = {ids[0], {.ptr = (const uint8_t *)"\xff\xfe", .len = 2}, ids[1]};
    memset(found, 0, sizeof found);
    memset(out, 0xAB, sizeof out);
    zlink_error *err = NULL;
    CHECK_RC(zlink_lookup_cached_many(c.node[1], ACTOR, bad, 3, routes, found, &err),
             ZLINK_RESULT_INVALID_UTF8);
    CHECK(err != NULL && strstr(zlink_error_message(err), "ids[1]") != NULL);
    zlink_error_free(err);
    CHECK(!found[0] && !found[2]);
    CHECK_RC(zlink_resolve_many(c.node[1], ACTOR, bad, 3, out, NULL), ZLINK_RESULT_INVALID_UTF8);
    bad[1] = (zlink_str){.ptr = NULL, .len = 3};
    CHECK_RC(zlink_resolve_many(c.node[1], ACTOR, bad, 3, out, NULL),
             ZLINK_RESULT_NULL_POINTER);
    bad[1] = (zlink_str){.ptr = (const uint8_t *)"", .len = 0};
    CHECK_RC(zlink_resolve_many(c.node[1], ACTOR, bad, 3, out, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    unsigned char *raw = (unsigned char *)out;
    for (size_t i = 0; i < sizeof out; i++) CHECK(raw[i] == 0xAB);

    /* Empty batches, NULL arrays, bad kinds and handles. */
    OK(zlink_lookup_cached_many(c.node[1], ACTOR, NULL, 0, NULL, NULL, NULL));
    OK(zlink_resolve_many(c.node[1], ACTOR, NULL, 0, NULL, NULL));
    CHECK_RC(zlink_resolve_many(c.node[1], ACTOR, NULL, 1, out, NULL),
             ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_lookup_cached_many(c.node[1], ACTOR, ids, 4, NULL, found, NULL),
             ZLINK_RESULT_NULL_POINTER);
    CHECK_RC(zlink_lookup_cached_many(c.node[1], 9, ids, 4, routes, found, NULL),
             ZLINK_RESULT_INVALID_ARGUMENT);
    zlink_runtime *gone = c.node[1];
    c.node[1] = NULL;
    OK(zlink_runtime_free(gone, NULL));
    CHECK_RC(zlink_resolve_many(gone, ACTOR, ids, 4, out, NULL), ZLINK_RESULT_INVALID_HANDLE);
    CHECK_RC(zlink_lookup_cached_many(gone, ACTOR, ids, 4, routes, found, NULL),
             ZLINK_RESULT_INVALID_HANDLE);
    return cluster_free(&c);
}

/* Threads calling a runtime while another frees it: every call either runs
 * on the live runtime or gets INVALID_HANDLE (valgrind sees any use after
 * free); the free returns once the calls in flight are done. */
typedef struct {
    zlink_runtime *rt;
    atomic_int calls;
    atomic_int hits;
    atomic_int others;
    atomic_int started;
} race_box;

static void *race_caller(void *arg) {
    race_box *box = arg;
    zlink_str id = {.ptr = (const uint8_t *)"racer", .len = 5};
    atomic_fetch_add(&box->started, 1);
    for (;;) {
        zlink_ready_route route;
        bool found = false;
        zlink_result rc = zlink_lookup_cached(box->rt, ACTOR, id.ptr, id.len, &route, &found, NULL);
        if (rc == ZLINK_RESULT_OK) {
            zlink_resolution r;
            rc = zlink_resolve_many(box->rt, ACTOR, &id, 1, &r, NULL);
        }
        atomic_fetch_add(&box->calls, 1);
        if (rc == ZLINK_RESULT_INVALID_HANDLE) return NULL;
        if (rc != ZLINK_RESULT_OK) {
            atomic_fetch_add(&box->others, 1);
            return NULL;
        }
        if (found) atomic_fetch_add(&box->hits, 1);
    }
}

static int test_free_racing_calls_on_other_threads(void) {
    cluster c;
    if (cluster_new(&c, 2)) return 1;
    OK(zlink_activate(c.node[0], ACTOR, ID("racer"), NULL, NULL));
    zlink_resolution r;
    OK(zlink_resolve(c.node[1], ACTOR, ID("racer"), &r, NULL));
    race_box box = {.rt = c.node[1]};
    enum { THREADS = 4 };
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_create(&threads[i], NULL, race_caller, &box) == 0);
    }
    while (atomic_load(&box.started) < THREADS || atomic_load(&box.hits) < 50) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    c.node[1] = NULL;
    OK(zlink_runtime_free(box.rt, NULL));
    for (int i = 0; i < THREADS; i++) {
        CHECK(pthread_join(threads[i], NULL) == 0);
    }
    CHECK(atomic_load(&box.others) == 0);
    CHECK(atomic_load(&box.calls) >= atomic_load(&box.hits));
    return cluster_free(&c);
}

int main(void) {
    run("version_macros_match_the_library", test_version_macros_match_the_library);
    run("resolve_cold_then_warm", test_resolve_cold_then_warm);
    run("lease_expiry_on_the_manual_clock", test_lease_expiry_on_the_manual_clock);
    run("relocation_with_a_stale_route_is_rejected_then_refreshed",
        test_relocation_with_a_stale_route_is_rejected_then_refreshed);
    run("relocation_with_message_follow_relays_and_notifies",
        test_relocation_with_message_follow_relays_and_notifies);
    run("request_reply_completes_once", test_request_reply_completes_once);
    run("async_resolve_calls_back_on_a_runtime_thread",
        test_async_resolve_calls_back_on_a_runtime_thread);
    run("bad_input_of_every_kind_is_an_error_code",
        test_bad_input_of_every_kind_is_an_error_code);
    run("session_relocation_holds_messages_until_command_44",
        test_session_relocation_holds_messages_until_command_44);
    run("a_seal_without_command_44_closes_the_session",
        test_a_seal_without_command_44_closes_the_session);
    run("an_aborted_relocation_releases_held_messages_to_the_source",
        test_an_aborted_relocation_releases_held_messages_to_the_source);
    run("relocation_handoff_moves_an_actor_between_two_runtimes",
        test_relocation_handoff_moves_an_actor_between_two_runtimes);
    run("an_abort_before_relay_ready_delivers_the_held_work_on_the_source",
        test_an_abort_before_relay_ready_delivers_the_held_work_on_the_source);
    run("relocation_calls_refuse_bad_input", test_relocation_calls_refuse_bad_input);
    run("error_reply_and_spot_origin", test_error_reply_and_spot_origin);
    run("a_frame_on_another_nodes_connection_is_refused",
        test_a_frame_on_another_nodes_connection_is_refused);
    run("timeouts_and_shutdown_complete_pending_requests",
        test_timeouts_and_shutdown_complete_pending_requests);
    run("manual_peer_replacement_after_close", test_manual_peer_replacement_after_close);
    run("config_size_and_update", test_config_size_and_update);
    run("redis_options_are_checked_before_connecting", test_redis_options_are_checked_before_connecting);
    run("write_acks_options", test_write_acks_options);
    run("an_owner_whose_record_a_recovery_lost_holds_then_gives_the_object_up",
        test_an_owner_whose_record_a_recovery_lost_holds_then_gives_the_object_up);
    run("log_callback_forwards_core_records", test_log_callback_forwards_core_records);
    run("batch_lookup_and_resolve", test_batch_lookup_and_resolve);
    run("free_racing_calls_on_other_threads", test_free_racing_calls_on_other_threads);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
