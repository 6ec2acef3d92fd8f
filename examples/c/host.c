/*
 * A small C host of libzlink: two MeshNodes in one process share an
 * in-memory Location Store. Node 1 activates an actor; node 2 resolves it
 * (cold, then from its route cache), sends it a message and a request, and
 * node 1 decides what to do with each frame, delivers it and replies. The
 * "network" is a function call: a real host carries zlink_outbound.bytes
 * to zlink_outbound.to over its own transport.
 *
 *   make install PREFIX=/tmp/zlink
 *   export PKG_CONFIG_PATH=/tmp/zlink/lib/pkgconfig
 *   cc -std=c11 -Wall examples/c/host.c $(pkg-config --cflags --libs zlink) \
 *      -Wl,-rpath,/tmp/zlink/lib -o host && ./host
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlink.h>

static void die(const char *what, zlink_result rc, zlink_error *err) {
    fprintf(stderr, "%s: %s (%s)\n", what, zlink_result_text(rc),
            err ? zlink_error_message(err) : "");
    zlink_error_free(err);
    exit(1);
}

/* Every call takes an optional zlink_error **: a failure fills it in. */
static zlink_error *err;

#define TRY(call)                                                                        \
    do {                                                                                 \
        zlink_result rc_ = (call);                                                       \
        if (rc_ != ZLINK_RESULT_OK) die(#call, rc_, err);                                \
    } while (0)

static const char *ACTOR = "player-42";

/* The node a frame goes to, by routing ID. */
static zlink_runtime *nodes[3];

/* Hands one frame to its node and prints the decision. */
static void deliver(const zlink_outbound *frame, zlink_runtime *self);

/* A decision is a tagged union: `tag` says which member holds it. */
static void handle(zlink_runtime *rt, const zlink_decision *d) {
    switch (d->tag) {
    case ZLINK_DECISION_DELIVER: {
        const zlink_operation *op = &d->deliver.operation;
        printf("  node delivers operation %llu: \"%.*s\"%s\n",
               (unsigned long long)op->operation_id, (int)op->payload.len,
               (const char *)op->payload.ptr, op->is_request ? " (request)" : "");
        if (op->is_request) {
            zlink_outbound reply;
            TRY(zlink_reply(rt, d, (const uint8_t *)"welcome", 7, &reply, &err));
            deliver(&reply, rt);
            zlink_bytes_free(&reply.bytes);
        }
        break;
    }
    case ZLINK_DECISION_COMPLETED: {
        const zlink_completion *c = &d->completed.completion;
        if (c->outcome.tag == ZLINK_OUTCOME_REPLY) {
            printf("  request %llu completed: \"%.*s\"\n", (unsigned long long)c->correlation,
                   (int)c->outcome.reply.payload.len, (const char *)c->outcome.reply.payload.data);
        } else {
            printf("  request %llu ended (outcome %u)\n", (unsigned long long)c->correlation,
                   c->outcome.tag);
        }
        break;
    }
    case ZLINK_DECISION_RELAY:
        deliver(&d->relay.forward, rt);
        if (d->relay.notice != NULL) {
            deliver(&d->relay.notice->outbound, rt);
            TRY(zlink_notice_settled(rt, d, true, &err));
        }
        break;
    case ZLINK_DECISION_REJECT: deliver(&d->reject.outbound, rt); break;
    case ZLINK_DECISION_SEND:
        for (size_t i = 0; i < d->send.outbounds_count; i++) deliver(&d->send.outbounds[i], rt);
        break;
    default: printf("  decision kind %u\n", d->tag);
    }
}

static void deliver(const zlink_outbound *frame, zlink_runtime *self) {
    /* The frame arrives on `to`'s connection to its sender. */
    uint64_t from = 0;
    for (uint64_t rid = 1; rid <= 2; rid++) {
        if (nodes[rid] == self) from = rid;
    }
    zlink_runtime *to = nodes[frame->to.rid];
    zlink_decision d;
    TRY(zlink_on_frame(to, from, frame->bytes.data, frame->bytes.len, &d, &err));
    handle(to, &d);
    zlink_decision_free(&d);
}

int main(void) {
    printf("libzlink %s\n", zlink_version());
    if (zlink_abi_version() != ZLINK_ABI_VERSION) {
        fprintf(stderr, "libzlink has C ABI %u, this host was built for %u\n",
                zlink_abi_version(), ZLINK_ABI_VERSION);
        return 1;
    }
    zlink_store *store;
    TRY(zlink_store_memory_new(NULL, &store, &err));
    for (uint64_t rid = 1; rid <= 2; rid++) {
        zlink_node_identity id = {.mesh = "game", .rid = rid, .generation = 1, .lease = rid};
        TRY(zlink_runtime_new(&id, NULL, store, NULL, &nodes[rid], &err));
    }
    TRY(zlink_store_free(store, &err)); /* the runtimes keep it */

    zlink_owned owned;
    TRY(zlink_activate(nodes[1], ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ACTOR,
                       strlen(ACTOR), &owned, &err));
    printf("node 1 activated %s (generation %llu)\n", ACTOR,
           (unsigned long long)owned.fence.object_generation);

    for (int i = 0; i < 2; i++) {
        zlink_resolution r;
        TRY(zlink_resolve(nodes[2], ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ACTOR,
                          strlen(ACTOR), &r, &err));
        printf("node 2 resolves %s: %s node %llu of mesh %s\n", ACTOR,
               r.tag == ZLINK_RESOLUTION_TAG_READY_ROUTE ? "ReadyRoute," : "not ready,",
               (unsigned long long)r.route.node_rid, r.route.mesh);
    }

    zlink_sent sent;
    TRY(zlink_send(nodes[2], ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ACTOR, strlen(ACTOR),
                   (const uint8_t *)"hello", 5, NULL, &sent, &err));
    printf("node 2 sends to node %llu (%zu bytes)\n", (unsigned long long)sent.outbound.to.rid,
           sent.outbound.bytes.len);
    deliver(&sent.outbound, nodes[2]);
    zlink_bytes_free(&sent.outbound.bytes);

    TRY(zlink_request(nodes[2], ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ACTOR,
                      strlen(ACTOR), (const uint8_t *)"join?", 5, NULL, &sent, &err));
    printf("node 2 requests (correlation %llu)\n", (unsigned long long)sent.correlation);
    deliver(&sent.outbound, nodes[2]);
    zlink_bytes_free(&sent.outbound.bytes);

    zlink_stats s;
    TRY(zlink_stats_get(nodes[2], &s, &err));
    printf("node 2: %llu cache hits, %llu misses, %llu store reads\n",
           (unsigned long long)s.cache_hits, (unsigned long long)s.cache_misses,
           (unsigned long long)s.store_reads);
    TRY(zlink_runtime_free(nodes[1], &err));
    TRY(zlink_runtime_free(nodes[2], &err));
    return 0;
}
