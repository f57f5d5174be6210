/* view_help.c: the ? overlay, generated from the key table (keys.h). */
#include <stdio.h>
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/tui.h"

static const enum key_context help_order[] = {KCTX_TREE,  KCTX_GLOBAL, KCTX_DETAILS,
                                              KCTX_PROMPT, KCTX_PASTE, KCTX_DOCS,
                                              KCTX_LIST,  KCTX_WALK};

/* Lines of the help text: a title per context, then one line per binding, then a blank.
 * Calls line(i, binding or NULL, context) for the lines first..first+count. */
static int help_lines(void)
{
    int n = 0;
    for (size_t c = 0; c < sizeof help_order / sizeof help_order[0]; c++) {
        n += 2;
        for (size_t i = 0; i < keys_table_len; i++)
            n += keys_table[i].context == help_order[c];
    }
    return n;
}

static void frame(int y, int x, int h, int w, attr_t attr, bool utf8)
{
    draw_clear(y, x, h, w, attr);
    if (h < 2 || w < 2)
        return;
    /* UTF-8 box drawing rather than ACS (see view_details.c). */
    const char *hl = utf8 ? "\xE2\x94\x80" : "-", *vl = utf8 ? "\xE2\x94\x82" : "|";
    for (int i = 0; i < h; i++) {
        struct draw_line dl;
        const char *left = vl, *right = vl, *fill = " ";
        if (i == 0 || i == h - 1) {
            fill = hl;
            left = utf8 ? (i == 0 ? "\xE2\x94\x8C" : "\xE2\x94\x94") : "+";
            right = utf8 ? (i == 0 ? "\xE2\x94\x90" : "\xE2\x94\x98") : "+";
        }
        draw_line_start(&dl, y + i, x, w, 0);
        draw_puts(&dl, left, attr);
        for (int k = 0; k < w - 2; k++) /* bounded by the width */
            draw_puts(&dl, fill, attr);
        draw_puts(&dl, right, attr);
    }
}

static void overlay_geometry(int *y, int *x, int *h, int *w, int want_w)
{
    *w = COLS - 4 < want_w ? COLS - 4 : want_w;
    if (*w < 10)
        *w = COLS;
    *h = LINES - 2;
    if (*h < 3)
        *h = LINES;
    *y = (LINES - *h) / 2;
    *x = (COLS - *w) / 2;
}

void help_draw(const struct tui *t)
{
    int y, x, h, w;
    overlay_geometry(&y, &x, &h, &w, 86);
    bool lines = t->utf8 && !t->ascii;
    frame(y, x, h, w, theme_attr(ROLE_BORDER, VAR_PLAIN), lines);
    struct draw_line dl;
    draw_line_start(&dl, y, x + 2, w - 4, 0);
    draw_puts(&dl, " sparkplan keys (j/k scroll, q closes) ", theme_attr(ROLE_TITLE, VAR_PLAIN));
    int inner = h - 2;
    int line = 0, row = 0;
    for (size_t c = 0; c < sizeof help_order / sizeof help_order[0] && row < inner; c++) {
        if (line++ >= t->overlay_scroll) {
            draw_line_start(&dl, y + 1 + row++, x + 2, w - 4, 0);
            draw_puts(&dl, keys_context_title(help_order[c]), theme_attr(ROLE_TITLE, VAR_PLAIN));
        }
        for (size_t i = 0; i < keys_table_len && row < inner; i++) {
            if (keys_table[i].context != help_order[c])
                continue;
            if (line++ < t->overlay_scroll)
                continue;
            char list[128];
            keys_display_list(&keys_table[i], list, sizeof list);
            draw_line_start(&dl, y + 1 + row++, x + 2, w - 4, 0);
            draw_puts(&dl, "  ", theme_attr(ROLE_NORMAL, VAR_PLAIN));
            draw_puts(&dl, list, theme_attr(ROLE_KEY, VAR_PLAIN));
            while (dl.x < x + 24 && dl.x < dl.limit) /* pad to the help column */
                draw_puts(&dl, " ", theme_attr(ROLE_NORMAL, VAR_PLAIN));
            draw_puts(&dl, " ", theme_attr(ROLE_NORMAL, VAR_PLAIN));
            draw_puts(&dl, keys_table[i].help, theme_attr(ROLE_NORMAL, VAR_PLAIN));
            draw_cut_marker(&dl, theme_attr(ROLE_CUT, VAR_PLAIN));
        }
        if (line++ >= t->overlay_scroll)
            row++;
    }
}

int help_key(struct tui *t, enum key_action a)
{
    int page = LINES - 4 > 1 ? LINES - 4 : 1;
    int max = help_lines() - (LINES - 4);
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
