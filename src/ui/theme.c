/* theme.c: roles → curses attributes for each theme and colour depth (see theme.h). */
#include "sparkplan/theme.h"

#include <string.h>

struct style {
    short fg, bg;  /* -1 = terminal default */
    attr_t attrs;
};

struct palette {
    const char *name;
    struct style roles[ROLE_COUNT];
    short selected_bg, band_bg;
};

#define B A_BOLD
#define U A_UNDERLINE

/* 256-colour palettes.  Every entry names its role, so a missing one fails to compile
 * into the wrong place. */
static const struct palette palettes[] = {
    {"dark",
     {
         [ROLE_NORMAL] = {-1, -1, 0},        [ROLE_GUIDE] = {240, -1, 0},
         [ROLE_GLYPH] = {245, -1, 0},        [ROLE_MARKER] = {179, -1, B},
         [ROLE_HINT] = {244, -1, 0},         [ROLE_CUT] = {244, -1, B},
         [ROLE_SHUFFLE] = {203, -1, B},      [ROLE_SHUFFLE_DIM] = {131, -1, 0},
         [ROLE_BROADCAST] = {75, -1, B},     [ROLE_BROADCAST_DIM] = {67, -1, 0},
         [ROLE_JOIN] = {176, -1, 0},         [ROLE_SCAN] = {114, -1, 0},
         [ROLE_LABEL] = {180, -1, B},        [ROLE_MATCH] = {16, 220, 0},
         [ROLE_DIFF_ADDED] = {114, -1, B},   [ROLE_DIFF_REMOVED] = {203, -1, B},
         [ROLE_DIFF_CHANGED] = {179, -1, B}, [ROLE_DIFF_REPLACED] = {176, -1, B},
         [ROLE_DIFF_MOVED] = {75, -1, B},
         [ROLE_HEADER] = {252, 237, 0},      [ROLE_TAB] = {250, 237, 0},
         [ROLE_TAB_ACTIVE] = {16, 110, B},   [ROLE_SUMMARY] = {248, -1, 0},
         [ROLE_STATUS] = {252, 237, 0},      [ROLE_STATUS_STRONG] = {231, 237, B},
         [ROLE_ERROR] = {210, 237, B},       [ROLE_BORDER] = {240, -1, 0},
         [ROLE_TITLE] = {252, -1, B},        [ROLE_KEY] = {110, -1, 0},
         [ROLE_LINK] = {81, -1, U},          [ROLE_GUTTER] = {240, -1, 0},
         [ROLE_STAGE0 + 0] = {231, 24, 0},   [ROLE_STAGE0 + 1] = {231, 58, 0},
         [ROLE_STAGE0 + 2] = {231, 89, 0},   [ROLE_STAGE0 + 3] = {231, 22, 0},
         [ROLE_STAGE0 + 4] = {231, 94, 0},   [ROLE_STAGE0 + 5] = {231, 54, 0},
     },
     238, 235},
    {"light",
     {
         [ROLE_NORMAL] = {-1, -1, 0},        [ROLE_GUIDE] = {248, -1, 0},
         [ROLE_GLYPH] = {244, -1, 0},        [ROLE_MARKER] = {130, -1, B},
         [ROLE_HINT] = {244, -1, 0},         [ROLE_CUT] = {244, -1, B},
         [ROLE_SHUFFLE] = {160, -1, B},      [ROLE_SHUFFLE_DIM] = {174, -1, 0},
         [ROLE_BROADCAST] = {26, -1, B},     [ROLE_BROADCAST_DIM] = {68, -1, 0},
         [ROLE_JOIN] = {90, -1, 0},          [ROLE_SCAN] = {28, -1, 0},
         [ROLE_LABEL] = {94, -1, B},         [ROLE_MATCH] = {16, 226, 0},
         [ROLE_DIFF_ADDED] = {28, -1, B},    [ROLE_DIFF_REMOVED] = {160, -1, B},
         [ROLE_DIFF_CHANGED] = {130, -1, B}, [ROLE_DIFF_REPLACED] = {90, -1, B},
         [ROLE_DIFF_MOVED] = {26, -1, B},
         [ROLE_HEADER] = {16, 253, 0},       [ROLE_TAB] = {238, 253, 0},
         [ROLE_TAB_ACTIVE] = {231, 25, B},   [ROLE_SUMMARY] = {240, -1, 0},
         [ROLE_STATUS] = {16, 253, 0},       [ROLE_STATUS_STRONG] = {16, 253, B},
         [ROLE_ERROR] = {160, 253, B},       [ROLE_BORDER] = {248, -1, 0},
         [ROLE_TITLE] = {16, -1, B},         [ROLE_KEY] = {25, -1, 0},
         [ROLE_LINK] = {26, -1, U},          [ROLE_GUTTER] = {248, -1, 0},
         [ROLE_STAGE0 + 0] = {16, 153, 0},   [ROLE_STAGE0 + 1] = {16, 223, 0},
         [ROLE_STAGE0 + 2] = {16, 217, 0},   [ROLE_STAGE0 + 3] = {16, 194, 0},
         [ROLE_STAGE0 + 4] = {16, 230, 0},   [ROLE_STAGE0 + 5] = {16, 225, 0},
     },
     252, 255},
    /* For projectors: black on white, saturated colours, everything important bold. */
    {"projector",
     {
         [ROLE_NORMAL] = {16, 231, 0},       [ROLE_GUIDE] = {16, 231, 0},
         [ROLE_GLYPH] = {16, 231, B},        [ROLE_MARKER] = {166, 231, B},
         [ROLE_HINT] = {16, 231, 0},         [ROLE_CUT] = {16, 231, B},
         [ROLE_SHUFFLE] = {196, 231, B},     [ROLE_SHUFFLE_DIM] = {160, 231, 0},
         [ROLE_BROADCAST] = {21, 231, B},    [ROLE_BROADCAST_DIM] = {27, 231, 0},
         [ROLE_JOIN] = {127, 231, B},        [ROLE_SCAN] = {22, 231, B},
         [ROLE_LABEL] = {16, 231, B | U},    [ROLE_MATCH] = {16, 226, B},
         [ROLE_DIFF_ADDED] = {22, 231, B},   [ROLE_DIFF_REMOVED] = {196, 231, B},
         [ROLE_DIFF_CHANGED] = {166, 231, B}, [ROLE_DIFF_REPLACED] = {127, 231, B},
         [ROLE_DIFF_MOVED] = {21, 231, B},
         [ROLE_HEADER] = {231, 16, B},       [ROLE_TAB] = {231, 16, 0},
         [ROLE_TAB_ACTIVE] = {16, 226, B},   [ROLE_SUMMARY] = {16, 231, B},
         [ROLE_STATUS] = {231, 16, 0},       [ROLE_STATUS_STRONG] = {231, 16, B},
         [ROLE_ERROR] = {226, 16, B},        [ROLE_BORDER] = {16, 231, 0},
         [ROLE_TITLE] = {16, 231, B},        [ROLE_KEY] = {21, 231, B},
         [ROLE_LINK] = {21, 231, U | B},     [ROLE_GUTTER] = {16, 231, 0},
         [ROLE_STAGE0 + 0] = {16, 45, B},    [ROLE_STAGE0 + 1] = {16, 226, B},
         [ROLE_STAGE0 + 2] = {16, 213, B},   [ROLE_STAGE0 + 3] = {16, 118, B},
         [ROLE_STAGE0 + 4] = {16, 214, B},   [ROLE_STAGE0 + 5] = {16, 159, B},
     },
     228, 195},
};

/* 8 colours: one palette for all themes; the selection is reverse video and the stage
 * highlight shows in the gutter only. */
static const struct style eight[ROLE_COUNT] = {
    [ROLE_NORMAL] = {-1, -1, 0},
    [ROLE_GUIDE] = {-1, -1, A_DIM},
    [ROLE_GLYPH] = {-1, -1, 0},
    [ROLE_MARKER] = {COLOR_YELLOW, -1, B},
    [ROLE_HINT] = {-1, -1, A_DIM},
    [ROLE_CUT] = {-1, -1, B},
    [ROLE_SHUFFLE] = {COLOR_RED, -1, B},
    [ROLE_SHUFFLE_DIM] = {COLOR_RED, -1, 0},
    [ROLE_BROADCAST] = {COLOR_CYAN, -1, B},
    [ROLE_BROADCAST_DIM] = {COLOR_CYAN, -1, 0},
    [ROLE_JOIN] = {COLOR_MAGENTA, -1, 0},
    [ROLE_SCAN] = {COLOR_GREEN, -1, 0},
    [ROLE_LABEL] = {COLOR_YELLOW, -1, B},
    [ROLE_MATCH] = {COLOR_BLACK, COLOR_YELLOW, 0},
    [ROLE_DIFF_ADDED] = {COLOR_GREEN, -1, B},
    [ROLE_DIFF_REMOVED] = {COLOR_RED, -1, B},
    [ROLE_DIFF_CHANGED] = {COLOR_YELLOW, -1, B},
    [ROLE_DIFF_REPLACED] = {COLOR_MAGENTA, -1, B},
    [ROLE_DIFF_MOVED] = {COLOR_BLUE, -1, B},
    [ROLE_HEADER] = {COLOR_WHITE, COLOR_BLUE, 0},
    [ROLE_TAB] = {COLOR_WHITE, COLOR_BLUE, 0},
    [ROLE_TAB_ACTIVE] = {COLOR_BLACK, COLOR_CYAN, B},
    [ROLE_SUMMARY] = {-1, -1, 0},
    [ROLE_STATUS] = {COLOR_WHITE, COLOR_BLUE, 0},
    [ROLE_STATUS_STRONG] = {COLOR_WHITE, COLOR_BLUE, B},
    [ROLE_ERROR] = {COLOR_WHITE, COLOR_RED, B},
    [ROLE_BORDER] = {-1, -1, 0},
    [ROLE_TITLE] = {-1, -1, B},
    [ROLE_KEY] = {COLOR_CYAN, -1, 0},
    [ROLE_LINK] = {COLOR_CYAN, -1, U},
    [ROLE_GUTTER] = {-1, -1, 0},
    [ROLE_STAGE0 + 0] = {COLOR_WHITE, COLOR_BLUE, 0},
    [ROLE_STAGE0 + 1] = {COLOR_BLACK, COLOR_YELLOW, 0},
    [ROLE_STAGE0 + 2] = {COLOR_WHITE, COLOR_MAGENTA, 0},
    [ROLE_STAGE0 + 3] = {COLOR_BLACK, COLOR_GREEN, 0},
    [ROLE_STAGE0 + 4] = {COLOR_BLACK, COLOR_CYAN, 0},
    [ROLE_STAGE0 + 5] = {COLOR_WHITE, COLOR_RED, 0},
};

/* No colour: attributes carry the distinctions (Exchange bold, BroadcastExchange bold and
 * underlined, reused and query stages dim, joins underlined, scans italic). */
static const attr_t mono[ROLE_COUNT] = {
    [ROLE_NORMAL] = 0,
    [ROLE_GUIDE] = 0,
    [ROLE_GLYPH] = 0,
    [ROLE_MARKER] = B,
    [ROLE_HINT] = A_DIM,
    [ROLE_CUT] = B,
    [ROLE_SHUFFLE] = B,
    [ROLE_SHUFFLE_DIM] = A_DIM,
    [ROLE_BROADCAST] = B | U,
    [ROLE_BROADCAST_DIM] = A_DIM | U,
    [ROLE_JOIN] = U,
    [ROLE_SCAN] = A_ITALIC,
    [ROLE_LABEL] = B,
    [ROLE_MATCH] = A_STANDOUT,
    [ROLE_DIFF_ADDED] = B,
    [ROLE_DIFF_REMOVED] = A_DIM,
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

static struct {
    enum depth depth;
    int palette;        /* index in palettes; -1 = mono theme */
    bool colours;       /* colours allowed at all */
} th;

static bool has_own_bg(const struct style *s)
{
    return s->bg != -1;
}

static void init_pairs(void)
{
    if (th.depth == DEPTH_256 && th.palette >= 0) {
        const struct palette *p = &palettes[th.palette];
        for (int r = 0; r < ROLE_COUNT; r++) {
            const struct style *s = &p->roles[r];
            for (int v = 0; v < VAR_COUNT; v++) {
                short bg = s->bg;
                if (!has_own_bg(s) || r < ROLE_HEADER || r == ROLE_GUTTER) {
                    if (v == VAR_SELECTED)
                        bg = p->selected_bg;
                    else if (v == VAR_BAND)
                        bg = p->band_bg;
                }
                if (r >= ROLE_STAGE0 || r == ROLE_MATCH)
                    bg = s->bg; /* tints keep their colour; band shows as bold */
                init_pair((short)(1 + r * VAR_COUNT + v), s->fg, bg);
            }
        }
    } else if (th.depth != DEPTH_MONO && th.palette >= 0) {
        for (int r = 0; r < ROLE_COUNT; r++)
            init_pair((short)(1 + r), eight[r].fg, eight[r].bg);
    }
}

static int find_palette(const char *name)
{
    for (size_t i = 0; i < sizeof palettes / sizeof palettes[0]; i++)
        if (strcmp(palettes[i].name, name) == 0)
            return (int)i;
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
        if (COLORS >= 256 && COLOR_PAIRS > 1 + ROLE_COUNT * VAR_COUNT)
            th.depth = DEPTH_256;
        else if (COLORS >= 8 && COLOR_PAIRS > ROLE_COUNT)
            th.depth = DEPTH_8;
    }
    init_pairs();
    return known;
}

bool theme_has_colour(void)
{
    return th.depth != DEPTH_MONO && th.palette >= 0;
}

const char *theme_name(void)
{
    return th.palette >= 0 ? palettes[th.palette].name : "mono";
}

const char *theme_next(void)
{
    int n = (int)(sizeof palettes / sizeof palettes[0]);
    th.palette = th.palette + 1 >= n ? -1 : th.palette + 1;
    init_pairs();
    return theme_name();
}

attr_t theme_attr(enum role r, enum variant v)
{
    if ((int)r < 0 || r >= ROLE_COUNT)
        r = ROLE_NORMAL;
    bool gutterish = r == ROLE_GUTTER || r >= ROLE_STAGE0;
    if (th.depth == DEPTH_256 && th.palette >= 0) {
        const struct style *s = &palettes[th.palette].roles[r];
        attr_t a = s->attrs | COLOR_PAIR(1 + r * VAR_COUNT + v);
        if (v == VAR_BAND && gutterish)
            a |= A_BOLD | A_UNDERLINE;
        return a;
    }
    attr_t a;
    if (th.depth == DEPTH_8 && th.palette >= 0)
        a = eight[r].attrs | COLOR_PAIR(1 + r);
    else
        a = mono[r];
    if (v == VAR_SELECTED && !gutterish)
        a |= A_REVERSE;
    if (v == VAR_BAND && gutterish)
        a |= A_REVERSE | A_BOLD;
    return a;
}
