/*
 * What a C host gets: zlink_lookup_cached through the installed libzlink
 * (the release build `make install` ships), from C, over 100,000 cached
 * 32-byte IDs visited in a scattered order and over 1,000 hot IDs; median
 * of 21 passes. Run by ffi-c/scripts/bench-c-host.sh (shared and static).
 * The c_abi bench measures the same calls from Rust, linked with the
 * bench profile; this is the figure a C host sees.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlink.h>

#define IDS 100000
#define SAMPLES 21

static char ids[IDS][33];

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nanoseconds per call over the first `n` IDs, `reps` times per sample. */
static double per_call(zlink_runtime *rt, int n, int reps) {
    double samples[SAMPLES];
    for (int k = 0; k < SAMPLES; k++) {
        double start = now_ns();
        for (int r = 0; r < reps; r++) {
            for (int i = 0; i < n; i++) {
                zlink_ready_route route;
                bool found = false;
                if (zlink_lookup_cached(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ids[i], 32,
                                        &route, &found, NULL) != ZLINK_RESULT_OK ||
                    !found) {
                    fprintf(stderr, "not a cache hit: %s\n", ids[i]);
                    exit(1);
                }
                __asm__ volatile("" : : "r"(&route) : "memory");
            }
        }
        samples[k] = (now_ns() - start) / ((double)n * reps);
    }
    qsort(samples, SAMPLES, sizeof samples[0], by_value);
    return samples[SAMPLES / 2];
}

int main(int argc, char **argv) {
    const char *variant = argc > 1 ? argv[1] : "";
    zlink_store *store;
    zlink_config config;
    zlink_runtime *owner, *rt;
    if (zlink_store_memory_new(NULL, &store, NULL) || zlink_config_default(&config, NULL)) return 1;
    config.owner_lease_duration_ms = 3600000;
    zlink_node_identity a = {.mesh = "bench-mesh", .rid = 1, .generation = 1, .lease = 1};
    zlink_node_identity b = {.mesh = "bench-mesh", .rid = 2, .generation = 1, .lease = 2};
    if (zlink_runtime_new(&a, &config, store, NULL, &owner, NULL) ||
        zlink_runtime_new(&b, &config, store, NULL, &rt, NULL))
        return 1;
    for (int i = 0; i < IDS; i++) {
        snprintf(ids[i], sizeof ids[i], "actor-%026d", (int)(((long)i * 7919) % IDS));
        zlink_resolution r;
        if (zlink_activate(owner, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ids[i], 32, NULL,
                           NULL) ||
            zlink_resolve(rt, ZLINK_OBJECT_KIND_ACTOR, (const uint8_t *)ids[i], 32, &r, NULL))
            return 1;
    }
    printf("  C host (%s): lookup_cached %d scattered IDs %6.1f ns, 1,000 hot IDs %6.1f ns\n",
           variant, IDS, per_call(rt, IDS, 1), per_call(rt, 1000, 100));
    zlink_runtime_free(rt, NULL);
    zlink_runtime_free(owner, NULL);
    zlink_store_free(store, NULL);
    return 0;
}
