/* layout.c: where the panes go (the tree, the details beside or below it, the header
 * and status lines) and the tree's row geometry that the layout and the row model share:
 * guide levels, a row's guides and its height when wrapping.  Reads the workspace and the
 * decorators; starts nothing (no analysis: that is jobs_ask's, from the loop). */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/opclass.h"
#include "sparkplan/tui.h"

/* The tree's share of the body (percent): the one chosen (+ - or the config file), else
 * one that follows the content: a formatted plan's tree lines are short and its details
 * long (so are explanations, i), a plan without details blocks the reverse. */
int tui_split(const struct tui *t, const struct tab *tab)
{
    if (t->split_pct)
        return t->split_pct;
    const struct plan_node *root = tab->section ? tab->section->first_root : NULL;
    /* A preview of a formatted plan has its nodes' ids but not yet their details, which
     * the whole document will have. */
    bool long_details =
        (root && (plan_node_details_text(root).len > 0 || (t->ws.loading && root->id >= 0))) ||
        t->explain;
    return long_details ? 60 : 66;
}

void tui_layout(struct tui *t)
{
    struct layout *L = &t->L;
    struct doc_view *dv = &t->ws.docs[t->ws.cur_doc];
    struct tab *tab = &dv->tabs[dv->cur]; /* ready: ws_tab */
    memset(L, 0, sizeof *L);
    L->too_small = COLS < 20 || LINES < 5;
    if (L->too_small)
        return;
    L->header_h = LINES >= 10 ? 2 : 1;
    L->status_y = LINES - 1;
    int body_y = L->header_h, body_h = LINES - L->header_h - 1;
    bool marks = decor_tab_has_marks(t, tab); /* also readies the decorators' tables */
    L->gutter_w = tab->has_stages ? 4 : marks ? 2 : 0;
    L->tree_y = body_y;
    L->tree_x = 0;
    int pct = tui_split(t, tab);
    if (t->zoom && t->focus == FOCUS_TREE) {
        L->tree_w = COLS;
        L->tree_h = body_h;
    } else if (t->zoom) {
        L->det_visible = true;
        L->det_h = body_h - 1;
        L->det_y = body_y + 1;
        L->det_w = COLS;
        L->tree_w = COLS;
        L->tree_h = 0;
    } else if (COLS >= 110) {
        L->det_visible = L->det_side = true;
        L->det_w = COLS * (100 - pct) / 100;
        if (!t->split_pct && L->det_w > 90) /* the automatic split gives text no more */
            L->det_w = 90;
        L->tree_w = COLS - L->det_w - 1;
        L->det_x = L->tree_w + 1;
        L->det_y = body_y;
        L->det_h = L->tree_h = body_h;
    } else if (body_h >= 12) {
        L->det_visible = true;
        L->det_h = body_h * (100 - pct) / 100;
        L->tree_h = body_h - L->det_h - 1;
        L->tree_w = L->det_w = COLS;
        L->det_x = 0;
        L->det_y = body_y + L->tree_h + 1;
    } else if (t->focus == FOCUS_DETAILS) {
        /* Too short to share: the details take the body while they have focus. */
        L->det_visible = true;
        L->det_h = body_h - 1;
        L->det_y = body_y + 1;
        L->det_w = COLS;
        L->tree_w = COLS;
        L->tree_h = 0;
    } else {
        L->tree_w = COLS;
        L->tree_h = body_h;
    }
    tui_fit_rows(t, tab);
}

void tui_fit_rows(struct tui *t, struct tab *tab)
{
    rows_set_height_fn(&tab->rows, t->wrap ? tree_row_height : NULL, t);
    rows_set_height(&tab->rows, t->L.tree_h > 0 ? (unsigned)t->L.tree_h : 1);
}


/* ---- the tree's row geometry ---------------------------------------------------------- */

/* Longest piece of a node's text that wrapping looks at: a 10 MB line wraps to the first
 * WRAP_MAX_BYTES and shows a cut marker, so a row never costs more than that. */
#define WRAP_MAX_BYTES (64 * 1024)
#define WRAP_MAX_LINES 200

/* A bare '*' (stage 0: Spark 2, or formatted "* " without a codegen id) belongs to the
 * run of '*' operators joined to it; the run's top names it.  Bounded walk up: a run is
 * a few operators (a 100,000-deep chain of '*' costs 4,096 steps at most). */
static const struct plan_node *star_run_top(const struct plan_node *n)
{
    const struct plan_node *top = n;
    for (unsigned i = 0; i < 4096 && plan_node_parent(top) && plan_node_parent(top)->stage == 0;
         i++)
        top = plan_node_parent(top);
    return top;
}

int64_t tree_stage_key(const struct plan_node *n)
{
    if (n->stage != 0)
        return n->stage;
    return -2 - (int64_t)plan_node_preorder(star_run_top(n));
}

enum role tree_stage_role(const struct plan_node *n)
{
    uint32_t k = n->stage != 0 ? (uint32_t)n->stage : plan_node_preorder(star_run_top(n));
    return (enum role)(ROLE_STAGE0 + k % THEME_STAGE_TINTS);
}

const char *tree_stage_label(const struct plan_node *n, char *buf, size_t cap)
{
    if (n->stage == 0)
        snprintf(buf, cap, "*");
    else
        snprintf(buf, cap, "*(%d)", n->stage);
    return buf;
}

enum role tree_node_role(const struct plan_node *n)
{
    switch (op_class_of(n)) {
    case OP_SHUFFLE:
        return ROLE_SHUFFLE;
    case OP_BROADCAST:
        return ROLE_BROADCAST;
    case OP_SHUFFLE_REUSED:
    case OP_SHUFFLE_STAGE:
        return ROLE_SHUFFLE_DIM;
    case OP_BROADCAST_REUSED:
    case OP_BROADCAST_STAGE:
        return ROLE_BROADCAST_DIM;
    case OP_JOIN:
        return ROLE_JOIN;
    case OP_SCAN:
        return ROLE_SCAN;
    case OP_LABEL:
        return ROLE_LABEL;
    case OP_OTHER:
        break;
    }
    return ROLE_NORMAL;
}

/* A row whose guides leave less than TREE_MIN_TEXT_COLS compresses on its own.  The hint
 * of a compressed screen ("…12 ") takes about 4 more columns. */
#define WINDOW_HINT_COLS 4

/* Levels of guides (2 columns each, the connector included, plus the 2 of the glyph)
 * that leave text_cols for the text, with the hint of a compressed screen when hinted. */
unsigned tree_guide_levels(const struct tui *t, int text_cols, bool hinted)
{
    int avail = t->L.tree_w - t->L.gutter_w;
    int per_level = ws_tab_c(&t->ws)->rows.narrow_guides ? 1 : 2;
    int levels = (avail - 2 - text_cols - (hinted ? WINDOW_HINT_COLS : 0)) / per_level;
    if (levels < 2)
        levels = 2;
    if (levels > 100)
        levels = 100;
    return (unsigned)levels;
}

/* A row's guides as the screen draws them: the tab's window of hidden levels, and past
 * what fits after it, the row's own compression. */
void tree_prefix(const struct tui *t, struct rows *r, const struct plan_node *n,
                 struct rows_prefix *pf)
{
    const struct tab *tab = &t->ws.docs[t->ws.cur_doc].tabs[t->ws.docs[t->ws.cur_doc].cur];
    rows_prefix(r, n, t->ascii, tab->skip,
                tree_guide_levels(t, TREE_MIN_TEXT_COLS, tab->skip > 0), pf);
}

int tree_prefix_cols(const struct rows_prefix *pf)
{
    return draw_width(slice_cstr(pf->hint), true) + (int)pf->guide_cols + 2 +
           (int)strlen(pf->marker);
}

/* The text a row shows: everything when wrapping (continuation lines included), capped. */
struct slice tree_row_text(const struct plan_node *n)
{
    struct slice s = plan_node_text(n).len ? plan_node_text(n) : plan_node_name(n);
    if (s.len > WRAP_MAX_BYTES)
        s.len = WRAP_MAX_BYTES;
    return s;
}

/* Screen lines text takes at width columns, splitting at newlines too. */
static unsigned wrapped_lines(struct slice s, int width)
{
    unsigned lines = 0;
    size_t i = 0;
    if (width < 1)
        width = 1;
    while (i < s.len && lines < WRAP_MAX_LINES) {
        const char *nl = memchr(s.ptr + i, '\n', s.len - i);
        size_t end = nl ? (size_t)(nl - s.ptr) : s.len;
        struct slice line = slice_make(s.ptr + i, end - i);
        do { /* bounded by WRAP_MAX_LINES */
            size_t n = draw_wrap(line, width, WRAP_CHARS);
            line.ptr += n;
            line.len -= n;
            lines++;
        } while (line.len > 0 && lines < WRAP_MAX_LINES);
        i = end + 1;
    }
    return lines ? lines : 1;
}

unsigned tree_row_height(const struct plan_node *n, void *ctx)
{
    struct tui *t = ctx;
    if (!t->wrap)
        return 1;
    struct tab *tab = &t->ws.docs[t->ws.cur_doc].tabs[t->ws.docs[t->ws.cur_doc].cur];
    struct rows_prefix pf;
    tree_prefix(t, &tab->rows, n, &pf);
    int avail = t->L.tree_w - t->L.gutter_w - tree_prefix_cols(&pf);
    if (avail < 8)
        avail = 8;
    return wrapped_lines(tree_row_text(n), avail);
}

