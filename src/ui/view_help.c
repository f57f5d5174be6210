/* view_help.c: the ? overlay, generated from the key table (keys.h).  Laid out for the
 * box's width: keys in a column and their descriptions beside it, wrapped at spaces; on a
 * narrow screen each description goes under its keys.  Nothing is cut. */
#include <stdio.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/tui.h"

static const enum key_context help_order[] = {KCTX_TREE,  KCTX_GLOBAL, KCTX_DETAILS,
                                              KCTX_PROMPT, KCTX_PASTE, KCTX_DOCS,
                                              KCTX_LIST,  KCTX_WALK};

/* Columns of the keys (with their 2-column indent) in the wide layout, and the least room
 * a description needs beside them before the narrow layout is used. */
#define KEY_COLS 22
#define MIN_DESC_COLS 28
#define HELP_MAX_LINES 1024

static const char *const help_titles[] = {"sparkplan keys (j/k scroll, q closes)",
                                          "keys (j/k scroll, q closes)", "keys (q closes)",
                                          "keys", NULL};

/* One display line: keys (or NULL) at column 2, then a piece of text at text_col. */
struct help_line {
    const char *keys;
    struct slice text;
    int text_col;
    bool title;
};

static struct help_line lines[HELP_MAX_LINES];
static char key_lists[KA_COUNT][128];

static void put_line(size_t *n, const char *keys, struct slice text, int col, bool title)
{
    if (*n < HELP_MAX_LINES)
        lines[(*n)++] = (struct help_line){keys, text, col, title};
}

/* text as lines of at most width columns, broken after spaces; the first beside keys. */
static void put_wrapped(size_t *n, const char *keys, const char *text, int col, int width)
{
    struct slice rest = slice_cstr(text);
    do { /* bounded by the text's length */
        size_t take = rest.len ? draw_fit(rest, width > 1 ? width : 1) : 0;
        if (take < rest.len) {
            size_t b = take;
            while (b > 0 && rest.ptr[b - 1] != ' ') /* bounded by take */
                b--;
            if (b > 0)
                take = b;
        }
        struct slice piece = slice_make(rest.ptr, take);
        while (piece.len && piece.ptr[piece.len - 1] == ' ')
            piece.len--;
        put_line(n, keys, piece, col, false);
        keys = NULL;
        rest.ptr += take;
        rest.len -= take;
        while (rest.len && rest.ptr[0] == ' ')
            rest.ptr++, rest.len--;
    } while (rest.len > 0);
}

/* Lays the help out for a text area width columns wide; returns the number of lines. */
static size_t help_build(int width)
{
    bool wide = width >= KEY_COLS + 1 + MIN_DESC_COLS;
    size_t n = 0;
    for (size_t c = 0; c < sizeof help_order / sizeof help_order[0]; c++) {
        put_line(&n, NULL, slice_cstr(keys_context_title(help_order[c])), 0, true);
        for (size_t i = 0; i < keys_table_len; i++) {
            const struct key_binding *k = &keys_table[i];
            if (k->context != help_order[c])
                continue;
            char *list = key_lists[k->action];
            keys_display_list(k, list, sizeof key_lists[0]);
            int list_w = 2 + draw_width(slice_cstr(list), true);
            if (wide && list_w < KEY_COLS) {
                put_wrapped(&n, list, k->help, KEY_COLS + 1, width - KEY_COLS - 1);
            } else if (wide) { /* long key lists: the description starts on the next line */
                put_line(&n, list, slice_make("", 0), 0, false);
                put_wrapped(&n, NULL, k->help, KEY_COLS + 1, width - KEY_COLS - 1);
            } else {
                put_line(&n, list, slice_make("", 0), 0, false);
                put_wrapped(&n, NULL, k->help, 4, width - 4);
            }
        }
        put_line(&n, NULL, slice_make("", 0), 0, false);
    }
    return n;
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

void help_draw(const struct tui *t)
{
    struct box in = overlay_draw(t, help_box(), help_titles);
    int width = text_width(in), left = in.x + (in.w > 4 ? 1 : 0);
    size_t n = help_build(width);
    attr_t normal = theme_attr(ROLE_NORMAL, VAR_PLAIN);
    for (int row = 0; row < in.h; row++) {
        size_t i = (size_t)t->overlay_scroll + (size_t)row;
        if (i >= n)
            break;
        const struct help_line *l = &lines[i];
        struct draw_line dl;
        draw_line_start(&dl, in.y + row, left, width, 0);
        if (l->title) {
            draw_put(&dl, l->text, theme_attr(ROLE_TITLE, VAR_PLAIN), true);
            continue;
        }
        if (l->keys) {
            draw_puts(&dl, "  ", normal);
            draw_puts(&dl, l->keys, theme_attr(ROLE_KEY, VAR_PLAIN));
        }
        if (l->text.len) {
            while (dl.x < left + l->text_col && dl.x < dl.limit) /* pad to the column */
                draw_puts(&dl, " ", normal);
            draw_put(&dl, l->text, normal, true);
        }
        draw_cut_marker(&dl, theme_attr(ROLE_CUT, VAR_PLAIN)); /* a key list wider than all */
    }
}

int help_key(struct tui *t, enum key_action a)
{
    struct box in = overlay_inside(help_box());
    int page = in.h > 1 ? in.h - 1 : 1;
    int max = (int)help_build(text_width(in)) - in.h;
    switch (a) {
    case KA_H_DOWN:
        t->overlay_scroll++;
        break;
    case KA_H_UP:
        t->overlay_scroll--;
        break;
    case KA_H_PAGE_DOWN:
        t->overlay_scroll += page;
        break;
    case KA_H_PAGE_UP:
        t->overlay_scroll -= page;
        break;
    case KA_H_CLOSE:
        t->overlay = OVERLAY_NONE;
        return RE_DRAW | RE_FULL;
    default:
        return RE_NONE;
    }
    if (t->overlay_scroll > max)
        t->overlay_scroll = max;
    if (t->overlay_scroll < 0)
        t->overlay_scroll = 0;
    return RE_DRAW;
}
