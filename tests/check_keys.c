/* Key table: one binding per key and context, the insight keys in place, and the help,
 * --help and man page text all generated from it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/keys.h"
#include "testutil.h"

/* Every name the input layer can produce for a key (src/ui/input.c). */
static bool known_key_name(const char *name, size_t len)
{
    static const char *named[] = {"Space", "Down", "Up", "Left", "Right", "PageDown",
                                  "PageUp", "Home", "End", "Enter", "Escape", "Backspace",
                                  "Tab", "Delete", "Insert", "Click", "WheelUp",
                                  "WheelDown", "Paste"};
    while (len > 2 && name[1] == '-' && strchr("CMS", name[0]))
        name += 2, len -= 2;
    if (len == 1)
        return name[0] > ' ' && name[0] < 0x7F;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i]) == len && memcmp(named[i], name, len) == 0)
            return true;
    return false;
}

/* Calls f(binding, key name, length) for every key of every binding. */
#define FOR_EACH_KEY(b, p, len, body)                                                     \
    for (size_t bi = 0; bi < keys_table_len; bi++) {                                       \
        const struct key_binding *b = &keys_table[bi];                                     \
        for (const char *p = b->keys; *p;) {                                               \
            const char *e_ = strchr(p, ' ');                                               \
            size_t len = e_ ? (size_t)(e_ - p) : strlen(p);                                \
            body;                                                                          \
            p = e_ ? e_ + 1 : p + len;                                                     \
        }                                                                                  \
    }

START_TEST(every_key_name_is_one_the_terminal_can_send)
{
    FOR_EACH_KEY(b, p, len, {
        ck_assert_msg(known_key_name(p, len), "binding %d: unknown key name '%.*s'",
                      (int)b->action, (int)len, p);
    });
}
END_TEST

START_TEST(no_key_is_bound_twice_where_both_would_apply)
{
    FOR_EACH_KEY(b, p, len, {
        char name[32];
        ck_assert_uint_lt(len, sizeof name);
        memcpy(name, p, len);
        name[len] = '\0';
        /* The binding found for this key in its own context must be this one. */
        ck_assert_msg(keys_lookup(b->context, name) == b->action,
                      "'%s' in %s is shadowed by another binding", name,
                      keys_context_title(b->context));
        /* A global key must not also mean something else in the tree or the details. */
        if (b->context == KCTX_GLOBAL) {
            for (size_t j = 0; j < keys_table_len; j++) {
                const struct key_binding *o = &keys_table[j];
                if (o->context != KCTX_TREE && o->context != KCTX_DETAILS)
                    continue;
                char padded[64];
                snprintf(padded, sizeof padded, " %s ", o->keys);
                char needle[40];
                snprintf(needle, sizeof needle, " %s ", name);
                ck_assert_msg(strstr(padded, needle) == NULL,
                              "global '%s' is also bound in %s", name,
                              keys_context_title(o->context));
            }
        }
    });
}
END_TEST

START_TEST(insight_keys_are_bound_in_the_tree)
{
    static const struct {
        const char *key;
        enum key_action action;
    } want[] = {{"i", KA_EXPLAIN}, {"!", KA_FINDINGS}, {"f", KA_NEXT_FINDING},
                {"F", KA_PREV_FINDING}, {"*", KA_TRACE}, {"r", KA_FLIP}, {"w", KA_WALK}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_msg(strstr(" " KEYS_INSIGHT " ", want[i].key) != NULL, "%s", want[i].key);
        ck_assert_msg(keys_lookup(KCTX_TREE, want[i].key) == want[i].action, "%s", want[i].key);
    }
    /* The walk and the lists take their own keys only. */
    ck_assert_int_eq(keys_lookup(KCTX_WALK, "Space"), KA_W_NEXT);
    ck_assert_int_eq(keys_lookup(KCTX_WALK, "Backspace"), KA_W_PREV);
    ck_assert_int_eq(keys_lookup(KCTX_WALK, "x"), KA_NONE);
    ck_assert_int_eq(keys_lookup(KCTX_LIST, "Enter"), KA_I_OPEN);
    ck_assert_int_eq(keys_lookup(KCTX_LIST, "!"), KA_I_CLOSE);
}
END_TEST

START_TEST(lookup_finds_what_the_issue_promises)
{
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "j"), KA_DOWN);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "Down"), KA_DOWN);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "C-d"), KA_HALF_DOWN);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "Space"), KA_TOGGLE);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "7"), KA_LEVELS);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "Tab"), KA_NEXT_SECTION);  /* global applies */
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "S-Tab"), KA_PREV_SECTION);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "x"), KA_NEXT_EXCHANGE);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "]"), KA_NEXT_STAGE);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, ":"), KA_GOTO);
    ck_assert_int_eq(keys_lookup(KCTX_TREE, "?"), KA_HELP);
    ck_assert_int_eq(keys_lookup(KCTX_DETAILS, "Enter"), KA_D_FOLLOW);
    ck_assert_int_eq(keys_lookup(KCTX_DETAILS, "Escape"), KA_D_LEAVE);
    ck_assert_int_eq(keys_lookup(KCTX_DETAILS, "C-o"), KA_BACK);
    ck_assert_int_eq(keys_lookup(KCTX_DETAILS, "q"), KA_QUIT);
    /* Prompts and overlays do not fall through to the global keys. */
    ck_assert_int_eq(keys_lookup(KCTX_PROMPT, "q"), KA_NONE);
    ck_assert_int_eq(keys_lookup(KCTX_PASTE, "q"), KA_NONE);
    ck_assert_int_eq(keys_lookup(KCTX_HELP, "q"), KA_H_CLOSE);
    ck_assert_int_eq(keys_lookup(KCTX_PASTE, "C-d"), KA_PASTE_END);
}
END_TEST

START_TEST(help_text_lists_every_binding_readably)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    keys_print_help(f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "Ctrl-d"));
    ck_assert_ptr_nonnull(strstr(buf, "Shift-Tab"));
    ck_assert_ptr_nonnull(strstr(buf, "j, Down"));
    for (size_t i = 0; i < keys_table_len; i++)
        ck_assert_msg(strstr(buf, keys_table[i].help) != NULL, "%s", keys_table[i].help);
    free(buf);
}
END_TEST

/* A generated file is current when splicing the key table into it changes nothing.
 * Returns the file's text (the caller frees it) for further checks. */
static char *assert_generated_keys_current(const char *path,
                                           bool (*splice)(const char *, size_t, FILE *))
{
    size_t len = 0;
    char *text = tu_read_file(path, &len);
    ck_assert_msg(text != NULL, "%s not readable (tests run from the repo root)", path);
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    ck_assert_msg(splice(text, len, f), "%s has no KEYS markers", path);
    fclose(f);
    ck_assert_msg(out_len == len && memcmp(out, text, len) == 0,
                  "%s's keys are out of date: run `make man`", path);
    free(out);
    return text;
}

START_TEST(man_page_keys_section_is_up_to_date)
{
    char *man = assert_generated_keys_current("man/sparkplan.1", keys_splice_man);
    ck_assert_ptr_nonnull(strstr(man, "Ctrl\\-d"));
    free(man);
}
END_TEST

START_TEST(key_tables_of_the_docs_are_up_to_date)
{
    char *doc = assert_generated_keys_current("docs/keys.md", keys_splice_readme);
    ck_assert_ptr_nonnull(strstr(doc, "| `Ctrl-d` | move down half a page |"));
    free(doc);
}
END_TEST

/* A key name as the README shows it ("Ctrl-d") back to the table's ("C-d"). */
static void canonical_key(const char *shown, size_t n, char *out, size_t cap)
{
    if (n > 5 && strncmp(shown, "Ctrl-", 5) == 0)
        snprintf(out, cap, "C-%.*s", (int)(n - 5), shown + 5);
    else if (n > 6 && strncmp(shown, "Shift-", 6) == 0)
        snprintf(out, cap, "S-%.*s", (int)(n - 6), shown + 6);
    else
        snprintf(out, cap, "%.*s", (int)n, shown);
}

static bool bound_anywhere(const char *key)
{
    for (int c = 0; c < KCTX_COUNT; c++)
        if (keys_lookup((enum key_context)c, key) != KA_NONE)
            return true;
    return false;
}

/* The README's short list of main keys is written by hand: every key it names must be one
 * the explorer binds. */
START_TEST(readme_main_keys_are_bound)
{
    size_t len = 0;
    char *readme = tu_read_file("README.md", &len);
    ck_assert_msg(readme != NULL, "README.md not readable (tests run from the repo root)");
    const char *at = strstr(readme, "## Main keys");
    ck_assert_msg(at != NULL, "README.md has no Main keys section");
    const char *end = strstr(at + 1, "\n## ");
    size_t keys = 0;
    /* Bound: one pass over the section's lines. */
    for (const char *line = at; line && (!end || line < end); line = strchr(line, '\n')) {
        line++;
        if (strncmp(line, "| `", 3) != 0)
            continue;
        const char *col_end = strstr(line + 1, " | ");
        ck_assert_ptr_nonnull(col_end);
        for (const char *q = strchr(line, '`'); q && q < col_end; q = strchr(q + 1, '`')) {
            const char *close = strchr(q + 1, '`');
            ck_assert_ptr_nonnull(close);
            char key[32];
            canonical_key(q + 1, (size_t)(close - q - 1), key, sizeof key);
            ck_assert_msg(bound_anywhere(key), "README main keys: `%s` is bound to nothing", key);
            keys++;
            q = close;
        }
    }
    ck_assert_uint_ge(keys, 20);
    free(readme);
}
END_TEST

START_TEST(splice_replaces_only_between_the_markers)
{
    const char *page = ".TH X 1\n.SH KEYS\n.\\\" KEYS-BEGIN\nstale\n.\\\" KEYS-END\n.SH AFTER\n";
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    ck_assert(keys_splice_man(page, strlen(page), f));
    fclose(f);
    ck_assert_ptr_null(strstr(out, "stale"));
    ck_assert_ptr_nonnull(strstr(out, ".SS Tree\n.TP\n.B j, Down\nmove down one row\n"));
    ck_assert(strncmp(out, ".TH X 1\n.SH KEYS\n.\\\" KEYS-BEGIN\n", 32) == 0);
    ck_assert_ptr_nonnull(strstr(out, ".\\\" KEYS-END\n.SH AFTER\n"));
    free(out);
    f = open_memstream(&out, &out_len);
    ck_assert(!keys_splice_man("no markers\n", 11, f));
    fclose(f);
    free(out);
}
END_TEST

Suite *keys_suite(void)
{
    Suite *s = suite_create("keys");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, every_key_name_is_one_the_terminal_can_send);
    tcase_add_test(tc, no_key_is_bound_twice_where_both_would_apply);
    tcase_add_test(tc, insight_keys_are_bound_in_the_tree);
    tcase_add_test(tc, lookup_finds_what_the_issue_promises);
    tcase_add_test(tc, help_text_lists_every_binding_readably);
    tcase_add_test(tc, man_page_keys_section_is_up_to_date);
    tcase_add_test(tc, key_tables_of_the_docs_are_up_to_date);
    tcase_add_test(tc, readme_main_keys_are_bound);
    tcase_add_test(tc, splice_replaces_only_between_the_markers);
    suite_add_tcase(s, tc);
    return s;
}
