/* theme.c: roles → curses attributes for each theme and colour depth (see theme.h). */
#include "sparkplan/theme.h"

#include <string.h>

struct style {
    short fg, bg;  /* bg -1: the theme's own background (or the band's) */
    attr_t attrs;
};

/* Every theme paints its own background: a cell's colours never depend on the terminal's,
 * so each theme reads the same on a black and on a white terminal.  Contrast (WCAG, on
 * the xterm-256 palette) is at least 4.5:1 for every role on `bg` and on `band_bg`, 7:1
 * in projector; the selected row is sel_fg on sel_bg, bold, for every role (a bar that
 * needs no hue to be seen). */
struct palette {
    const char *name;
    bool light;                /* made for a light terminal (the first pick there) */
    struct style roles[ROLE_COUNT];
    short bg, band_bg, sel_fg, sel_bg;
};

#define B A_BOLD
#define U A_UNDERLINE

/* 256-colour palettes.  Every entry names its role, so a missing one fails to compile
 * into the wrong place. */
static const struct palette palettes[] = {
    {"dark", false,
     {
         [ROLE_NORMAL] = {252, -1, 0},       [ROLE_GUIDE] = {247, -1, 0},
         [ROLE_GLYPH] = {249, -1, 0},        [ROLE_MARKER] = {179, -1, B},
         [ROLE_HINT] = {247, -1, 0},         [ROLE_CUT] = {247, -1, B},
         [ROLE_SHUFFLE] = {203, -1, B},      [ROLE_SHUFFLE_DIM] = {174, -1, 0},
         [ROLE_BROADCAST] = {75, -1, B},     [ROLE_BROADCAST_DIM] = {110, -1, 0},
         [ROLE_JOIN] = {176, -1, 0},         [ROLE_SCAN] = {114, -1, 0},
         [ROLE_LABEL] = {180, -1, B},        [ROLE_MATCH] = {16, 220, 0},
         [ROLE_DIFF_ADDED] = {114, -1, B},   [ROLE_DIFF_REMOVED] = {203, -1, B},
         [ROLE_DIFF_CHANGED] = {179, -1, B}, [ROLE_DIFF_REPLACED] = {176, -1, B},
         [ROLE_DIFF_MOVED] = {75, -1, B},
         [ROLE_HEADER] = {252, 237, 0},      [ROLE_TAB] = {250, 237, 0},
         [ROLE_TAB_ACTIVE] = {16, 110, B},   [ROLE_SUMMARY] = {248, -1, 0},
         [ROLE_STATUS] = {252, 237, 0},      [ROLE_STATUS_STRONG] = {231, 237, B},
         [ROLE_ERROR] = {217, 237, B},       [ROLE_BORDER] = {246, -1, 0},
         [ROLE_TITLE] = {252, -1, B},        [ROLE_KEY] = {110, -1, 0},
         [ROLE_LINK] = {81, -1, U},          [ROLE_GUTTER] = {246, -1, 0},
         [ROLE_STAGE0 + 0] = {231, 24, 0},   [ROLE_STAGE0 + 1] = {231, 58, 0},
         [ROLE_STAGE0 + 2] = {231, 89, 0},   [ROLE_STAGE0 + 3] = {231, 22, 0},
         [ROLE_STAGE0 + 4] = {231, 94, 0},   [ROLE_STAGE0 + 5] = {231, 54, 0},
     },
     234, 235, 16, 252},
    {"light", true,
     {
         [ROLE_NORMAL] = {16, -1, 0},        [ROLE_GUIDE] = {240, -1, 0},
         [ROLE_GLYPH] = {239, -1, 0},        [ROLE_MARKER] = {94, -1, B},
         [ROLE_HINT] = {240, -1, 0},         [ROLE_CUT] = {240, -1, B},
         [ROLE_SHUFFLE] = {160, -1, B},      [ROLE_SHUFFLE_DIM] = {95, -1, 0},
         [ROLE_BROADCAST] = {25, -1, B},     [ROLE_BROADCAST_DIM] = {61, -1, 0},
         [ROLE_JOIN] = {90, -1, 0},          [ROLE_SCAN] = {22, -1, 0},
         [ROLE_LABEL] = {94, -1, B},         [ROLE_MATCH] = {16, 226, 0},
         [ROLE_DIFF_ADDED] = {22, -1, B},    [ROLE_DIFF_REMOVED] = {160, -1, B},
         [ROLE_DIFF_CHANGED] = {94, -1, B},  [ROLE_DIFF_REPLACED] = {90, -1, B},
         [ROLE_DIFF_MOVED] = {25, -1, B},
         [ROLE_HEADER] = {16, 253, 0},       [ROLE_TAB] = {237, 253, 0},
         [ROLE_TAB_ACTIVE] = {231, 25, B},   [ROLE_SUMMARY] = {239, -1, 0},
         [ROLE_STATUS] = {16, 253, 0},       [ROLE_STATUS_STRONG] = {16, 253, B},
         [ROLE_ERROR] = {124, 253, B},       [ROLE_BORDER] = {240, -1, 0},
         [ROLE_TITLE] = {16, -1, B},         [ROLE_KEY] = {25, -1, 0},
         [ROLE_LINK] = {26, -1, U},          [ROLE_GUTTER] = {240, -1, 0},
         [ROLE_STAGE0 + 0] = {16, 153, 0},   [ROLE_STAGE0 + 1] = {16, 223, 0},
         [ROLE_STAGE0 + 2] = {16, 217, 0},   [ROLE_STAGE0 + 3] = {16, 194, 0},
         [ROLE_STAGE0 + 4] = {16, 230, 0},   [ROLE_STAGE0 + 5] = {16, 225, 0},
     },
     231, 255, 231, 24},
    /* For projectors: black on white, deep colours, everything important bold, the
     * selected row white on black (21:1). */
    {"projector", true,
     {
         [ROLE_NORMAL] = {16, -1, 0},        [ROLE_GUIDE] = {16, -1, 0},
         [ROLE_GLYPH] = {16, -1, B},         [ROLE_MARKER] = {52, -1, B},
         [ROLE_HINT] = {16, -1, 0},          [ROLE_CUT] = {16, -1, B},
         [ROLE_SHUFFLE] = {124, -1, B},      [ROLE_SHUFFLE_DIM] = {88, -1, 0},
         [ROLE_BROADCAST] = {19, -1, B},     [ROLE_BROADCAST_DIM] = {18, -1, 0},
         [ROLE_JOIN] = {90, -1, B},          [ROLE_SCAN] = {22, -1, B},
         [ROLE_LABEL] = {16, -1, B | U},     [ROLE_MATCH] = {16, 226, B},
         [ROLE_DIFF_ADDED] = {22, -1, B},    [ROLE_DIFF_REMOVED] = {124, -1, B},
         [ROLE_DIFF_CHANGED] = {52, -1, B},  [ROLE_DIFF_REPLACED] = {90, -1, B},
         [ROLE_DIFF_MOVED] = {19, -1, B},
         [ROLE_HEADER] = {231, 16, B},       [ROLE_TAB] = {231, 16, 0},
         [ROLE_TAB_ACTIVE] = {16, 226, B},   [ROLE_SUMMARY] = {16, -1, B},
         [ROLE_STATUS] = {231, 16, 0},       [ROLE_STATUS_STRONG] = {231, 16, B},
         [ROLE_ERROR] = {226, 16, B},        [ROLE_BORDER] = {16, -1, 0},
         [ROLE_TITLE] = {16, -1, B},         [ROLE_KEY] = {19, -1, B},
         [ROLE_LINK] = {19, -1, U | B},      [ROLE_GUTTER] = {16, -1, 0},
         [ROLE_STAGE0 + 0] = {16, 45, B},    [ROLE_STAGE0 + 1] = {16, 226, B},
         [ROLE_STAGE0 + 2] = {16, 213, B},   [ROLE_STAGE0 + 3] = {16, 118, B},
         [ROLE_STAGE0 + 4] = {16, 214, B},   [ROLE_STAGE0 + 5] = {16, 159, B},
     },
     231, 230, 231, 16},
};

/* 8 colours: a palette on black (dark) and one on white (light, projector); the
 * selection is the reverse bar, the stage highlight shows in the gutter only.  No stage
 * tint is the Exchange red, and no two roles that mean something share colours and
 * attributes (a search match is not a stage tint, a fold marker not a broadcast, a diff
 * mark not an operator's colour); only the plain-text roles (text, guides, borders) and
 * the bars (header, tabs, status) share theirs. */
#define K COLOR_BLACK
#define R COLOR_RED
#define G COLOR_GREEN
#define Y COLOR_YELLOW
#define BL COLOR_BLUE
#define M COLOR_MAGENTA
#define C COLOR_CYAN
#define W COLOR_WHITE
static const struct palette eight[] = {
    {"dark", false,
     {
         [ROLE_NORMAL] = {W, K, 0},          [ROLE_GUIDE] = {W, K, 0},
         [ROLE_GLYPH] = {W, K, 0},           [ROLE_MARKER] = {Y, K, B},
         [ROLE_HINT] = {W, K, 0},            [ROLE_CUT] = {W, K, U},
         [ROLE_SHUFFLE] = {R, K, B},         [ROLE_SHUFFLE_DIM] = {R, K, 0},
         [ROLE_BROADCAST] = {C, K, B},       [ROLE_BROADCAST_DIM] = {C, K, 0},
         [ROLE_JOIN] = {M, K, 0},            [ROLE_SCAN] = {G, K, 0},
         [ROLE_LABEL] = {Y, K, B | U},           [ROLE_MATCH] = {K, Y, B | U},
         [ROLE_DIFF_ADDED] = {G, K, B | U},      [ROLE_DIFF_REMOVED] = {R, K, B | U},
         [ROLE_DIFF_CHANGED] = {Y, K, U},    [ROLE_DIFF_REPLACED] = {M, K, B | U},
         [ROLE_DIFF_MOVED] = {C, K, B | U},
         [ROLE_HEADER] = {W, BL, 0},         [ROLE_TAB] = {W, BL, 0},
         [ROLE_TAB_ACTIVE] = {K, C, B},      [ROLE_SUMMARY] = {W, K, 0},
         [ROLE_STATUS] = {W, BL, 0},         [ROLE_STATUS_STRONG] = {W, BL, B},
         [ROLE_ERROR] = {W, R, B},           [ROLE_BORDER] = {W, K, 0},
         [ROLE_TITLE] = {W, K, B},           [ROLE_KEY] = {Y, K, 0},
         [ROLE_LINK] = {C, K, U},            [ROLE_GUTTER] = {W, K, 0},
         [ROLE_STAGE0 + 0] = {Y, BL, 0},     [ROLE_STAGE0 + 1] = {K, Y, 0},
         [ROLE_STAGE0 + 2] = {W, M, 0},      [ROLE_STAGE0 + 3] = {K, G, 0},
         [ROLE_STAGE0 + 4] = {K, C, 0},      [ROLE_STAGE0 + 5] = {K, W, 0},
     },
     K, K, K, W},
    {"light", true,
     {
         [ROLE_NORMAL] = {K, W, 0},          [ROLE_GUIDE] = {K, W, 0},
         [ROLE_GLYPH] = {K, W, 0},           [ROLE_MARKER] = {M, W, B},
         [ROLE_HINT] = {K, W, 0},            [ROLE_CUT] = {K, W, U},
         [ROLE_SHUFFLE] = {R, W, B},         [ROLE_SHUFFLE_DIM] = {R, W, 0},
         [ROLE_BROADCAST] = {BL, W, B},      [ROLE_BROADCAST_DIM] = {BL, W, 0},
         [ROLE_JOIN] = {M, W, 0},            [ROLE_SCAN] = {G, W, 0},
         [ROLE_LABEL] = {K, W, B | U},       [ROLE_MATCH] = {K, Y, B | U},
         [ROLE_DIFF_ADDED] = {G, W, B | U},      [ROLE_DIFF_REMOVED] = {R, W, B | U},
         [ROLE_DIFF_CHANGED] = {M, W, U},   [ROLE_DIFF_REPLACED] = {M, W, B | U},
         [ROLE_DIFF_MOVED] = {BL, W, B | U},
         [ROLE_HEADER] = {W, BL, 0},         [ROLE_TAB] = {W, BL, 0},
         [ROLE_TAB_ACTIVE] = {K, C, B},      [ROLE_SUMMARY] = {K, W, 0},
         [ROLE_STATUS] = {W, BL, 0},         [ROLE_STATUS_STRONG] = {W, BL, B},
         [ROLE_ERROR] = {W, R, B},           [ROLE_BORDER] = {K, W, 0},
         [ROLE_TITLE] = {K, W, B},           [ROLE_KEY] = {G, W, U},
         [ROLE_LINK] = {BL, W, U},           [ROLE_GUTTER] = {K, W, 0},
         [ROLE_STAGE0 + 0] = {Y, BL, 0},     [ROLE_STAGE0 + 1] = {K, Y, 0},
         [ROLE_STAGE0 + 2] = {W, M, 0},      [ROLE_STAGE0 + 3] = {K, G, 0},
         [ROLE_STAGE0 + 4] = {K, C, 0},      [ROLE_STAGE0 + 5] = {W, K, 0},
     },
     W, W, W, K},
};
#undef K
#undef R
#undef G
#undef Y
#undef BL
#undef M
#undef C
#undef W

/* No colour: attributes carry the distinctions (Exchange bold, BroadcastExchange bold and
 * underlined, reused and query stages italic, joins underlined, scans italic), on the
 * terminal's own colours; the selection is bold reverse.  No dim: it is unreadable on
 * some terminals. */
static const attr_t mono[ROLE_COUNT] = {
    [ROLE_NORMAL] = 0,
    [ROLE_GUIDE] = 0,
    [ROLE_GLYPH] = 0,
    [ROLE_MARKER] = B,
    [ROLE_HINT] = A_ITALIC,
    [ROLE_CUT] = B,
    [ROLE_SHUFFLE] = B,
    [ROLE_SHUFFLE_DIM] = A_ITALIC,
    [ROLE_BROADCAST] = B | U,
    [ROLE_BROADCAST_DIM] = A_ITALIC | U,
    [ROLE_JOIN] = U,
    [ROLE_SCAN] = A_ITALIC,
    [ROLE_LABEL] = B,
    [ROLE_MATCH] = A_STANDOUT,
    [ROLE_DIFF_ADDED] = B,
    [ROLE_DIFF_REMOVED] = A_ITALIC | U,
    [ROLE_DIFF_CHANGED] = U,
    [ROLE_DIFF_REPLACED] = B | U,
    [ROLE_DIFF_MOVED] = A_ITALIC,
    [ROLE_HEADER] = A_REVERSE,
    [ROLE_TAB] = A_REVERSE,
    [ROLE_TAB_ACTIVE] = B,
    [ROLE_SUMMARY] = 0,
    [ROLE_STATUS] = A_REVERSE,
    [ROLE_STATUS_STRONG] = A_REVERSE | B,
    [ROLE_ERROR] = A_REVERSE | B,
    [ROLE_BORDER] = 0,
    [ROLE_TITLE] = B,
    [ROLE_KEY] = B,
    [ROLE_LINK] = U,
    [ROLE_GUTTER] = 0,
};

#undef B
#undef U

enum depth { DEPTH_MONO, DEPTH_8, DEPTH_256 };

#define N_PALETTES ((int)(sizeof palettes / sizeof palettes[0]))

static struct {
    enum depth depth;
    int palette;        /* index in palettes; -1 = mono theme */
    bool colours;       /* colours allowed at all */
} th;

/* Colour pairs: with 256 colours 1 + role * 2 + (band), then the selection bar; with 8
 * (often 64 pairs) 1 + role, then the bar: the band shows in the gutter only. */
static short pair_of(int r, bool band)
{
    if (th.depth == DEPTH_256)
        return (short)(1 + r * 2 + (band ? 1 : 0));
    return (short)(1 + r);
}

static short pair_selected(void)
{
    return th.depth == DEPTH_256 ? (short)(1 + ROLE_COUNT * 2) : (short)(1 + ROLE_COUNT);
}

/* The palette drawn: the 256-colour theme, or the 8-colour one of its kind. */
static const struct palette *current(void)
{
    if (th.palette < 0 || th.depth == DEPTH_MONO)
        return NULL;
    if (th.depth == DEPTH_256)
        return &palettes[th.palette];
    return &eight[palettes[th.palette].light ? 1 : 0];
}

static void init_pairs(void)
{
    const struct palette *p = current();
    if (!p) {
        bkgdset(' ');
        return;
    }
    for (int r = 0; r < ROLE_COUNT; r++) {
        const struct style *s = &p->roles[r];
        init_pair(pair_of(r, false), s->fg, s->bg >= 0 ? s->bg : p->bg);
        if (th.depth == DEPTH_256)
            init_pair(pair_of(r, true), s->fg, s->bg >= 0 ? s->bg : p->band_bg);
    }
    init_pair(pair_selected(), p->sel_fg, p->sel_bg);
    bkgdset(' ' | COLOR_PAIR(pair_of(ROLE_NORMAL, false)));
}

static int find_palette(const char *name)
{
    for (int i = 0; i < N_PALETTES; i++)
        if (strcmp(palettes[i].name, name) == 0)
            return i;
    return strcmp(name, "mono") == 0 ? -1 : -2;
}

bool theme_init(const char *name, bool colours)
{
    bool known = true;
    th.colours = colours && has_colors();
    th.palette = find_palette(name && *name ? name : "dark");
    if (th.palette == -2) {
        known = false;
        th.palette = 0;
    }
    th.depth = DEPTH_MONO;
    if (th.colours) {
        start_color();
        use_default_colors();
        if (COLORS >= 256 && COLOR_PAIRS > 1 + ROLE_COUNT * 2)
            th.depth = DEPTH_256;
        else if (COLORS >= 8 && COLOR_PAIRS > 1 + ROLE_COUNT)
            th.depth = DEPTH_8;
    }
    init_pairs();
    return known;
}

void theme_use(const char *name)
{
    int p = find_palette(name);
    if (p == -2 || !th.colours)
        return;
    th.palette = p;
    init_pairs();
}

bool theme_has_colour(void)
{
    return current() != NULL;
}

const char *theme_name(void)
{
    return th.palette >= 0 ? palettes[th.palette].name : "mono";
}

bool theme_known(const char *name)
{
    return name && find_palette(name) != -2;
}

const char *theme_for_background(enum theme_bg bg)
{
    return bg == THEME_BG_LIGHT ? "light" : "dark";
}

const char *theme_next(void)
{
    th.palette = th.palette + 1 >= N_PALETTES ? -1 : th.palette + 1;
    init_pairs();
    return theme_name();
}

attr_t theme_attr(enum role r, enum variant v)
{
    if ((int)r < 0 || r >= ROLE_COUNT)
        r = ROLE_NORMAL;
    bool gutterish = r == ROLE_GUTTER || r >= ROLE_STAGE0;
    const struct palette *p = current();
    if (p) {
        const struct style *s = &p->roles[r];
        if (v == VAR_SELECTED && !gutterish && r != ROLE_MATCH)
            return A_BOLD | COLOR_PAIR(pair_selected());
        if (v == VAR_BAND && gutterish)
            return s->attrs | A_BOLD | A_UNDERLINE | COLOR_PAIR(pair_of(r, false));
        return s->attrs | COLOR_PAIR(pair_of(r, v == VAR_BAND));
    }
    attr_t a = mono[r];
    if (v == VAR_SELECTED && !gutterish)
        a = (a & ~(attr_t)A_REVERSE) | A_REVERSE | A_BOLD;
    if (v == VAR_BAND && gutterish)
        a |= A_REVERSE | A_BOLD;
    return a;
}
