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

#include <zlink.h>

static int passed, failed;
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

static int test_version_macros_match_the_library(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", ZLINK_VERSION_MAJOR, ZLINK_VERSION_MINOR,
             ZLINK_VERSION_PATCH);
    CHECK(strcmp(zlink_version(), want) == 0);
    CHECK(strcmp(zlink_result_text(ZLINK_RESULT_OK), "ok") == 0);
    CHECK(strcmp(zlink_result_text(9999), "unknown zlink_result code") == 0);
    CHECK(ZLINK_RESULT_INVALID_HANDLE == 2 && ZLINK_RESULT_PANIC == 15);
    return 0;
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

/* Node 1 owns the actor, node 2 has its route cached, node 3 takes it over. */
static int relocate(cluster *c, const char *id, bool follow) {
    zlink_owned source, target;
    OK(zlink_activate(c->node[0], ZLINK_OBJECT_KIND_ACTOR, ID(id), &source, NULL));
    zlink_resolution r;
    OK(zlink_resolve(c->node[1], ZLINK_OBJECT_KIND_ACTOR, ID(id), &r, NULL));
    CHECK(r.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE && r.route.node_rid == 1);
    OK(zlink_commit_relocation(c->node[2], ZLINK_OBJECT_KIND_ACTOR, ID(id), &source.fence,
                               &target, NULL));
    CHECK(target.fence.authority_owner_generation ==
          source.fence.authority_owner_generation + 1);
    if (follow) {
        zlink_route_end end;
        bool found = false;
        OK(zlink_owner_route_end(c->node[2], ZLINK_OBJECT_KIND_ACTOR, ID(id), &end, &found,
                                 NULL));
        CHECK(found && end.node.rid == 3);
        OK(zlink_relinquish_to(c->node[0], ZLINK_OBJECT_KIND_ACTOR, ID(id), &end, NULL,
                               NULL));
    } else {
        bool was = false;
        OK(zlink_relinquish(c->node[0], ZLINK_OBJECT_KIND_ACTOR, ID(id), &was, NULL));
        CHECK(was);
    }
    return 0;
}

static int test_relocation_with_a_stale_route_is_rejected_then_refreshed(void) {
    cluster c;
    if (cluster_new(&c, 3)) return 1;
    if (relocate(&c, "actor-7", false)) return 1;

    /* Node 2 still routes to node 1. */
    zlink_sent sent;
    OK(zlink_send(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("actor-7"), ID("hi"), NULL, &sent,
                  NULL));
    CHECK(sent.tag == ZLINK_SENT_TAG_SUBMITTED && sent.outbound.to.rid == 1);

    zlink_decision at_old;
    OK(zlink_on_frame(c.node[0], sent.outbound.bytes.data, sent.outbound.bytes.len, &at_old,
                      NULL));
    zlink_bytes_free(&sent.outbound.bytes);
    zlink_bytes_free(&sent.outbound.bytes); /* a second free is a no-op */
    CHECK(at_old.kind == ZLINK_DECISION_KIND_REJECT && at_old.frame_count == 1);
    CHECK(at_old.frames[0].to.rid == 2);

    zlink_decision back;
    OK(zlink_on_frame(c.node[1], at_old.frames[0].bytes.data, at_old.frames[0].bytes.len,
                      &back, NULL));
    zlink_decision_free(&at_old);
    zlink_decision_free(&at_old);
    CHECK(back.kind == ZLINK_DECISION_KIND_ENDED);
    CHECK(back.failure == ZLINK_FAILURE_UNAVAILABLE);
    CHECK(back.reason == ZLINK_UNAVAILABLE_REASON_STALE_ROUTE);
    CHECK(back.target_id.len == 7 && memcmp(back.target_id.data, "actor-7", 7) == 0);
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
    if (relocate(&c, "actor-8", true)) return 1;

    zlink_sent sent;
    OK(zlink_send(c.node[1], ZLINK_OBJECT_KIND_ACTOR, ID("actor-8"), ID("move"), NULL, &sent,
                  NULL));
    CHECK(sent.outbound.to.rid == 1);
    zlink_decision relay;
    OK(zlink_on_frame(c.node[0], sent.outbound.bytes.data, sent.outbound.bytes.len, &relay,
                      NULL));
    zlink_bytes_free(&sent.outbound.bytes);
    CHECK(relay.kind == ZLINK_DECISION_KIND_RELAY);
    CHECK(relay.has_notice && relay.frame_count == 2);
    CHECK(relay.frames[0].to.rid == 3 && relay.frames[1].to.rid == 2);

    zlink_decision delivered, refreshed;
    OK(zlink_on_frame(c.node[2], relay.frames[0].bytes.data, relay.frames[0].bytes.len,
                      &delivered, NULL));
    CHECK(delivered.kind == ZLINK_DECISION_KIND_DELIVER);
    CHECK(delivered.payload.len == 4 && memcmp(delivered.payload.data, "move", 4) == 0);
    CHECK(delivered.operation_id == sent.operation_id && !delivered.is_request);
    zlink_outbound reply;
    CHECK_RC(zlink_reply(c.node[2], &delivered, ID("x"), &reply, NULL),
             ZLINK_RESULT_NO_REPLY_ROUTE);
    OK(zlink_on_frame(c.node[1], relay.frames[1].bytes.data, relay.frames[1].bytes.len,
                      &refreshed, NULL));
    CHECK(refreshed.kind == ZLINK_DECISION_KIND_ROUTE_REFRESHED && refreshed.invalidated);
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
    OK(zlink_on_frame(c.node[0], req.outbound.bytes.data, req.outbound.bytes.len, &at_owner,
                      NULL));
    zlink_bytes_free(&req.outbound.bytes);
    CHECK(at_owner.kind == ZLINK_DECISION_KIND_DELIVER && at_owner.is_request);
    zlink_outbound reply;
    OK(zlink_reply(c.node[0], &at_owner, ID("pong"), &reply, NULL));
    zlink_decision_free(&at_owner);
    CHECK(reply.to.rid == 2);
    zlink_decision done, late;
    OK(zlink_on_frame(c.node[1], reply.bytes.data, reply.bytes.len, &done, NULL));
    CHECK(done.kind == ZLINK_DECISION_KIND_COMPLETED && done.outcome == ZLINK_OUTCOME_REPLY);
    CHECK(done.correlation == req.correlation);
    CHECK(done.payload.len == 4 && memcmp(done.payload.data, "pong", 4) == 0);
    OK(zlink_on_frame(c.node[1], reply.bytes.data, reply.bytes.len, &late, NULL));
    CHECK(late.kind == ZLINK_DECISION_KIND_LATE && late.correlation == req.correlation);
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
    OK(zlink_on_frame(rt, (const uint8_t *)"garbage", 7, &d, NULL));
    CHECK(d.kind == ZLINK_DECISION_KIND_DROPPED && d.detail.len > 0);
    zlink_decision_free(&d);
    OK(zlink_on_frame(rt, NULL, 0, &d, NULL));
    CHECK(d.kind == ZLINK_DECISION_KIND_DROPPED);
    zlink_decision_free(&d);
    CHECK_RC(zlink_on_frame(rt, NULL, 5, &d, NULL), ZLINK_RESULT_NULL_POINTER);

    zlink_error_free(NULL);
    zlink_bytes_free(NULL);
    zlink_decision_free(NULL);
    CHECK(zlink_error_message(NULL) == NULL);
    OK(zlink_runtime_free(NULL, NULL));
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
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
