/* diff_norm: the normalisations of diff.h — text in, the text two plans are compared by out.
 *
 * One pass over the text, no backtracking beyond the identifier before a '#'.  Expression
 * ids are renumbered per name in order of first appearance through a diff_idmap, an open
 * addressing table owned by the caller of diff_idmap_new.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/catalog.h"
#include "sparkplan/diff.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/opclass.h"

/* ---- the names of the normalisations ------------------------------------------------- */

static const struct {
    const char *name;
    unsigned bits;
} norm_names[] = {
    {"exprids", DIFF_NORM_EXPRIDS}, {"planids", DIFF_NORM_PLANIDS},
    {"opids", DIFF_NORM_OPIDS},     {"codegen", DIFF_NORM_CODEGEN},
    {"subquery", DIFF_NORM_SUBQUERY}, {"stats", DIFF_NORM_STATS},
    {"location", DIFF_NORM_LOCATION}, {"hashes", DIFF_NORM_HASHES},
    {"catalog", DIFF_NORM_CATALOG}, {"ids", DIFF_NORM_IDS},
    {"all", DIFF_NORM_DEFAULT},     {"none", 0},
};

enum sp_status diff_norm_parse(const char *list, unsigned *out, struct diag *err)
{
    unsigned bits = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        bool found = false;
        for (size_t i = 0; i < sizeof norm_names / sizeof *norm_names; i++) {
            if (strlen(norm_names[i].name) == n && memcmp(norm_names[i].name, p, n) == 0) {
                bits |= norm_names[i].bits;
                found = true;
            }
        }
        if (!found && n) {
            diag_set(err, 0, "unknown normalisation '%.*s' (ids, exprids, planids, opids, "
                     "codegen, subquery, stats, location, hashes, catalog, all, none)",
                     (int)(n > 40 ? 40 : n), p);
            return SP_ERR_USAGE;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    *out = bits;
    return SP_OK;
}

const char *diff_norm_format(unsigned norm, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < 9; i++) {
        if (!(norm & norm_names[i].bits))
            continue;
        int w = snprintf(buf + len, cap > len ? cap - len : 0, "%s%s", len ? "," : "",
                         norm_names[i].name);
        if (w > 0)
            len = len + (size_t)w < cap ? len + (size_t)w : (cap ? cap - 1 : 0);
    }
    if (!norm && cap)
        snprintf(buf, cap, "none");
    return buf;
}

/* ---- expression id renumbering ------------------------------------------------------- */

struct idslot {
    uint64_t key;
    uint32_t value;
    uint32_t gen;      /* a slot of another generation is empty */
};

/* Reset per node (diff_idmap_reset) by a new generation, so a node's ids are numbered by
 * their first appearance in that node: the same column has the same number in two plans
 * even when one of them gave a reused subtree fresh ids. */
struct diff_idmap {
    struct idslot *ids;    /* (name hash, id) -> ordinal */
    struct idslot *names;  /* name hash -> ordinals handed out */
    size_t cap, n_ids, n_names;
    uint32_t gen;
    bool opaque;
};

void diff_idmap_opaque(struct diff_idmap *m)
{
    m->opaque = true;
}

struct diff_idmap *diff_idmap_new(void)
{
    struct diff_idmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->cap = 1024;
    m->gen = 1;
    m->ids = calloc(m->cap, sizeof *m->ids);
    m->names = calloc(m->cap, sizeof *m->names);
    if (!m->ids || !m->names) {
        diff_idmap_free(m);
        return NULL;
    }
    return m;
}

void diff_idmap_free(struct diff_idmap *m)
{
    if (!m)
        return;
    free(m->ids);
    free(m->names);
    free(m);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x ? x : 1;
}

void diff_idmap_reset(struct diff_idmap *m)
{
    if (!m)
        return;
    m->n_ids = m->n_names = 0;
    if (++m->gen == 0) { /* wrapped: wipe: no old slot may pass for a new one */
        memset(m->ids, 0, m->cap * sizeof *m->ids);
        memset(m->names, 0, m->cap * sizeof *m->names);
        m->gen = 1;
    }
}

/* The slot of key in table t of cap slots (a power of two): its own or an empty one. */
static struct idslot *slot_of(struct idslot *t, size_t cap, uint64_t key, uint32_t gen)
{
    size_t i = (size_t)key & (cap - 1);
    while (t[i].gen == gen && t[i].key != key)
        i = (i + 1) & (cap - 1);
    return &t[i];
}

static bool table_grow(struct idslot **t, size_t old_cap, size_t new_cap, uint32_t gen)
{
    struct idslot *n = calloc(new_cap, sizeof *n);
    if (!n)
        return false;
    for (size_t i = 0; i < old_cap; i++)
        if ((*t)[i].gen == gen)
            *slot_of(n, new_cap, (*t)[i].key, gen) = (*t)[i];
    free(*t);
    *t = n;
    return true;
}

/* Both tables share cap and grow together at half full. */
static bool idmap_room(struct diff_idmap *m)
{
    if ((m->n_ids + 1) * 2 < m->cap && (m->n_names + 1) * 2 < m->cap)
        return true;
    size_t nc = m->cap * 2;
    if (!table_grow(&m->ids, m->cap, nc, m->gen) || !table_grow(&m->names, m->cap, nc, m->gen))
        return false;
    m->cap = nc;
    return true;
}

static uint64_t hash_bytes(const char *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    return h;
}

/* The ordinal of id under name: 1 for the first id seen with this name, 2 for the next...
 * A normalised "#x" id (has_id false) is the first.  Memory failure: every id is 1. */
static uint32_t idmap_ordinal(struct diff_idmap *m, struct slice name, uint64_t id, bool has_id)
{
    if (!m || !has_id || m->opaque)
        return 1;
    uint64_t nh = mix64(hash_bytes(name.ptr, name.len, 0xcbf29ce484222325ULL));
    uint64_t key = mix64(nh ^ mix64(id + 0x9e3779b97f4a7c15ULL));
    struct idslot *s = slot_of(m->ids, m->cap, key, m->gen);
    if (s->gen == m->gen)
        return s->value;
    if (!idmap_room(m))
        return 1;
    struct idslot *ns = slot_of(m->names, m->cap, nh, m->gen);
    if (ns->gen != m->gen) {
        *ns = (struct idslot){nh, 0, m->gen};
        m->n_names++;
    }
    s = slot_of(m->ids, m->cap, key, m->gen);
    *s = (struct idslot){key, ++ns->value, m->gen};
    m->n_ids++;
    return s->value;
}

/* ---- the text pass ------------------------------------------------------------------- */

struct nout {
    char *buf;
    size_t cap, len;
};

static void put(struct nout *o, const char *p, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - 1 - o->len, k = n < room ? n : room;
        memcpy(o->buf + o->len, p, k);
    }
    o->len += n;
}

static void put_u32(struct nout *o, uint32_t v)
{
    char tmp[12];
    int n = snprintf(tmp, sizeof tmp, "%u", v);
    put(o, tmp, (size_t)n);
}

static bool at_n(struct slice t, size_t i, const char *lit, size_t n)
{
    /* Most candidates differ in the second byte: no call for them. */
    return t.len - i >= n && t.ptr[i + 1] == lit[1] && memcmp(t.ptr + i, lit, n) == 0;
}

#define at(t, i, lit) at_n(t, i, lit, sizeof lit - 1)

static size_t digits_at(struct slice t, size_t i)
{
    size_t j = i;
    while (j < t.len && isdigit((unsigned char)t.ptr[j]))
        j++;
    return j - i;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '`' || c == '$';
}

/* After a bracket-balanced run from i to a ", " at depth 0, a ']' or ')' closing the outer
 * level, or the end: the index where it stops. */
static size_t skip_balanced_value(struct slice t, size_t i)
{
    int depth = 0;
    for (; i < t.len; i++) {
        char c = t.ptr[i];
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                return i;
            depth--;
        } else if (c == ',' && depth == 0 && i + 1 < t.len && t.ptr[i + 1] == ' ') {
            return i;
        }
    }
    return i;
}

/* "#11", "#11L" after a name, "#x": the id replaced by its ordinal.  Returns input bytes
 * consumed (0: not an id here). */
static size_t norm_exprid(struct slice t, size_t i, struct diff_idmap *m, struct nout *o)
{
    size_t nd = digits_at(t, i + 1);
    bool x = !nd && i + 1 < t.len && (t.ptr[i + 1] == 'x' || t.ptr[i + 1] == 'X') &&
             (i + 2 >= t.len || !isalnum((unsigned char)t.ptr[i + 2]) ||
              t.ptr[i + 2] == 'L');
    if (!nd && !x)
        return 0;
    size_t s = i;
    while (s > 0 && ident_char(t.ptr[s - 1]))
        s--;
    uint64_t id = 0;
    for (size_t k = 0; k < nd && k < 19; k++)
        id = id * 10 + (uint64_t)(t.ptr[i + 1 + k] - '0');
    put(o, "#", 1);
    put_u32(o, idmap_ordinal(m, slice_make(t.ptr + s, i - s), id, nd > 0));
    return 1 + (nd ? nd : 1);
}

/* Replaces the digits at i (if any) by '#'.  Returns bytes consumed. */
static size_t hide_number(struct slice t, size_t i, struct nout *o)
{
    size_t nd = digits_at(t, i);
    if (!nd && i < t.len && (t.ptr[i] == 'x' || t.ptr[i] == 'X'))
        nd = 1;
    if (nd)
        put(o, "#", 1);
    return nd;
}

/* The prefix-words whose following number is an id.  Returns bytes consumed (0 none). */
static size_t norm_numbered(struct slice t, size_t i, unsigned norm, struct nout *o)
{
#define WORD(s, bit) {s, sizeof s - 1, bit}
    static const struct {
        const char *lit;
        size_t len;
        unsigned bit;
    } words[] = {
        WORD("[plan_id=", DIFF_NORM_PLANIDS),    WORD("plan_id=", DIFF_NORM_PLANIDS),
        WORD("operator id: ", DIFF_NORM_OPIDS),  WORD("operator id = ", DIFF_NORM_OPIDS),
        WORD("QueryStage ", DIFF_NORM_OPIDS),    WORD("Subquery:", DIFF_NORM_SUBQUERY),
        WORD("codegen id : ", DIFF_NORM_CODEGEN),
    };
#undef WORD
    if ((norm & DIFF_NORM_PLANIDS) && at(t, i, "[id=#")) {
        put(o, "[plan_id=", 9);
        return 5 + hide_number(t, i + 5, o);
    }
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        if (words[w].lit[0] != t.ptr[i] || !(norm & words[w].bit) ||
            !at_n(t, i, words[w].lit, words[w].len))
            continue;
        size_t n = words[w].len;
        put(o, words[w].lit, n);
        return n + hide_number(t, i + n, o);
    }
    return 0;
}

/* "(12)" closing the text, alone or after a space: a formatted-mode operator id. */
static bool trailing_opid(struct slice t, size_t i)
{
    if (t.ptr[i] != '(' || (i > 0 && t.ptr[i - 1] != ' '))
        return false;
    size_t nd = digits_at(t, i + 1);
    return nd && i + 1 + nd + 1 == t.len && t.ptr[i + 1 + nd] == ')';
}

/* One step of the pass at t[i], a byte may_start accepts: the bytes consumed (>= 1). */
static size_t norm_step(struct slice t, size_t i, unsigned norm, struct diff_idmap *m,
                        struct nout *o)
{
    char c = t.ptr[i];
    size_t n;
    switch (c) {
    case '#':
        if ((norm & DIFF_NORM_EXPRIDS) && (n = norm_exprid(t, i, m, o)))
            return n;
        break;
    case '(':
        if ((norm & DIFF_NORM_OPIDS) && trailing_opid(t, i))
            return t.len - i;
        break;
    case 'S':
        if ((norm & DIFF_NORM_STATS) && at(t, i, "Statistics(")) {
            if (o->len >= 2 && o->len < o->cap && o->buf[o->len - 2] == ',' &&
                o->buf[o->len - 1] == ' ')
                o->len -= 2;
            size_t e = i + 11;
            for (int depth = 1; e < t.len && depth > 0; e++)
                depth += t.ptr[e] == '(' ? 1 : t.ptr[e] == ')' ? -1 : 0;
            return e - i;
        }
        if ((n = norm_numbered(t, i, norm, o)))
            return n;
        break;
    case 'L':
        if ((norm & DIFF_NORM_LOCATION) && at(t, i, "Location: ")) {
            put(o, "Location: ...", 13);
            return skip_balanced_value(t, i + 10) - i;
        }
        break;
    case '@':
        if (norm & DIFF_NORM_HASHES) {
            size_t j = i + 1;
            while (j < t.len && isxdigit((unsigned char)t.ptr[j]))
                j++;
            if (j - i > 4 && (j == t.len || !isalnum((unsigned char)t.ptr[j]))) {
                put(o, "@#", 2);
                return j - i;
            }
        }
        break;
    case 's':
        if ((norm & DIFF_NORM_CATALOG) && at(t, i, "spark_catalog."))
            return 14;
        break;
    default: /* '[', 'p', 'o', 'Q', 'c': the numbered words */
        if (i + 1 < t.len && (n = norm_numbered(t, i, norm, o)))
            return n;
        break;
    }
    put(o, &c, 1);
    return 1;
}

/* Bytes that may start something a normalisation rewrites; runs of others are copied. */
static bool may_start(unsigned char c)
{
    switch (c) {
    case '[': case 'p': case 'o': case 'Q': case 'S': case 'c': case '#': case '(':
    case 'L': case '@': case 's':
        return true;
    default:
        return false;
    }
}

size_t diff_normalize(struct slice text, unsigned norm, struct diff_idmap *state, char *buf,
                      size_t cap)
{
    struct nout o = {buf, cap, 0};
    for (size_t i = 0; i < text.len;) {
        size_t j = i;
        while (j < text.len && !may_start((unsigned char)text.ptr[j]))
            j++;
        if (j > i) {
            put(&o, text.ptr + i, j - i);
            i = j;
            continue;
        }
        i += norm_step(text, i, norm, state, &o);
    }
    if (cap)
        buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}

/* ---- engines' names ------------------------------------------------------------------ */

struct slice diff_canonical_op(const struct plan_node *n)
{
    if (node_is_label(n))
        return slice_trim(plan_node_text(n));
    const struct catalog_entry *e = node_entry(n);
    if (e)
        return slice_cstr(e->stands_for ? e->stands_for : e->name);
    struct slice w = op_word(n);
    /* An unknown accelerator name guessed from its Spark counterpart ("GpuExpand"). */
    struct catalog_match cm = catalog_match(w);
    if (cm.entry)
        return slice_cstr(cm.entry->stands_for ? cm.entry->stands_for : cm.entry->name);
    return w;
}
