/* config: the settings people keep, in $XDG_CONFIG_HOME/sparkplan/config (else
 * ~/.config/sparkplan/config), a small `key = value` file:
 *
 *     # comments (also after a value) and blank lines are ignored
 *     theme = projector        dark, light, projector, mono
 *     split = 60               percent of the body the tree takes (20-80)
 *     ascii = yes              ASCII tree guides (yes/no, on/off, true/false, 1/0)
 *     explain = on             operator explanations beside the details
 *
 * A bad line (no `=`, an unknown key, a bad value) is ignored and described in msg with
 * its line number; the other lines still count.  Saving changes one key's line in place
 * (or appends it), keeping the user's comments and order.
 * Owns nothing beyond the struct; no curses, no allocation kept.
 */
#ifndef SPARKPLAN_CONFIG_H
#define SPARKPLAN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_SPLIT_MIN 20
#define CONFIG_SPLIT_MAX 80

struct config {
    bool has_theme, has_split, has_ascii, has_explain;
    char theme[16];
    int split;             /* percent of the body the tree takes */
    bool ascii, explain;
    char msg[256];         /* the first problem ("config line 3: unknown key 'x'"), or "" */
    unsigned n_problems;
};

/* The config file's path (from XDG_CONFIG_HOME, else HOME); false when neither is set. */
bool config_path(char *buf, size_t cap);
/* Reads settings from text (name: the file's name for messages). */
void config_parse(struct config *c, const char *text, size_t len, const char *name);
/* Reads the file at path into c (zeroed first); a missing file is no problem. */
void config_load(struct config *c, const char *path);
/* Sets key to value in the file at path (created with its folder when missing): the key's
 * line is replaced, or a line appended.  false and err on failure. */
bool config_save(const char *path, const char *key, const char *value, char *err,
                 size_t errcap);

#endif
