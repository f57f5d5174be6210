/* settings: the explorer's side of the config file (config.h) — which theme to start
 * with, the kept split and options, and saving what people change (T, i, the split keys).
 *
 * The theme: --theme, else SPARKPLAN_THEME, else the config file's, else the one that
 * suits the terminal's background (COLORFGBG or an OSC 11 answer; dark when unknown, and
 * until the answer comes: the first frame never waits for it).
 * Owns the config read at start and its path (static: one explorer per process).
 * Never: draws; a save that fails says so in the status message.
 */
#ifndef SPARKPLAN_SETTINGS_H
#define SPARKPLAN_SETTINGS_H

#include <stdbool.h>

#include "sparkplan/config.h"
#include "sparkplan/keys.h"

struct tui;
struct ui_options;

/* Reads the config file (its problems go to the status message). */
void settings_load(struct tui *t);
const struct config *settings(void);
/* The theme to start with and where it came from ("--theme", "SPARKPLAN_THEME",
 * "config", "terminal background" (COLORFGBG), "default"); term_open must have run.
 * "default" (dark) is drawn at once: settings_ask_terminal (once curses runs) asks the
 * terminal its background, and settings_terminal_answer applies the answer when it comes,
 * unless T chose a theme meanwhile (settings_theme_chosen). */
const char *settings_theme(struct tui *t, const struct ui_options *opts, const char **why);
void settings_ask_terminal(void);
/* The terminal's answer, if one came since the last call: the theme it suits, when the
 * theme still follows the terminal; the reaction (a full redraw when the theme changed). */
int settings_terminal_answer(struct tui *t);
void settings_theme_chosen(void);
/* z + -: zoom the focused pane, grow or shrink the tree (kept as split); reactions. */
int settings_split_key(struct tui *t, enum key_action a);
/* Keeps key = value in the config file (T, i, the split keys). */
void settings_save(struct tui *t, const char *key, const char *value);

#endif
