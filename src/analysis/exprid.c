/* exprid.c: expression ids in node text (see exprid.h). */
#include "sparkplan/exprid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/nodeinfo.h"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' ||
           c == '$' || c == '-' || c == '.';
}

/* Start of the name before '#' at p[hash]: identifier characters and balanced parenthesized
 * groups ("sum(DISTINCT val)#12L", "count(1)#9L").  Looks back at most 200 bytes. */
static size_t name_start(const char *p, size_t hash)
{
    size_t i = hash;
    while (i > 0 && hash - i < 200) {
        char c = p[i - 1];
        if (is_name_char(c)) {
            i--;
            continue;
        }
        if (c != ')')
            break;
        int depth = 0;
        size_t j = i;
        while (j > 0 && hash - j < 200) {  /* bounded: 200 bytes */
            char d = p[j - 1];
            if (d == ')')
                depth++;
            else if (d == '(' && --depth == 0)
                break;
            j--;
        }
        if (j == 0 || p[j - 1] != '(' || hash - j >= 200)
            break;
        i = j - 1;
    }
    /* A leading '-' or '.' is punctuation, not part of the name. */
    while (i < hash && (p[i] == '-' || p[i] == '.'))
        i++;
    return i;
}

/* One id at p[at] == '#'.  Returns false when it is not an expression id. */
static bool ref_at(struct slice t, size_t at, struct exprid_ref *r, size_t *next)
{
    const char *p = t.ptr;
    size_t i = at + 1;
    *next = at + 1;
    if (at >= 3 && memcmp(p + at - 3, "id=", 3) == 0)
        return false;  /* [id=#5]: a plan id */
    if (i < t.len && (p[i] == 'x' || p[i] == 'X')) {
        size_t e = i + 1;
        if (e < t.len && p[e] == 'L')
            e++;
        if (e < t.len && is_name_char(p[e]) && p[e] != '-' && p[e] != '.')
            return false;
        size_t s = name_start(p, at);
        r->text = slice_make(p + s, e - s);
        r->name = slice_make(p + s, at - s);
        r->id = 0;
        r->normalized = true;
        *next = e;
        return true;
    }
    size_t d = i;
    uint64_t v = 0;
    while (d < t.len && is_digit(p[d]) && d - i < 18)
        v = v * 10 + (uint64_t)(p[d++] - '0');
    if (d == i)
        return false;
    size_t e = d;
    if (e < t.len && p[e] == 'L')
        e++;
    if (e < t.len && (is_digit(p[e]) || (p[e] >= 'A' && p[e] <= 'Z') || (p[e] >= 'a' && p[e] <= 'z') ||
                      p[e] == '_'))
        return false;
    size_t s = name_start(p, at);
    r->text = slice_make(p + s, e - s);
    r->name = slice_make(p + s, at - s);
    r->id = v;
    r->normalized = false;
    *next = e;
    return true;
}

static bool same_ref(const struct exprid_ref *a, const struct exprid_ref *b)
{
    if (a->normalized != b->normalized)
        return false;
    if (!a->normalized)
        return a->id == b->id;
    return a->name.len == b->name.len && memcmp(a->name.ptr, b->name.ptr, a->name.len) == 0;
}

/* Appends r unless already present among out[0..n) (the first cap ones are checked). */
static size_t add_ref(struct exprid_ref *out, size_t cap, size_t n, const struct exprid_ref *r)
{
    size_t limit = n < cap ? n : cap;
    for (size_t i = 0; i < limit; i++)  /* bounded by cap, a small caller buffer */
        if (same_ref(&out[i], r))
            return n;
    if (n < cap)
        out[n] = *r;
    return n + 1;
}

static size_t scan_into(struct slice t, struct exprid_ref *out, size_t cap, size_t n)
{
    size_t i = 0;
    while (i < t.len) {
        const char *h = memchr(t.ptr + i, '#', t.len - i);
        if (!h)
            break;
        size_t at = (size_t)(h - t.ptr), next;
        struct exprid_ref r;
        if (ref_at(t, at, &r, &next))
            n = add_ref(out, cap, n, &r);
        i = next;
    }
    return n;
}

size_t exprid_scan(struct slice text, struct exprid_ref *out, size_t cap)
{
    return scan_into(text, out, cap, 0);
}

size_t exprid_node_refs(const struct plan_node *n, struct exprid_ref *out, size_t cap)
{
    size_t k = scan_into(plan_node_text(n), out, cap, 0);
    if (plan_node_details_text(n).len)
        k = scan_into(plan_node_details_text(n), out, cap, k);
    return k;
}

bool exprid_mentions(struct slice t, uint64_t id)
{
    char digits[24];
    int dl = snprintf(digits, sizeof digits, "%llu", (unsigned long long)id);
    size_t i = 0;
    while (i < t.len) {
        const char *h = memchr(t.ptr + i, '#', t.len - i);
        if (!h)
            return false;
        size_t at = (size_t)(h - t.ptr);
        i = at + 1;
        if (t.len - i < (size_t)dl || memcmp(t.ptr + i, digits, (size_t)dl) != 0)
            continue;
        size_t e = i + (size_t)dl;
        if (e < t.len && is_digit(t.ptr[e]))
            continue;
        if (at >= 3 && memcmp(t.ptr + at - 3, "id=", 3) == 0)
            continue;
        return true;
    }
    return false;
}

bool exprid_node_mentions(const struct plan_node *n, uint64_t id)
{
    return exprid_mentions(plan_node_text(n), id) ||
           (plan_node_details_text(n).len && exprid_mentions(plan_node_details_text(n), id));
}

bool exprid_parse(const char *s, uint64_t *id)
{
    const char *h = strrchr(s, '#');
    const char *p = h ? h + 1 : s;
    if (!is_digit(*p))
        return false;
    uint64_t v = 0;
    int n = 0;
    while (is_digit(*p) && n < 18) {
        v = v * 10 + (uint64_t)(*p++ - '0');
        n++;
    }
    if (*p == 'L')
        p++;
    if (*p != '\0' && *p != ' ')
        return false;
    *id = v;
    return true;
}

/* ---- finding every mention and the producer ---------------------------------------------- */

/* Does the node define the id with an alias: "... AS name#id"? */
static bool defines_by_alias(const struct plan_node *n, uint64_t id)
{
    struct slice parts[2] = {plan_node_text(n), plan_node_details_text(n)};
    char digits[24];
    snprintf(digits, sizeof digits, "#%llu", (unsigned long long)id);
    for (int k = 0; k < 2; k++) {
        struct slice t = parts[k];
        for (size_t from = 0;;) {  /* each round moves past one " AS " */
            long as = slice_find_in(t, " AS ", from);
            if (as < 0)
                break;
            size_t i = (size_t)as + 4;
            /* Name up to the '#': names may hold spaces and parentheses; stop at list ends. */
            size_t limit = i + 256 < t.len ? i + 256 : t.len;
            while (i < limit && t.ptr[i] != '#' && t.ptr[i] != ',' && t.ptr[i] != ']')
                i++;
            size_t dl = strlen(digits);
            if (i < limit && t.len - i >= dl && memcmp(t.ptr + i, digits, dl) == 0 &&
                (i + dl >= t.len || !is_digit(t.ptr[i + dl])))
                return true;
            from = (size_t)as + 1;
        }
    }
    return false;
}

static bool in_subtree(const struct plan_node *anc, const struct plan_node *n)
{
    return n->section == anc->section && plan_node_preorder(n) > plan_node_preorder(anc) &&
           plan_node_preorder(n) <= plan_node_preorder(anc) + anc->subtree_size;
}

static const struct plan_node *choose_producer(const struct plan_node **hits, size_t n,
                                               const struct plan_section *focus, uint64_t id)
{
    /* hits are in input order, which is preorder within a section. */
    const struct plan_node *alias = NULL, *scan = NULL, *leaf = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct plan_node *h = hits[i];
        if (h->section != focus)
            continue;
        if (defines_by_alias(h, id))
            alias = h;  /* keep the last: the bottom-most definition in preorder */
        if (!scan && (node_role(h) == CAT_SCAN || node_role(h) == CAT_CACHE ||
                      node_role(h) == CAT_RELATION))
            scan = h;
        /* Bottom-most: no later hit of the same section lies in its subtree. */
        bool has_hit_below = i + 1 < n && hits[i + 1]->section == focus && in_subtree(h, hits[i + 1]);
        if (!leaf && !has_hit_below)
            leaf = h;
    }
    return alias ? alias : scan ? scan : leaf;
}

enum sp_status exprid_find(const struct document *doc, const struct plan *plan,
                           const struct plan_section *focus, uint64_t id,
                           struct exprid_hits *out, struct diag *err)
{
    out->nodes = NULL;
    out->n = 0;
    out->producer = NULL;
    size_t cap = 0;
    for (const struct plan *p = plan ? plan : doc->first_plan; p; p = plan ? NULL : p->next) {
        for (const struct plan_section *s = p->first_section; s; s = s->next) {
            for (uint32_t i = 0; i < s->n_nodes; i++) {
                const struct plan_node *n = plan_section_node(s, i);
                if (!exprid_node_mentions(n, id))
                    continue;
                if (out->n == cap) {
                    size_t ncap = cap ? cap * 2 : 16;
                    const struct plan_node **nn = realloc(out->nodes, ncap * sizeof *nn);
                    if (!nn) {
                        exprid_hits_free(out);
                        diag_set(err, 0, "out of memory");
                        return SP_ERR_NOMEM;
                    }
                    out->nodes = nn;
                    cap = ncap;
                }
                out->nodes[out->n++] = n;
            }
        }
    }
    if (out->n) {
        const struct plan_section *f = focus;
        if (!f)
            f = out->nodes[0]->section;
        out->producer = choose_producer(out->nodes, out->n, f, id);
    }
    return SP_OK;
}

void exprid_hits_free(struct exprid_hits *h)
{
    free(h->nodes);
    h->nodes = NULL;
    h->n = 0;
    h->producer = NULL;
}
