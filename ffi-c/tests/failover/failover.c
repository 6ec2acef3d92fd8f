/*
 * Issue 27's scenario through the installed libzlink, on a real Redis
 * Sentinel group and a real Redis Cluster with replicas (docs/c.md,
 * docs/location-store.md "Failover and durability"). The testkit's
 * zlink-failover kit (argv[1]) runs the servers: it cuts object x's replica
 * off, then kills x's primary and waits until the stale replica is
 * promoted, so a write only the primary had is lost.
 *
 * With durable writes (the default) node A's activation reaches no
 * replica, so A never acts on it; after the failover B owns x alone: no
 * two owners deliver. The same test as Python's, Node's and the JVM's.
 *
 * Run by ffi-c/tests/run.sh against the shared library, without valgrind:
 * the scenario depends on store timeouts of a few hundred milliseconds.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <zlink.h>

#include "../check.h"

#define ACTOR ZLINK_OBJECT_KIND_ACTOR

/* How long after the primary's death x may stay unusable. */
#define USABLE_AGAIN_MS 20000

static void sleep_ms(long ms) {
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static long elapsed_ms(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* ------------------------------------------------------------ the kit */

/* The zlink-failover process, driven one line at a time over pipes. */
typedef struct {
    pid_t pid;
    FILE *commands, *answers;
    char url[2048];
} kit;

static int kit_line(kit *k, char *line, size_t size) {
    CHECK(fgets(line, (int)size, k->answers) != NULL);
    line[strcspn(line, "\n")] = '\0';
    return 0;
}

static int kit_start(kit *k, const char *path, const char *deployment) {
    int to[2], from[2];
    CHECK(pipe(to) == 0 && pipe(from) == 0);
    k->pid = fork();
    CHECK(k->pid >= 0);
    if (k->pid == 0) {
        dup2(to[0], STDIN_FILENO);
        dup2(from[1], STDOUT_FILENO);
        close(to[0]), close(to[1]), close(from[0]), close(from[1]);
        execl(path, path, deployment, (char *)NULL);
        perror("exec zlink-failover");
        _exit(127);
    }
    close(to[0]), close(from[1]);
    k->commands = fdopen(to[1], "w");
    k->answers = fdopen(from[0], "r");
    CHECK(k->commands != NULL && k->answers != NULL);
    char line[sizeof k->url + 8];
    if (kit_line(k, line, sizeof line)) return 1;
    CHECK(strncmp(line, "ready ", 6) == 0);
    snprintf(k->url, sizeof k->url, "%s", line + 6);
    return 0;
}

static int kit_command(kit *k, const char *command) {
    char line[512];
    fprintf(k->commands, "%s\n", command);
    fflush(k->commands);
    if (kit_line(k, line, sizeof line)) return 1;
    if (strncmp(line, "ok", 2) != 0) {
        fprintf(stderr, "  %s: %s\n", command, line);
        return 1;
    }
    return 0;
}

/* Closing its stdin stops every server and ends the kit. */
static void kit_stop(kit *k) {
    if (k->commands != NULL) fclose(k->commands);
    if (k->answers != NULL) fclose(k->answers);
    if (k->pid > 0) waitpid(k->pid, NULL, 0);
}

/* ------------------------------------------------------------ the nodes */

typedef struct {
    zlink_store *store[3];
    zlink_runtime *node[3]; /* A (rid 1), B (rid 2), D (rid 4) */
    zlink_sent to_b;
} world;

static int world_new(world *w, const char *url) {
    static const uint64_t rids[3] = {1, 2, 4};
    zlink_redis_options options;
    OK(zlink_redis_options_default(&options, NULL));
    options.connect_timeout_ms = 500;
    options.response_timeout_ms = 1000;
    options.epoch_check_interval_ms = 200;
    options.write_ack_timeout_ms = 300; /* write_acks: every known replica */
    for (int i = 0; i < 3; i++) {
        zlink_node_identity id = {
            .mesh = "failover", .rid = rids[i], .generation = 1, .lease = rids[i]};
        /* A store connection per node, as each process has. */
        OK(zlink_store_redis_open_with(url, NULL, &options, &w->store[i], NULL));
        OK(zlink_runtime_new(&id, NULL, w->store[i], NULL, &w->node[i], NULL));
    }
    return 0;
}

static void world_free(world *w) {
    zlink_bytes_free(&w->to_b.outbound.bytes);
    for (int i = 0; i < 3; i++) {
        if (w->node[i] != NULL) zlink_runtime_free(w->node[i], NULL);
        if (w->store[i] != NULL) zlink_store_free(w->store[i], NULL);
    }
}

static int owns_x(const zlink_runtime *rt, bool *found) {
    zlink_route_end end;
    OK(zlink_owner_route_end(rt, ACTOR, ID("x"), &end, found, NULL));
    return 0;
}

/* Whether `rt` delivers `frame`: at once, or once the work it held (a node
 * whose write was answered across the failover re-checks it first) is
 * released by its timer. */
static int delivers(zlink_runtime *rt, const zlink_bytes *frame, bool *delivered) {
    zlink_decision d;
    OK(zlink_on_frame(rt, 4, frame->data, frame->len, &d, NULL));
    zlink_decision_Tag first = d.tag;
    zlink_decision_free(&d);
    *delivered = first == ZLINK_DECISION_DELIVER;
    if (first != ZLINK_DECISION_HELD) return 0;
    for (int polls = 0; polls < 2000; polls++) { /* 10 s */
        uint64_t due = 0, now = 0;
        bool has = false;
        OK(zlink_next_deadline(rt, &due, &has, NULL));
        OK(zlink_now(rt, &now, NULL));
        if (has && due <= now) {
            zlink_decision_list list;
            OK(zlink_on_timeout(rt, now, &list, NULL));
            size_t count = list.count;
            for (size_t i = 0; i < count; i++) {
                *delivered |= list.items[i].tag == ZLINK_DECISION_DELIVER;
            }
            zlink_decision_list_free(&list);
            if (count > 0) return 0;
        }
        sleep_ms(5);
    }
    return 0;
}

static int scenario(world *w, kit *k) {
    zlink_runtime *a = w->node[0], *b = w->node[1], *d = w->node[2];
    if (kit_command(k, "cut-off")) return 1;

    zlink_error *error = NULL;
    zlink_result unknown = zlink_activate(a, ACTOR, ID("x"), NULL, &error);
    CHECK(unknown == ZLINK_RESULT_STORE_FAILURE);
    CHECK(error != NULL);
    const char *why = zlink_error_message(error);
    int not_replicated = strstr(why, "not acknowledged by enough replicas") != NULL;
    if (!not_replicated) fprintf(stderr, "  activation: %s\n", why);
    zlink_error_free(error);
    CHECK(not_replicated);
    bool found = true;
    if (owns_x(a, &found)) return 1;
    CHECK(!found); /* the writer does not act as owner */
    zlink_sent none;
    OK(zlink_send(d, ACTOR, ID("x"), ID("m"), NULL, &none, NULL));
    CHECK(none.tag == ZLINK_SENT_TAG_UNAVAILABLE);
    CHECK(none.reason == ZLINK_UNAVAILABLE_REASON_CREATING);

    if (kit_command(k, "fail-over")) return 1;
    struct timespec died;
    clock_gettime(CLOCK_MONOTONIC, &died);
    for (;;) {
        zlink_result rc = zlink_activate(b, ACTOR, ID("x"), NULL, NULL);
        if (rc == ZLINK_RESULT_OK) break;
        CHECK(elapsed_ms(&died) < USABLE_AGAIN_MS);
        sleep_ms(100);
    }

    OK(zlink_send(d, ACTOR, ID("x"), ID("m"), NULL, &w->to_b, NULL));
    CHECK(w->to_b.tag == ZLINK_SENT_TAG_SUBMITTED && w->to_b.outbound.to.rid == 2);
    bool delivered = false;
    if (delivers(b, &w->to_b.outbound.bytes, &delivered)) return 1;
    CHECK(delivered);
    /* A never owned x: the same frame reaching A is not delivered. */
    if (owns_x(a, &found)) return 1;
    CHECK(!found);
    zlink_decision at_a;
    OK(zlink_on_frame(a, 4, w->to_b.outbound.bytes.data, w->to_b.outbound.bytes.len, &at_a, NULL));
    zlink_decision_Tag kind = at_a.tag;
    zlink_decision_free(&at_a);
    CHECK(kind != ZLINK_DECISION_DELIVER);
    return 0;
}

static int run(const char *kit_path, const char *deployment) {
    kit k;
    world w;
    memset(&k, 0, sizeof k);
    memset(&w, 0, sizeof w);
    int rc = kit_start(&k, kit_path, deployment);
    if (rc == 0) rc = world_new(&w, k.url);
    if (rc == 0) rc = scenario(&w, &k);
    world_free(&w);
    kit_stop(&k);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH-TO-zlink-failover\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a dead kit is a failed check, not a crash */
    static const char *deployments[] = {"sentinel", "cluster"};
    int failed = 0;
    for (int i = 0; i < 2; i++) {
        char name[96];
        snprintf(name, sizeof name, "a write no replica acknowledged is never acted on (%s)",
                 deployments[i]);
        current = name;
        int rc = run(argv[1], deployments[i]);
        printf("%s %s\n", rc == 0 ? "ok  " : "FAIL", name);
        failed += rc != 0;
    }
    printf("%d passed, %d failed\n", 2 - failed, failed);
    return failed != 0;
}
