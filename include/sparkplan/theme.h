/* theme: what each kind of thing on screen looks like, per theme and per terminal.
 *
 * Views ask for a role (an Exchange's text, a guide, the status line) in a variant
 * (plain, on the selected row, inside the highlighted codegen stage) and get curses
 * attributes with a colour pair.  Themes: dark, light, projector (high contrast), mono.
 * Each colour theme sets foreground and background of every cell (the terminal's own
 * colours never show through), with WCAG contrast >= 4.5:1 (7:1 in projector); the
 * selected row is one bold bar.  With 256 colours each theme has its palette; with 8
 * colours one on black and one on white; with none (NO_COLOR, --no-color, TERM=vt100)
 * bold, underline, italic and reverse carry the same distinctions.
 * Owns: the colour pairs it initialises.  Call theme_init after curses started.
 */
#ifndef SPARKPLAN_THEME_H
#define SPARKPLAN_THEME_H

#include <curses.h>
#include <stdbool.h>

#define THEME_STAGE_TINTS 6

enum role {
    ROLE_NORMAL,
    ROLE_GUIDE,        /* tree guides │ ├ └ */
    ROLE_GLYPH,        /* ▸ ▾ ─ */
    ROLE_MARKER,       /* [+12] hidden-node count */
    ROLE_HINT,         /* …(depth 12345) */
    ROLE_CUT,          /* … where a line was cut */
    ROLE_SHUFFLE,
    ROLE_SHUFFLE_DIM,  /* reused exchange, AQE ShuffleQueryStage */
    ROLE_BROADCAST,
    ROLE_BROADCAST_DIM,
    ROLE_JOIN,
    ROLE_SCAN,
    ROLE_LABEL,        /* == Final Plan == */
    ROLE_MATCH,        /* search match inside a row; a differing word in the diff */
    ROLE_DIFF_ADDED,   /* the diff's marks: + */
    ROLE_DIFF_REMOVED, /* - */
    ROLE_DIFF_CHANGED, /* ~ */
    ROLE_DIFF_REPLACED,/* replaced */
    ROLE_DIFF_MOVED,   /* moved */
    ROLE_HEADER,
    ROLE_TAB,
    ROLE_TAB_ACTIVE,
    ROLE_SUMMARY,
    ROLE_STATUS,
    ROLE_STATUS_STRONG,
    ROLE_ERROR,
    ROLE_BORDER,
    ROLE_TITLE,        /* details and overlay titles */
    ROLE_KEY,          /* details field names, key names in help */
    ROLE_LINK,         /* a node reference in the details */
    ROLE_GUTTER,       /* the stage gutter where there is no stage */
    ROLE_STAGE0,       /* stage tints: ROLE_STAGE0 + stage % THEME_STAGE_TINTS */
    ROLE_COUNT = ROLE_STAGE0 + THEME_STAGE_TINTS
};

enum variant { VAR_PLAIN, VAR_SELECTED, VAR_BAND, VAR_COUNT };

/* name: "dark", "light", "projector", "mono" (NULL = dark).  colours false forces mono
 * attributes.  Returns false for an unknown name (then dark is used). */
bool theme_init(const char *name, bool colours);
attr_t theme_attr(enum role r, enum variant v);
/* True when the terminal draws colours (false: attributes only). */
bool theme_has_colour(void);
/* The theme that suits a terminal background (dark when unknown). */
enum theme_bg { THEME_BG_UNKNOWN, THEME_BG_DARK, THEME_BG_LIGHT };
const char *theme_for_background(enum theme_bg bg);
bool theme_known(const char *name);
/* Switch to a known theme (the terminal's answer came after the first frame); the caller
 * redraws all.  Nothing changes without colours. */
void theme_use(const char *name);
/* Cycle to the next theme (the T key); returns its name. */
const char *theme_next(void);
const char *theme_name(void);

#endif
