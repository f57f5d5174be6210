/* settings.c: the config file in the explorer (see settings.h). */
#include "sparkplan/settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/input.h"
#include "sparkplan/term.h"
#include "sparkplan/theme.h"
#include "sparkplan/tui.h"
#include "sparkplan/ui.h"

static struct {
    struct config cfg;
    char path[1024];
    bool has_path;
    bool follow_terminal;         /* nothing chose the theme: the terminal's answer may */
} S;

void settings_load(struct tui *t)
{
    memset(&S.cfg, 0, sizeof S.cfg);
    S.has_path = config_path(S.path, sizeof S.path);
    if (S.has_path)
        config_load(&S.cfg, S.path);
    if (S.cfg.msg[0])
        ws_message(&t->ws, true, "%s", S.cfg.msg);
}

const struct config *settings(void)
{
    return &S.cfg;
}

const char *settings_theme(struct tui *t, const struct ui_options *opts, const char **why)
{
    if (opts && opts->theme) {
        *why = "--theme";
        return opts->theme;
    }
    const char *env = getenv("SPARKPLAN_THEME");
    if (env && *env) {
        if (theme_known(env)) {
            *why = "SPARKPLAN_THEME";
            return env;
        }
        ws_message(&t->ws, true, "SPARKPLAN_THEME: unknown theme '%.40s' (dark, light, "
                             "projector, mono)", env);
    }
    if (S.cfg.has_theme) {
        *why = "config";
        return S.cfg.theme;
    }
    int bg = term_background();
    *why = bg == THEME_BG_UNKNOWN ? "default" : "terminal background";
    S.follow_terminal = bg == THEME_BG_UNKNOWN;
    return theme_for_background((enum theme_bg)bg);
}

void settings_ask_terminal(void)
{
    if (S.follow_terminal && !term_ask_background())
        S.follow_terminal = false;
}

int settings_terminal_answer(struct tui *t)
{
    (void)t;
    int bg = input_take_background();
    if (bg == THEME_BG_UNKNOWN || !S.follow_terminal)
        return RE_NONE;
    S.follow_terminal = false;
    const char *name = theme_for_background((enum theme_bg)bg);
    if (strcmp(name, theme_name()) == 0)
        return RE_NONE;
    theme_use(name);
    return RE_DRAW | RE_FULL;
}

void settings_theme_chosen(void)
{
    S.follow_terminal = false;
}

void settings_save(struct tui *t, const char *key, const char *value)
{
    char err[256];
    if (S.has_path && !config_save(S.path, key, value, err, sizeof err))
        ws_message(&t->ws, true, "cannot keep %s: %s", key, err);
}

int settings_split_key(struct tui *t, enum key_action a)
{
    if (a == KA_ZOOM) {
        t->zoom = !t->zoom;
        ws_message(&t->ws, false, "%s", t->zoom ? "zoom: one pane (z again: both)" : "zoom off");
        return RE_DRAW | RE_LAYOUT | RE_FULL;
    }
    int pct = tui_split(t, ws_tab(&t->ws)) + (a == KA_GROW ? 5 : -5);
    pct = pct < CONFIG_SPLIT_MIN ? CONFIG_SPLIT_MIN : pct > CONFIG_SPLIT_MAX ? CONFIG_SPLIT_MAX : pct;
    t->split_pct = pct;
    t->zoom = false;
    char v[16];
    snprintf(v, sizeof v, "%d", pct);
    ws_message(&t->ws, false, "tree %d%%, details %d%%", pct, 100 - pct);
    settings_save(t, "split", v);
    return RE_DRAW | RE_LAYOUT | RE_FULL;
}
