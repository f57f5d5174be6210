/* libFuzzer target: the tree pane's row model (rows.c) driven by a key sequence taken from
 * the input.
 *
 * Input: byte 0 = k, the number of key bytes that follow; byte 1 picks the tab (a section,
 * or the subtree of one of its nodes) and byte 2 the pane height; then the k - 2 key bytes;
 * the rest is the plan text, loaded as a file would be.  Each key byte is one action of
 * the explorer's tree pane (j, k, pages, g, G, Space, h, l, C, E, 1-9, x/X, ]/[, a search
 * whose pattern is the next bytes, n/N, the wheel, a click on a node, a resize).
 * After every key it traps on a broken invariant: the selection and the top row are rows
 * of the tab and visible (no folded ancestor inside the tab), the selection is on screen
 * (reached from the top within the pane's height), and a search's matches are ascending
 * positions of the tab.  Built by `make fuzz`; not part of the Check runner.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/load.h"
#include "sparkplan/rows.h"

#include "fuzz.h"

static int visible(struct rows *r, const struct plan_node *n)
{
    if (!n || !rows_contains(r, n))
        return 0;
    /* Bound: the node's depth inside the tab. */
    for (const struct plan_node *a = plan_node_parent(n); a && rows_contains(r, a);
         a = plan_node_parent(a))
        if (rows_is_folded(r, a))
            return 0;
    return 1;
}

static void check_rows(struct rows *r)
{
    if (!r->sel) {
        check(rows_first(r) == NULL);
        return;
    }
    check(visible(r, r->sel));
    check(visible(r, r->top));
    const struct plan_node *n = r->top;
    unsigned line = 0;
    /* Bound: the pane's height. */
    while (n && n != r->sel && line < r->height) {
        n = rows_next(r, n);
        line++;
    }
    check(n == r->sel && line < r->height);
    if (r->matches)
        for (size_t i = 0; i < r->n_matches; i++) {
            check(r->matches[i] >= r->begin && r->matches[i] < r->end);
            check(i == 0 || r->matches[i - 1] < r->matches[i]);
        }
    struct rows_prefix p;
    rows_prefix(r, r->sel, r->height & 1, r->height % 3, 8 + r->height % 40, &p);
    check(memchr(p.guides, '\0', sizeof p.guides) != NULL);
}

/* One key byte; key bytes after it may be taken too (a search's pattern): returns how many
 * more were used. */
static size_t press(struct rows *r, struct plan_section *s, const uint8_t *k, size_t left)
{
    bool wrapped;
    switch (k[0] % 24) {
    case 0: rows_move(r, 1); break;
    case 1: rows_move(r, -1); break;
    case 2: rows_page(r, 2); break;
    case 3: rows_page(r, -1); break;
    case 4: rows_go_first(r); break;
    case 5: rows_go_last(r); break;
    case 6: rows_toggle(r); break;
    case 7: rows_left(r); break;
    case 8: rows_right(r); break;
    case 9: rows_fold_all(r); break;
    case 10: rows_unfold_all(r); break;
    case 11: rows_show_levels(r, 1 + k[0] / 24 % 9); break;
    case 12: rows_next_exchange(r, 1, &wrapped); break;
    case 13: rows_next_exchange(r, -1, &wrapped); break;
    case 14: rows_next_stage(r, 1, &wrapped); break;
    case 15: rows_next_stage(r, -1, &wrapped); break;
    case 16: { /* a search: the next up to 3 bytes are its pattern */
        char pat[4] = {0};
        size_t m = left < 3 ? left : 3;
        for (size_t i = 0; i < m; i++)
            pat[i] = k[1 + i] ? (char)k[1 + i] : 'a';
        if (k[0] / 24 % 2)
            rows_search(r, pat);
        else if (rows_search_start(r, pat))
            while (rows_search_more(r, 64) == 0)
                ;
        rows_search_step(r, 1, &wrapped);
        return m;
    }
    case 17: rows_search_step(r, 1, &wrapped); break;
    case 18: rows_search_step(r, -1, &wrapped); break;
    case 19: rows_scroll(r, 3); break;
    case 20: rows_scroll(r, -3); break;
    case 21: /* a click: a node of the tab by position */
        if (left && r->end > r->begin) {
            struct plan_node *n = plan_section_node(s, r->begin + k[1] % (r->end - r->begin));
            if (k[0] / 24 % 2)
                rows_select(r, n);
            else
                rows_select_centered(r, n);
            return 1;
        }
        break;
    case 22: rows_set_height(r, 1 + k[0] / 24); rows_fix_scroll(r); break;
    default: rows_index_more(r, 1 + k[0] / 24); break;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    size_t nkeys = data[0];
    if (nkeys < 2 || 1 + nkeys > size)
        return 0;
    uint8_t tab = data[1], height = data[2];
    const uint8_t *keys = data + 3;
    size_t n_key_bytes = nkeys - 2;
    size_t text_len = size - 1 - nkeys;
    char *text = fuzz_text(data + 1 + nkeys, text_len);
    if (!text)
        return 0;
    struct document *doc = NULL;
    struct diag err = {0};
    if (load_bytes("fuzz", text, text_len, &doc, &err) != SP_OK)
        return 0;
    /* The tab: section tab % n, scope: the whole section or the subtree of a node. */
    struct plan_section *s = NULL;
    size_t n_sec = 0;
    for (struct plan *p = doc->first_plan; p; p = p->next)
        for (struct plan_section *t = p->first_section; t; t = t->next)
            n_sec++;
    size_t want = n_sec ? tab % n_sec : 0, i = 0;
    for (struct plan *p = doc->first_plan; p && !s; p = p->next)
        for (struct plan_section *t = p->first_section; t && !s; t = t->next, i++)
            if (i == want)
                s = t;
    if (s && s->n_nodes) {
        struct plan_node *scope = tab & 0x80 ? plan_section_node(s, (tab >> 1) % s->n_nodes) : NULL;
        struct rows r;
        if (rows_init(&r, s, scope)) {
            rows_set_height(&r, 1 + height % 60);
            check_rows(&r);
            for (size_t k = 0; k < n_key_bytes; k++) {
                k += press(&r, s, keys + k, n_key_bytes - k - 1);
                check_rows(&r);
            }
        }
        rows_free(&r);
    }
    document_free(doc);
    return 0;
}
