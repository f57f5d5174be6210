/* view_tree.c: the tree pane — stage gutter, guides, fold markers, coloured node text;
 * its keys and mouse clicks.  Draws only the rows on screen. */
#include <stdio.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/opclass.h"
#include "sparkplan/tui.h"

/* Longest piece of a node's text that wrapping looks at: a 10 MB line wraps to the first
 * WRAP_MAX_BYTES and shows a cut marker, so a row never costs more than that. */
#define WRAP_MAX_BYTES (64 * 1024)
#define WRAP_MAX_LINES 200

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

static const struct tab *cur_tab(const struct tui *t)
{
    const struct doc_view *dv = &t->docs[t->cur_doc];
    return &dv->tabs[dv->cur];
}

/* Columns the text of a row keeps before the screen's guides are compressed: a third of
 * the pane, at least 14; a row whose guides leave less than MIN_TEXT_COLS compresses on
 * its own.  The hint of a compressed screen ("…12 ") takes about 4 more. */
#define SOFT_TEXT_COLS 14
#define MIN_TEXT_COLS 6
#define WINDOW_HINT_COLS 4

/* Levels of guides (2 columns each, the connector included, plus the 2 of the glyph)
 * that leave text_cols for the text, with the hint of a compressed screen when hinted. */
static unsigned guide_levels(const struct tui *t, int text_cols, bool hinted)
{
    int avail = t->L.tree_w - t->L.gutter_w;
    int levels = (avail - 2 - text_cols - (hinted ? WINDOW_HINT_COLS : 0)) / 2;
    if (levels < 2)
        levels = 2;
    if (levels > 100)
        levels = 100;
    return (unsigned)levels;
}

static unsigned soft_levels(const struct tui *t, bool hinted)
{
    int third = (t->L.tree_w - t->L.gutter_w) / 3;
    return guide_levels(t, third > SOFT_TEXT_COLS ? third : SOFT_TEXT_COLS, hinted);
}

/* A row's guides as the screen draws them: the tab's window of hidden levels, and past
 * what fits after it, the row's own compression. */
static void tree_prefix(const struct tui *t, struct rows *r, const struct plan_node *n,
                        struct rows_prefix *pf)
{
    const struct tab *tab = &t->docs[t->cur_doc].tabs[t->docs[t->cur_doc].cur];
    rows_prefix(r, n, t->ascii, tab->skip, guide_levels(t, MIN_TEXT_COLS, tab->skip > 0), pf);
}

static int prefix_cols(const struct rows_prefix *pf)
{
    return draw_width(slice_cstr(pf->hint), true) + (int)pf->guide_cols + 2 +
           (int)strlen(pf->marker);
}

/* The text a row shows: everything when wrapping (continuation lines included), capped. */
static struct slice row_text(const struct plan_node *n)
{
    struct slice s = n->text.len ? n->text : n->name;
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
            size_t n = line.len ? draw_fit(line, width) : 0;
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
    struct tab *tab = &t->docs[t->cur_doc].tabs[t->docs[t->cur_doc].cur];
    struct rows_prefix pf;
    tree_prefix(t, &tab->rows, n, &pf);
    int avail = t->L.tree_w - t->L.gutter_w - prefix_cols(&pf);
    if (avail < 8)
        avail = 8;
    return wrapped_lines(row_text(n), avail);
}

/* Screen lines of a row: its text, and the "…" row of an elided node. */
static int row_lines(const struct tui *t, const struct rows *r, const struct plan_node *n)
{
    return (int)(t->wrap ? tree_row_height(n, (void *)t) : 1) + (int)rows_elision_lines(r, n);
}

/* Under an elided node: a dim "…" where the input left operators out, in the tree's
   guides. */
static void draw_elision(const struct tui *t, const struct rows_prefix *pf, int y, int x,
                         int w, enum variant v)
{
    struct draw_line dl;
    draw_line_start(&dl, y, x, w, t->wrap ? 0 : t->hscroll);
    for (const char *h = pf->hint; *h; h++) /* blank under the depth hint */
        if (((unsigned char)*h & 0xC0) != 0x80)
            draw_puts(&dl, " ", theme_attr(ROLE_NORMAL, v));
    draw_puts(&dl, pf->cont, theme_attr(ROLE_GUIDE, v));
    draw_puts(&dl, t->ascii ? "..." : "\xe2\x80\xa6", theme_attr(ROLE_HINT, v));
    draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
}

/* Draw s with the matches of the tab's search pattern highlighted.  Only the part that can
 * be on screen is searched (the bytes that fit in skip + width columns). */
static void put_highlighted(struct draw_line *dl, struct slice s, attr_t attr, attr_t hl,
                            const char *pat, bool one_line)
{
    size_t m = pat ? strlen(pat) : 0;
    if (m == 0) {
        draw_put(dl, s, attr, one_line);
        return;
    }
    bool fold = true;
    for (const char *p = pat; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            fold = false;
    size_t visible = draw_fit(s, dl->skip + (dl->limit - dl->x) + 1);
    if (one_line) {
        const char *nl = memchr(s.ptr, '\n', visible);
        if (nl)
            visible = (size_t)(nl - s.ptr);
    }
    size_t from = 0;
    for (size_t i = 0; i + m <= visible && dl->x < dl->limit;) { /* bounded by the screen */
        size_t k = 0;
        while (k < m) {
            unsigned char c = (unsigned char)s.ptr[i + k];
            if (fold && c >= 'A' && c <= 'Z')
                c = (unsigned char)(c + 32);
            if (c != (unsigned char)pat[k])
                break;
            k++;
        }
        if (k == m) {
            draw_put(dl, slice_make(s.ptr + from, i - from), attr, one_line);
            draw_put(dl, slice_make(s.ptr + i, m), hl, one_line);
            i += m;
            from = i;
        } else {
            i++;
        }
    }
    draw_put(dl, slice_make(s.ptr + from, s.len - from), attr, one_line);
}

static void draw_gutter(const struct tui *t, int y, const struct plan_node *n, bool band,
                        bool first_line)
{
    if (t->L.gutter_w <= 0)
        return;
    struct draw_line dl;
    draw_line_start(&dl, y, t->L.tree_x, t->L.gutter_w, 0);
    enum variant v = band ? VAR_BAND : VAR_PLAIN;
    /* Findings and the traced id's producer are marked in the gutter's last column. */
    enum role mark_role = ROLE_GUTTER;
    const char *mark = n && first_line ? insight_mark(t, n, &mark_role) : NULL;
    if (mark) {
        draw_line_start(&dl, y, t->L.tree_x + t->L.gutter_w - 1, 1, 0);
        draw_puts(&dl, mark, theme_attr(mark_role, VAR_PLAIN) | A_BOLD);
        draw_line_start(&dl, y, t->L.tree_x, t->L.gutter_w - 1, 0);
    }
    if (n && n->stage >= 0 && t->L.gutter_w >= 4) {
        char num[16];
        snprintf(num, sizeof num, "%3d", n->stage);
        enum role r = (enum role)(ROLE_STAGE0 + n->stage % THEME_STAGE_TINTS);
        draw_puts(&dl, num, theme_attr(r, v));
        draw_fill(&dl, theme_attr(ROLE_GUTTER, VAR_PLAIN));
    } else {
        draw_fill(&dl, theme_attr(ROLE_GUTTER, VAR_PLAIN));
    }
}

static void draw_row(const struct tui *t, struct rows *r, struct plan_node *n, int y, int h,
                     int32_t band_stage)
{
    bool selected = n == r->sel;
    bool band = band_stage >= 0 && n->stage == band_stage;
    enum variant v = selected ? VAR_SELECTED : band ? VAR_BAND : VAR_PLAIN;
    int x = t->L.tree_x + t->L.gutter_w;
    int w = t->L.tree_w - t->L.gutter_w;
    struct rows_prefix pf;
    tree_prefix(t, r, n, &pf);
    if (t->flipped)
        insight_flip_prefix(&pf, t->ascii);

    for (int i = 0; i < h; i++)
        draw_gutter(t, y + i, n, band || (selected && n->stage >= 0 && t->stage_hl), i == 0);
    if (rows_elision_lines(r, n) && h > 1) {
        h--;
        draw_elision(t, &pf, y + h, x, w, VAR_PLAIN);
    }

    struct draw_line dl;
    draw_line_start(&dl, y, x, w, t->wrap ? 0 : t->hscroll);
    draw_puts(&dl, pf.hint, theme_attr(ROLE_HINT, v));
    draw_puts(&dl, pf.guides, theme_attr(ROLE_GUIDE, v));
    draw_puts(&dl, pf.glyph, theme_attr(ROLE_GLYPH, v));
    draw_puts(&dl, pf.marker, theme_attr(ROLE_MARKER, v));
    attr_t attr = theme_attr(tree_node_role(n), v);
    attr_t hl = theme_attr(ROLE_MATCH, v);
    struct slice text = row_text(n);
    if (!t->wrap || h <= 1) {
        put_highlighted(&dl, text, attr, hl, r->pattern, true);
        /* Continuation lines (or a text cut at WRAP_MAX_BYTES) are not shown: say so. */
        if (memchr(text.ptr, '\n', text.len) != NULL || text.len < n->text.len)
            dl.cut = true;
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
        return;
    }
    /* Wrapped: continuation lines start under the text (the same widths as
     * tree_row_height uses, so the row takes exactly h lines). */
    int avail = x + w - dl.x;
    if (avail < 8)
        avail = 8;
    int cont_x = x + w - avail;
    int line = 0;
    size_t i = 0;
    while (i < text.len && line < h) {
        const char *nl = memchr(text.ptr + i, '\n', text.len - i);
        size_t end = nl ? (size_t)(nl - text.ptr) : text.len;
        struct slice rest = slice_make(text.ptr + i, end - i);
        do { /* bounded by h */
            size_t take = rest.len ? draw_fit(rest, avail) : 0;
            if (line > 0) {
                draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
                /* The tree's lines go on beside a wrapped row. */
                struct draw_line pad;
                draw_line_start(&pad, y + line, x, cont_x - x, 0);
                for (const char *h = pf.hint; *h; h++) /* blank under the depth hint */
                    if (((unsigned char)*h & 0xC0) != 0x80)
                        draw_puts(&pad, " ", theme_attr(ROLE_NORMAL, v));
                draw_puts(&pad, pf.cont, theme_attr(ROLE_GUIDE, v));
                draw_fill(&pad, theme_attr(ROLE_NORMAL, v));
                draw_line_start(&dl, y + line, cont_x, avail, 0);
            }
            put_highlighted(&dl, slice_make(rest.ptr, take), attr, hl, r->pattern, true);
            rest.ptr += take;
            rest.len -= take;
            line++;
        } while (rest.len > 0 && line < h);
        i = end + 1;
    }
    draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
    if (text.len < n->text.len || i < text.len) {
        dl.cut = true;
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
}

/* The rows on screen, from the top row down: at most FLIP_MAX of them, with their heights. */
#define FLIP_MAX 1024
static size_t screen_rows(const struct tui *t, struct rows *r, struct plan_node **v, int *hv)
{
    size_t k = 0;
    int used = 0;
    for (struct plan_node *n = r->top; n && used < t->L.tree_h && k < FLIP_MAX; n = rows_next(r, n)) {
        int h = row_lines(t, r, n);
        if (used + h > t->L.tree_h)
            h = t->L.tree_h - used;
        v[k] = n;
        hv[k++] = h;
        used += h;
    }
    return k;
}

/* Chooses the screen's window of hidden levels from the depths of the rows on it (QA #5:
 * one window for all of them keeps the guides of consecutive rows in line).  Wrapped rows
 * change height with the window, and the rows on screen with their heights: a few rounds
 * settle it. */
void tree_prepare(struct tui *t)
{
    struct tab *tab = tui_tab(t);
    struct rows *r = &tab->rows;
    for (int round = 0; round < 3; round++) { /* bounded: usually one */
        uint32_t dmin = UINT32_MAX, dmax = 0;
        int used = 0;
        for (struct plan_node *n = r->top; n && used < t->L.tree_h; n = rows_next(r, n)) {
            uint32_t d = rows_rel_depth(r, n); /* bounded by the screen's lines */
            dmin = d < dmin ? d : dmin;
            dmax = d > dmax ? d : dmax;
            used += row_lines(t, r, n);
        }
        if (dmin == UINT32_MAX)
            dmin = 0;
        /* The window's own hint costs room: fit with it once one is needed. */
        struct rows_fit fit = {soft_levels(t, false), soft_levels(t, true),
                               guide_levels(t, MIN_TEXT_COLS, true)};
        unsigned skip = rows_window_skip(dmin, dmax, fit, tab->skip);
        if (skip == tab->skip)
            break;
        tab->skip = skip;
        if (t->wrap)
            rows_fix_scroll(r);
    }
}

void tree_draw(const struct tui *t)
{
    const struct tab *tab = cur_tab(t);
    struct rows *r = (struct rows *)&tab->rows; /* walking counts steps; nothing else changes */
    int y = t->L.tree_y, bottom = t->L.tree_y + t->L.tree_h;
    int32_t band = t->stage_hl && r->sel && r->sel->stage >= 0 ? r->sel->stage : -1;
    if (t->flipped) {
        /* Upside down: the same rows, the last one first, so children sit above parents. */
        static struct plan_node *v[FLIP_MAX];
        static int hv[FLIP_MAX];
        size_t k = screen_rows(t, r, v, hv);
        for (size_t i = k; i-- > 0;) {
            draw_row(t, r, v[i], y, hv[i], band);
            y += hv[i];
        }
    }
    for (struct plan_node *n = t->flipped ? NULL : r->top; n && y < bottom; n = rows_next(r, n)) {
        int h = row_lines(t, r, n);
        if (y + h > bottom)
            h = bottom - y;
        draw_row(t, r, n, y, h, band);
        y += h;
    }
    if (y < bottom) {
        draw_clear(y, t->L.tree_x, bottom - y, t->L.tree_w, theme_attr(ROLE_NORMAL, VAR_PLAIN));
        if (!r->top) {
            struct draw_line dl;
            draw_line_start(&dl, t->L.tree_y, t->L.tree_x + 1, t->L.tree_w - 1, 0);
            draw_puts(&dl, "(this section is empty)", theme_attr(ROLE_HINT, VAR_PLAIN));
        }
    }
}

/* Which row is at screen line y, and does x hit its fold glyph or marker? */
static struct plan_node *row_at(struct tui *t, int y, int x, bool *on_marker)
{
    struct tab *tab = tui_tab(t);
    struct rows *r = &tab->rows;
    int line = t->L.tree_y;
    *on_marker = false;
    static struct plan_node *v[FLIP_MAX];
    static int hv[FLIP_MAX];
    size_t k = screen_rows(t, r, v, hv), next = 0;
    /* Screen order: the window's rows, reversed when the tree is flipped. */
    for (; next < k && line < t->L.tree_y + t->L.tree_h; next++) {
        size_t at = t->flipped ? k - 1 - next : next;
        struct plan_node *n = v[at];
        int h = hv[at];
        if (y >= line && y < line + h) {
            struct rows_prefix pf;
            tree_prefix(t, r, n, &pf);
            int start = t->L.tree_x + t->L.gutter_w + draw_width(slice_cstr(pf.hint), true) +
                        (int)pf.guide_cols - (t->wrap ? 0 : t->hscroll);
            int end = start + 2 + (int)strlen(pf.marker);
            *on_marker = n->first_child && y == line && x >= start - 1 && x < end;
            return n;
        }
        line += h;
    }
    return NULL;
}

static int jump_message(struct tui *t, bool found, bool wrapped, const char *what)
{
    if (!found)
        tui_message(t, true, "no %s in this section", what);
    else if (wrapped)
        tui_message(t, false, "search wrapped around");
    return RE_DRAW;
}

int tree_key(struct tui *t, enum key_action a, const struct input_event *ev)
{
    a = insight_flip_action(t, a); /* flipped: down on screen is up in the plan */
    struct tab *tab = tui_tab(t);
    struct rows *r = &tab->rows;
    bool wrapped = false;
    switch (a) {
    case KA_DOWN:
        rows_move(r, 1);
        break;
    case KA_UP:
        rows_move(r, -1);
        break;
    case KA_PAGE_DOWN:
        rows_page(r, 2);
        break;
    case KA_PAGE_UP:
        rows_page(r, -2);
        break;
    case KA_HALF_DOWN:
        rows_page(r, 1);
        break;
    case KA_HALF_UP:
        rows_page(r, -1);
        break;
    case KA_FIRST:
        rows_go_first(r);
        break;
    case KA_LAST:
        rows_go_last(r);
        break;
    case KA_TOGGLE:
        rows_toggle(r);
        break;
    case KA_LEFT:
        rows_left(r);
        break;
    case KA_RIGHT:
        rows_right(r);
        break;
    case KA_FOLD_ALL:
        rows_fold_all(r);
        break;
    case KA_UNFOLD_ALL:
        rows_unfold_all(r);
        break;
    case KA_LEVELS:
        rows_show_levels(r, (unsigned)(ev->name[0] - '0'));
        tui_message(t, false, "showing %c level%s", ev->name[0], ev->name[0] == '1' ? "" : "s");
        break;
    case KA_NEXT_EXCHANGE:
    case KA_PREV_EXCHANGE: {
        /* Jump first: the order in which arguments are evaluated is unspecified. */
        bool found = rows_next_exchange(r, a == KA_NEXT_EXCHANGE ? 1 : -1, &wrapped);
        return jump_message(t, found, wrapped, "Exchange");
    }
    case KA_NEXT_STAGE:
    case KA_PREV_STAGE: {
        bool found = rows_next_stage(r, a == KA_NEXT_STAGE ? 1 : -1, &wrapped);
        return jump_message(t, found, wrapped, "codegen stage");
    }
    case KA_SEARCH_NEXT:
    case KA_SEARCH_PREV:
        if (!r->pattern) {
            tui_message(t, true, "no search yet: press / first");
            break;
        }
        if (!rows_search_step(r, a == KA_SEARCH_NEXT ? 1 : -1, &wrapped))
            tui_message(t, true, "pattern not found in this section");
        else if (wrapped)
            tui_message(t, false, "search wrapped around");
        break;
    case KA_SCROLL_RIGHT:
        if (!t->wrap)
            t->hscroll += 8;
        break;
    case KA_SCROLL_LEFT:
        t->hscroll = t->hscroll > 8 ? t->hscroll - 8 : 0;
        break;
    case KA_SCROLL_HOME:
        t->hscroll = 0;
        break;
    case KA_WRAP:
        t->wrap = !t->wrap;
        t->hscroll = 0;
        tui_message(t, false, "wrap %s", t->wrap ? "on" : "off");
        return RE_DRAW | RE_LAYOUT;
    case KA_STAGES:
        t->stage_hl = !t->stage_hl;
        tui_message(t, false, "codegen stage highlight %s", t->stage_hl ? "on" : "off");
        break;
    case KA_WHEEL_DOWN:
        rows_scroll(r, 3);
        break;
    case KA_WHEEL_UP:
        rows_scroll(r, -3);
        break;
    case KA_CLICK: {
        bool on_marker;
        struct plan_node *n = row_at(t, ev->line, ev->col, &on_marker);
        if (!n)
            break;
        rows_select(r, n);
        if (on_marker)
            rows_toggle(r);
        t->focus = FOCUS_TREE;
        break;
    }
    default:
        return RE_NONE;
    }
    return RE_DRAW;
}
