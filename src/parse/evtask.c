/* evtask.c: the TaskEnd fields the metrics need, read token by token (evtask.h). */
#include "evtask.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct scan {
    const char *p, *end;
    bool bad;
};

static void ws(struct scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n'))
        s->p++;
}

static bool eat(struct scan *s, char c)
{
    ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* A string at p (after its opening quote was seen): its raw bytes, escapes left as they are. */
static bool string_raw(struct scan *s, const char **start, size_t *len, bool *escaped)
{
    ws(s);
    if (s->p >= s->end || *s->p != '"')
        return s->bad = true, false;
    const char *a = ++s->p;
    *escaped = false;
    for (;;) { /* the next quote not escaped: preceded by an even run of backslashes */
        const char *q = memchr(s->p, '"', (size_t)(s->end - s->p));
        if (!q) {
            s->p = s->end;
            break;
        }
        size_t bs = 0;
        while (q - bs > a && q[-1 - (ptrdiff_t)bs] == '\\')
            bs++;
        *escaped = *escaped || bs > 0; /* enough: callers only read digits */
        s->p = q;
        if (bs % 2 == 0)
            break;
        s->p = q + 1;
    }
    if (s->p >= s->end)
        return s->bad = true, false;
    *start = a;
    *len = (size_t)(s->p - a);
    s->p++;
    return true;
}

/* Skips any value: nesting is counted, strings are stepped over. */
static void skip_value(struct scan *s)
{
    ws(s);
    int depth = 0;
    while (s->p < s->end) {
        char c = *s->p;
        if (c == '"') {
            const char *a;
            size_t n;
            bool esc;
            if (!string_raw(s, &a, &n, &esc))
                return;
            if (depth == 0)
                return;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return; /* the end of the enclosing container: not ours */
            if (--depth == 0) {
                s->p++;
                return;
            }
        } else if (depth == 0 && (c == ',')) {
            return;
        }
        s->p++;
    }
    s->bad = true;
}

/* A JSON number that is a whole number (123, -4); false for anything else. */
static bool whole_number(const char *p, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = n > 0 && p[0] == '-';
    i = neg;
    if (i >= n || n - i > 18)
        return false;
    int64_t v = 0;
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* A number value (or a string holding one, as Spark writes Update); *ok false otherwise. */
static int64_t number(struct scan *s, bool *ok)
{
    ws(s);
    *ok = false;
    if (s->p < s->end && *s->p == '"') {
        const char *a;
        size_t n;
        bool esc;
        int64_t v = 0;
        if (string_raw(s, &a, &n, &esc) && !esc)
            *ok = whole_number(a, n, &v);
        return v;
    }
    const char *a = s->p;
    while (s->p < s->end && ((*s->p >= '0' && *s->p <= '9') || *s->p == '-' || *s->p == '+' ||
                             *s->p == '.' || *s->p == 'e' || *s->p == 'E'))
        s->p++;
    int64_t v = 0;
    *ok = whole_number(a, (size_t)(s->p - a), &v);
    if (!*ok && s->p > a) { /* 1.5e3: what cJSON would give, truncated */
        char tmp[64];
        size_t n = (size_t)(s->p - a) < sizeof tmp - 1 ? (size_t)(s->p - a) : sizeof tmp - 1;
        memcpy(tmp, a, n);
        tmp[n] = '\0';
        v = (int64_t)strtod(tmp, NULL);
        *ok = true;
    }
    if (s->p == a)
        s->bad = true;
    return v;
}

static bool boolean(struct scan *s)
{
    ws(s);
    if ((size_t)(s->end - s->p) >= 4 && memcmp(s->p, "true", 4) == 0) {
        s->p += 4;
        return true;
    }
    skip_value(s);
    return false;
}

static bool key_is(const char *k, size_t n, const char *want)
{
    return strlen(want) == n && memcmp(k, want, n) == 0;
}

/* Iterates the members of an object: the next key in (k, n), the scan at its value. */
static bool next_member(struct scan *s, bool *first, const char **k, size_t *n)
{
    bool esc;
    if (eat(s, '}'))
        return false;
    if (!*first && !eat(s, ','))
        return s->bad = true, false;
    *first = false;
    if (!string_raw(s, k, n, &esc) || !eat(s, ':'))
        return s->bad = true, false;
    return true;
}

static bool push(struct evtask *t, int64_t id, int64_t v)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        int64_t *a = realloc(t->acc_ids, cap * sizeof *a);
        if (!a)
            return false;
        t->acc_ids = a;
        int64_t *b = realloc(t->updates, cap * sizeof *b);
        if (!b)
            return false;
        t->updates = b;
        t->cap = cap;
    }
    t->acc_ids[t->n] = id;
    t->updates[t->n++] = v;
    return true;
}

static void accumulable(struct scan *s, struct evtask *t)
{
    if (!eat(s, '{')) {
        s->bad = true;
        return;
    }
    int64_t id = -1, v = 0;
    bool have_id = false, have_v = false, first = true, ok;
    const char *k;
    size_t n;
    while (!s->bad && next_member(s, &first, &k, &n)) {
        if (key_is(k, n, "ID")) {
            id = number(s, &ok);
            have_id = ok;
        } else if (key_is(k, n, "Update")) {
            ws(s);
            if (s->p < s->end && (*s->p == '"' || *s->p == '-' || (*s->p >= '0' && *s->p <= '9')))
                v = number(s, &have_v);
            else
                skip_value(s);
        } else {
            skip_value(s);
        }
    }
    if (!s->bad && have_id && have_v && !push(t, id, v))
        s->bad = true;
}

static void accumulables(struct scan *s, struct evtask *t)
{
    if (!eat(s, '[')) {
        s->bad = true;
        return;
    }
    if (eat(s, ']'))
        return;
    do
        accumulable(s, t);
    while (!s->bad && eat(s, ','));
    if (!s->bad && !eat(s, ']'))
        s->bad = true;
}

static void task_info(struct scan *s, struct evtask *t)
{
    if (!eat(s, '{')) {
        s->bad = true;
        return;
    }
    bool first = true, ok;
    const char *k;
    size_t n;
    while (!s->bad && next_member(s, &first, &k, &n)) {
        if (key_is(k, n, "Task ID"))
            t->task_id = number(s, &ok);
        else if (key_is(k, n, "Index"))
            t->index = number(s, &ok);
        else if (key_is(k, n, "Finish Time"))
            t->finish_time = number(s, &ok);
        else if (key_is(k, n, "Failed"))
            t->failed = boolean(s);
        else if (key_is(k, n, "Killed"))
            t->killed = boolean(s);
        else if (key_is(k, n, "Accumulables"))
            accumulables(s, t);
        else
            skip_value(s);
    }
}

bool evtask_scan(const char *line, size_t len, struct evtask *t)
{
    struct scan s = {line, line + len, false};
    t->stage = -1, t->attempt = 0, t->task_id = -1, t->index = -1, t->finish_time = 0;
    t->failed = t->killed = false;
    t->n = 0;
    if (!eat(&s, '{'))
        return false;
    bool first = true, ok, have_stage = false, have_info = false, have_attempt = false;
    const char *k;
    size_t n;
    while (!s.bad && next_member(&s, &first, &k, &n)) {
        if (key_is(k, n, "Stage ID")) {
            t->stage = number(&s, &ok);
            have_stage = ok;
        } else if (key_is(k, n, "Stage Attempt ID")) {
            t->attempt = number(&s, &ok);
            have_attempt = ok;
        } else if (key_is(k, n, "Task Info")) {
            task_info(&s, t);
            have_info = true;
        } else {
            skip_value(&s);
        }
        if (have_stage && have_attempt && have_info)
            break; /* the rest (task and executor metrics) is not needed */
    }
    return !s.bad && have_stage && have_info;
}

void evtask_free(struct evtask *t)
{
    free(t->acc_ids);
    free(t->updates);
    memset(t, 0, sizeof *t);
}
