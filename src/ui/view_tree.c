/* view_tree.c: the tree view (the base of the stack, see view.h) — stage gutter, row
 * decorations (decor.h), guides, fold markers, coloured node text; its keys and mouse
 * clicks, and the flipped tree (r).  prepare settles the screen's window of hidden levels
 * and the rows on screen with their guides and decorations; draw draws that list and
 * nothing else.  Its state: the list, the horizontal scroll, the flip. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/opclass.h"
#include "sparkplan/tui.h"

/* One row on screen, as prepare found it. */
struct screen_row {
    struct plan_node *node;
    int h;                        /* screen lines (wrapped rows take several) */
    bool elided;                  /* its last line is a dim "…" where the input left
                                     operators out (rows_elision_lines) */
    struct rows_prefix pf;
    struct row_decor dec;
};

struct tree_state {
    struct screen_row *rows;      /* in screen order (reversed when flipped) */
    size_t n, cap;
    bool band_on;                 /* a codegen stage is highlighted: */
    int64_t band;                 /* its tree_stage_key */
    int hscroll;
    bool flipped;                 /* r: bottom-up, scans on top */
};

/* Columns the text of a row keeps before the screen's guides are compressed: a third of
 * the pane, at least 14. */
#define SOFT_TEXT_COLS 14

/* Text columns every row on screen keeps for its operator's name and first argument:
 * when the levels on screen cannot all have two-column guides beside that much text
 * ("BroadcastHashJoin Inner"), the guides narrow to one column a level. */
#define NAME_TEXT_COLS 26

static unsigned soft_levels(const struct tui *t, bool hinted)
{
    int third = (t->L.tree_w - t->L.gutter_w) / 3;
    int text = third > SOFT_TEXT_COLS ? third : SOFT_TEXT_COLS;
    if (t->ws.docs[t->ws.cur_doc].tabs[t->ws.docs[t->ws.cur_doc].cur].rows.narrow_guides)
        text = text > NAME_TEXT_COLS ? text : NAME_TEXT_COLS; /* a name and its argument */
    return tree_guide_levels(t, text, hinted);
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

/* The first match of pat in the first line of s: its byte offset, or -1 (the same case
 * rule as the search: ignore case unless pat has a capital). */
static long first_match(struct slice s, const char *pat)
{
    size_t m = pat ? strlen(pat) : 0;
    if (m == 0)
        return -1;
    bool fold = true;
    for (const char *p = pat; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            fold = false;
    const char *nl = memchr(s.ptr, '\n', s.len);
    size_t len = nl ? (size_t)(nl - s.ptr) : s.len;
    for (size_t i = 0; i + m <= len; i++) { /* one line, capped by tree_row_text */
        size_t k = 0;
        while (k < m) {
            unsigned char c = (unsigned char)s.ptr[i + k];
            if (fold && c >= 'A' && c <= 'Z')
                c = (unsigned char)(c + 32);
            if (c != (unsigned char)pat[k])
                break;
            k++;
        }
        if (k == m)
            return (long)i;
    }
    return -1;
}

/* The selected row scrolls sideways on its own when its match would be past the pane's
 * right edge, so the match shows. */
static int row_skip(const struct tui *t, const struct tree_state *st,
                    const struct screen_row *sr, struct slice text, int w)
{
    int skip = st->hscroll;
    const char *pat = ws_tab_c(&t->ws)->rows.pattern;
    long at = first_match(text, pat);
    if (at < 0)
        return skip;
    int before = draw_width(slice_cstr(sr->pf.hint), true) + (int)sr->pf.guide_cols + 2 +
                 draw_width(slice_cstr(sr->pf.marker), true);
    int end = before + draw_width(slice_make(text.ptr, (size_t)at), true) +
              draw_width(slice_make(text.ptr + at, strlen(pat)), true);
    if (end - skip > w - 2) /* the match's end, and the cut marker's column */
        skip = end - w + 2 + w / 4;
    if (end - skip - (int)strlen(pat) < 0)
        skip = end - (int)strlen(pat) > 0 ? end - (int)strlen(pat) : 0;
    return skip;
}

static void draw_gutter(const struct tui *t, int y, const struct screen_row *sr, bool band,
                        bool first_line)
{
    if (t->L.gutter_w <= 0)
        return;
    const struct plan_node *n = sr->node;
    struct draw_line dl;
    draw_line_start(&dl, y, t->L.tree_x, t->L.gutter_w, 0);
    enum variant v = band ? VAR_BAND : VAR_PLAIN;
    if (!tui_stage_known(t, n)) {
        draw_fill(&dl, theme_attr(ROLE_GUTTER, VAR_PLAIN));
        return;
    }
    /* A decoration's mark goes in the gutter's last column. */
    if (first_line && sr->dec.mark) {
        draw_line_start(&dl, y, t->L.tree_x + t->L.gutter_w - 1, 1, 0);
        draw_puts(&dl, sr->dec.mark, theme_attr(sr->dec.mark_role, VAR_PLAIN) | A_BOLD);
        draw_line_start(&dl, y, t->L.tree_x, t->L.gutter_w - 1, 0);
    }
    if (n->stage >= 0 && t->L.gutter_w >= 4) {
        char num[16];
        if (n->stage == 0)
            snprintf(num, sizeof num, "  *");
        else if (n->stage > 999) /* the last digits, marked as cut: the status line has it all */
            snprintf(num, sizeof num, "%s%02d", t->ws.utf8 && !t->ascii ? "\xE2\x80\xA6" : "~",
                     n->stage % 100);
        else
            snprintf(num, sizeof num, "%3d", n->stage);
        enum role r = tree_stage_role(n);
        draw_puts(&dl, num, theme_attr(r, v));
    }
    draw_fill(&dl, theme_attr(ROLE_GUTTER, VAR_PLAIN));
}

/* The further lines of a wrapped row: continuation lines start under the text (the same
 * widths as tree_row_height uses, so the row takes exactly h lines). */
static void draw_wrapped(const struct tui *t, const struct screen_row *sr, int y,
                         struct draw_line *dl, enum variant v, attr_t attr, attr_t hl,
                         const char *pat)
{
    const struct plan_node *n = sr->node;
    int x = t->L.tree_x + t->L.gutter_w, w = t->L.tree_w - t->L.gutter_w;
    struct slice text = tree_row_text(n);
    int avail = x + w - dl->x;
    if (avail < 8)
        avail = 8;
    int cont_x = x + w - avail;
    int line = 0;
    size_t i = 0;
    while (i < text.len && line < sr->h) {
        const char *nl = memchr(text.ptr + i, '\n', text.len - i);
        size_t end = nl ? (size_t)(nl - text.ptr) : text.len;
        struct slice rest = slice_make(text.ptr + i, end - i);
        do { /* bounded by h */
            size_t take = draw_wrap(rest, avail, WRAP_CHARS);
            if (line > 0) {
                draw_fill(dl, theme_attr(ROLE_NORMAL, v));
                /* The tree's lines go on beside a wrapped row. */
                struct draw_line pad;
                draw_line_start(&pad, y + line, x, cont_x - x, 0);
                for (const char *h = sr->pf.hint; *h; h++) /* blank under the depth hint */
                    if (((unsigned char)*h & 0xC0) != 0x80)
                        draw_puts(&pad, " ", theme_attr(ROLE_NORMAL, v));
                draw_puts(&pad, sr->pf.cont, theme_attr(ROLE_GUIDE, v));
                draw_fill(&pad, theme_attr(ROLE_NORMAL, v));
                draw_line_start(dl, y + line, cont_x, avail, 0);
            }
            put_highlighted(dl, slice_make(rest.ptr, take), attr, hl, pat, true);
            rest.ptr += take;
            rest.len -= take;
            line++;
        } while (rest.len > 0 && line < sr->h);
        i = end + 1;
    }
    draw_fill(dl, theme_attr(ROLE_NORMAL, v));
    if (text.len < plan_node_text(n).len || i < text.len) {
        dl->cut = true;
        draw_cut_marker(dl, theme_attr(ROLE_CUT, v));
    }
}

/* Under an elided node: a dim "…" in the tree's guides, where the input left operators
   out. */
static void draw_elision(const struct tui *t, const struct screen_row *sr, int y)
{
    int x = t->L.tree_x + t->L.gutter_w, w = t->L.tree_w - t->L.gutter_w;
    struct draw_line dl;
    draw_line_start(&dl, y, x, w, 0);
    for (const char *h = sr->pf.hint; *h; h++) /* blank under the depth hint */
        if (((unsigned char)*h & 0xC0) != 0x80)
            draw_puts(&dl, " ", theme_attr(ROLE_NORMAL, VAR_PLAIN));
    draw_puts(&dl, sr->pf.cont, theme_attr(ROLE_GUIDE, VAR_PLAIN));
    draw_puts(&dl, t->ascii ? "..." : "\xE2\x80\xA6", theme_attr(ROLE_HINT, VAR_PLAIN));
    draw_fill(&dl, theme_attr(ROLE_NORMAL, VAR_PLAIN));
}

static void draw_row(const struct tui *t, const struct tree_state *st,
                     const struct screen_row *row, int y)
{
    const struct tab *tab = ws_tab_c(&t->ws);
    const struct plan_node *n = row->node;
    /* The text takes the row's lines but the elision's. */
    struct screen_row text_row = *row;
    const struct screen_row *sr = &text_row;
    if (row->elided && row->h > 1) {
        text_row.h--;
        draw_elision(t, row, y + text_row.h);
    }
    bool selected = n == tab->rows.sel;
    bool band = st->band_on && n->stage >= 0 && tree_stage_key(n) == st->band;
    enum variant v = selected ? VAR_SELECTED : band ? VAR_BAND : VAR_PLAIN;
    int x = t->L.tree_x + t->L.gutter_w;
    int w = t->L.tree_w - t->L.gutter_w;

    for (int i = 0; i < row->h; i++)
        draw_gutter(t, y + i, sr,
                    band || (selected && n->stage >= 0 && t->stage_hl && tui_stage_known(t, n)),
                    i == 0);

    struct slice text = tree_row_text(n);
    struct draw_line dl;
    draw_line_start(&dl, y, x, w,
                    t->wrap ? 0 : selected ? row_skip(t, st, sr, text, w) : st->hscroll);
    draw_puts(&dl, sr->pf.hint, theme_attr(ROLE_HINT, v));
    draw_puts(&dl, sr->pf.guides, theme_attr(ROLE_GUIDE, v));
    draw_puts(&dl, sr->pf.glyph, theme_attr(ROLE_GLYPH, v));
    draw_puts(&dl, sr->pf.marker, theme_attr(ROLE_MARKER, v));
    attr_t attr = theme_attr(sr->dec.tinted ? sr->dec.tint : tree_node_role(n), v);
    attr_t hl = theme_attr(ROLE_MATCH, v);
    if (t->wrap && sr->h > 1) {
        draw_wrapped(t, sr, y, &dl, v, attr, hl, tab->rows.pattern);
    } else {
        put_highlighted(&dl, text, attr, hl, tab->rows.pattern, true);
        /* Continuation lines (or a text cut at the cap) are not shown: say so. */
        if (memchr(text.ptr, '\n', text.len) != NULL || text.len < plan_node_text(n).len)
            dl.cut = true;
        draw_fill(&dl, theme_attr(ROLE_NORMAL, v));
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, v));
    }
    if (sr->dec.right[0]) { /* over the row's last columns */
        int rw = draw_width(slice_cstr(sr->dec.right), true);
        draw_line_start(&dl, y, x + w - rw > x ? x + w - rw : x, rw < w ? rw : w, 0);
        draw_puts(&dl, sr->dec.right, theme_attr(sr->dec.right_role, v));
    }
}

/* ---- prepare: the rows on screen --------------------------------------------------------- */

/* Chooses the screen's window of hidden levels from the depths of the rows on it (one
 * window for all of them keeps the guides of consecutive rows in line).  Wrapped rows
 * change height with the window, and the rows on screen with their heights: a few rounds
 * settle it. */
/* The depths of the rows on screen, relative to the tab. */
static void screen_depths(struct tui *t, struct rows *r, uint32_t *dmin, uint32_t *dmax)
{
    *dmin = UINT32_MAX, *dmax = 0;
    int used = 0;
    for (struct plan_node *n = r->top; n && used < t->L.tree_h; n = rows_next(r, n)) {
        uint32_t d = rows_rel_depth(r, n); /* bounded by the screen's lines */
        *dmin = d < *dmin ? d : *dmin;
        *dmax = d > *dmax ? d : *dmax;
        used += t->wrap ? (int)tree_row_height(n, t) : 1;
    }
    if (*dmin == UINT32_MAX)
        *dmin = 0;
}

static void choose_guides(struct tui *t, struct rows *r)
{
    uint32_t dmin, dmax;
    r->narrow_guides = false;
    screen_depths(t, r, &dmin, &dmax);
    uint32_t span = dmax - (dmin > 0 ? dmin - 1 : 0);
    if (dmax > tree_guide_levels(t, NAME_TEXT_COLS, false) &&
        span > tree_guide_levels(t, NAME_TEXT_COLS, true))
        r->narrow_guides = true;
}

static void choose_window(struct tui *t, struct tab *tab)
{
    struct rows *r = &tab->rows;
    choose_guides(t, r);
    for (int round = 0; round < 3; round++) { /* bounded: usually one */
        uint32_t dmin = UINT32_MAX, dmax = 0;
        int used = 0;
        for (struct plan_node *n = r->top; n && used < t->L.tree_h; n = rows_next(r, n)) {
            uint32_t d = rows_rel_depth(r, n); /* bounded by the screen's lines */
            dmin = d < dmin ? d : dmin;
            dmax = d > dmax ? d : dmax;
            used += (t->wrap ? (int)tree_row_height(n, t) : 1) + (int)rows_elision_lines(r, n);
        }
        if (dmin == UINT32_MAX)
            dmin = 0;
        /* The window's own hint costs room: fit with it once one is needed. */
        struct rows_fit fit = {soft_levels(t, false), soft_levels(t, true),
                               tree_guide_levels(t, TREE_MIN_TEXT_COLS, true)};
        unsigned skip = rows_window_skip(dmin, dmax, fit, tab->skip);
        if (skip == tab->skip)
            break;
        tab->skip = skip;
        if (t->wrap)
            rows_fix_scroll(r);
    }
}

static void replace_all(char *buf, size_t cap, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to);
    char *p = buf;
    while ((p = strstr(p, from)) != NULL) {  /* bounded by the prefix buffer */
        size_t rest = strlen(p + fl);
        if ((size_t)(p - buf) + tl + rest + 1 > cap)
            return;
        memmove(p + tl, p + fl, rest + 1);
        memcpy(p, to, tl);
        p += tl;
    }
}

/* Flipped guides: the last child's corner turned upside down, the open glyph too. */
static void flip_prefix(struct rows_prefix *pf, bool ascii)
{
    if (ascii) {
        replace_all(pf->guides, sizeof pf->guides, "\\-", "/-");
        return;
    }
    replace_all(pf->guides, sizeof pf->guides, "\xE2\x94\x94", "\xE2\x94\x8C");  /* └ -> ┌ */
    replace_all(pf->glyph, sizeof pf->glyph, "\xE2\x96\xBE", "\xE2\x96\xB4");    /* ▾ -> ▴ */
}

static bool grow(struct tree_state *st)
{
    if (st->n < st->cap)
        return true;
    size_t cap = st->cap ? st->cap * 2 : 64;
    struct screen_row *nr = realloc(st->rows, cap * sizeof *nr);
    if (!nr)
        return false;
    st->rows = nr;
    st->cap = cap;
    return true;
}

/* The rows on screen from the top row down, with their heights, guides and decorations;
 * upside down when flipped, so children sit above parents. */
static void tree_prepare(struct tui *t, void *state)
{
    struct tree_state *st = state;
    struct tab *tab = ws_tab(&t->ws);
    struct rows *r = &tab->rows;
    st->n = 0;
    if (t->L.tree_h <= 0)
        return;
    choose_window(t, tab);
    st->band_on = t->stage_hl && r->sel && r->sel->stage >= 0 && tui_stage_known(t, r->sel);
    st->band = st->band_on ? tree_stage_key(r->sel) : 0;
    int used = 0;
    for (struct plan_node *n = r->top; n && used < t->L.tree_h && grow(st); n = rows_next(r, n)) {
        struct screen_row *sr = &st->rows[st->n++]; /* bounded by the screen's lines */
        sr->node = n;
        sr->elided = rows_elision_lines(r, n) > 0;
        sr->h = (t->wrap ? (int)tree_row_height(n, t) : 1) + (sr->elided ? 1 : 0);
        if (used + sr->h > t->L.tree_h)
            sr->h = t->L.tree_h - used;
        used += sr->h;
        tree_prefix(t, r, n, &sr->pf);
        if (st->flipped)
            flip_prefix(&sr->pf, t->ascii);
        decor_row(t, tab, plan_node_preorder(n), &sr->dec);
    }
    for (size_t i = 0; st->flipped && i < st->n / 2; i++) {
        struct screen_row tmp = st->rows[i];
        st->rows[i] = st->rows[st->n - 1 - i];
        st->rows[st->n - 1 - i] = tmp;
    }
}

static void tree_draw(const struct tui *t, const void *state)
{
    const struct tree_state *st = state;
    if (t->L.tree_h <= 0)
        return;
    int y = t->L.tree_y, bottom = t->L.tree_y + t->L.tree_h;
    for (size_t i = 0; i < st->n && y < bottom; i++) {
        draw_row(t, st, &st->rows[i], y);
        y += st->rows[i].h;
    }
    if (y < bottom) {
        draw_clear(y, t->L.tree_x, bottom - y, t->L.tree_w, theme_attr(ROLE_NORMAL, VAR_PLAIN));
        if (st->n == 0) {
            struct draw_line dl;
            draw_line_start(&dl, t->L.tree_y, t->L.tree_x + 1, t->L.tree_w - 1, 0);
            draw_puts(&dl, "(this section is empty)", theme_attr(ROLE_HINT, VAR_PLAIN));
        }
    }
}

/* ---- keys ------------------------------------------------------------------------------ */

/* Which row is at screen line y (as last drawn), and does x hit its fold glyph or marker? */
static struct plan_node *row_at(const struct tui *t, const struct tree_state *st, int y, int x,
                                bool *on_marker)
{
    int line = t->L.tree_y;
    *on_marker = false;
    for (size_t i = 0; i < st->n && line < t->L.tree_y + t->L.tree_h; i++) {
        const struct screen_row *sr = &st->rows[i];
        if (y >= line && y < line + sr->h) {
            int start = t->L.tree_x + t->L.gutter_w + draw_width(slice_cstr(sr->pf.hint), true) +
                        (int)sr->pf.guide_cols - (t->wrap ? 0 : st->hscroll);
            int end = start + 2 + (int)strlen(sr->pf.marker);
            *on_marker = plan_node_first_child(sr->node) && y == line && x >= start - 1 && x < end;
            return sr->node;
        }
        line += sr->h;
    }
    return NULL;
}

/* Movement keys swap direction while the tree is flipped: down on screen is up in the
 * plan. */
static enum key_action flip_action(const struct tree_state *st, enum key_action a)
{
    if (!st->flipped)
        return a;
    switch (a) {
    case KA_DOWN: return KA_UP;
    case KA_UP: return KA_DOWN;
    case KA_PAGE_DOWN: return KA_PAGE_UP;
    case KA_PAGE_UP: return KA_PAGE_DOWN;
    case KA_HALF_DOWN: return KA_HALF_UP;
    case KA_HALF_UP: return KA_HALF_DOWN;
    case KA_FIRST: return KA_LAST;
    case KA_LAST: return KA_FIRST;
    case KA_WHEEL_DOWN: return KA_WHEEL_UP;
    case KA_WHEEL_UP: return KA_WHEEL_DOWN;
    default: return a;
    }
}

/* Moving and folding: true when a was one of them. */
static bool move_key(struct rows *r, enum key_action a)
{
    switch (a) {
    case KA_DOWN: rows_move(r, 1); break;
    case KA_UP: rows_move(r, -1); break;
    case KA_PAGE_DOWN: rows_page(r, 2); break;
    case KA_PAGE_UP: rows_page(r, -2); break;
    case KA_HALF_DOWN: rows_page(r, 1); break;
    case KA_HALF_UP: rows_page(r, -1); break;
    case KA_FIRST: rows_go_first(r); break;
    case KA_LAST: rows_go_last(r); break;
    case KA_TOGGLE: rows_toggle(r); break;
    case KA_LEFT: rows_left(r); break;
    case KA_RIGHT: rows_right(r); break;
    case KA_FOLD_ALL: rows_fold_all(r); break;
    case KA_UNFOLD_ALL: rows_unfold_all(r); break;
    case KA_WHEEL_DOWN: rows_scroll(r, 3); break;
    case KA_WHEEL_UP: rows_scroll(r, -3); break;
    default: return false;
    }
    return true;
}

static int jump_message(struct tui *t, bool found, bool wrapped, const char *what)
{
    if (!found)
        ws_message(&t->ws, true, "no %s in this section", what);
    else if (wrapped)
        ws_message(&t->ws, false, "search wrapped around");
    return RE_DRAW;
}

/* x X ] [ n N: jumps to the next thing of a kind. */
static int jump_key(struct tui *t, struct rows *r, enum key_action a)
{
    bool wrapped = false, found;
    switch (a) {
    case KA_NEXT_EXCHANGE:
    case KA_PREV_EXCHANGE:
        /* Jump first: the order in which arguments are evaluated is unspecified. */
        found = rows_next_exchange(r, a == KA_NEXT_EXCHANGE ? 1 : -1, &wrapped);
        return jump_message(t, found, wrapped, "Exchange");
    case KA_NEXT_STAGE:
    case KA_PREV_STAGE:
        found = rows_next_stage(r, a == KA_NEXT_STAGE ? 1 : -1, &wrapped);
        return jump_message(t, found, wrapped, "codegen stage");
    case KA_SEARCH_NEXT:
    case KA_SEARCH_PREV: {
        int dir = a == KA_SEARCH_NEXT ? 1 : -1;
        size_t at = r->pattern ? rows_match_index(r) : 0;
        bool at_end = r->pattern && !rows_searching(r) && !decor_trace_live(t, ws_tab_c(&t->ws)) &&
                      (r->n_matches == 0 || (dir > 0 ? at == r->n_matches : at == 1));
        /* Past the section's last match: on into the next section that has one. */
        if (at_end && tui_search_elsewhere(t, r->pattern, dir))
            return RE_DRAW | RE_LAYOUT;
        if (!r->pattern)
            ws_message(&t->ws, true, "no search yet: press / first");
        else if (!rows_search_step(r, a == KA_SEARCH_NEXT ? 1 : -1, &wrapped))
            ws_message(&t->ws, true, "pattern not found in this section");
        else if (wrapped)
            ws_message(&t->ws, false, "search wrapped around");
        return RE_DRAW;
    }
    default:
        return RE_PASS;
    }
}

/* How the tree is shown: scrolling sideways, wrapping, the stage band, the flip. */
static int display_key(struct tui *t, struct tree_state *st, enum key_action a)
{
    switch (a) {
    case KA_SCROLL_RIGHT:
        if (!t->wrap)
            st->hscroll += 8;
        return RE_DRAW;
    case KA_SCROLL_LEFT:
        st->hscroll = st->hscroll > 8 ? st->hscroll - 8 : 0;
        return RE_DRAW;
    case KA_SCROLL_HOME:
        st->hscroll = 0;
        return RE_DRAW;
    case KA_WRAP:
        t->wrap = !t->wrap;
        st->hscroll = 0;
        ws_message(&t->ws, false, "wrap %s", t->wrap ? "on" : "off");
        return RE_DRAW | RE_LAYOUT;
    case KA_METRICS:
        if (!t->ev) {
            ws_message(&t->ws, false, "m shows an event log's metrics: this is a plan file");
            return RE_DRAW;
        }
        t->metrics_col = !t->metrics_col;
        ws_message(&t->ws, false, "metrics column %s", t->metrics_col ? "on" : "off");
        return RE_DRAW;
    case KA_STAGES:
        t->stage_hl = !t->stage_hl;
        ws_message(&t->ws, false, "codegen stage highlight %s", t->stage_hl ? "on" : "off");
        return RE_DRAW;
    case KA_FLIP:
        st->flipped = !st->flipped;
        ws_message(&t->ws, false, "%s",
                   st->flipped ? "flipped: scans on top, data flows down (r again restores)"
                               : "tree as Spark prints it");
        return RE_DRAW | RE_LAYOUT;
    default:
        return RE_PASS;
    }
}

static int tree_key(struct tui *t, void *state, enum key_action a, const struct input_event *ev)
{
    struct tree_state *st = state;
    a = flip_action(st, a);
    struct rows *r = &ws_tab(&t->ws)->rows;
    if (move_key(r, a))
        return RE_DRAW;
    if (a == KA_LEVELS) {
        rows_show_levels(r, (unsigned)(ev->name[0] - '0'));
        ws_message(&t->ws, false, "showing %c level%s", ev->name[0], ev->name[0] == '1' ? "" : "s");
        return RE_DRAW;
    }
    if (a == KA_CLICK) {
        bool on_marker;
        struct plan_node *n = row_at(t, st, ev->line, ev->col, &on_marker);
        if (!n)
            return RE_DRAW;
        rows_select(r, n);
        if (on_marker)
            rows_toggle(r);
        return RE_DRAW | RE_FOCUS_TREE;
    }
    int re = jump_key(t, r, a);
    if (re & RE_PASS)
        re = display_key(t, st, a);
    if (re & RE_PASS)
        re = tree_insight_key(t, a); /* i ! f F * w */
    return re;
}

static void *tree_open(struct tui *t)
{
    (void)t;
    return calloc(1, sizeof(struct tree_state));
}

static void tree_close(struct tui *t, void *state)
{
    (void)t;
    struct tree_state *st = state;
    free(st->rows);
    free(st);
}

static struct view_area tree_area(const struct tui *t)
{
    return (struct view_area){t->L.tree_y, t->L.tree_x, t->L.tree_h, t->L.tree_w};
}

const struct view_ops view_tree = {
    .name = "tree",
    .layer = LAYER_BASE,
    .keys = KCTX_TREE,
    .open = tree_open,
    .close = tree_close,
    .prepare = tree_prepare,
    .draw = tree_draw,
    .key = tree_key,
    .area = tree_area,
};
