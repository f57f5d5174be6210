/* The explorer's look on any terminal: contrast of every cell it draws, in every theme, on
 * a black and on a white terminal; the theme chosen from the terminal, the environment and
 * the config file; the settings kept.
 *
 * The terminal's own colours really vary: each tmux server is started with a
 * window-style that sets its default foreground and background (tmux answers the OSC 11
 * background query from it, as a real light or dark terminal would).  Contrast is
 * computed from the escape sequences the program wrote (capture-pane -e), with the
 * xterm-256 palette mapped to RGB here and the terminal's default colours for cells that
 * leave them unset.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pollwait.h"
#include "testutil.h"
#include "tmuxterm.h"

static const char plan[] =
    "== Physical Plan ==\n"
    "* Project (7)\n"
    "+- * BroadcastHashJoin Inner BuildRight (6)\n"
    "   :- * HashAggregate (4)\n"
    "   :  +- Exchange (3)\n"
    "   :     +- * Filter (2)\n"
    "   :        +- Scan parquet default.sales (1)\n"
    "   +- BroadcastExchange (5)\n"
    "      +- ReusedExchange (8)\n"
    "\n\n"
    "(1) Scan parquet default.sales\n"
    "Output [2]: [item#1, amount#2]\n"
    "Location: InMemoryFileIndex [file:/data/sales]\n"
    "\n"
    "(2) Filter [codegen id : 1]\n"
    "Input [2]: [item#1, amount#2]\n"
    "Condition : isnotnull(item#1)\n"
    "\n"
    "(3) Exchange\n"
    "Input [2]: [item#1, amount#2]\n"
    "Arguments: hashpartitioning(item#1, 200), ENSURE_REQUIREMENTS, [plan_id=1]\n"
    "\n"
    "(4) HashAggregate [codegen id : 2]\n"
    "Input [2]: [item#1, amount#2]\n"
    "Keys [1]: [item#1]\n"
    "\n"
    "(5) BroadcastExchange\n"
    "Input [1]: [item#3]\n"
    "\n"
    "(6) BroadcastHashJoin [codegen id : 2]\n"
    "Left keys [1]: [item#1]\n"
    "Right keys [1]: [item#3]\n"
    "Join type: Inner\n"
    "Join condition: None\n"
    "\n"
    "(7) Project [codegen id : 2]\n"
    "Output [1]: [item#1]\n"
    "\n"
    "(8) ReusedExchange [Reuses operator id: 3]\n"
    "Output [1]: [item#3]\n";

/* ---- colours and contrast ------------------------------------------------------------- */

struct rgb {
    int r, g, b;
};

/* xterm's 256-colour palette. */
static struct rgb xterm(int i)
{
    static const struct rgb base[16] = {
        {0, 0, 0},     {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
        {0, 0, 238},   {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
        {127, 127, 127}, {255, 0, 0}, {0, 255, 0},   {255, 255, 0},
        {92, 92, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255}};
    if (i < 16)
        return base[i];
    if (i < 232) {
        static const int level[6] = {0, 95, 135, 175, 215, 255};
        i -= 16;
        return (struct rgb){level[i / 36], level[i / 6 % 6], level[i % 6]};
    }
    int v = 8 + 10 * (i - 232);
    return (struct rgb){v, v, v};
}

static double linear(int c)
{
    double x = c / 255.0;
    return x <= 0.03928 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
}

static double luminance(struct rgb c)
{
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

/* WCAG contrast ratio. */
static double contrast(struct rgb a, struct rgb b)
{
    double la = luminance(a), lb = luminance(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

/* The terminal's own colours (its window-style). */
struct terminal {
    const char *conf;      /* the tmux configuration file that sets them */
    struct rgb fg, bg;
};

static const struct terminal black = {"black.conf", {255, 255, 255}, {0, 0, 0}};
static const struct terminal white = {"white.conf", {0, 0, 0}, {255, 255, 255}};

struct cell_state {
    int fg, bg;            /* palette index, -1: the terminal's default */
    bool reverse, dim;
    bool bold, underline;
};

/* One SGR sequence's numbers (after ESC [, up to m). */
static const char *apply_sgr(const char *p, struct cell_state *s)
{
    int v[16], n = 0;
    while (*p && *p != 'm' && n < 16) {
        v[n++] = (int)strtol(p, (char **)&p, 10);
        if (*p == ';')
            p++;
    }
    if (n == 0)
        v[n++] = 0;
    for (int i = 0; i < n; i++) {
        int c = v[i];
        if (c == 0)
            *s = (struct cell_state){-1, -1, false, false, false, false};
        else if (c == 1)
            s->bold = true;
        else if (c == 2)
            s->dim = true;
        else if (c == 22)
            s->dim = s->bold = false;
        else if (c == 4)
            s->underline = true;
        else if (c == 24)
            s->underline = false;
        else if (c == 7)
            s->reverse = true;
        else if (c == 27)
            s->reverse = false;
        else if (c >= 30 && c <= 37)
            s->fg = c - 30;
        else if (c >= 90 && c <= 97)
            s->fg = c - 90 + 8;
        else if (c == 39)
            s->fg = -1;
        else if (c >= 40 && c <= 47)
            s->bg = c - 40;
        else if (c >= 100 && c <= 107)
            s->bg = c - 100 + 8;
        else if (c == 49)
            s->bg = -1;
        else if ((c == 38 || c == 48) && i + 2 < n && v[i + 1] == 5) {
            *(c == 38 ? &s->fg : &s->bg) = v[i + 2];
            i += 2;
        }
    }
    return *p == 'm' ? p + 1 : p;
}

struct verdict {
    double worst;
    char where[200];
    int half_set;          /* cells with a foreground but no background, or the reverse */
    char half_where[200];
};

/* Every visible character of a capture (-e): its contrast against its background, the
 * terminal's defaults where the program left a colour unset. */
static struct verdict judge(const char *screen, const struct terminal *term)
{
    struct verdict v = {100.0, "", 0, ""};
    struct cell_state s = {-1, -1, false, false, false, false};
    int row = 0, col = 0;
    for (const char *p = screen; *p;) {
        if (p[0] == '\x1b' && p[1] == '[') {
            p = apply_sgr(p + 2, &s);
            continue;
        }
        if (*p == '\n') {
            row++, col = 0, p++;
            continue;
        }
        unsigned char c = (unsigned char)*p;
        size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (c != ' ') {
            struct rgb fg = s.fg < 0 ? term->fg : xterm(s.fg);
            struct rgb bg = s.bg < 0 ? term->bg : xterm(s.bg);
            double k = contrast(fg, bg) * (s.dim ? 0.5 : 1.0);
            if (k < v.worst) {
                v.worst = k;
                snprintf(v.where, sizeof v.where, "row %d col %d '%.*s' fg %d bg %d%s%s",
                         row, col, (int)len, p, s.fg, s.bg, s.reverse ? " reverse" : "",
                         s.dim ? " dim" : "");
            }
            if ((s.fg < 0) != (s.bg < 0) && v.half_set++ == 0)
                snprintf(v.half_where, sizeof v.half_where, "row %d col %d '%.*s' fg %d bg %d",
                         row, col, (int)len, p, s.fg, s.bg);
        }
        p += len;
        col++;
    }
    return v;
}

static void assert_legible(struct tmx *x, const struct terminal *term, const char *theme,
                           const char *what, double need)
{
    char *screen = tmx_capture(x, true);
    struct verdict v = judge(screen, term);
    ck_assert_msg(v.worst >= need, "%s on %s, %s: contrast %.2f < %.1f at %s", theme,
                  term->conf, what, v.worst, need, v.where);
    ck_assert_msg(v.half_set == 0, "%s on %s, %s: %d cells set only one colour, first %s",
                  theme, term->conf, what, v.half_set, v.half_where);
    free(screen);
}

/* ---- fixtures ------------------------------------------------------------------------- */

static bool skip_test(void)
{
    return !tmx_ready();
}

static void suite_setup(void)
{
    if (!tmx_setup("look"))
        return;
    tmx_write_file("plan.txt", plan);
    static const char common[] = "set -g remain-on-exit on\nset -g status off\n"
                                 "set -g default-terminal xterm-256color\n";
    char conf[512];
    snprintf(conf, sizeof conf, "%sset -g window-style 'fg=#ffffff,bg=#000000'\n", common);
    tmx_write_file("black.conf", conf);
    snprintf(conf, sizeof conf, "%sset -g window-style 'fg=#000000,bg=#ffffff'\n", common);
    tmx_write_file("white.conf", conf);
}

static void suite_teardown(void)
{
    tmx_teardown();
}

/* ---- the tests ------------------------------------------------------------------------ */

static void screens_are_legible(const char *theme, const struct terminal *term)
{
    struct tmx x;
    char args[64];
    snprintf(args, sizeof args, "--theme %s plan.txt", theme);
    char name[64];
    snprintf(name, sizeof name, "legible-%s-%.5s", theme, term->conf);
    tmx_start_conf(&x, term->conf, name, 100, 30, "", args);
    bool projector = strcmp(theme, "projector") == 0;
    double need = projector ? 7.0 : 4.5;
    tmx_wait_for(&x, "Exchange (3)");
    tmx_keys(&x, "j j"); /* HashAggregate (4): its stage is highlighted */
    tmx_wait_for(&x, " HashAggregate (4)");
    assert_legible(&x, term, theme, "the tree", need);
    tmx_keys(&x, "Enter"); /* the details focused, a line selected */
    tmx_wait_for(&x, "Esc: back to the tree");
    assert_legible(&x, term, theme, "the details", need);
    tmx_keys(&x, "Escape");
    free(tmx_wait_screen(&x, "Esc: back to the tree", false, true));
    tmx_keys(&x, "?");
    tmx_wait_for(&x, "go to the first row");
    assert_legible(&x, term, theme, "the help", need);
    tmx_keys(&x, "Tab"); /* the legend: a sample of every colour role */
    tmx_wait_for(&x, "Marks and glyphs");
    assert_legible(&x, term, theme, "the legend", need);
    tmx_keys(&x, "q w"); /* the guided walk's current step */
    tmx_wait_for(&x, "walk 1/");
    assert_legible(&x, term, theme, "the walk", need);
    tmx_stop(&x);
}

START_TEST(every_theme_is_legible_on_black_and_on_white)
{
    if (skip_test())
        return;
    static const char *const themes[] = {"dark", "light", "projector", "mono"};
    for (size_t i = 0; i < 4; i++) {
        screens_are_legible(themes[i], &black);
        screens_are_legible(themes[i], &white);
    }
}
END_TEST


/* The header's background says which theme was chosen: dark 237, light 253, projector 16. */
#define DARK_HEADER "48;5;237m"
#define LIGHT_HEADER "48;5;253m"
#define PROJECTOR_HEADER "48;5;16m"

static void expect_theme(const struct terminal *term, const char *name, const char *env,
                         const char *args, const char *header)
{
    struct tmx x;
    tmx_start_conf(&x, term->conf, name, 100, 30, env, args);
    TMX_EXPECT(&x, true, SHOWS("Exchange (3)"), LINE_SHOWS(0, header));
    char *plain = tmx_capture(&x, false);
    ck_assert_msg(!strstr(plain, "rgb:") && !strstr(plain, "11;"),
                  "the background query's answer shows:\n%s", plain);
    free(plain);
    tmx_keys(&x, "j"); /* the first key works: nothing of the answer is left as keys */
    tmx_wait_for(&x, " BroadcastHashJoin (6)");
    tmx_stop(&x);
}

START_TEST(the_theme_follows_the_terminal_then_the_environment_then_the_option)
{
    if (skip_test())
        return;
    /* The OSC 11 answer (tmux's window-style). */
    expect_theme(&white, "detect-white", "", "plan.txt", LIGHT_HEADER);
    expect_theme(&black, "detect-black", "", "plan.txt", DARK_HEADER);
    /* COLORFGBG before the query; SPARKPLAN_THEME before both; --theme before all. */
    expect_theme(&black, "colorfgbg", "COLORFGBG=0\\;15", "plan.txt", LIGHT_HEADER);
    expect_theme(&white, "env", "SPARKPLAN_THEME=projector", "plan.txt", PROJECTOR_HEADER);
    expect_theme(&white, "option", "SPARKPLAN_THEME=projector", "--theme dark plan.txt",
                 DARK_HEADER);
}
END_TEST

START_TEST(the_config_file_sets_the_theme_and_keeps_what_t_and_i_change)
{
    if (skip_test())
        return;
    char dir[256];
    snprintf(dir, sizeof dir, "%s/xdg-config/sparkplan", tmx_dir());
    free(tmx_sh("mkdir -p %s", dir));
    tmx_write_file("xdg-config/sparkplan/config", "# kept\ntheme = projector\nsplit = 500\n");
    struct tmx x;
    tmx_start_conf(&x, white.conf, "config", 100, 30, "", "plan.txt");
    TMX_EXPECT(&x, true, SHOWS("Exchange (3)"), LINE_SHOWS(0, PROJECTOR_HEADER));
    tmx_wait_for(&x, "config line 3: bad value '500' (ignored)");
    tmx_keys(&x, "T"); /* projector -> mono, kept */
    tmx_wait_for(&x, "theme: mono");
    tmx_keys(&x, "i");
    tmx_wait_for(&x, "operator explanations on");
    tmx_stop(&x);
    char path[300];
    snprintf(path, sizeof path, "%s/config", dir);
    size_t len;
    char *text = tu_read_file(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "# kept\ntheme = mono\nsplit = 500\nexplain = on\n");
    free(text);
}
END_TEST

START_TEST(the_cursor_row_needs_no_colour)
{
    if (skip_test())
        return;
    struct tmx x;
    tmx_start_conf(&x, white.conf, "mono-cursor", 100, 30, "", "--theme mono plan.txt");
    /* bold reverse: tmux writes it as 1;7 or 7;1 */
    char *s = TMX_WAIT(&x, true, SHOWS("Exchange (3)"), LACKS("38;5;"));
    char *row = pw_line(s, "Project (7)");
    ck_assert_msg(strstr(row, "\x1b[1;7m") || strstr(row, "\x1b[7;1m"),
                  "the cursor row is not bold reverse: %s", row);
    free(row), free(s);
    tmx_stop(&x);
}
END_TEST

START_TEST(eight_colours_keep_stage_tints_apart_from_exchanges)
{
    if (skip_test())
        return;
    tmx_write_file("stages.txt", "== Physical Plan ==\n"
                                 "*(5) Project [a#1]\n"
                                 "+- Exchange hashpartitioning(a#1, 200)\n"
                                 "   +- *(1) Filter (a#1 > 0)\n"
                                 "      +- FileScan parquet t[a#1]\n");
    struct tmx x;
    tmx_start_conf(&x, black.conf, "eight", 100, 30, "TERM=xterm", "stages.txt");
    /* The Exchange is red; stage 5's gutter is not. */
    TMX_EXPECT(&x, true, ROW_SHOWS("Exchange hashpartitioning", "31m"),
               ROW_SHOWS("Project [a#1]", "  5"), ROW_LACKS("Project [a#1]", "41m"),
               ROW_LACKS("Project [a#1]", "31m"), LACKS("38;5;"));
    tmx_stop(&x);
}
END_TEST

/* The style of the first visible character of the capture line whose text contains
 * `text` (a legend line: its sample comes first, in its role). */
static bool legend_sample_style(const char *screen, const char *text, struct cell_state *out)
{
    for (const char *line = screen; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char vis[512];
        size_t nv = 0;
        struct cell_state st = {-1, -1, false, false, false, false}, first = st;
        bool have_first = false;
        for (size_t i = 0; i < len;) {
            if (line[i] == '\033' && i + 1 < len && line[i + 1] == '[') {
                const char *q = apply_sgr(line + i + 2, &st);
                i = (size_t)(q - line);
                continue;
            }
            /* The overlay's frame (│, or | in ASCII) is not the sample. */
            bool frame = (unsigned char)line[i] == 0xE2 && i + 2 < len &&
                         ((unsigned char)line[i + 1] == 0x94 ||
                          (unsigned char)line[i + 1] == 0x95);
            if (frame) {
                i += 3;
                if (nv + 1 < sizeof vis)
                    vis[nv++] = ' ';
                continue;
            }
            if (!have_first && line[i] != ' ' && line[i] != '|') {
                first = st;
                have_first = true;
            }
            if (nv + 1 < sizeof vis)
                vis[nv++] = line[i];
            i++;
        }
        vis[nv] = '\0';
        if (strstr(vis, text) && have_first) {
            *out = first;
            return true;
        }
        line = end ? end + 1 : line + len;
    }
    return false;
}

/* On 8 colours, every role that means something looks different from every other: the
 * legend draws one sample of each in its role. */
static void eight_colour_roles_are_apart(const struct terminal *term, const char *theme)
{
    static const char *const meanings[] = {
        "a shuffle",
        "a reused shuffle, an AQE query stage",
        "a broadcast",
        "a reused broadcast, an AQE stage",
        "a join",
        "a scan",
        "an AQE label",
        "a search match",
        "a details field",
        "a reference Enter follows",
        "a folded node hiding 6 nodes",
        "the node has a warning",
        "plan diff: a node only the second plan has",
        "plan diff: a node only the first plan has",
        "plan diff: the same operator with other fields",
        "plan diff: another operator in its place",
        "plan diff: the same subtree somewhere else",
    };
    enum { N = sizeof meanings / sizeof meanings[0] };
    struct tmx x;
    char args[64], name[64];
    snprintf(args, sizeof args, "--theme %s plan.txt", theme);
    snprintf(name, sizeof name, "eight-%s", theme);
    tmx_start_conf(&x, term->conf, name, 140, 50, "TERM=xterm", args);
    tmx_wait_for(&x, "Exchange (3)");
    tmx_keys(&x, "? Tab");
    char *screen = tmx_wait_screen(&x, "Marks and glyphs", true, false);
    struct cell_state st[N];
    for (int i = 0; i < N; i++)
        ck_assert_msg(legend_sample_style(screen, meanings[i], &st[i]),
                      "%s: no legend line '%s'", theme, meanings[i]);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            ck_assert_msg(memcmp(&st[i], &st[j], sizeof st[i]) != 0,
                          "%s on 8 colours: '%s' and '%s' look the same (fg %d bg %d%s%s)",
                          theme, meanings[i], meanings[j], st[i].fg, st[i].bg,
                          st[i].bold ? " bold" : "", st[i].underline ? " underlined" : "");
    free(screen);
    tmx_stop(&x);
}

START_TEST(eight_colours_give_every_meaning_its_own_look)
{
    if (skip_test())
        return;
    eight_colour_roles_are_apart(&black, "dark");
    eight_colour_roles_are_apart(&white, "light");
}
END_TEST

Suite *look_suite(void)
{
    Suite *s = suite_create("look");
    TCase *tc = tcase_create("tmux");
    tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, every_theme_is_legible_on_black_and_on_white);
    tcase_add_test(tc, the_theme_follows_the_terminal_then_the_environment_then_the_option);
    tcase_add_test(tc, the_config_file_sets_the_theme_and_keeps_what_t_and_i_change);
    tcase_add_test(tc, the_cursor_row_needs_no_colour);
    tcase_add_test(tc, eight_colours_keep_stage_tints_apart_from_exchanges);
    tcase_add_test(tc, eight_colours_give_every_meaning_its_own_look);
    suite_add_tcase(s, tc);
    return s;
}
