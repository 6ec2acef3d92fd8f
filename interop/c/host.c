/*
 * The C host of the interop run (docs/interop.md): a small Spot runtime over
 * libzlink. It owns Actors (each records the payloads it receives and
 * answers requests with "re:" + payload), moves frames over TCP (the
 * framing of docs/interop.md) and asks zlink for every routing decision.
 * One thread, one poll() loop: the listening socket, the connections other
 * hosts opened to it, stdin (commands) and the runtime's next deadline.
 *
 *   ./c-host NAME RID REDIS_URL    (commands on stdin, answers on stdout)
 *
 * interop/run.sh compiles it: gcc -std=c11 -Wall -Wextra -Werror host.c -lzlink
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <zlink.h>

#define MAX_PEERS 16
#define MAX_CONNS 32
#define MAX_ITEMS 8192

/* A growable list of strings (an Actor's state, the error list) or numbers. */
typedef struct { char **items; size_t len, cap; } strs;
typedef struct { uint64_t *items; size_t len, cap; } nums;

static void strs_push(strs *l, const char *s, size_t n) {
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->len] = strndup(s, n);
    l->len++;
}

static void nums_push(nums *l, uint64_t v) {
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->len++] = v;
}

static void strs_clear(strs *l) {
    for (size_t i = 0; i < l->len; i++) free(l->items[i]);
    l->len = 0;
}

/* One Actor (this run has one: a single slot keeps the host small). */
static struct {
    char id[256];
    bool present; /* restored or activated here */
    bool live;    /* runs here now */
    strs seen;    /* payloads, in order: the state that moves */
} actor;

/* A request this host sent: its payload and what came back. */
typedef struct {
    uint64_t correlation;
    char payload[64];
    int outcomes;
    bool replied_right;
} request;

static const char *name;
static uint64_t self;
static zlink_runtime *rt;
static uint16_t ports[MAX_PEERS];
static int out_fd[MAX_PEERS];
static uint64_t seq;
static nums sent_m, sent_q;
static request requests[MAX_ITEMS];
static size_t request_count;
static uint64_t delivered, relayed, notices, stray, held;
/* Requests answered here, by the asking host's name (the payload's first field). */
static struct { char asker[32]; uint64_t n; } replied[MAX_PEERS];
static size_t replied_count;
static strs events, errors;

static void error_note(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    strs_push(&errors, buf, n < 0 ? 0 : (size_t)n);
}

/* A call that must not fail: the error goes to the tally and the run fails. */
static bool ok(zlink_result rc, zlink_error *err, const char *what) {
    if (rc == ZLINK_RESULT_OK) return true;
    error_note("%s: %s (%s)", what, zlink_result_text(rc), err ? zlink_error_message(err) : "");
    zlink_error_free(err);
    return false;
}

/* -- transport ----------------------------------------------------------- */

static bool write_all(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

/* Frames this host sends itself, handled by the loop in order. */
typedef struct local { struct local *next; size_t len; uint8_t bytes[]; } local;
static local *local_head, *local_tail;

/* Sends one frame to node `to`; false if it cannot be reached. */
static bool carry(const zlink_outbound *o) {
    uint64_t to = o->to.rid;
    if (to == self) {
        local *l = malloc(sizeof *l + o->bytes.len);
        l->next = NULL;
        l->len = o->bytes.len;
        memcpy(l->bytes, o->bytes.data, o->bytes.len);
        if (local_tail) local_tail->next = l; else local_head = l;
        local_tail = l;
        return true;
    }
    if (to >= MAX_PEERS || ports[to] == 0) return false;
    if (out_fd[to] < 0) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(ports[to])};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        uint8_t hello[8];
        for (int i = 0; i < 8; i++) hello[i] = (uint8_t)(self >> (56 - 8 * i));
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || !write_all(fd, hello, 8)) {
            close(fd);
            return false;
        }
        out_fd[to] = fd;
    }
    uint8_t head[4] = {(uint8_t)(o->bytes.len >> 24), (uint8_t)(o->bytes.len >> 16),
                       (uint8_t)(o->bytes.len >> 8), (uint8_t)o->bytes.len};
    if (!write_all(out_fd[to], head, 4) || !write_all(out_fd[to], o->bytes.data, o->bytes.len)) {
        close(out_fd[to]);
        out_fd[to] = -1;
        return false;
    }
    return true;
}

static void carry_all(const zlink_outbound *frames, size_t n) {
    for (size_t i = 0; i < n; i++) carry(&frames[i]);
}

/* -- decisions ----------------------------------------------------------- */

/* Bytes a decision owns, seen as the bytes it lends. */
static zlink_str view(const zlink_bytes *b) {
    zlink_str s = {b->data, b->len};
    return s;
}

static bool is_actor(zlink_str id) {
    return id.len == strlen(actor.id) && memcmp(id.ptr, actor.id, id.len) == 0;
}

static bool record(zlink_str id, zlink_str payload) {
    if (!is_actor(id) || !actor.live) {
        stray++;
        error_note("delivered %.*s for %.*s, which does not run here", (int)payload.len,
                   (const char *)payload.ptr, (int)id.len, (const char *)id.ptr);
        return false;
    }
    strs_push(&actor.seen, (const char *)payload.ptr, payload.len);
    delivered++;
    return true;
}

/* One more request answered here for the host that asked (the payload's first field). */
static void count_reply(const char *payload) {
    size_t len = strcspn(payload, "|"), i = 0;
    while (i < replied_count && !(strlen(replied[i].asker) == len && memcmp(replied[i].asker, payload, len) == 0)) i++;
    if (i == replied_count && replied_count < MAX_PEERS)
        snprintf(replied[replied_count++].asker, sizeof replied[0].asker, "%.*s", (int)len, payload);
    if (i < replied_count) replied[i].n++;
}

/* An operation for the Actor: it records the payload and answers a request. */
static void receive(const zlink_decision *d) {
    const zlink_operation *op = &d->deliver.operation;
    if (!record(op->id, op->payload) || !op->is_request) return;
    char re[128];
    int n = snprintf(re, sizeof re, "re:%.*s", (int)op->payload.len, (const char *)op->payload.ptr);
    zlink_outbound reply;
    zlink_error *err = NULL;
    if (ok(zlink_reply(rt, d, (const uint8_t *)re, (size_t)n, &reply, &err), err, "reply")) {
        carry(&reply);
        zlink_bytes_free(&reply.bytes);
        count_reply(re + 3);
    }
}

static void tick(void);
static void handle(const zlink_decision *d);

static const char *relocation_event_name(uint32_t e) {
    static const char *names[] = {"None", "Restore", "Cutover", "Committed", "HandedOff", "Aborted",
                                  "Failed", "CommitRetry", "Ignored", "Aborting", "CommitDue"};
    return e < sizeof names / sizeof *names ? names[e] : "?";
}

/* A relocation step: restore on the target, drop on the source, deliver what it hands over. */
static void relocation(const zlink_decision *d) {
    const zlink_relocation *step = &d->relocation;
    uint32_t e = step->event.tag;
    /* Every event starts with the relocation's identity, at the same place. */
    const zlink_relocation_identity *moved = &step->event.restore.identity;
    const char *ev = relocation_event_name(e);
    strs_push(&events, ev, strlen(ev));
    zlink_error *err = NULL;
    if (e == ZLINK_RELOCATION_EVENT_RESTORE) {
        snprintf(actor.id, sizeof actor.id, "%.*s", (int)moved->id.len, (const char *)moved->id.data);
        actor.present = true;
        strs_clear(&actor.seen);
        const zlink_bytes *state = &step->event.restore.state;
        const char *s = (const char *)state->data;
        for (size_t start = 0, i = 0; i <= state->len && state->len > 0; i++) {
            if (i == state->len || s[i] == '\n') {
                strs_push(&actor.seen, s + start, i - start);
                start = i + 1;
            }
        }
        zlink_outbound_list ready;
        if (ok(zlink_relocation_restored(rt, moved->kind, moved->id.data, moved->id.len, &ready, &err),
               err, "relocation_restored")) {
            carry_all(ready.items, ready.count);
            zlink_outbound_list_free(&ready);
        }
    } else if ((e == ZLINK_RELOCATION_EVENT_COMMITTED || e == ZLINK_RELOCATION_EVENT_ABORTED) &&
               actor.present && is_actor(view(&moved->id))) {
        actor.live = true;
    } else if ((e == ZLINK_RELOCATION_EVENT_HANDED_OFF || e == ZLINK_RELOCATION_EVENT_FAILED) &&
               is_actor(view(&moved->id))) {
        actor.live = actor.present = false;
        strs_clear(&actor.seen);
    }
    /* The work it hands over, in order: operations (answered like any
     * other: zlink_relocation_deliveries makes them decisions), then
     * session relays. */
    if (step->deliver_count + step->session_count > 0) {
        zlink_decision_list work;
        if (ok(zlink_relocation_deliveries(d, &work, &err), err, "relocation_deliveries")) {
            for (size_t i = 0; i < work.count; i++) handle(&work.items[i]);
            zlink_decision_list_free(&work);
        }
    }
    carry_all(step->send, step->send_count);
    if (e == ZLINK_RELOCATION_EVENT_COMMIT_DUE) tick();
    if (e == ZLINK_RELOCATION_EVENT_ABORTING)
        error_note("relocation %s (reason %u)", ev, step->event.aborting.reason);
    if (e == ZLINK_RELOCATION_EVENT_ABORTED)
        error_note("relocation %s (reason %u)", ev, step->event.aborted.reason);
    if (e == ZLINK_RELOCATION_EVENT_FAILED)
        error_note("relocation %s (reason %u)", ev, step->event.failed.reason);
}

static void completed(const zlink_decision *d) {
    const zlink_completion *c = &d->completed.completion;
    for (size_t i = 0; i < request_count; i++) {
        request *r = &requests[i];
        if (r->correlation != c->correlation) continue;
        char want[80];
        int n = snprintf(want, sizeof want, "re:%s", r->payload);
        const zlink_bytes *reply = &c->outcome.reply.payload;
        r->outcomes++;
        r->replied_right = c->outcome.tag == ZLINK_OUTCOME_REPLY && reply->len == (size_t)n &&
                           memcmp(reply->data, want, (size_t)n) == 0;
        return;
    }
    error_note("completion of unknown request %llu", (unsigned long long)c->correlation);
}

/* Does what one decision says. */
static void handle(const zlink_decision *d) {
    zlink_error *err = NULL;
    switch (d->tag) {
    case ZLINK_DECISION_DELIVER: receive(d); break;
    case ZLINK_DECISION_RELAY:
        relayed++;
        carry(&d->relay.forward);
        if (d->relay.notice != NULL)
            ok(zlink_notice_settled(rt, d, carry(&d->relay.notice->outbound), &err), err, "notice_settled");
        break;
    case ZLINK_DECISION_REJECT: carry(&d->reject.outbound); break;
    case ZLINK_DECISION_SEND: carry_all(d->send.outbounds, d->send.outbounds_count); break;
    case ZLINK_DECISION_COMPLETED: completed(d); break;
    case ZLINK_DECISION_SESSION_DELIVER:
        if (d->session_deliver.relay_kind == ZLINK_RELAY_KIND_MESSAGE)
            record(view(&d->session_deliver.actor), view(&d->session_deliver.payload));
        break;
    case ZLINK_DECISION_ROUTE_REFRESHED: notices++; break;
    case ZLINK_DECISION_RELOCATION: relocation(d); break;
    case ZLINK_DECISION_HELD: held++; break;
    case ZLINK_DECISION_BOUND:
    case ZLINK_DECISION_SEALED: break;
    case ZLINK_DECISION_BIND_REFUSED:
    case ZLINK_DECISION_PUSHED:
    case ZLINK_DECISION_RELAY_REFUSED:
    case ZLINK_DECISION_SESSION_CLOSED:
    case ZLINK_DECISION_IGNORED: error_note("session event %u", d->tag); break;
    default: error_note("decision kind %u", d->tag);
    }
}

static void on_frame(uint64_t from, const uint8_t *bytes, size_t len) {
    zlink_decision d;
    zlink_error *err = NULL;
    if (ok(zlink_on_frame(rt, from, bytes, len, &d, &err), err, "on_frame")) {
        handle(&d);
        zlink_decision_free(&d);
    }
}

static void tick(void) {
    uint64_t now, next;
    bool has;
    zlink_error *err = NULL;
    if (!ok(zlink_next_deadline(rt, &next, &has, &err), err, "next_deadline") || !has) return;
    if (!ok(zlink_now(rt, &now, &err), err, "now") || next > now) return;
    zlink_decision_list list;
    if (ok(zlink_on_timeout(rt, now, &list, &err), err, "on_timeout")) {
        for (size_t i = 0; i < list.count; i++) handle(&list.items[i]);
        zlink_decision_list_free(&list);
    }
}

/* -- commands ------------------------------------------------------------ */

static void print_nums(const nums *l) {
    printf("[");
    for (size_t i = 0; i < l->len; i++) printf("%s%llu", i ? "," : "", (unsigned long long)l->items[i]);
    printf("]");
}

static void print_strs(const strs *l) {
    printf("[");
    for (size_t i = 0; i < l->len; i++) {
        printf("%s\"", i ? "," : "");
        for (const char *c = l->items[i]; *c; c++) {
            if (*c == '"' || *c == '\\') putchar('\\');
            putchar(*c == '\n' ? ' ' : *c);
        }
        printf("\"");
    }
    printf("]");
}

static void tally(const char *id) {
    size_t once = 0, bad = 0, pending = 0;
    for (size_t i = 0; i < request_count; i++) {
        if (requests[i].outcomes == 1 && requests[i].replied_right) once++;
        else if (requests[i].outcomes > 0) bad++;
        else pending++;
    }
    printf("{\"ok\":true,\"sent\":{\"m\":");
    print_nums(&sent_m);
    printf(",\"q\":");
    print_nums(&sent_q);
    printf(",\"s\":[]},\"requests\":%zu,\"ended_once\":%zu,\"bad\":%zu,\"pending\":%zu,", request_count,
           once, bad, pending);
    printf("\"delivered\":%llu,\"relayed\":%llu,\"notices\":%llu,\"stray\":%llu,\"held\":%llu,"
           "\"replied\":{",
           (unsigned long long)delivered, (unsigned long long)relayed, (unsigned long long)notices,
           (unsigned long long)stray, (unsigned long long)held);
    for (size_t i = 0; i < replied_count; i++)
        printf("%s\"%s\":%llu", i ? "," : "", replied[i].asker, (unsigned long long)replied[i].n);
    printf("},\"actor\":");
    if (actor.live && strcmp(actor.id, id) == 0) print_strs(&actor.seen); else printf("null");
    printf(",\"events\":");
    print_strs(&events);
    printf(",\"errors\":");
    print_strs(&errors);
    printf("}\n");
}

static void send_ops(const char *id, long count) {
    for (long i = 0; i < count; i++) {
        uint64_t s = seq++;
        bool ask = s % 3 == 2;
        char payload[64];
        int n = snprintf(payload, sizeof payload, "%s|%c|%llu", name, ask ? 'q' : 'm', (unsigned long long)s);
        zlink_sent sent;
        zlink_error *err = NULL;
        zlink_result rc = (ask ? zlink_request : zlink_send)(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)id,
                                                            strlen(id), (const uint8_t *)payload, (size_t)n,
                                                            NULL, &sent, &err);
        if (!ok(rc, err, ask ? "request" : "send")) continue;
        if (sent.tag == ZLINK_SENT_TAG_SUBMITTED && carry(&sent.outbound)) {
            nums_push(ask ? &sent_q : &sent_m, s);
            if (ask && request_count < MAX_ITEMS) {
                request *r = &requests[request_count++];
                r->correlation = sent.correlation;
                snprintf(r->payload, sizeof r->payload, "%s", payload);
            }
        } else {
            error_note("send %s: tag %u", payload, sent.tag);
        }
        zlink_bytes_free(&sent.outbound.bytes);
    }
}

/* One command line; false on quit. */
static bool command(char *line) {
    char *w[MAX_PEERS + 1] = {0};
    int n = 0;
    for (char *t = strtok(line, " \t\n"); t && n < MAX_PEERS + 1; t = strtok(NULL, " \t\n")) w[n++] = t;
    zlink_error *err = NULL;
    size_t before = errors.len;
    if (n == 0 || strcmp(w[0], "quit") == 0) {
        printf("{\"ok\":true}\n");
        return false;
    } else if (strcmp(w[0], "peers") == 0) {
        for (int i = 1; i < n; i++) { /* peers RID=PORT ... */
            unsigned long long r;
            unsigned p;
            if (sscanf(w[i], "%llu=%u", &r, &p) == 2 && r < MAX_PEERS) ports[r] = (uint16_t)p;
        }
    } else if (strcmp(w[0], "activate") == 0 && n == 2) {
        zlink_owned owned;
        if (ok(zlink_activate(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)w[1], strlen(w[1]), &owned, &err), err,
               "activate")) {
            snprintf(actor.id, sizeof actor.id, "%s", w[1]);
            actor.present = actor.live = true;
        }
    } else if (strcmp(w[0], "send") == 0 && n == 3) {
        send_ops(w[1], atol(w[2]));
        before = errors.len; /* a refused send is tallied, not a failed command */
    } else if (strcmp(w[0], "move") == 0 && n == 3) {
        size_t len = 0;
        for (size_t i = 0; i < actor.seen.len; i++) len += strlen(actor.seen.items[i]) + 1;
        char *state = malloc(len + 1), *p = state;
        for (size_t i = 0; i < actor.seen.len; i++) p += sprintf(p, "%s%s", i ? "\n" : "", actor.seen.items[i]);
        zlink_relocation_started started;
        actor.live = false;
        if (ok(zlink_begin_relocation(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)w[1], strlen(w[1]),
                                      strtoull(w[2], NULL, 10), 1, NULL, 0, (const uint8_t *)state,
                                      (size_t)(p - state), &started, &err),
               err, "begin_relocation")) {
            carry_all(started.frames.items, started.frames.count);
            zlink_outbound_list_free(&started.frames);
        }
        free(state);
    } else if (strcmp(w[0], "status") == 0 && n == 2) {
        printf("{\"ok\":true,\"owns\":%s}\n", actor.live && strcmp(actor.id, w[1]) == 0 ? "true" : "false");
        return true;
    } else if (strcmp(w[0], "tally") == 0 && n == 2) {
        tally(w[1]);
        return true;
    } else {
        printf("{\"ok\":false,\"error\":\"unknown command %s\"}\n", w[0]);
        return true;
    }
    if (errors.len > before) {
        printf("{\"ok\":false,\"error\":");
        strs last = {.items = &errors.items[errors.len - 1], .len = 1};
        print_strs(&last);
        printf("}\n");
    } else {
        printf("{\"ok\":true}\n");
    }
    return true;
}

/* -- the loop ------------------------------------------------------------ */

typedef struct { int fd; bool hello; uint64_t from; uint8_t *buf; size_t len, cap; } conn;

/* Takes whole frames off a connection's buffer. */
static void drain(conn *c) {
    size_t at = 0;
    if (!c->hello && c->len >= 8) {
        c->from = 0;
        for (int i = 0; i < 8; i++) c->from = c->from << 8 | c->buf[i];
        c->hello = true;
        at = 8;
    }
    while (c->hello && c->len - at >= 4) {
        size_t n = (size_t)c->buf[at] << 24 | (size_t)c->buf[at + 1] << 16 | (size_t)c->buf[at + 2] << 8 | c->buf[at + 3];
        if (c->len - at - 4 < n) break;
        on_frame(c->from, c->buf + at + 4, n);
        at += 4 + n;
    }
    memmove(c->buf, c->buf + at, c->len - at);
    c->len -= at;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s NAME RID REDIS_URL\n", argv[0]);
        return 2;
    }
    name = argv[1];
    self = strtoull(argv[2], NULL, 10);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < MAX_PEERS; i++) out_fd[i] = -1;
    zlink_store *store;
    zlink_error *err = NULL;
    if (!ok(zlink_store_redis_open(argv[3], NULL, &store, &err), err, "redis") ) {
        fprintf(stderr, "%s\n", errors.items[0]);
        return 1;
    }
    zlink_node_identity id = {.mesh = "interop", .rid = self, .generation = 1, .lease = 1};
    if (!ok(zlink_runtime_new(&id, NULL, store, NULL, &rt, &err), err, "runtime")) {
        fprintf(stderr, "%s\n", errors.items[0]);
        return 1;
    }
    zlink_store_free(store, NULL);

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 16) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0) {
        perror("listen");
        return 1;
    }
    printf("{\"ok\":true,\"port\":%u}\n", ntohs(a.sin_port));

    conn conns[MAX_CONNS];
    size_t nconns = 0;
    char line[65536];
    size_t line_len = 0;
    for (bool running = true; running;) {
        while (local_head) { /* frames to itself first, in order */
            local *l = local_head;
            local_head = l->next;
            if (!local_head) local_tail = NULL;
            on_frame(self, l->bytes, l->len);
            free(l);
        }
        struct pollfd fds[MAX_CONNS + 2] = {{.fd = 0, .events = POLLIN}, {.fd = lfd, .events = POLLIN}};
        for (size_t i = 0; i < nconns; i++) fds[i + 2] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
        int wait = 10;
        uint64_t now, next;
        bool has;
        if (zlink_next_deadline(rt, &next, &has, NULL) == ZLINK_RESULT_OK && has &&
            zlink_now(rt, &now, NULL) == ZLINK_RESULT_OK)
            wait = next <= now ? 0 : (next - now) / 1000000 < 10 ? (int)((next - now) / 1000000) : 10;
        if (poll(fds, nconns + 2, wait) < 0 && errno != EINTR) break;
        if (fds[1].revents & POLLIN && nconns < MAX_CONNS) {
            int fd = accept(lfd, NULL, NULL);
            if (fd >= 0) conns[nconns++] = (conn){.fd = fd};
        }
        for (size_t i = 0; i < nconns; i++) {
            if (!(fds[i + 2].revents & (POLLIN | POLLHUP))) continue;
            conn *c = &conns[i];
            if (c->cap - c->len < 65536) c->buf = realloc(c->buf, c->cap = 2 * c->cap + 65536);
            ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
            if (r <= 0) {
                close(c->fd);
                free(c->buf);
                conns[i] = conns[--nconns];
                fds[i + 2] = fds[nconns + 2];
                i--;
                continue;
            }
            c->len += (size_t)r;
            drain(c);
        }
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            ssize_t r = read(0, line + line_len, sizeof line - 1 - line_len);
            if (r <= 0) break; /* the coordinator is gone */
            line_len += (size_t)r;
            char *nl;
            while (running && (nl = memchr(line, '\n', line_len)) != NULL) {
                *nl = '\0';
                size_t used = (size_t)(nl - line) + 1;
                running = command(line);
                memmove(line, line + used, line_len - used);
                line_len -= used;
            }
        }
        tick();
    }
    zlink_runtime_free(rt, NULL);
    return 0;
}
