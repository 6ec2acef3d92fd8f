/*
 * A small strict JSON parser (RFC 8259) for the C test runners; no
 * dependency beyond libc. Header-only, so that every C test file stays one
 * translation unit (ffi-c/tests/run.sh builds each file on its own): every
 * function is `static` and marked unused-tolerant.
 *
 *     json_value *doc;
 *     char why[128];
 *     if (json_parse(text, len, &doc, why, sizeof why) != 0) ... why ...
 *     const json_value *steps = json_get(doc, "steps");   // NULL: absent
 *     json_free(doc);
 *
 * What it accepts is what a strict parser (serde_json) accepts: one value,
 * surrounded by whitespace only; strings must be valid UTF-8 with no raw
 * control characters; escapes \uXXXX with surrogate pairs are decoded to
 * UTF-8 (a lone surrogate is an error); numbers follow the JSON grammar.
 * Nesting is bounded (JSON_MAX_DEPTH), so hostile input cannot overflow the
 * stack; every allocation failure is reported, never a crash. A string may
 * hold NUL bytes: use its `len`. Objects keep their members in order; a
 * repeated key is kept and `json_get` returns its last value (as serde_json
 * keeps the last).
 */
#ifndef ZLINK_TEST_JSON_H
#define ZLINK_TEST_JSON_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define JSON_API static __attribute__((unused))
#else
#define JSON_API static
#endif

#define JSON_MAX_DEPTH 128

typedef enum {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
} json_type;

typedef struct json_value json_value;

typedef struct {
    char *key; /* NUL-terminated; may hold NULs before (see key_len) */
    size_t key_len;
    json_value *value;
} json_member;

struct json_value {
    json_type type;
    bool boolean;
    /* JSON_NUMBER: its value as a double, and, when the literal is a
     * non-negative integer (no sign, fraction or exponent) that fits, as
     * u64. */
    double number;
    bool is_u64;
    uint64_t u64;
    /* JSON_STRING: decoded UTF-8, NUL-terminated (len excludes the NUL). */
    char *string;
    size_t len;
    /* JSON_ARRAY: `count` items; JSON_OBJECT: `count` members. */
    json_value **items;
    json_member *members;
    size_t count;
};

typedef struct {
    const char *p, *end, *start;
    char *why;
    size_t why_len;
    int depth;
} json_parser_;

static void json_fail_(json_parser_ *ps, const char *fmt, ...) {
    if (ps->why == NULL || ps->why_len == 0 || ps->why[0] != '\0') return; /* first error wins */
    size_t line = 1, col = 1;
    for (const char *c = ps->start; c < ps->p && c < ps->end; c++) {
        if (*c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->why, ps->why_len, "%s at line %zu column %zu", msg, line, col);
}

/* Frees a value and everything in it; NULL is a no-op. */
JSON_API void json_free(json_value *v) {
    if (v == NULL) return;
    free(v->string);
    if (v->items != NULL) {
        for (size_t i = 0; i < v->count; i++) json_free(v->items[i]);
        free(v->items);
    }
    if (v->members != NULL) {
        for (size_t i = 0; i < v->count; i++) {
            free(v->members[i].key);
            json_free(v->members[i].value);
        }
        free(v->members);
    }
    free(v);
}

static json_value *json_new_(json_parser_ *ps, json_type type) {
    json_value *v = calloc(1, sizeof *v);
    if (v == NULL) {
        json_fail_(ps, "out of memory");
        return NULL;
    }
    v->type = type;
    return v;
}

static void json_ws_(json_parser_ *ps) {
    while (ps->p < ps->end &&
           (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

/* A growable byte buffer for decoded strings. */
typedef struct {
    char *data;
    size_t len, cap;
} json_buf_;

static bool json_buf_put_(json_buf_ *b, const char *bytes, size_t n) {
    if (n > SIZE_MAX - b->len - 1) return false;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 16;
        while (cap < b->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                cap = b->len + n + 1;
                break;
            }
            cap *= 2;
        }
        char *d = realloc(b->data, cap);
        if (d == NULL) return false;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
    return true;
}

static int json_hex4_(const char *p, const char *end, unsigned *out) {
    if (end - p < 4) return -1;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    *out = v;
    return 0;
}

static size_t json_utf8_encode_(unsigned cp, char out[4]) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t json_utf8_valid_(const unsigned char *p, const unsigned char *end) {
    unsigned char c = p[0];
    size_t n;
    unsigned cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Parses a string at ps->p (on its opening quote) into *out (malloc'd). */
static int json_string_(json_parser_ *ps, char **out, size_t *out_len) {
    json_buf_ b = {0};
    ps->p++; /* the quote */
    if (!json_buf_put_(&b, "", 0)) goto oom;
    for (;;) {
        if (ps->p >= ps->end) {
            json_fail_(ps, "unterminated string");
            goto fail;
        }
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20) {
            json_fail_(ps, "control character in a string");
            goto fail;
        }
        if (c == '\\') {
            if (ps->end - ps->p < 2) {
                json_fail_(ps, "unterminated escape");
                goto fail;
            }
            char e = ps->p[1];
            const char *simple = NULL;
            switch (e) {
            case '"': simple = "\""; break;
            case '\\': simple = "\\"; break;
            case '/': simple = "/"; break;
            case 'b': simple = "\b"; break;
            case 'f': simple = "\f"; break;
            case 'n': simple = "\n"; break;
            case 'r': simple = "\r"; break;
            case 't': simple = "\t"; break;
            case 'u': break;
            default:
                json_fail_(ps, "invalid escape \\%c", e);
                goto fail;
            }
            if (simple != NULL) {
                if (!json_buf_put_(&b, simple, 1)) goto oom;
                ps->p += 2;
                continue;
            }
            unsigned cp;
            if (json_hex4_(ps->p + 2, ps->end, &cp) != 0) {
                json_fail_(ps, "invalid \\u escape");
                goto fail;
            }
            ps->p += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                json_fail_(ps, "lone low surrogate");
                goto fail;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                unsigned lo;
                if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
                    json_hex4_(ps->p + 2, ps->end, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF) {
                    json_fail_(ps, "lone high surrogate");
                    goto fail;
                }
                ps->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            char enc[4];
            size_t n = json_utf8_encode_(cp, enc);
            if (!json_buf_put_(&b, enc, n)) goto oom;
            continue;
        }
        size_t n = json_utf8_valid_((const unsigned char *)ps->p, (const unsigned char *)ps->end);
        if (n == 0) {
            json_fail_(ps, "invalid UTF-8 in a string");
            goto fail;
        }
        if (!json_buf_put_(&b, ps->p, n)) goto oom;
        ps->p += n;
    }
    *out = b.data;
    *out_len = b.len;
    return 0;
oom:
    json_fail_(ps, "out of memory");
fail:
    free(b.data);
    return -1;
}

static json_value *json_number_(json_parser_ *ps) {
    const char *s = ps->p;
    bool negative = false, integral = true;
    if (ps->p < ps->end && *ps->p == '-') {
        negative = true;
        ps->p++;
    }
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
        json_fail_(ps, "invalid number");
        return NULL;
    }
    if (*ps->p == '0') {
        ps->p++;
    } else {
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    if (ps->p < ps->end && *ps->p == '.') {
        integral = false;
        ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
            json_fail_(ps, "invalid number: no digit after the point");
            return NULL;
        }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
        integral = false;
        ps->p++;
        if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
        if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') {
            json_fail_(ps, "invalid number: no exponent digit");
            return NULL;
        }
        while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    }
    size_t n = (size_t)(ps->p - s);
    char stack[64];
    char *text = n < sizeof stack ? stack : malloc(n + 1);
    if (text == NULL) {
        json_fail_(ps, "out of memory");
        return NULL;
    }
    memcpy(text, s, n);
    text[n] = '\0';
    json_value *v = json_new_(ps, JSON_NUMBER);
    if (v != NULL) {
        v->number = strtod(text, NULL);
        if (integral && !negative) {
            errno = 0;
            unsigned long long u = strtoull(text, NULL, 10);
            _Static_assert(sizeof u == sizeof(uint64_t), "u64 is unsigned long long");
            if (errno == 0) {
                v->is_u64 = true;
                v->u64 = (uint64_t)u;
            }
        } /* a negative literal, -0 included, is no u64 (as in serde_json) */
    }
    if (text != stack) free(text);
    return v;
}

static bool json_literal_(json_parser_ *ps, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, word, n) == 0) {
        ps->p += n;
        return true;
    }
    return false;
}

static json_value *json_value_(json_parser_ *ps);

static json_value *json_array_(json_parser_ *ps) {
    json_value *v = json_new_(ps, JSON_ARRAY);
    if (v == NULL) return NULL;
    size_t cap = 0;
    ps->p++; /* [ */
    json_ws_(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return v;
    }
    for (;;) {
        json_value *item = json_value_(ps);
        if (item == NULL) goto fail;
        if (v->count == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            json_value **items = ncap > SIZE_MAX / sizeof *items
                                     ? NULL
                                     : realloc(v->items, ncap * sizeof *items);
            if (items == NULL) {
                json_free(item);
                json_fail_(ps, "out of memory");
                goto fail;
            }
            v->items = items;
            cap = ncap;
        }
        v->items[v->count++] = item;
        json_ws_(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return v;
        }
        json_fail_(ps, "expected ',' or ']' in an array");
        goto fail;
    }
fail:
    json_free(v);
    return NULL;
}

static json_value *json_object_(json_parser_ *ps) {
    json_value *v = json_new_(ps, JSON_OBJECT);
    if (v == NULL) return NULL;
    size_t cap = 0;
    ps->p++; /* { */
    json_ws_(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return v;
    }
    for (;;) {
        json_ws_(ps);
        if (ps->p >= ps->end || *ps->p != '"') {
            json_fail_(ps, "expected a string key in an object");
            goto fail;
        }
        char *key = NULL;
        size_t key_len = 0;
        if (json_string_(ps, &key, &key_len) != 0) goto fail;
        json_ws_(ps);
        if (ps->p >= ps->end || *ps->p != ':') {
            free(key);
            json_fail_(ps, "expected ':' after an object key");
            goto fail;
        }
        ps->p++;
        json_value *item = json_value_(ps);
        if (item == NULL) {
            free(key);
            goto fail;
        }
        if (v->count == cap) {
            size_t ncap = cap ? cap * 2 : 4;
            json_member *members = ncap > SIZE_MAX / sizeof *members
                                       ? NULL
                                       : realloc(v->members, ncap * sizeof *members);
            if (members == NULL) {
                free(key);
                json_free(item);
                json_fail_(ps, "out of memory");
                goto fail;
            }
            v->members = members;
            cap = ncap;
        }
        v->members[v->count].key = key;
        v->members[v->count].key_len = key_len;
        v->members[v->count].value = item;
        v->count++;
        json_ws_(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            return v;
        }
        json_fail_(ps, "expected ',' or '}' in an object");
        goto fail;
    }
fail:
    json_free(v);
    return NULL;
}

static json_value *json_value_(json_parser_ *ps) {
    json_ws_(ps);
    if (ps->p >= ps->end) {
        json_fail_(ps, "unexpected end of input");
        return NULL;
    }
    if (ps->depth >= JSON_MAX_DEPTH) {
        json_fail_(ps, "nested deeper than %d", JSON_MAX_DEPTH);
        return NULL;
    }
    json_value *v = NULL;
    ps->depth++;
    switch (*ps->p) {
    case '{':
        v = json_object_(ps);
        break;
    case '[':
        v = json_array_(ps);
        break;
    case '"': {
        char *s = NULL;
        size_t n = 0;
        if (json_string_(ps, &s, &n) == 0) {
            v = json_new_(ps, JSON_STRING);
            if (v == NULL) {
                free(s);
            } else {
                v->string = s;
                v->len = n;
            }
        }
        break;
    }
    case 't':
    case 'f':
    case 'n':
        if (json_literal_(ps, "true")) {
            if ((v = json_new_(ps, JSON_BOOL)) != NULL) v->boolean = true;
        } else if (json_literal_(ps, "false")) {
            v = json_new_(ps, JSON_BOOL);
        } else if (json_literal_(ps, "null")) {
            v = json_new_(ps, JSON_NULL);
        } else {
            json_fail_(ps, "invalid literal");
        }
        break;
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) {
            v = json_number_(ps);
        } else {
            json_fail_(ps, "unexpected character '%c'", *ps->p);
        }
    }
    ps->depth--;
    return v;
}

/* Parses `len` bytes of JSON text. 0 and *out (free with json_free) on
 * success; -1 and a message in why (if not NULL) otherwise. */
JSON_API int json_parse(const char *text, size_t len, json_value **out, char *why,
                        size_t why_len) {
    json_parser_ ps = {.p = text, .end = text + len, .start = text, .why = why,
                       .why_len = why_len, .depth = 0};
    if (why != NULL && why_len > 0) why[0] = '\0';
    if (text == NULL || out == NULL) {
        if (why != NULL && why_len > 0) snprintf(why, why_len, "no input");
        return -1;
    }
    json_value *v = json_value_(&ps);
    if (v == NULL) {
        json_fail_(&ps, "invalid JSON");
        return -1;
    }
    json_ws_(&ps);
    if (ps.p != ps.end) {
        json_fail_(&ps, "trailing characters");
        json_free(v);
        return -1;
    }
    *out = v;
    return 0;
}

/* The value of member `key` of an object (the last one if repeated); NULL
 * when `v` is NULL, not an object, or has no such member. */
JSON_API const json_value *json_get(const json_value *v, const char *key) {
    if (v == NULL || v->type != JSON_OBJECT) return NULL;
    size_t n = strlen(key);
    for (size_t i = v->count; i > 0; i--) {
        const json_member *m = &v->members[i - 1];
        if (m->key_len == n && memcmp(m->key, key, n) == 0) return m->value;
    }
    return NULL;
}

/* Item i of an array; NULL when out of range or not an array. */
JSON_API const json_value *json_at(const json_value *v, size_t i) {
    if (v == NULL || v->type != JSON_ARRAY || i >= v->count) return NULL;
    return v->items[i];
}

/* The string of `v`, or NULL when it is not a string. */
JSON_API const char *json_str(const json_value *v) {
    return v != NULL && v->type == JSON_STRING ? v->string : NULL;
}

/* Whether `v` is a non-negative integer that fits u64 (as serde_json's
 * as_u64); then *out holds it. */
JSON_API bool json_u64(const json_value *v, uint64_t *out) {
    if (v == NULL || v->type != JSON_NUMBER || !v->is_u64) return false;
    *out = v->u64;
    return true;
}

/* Whether `v` is a boolean; then *out holds it. */
JSON_API bool json_bool(const json_value *v, bool *out) {
    if (v == NULL || v->type != JSON_BOOL) return false;
    *out = v->boolean;
    return true;
}

#endif /* ZLINK_TEST_JSON_H */
