/* view_help.c: the ? overlay, generated from the key table (keys.h).  Laid out for the
 * box's width: keys in a column and their descriptions beside it, wrapped at spaces; on a
 * narrow screen each description goes under its keys.  Nothing is cut.  Its state: the
 * laid-out lines (rebuilt by prepare for the box's width) and the scroll. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/listbox.h"
#include "sparkplan/tui.h"

static const enum key_context help_order[] = {KCTX_TREE,  KCTX_GLOBAL, KCTX_DETAILS,
                                              KCTX_PROMPT, KCTX_PASTE, KCTX_DOCS,
                                              KCTX_APPS, KCTX_QUERIES, KCTX_LIST,  KCTX_WALK,
                                              KCTX_PICKER, KCTX_DIFF};

/* Columns of the keys (with their 2-column indent) in the wide layout, and the least room
 * a description needs beside them before the narrow layout is used. */
#define KEY_COLS 22
#define MIN_DESC_COLS 28
#define HELP_MAX_LINES 1024

static const char *const help_titles[] = {"sparkplan keys (j/k scroll, Tab: legend, q closes)",
                                          "sparkplan keys (j/k scroll, q closes)",
                                          "keys (j/k scroll, q closes)", "keys (q closes)",
                                          "keys", NULL};

/* One display line: keys (or NULL) at column 2, then a piece of text at text_col.  On
 * the legend page the "keys" are a sample drawn in role key_role. */
struct help_line {
    const char *keys;
    struct slice text;
    int text_col;
    bool title;
    int key_role;                 /* enum role of keys, -1: ROLE_KEY */
};

struct help_state {
    struct help_line lines[HELP_MAX_LINES];
    char key_lists[KEYS_N_BINDINGS][128]; /* by binding (keys_table index) */
    struct listbox lb;            /* lb.top: the first line shown */
    bool legend;                  /* the legend page (Tab) instead of the keys */
    bool utf8;
};

static int line_role = -1;        /* the role put_line gives its keys (the legend's) */

static void put_line(struct help_state *h, const char *keys, struct slice text, int col,
                     bool title)
{
    if (h->lb.n < HELP_MAX_LINES)
        h->lines[h->lb.n++] = (struct help_line){keys, text, col, title, line_role};
}

/* text as lines of at most width columns, broken after spaces; the first beside keys. */
static void put_wrapped(struct help_state *h, const char *keys, const char *text, int col,
                        int width)
{
    struct slice rest = slice_cstr(text);
    do { /* bounded by the text's length */
        size_t take = draw_wrap(rest, width > 1 ? width : 1, WRAP_SPACES);
        struct slice piece = slice_make(rest.ptr, take);
        while (piece.len && piece.ptr[piece.len - 1] == ' ')
            piece.len--;
        put_line(h, keys, piece, col, false);
        keys = NULL;
        rest.ptr += take;
        rest.len -= take;
        while (rest.len && rest.ptr[0] == ' ')
            rest.ptr++, rest.len--;
    } while (rest.len > 0);
}

/* ---- the legend page: what the marks, glyphs and colours mean ------------------------- */

struct legend_entry {
    const char *utf8, *ascii;     /* the sample as drawn */
    int role;
    const char *text;
};

static const struct legend_entry legend_marks[] = {
    {"  2", "  2", ROLE_STAGE0 + 2, "gutter: the node's whole-stage codegen stage, in its tint "
                                   "(* when Spark printed no number); s highlights it"},
    {"i", "i", ROLE_HINT, "gutter: the node has an informational finding (f F, !)"},
    {"!", "!", ROLE_ERROR, "gutter: the node has a warning"},
    {"\xE2\x97\x86", "P", ROLE_LINK, "gutter: the node that produces the traced id (*)"},
    {"\xE2\x96\xB8 [+6]", "+ [+6]", ROLE_MARKER, "a folded node hiding 6 nodes (Space, l)"},
    {"\xE2\x96\xBE", "-", ROLE_GLYPH, "an open node"},
    {"\xE2\x80\xA6" "7", "...7", ROLE_HINT, "7 levels hidden at the left, the same on every row"},
    {"\xE2\x80\xA6(depth 12345)", "...(depth 12345)", ROLE_HINT,
     "a row deeper than the screen can indent"},
    {"\xE2\x80\xA6", "...", ROLE_CUT, "the line goes on (< > scroll, W wraps, Enter shows it)"},
    {"[3/12]", "[3/12]", ROLE_STATUS, "status line: search match 3 of 12"},
    {"[=12]", "[=12]", ROLE_MARKER, "plan diff: 12 unchanged nodes folded (Space unfolds)"},
    {"+", "+", ROLE_DIFF_ADDED, "plan diff: a node only the second plan has"},
    {"-", "-", ROLE_DIFF_REMOVED, "plan diff: a node only the first plan has"},
    {"~", "~", ROLE_DIFF_CHANGED, "plan diff: the same operator with other fields (Enter)"},
    {"\xE2\x87\x84", "!", ROLE_DIFF_REPLACED, "plan diff: another operator in its place"},
    {"\xE2\x86\xB7", ">", ROLE_DIFF_MOVED, "plan diff: the same subtree somewhere else"},
};

static const struct legend_entry legend_colours[] = {
    {"Exchange", NULL, ROLE_SHUFFLE, "a shuffle"},
    {"ReusedExchange", NULL, ROLE_SHUFFLE_DIM, "a reused shuffle, an AQE query stage"},
    {"BroadcastExchange", NULL, ROLE_BROADCAST, "a broadcast"},
    {"BroadcastQueryStage", NULL, ROLE_BROADCAST_DIM, "a reused broadcast, an AQE stage"},
    {"SortMergeJoin", NULL, ROLE_JOIN, "a join"},
    {"FileScan", NULL, ROLE_SCAN, "a scan"},
    {"== Final Plan ==", NULL, ROLE_LABEL, "an AQE label"},
    {"match", NULL, ROLE_MATCH, "a search match"},
    {"Output [2]", NULL, ROLE_KEY, "a details field"},
    {"operator id: 9", NULL, ROLE_LINK, "a reference Enter follows (details)"},
    {"\xE2\x94\x82 \xE2\x94\x9C\xE2\x94\x80", "| +-", ROLE_GUIDE, "tree guides"},
};

static void put_legend(struct help_state *h, const struct legend_entry *e, size_t n,
                       int width)
{
    bool wide = width >= KEY_COLS + 1 + MIN_DESC_COLS;
    for (size_t i = 0; i < n; i++) {
        line_role = e[i].role;
        const char *sample = h->utf8 || !e[i].ascii ? e[i].utf8 : e[i].ascii;
        if (wide) {
            put_wrapped(h, sample, e[i].text, KEY_COLS + 1, width - KEY_COLS - 1);
        } else {
            put_line(h, sample, slice_make("", 0), 0, false);
            line_role = -1;
            put_wrapped(h, NULL, e[i].text, 4, width - 4);
        }
        line_role = -1;
    }
}

static void legend_build(struct help_state *h, int width)
{
    h->lb.n = 0;
    put_line(h, NULL, slice_cstr("Marks and glyphs (Tab: the keys)"), 0, true);
    put_legend(h, legend_marks, sizeof legend_marks / sizeof legend_marks[0], width);
    put_line(h, NULL, slice_make("", 0), 0, false);
    put_line(h, NULL, slice_cstr("Colours of this theme (T changes it)"), 0, true);
    put_legend(h, legend_colours, sizeof legend_colours / sizeof legend_colours[0], width);
}

/* Lays the help out for a text area width columns wide. */
static void help_build(struct help_state *h, int width)
{
    if (h->legend) {
        legend_build(h, width);
        return;
    }
    bool wide = width >= KEY_COLS + 1 + MIN_DESC_COLS;
    h->lb.n = 0;
    for (size_t c = 0; c < sizeof help_order / sizeof help_order[0]; c++) {
        put_line(h, NULL, slice_cstr(keys_context_title(help_order[c])), 0, true);
        for (size_t i = 0; i < keys_table_len; i++) {
            const struct key_binding *k = &keys_table[i];
            if (k->context != help_order[c])
                continue;
            char *list = h->key_lists[i];
            keys_display_list(k, list, sizeof h->key_lists[0]);
            int list_w = 2 + draw_width(slice_cstr(list), true);
            if (wide && list_w < KEY_COLS) {
                put_wrapped(h, list, k->help, KEY_COLS + 1, width - KEY_COLS - 1);
            } else if (wide) { /* long key lists: the description starts on the next line */
                put_line(h, list, slice_make("", 0), 0, false);
                put_wrapped(h, NULL, k->help, KEY_COLS + 1, width - KEY_COLS - 1);
            } else {
                put_line(h, list, slice_make("", 0), 0, false);
                put_wrapped(h, NULL, k->help, 4, width - 4);
            }
        }
        put_line(h, NULL, slice_make("", 0), 0, false);
    }
    put_wrapped(h, NULL, "Tab: the legend of marks, glyphs and colours", 0, width);
}

static struct box help_box(void)
{
    return overlay_place(90, LINES);
}

/* The text area: the inside of the box less a column of padding on each side. */
static int text_width(struct box in)
{
    return in.w > 4 ? in.w - 2 : in.w;
}

static void help_prepare(struct tui *t, void *state)
{
    struct help_state *h = state;
    h->utf8 = t->ws.utf8 && !t->ascii;
    struct box in = overlay_inside(help_box());
    help_build(h, text_width(in));
    h->lb.rows = in.h > 0 ? (size_t)in.h : 1;
}

static void draw_help_line(const struct help_line *l, int y, int left, int width)
{
    attr_t normal = theme_attr(ROLE_NORMAL, VAR_PLAIN);
    struct draw_line dl;
    draw_line_start(&dl, y, left, width, 0);
    if (l->title) {
        draw_put(&dl, l->text, theme_attr(ROLE_TITLE, VAR_PLAIN), true);
        return;
    }
    if (l->keys) {
        draw_puts(&dl, "  ", normal);
        draw_puts(&dl, l->keys, theme_attr(l->key_role >= 0 ? (enum role)l->key_role : ROLE_KEY,
                                           VAR_PLAIN));
    }
    if (l->text.len) {
        while (dl.x < left + l->text_col && dl.x < dl.limit) /* pad to the column */
            draw_puts(&dl, " ", normal);
        draw_put(&dl, l->text, normal, true);
    }
    draw_cut_marker(&dl, theme_attr(ROLE_CUT, VAR_PLAIN)); /* a key list wider than all */
}

static void help_draw(const struct tui *t, const void *state)
{
    const struct help_state *h = state;
    struct box in = overlay_draw(t, help_box(), help_titles);
    int width = text_width(in), left = in.x + (in.w > 4 ? 1 : 0);
    for (int row = 0; row < in.h && h->lb.top + (size_t)row < h->lb.n; row++)
        draw_help_line(&h->lines[h->lb.top + (size_t)row], in.y + row, left, width);
}

static int help_key(struct tui *t, void *state, enum key_action a,
                    const struct input_event *ev)
{
    (void)t;
    struct help_state *h = state;
    if (a == KA_H_CLOSE)
        return RE_POP | RE_DRAW | RE_FULL;
    if (a == KA_H_LEGEND) {
        h->legend = !h->legend;
        h->lb.top = 0;
        return RE_DRAW | RE_FULL;
    }
    long delta = listbox_delta(&h->lb, a);
    if (delta) {
        listbox_scroll(&h->lb, delta);
        return RE_DRAW;
    }
    if (keys_lookup(KCTX_GLOBAL, ev->name) == KA_QUIT)
        return RE_QUIT; /* Ctrl-c still quits */
    return RE_NONE;
}

static void *help_open(struct tui *t)
{
    (void)t;
    return calloc(1, sizeof(struct help_state));
}

static void help_close(struct tui *t, void *state)
{
    (void)t;
    free(state);
}

const struct view_ops view_help = {
    .name = "help",
    .layer = LAYER_OVERLAY,
    .keys = KCTX_HELP,
    .open = help_open,
    .close = help_close,
    .prepare = help_prepare,
    .draw = help_draw,
    .key = help_key,
};
