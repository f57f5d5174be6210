/* keys: the one table of every key binding of the explorer.
 *
 * KEYS_TABLE below is the only place a binding is written.  From it come the lookup the
 * explorer uses, the `?` help overlay, the KEYS part of --help
 * (keys_print_help), the man page's KEYS section (keys_print_man, spliced between the
 * `.\" KEYS-BEGIN` and `.\" KEYS-END` lines of man/sparkplan.1 by `make man`) and the
 * key tables of docs/keys.md (keys_print_markdown, between <!-- KEYS-BEGIN --> and
 * <!-- KEYS-END -->, by the same `make man`).
 * Key names are the explorer's canonical names (what src/ui/input.c produces): a
 * character ("j", "?", "G"), "Space", a key name ("Down", "PageDown", "Enter", "Escape",
 * "Backspace", "Tab"), with "C-" (Ctrl), "M-" (Alt) and "S-" (Shift) prefixes; plus the
 * pseudo keys "Click", "WheelUp", "WheelDown" and "Paste" (a bracketed paste).
 * Owns nothing; no allocation, no curses.
 */
#ifndef SPARKPLAN_KEYS_H
#define SPARKPLAN_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where a binding applies.  Lookups try the focused context, then KCTX_GLOBAL (except in
 * overlays and prompts, which take their own keys only). */
enum key_context {
    KCTX_GLOBAL,   /* tree and details */
    KCTX_TREE,
    KCTX_DETAILS,
    KCTX_PROMPT,   /* the / and : prompts */
    KCTX_PASTE,    /* after p: the pasted text is being collected */
    KCTX_HELP,     /* ? overlay */
    KCTX_DOCS,     /* document list overlay */
    KCTX_LIST,     /* findings (!) and expression-id (*) lists */
    KCTX_WALK,     /* the guided walk (w) */
    KCTX_DIFF,     /* the plan diff (= or I) */
    KCTX_QUERIES,  /* an event log's query list overlay */
    KCTX_PICKER,   /* the plan picker (t): typed characters filter */
    KCTX_APPS,     /* a History Server directory's application list overlay */
    KCTX_COUNT
};

/* Actions are what a key does, bindings which key does it where: one action can be bound
 * in several contexts ("down" moves the tree's selection, the details' cursor, the help's
 * text and the lists' selection), and each view says what the action means to it.
 * X(ACTION, context, "key names separated by spaces", "help text"); every ACTION is one
 * of KEYS_ACTIONS below.  The insight features (tree_insight.c) use i ! f F * r w in the
 * tree. */
#define KEYS_TABLE(X)                                                                       \
    X(KA_DOWN, KCTX_TREE, "j Down", "move down one row")                                   \
    X(KA_UP, KCTX_TREE, "k Up", "move up one row")                                         \
    X(KA_PAGE_DOWN, KCTX_TREE, "PageDown", "move down one page")                           \
    X(KA_PAGE_UP, KCTX_TREE, "PageUp", "move up one page")                                 \
    X(KA_HALF_DOWN, KCTX_TREE, "C-d", "move down half a page")                             \
    X(KA_HALF_UP, KCTX_TREE, "C-u", "move up half a page")                                 \
    X(KA_FIRST, KCTX_TREE, "g Home", "go to the first row")                                \
    X(KA_LAST, KCTX_TREE, "G End", "go to the last row")                                   \
    X(KA_TOGGLE, KCTX_TREE, "Space", "fold or unfold the selected node")                   \
    X(KA_LEFT, KCTX_TREE, "h Left", "fold the selected node, or go to its parent")         \
    X(KA_RIGHT, KCTX_TREE, "l Right", "unfold the selected node, or go to its first child") \
    X(KA_FOLD_ALL, KCTX_TREE, "C", "fold everything below the roots")                      \
    X(KA_UNFOLD_ALL, KCTX_TREE, "E", "unfold everything")                                  \
    X(KA_LEVELS, KCTX_TREE, "1 2 3 4 5 6 7 8 9", "show that many levels")                  \
    X(KA_NEXT_EXCHANGE, KCTX_TREE, "x", "next Exchange")                                   \
    X(KA_PREV_EXCHANGE, KCTX_TREE, "X", "previous Exchange")                               \
    X(KA_NEXT_STAGE, KCTX_TREE, "]", "next codegen stage")                                 \
    X(KA_PREV_STAGE, KCTX_TREE, "[", "previous codegen stage")                             \
    X(KA_GOTO, KCTX_TREE, ":", "go to node (N): type the number, then Enter")              \
    X(KA_SEARCH, KCTX_TREE, "/", "search node text and details")                           \
    X(KA_SEARCH_NEXT, KCTX_TREE, "n", "next match")                                        \
    X(KA_SEARCH_PREV, KCTX_TREE, "N", "previous match")                                    \
    X(KA_DETAILS, KCTX_TREE, "Enter", "open and focus the details of the selected node")   \
    X(KA_SCROLL_RIGHT, KCTX_TREE, "> S-Right", "scroll the tree right")                    \
    X(KA_SCROLL_LEFT, KCTX_TREE, "< S-Left", "scroll the tree left")                       \
    X(KA_SCROLL_HOME, KCTX_TREE, "0", "scroll the tree back to the left edge")             \
    X(KA_WRAP, KCTX_TREE, "W", "wrap long node text (toggle)")                             \
    X(KA_STAGES, KCTX_TREE, "s", "highlight the selected node's codegen stage (toggle)")   \
    X(KA_EXPLAIN, KCTX_TREE, "i", "explain the selected operator beside its details (toggle)") \
    X(KA_FINDINGS, KCTX_TREE, "!", "list the findings (lint) of the document")             \
    X(KA_NEXT_FINDING, KCTX_TREE, "f", "next finding")                                     \
    X(KA_PREV_FINDING, KCTX_TREE, "F", "previous finding")                                 \
    X(KA_TRACE, KCTX_TREE, "*", "trace an expression id of the selected node (then n, N)") \
    X(KA_FLIP, KCTX_TREE, "r", "flip the tree: scans on top, data flowing down (toggle)")  \
    X(KA_WALK, KCTX_TREE, "w", "guided walk in execution order, a stage at a time")        \
    X(KA_METRICS, KCTX_TREE, "m", "an event log's metrics column on the rows (toggle)")   \
    X(KA_CLICK, KCTX_TREE, "Click", "select a row; on a fold marker, fold or unfold it")   \
    X(KA_WHEEL_DOWN, KCTX_TREE, "WheelDown", "scroll down")                                \
    X(KA_WHEEL_UP, KCTX_TREE, "WheelUp", "scroll up")                                      \
    X(KA_DOWN, KCTX_DETAILS, "j Down", "next line")                                      \
    X(KA_UP, KCTX_DETAILS, "k Up", "previous line")                                      \
    X(KA_PAGE_DOWN, KCTX_DETAILS, "PageDown C-d Space", "next page")                     \
    X(KA_PAGE_UP, KCTX_DETAILS, "PageUp C-u", "previous page")                           \
    X(KA_FIRST, KCTX_DETAILS, "g Home", "first line")                                    \
    X(KA_LAST, KCTX_DETAILS, "G End", "last line")                                       \
    X(KA_D_FOLLOW, KCTX_DETAILS, "Enter", "jump to the node the line refers to "           \
                                          "(Reuses operator id, Hosting operator id, "      \
                                          "a subquery's name: scalar-subquery#5)")         \
    X(KA_D_LEAVE, KCTX_DETAILS, "Escape h Left", "back to the tree")                       \
    X(KA_CLICK, KCTX_DETAILS, "Click", "select a line")                                  \
    X(KA_WHEEL_DOWN, KCTX_DETAILS, "WheelDown", "scroll down")                           \
    X(KA_WHEEL_UP, KCTX_DETAILS, "WheelUp", "scroll up")                                 \
    X(KA_NEXT_SECTION, KCTX_GLOBAL, "Tab", "next section")                                 \
    X(KA_PREV_SECTION, KCTX_GLOBAL, "S-Tab", "previous section")                           \
    X(KA_BACK, KCTX_GLOBAL, "Backspace C-o", "go back along the jump history")             \
    X(KA_DOCS, KCTX_GLOBAL, "D", "list the open documents")                                \
    X(KA_QUERIES, KCTX_GLOBAL, "Q", "an event log's SQL queries (the list it opens on)")    \
    X(KA_PICKER, KCTX_GLOBAL, "t", "pick a plan or section of any open document (type to filter)") \
    X(KA_NEXT_DOC, KCTX_GLOBAL, "}", "next document (like :n in less)")                      \
    X(KA_PREV_DOC, KCTX_GLOBAL, "{", "previous document (like :p in less)")                  \
    X(KA_APPS, KCTX_GLOBAL, "A", "a History Server directory's applications (the list "   \
                                 "it opens on)")                                            \
    X(KA_PASTE, KCTX_GLOBAL, "p", "paste a plan: paste it, then press Ctrl-d")             \
    X(KA_PASTED, KCTX_GLOBAL, "Paste", "a bracketed paste opens as a new document")        \
    X(KA_DIFF, KCTX_GLOBAL, "=", "compare this tab with one picked from the open "         \
                                 "documents: the plan diff, a tab of its own")              \
    X(KA_DIFF_AQE, KCTX_GLOBAL, "I", "compare the adaptive plan's Initial and Final plans")  \
    X(KA_THEME, KCTX_GLOBAL, "T", "next colour theme: dark, light, projector, mono")       \
    X(KA_COPY, KCTX_GLOBAL, "y", "copy the selected node's text to the clipboard (OSC 52)") \
    X(KA_COPY_TREE, KCTX_GLOBAL, "Y", "copy the selected subtree as Spark printed it")     \
    X(KA_PIPE, KCTX_GLOBAL, "|", "show the subtree (from the details: the details) in $PAGER") \
    X(KA_ZOOM, KCTX_GLOBAL, "z", "zoom: the focused pane takes the whole screen (toggle)") \
    X(KA_GROW, KCTX_GLOBAL, "+", "give the tree more room (kept in the config file)")       \
    X(KA_SHRINK, KCTX_GLOBAL, "-", "give the details more room (kept in the config file)")  \
    X(KA_HELP, KCTX_GLOBAL, "?", "this help")                                              \
    X(KA_REDRAW, KCTX_GLOBAL, "C-l", "redraw the screen")                                  \
    X(KA_SUSPEND, KCTX_GLOBAL, "C-z", "suspend (fg resumes)")                              \
    X(KA_QUIT, KCTX_GLOBAL, "q C-c", "quit")                                               \
    X(KA_P_ACCEPT, KCTX_PROMPT, "Enter", "accept")                                         \
    X(KA_P_CANCEL, KCTX_PROMPT, "Escape C-c", "cancel")                                    \
    X(KA_P_ERASE, KCTX_PROMPT, "Backspace", "erase a character")                           \
    X(KA_PASTE_END, KCTX_PASTE, "C-d", "open the pasted text as a new document")           \
    X(KA_PASTE_CANCEL, KCTX_PASTE, "C-c", "cancel the paste")                              \
    X(KA_DOWN, KCTX_HELP, "j Down", "scroll down")                                       \
    X(KA_UP, KCTX_HELP, "k Up", "scroll up")                                             \
    X(KA_PAGE_DOWN, KCTX_HELP, "PageDown Space", "next page")                            \
    X(KA_PAGE_UP, KCTX_HELP, "PageUp", "previous page")                                  \
    X(KA_H_CLOSE, KCTX_HELP, "q Escape ?", "close the help")                               \
    X(KA_H_LEGEND, KCTX_HELP, "Tab", "the legend: marks, glyphs, colours (Tab: the keys)")  \
    X(KA_DOWN, KCTX_DOCS, "j Down", "next document")                                     \
    X(KA_UP, KCTX_DOCS, "k Up", "previous document")                                     \
    X(KA_L_OPEN, KCTX_DOCS, "Enter", "show the chosen document")                           \
    X(KA_L_CLOSE, KCTX_DOCS, "q Escape D", "close the list")                               \
    X(KA_DOWN, KCTX_QUERIES, "j Down", "next query")                                     \
    X(KA_UP, KCTX_QUERIES, "k Up", "previous query")                                     \
    X(KA_PAGE_DOWN, KCTX_QUERIES, "PageDown Space", "next page")                         \
    X(KA_PAGE_UP, KCTX_QUERIES, "PageUp", "previous page")                               \
    X(KA_FIRST, KCTX_QUERIES, "g Home", "first query")                                   \
    X(KA_LAST, KCTX_QUERIES, "G End", "last query")                                      \
    X(KA_L_OPEN, KCTX_QUERIES, "Enter", "open the query: its plans, with their metrics")   \
    X(KA_Q_SORT, KCTX_QUERIES, "s", "sort by duration (longest first) or by id")           \
    X(KA_L_CLOSE, KCTX_QUERIES, "q Escape Q", "close the list")                            \
    X(KA_APPS, KCTX_QUERIES, "A", "a History Server directory's applications instead")     \
    X(KA_DOWN, KCTX_APPS, "j Down", "next application")                                  \
    X(KA_UP, KCTX_APPS, "k Up", "previous application")                                  \
    X(KA_PAGE_DOWN, KCTX_APPS, "PageDown Space", "next page")                            \
    X(KA_PAGE_UP, KCTX_APPS, "PageUp", "previous page")                                  \
    X(KA_FIRST, KCTX_APPS, "g Home", "first application")                                \
    X(KA_LAST, KCTX_APPS, "G End", "last application")                                   \
    X(KA_L_OPEN, KCTX_APPS, "Enter", "open the application: read it, then its SQL queries") \
    X(KA_L_CLOSE, KCTX_APPS, "q Escape A", "close the list")                              \
    X(KA_DOWN, KCTX_LIST, "j Down", "next entry")                                        \
    X(KA_UP, KCTX_LIST, "k Up", "previous entry")                                        \
    X(KA_PAGE_DOWN, KCTX_LIST, "PageDown Space", "next page")                            \
    X(KA_PAGE_UP, KCTX_LIST, "PageUp", "previous page")                                  \
    X(KA_I_OPEN, KCTX_LIST, "Enter", "go to the finding, or trace the expression id")      \
    X(KA_I_CLOSE, KCTX_LIST, "q Escape ! *", "close the list")                             \
    X(KA_W_NEXT, KCTX_WALK, "Space Enter j Down w", "next step")                           \
    X(KA_W_PREV, KCTX_WALK, "b Backspace k Up", "previous step")                           \
    X(KA_FIRST, KCTX_WALK, "g Home", "first step")                                       \
    X(KA_LAST, KCTX_WALK, "G End", "last step")                                          \
    X(KA_W_END, KCTX_WALK, "q Escape", "end the walk")                                     \
    X(KA_DOWN, KCTX_DIFF, "j Down", "move down one row")                                   \
    X(KA_UP, KCTX_DIFF, "k Up", "move up one row")                                         \
    X(KA_PAGE_DOWN, KCTX_DIFF, "PageDown C-d", "move down one page")                       \
    X(KA_PAGE_UP, KCTX_DIFF, "PageUp C-u", "move up one page")                             \
    X(KA_FIRST, KCTX_DIFF, "g Home", "go to the first row")                                \
    X(KA_LAST, KCTX_DIFF, "G End", "go to the last row")                                   \
    X(KA_NEXT_DIFF, KCTX_DIFF, "n ]", "next difference")                                   \
    X(KA_PREV_DIFF, KCTX_DIFF, "N [", "previous difference")                               \
    X(KA_TOGGLE, KCTX_DIFF, "Space", "fold or unfold an unchanged subtree ([=N]); "        \
                                     "walking: the next difference")                        \
    X(KA_DETAILS, KCTX_DIFF, "Enter", "show or hide both sides' fields, differing words "  \
                                      "highlighted")                                        \
    X(KA_WALK, KCTX_DIFF, "w", "walk the differences one at a time (Space next, b back)")  \
    X(KA_W_PREV, KCTX_DIFF, "b", "walking: the previous difference")                       \
    X(KA_F_CLOSE, KCTX_DIFF, "q Escape", "leave the diff (ends a walk first); it stays a tab")\
    X(KA_DOWN, KCTX_PICKER, "Down C-n", "next plan or section")                          \
    X(KA_UP, KCTX_PICKER, "Up C-p", "previous plan or section")                          \
    X(KA_L_OPEN, KCTX_PICKER, "Enter", "show it (after =: compare with it)")              \
    X(KA_P_ERASE, KCTX_PICKER, "Backspace", "erase a character of the filter")           \
    X(KA_L_CLOSE, KCTX_PICKER, "Escape C-c", "close the picker, cancel the compare (other "   \
                                             "keys type the filter)")

/* The insight features' keys in the tree (explain operator, findings, next and previous
 * finding, trace a column, flip bottom-up, guided walk). */
#define KEYS_INSIGHT "i ! f F * r w"

/* Every action once (the table's first column, in order of first use). */
#define KEYS_ACTIONS(A)                                                                 \
    A(KA_DOWN) A(KA_UP) A(KA_PAGE_DOWN) A(KA_PAGE_UP) A(KA_HALF_DOWN) A(KA_HALF_UP)     \
    A(KA_FIRST) A(KA_LAST) A(KA_TOGGLE) A(KA_LEFT) A(KA_RIGHT) A(KA_FOLD_ALL)           \
    A(KA_UNFOLD_ALL) A(KA_LEVELS) A(KA_NEXT_EXCHANGE) A(KA_PREV_EXCHANGE)               \
    A(KA_NEXT_STAGE) A(KA_PREV_STAGE) A(KA_GOTO) A(KA_SEARCH) A(KA_SEARCH_NEXT)         \
    A(KA_SEARCH_PREV) A(KA_DETAILS) A(KA_SCROLL_RIGHT) A(KA_SCROLL_LEFT)                \
    A(KA_SCROLL_HOME) A(KA_WRAP) A(KA_STAGES) A(KA_EXPLAIN) A(KA_FINDINGS)              \
    A(KA_NEXT_FINDING) A(KA_PREV_FINDING) A(KA_TRACE) A(KA_FLIP) A(KA_WALK) A(KA_CLICK) \
    A(KA_WHEEL_DOWN) A(KA_WHEEL_UP) A(KA_D_FOLLOW) A(KA_D_LEAVE) A(KA_NEXT_SECTION)     \
    A(KA_PREV_SECTION) A(KA_BACK) A(KA_DOCS) A(KA_PASTE) A(KA_PASTED) A(KA_THEME)       \
    A(KA_COPY) A(KA_COPY_TREE) A(KA_PIPE) A(KA_ZOOM) A(KA_GROW) A(KA_SHRINK) A(KA_H_LEGEND) \
    A(KA_NEXT_DOC) A(KA_PREV_DOC) A(KA_PICKER)                                            \
    A(KA_HELP) A(KA_REDRAW) A(KA_SUSPEND) A(KA_QUIT) A(KA_P_ACCEPT) A(KA_P_CANCEL)      \
    A(KA_P_ERASE) A(KA_PASTE_END) A(KA_PASTE_CANCEL) A(KA_H_CLOSE) A(KA_L_OPEN)         \
    A(KA_L_CLOSE) A(KA_I_OPEN) A(KA_I_CLOSE) A(KA_W_NEXT) A(KA_W_PREV) A(KA_W_END)      \
    A(KA_DIFF) A(KA_DIFF_AQE) A(KA_NEXT_DIFF) A(KA_PREV_DIFF) A(KA_F_CLOSE)            \
    A(KA_QUERIES) A(KA_METRICS) A(KA_Q_SORT) A(KA_APPS)

enum key_action {
    KA_NONE = 0,
#define KEYS_ENUM(a) a,
    KEYS_ACTIONS(KEYS_ENUM)
#undef KEYS_ENUM
    KA_COUNT
};

/* The number of bindings (keys_table_len, as a constant). */
#define KEYS_COUNT_ONE(a, ctx, keys, help) +1
enum { KEYS_N_BINDINGS = 0 KEYS_TABLE(KEYS_COUNT_ONE) };
#undef KEYS_COUNT_ONE

struct key_binding {
    enum key_action action;
    enum key_context context;
    const char *keys;  /* space-separated key names */
    const char *help;
};

extern const struct key_binding keys_table[];
extern const size_t keys_table_len;

/* The action bound to key_name in ctx (global bindings apply in tree and details). */
enum key_action keys_lookup(enum key_context ctx, const char *key_name);
const char *keys_context_title(enum key_context ctx);

/* Key names shown to people: "C-d" -> "Ctrl-d", "S-Tab" -> "Shift-Tab". */
size_t keys_display_name(const char *name, size_t len, char *buf, size_t cap);
/* "j, Down" for a binding, written to buf; returns the length. */
size_t keys_display_list(const struct key_binding *b, char *buf, size_t cap);

/* Plain text for --help: one line per binding, grouped by context. */
void keys_print_help(FILE *f);
/* The man page KEYS section body (roff). */
void keys_print_man(FILE *f);
/* The key tables of docs/keys.md (Markdown). */
void keys_print_markdown(FILE *f);
/* Copy text to f, replacing the lines between the line starting with begin and the line
 * starting with end by print's output.  Returns false when a marker is missing. */
bool keys_splice(const char *text, size_t len, const char *begin, const char *end,
                 void (*print)(FILE *), FILE *f);
/* keys_splice with the man page's markers (.\" KEYS-BEGIN / .\" KEYS-END) and
 * keys_print_man; keys_splice_readme with <!-- KEYS-BEGIN --> / <!-- KEYS-END --> and
 * keys_print_markdown. */
bool keys_splice_man(const char *man_text, size_t len, FILE *f);
bool keys_splice_readme(const char *readme, size_t len, FILE *f);

#endif
