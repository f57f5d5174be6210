/* diffrows.c: the diff view's model (see diffrows.h). */
#include "sparkplan/diffrows.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"

/* ---- visible rows ---------------------------------------------------------------------- */

static void rebuild(struct diffrows *dr)
{
    size_t n = 0;
    for (size_t k = 0; k < dr->r->n;) {
        dr->rows[n++] = (uint32_t)k;
        k += dr->folded[k] ? (size_t)dr->r->entries[k].subtree_size + 1 : 1;
    }
    dr->n_rows = n;
}

bool diffrows_init(struct diffrows *dr, const struct diff_result *r, bool fold_same)
{
    memset(dr, 0, sizeof *dr);
    dr->r = r;
    dr->folded = calloc(r->n ? r->n : 1, 1);
    dr->rows = malloc((r->n ? r->n : 1) * sizeof *dr->rows);
    if (!dr->folded || !dr->rows) {
        diffrows_free(dr);
        return false;
    }
    for (size_t k = 0; fold_same && k < r->n; k++)
        dr->folded[k] = r->entries[k].subtree_same && r->entries[k].subtree_size > 0;
    rebuild(dr);
    return true;
}

void diffrows_free(struct diffrows *dr)
{
    free(dr->folded);
    free(dr->rows);
    dr->folded = NULL;
    dr->rows = NULL;
    dr->n_rows = 0;
}

size_t diffrows_toggle(struct diffrows *dr, size_t row)
{
    if (row >= dr->n_rows)
        return row;
    uint32_t k = dr->rows[row];
    if (dr->r->entries[k].subtree_size == 0)
        return row;
    dr->folded[k] ^= 1;
    rebuild(dr);
    return row;
}

size_t diffrows_row_of(const struct diffrows *dr, uint32_t entry)
{
    size_t lo = 0, hi = dr->n_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (dr->rows[mid] < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < dr->n_rows && dr->rows[lo] == entry ? lo : SIZE_MAX;
}

uint32_t diffrows_hidden(const struct diffrows *dr, size_t row)
{
    if (row >= dr->n_rows)
        return 0;
    uint32_t k = dr->rows[row];
    return dr->folded[k] ? dr->r->entries[k].subtree_size : 0;
}

size_t diffrows_next_change(const struct diffrows *dr, size_t from, int dir)
{
    if (dir > 0) {
        for (size_t row = from == SIZE_MAX ? 0 : from + 1; row < dr->n_rows; row++)
            if (dr->r->entries[dr->rows[row]].change != DIFF_SAME)
                return row;
    } else {
        for (size_t row = from > dr->n_rows ? dr->n_rows : from; row-- > 0;)
            if (dr->r->entries[dr->rows[row]].change != DIFF_SAME)
                return row;
    }
    return SIZE_MAX;
}

/* ---- differing words ------------------------------------------------------------------- */

struct token {
    uint32_t start, end;
    uint64_t hash;
    bool space;    /* never counted */
    bool word;     /* only a word starts a span; punctuation may extend one */
};

static bool word_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '#' || c == '.' || c >= 0x80;
}

static struct token *tokenize(struct slice s, size_t *n)
{
    struct token *t = malloc((s.len ? s.len : 1) * sizeof *t);
    size_t k = 0;
    for (size_t i = 0; t && i < s.len;) {
        size_t j = i + 1;
        if (word_char((unsigned char)s.ptr[i]))
            while (j < s.len && word_char((unsigned char)s.ptr[j]))
                j++;
        uint64_t h = 0xcbf29ce484222325ULL;
        for (size_t m = i; m < j; m++)
            h = (h ^ (unsigned char)s.ptr[m]) * 0x100000001b3ULL;
        t[k++] = (struct token){(uint32_t)i, (uint32_t)j, h ? h : 1, s.ptr[i] == ' ',
                                word_char((unsigned char)s.ptr[i])};
        i = j;
    }
    *n = k;
    return t;
}

/* Counts of b's middle tokens by hash: an open table, 0 = empty key. */
struct counts {
    uint64_t *key;
    uint32_t *count;
    size_t cap;
};

static uint32_t *count_slot(struct counts *c, uint64_t h)
{
    size_t i = (size_t)h & (c->cap - 1);
    while (c->key[i] && c->key[i] != h)
        i = (i + 1) & (c->cap - 1);
    c->key[i] = h;
    return &c->count[i];
}

static size_t mark_middle(const struct token *ta, size_t a0, size_t a1, const struct token *tb,
                          size_t b0, size_t b1, struct diff_span *out, size_t cap)
{
    struct counts c = {0};
    c.cap = 16;
    while (c.cap < (b1 - b0) * 2 + 2)
        c.cap *= 2;
    c.key = calloc(c.cap, sizeof *c.key);
    c.count = calloc(c.cap, sizeof *c.count);
    size_t n = 0;
    if (c.key && c.count) {
        for (size_t j = b0; j < b1; j++)
            if (!tb[j].space)
                (*count_slot(&c, tb[j].hash))++;
        bool open = false; /* the last word was a differing one: a span to extend */
        for (size_t i = a0; i < a1; i++) {
            if (ta[i].space)
                continue;   /* a space neither starts nor ends a span */
            uint32_t *left = count_slot(&c, ta[i].hash);
            if (*left) {
                (*left)--;
                open = false;
                continue;
            }
            if (open && n - 1 < cap) {
                out[n - 1].end = ta[i].end;
            } else if (!open && ta[i].word) {
                if (n < cap)
                    out[n] = (struct diff_span){ta[i].start, ta[i].end};
                n++;
                open = true;
            }
        }
    }
    free(c.key);
    free(c.count);
    return n;
}

size_t diff_words(struct slice a, struct slice b, struct diff_span *out, size_t cap)
{
    size_t na = 0, nb = 0;
    struct token *ta = tokenize(a, &na), *tb = tokenize(b, &nb);
    size_t n = 0;
    if (ta && tb) {
        size_t p = 0;
        while (p < na && p < nb && ta[p].hash == tb[p].hash)
            p++;
        size_t s = 0;
        while (s < na - p && s < nb - p && ta[na - 1 - s].hash == tb[nb - 1 - s].hash)
            s++;
        n = mark_middle(ta, p, na - s, tb, p, nb - s, out, cap);
    }
    free(ta);
    free(tb);
    return n;
}

/* ---- one sentence per difference ------------------------------------------------------- */

static size_t say(char *buf, size_t cap, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t say(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + len, cap > len ? cap - len : 0, fmt, ap);
    va_end(ap);
    if (w < 0)
        return len;
    return len + (size_t)w < cap ? len + (size_t)w : (cap ? cap - 1 : 0);
}

size_t diff_describe(const struct diff_entry *e, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    if (e->heading) {
        const struct diff_part *p = e->part_b ? e->part_b : e->part_a;
        return say(buf, cap, 0, "%s: %.*s", e->change == DIFF_SAME ? "Section" : "Section changed",
                   (int)p->title.len, p->title.ptr);
    }
    const struct plan_node *n = e->b ? e->b : e->a;
    struct slice op = op_word(n);
    size_t len = 0;
    switch (e->change) {
    case DIFF_SAME:
        return say(buf, cap, 0, "Same: %.*s", (int)op.len, op.ptr);
    case DIFF_REPLACED: {
        struct slice was = op_word(e->a);
        len = say(buf, cap, 0, "Replaced: %.*s became %.*s", (int)was.len, was.ptr,
                  (int)op.len, op.ptr);
        break;
    }
    case DIFF_ADDED:
        return say(buf, cap, 0, "Added: %.*s%s", (int)op.len, op.ptr,
                   node_is_wrapper(n) ? " (a wrapper: what it wraps is unchanged)" : "");
    case DIFF_REMOVED:
        return say(buf, cap, 0, "Removed: %.*s%s", (int)op.len, op.ptr,
                   node_is_wrapper(n) ? " (a wrapper)" : "");
    case DIFF_MOVED:
        len = say(buf, cap, 0, "Moved: %.*s is under another parent", (int)op.len, op.ptr);
        break;
    case DIFF_CHANGED:
        len = say(buf, cap, 0, "Changed: %.*s", (int)op.len, op.ptr);
        break;
    }
    for (uint32_t i = 0; i < e->n_fields && i < 4; i++)
        len = say(buf, cap, len, "%s%.*s", i ? ", " : ": ", (int)e->fields[i].key.len,
                  e->fields[i].key.ptr);
    if (e->n_fields > 4)
        len = say(buf, cap, len, " and %u more", e->n_fields - 4);
    return len;
}
