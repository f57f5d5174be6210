/* overlay.c: the box every overlay is drawn in — the ? help, the D document list, the !
 * findings list and the * id list (see tui.h): placed on the screen, its inside cleared
 * to its own background, framed, its title in the top border. */
#include <string.h>

#include "sparkplan/draw.h"
#include "sparkplan/tui.h"

struct box overlay_place(int want_w, int want_h)
{
    struct box b;
    /* Narrow or short screens give the overlay everything: a margin would only cut the
     * text inside. */
    bool narrow = COLS < 50, tight = LINES < 10;
    int max_w = narrow ? COLS : COLS - 4, max_h = tight ? LINES : LINES - 2;
    b.w = want_w < max_w ? want_w : max_w;
    b.h = want_h < max_h ? want_h : max_h;
    if (b.w < 1)
        b.w = COLS > 0 ? COLS : 1;
    if (b.h < 1)
        b.h = LINES > 0 ? LINES : 1;
    b.x = (COLS - b.w) / 2;
    b.y = (LINES - b.h) / 2;
    return b;
}

struct box overlay_inside(struct box b)
{
    if (b.w < 4 || b.h < 3) /* no room for a frame: the inside is the box */
        return b;
    return (struct box){b.y + 1, b.x + 1, b.h - 2, b.w - 2};
}

struct box overlay_draw(const struct tui *t, struct box b, const char *const *titles)
{
    attr_t bg = theme_attr(ROLE_NORMAL, VAR_PLAIN);
    attr_t border = theme_attr(ROLE_BORDER, VAR_PLAIN);
    draw_clear(b.y, b.x, b.h, b.w, bg);
    struct box in = overlay_inside(b);
    if (in.w == b.w)
        return in;
    /* UTF-8 box drawing rather than ACS: some terminals (and tmux captures) show the
     * alternate character set as letters. */
    bool lines = t->ws.utf8 && !t->ascii;
    const char *hl = lines ? "\xE2\x94\x80" : "-", *vl = lines ? "\xE2\x94\x82" : "|";
    for (int i = 0; i < b.h; i++) { /* bounded by the box */
        bool top = i == 0, bottom = i == b.h - 1;
        const char *left = vl, *right = vl;
        if (top || bottom) {
            left = !lines ? "+" : top ? "\xE2\x94\x8C" : "\xE2\x94\x94";
            right = !lines ? "+" : top ? "\xE2\x94\x90" : "\xE2\x94\x98";
        }
        struct draw_line dl;
        draw_line_start(&dl, b.y + i, b.x, 1, 0);
        draw_puts(&dl, left, border);
        draw_line_start(&dl, b.y + i, b.x + b.w - 1, 1, 0);
        draw_puts(&dl, right, border);
        if (top || bottom) {
            draw_line_start(&dl, b.y + i, b.x + 1, b.w - 2, 0);
            while (dl.x < dl.limit) /* bounded by the width */
                draw_puts(&dl, hl, border);
        }
    }
    /* The longest title that fits whole, with a space on each side. */
    int room = b.w - 4;
    for (size_t i = 0; titles && titles[i]; i++) {
        int len = draw_width(slice_cstr(titles[i]), true) + 2;
        if (len > room && titles[i + 1])
            continue;
        struct draw_line dl;
        draw_line_start(&dl, b.y, b.x + 2, room, 0);
        draw_puts(&dl, " ", border);
        draw_puts(&dl, titles[i], theme_attr(ROLE_TITLE, VAR_PLAIN));
        draw_puts(&dl, " ", border);
        draw_cut_marker(&dl, border);
        break;
    }
    return in;
}
