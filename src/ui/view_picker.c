/* view_picker.c: the plan picker (t) — every section of every open document in one list,
 * filtered as you type, each with where it comes from (the document, its line, the
 * section's header) and its size (nodes, shuffles); Enter shows it.  Opened by = it picks
 * side B of a diff instead (t->picker_compare): the current tab and other diffs are left
 * out, Enter makes the diff a tab (tui_diff_subject), Esc cancels.  Its state: the
 * entries (made once at open), the filter, the list's selection over the entries kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/listbox.h"
#include "sparkplan/tui.h"

/* Shuffles are counted for sections up to this size (a pass over the nodes at open). */
#define PICKER_COUNT_MAX 200000

struct pick {
    size_t doc, tab;
    uint32_t nodes, shuffles;
    bool counted;
    char text[256];               /* "Physical  plan.txt:3  == Physical Plan ==" */
};

struct picker {
    bool compare;                 /* =: the chosen tab becomes side B of a diff */
    struct pick *all;
    size_t n_all;
    size_t *shown;                /* indexes into all that pass the filter */
    size_t n_shown;
    char filter[64];
    size_t filter_len;
    struct listbox lb;
};

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) { /* an entry's text: 256 bytes at most */
        size_t k = 0;
        while (k < n && p[k]) {
            char a = p[k], b = needle[k];
            a = (char)(a >= 'A' && a <= 'Z' ? a + 32 : a);
            b = (char)(b >= 'A' && b <= 'Z' ? b + 32 : b);
            if (a != b)
                break;
            k++;
        }
        if (k == n)
            return true;
    }
    return n == 0;
}

static void apply_filter(struct picker *p)
{
    p->n_shown = 0;
    for (size_t i = 0; i < p->n_all; i++)
        if (contains_nocase(p->all[i].text, p->filter))
            p->shown[p->n_shown++] = i;
    p->lb.n = p->n_shown;
    if (p->lb.sel >= p->n_shown)
        p->lb.sel = p->n_shown ? p->n_shown - 1 : 0;
}

static void describe(const struct tui *t, struct pick *e)
{
    const struct doc_view *dv = &t->ws.docs[e->doc];
    const struct tab *tab = &dv->tabs[e->tab];
    const struct plan_section *s = tab->section;
    e->nodes = tab->scope ? tab->scope->subtree_size + 1 : s->n_nodes;
    e->counted = e->nodes <= PICKER_COUNT_MAX;
    if (e->counted) {
        uint32_t begin = tab->scope ? plan_node_preorder(tab->scope) : 0;
        for (uint32_t i = begin; i < begin + e->nodes && i < s->n_nodes; i++)
            if (op_class_of(plan_section_node(s, i)) == OP_SHUFFLE)
                e->shuffles++;
    }
    int n = (int)(s->title.len > 80 ? 80 : s->title.len);
    const char *base = strrchr(dv->doc->name, '/');
    base = base && base[1] ? base + 1 : dv->doc->name;
    size_t len = (size_t)snprintf(e->text, sizeof e->text, "%-12s  %s:%u", tab->label, base,
                                  (unsigned)s->line);
    /* Where the plan came from, when the input says: a notebook cell, a golden file's
     * query, the log record that printed it. */
    const struct plan_source *src = s->plan ? &s->plan->source : NULL;
    if (src && src->cell && len < sizeof e->text)
        len += (size_t)snprintf(e->text + len, sizeof e->text - len, "  cell %u%s",
                                (unsigned)src->cell, src->from_output ? " output" : "");
    if (src && src->query.len && len < sizeof e->text)
        len += (size_t)snprintf(e->text + len, sizeof e->text - len, "  query: %.*s",
                                (int)(src->query.len > 60 ? 60 : src->query.len), src->query.ptr);
    else if (src && src->logger.len && len < sizeof e->text)
        len += (size_t)snprintf(e->text + len, sizeof e->text - len, "  logged by %.*s",
                                (int)(src->logger.len > 40 ? 40 : src->logger.len),
                                src->logger.ptr);
    if (len < sizeof e->text)
        snprintf(e->text + len, sizeof e->text - len, "  %.*s", n, s->title.ptr);
    size_t o = 0; /* one line: a query's line breaks and runs of spaces become one space */
    for (size_t i = 0; e->text[i]; i++) {
        char c = e->text[i] == '\n' || e->text[i] == '\r' || e->text[i] == '\t' ? ' '
                                                                              : e->text[i];
        if (c == ' ' && o > 0 && e->text[o - 1] == ' ' && i > 14)
            continue;
        e->text[o++] = c;
    }
    e->text[o] = '\0';
}

static struct box picker_box(const struct tui *t, const struct picker *p)
{
    (void)t;
    return overlay_place(100, (int)p->n_all + 4);
}

static void picker_prepare(struct tui *t, void *state)
{
    struct picker *p = state;
    struct box in = overlay_inside(picker_box(t, p));
    p->lb.rows = in.h > 1 ? (size_t)in.h - 1 : 1; /* the filter line first */
    if (p->lb.sel < p->lb.top)
        p->lb.top = p->lb.sel;
    if (p->lb.sel >= p->lb.top + p->lb.rows)
        p->lb.top = p->lb.sel - p->lb.rows + 1;
}

static void draw_pick(const struct tui *t, const struct pick *e, bool selected, struct box in,
                      int y)
{
    enum variant v = selected ? VAR_SELECTED : VAR_PLAIN;
    bool current = e->doc == t->ws.cur_doc && e->tab == t->ws.docs[e->doc].cur;
    struct draw_line dl;
    draw_line_start(&dl, y, in.x, in.w, 0);
    draw_puts(&dl, current ? " *" : "  ", theme_attr(ROLE_NORMAL, v));
    char size[64];
    if (e->counted)
        snprintf(size, sizeof size, "%6u nodes %4u shuffles  ", e->nodes, e->shuffles);
    else
        snprintf(size, sizeof size, "%6u nodes                ", e->nodes);
    draw_puts(&dl, size, theme_attr(ROLE_SUMMARY, v));
    draw_puts(&dl, e->text, theme_attr(ROLE_TITLE, v)); /* sanitized by draw */
    draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
    draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
}

static void picker_draw(const struct tui *t, const void *state)
{
    static const char *const titles[] = {
        "Plans and sections (type to filter, Enter shows, Esc closes)", "Plans", NULL};
    static const char *const compare_titles[] = {
        "Compare this tab with (type to filter, Enter compares, Esc cancels)", "Compare with",
        NULL};
    const struct picker *p = state;
    struct box in = overlay_draw(t, picker_box(t, p), p->compare ? compare_titles : titles);
    struct draw_line dl;
    draw_line_start(&dl, in.y, in.x, in.w, 0);
    char head[128];
    snprintf(head, sizeof head, " filter: %s_   %zu of %zu", p->filter, p->n_shown, p->n_all);
    draw_puts(&dl, head, theme_attr(ROLE_KEY, VAR_PLAIN));
    draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
    for (size_t r = 0; r < p->lb.rows && p->lb.top + r < p->n_shown; r++)
        draw_pick(t, &p->all[p->shown[p->lb.top + r]], p->lb.top + r == p->lb.sel, in,
                  in.y + 1 + (int)r);
}

static int picker_key(struct tui *t, void *state, enum key_action a,
                      const struct input_event *ev)
{
    struct picker *p = state;
    switch (a) {
    case KA_L_OPEN: {
        if (p->n_shown == 0)
            return RE_NONE;
        const struct pick *e = &p->all[p->shown[p->lb.sel]];
        if (p->compare)
            return RE_POP | RE_FOCUS_TREE | tui_diff_subject(t, e->doc, e->tab);
        t->ws.cur_doc = e->doc;
        t->ws.docs[e->doc].cur = e->tab;
        ws_tab(&t->ws);
        return RE_POP | RE_FOCUS_TREE | RE_DRAW | RE_LAYOUT | RE_FULL;
    }
    case KA_L_CLOSE:
        return RE_POP | RE_DRAW | RE_FULL;
    case KA_P_ERASE:
        if (p->filter_len)
            p->filter[--p->filter_len] = '\0';
        apply_filter(p);
        return RE_DRAW;
    default:
        break;
    }
    long delta = listbox_delta(&p->lb, a);
    if (delta) {
        listbox_move(&p->lb, delta);
        return RE_DRAW;
    }
    /* Anything else that types a character narrows the list. */
    size_t n = strlen(ev->text);
    if (n && (unsigned char)ev->text[0] >= 0x20 && p->filter_len + n < sizeof p->filter) {
        memcpy(p->filter + p->filter_len, ev->text, n + 1);
        p->filter_len += n;
        apply_filter(p);
        return RE_DRAW;
    }
    return RE_NONE;
}

static void picker_close(struct tui *t, void *state);

/* Comparing, the list starts on the tab = took before there was a choice: the next
 * document's tab at the same place (its current one when it has fewer), or with one
 * document the next tab. */
static void compare_default(const struct tui *t, size_t *doc, size_t *tab)
{
    const struct workspace *ws = &t->ws;
    const struct doc_view *dv = ws_doc_c(ws);
    *doc = ws->cur_doc;
    *tab = (dv->cur + 1) % dv->n_tabs;
    if (ws->n_docs > 1) {
        *doc = (ws->cur_doc + 1) % ws->n_docs;
        const struct doc_view *ov = &ws->docs[*doc];
        *tab = dv->cur < ov->n_tabs && ov->tabs[dv->cur].kind != SUBJECT_DIFF ? dv->cur
                                                                                : ov->cur;
    }
}

static void *picker_open(struct tui *t)
{
    struct picker *p = calloc(1, sizeof *p);
    size_t total = 0;
    for (size_t d = 0; d < t->ws.n_docs; d++)
        total += t->ws.docs[d].n_tabs;
    if (p) {
        p->all = calloc(total ? total : 1, sizeof *p->all);
        p->shown = calloc(total ? total : 1, sizeof *p->shown);
    }
    if (!p || !p->all || !p->shown) {
        if (p)
            free(p->all), free(p->shown);
        free(p);
        ws_message(&t->ws, true, "out of memory");
        return NULL;
    }
    p->compare = t->picker_compare;
    size_t want_doc, want_tab;
    compare_default(t, &want_doc, &want_tab);
    for (size_t d = 0; d < t->ws.n_docs; d++)
        for (size_t k = 0; k < t->ws.docs[d].n_tabs; k++) {
            bool current = d == t->ws.cur_doc && k == t->ws.docs[d].cur;
            /* Comparing: neither this tab nor another diff can be side B. */
            if (p->compare && (current || t->ws.docs[d].tabs[k].kind == SUBJECT_DIFF))
                continue;
            struct pick *e = &p->all[p->n_all++];
            e->doc = d;
            e->tab = k;
            describe(t, e);
            if (p->compare ? d == want_doc && k == want_tab : current)
                p->lb.sel = p->n_all - 1;
        }
    if (p->compare && p->n_all == 0) {
        picker_close(t, p);
        ws_message(&t->ws, true, "diff: open a second plan (or a document with two tabs) to "
                                 "compare");
        return NULL;
    }
    apply_filter(p);
    return p;
}

static void picker_close(struct tui *t, void *state)
{
    (void)t;
    struct picker *p = state;
    free(p->all);
    free(p->shown);
    free(p);
}

const struct view_ops view_picker = {
    .name = "picker",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_PICKER,
    .open = picker_open,
    .close = picker_close,
    .prepare = picker_prepare,
    .draw = picker_draw,
    .key = picker_key,
};
