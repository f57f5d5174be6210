/* diff_fields: a node's fields as a diff compares them, and their normalised hashes.
 *
 * A node's text is split after its operator into the arguments and the "Key: value" parts
 * simple mode prints on scans ("Batched: true, DataFilters: [...], Location: ..."), then
 * its formatted-mode details fields follow.  Values are normalised (diff_norm.c) into the
 * context's scratch buffer and only their hash is kept: the text shown is the original.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diff_impl.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"

/* Eight bytes at a time: values run to kilobytes and every node's are hashed. */
uint64_t diff_hash_slice(struct slice s)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ (s.len * 0x9e3779b97f4a7c15ULL);
    const char *p = s.ptr;
    size_t n = s.len;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 31;
    }
    for (; n; p++, n--)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

bool diff_norm_value(struct diff_ctx *c, struct slice value, struct diff_idmap *ids,
                     uint64_t *h)
{
    size_t need = diff_normalize(value, c->norm, ids, c->scratch, c->scratch_cap);
    if (need >= c->scratch_cap) {
        size_t cap = need + 1 > 4096 ? need + 1 : 4096;
        char *nb = realloc(c->scratch, cap);
        if (!nb)
            return false;
        c->scratch = nb;
        c->scratch_cap = cap;
        need = diff_normalize(value, c->norm, ids, c->scratch, c->scratch_cap);
    }
    uint64_t v = diff_hash_slice(slice_make(c->scratch, need));
    *h = (*h ^ v) * 0x9e3779b97f4a7c15ULL + v;
    return true;
}

static bool push(struct nfields *f, struct slice key, struct slice value)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 16;
        struct nfield *nv = realloc(f->v, nc * sizeof *nv);
        if (!nv)
            return false;
        f->v = nv;
        f->cap = nc;
    }
    f->v[f->n++] = (struct nfield){key, value, 0};
    return true;
}

/* A "Key: " starting at i (after a space or at the start): the key's length, else 0. */
static size_t key_at(struct slice t, size_t i)
{
    if (i > 0 && t.ptr[i - 1] != ' ')
        return 0;
    if (i >= t.len || !isupper((unsigned char)t.ptr[i]))
        return 0;
    size_t j = i;
    while (j < t.len && isalpha((unsigned char)t.ptr[j]))
        j++;
    return j + 1 < t.len && t.ptr[j] == ':' && t.ptr[j + 1] == ' ' ? j - i : 0;
}

static struct slice trim_tail(struct slice s)
{
    while (s.len && (s.ptr[s.len - 1] == ' ' || s.ptr[s.len - 1] == ','))
        s.len--;
    return slice_trim(s);
}

/* What split_text stops at: brackets (depth) and spaces (a key may follow). */
enum { CH_PLAIN, CH_OPEN, CH_CLOSE, CH_SPACE };

static const unsigned char char_class[256] = {
    ['('] = CH_OPEN,  ['['] = CH_OPEN,  ['{'] = CH_OPEN,  ['<'] = CH_OPEN,
    [')'] = CH_CLOSE, [']'] = CH_CLOSE, ['}'] = CH_CLOSE, ['>'] = CH_CLOSE,
    [' '] = CH_SPACE,
};

/* Splits args into the leading arguments and the "Key: value" parts at bracket depth 0. */
static bool split_text(struct slice args, struct nfields *out)
{
    struct slice key = slice_cstr("arguments");
    size_t start = 0;
    int depth = 0;
    const unsigned char *p = (const unsigned char *)args.ptr;
    for (size_t i = 0; i < args.len; i++) {
        while (i < args.len && char_class[p[i]] == CH_PLAIN)
            i++;
        if (i == args.len)
            break;
        unsigned char k = char_class[p[i]];
        if (k == CH_OPEN) {
            depth++;
            continue;
        }
        if (k == CH_CLOSE) {
            depth -= depth > 0;
            continue;
        }
        size_t kl = depth == 0 ? key_at(args, i + 1) : 0;
        if (!kl)
            continue;
        struct slice v = trim_tail(slice_make(args.ptr + start, i + 1 - start));
        if ((v.len || start) && !push(out, key, v))
            return false;
        key = slice_make(args.ptr + i + 1, kl);
        start = i + 1 + kl + 2;
        i = start - 1;
    }
    struct slice v = trim_tail(slice_make(args.ptr + start, args.len - start));
    return (!v.len && !start) || push(out, key, v);
}

/* The text after the operator's name. */
static struct slice text_args(const struct plan_node *n)
{
    struct slice t = plan_node_text(n), w = op_word(n);
    if (!w.len)
        return t;
    if (w.ptr >= t.ptr && w.ptr + w.len <= t.ptr + t.len)
        return slice_make(w.ptr + w.len, (size_t)(t.ptr + t.len - (w.ptr + w.len)));
    for (size_t i = 0; i + w.len <= t.len; i++)
        if (memcmp(t.ptr + i, w.ptr, w.len) == 0)
            return slice_make(t.ptr + i + w.len, t.len - i - w.len);
    return t;
}

/* Fields whose whole value is noise under a normalisation. */
static bool value_hidden(struct slice key, unsigned norm)
{
    if ((norm & DIFF_NORM_LOCATION) && slice_eq_cstr(key, "Location"))
        return true;
    if ((norm & DIFF_NORM_STATS) && slice_eq_cstr(key, "Statistics"))
        return true;
    if ((norm & DIFF_NORM_OPIDS) && key.len >= 11 &&
        memcmp(key.ptr + key.len - 11, "operator id", 11) == 0)
        return true;
    return false;
}

bool diff_node_fields(struct diff_ctx *c, const struct plan_node *n, struct diff_idmap *ids,
                      struct nfields *out)
{
    out->n = 0;
    diff_idmap_reset(ids);
    if (!node_is_label(n) && !split_text(slice_trim(text_args(n)), out))
        return false;
    if (n->n_details) {
        struct plan_details it;
        struct plan_detail d;
        plan_details_init(&it, n);
        while (plan_details_next(&it, &d))
            if (!push(out, d.key, slice_trim(d.value)))
                return false;
    }
    for (size_t i = 0; i < out->n; i++) {
        uint64_t h = 0;
        if (value_hidden(out->v[i].key, c->norm))
            continue;
        if (!diff_norm_value(c, out->v[i].value, ids, &h))
            return false;
        out->v[i].norm = h;
    }
    return true;
}
