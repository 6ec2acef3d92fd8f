/*
 * The wire golden vectors (testdata/wire, docs/wire.md) through libzlink's
 * codec: every valid NAME.bin decodes, re-encodes byte for byte, is
 * described as its NAME.json's "frame" (compared structurally) under its
 * "command" name, and fails to decode when cut short at any length; every
 * invalid/NAME.bin fails to decode under its "limits" with exactly its
 * "error.kind". Also the codec's C ABI contract (NULLs, freed handles,
 * out-parameters written only on success).
 *
 * Usage: wire_vectors TESTDATA_WIRE_DIR (ffi-c/tests/run.sh passes the
 * repository's testdata/wire). Prints one line per failure, naming the
 * vector, then "N valid, M invalid vectors passed"; exits non-zero on any
 * failure. Built with -std=c11 -Wall -Wextra -Werror and run under
 * valgrind like the other C tests.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlink.h>

/* Below these counts the vectors are missing, not passing. */
#define MIN_VALID 50
#define MIN_INVALID 50
/* docs/wire.md: a vector's limits without "max_state_bytes" mean this. */
#define DEFAULT_MAX_STATE_BYTES UINT64_C(16777216)

static int failures;

static void fail(const char *vector, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", vector);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "wire_vectors: out of memory\n");
        exit(2);
    }
    return p;
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "wire_vectors: out of memory\n");
        exit(2);
    }
    return q;
}

/* ------------------------------------------------------------ files -- */

/* Reads a whole file into *data (NUL-appended, not counted in *len). */
static bool read_file(const char *path, uint8_t **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return false;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            break;
        }
    }
    bool ok = !ferror(f);
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return true;
}

static char *path_join(const char *dir, const char *name, const char *ext) {
    size_t n = strlen(dir) + 1 + strlen(name) + strlen(ext) + 1;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s%s", dir, name, ext);
    return p;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stems of every NAME.json in dir, sorted; NULL when dir is unreadable. */
static char **list_vectors(const char *dir, size_t *count) {
    DIR *d = opendir(dir);
    if (!d) {
        return NULL;
    }
    size_t n = 0, cap = 64;
    char **names = xmalloc(cap * sizeof *names);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) {
            continue;
        }
        if (n == cap) {
            cap *= 2;
            names = xrealloc(names, cap * sizeof *names);
        }
        names[n] = xmalloc(len - 4);
        memcpy(names[n], e->d_name, len - 5);
        names[n][len - 5] = 0;
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, compare_names);
    *count = n;
    return names;
}

static void free_names(char **names, size_t count) {
    for (size_t i = 0; i < count; i++) {
        free(names[i]);
    }
    free(names);
}

/* ------------------------------------------------------------- JSON -- */

/*
 * A small strict JSON reader (RFC 8259): values into a tree, strings
 * unescaped to their UTF-8 bytes (\uXXXX and surrogate pairs included),
 * numbers kept as their text, duplicate object keys refused. Two trees are
 * equal when they have the same structure: objects as key sets (order
 * free), arrays in order, strings byte for byte, numbers by their text
 * (the vectors' numbers are integers, written canonically on both sides).
 */

typedef enum { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } jtype;

typedef struct jmember jmember;

typedef struct jval {
    jtype type;
    char *text; /* J_NUMBER: its text; J_STRING: its bytes (NUL-appended) */
    size_t len;
    struct jval *items; /* J_ARRAY */
    jmember *members;   /* J_OBJECT */
    size_t count;       /* items or members */
} jval;

struct jmember {
    char *key;
    size_t key_len;
    jval value;
};

typedef struct {
    const uint8_t *at, *end, *start;
    const char *error;
    size_t error_at;
} jparser;

#define JSON_MAX_DEPTH 64

static void jfree(jval *v) {
    free(v->text);
    for (size_t i = 0; v->type == J_ARRAY && i < v->count; i++) {
        jfree(&v->items[i]);
    }
    for (size_t i = 0; v->type == J_OBJECT && i < v->count; i++) {
        free(v->members[i].key);
        jfree(&v->members[i].value);
    }
    free(v->items);
    free(v->members);
    memset(v, 0, sizeof *v);
}

static bool jerr(jparser *p, const char *what) {
    if (!p->error) {
        p->error = what;
        p->error_at = (size_t)(p->at - p->start);
    }
    return false;
}

static void jspace(jparser *p) {
    while (p->at < p->end &&
           (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r')) {
        p->at++;
    }
}

static bool jliteral(jparser *p, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(p->end - p->at) < n || memcmp(p->at, word, n) != 0) {
        return jerr(p, "unknown literal");
    }
    p->at += n;
    return true;
}

static int hexval(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool jhex4(jparser *p, uint32_t *out) {
    if (p->end - p->at < 4) {
        return jerr(p, "short \\u escape");
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->at[i]);
        if (h < 0) {
            return jerr(p, "bad \\u escape");
        }
        v = v * 16 + (uint32_t)h;
    }
    p->at += 4;
    *out = v;
    return true;
}

/* Parses a string (at its opening quote) into a fresh NUL-appended buffer. */
static bool jstring(jparser *p, char **out, size_t *out_len) {
    p->at++; /* the opening quote */
    size_t cap = 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (p->at >= p->end) {
            free(buf);
            return jerr(p, "unterminated string");
        }
        if (n + 5 >= cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        uint8_t c = *p->at++;
        if (c == '"') {
            break;
        }
        if (c < 0x20) {
            free(buf);
            return jerr(p, "control character in string");
        }
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        if (p->at >= p->end) {
            free(buf);
            return jerr(p, "unterminated escape");
        }
        uint8_t e = *p->at++;
        uint32_t cp;
        switch (e) {
        case '"': buf[n++] = '"'; continue;
        case '\\': buf[n++] = '\\'; continue;
        case '/': buf[n++] = '/'; continue;
        case 'b': buf[n++] = '\b'; continue;
        case 'f': buf[n++] = '\f'; continue;
        case 'n': buf[n++] = '\n'; continue;
        case 'r': buf[n++] = '\r'; continue;
        case 't': buf[n++] = '\t'; continue;
        case 'u':
            if (!jhex4(p, &cp)) {
                free(buf);
                return false;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (p->end - p->at < 2 || p->at[0] != '\\' || p->at[1] != 'u') {
                    free(buf);
                    return jerr(p, "lone high surrogate");
                }
                p->at += 2;
                if (!jhex4(p, &lo)) {
                    free(buf);
                    return false;
                }
                if (lo < 0xDC00 || lo > 0xDFFF) {
                    free(buf);
                    return jerr(p, "bad low surrogate");
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                free(buf);
                return jerr(p, "lone low surrogate");
            }
            if (cp < 0x80) {
                buf[n++] = (char)cp;
            } else if (cp < 0x800) {
                buf[n++] = (char)(0xC0 | (cp >> 6));
                buf[n++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                buf[n++] = (char)(0xE0 | (cp >> 12));
                buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                buf[n++] = (char)(0x80 | (cp & 0x3F));
            } else {
                buf[n++] = (char)(0xF0 | (cp >> 18));
                buf[n++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                buf[n++] = (char)(0x80 | (cp & 0x3F));
            }
            continue;
        default:
            free(buf);
            return jerr(p, "unknown escape");
        }
    }
    buf[n] = 0;
    *out = buf;
    *out_len = n;
    return true;
}

static bool jdigits(jparser *p) {
    const uint8_t *from = p->at;
    while (p->at < p->end && *p->at >= '0' && *p->at <= '9') {
        p->at++;
    }
    return p->at > from;
}

static bool jnumber(jparser *p, jval *v) {
    const uint8_t *from = p->at;
    if (p->at < p->end && *p->at == '-') {
        p->at++;
    }
    if (p->at < p->end && *p->at == '0') {
        p->at++;
    } else if (!jdigits(p)) {
        return jerr(p, "bad number");
    }
    if (p->at < p->end && *p->at == '.') {
        p->at++;
        if (!jdigits(p)) {
            return jerr(p, "bad fraction");
        }
    }
    if (p->at < p->end && (*p->at == 'e' || *p->at == 'E')) {
        p->at++;
        if (p->at < p->end && (*p->at == '+' || *p->at == '-')) {
            p->at++;
        }
        if (!jdigits(p)) {
            return jerr(p, "bad exponent");
        }
    }
    v->type = J_NUMBER;
    v->len = (size_t)(p->at - from);
    v->text = xmalloc(v->len + 1);
    memcpy(v->text, from, v->len);
    v->text[v->len] = 0;
    return true;
}

static bool jvalue(jparser *p, jval *v, int depth);

static bool jarray(jparser *p, jval *v, int depth) {
    p->at++;
    v->type = J_ARRAY;
    size_t cap = 0;
    jspace(p);
    if (p->at < p->end && *p->at == ']') {
        p->at++;
        return true;
    }
    for (;;) {
        if (v->count == cap) {
            cap = cap ? cap * 2 : 4;
            v->items = xrealloc(v->items, cap * sizeof *v->items);
        }
        memset(&v->items[v->count], 0, sizeof *v->items);
        v->count++;
        if (!jvalue(p, &v->items[v->count - 1], depth + 1)) {
            return false;
        }
        jspace(p);
        if (p->at < p->end && *p->at == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->end && *p->at == ']') {
            p->at++;
            return true;
        }
        return jerr(p, "expected ',' or ']'");
    }
}

static bool jobject(jparser *p, jval *v, int depth) {
    p->at++;
    v->type = J_OBJECT;
    size_t cap = 0;
    jspace(p);
    if (p->at < p->end && *p->at == '}') {
        p->at++;
        return true;
    }
    for (;;) {
        jspace(p);
        if (p->at >= p->end || *p->at != '"') {
            return jerr(p, "expected a key");
        }
        if (v->count == cap) {
            cap = cap ? cap * 2 : 8;
            v->members = xrealloc(v->members, cap * sizeof *v->members);
        }
        jmember *m = &v->members[v->count];
        memset(m, 0, sizeof *m);
        v->count++;
        if (!jstring(p, &m->key, &m->key_len)) {
            return false;
        }
        for (size_t i = 0; i + 1 < v->count; i++) {
            if (v->members[i].key_len == m->key_len &&
                memcmp(v->members[i].key, m->key, m->key_len) == 0) {
                return jerr(p, "duplicate key");
            }
        }
        jspace(p);
        if (p->at >= p->end || *p->at != ':') {
            return jerr(p, "expected ':'");
        }
        p->at++;
        if (!jvalue(p, &m->value, depth + 1)) {
            return false;
        }
        jspace(p);
        if (p->at < p->end && *p->at == ',') {
            p->at++;
            continue;
        }
        if (p->at < p->end && *p->at == '}') {
            p->at++;
            return true;
        }
        return jerr(p, "expected ',' or '}'");
    }
}

static bool jvalue(jparser *p, jval *v, int depth) {
    if (depth > JSON_MAX_DEPTH) {
        return jerr(p, "nested too deep");
    }
    jspace(p);
    if (p->at >= p->end) {
        return jerr(p, "unexpected end");
    }
    switch (*p->at) {
    case 'n': v->type = J_NULL; return jliteral(p, "null");
    case 't': v->type = J_TRUE; return jliteral(p, "true");
    case 'f': v->type = J_FALSE; return jliteral(p, "false");
    case '"': v->type = J_STRING; return jstring(p, &v->text, &v->len);
    case '[': return jarray(p, v, depth);
    case '{': return jobject(p, v, depth);
    default:
        if (*p->at == '-' || (*p->at >= '0' && *p->at <= '9')) {
            return jnumber(p, v);
        }
        return jerr(p, "unexpected character");
    }
}

/* Parses a whole document; on failure writes why into err[err_len]. */
static bool json_parse(const uint8_t *text, size_t len, jval *out, char *err, size_t err_len) {
    jparser p = {.at = text, .end = text + len, .start = text, .error = NULL, .error_at = 0};
    memset(out, 0, sizeof *out);
    bool ok = jvalue(&p, out, 0);
    if (ok) {
        jspace(&p);
        if (p.at != p.end) {
            ok = jerr(&p, "bytes after the value");
        }
    }
    if (!ok) {
        snprintf(err, err_len, "JSON: %s at byte %zu", p.error ? p.error : "error", p.error_at);
        jfree(out);
    }
    return ok;
}

static const jval *jget(const jval *obj, const char *key) {
    if (!obj || obj->type != J_OBJECT) {
        return NULL;
    }
    size_t n = strlen(key);
    for (size_t i = 0; i < obj->count; i++) {
        if (obj->members[i].key_len == n && memcmp(obj->members[i].key, key, n) == 0) {
            return &obj->members[i].value;
        }
    }
    return NULL;
}

/* A member that is a string without NULs, or NULL. */
static const char *jget_str(const jval *obj, const char *key) {
    const jval *v = jget(obj, key);
    if (!v || v->type != J_STRING || strlen(v->text) != v->len) {
        return NULL;
    }
    return v->text;
}

/* A member that is a non-negative integer that fits a u64. */
static bool jget_u64(const jval *obj, const char *key, uint64_t *out) {
    const jval *v = jget(obj, key);
    if (!v || v->type != J_NUMBER || v->len == 0) {
        return false;
    }
    uint64_t n = 0;
    for (size_t i = 0; i < v->len; i++) {
        char c = v->text[i];
        if (c < '0' || c > '9') {
            return false;
        }
        uint64_t d = (uint64_t)(c - '0');
        if (n > (UINT64_MAX - d) / 10) {
            return false;
        }
        n = n * 10 + d;
    }
    *out = n;
    return true;
}

static const char *jtype_name(jtype t) {
    switch (t) {
    case J_NULL: return "null";
    case J_FALSE: return "false";
    case J_TRUE: return "true";
    case J_NUMBER: return "a number";
    case J_STRING: return "a string";
    case J_ARRAY: return "an array";
    case J_OBJECT: return "an object";
    }
    return "?";
}

/*
 * Structural equality of `want` (the file) and `got` (the library's
 * description). On a difference writes where into why[why_len], as a path
 * from `path`, and returns false.
 */
static bool jequal(const jval *want, const jval *got, const char *path, char *why,
                   size_t why_len) {
    if (want->type != got->type) {
        snprintf(why, why_len, "%s: want %s, got %s", path, jtype_name(want->type),
                 jtype_name(got->type));
        return false;
    }
    switch (want->type) {
    case J_NULL:
    case J_FALSE:
    case J_TRUE:
        return true;
    case J_NUMBER:
    case J_STRING:
        if (want->len != got->len || memcmp(want->text, got->text, want->len) != 0) {
            snprintf(why, why_len, "%s: want %s%.60s%s, got %s%.60s%s", path,
                     want->type == J_STRING ? "\"" : "", want->text,
                     want->type == J_STRING ? "\"" : "", got->type == J_STRING ? "\"" : "",
                     got->text, got->type == J_STRING ? "\"" : "");
            return false;
        }
        return true;
    case J_ARRAY:
        if (want->count != got->count) {
            snprintf(why, why_len, "%s: want %zu items, got %zu", path, want->count, got->count);
            return false;
        }
        for (size_t i = 0; i < want->count; i++) {
            char sub[512];
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            if (!jequal(&want->items[i], &got->items[i], sub, why, why_len)) {
                return false;
            }
        }
        return true;
    case J_OBJECT:
        /* Keys are unique on both sides (the parser refuses duplicates), so
         * equal counts and every wanted key present make the key sets equal. */
        for (size_t i = 0; i < want->count; i++) {
            const jmember *m = &want->members[i];
            char sub[512];
            snprintf(sub, sizeof sub, "%s.%s", path, m->key);
            const jval *other = jget(got, m->key);
            if (!other || strlen(m->key) != m->key_len) {
                snprintf(why, why_len, "%s: in the vector, not in the description", sub);
                return false;
            }
            if (!jequal(&m->value, other, sub, why, why_len)) {
                return false;
            }
        }
        if (want->count != got->count) {
            for (size_t i = 0; i < got->count; i++) {
                if (!jget(want, got->members[i].key)) {
                    snprintf(why, why_len, "%s.%s: in the description, not in the vector", path,
                             got->members[i].key);
                    return false;
                }
            }
            snprintf(why, why_len, "%s: want %zu members, got %zu", path, want->count,
                     got->count);
            return false;
        }
        return true;
    }
    snprintf(why, why_len, "%s: unknown JSON type", path);
    return false;
}

/* ----------------------------------------------------------- vectors -- */

/* A vector's two files, its JSON parsed and its common fields checked. */
typedef struct {
    uint8_t *bin;
    size_t bin_len;
    uint8_t *text;
    size_t text_len;
    jval json;
} vector;

static void vector_free(vector *v) {
    free(v->bin);
    free(v->text);
    jfree(&v->json);
}

static bool vector_load(const char *label, const char *dir, const char *name, vector *v) {
    memset(v, 0, sizeof *v);
    char *bin_path = path_join(dir, name, ".bin");
    char *json_path = path_join(dir, name, ".json");
    bool ok = false;
    char why[256];
    uint64_t size;
    if (!read_file(bin_path, &v->bin, &v->bin_len)) {
        fail(label, "cannot read %s", bin_path);
    } else if (!read_file(json_path, &v->text, &v->text_len)) {
        fail(label, "cannot read %s", json_path);
    } else if (!json_parse(v->text, v->text_len, &v->json, why, sizeof why)) {
        fail(label, "%s.json: %s", name, why);
    } else if (v->json.type != J_OBJECT) {
        fail(label, "%s.json is not a JSON object", name);
    } else if (!jget_str(&v->json, "name") || strcmp(jget_str(&v->json, "name"), name) != 0) {
        fail(label, "\"name\" is not \"%s\"", name);
    } else if (!jget_u64(&v->json, "size", &size) || size != v->bin_len) {
        fail(label, "\"size\" is not the %zu bytes of %s.bin", v->bin_len, name);
    } else {
        ok = true;
    }
    free(bin_path);
    free(json_path);
    if (!ok) {
        vector_free(v);
    }
    return ok;
}

/* A decode that must fail with ZLINK_RESULT_WIRE_INVALID: copies its kind
 * (or "" when none) into kind[kind_len]. Returns the result code. */
static zlink_result decode_failure(const uint8_t *bytes, size_t len,
                                   const zlink_decode_limits *limits, char *kind, size_t kind_len,
                                   bool *out_written) {
    zlink_frame *const untouched = (zlink_frame *)(uintptr_t)0x10;
    zlink_frame *frame = untouched;
    zlink_error *err = NULL;
    zlink_result rc = zlink_wire_decode(bytes, len, limits, &frame, &err);
    *out_written = frame != untouched;
    kind[0] = 0;
    if (rc == ZLINK_RESULT_OK) {
        zlink_frame_free(frame, NULL);
        *out_written = false;
    } else if (err) {
        const char *k = zlink_error_kind(err);
        if (k) {
            snprintf(kind, kind_len, "%s", k);
        }
        if (zlink_error_code(err) != rc) {
            snprintf(kind, kind_len, "(error code %u, result %u)", zlink_error_code(err), rc);
        }
        zlink_error_free(err);
    }
    return rc;
}

static bool check_valid(const char *dir, const char *name) {
    char label[300];
    snprintf(label, sizeof label, "valid/%s", name);
    vector v;
    if (!vector_load(label, dir, name, &v)) {
        return false;
    }
    bool ok = false;
    zlink_frame *frame = NULL;
    zlink_error *err = NULL;
    zlink_bytes encoded = {0}, described = {0};
    jval description = {0};
    char why[1024];
    const char *command = jget_str(&v.json, "command");
    const jval *want = jget(&v.json, "frame");
    uint64_t command_number;
    const char *name_out = NULL;

    if (!command || !want || !jget_u64(&v.json, "command_number", &command_number)) {
        fail(label, "the JSON lacks \"command\", \"command_number\" or \"frame\"");
        goto out;
    }
    if (v.bin_len < 4 || v.bin[3] != command_number) {
        fail(label, "byte 3 of the .bin is not command_number %" PRIu64, command_number);
        goto out;
    }
    zlink_result rc = zlink_wire_decode(v.bin, v.bin_len, NULL, &frame, &err);
    if (rc != ZLINK_RESULT_OK) {
        fail(label, "decode: %s (%s: %s)", zlink_result_text(rc),
             err && zlink_error_kind(err) ? zlink_error_kind(err) : "no kind",
             err ? zlink_error_message(err) : "no error");
        zlink_error_free(err);
        frame = NULL;
        goto out;
    }
    if (err != NULL) {
        fail(label, "decode succeeded but wrote *error");
        goto out;
    }
    if ((rc = zlink_frame_encode(frame, &encoded, NULL)) != ZLINK_RESULT_OK) {
        fail(label, "encode: %s", zlink_result_text(rc));
        goto out;
    }
    if (encoded.len != v.bin_len || memcmp(encoded.data, v.bin, v.bin_len) != 0) {
        size_t at = 0;
        while (at < encoded.len && at < v.bin_len && encoded.data[at] == v.bin[at]) {
            at++;
        }
        fail(label, "re-encoded %zu bytes differ from the %zu of the .bin from byte %zu",
             encoded.len, v.bin_len, at);
        goto out;
    }
    if ((rc = zlink_frame_command_name(frame, &name_out, NULL)) != ZLINK_RESULT_OK) {
        fail(label, "command name: %s", zlink_result_text(rc));
        goto out;
    }
    if (strcmp(name_out, command) != 0) {
        fail(label, "command is \"%s\", want \"%s\"", name_out, command);
        goto out;
    }
    if ((rc = zlink_frame_describe(frame, &described, NULL)) != ZLINK_RESULT_OK) {
        fail(label, "describe: %s", zlink_result_text(rc));
        goto out;
    }
    if (!json_parse(described.data, described.len, &description, why, sizeof why)) {
        fail(label, "the description is not JSON: %s", why);
        goto out;
    }
    if (!jequal(want, &description, "frame", why, sizeof why)) {
        fail(label, "description differs: %s", why);
        goto out;
    }
    /* docs/wire.md: cut short at any length, a frame must fail, never crash. */
    for (size_t cut = 0; cut < v.bin_len; cut++) {
        char kind[64];
        bool written;
        rc = decode_failure(v.bin, cut, NULL, kind, sizeof kind, &written);
        if (rc != ZLINK_RESULT_WIRE_INVALID || kind[0] == 0 || written) {
            fail(label, "cut to %zu bytes: %s, kind \"%s\"%s", cut, zlink_result_text(rc), kind,
                 written ? ", *out written" : "");
            goto out;
        }
    }
    ok = true;
out:
    jfree(&description);
    zlink_bytes_free(&encoded);
    zlink_bytes_free(&described);
    if (frame) {
        zlink_frame_free(frame, NULL);
    }
    vector_free(&v);
    return ok;
}

static bool check_invalid(const char *dir, const char *name) {
    char label[300];
    snprintf(label, sizeof label, "invalid/%s", name);
    vector v;
    if (!vector_load(label, dir, name, &v)) {
        return false;
    }
    bool ok = false;
    const jval *limits_json = jget(&v.json, "limits");
    const char *want_kind = jget_str(jget(&v.json, "error"), "kind");
    zlink_decode_limits limits;
    if (!want_kind || !limits_json || limits_json->type != J_OBJECT ||
        !jget_u64(limits_json, "max_object_id_bytes", &limits.max_object_id_bytes) ||
        !jget_u64(limits_json, "max_payload_bytes", &limits.max_payload_bytes)) {
        fail(label, "the JSON lacks \"error.kind\" or \"limits\"");
        goto out;
    }
    if (!jget(limits_json, "max_state_bytes")) {
        limits.max_state_bytes = DEFAULT_MAX_STATE_BYTES;
    } else if (!jget_u64(limits_json, "max_state_bytes", &limits.max_state_bytes)) {
        fail(label, "\"limits.max_state_bytes\" is not a u64");
        goto out;
    }
    char kind[64];
    bool written;
    zlink_result rc =
        decode_failure(v.bin, v.bin_len, &limits, kind, sizeof kind, &written);
    if (rc == ZLINK_RESULT_OK) {
        fail(label, "decodes, want a %s error", want_kind);
        goto out;
    }
    if (rc != ZLINK_RESULT_WIRE_INVALID) {
        fail(label, "result %u (%s), want ZLINK_RESULT_WIRE_INVALID with kind \"%s\"", rc,
             zlink_result_text(rc), want_kind);
        goto out;
    }
    if (strcmp(kind, want_kind) != 0) {
        fail(label, "fails with kind \"%s\", want \"%s\"", kind, want_kind);
        goto out;
    }
    if (written) {
        fail(label, "the failed decode wrote *out");
        goto out;
    }
    /* Without an error out-parameter: the same result, nothing written. */
    zlink_frame *frame = NULL;
    rc = zlink_wire_decode(v.bin, v.bin_len, &limits, &frame, NULL);
    if (rc != ZLINK_RESULT_WIRE_INVALID || frame != NULL) {
        fail(label, "without *error: %s", zlink_result_text(rc));
        zlink_frame_free(frame, NULL);
        goto out;
    }
    ok = true;
out:
    vector_free(&v);
    return ok;
}

/* ------------------------------------------------------ API contract -- */

#define API(cond)                                                                  \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fail("api", "%s:%d: %s", __FILE__, __LINE__, #cond);                  \
            return;                                                                \
        }                                                                          \
    } while (0)

/* The codec's C ABI beyond the vectors: defaults, NULLs, freed and foreign
 * handles, errors without kinds, out-parameters left alone on failure. */
static void check_api(const char *dir) {
    zlink_decode_limits limits = {0, 0, 0};
    API(zlink_decode_limits_default(&limits, NULL) == ZLINK_RESULT_OK);
    API(limits.max_object_id_bytes == 1024 && limits.max_payload_bytes == 1048576 &&
        limits.max_state_bytes == DEFAULT_MAX_STATE_BYTES);
    API(zlink_decode_limits_default(NULL, NULL) == ZLINK_RESULT_NULL_POINTER);
    API(strcmp(zlink_result_text(ZLINK_RESULT_WIRE_INVALID), "unknown zlink_result code") != 0);
    API(zlink_error_kind(NULL) == NULL);

    /* Empty input: Truncated, with a message. */
    zlink_frame *frame = NULL;
    zlink_error *err = NULL;
    API(zlink_wire_decode(NULL, 0, NULL, &frame, &err) == ZLINK_RESULT_WIRE_INVALID);
    API(frame == NULL && err != NULL);
    API(zlink_error_code(err) == ZLINK_RESULT_WIRE_INVALID);
    API(zlink_error_kind(err) && strcmp(zlink_error_kind(err), "Truncated") == 0);
    API(zlink_error_message(err) && zlink_error_message(err)[0] != 0);
    zlink_error_free(err);
    err = NULL;

    /* A NULL pointer with a length, a NULL out: NULL_POINTER, whose kind
     * names it too (every error has a kind). */
    uint8_t byte = 0;
    API(zlink_wire_decode(NULL, 3, NULL, &frame, &err) == ZLINK_RESULT_NULL_POINTER);
    API(frame == NULL && err != NULL && zlink_error_kind(err) &&
        strcmp(zlink_error_kind(err), "NullPointer") == 0);
    zlink_error_free(err);
    err = NULL;
    API(zlink_wire_decode(&byte, 1, NULL, NULL, NULL) == ZLINK_RESULT_NULL_POINTER);

    /* One real frame, through every call and then freed. */
    vector v;
    if (!vector_load("api", dir, "request_with_reply_route", &v)) {
        return;
    }
    zlink_result rc = zlink_wire_decode(v.bin, v.bin_len, &limits, &frame, NULL);
    vector_free(&v);
    API(rc == ZLINK_RESULT_OK && frame != NULL);
    zlink_bytes bytes = {0};
    const char *name = NULL;
    API(zlink_frame_encode(frame, NULL, NULL) == ZLINK_RESULT_NULL_POINTER);
    API(zlink_frame_describe(frame, NULL, NULL) == ZLINK_RESULT_NULL_POINTER);
    API(zlink_frame_command_name(frame, NULL, NULL) == ZLINK_RESULT_NULL_POINTER);
    API(zlink_frame_describe(frame, &bytes, NULL) == ZLINK_RESULT_OK);
    API(bytes.len > 2 && bytes.data[0] == '{' && bytes.data[bytes.len - 1] == '}');
    zlink_bytes_free(&bytes);
    API(bytes.data == NULL && bytes.len == 0);
    zlink_bytes_free(&bytes); /* a second free is harmless */
    API(zlink_frame_free(frame, NULL) == ZLINK_RESULT_OK);

    /* Freed, NULL and foreign handles. */
    API(zlink_frame_encode(frame, &bytes, &err) == ZLINK_RESULT_INVALID_HANDLE);
    API(bytes.data == NULL && err != NULL && zlink_error_kind(err) &&
        strcmp(zlink_error_kind(err), "InvalidHandle") == 0);
    zlink_error_free(err);
    API(zlink_frame_describe(frame, &bytes, NULL) == ZLINK_RESULT_INVALID_HANDLE);
    API(zlink_frame_command_name(frame, &name, NULL) == ZLINK_RESULT_INVALID_HANDLE);
    API(name == NULL);
    API(zlink_frame_free(frame, NULL) == ZLINK_RESULT_INVALID_HANDLE);
    API(zlink_frame_free(NULL, NULL) == ZLINK_RESULT_OK);
    API(zlink_frame_encode(NULL, &bytes, NULL) == ZLINK_RESULT_NULL_POINTER);
    uint64_t local[2] = {0, 0};
    zlink_frame *foreign = (zlink_frame *)(void *)local;
    API(zlink_frame_encode(foreign, &bytes, NULL) == ZLINK_RESULT_INVALID_HANDLE);
    API(zlink_frame_free(foreign, NULL) == ZLINK_RESULT_INVALID_HANDLE);
}

/* -------------------------------------------------------------- main -- */

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TESTDATA_WIRE_DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    char *invalid_dir = path_join(dir, "invalid", "");
    size_t n_valid = 0, n_invalid = 0;
    char **valid = list_vectors(dir, &n_valid);
    char **invalid = list_vectors(invalid_dir, &n_invalid);
    int valid_passed = 0, invalid_passed = 0;

    check_api(dir);
    if (!valid || n_valid < MIN_VALID) {
        fail(dir, "%zu valid vectors, want at least %d", n_valid, MIN_VALID);
    }
    if (!invalid || n_invalid < MIN_INVALID) {
        fail(invalid_dir, "%zu invalid vectors, want at least %d", n_invalid, MIN_INVALID);
    }
    for (size_t i = 0; valid && i < n_valid; i++) {
        valid_passed += check_valid(dir, valid[i]);
    }
    for (size_t i = 0; invalid && i < n_invalid; i++) {
        invalid_passed += check_invalid(invalid_dir, invalid[i]);
    }
    printf("%d valid, %d invalid vectors passed", valid_passed, invalid_passed);
    if (failures) {
        printf(" (of %zu valid, %zu invalid); %d failures\n", n_valid, n_invalid, failures);
    } else {
        printf("\n");
    }
    if (valid) {
        free_names(valid, n_valid);
    }
    if (invalid) {
        free_names(invalid, n_invalid);
    }
    free(invalid_dir);
    return failures ? 1 : 0;
}
