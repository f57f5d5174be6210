/* view_diff.c: the plan diff (a diff tab, or I) over the whole screen.  Two trees side by side when
 * the terminal has 160 columns, else one merged tree; a mark and its theme colour in the
 * gutter of every row, unchanged subtrees folded as [=N], n/N from difference to
 * difference, Enter for both sides' fields with the differing words highlighted, w to walk
 * the differences one at a time.  A diff made with = (the picker's compare mode) is a tab
 * of its own (SUBJECT_DIFF): the loop opens this view whenever that tab is current, and
 * closing it goes back to side A's tab.  Its state: the two sides, the diff and its rows
 * (diffrows.h), the selection.  The documents are the workspace's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/decor.h"
#include "sparkplan/diff.h"
#include "sparkplan/diffrows.h"
#include "sparkplan/draw.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/tui.h"

#define SIDE_BY_SIDE_COLS 160

struct diff_state {
    struct diff_part part_a, part_b;
    struct diff_side side_a, side_b;
    struct diff_result *r;
    struct diffrows dr;
    size_t sel, top;
    bool details, walking;
    bool subject;           /* shows a diff tab: closing goes back to side A's tab */
    char title[256];
    char summary[512];
    int body_h;             /* rows of the tree, set by prepare */
};

/* ---- opening: which two things ---------------------------------------------------------- */

/* A tab as one side: its scope's subtree (an AQE label's children), else its section. */
static void side_of_tab(struct diff_part *p, struct diff_side *s, const struct document *doc,
                        const struct tab *tab)
{
    memset(p, 0, sizeof *p);
    p->title = slice_cstr(tab->label);
    p->section = tab->section;
    p->line = tab->section->line;
    const struct plan_node *scope = tab->scope;
    p->first_root = scope ? (node_is_label(scope) ? plan_node_first_child(scope) : scope)
                          : tab->section->first_root;
    memset(s, 0, sizeof *s);
    s->doc = doc;
    s->parts = p;
    s->n_parts = 1;
    s->skip_shadowed = scope == NULL;
}

/* A diff tab (=, then a tab picked): its side A's tab against its side B's. */
static bool pick_subject(struct tui *t, struct diff_state *d)
{
    const struct workspace *ws = &t->ws;
    const struct tab *dt = ws_tab_c(ws);
    if (dt->kind != SUBJECT_DIFF || dt->a_doc >= ws->n_docs || dt->b_doc >= ws->n_docs ||
        dt->a_tab >= ws->docs[dt->a_doc].n_tabs || dt->b_tab >= ws->docs[dt->b_doc].n_tabs) {
        ws_message(&t->ws, true, "diff: press = and pick the plan to compare with");
        return false;
    }
    const struct doc_view *av = &ws->docs[dt->a_doc], *bv = &ws->docs[dt->b_doc];
    const struct tab *a = &av->tabs[dt->a_tab], *b = &bv->tabs[dt->b_tab];
    side_of_tab(&d->part_a, &d->side_a, av->doc, a);
    side_of_tab(&d->part_b, &d->side_b, bv->doc, b);
    snprintf(d->title, sizeof d->title, "Diff  A: %s %s  B: %s %s", av->doc->name, a->label,
             bv->doc->name, b->label);
    d->subject = true;
    return true;
}

static bool same_pair(const struct tab *x, size_t a_doc, size_t a_tab, size_t b_doc,
                      size_t b_tab)
{
    return x->kind == SUBJECT_DIFF && x->a_doc == a_doc && x->a_tab == a_tab &&
           x->b_doc == b_doc && x->b_tab == b_tab;
}

int tui_diff_subject(struct tui *t, size_t b_doc, size_t b_tab)
{
    struct workspace *ws = &t->ws;
    size_t a_doc = ws->cur_doc, a_tab = ws->docs[a_doc].cur;
    struct doc_view *dv = &ws->docs[a_doc];
    if (ws->search_tab) { /* tabs must not move under a running search */
        ws_message(ws, true, "diff: wait for the search to finish");
        return RE_DRAW;
    }
    for (size_t k = 0; k < dv->n_tabs; k++)
        if (same_pair(&dv->tabs[k], a_doc, a_tab, b_doc, b_tab)) {
            dv->cur = k;
            ws_tab(ws);
            return RE_DRAW | RE_LAYOUT | RE_FULL;
        }
    char label[48];
    const struct tab *b = &ws->docs[b_doc].tabs[b_tab];
    if (b_doc == a_doc)
        snprintf(label, sizeof label, "=%.20s", b->label);
    else
        snprintf(label, sizeof label, "=%zu:%.20s", b_doc + 1, b->label);
    struct plan_section *sec = dv->tabs[a_tab].section;
    struct plan_node *scope = dv->tabs[a_tab].scope;
    struct tab *nt = ws_add_subject(dv, SUBJECT_DIFF, sec, scope, label);
    if (!nt) {
        ws_message(ws, true, "diff: out of memory");
        return RE_DRAW;
    }
    nt->a_doc = a_doc, nt->a_tab = a_tab, nt->b_doc = b_doc, nt->b_tab = b_tab;
    decor_forget(t);
    dv->cur = dv->n_tabs - 1;
    ws_tab(ws);
    return RE_DRAW | RE_LAYOUT | RE_FULL;
}

/* I : the current document's adaptive plan, Initial against Final. */
static bool pick_aqe(struct tui *t, struct diff_state *d)
{
    struct diag err = {0};
    const struct document *doc = ws_doc(&t->ws)->doc;
    if (diff_select(doc, "@initial", &d->side_a, &err) != SP_OK ||
        diff_select(doc, "@final", &d->side_b, &err) != SP_OK) {
        diff_side_free(&d->side_a);
        ws_message(&t->ws, true, "diff: this document has no adaptive plan with an Initial "
                                 "and a Final plan");
        return false;
    }
    snprintf(d->title, sizeof d->title, "Diff  A: %s Initial plan  B: Final plan", doc->name);
    return true;
}

static void diff_close(struct tui *t, void *state)
{
    (void)t;
    struct diff_state *d = state;
    if (!d)
        return;
    diffrows_free(&d->dr);
    diff_free(d->r);
    if (d->side_a.parts != &d->part_a)
        diff_side_free(&d->side_a);
    if (d->side_b.parts != &d->part_b)
        diff_side_free(&d->side_b);
    free(d);
}

static void *diff_open(struct tui *t)
{
    struct diff_state *d = calloc(1, sizeof *d);
    if (!d) {
        ws_message(&t->ws, true, "diff: out of memory");
        return NULL;
    }
    if (!(t->diff_aqe ? pick_aqe(t, d) : pick_subject(t, d))) {
        free(d);
        return NULL;
    }
    struct diag err = {0};
    if (diff_sides(&d->side_a, &d->side_b, DIFF_NORM_DEFAULT, &d->r, &err) != SP_OK ||
        !diffrows_init(&d->dr, d->r, true)) {
        ws_message(&t->ws, true, "diff: %s", err.message[0] ? err.message : "out of memory");
        diff_close(t, d);
        return NULL;
    }
    diff_summary_format(&d->r->summary, t->ws.utf8, d->summary, sizeof d->summary);
    size_t first = diffrows_next_change(&d->dr, SIZE_MAX, 1);
    d->sel = first == SIZE_MAX ? 0 : first;
    return d;
}

/* ---- drawing ------------------------------------------------------------------------------ */

static enum role mark_role(enum diff_change c)
{
    static const enum role roles[] = {ROLE_NORMAL, ROLE_DIFF_CHANGED, ROLE_DIFF_REPLACED,
                                      ROLE_DIFF_ADDED, ROLE_DIFF_REMOVED, ROLE_DIFF_MOVED};
    return c <= DIFF_MOVED ? roles[c] : ROLE_NORMAL;
}

static const char *mark_of(enum diff_change c, bool utf8)
{
    static const char *const u[] = {" ", "~", "\xe2\x87\x84", "+", "-", "\xe2\x86\xb7"};
    static const char *const a[] = {" ", "~", "!", "+", "-", ">"};
    return c <= DIFF_MOVED ? (utf8 ? u[c] : a[c]) : " ";
}

/* A side's first line: the node's text, or a heading's title. */
static struct slice side_text(const struct diff_entry *e, bool b)
{
    const struct plan_node *n = b ? e->b : e->a;
    const struct diff_part *p = b ? e->part_b : e->part_a;
    struct slice s = n ? plan_node_text(n) : p ? p->title : slice_make("", 0);
    const char *nl = s.len ? memchr(s.ptr, '\n', s.len) : NULL;
    if (nl)
        s.len = (size_t)(nl - s.ptr);
    return s;
}

/* Two columns a level, to level 40 (a deeper chain keeps that indentation). */
static void put_indent(struct draw_line *dl, uint32_t depth, attr_t attr)
{
    uint32_t n = depth > 40 ? 40 : depth;
    for (uint32_t i = 0; i < n; i++)
        draw_puts(dl, "  ", attr);
}

static void put_side(struct draw_line *dl, const struct diff_entry *e, bool b, attr_t attr,
                     uint32_t hidden)
{
    put_indent(dl, e->depth, attr);
    draw_put(dl, side_text(e, b), attr, true);
    if (hidden) {
        char fold[32];
        snprintf(fold, sizeof fold, "  [=%u]", hidden);
        draw_puts(dl, fold, theme_attr(ROLE_MARKER, VAR_PLAIN));
    }
}

static void draw_row(const struct tui *t, const struct diff_state *d, size_t row, int y)
{
    const struct diff_entry *e = &d->r->entries[d->dr.rows[row]];
    bool sel = row == d->sel;
    enum variant v = sel ? VAR_SELECTED : VAR_PLAIN;
    attr_t text = theme_attr(e->change == DIFF_SAME ? ROLE_NORMAL : mark_role(e->change), v);
    attr_t mark = theme_attr(mark_role(e->change), v);
    uint32_t hidden = diffrows_hidden(&d->dr, row);
    struct draw_line dl;
    if (COLS >= SIDE_BY_SIDE_COLS) {
        int half = (COLS - 3) / 2;
        draw_line_start(&dl, y, 0, half, 0);
        if (e->a || e->part_a)
            put_side(&dl, e, false, text, hidden);
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_line_start(&dl, y, half, 3, 0);
        draw_puts(&dl, " ", mark);
        draw_puts(&dl, mark_of(e->change, t->ws.utf8), mark);
        draw_puts(&dl, " ", mark);
        draw_line_start(&dl, y, half + 3, COLS - half - 3, 0);
        if (e->b || e->part_b)
            put_side(&dl, e, true, text, hidden);
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        return;
    }
    draw_line_start(&dl, y, 0, COLS, 0);
    draw_puts(&dl, mark_of(e->change, t->ws.utf8), mark);
    draw_puts(&dl, " ", mark);
    put_side(&dl, e, e->b || e->part_b, text, hidden);
    if (e->change == DIFF_REPLACED) {
        draw_puts(&dl, "  [was: ", theme_attr(ROLE_HINT, v));
        draw_put(&dl, side_text(e, false), theme_attr(ROLE_HINT, v), true);
        draw_puts(&dl, "]", theme_attr(ROLE_HINT, v));
    }
    draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
    draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
}

/* value with the words the other value lacks in ROLE_MATCH. */
static void put_highlighted(struct draw_line *dl, struct slice value, struct slice other)
{
    struct diff_span sp[32];
    size_t n = diff_words(value, other, sp, 32);
    if (n > 32)
        n = 32;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        draw_put(dl, slice_make(value.ptr + at, sp[i].start - at), theme_attr(ROLE_NORMAL, VAR_PLAIN), true);
        draw_put(dl, slice_make(value.ptr + sp[i].start, sp[i].end - sp[i].start),
                 theme_attr(ROLE_MATCH, VAR_PLAIN), true);
        at = sp[i].end;
    }
    draw_put(dl, slice_make(value.ptr + at, value.len - at), theme_attr(ROLE_NORMAL, VAR_PLAIN), true);
}

static int draw_field(const struct diff_field *f, int y, int y_end)
{
    for (int side = 0; side < 2 && y < y_end; side++) {
        bool has = side ? f->has_b : f->has_a;
        struct draw_line dl;
        draw_line_start(&dl, y++, 0, COLS, 0);
        draw_puts(&dl, side ? "  B " : "  A ", theme_attr(side ? ROLE_DIFF_ADDED : ROLE_DIFF_REMOVED, VAR_PLAIN));
        draw_put(&dl, f->key, theme_attr(ROLE_KEY, VAR_PLAIN), true);
        draw_puts(&dl, ": ", theme_attr(ROLE_KEY, VAR_PLAIN));
        if (!has)
            draw_puts(&dl, "(none)", theme_attr(ROLE_HINT, VAR_PLAIN));
        else
            put_highlighted(&dl, side ? f->b : f->a, side ? (f->has_a ? f->a : slice_make("", 0))
                                                          : (f->has_b ? f->b : slice_make("", 0)));
        draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, VAR_PLAIN));
    }
    return y;
}

static void draw_details(const struct diff_state *d, int y, int h)
{
    draw_clear(y, 0, h, COLS, theme_attr(ROLE_NORMAL, VAR_PLAIN));
    struct draw_line dl;
    draw_line_start(&dl, y, 0, COLS, 0);
    draw_puts(&dl, "Fields of the selected node, A against B", theme_attr(ROLE_TITLE, VAR_PLAIN));
    draw_fill(&dl, theme_attr(ROLE_BORDER, VAR_PLAIN));
    if (d->dr.n_rows == 0)
        return;
    const struct diff_entry *e = &d->r->entries[d->dr.rows[d->sel]];
    int yy = y + 1;
    if (e->n_fields == 0) {
        draw_line_start(&dl, yy, 0, COLS, 0);
        draw_puts(&dl, e->change == DIFF_SAME ? "  the same on both sides" : "  no field differs",
                  theme_attr(ROLE_HINT, VAR_PLAIN));
        return;
    }
    for (uint32_t i = 0; i < e->n_fields && yy < y + h; i++)
        yy = draw_field(&e->fields[i], yy, y + h);
}

static void draw_line_text(int y, const char *s, enum role role)
{
    struct draw_line dl;
    draw_line_start(&dl, y, 0, COLS, 0);
    draw_puts(&dl, s, theme_attr(role, VAR_PLAIN));
    draw_fill(&dl, theme_attr(role, VAR_PLAIN));
    draw_cut_marker(&dl, theme_attr(role, VAR_PLAIN));
}

static void diff_draw(const struct tui *t, const void *state)
{
    const struct diff_state *d = state;
    draw_line_text(0, d->title, ROLE_HEADER);
    draw_line_text(1, d->summary, ROLE_SUMMARY);
    int y0 = 2;
    for (int r = 0; r < d->body_h; r++) {
        size_t row = d->top + (size_t)r;
        if (row < d->dr.n_rows)
            draw_row(t, d, row, y0 + r);
        else
            draw_clear(y0 + r, 0, 1, COLS, theme_attr(ROLE_NORMAL, VAR_PLAIN));
    }
    int det_h = LINES - 1 - y0 - d->body_h;
    if (det_h > 0)
        draw_details(d, y0 + d->body_h, det_h);
    char status[512];
    size_t n = 0;
    if (d->dr.n_rows) {
        const struct diff_entry *e = &d->r->entries[d->dr.rows[d->sel]];
        n = diff_describe(e, status, sizeof status);
    }
    snprintf(status + n, sizeof status - n, "%s",
             d->walking ? "   (walk: Space next, b back, q ends)"
                        : "   n/N difference  Space fold  Enter fields  w walk  q close");
    draw_line_text(LINES - 1, status, ROLE_STATUS);
}

/* ---- keys ------------------------------------------------------------------------------- */

static void diff_prepare(struct tui *t, void *state)
{
    (void)t;
    struct diff_state *d = state;
    int avail = LINES - 3;
    d->body_h = d->details ? avail - avail / 3 : avail;
    if (d->body_h < 1)
        d->body_h = 1;
    if (d->sel >= d->dr.n_rows)
        d->sel = d->dr.n_rows ? d->dr.n_rows - 1 : 0;
    if (d->sel < d->top)
        d->top = d->sel;
    if (d->sel >= d->top + (size_t)d->body_h)
        d->top = d->sel - (size_t)d->body_h + 1;
}

static int move_to(struct diff_state *d, size_t row)
{
    if (row == SIZE_MAX || row >= d->dr.n_rows)
        return RE_NONE;
    d->sel = row;
    /* A difference jumped to sits a third down the pane, with its parents above it. */
    if (row < d->top || row >= d->top + (size_t)d->body_h)
        d->top = row > (size_t)d->body_h / 3 ? row - (size_t)d->body_h / 3 : 0;
    return RE_DRAW;
}

static int step(struct diff_state *d, long delta)
{
    long row = (long)d->sel + delta;
    if (row < 0)
        row = 0;
    if (row >= (long)d->dr.n_rows)
        row = (long)d->dr.n_rows - 1;
    return row < 0 ? RE_NONE : move_to(d, (size_t)row);
}

static int diff_key(struct tui *t, void *state, enum key_action a, const struct input_event *ev)
{
    (void)t, (void)ev;
    struct diff_state *d = state;
    switch (a) {
    case KA_DOWN:
        return step(d, 1);
    case KA_UP:
        return step(d, -1);
    case KA_PAGE_DOWN:
        return step(d, d->body_h);
    case KA_PAGE_UP:
        return step(d, -d->body_h);
    case KA_FIRST:
        return move_to(d, 0);
    case KA_LAST:
        return move_to(d, d->dr.n_rows ? d->dr.n_rows - 1 : 0);
    case KA_NEXT_DIFF:
        return move_to(d, diffrows_next_change(&d->dr, d->sel, 1));
    case KA_PREV_DIFF:
    case KA_W_PREV:
        return move_to(d, diffrows_next_change(&d->dr, d->sel, -1));
    case KA_TOGGLE:
        if (d->walking)
            return move_to(d, diffrows_next_change(&d->dr, d->sel, 1));
        diffrows_toggle(&d->dr, d->sel);
        return RE_DRAW;
    case KA_DETAILS:
        d->details = !d->details;
        return RE_DRAW | RE_LAYOUT;
    case KA_WALK:
        d->walking = !d->walking;
        d->details = d->walking;
        if (d->walking)
            move_to(d, diffrows_next_change(&d->dr, SIZE_MAX, 1));
        return RE_DRAW | RE_LAYOUT;
    case KA_F_CLOSE:
        if (d->walking) {
            d->walking = false;
            return RE_DRAW;
        }
        if (d->subject) { /* leave the diff tab (it stays, to come back to) */
            const struct tab *dt = ws_tab_c(&t->ws);
            if (dt->kind == SUBJECT_DIFF && dt->a_doc < t->ws.n_docs) {
                t->ws.cur_doc = dt->a_doc;
                t->ws.docs[dt->a_doc].cur = dt->a_tab;
                ws_tab(&t->ws);
            }
        }
        return RE_POP | RE_DRAW | RE_LAYOUT | RE_FULL;
    case KA_QUIT:
        return RE_QUIT;
    default:
        return RE_NONE;
    }
}

const struct view_ops view_diff = {
    .name = "diff",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_DIFF,
    .open = diff_open,
    .close = diff_close,
    .prepare = diff_prepare,
    .draw = diff_draw,
    .key = diff_key,
};
