/* keys.c: lookups, help text and man page text from the one binding table (see keys.h). */
#include "sparkplan/keys.h"

#include <string.h>

const struct key_binding keys_table[] = {
#define KEYS_ROW(a, ctx, keys, help) {a, ctx, keys, help},
    KEYS_TABLE(KEYS_ROW)
#undef KEYS_ROW
};
const size_t keys_table_len = sizeof keys_table / sizeof keys_table[0];

/* Is name one of the space-separated words of list? */
static bool list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && memcmp(p, name, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

static enum key_action lookup_in(enum key_context ctx, const char *name)
{
    for (size_t i = 0; i < keys_table_len; i++) /* the table is small and fixed */
        if (keys_table[i].context == ctx && list_has(keys_table[i].keys, name))
            return keys_table[i].action;
    return KA_NONE;
}

enum key_action keys_lookup(enum key_context ctx, const char *key_name)
{
    enum key_action a = lookup_in(ctx, key_name);
    if (a == KA_NONE && (ctx == KCTX_TREE || ctx == KCTX_DETAILS))
        a = lookup_in(KCTX_GLOBAL, key_name);
    return a;
}

const char *keys_context_title(enum key_context ctx)
{
    switch (ctx) {
    case KCTX_GLOBAL:
        return "Anywhere";
    case KCTX_TREE:
        return "Tree";
    case KCTX_DETAILS:
        return "Details (after Enter)";
    case KCTX_PROMPT:
        return "Search and go-to prompts";
    case KCTX_PASTE:
        return "Pasting (after p)";
    case KCTX_HELP:
        return "Help";
    case KCTX_QUERIES:
        return "SQL queries of an event log (after Q)";
    case KCTX_APPS:
        return "Applications of a History Server directory (after A)";
    case KCTX_DOCS:
        return "Document list";
    case KCTX_LIST:
        return "Findings and expression-id lists (after ! or *)";
    case KCTX_WALK:
        return "Guided walk (after w)";
    case KCTX_DIFF:
        return "Plan diff (after = or I)";
    case KCTX_PICKER:
        return "Plan picker (after t or =)";
    case KCTX_COUNT:
        break;
    }
    return "";
}

static size_t put(char *buf, size_t cap, size_t len, const char *s, size_t n)
{
    if (cap && len < cap - 1) {
        size_t room = cap - 1 - len;
        memcpy(buf + len, s, n < room ? n : room);
        buf[len + (n < room ? n : room)] = '\0';
    }
    return len + n;
}

size_t keys_display_name(const char *name, size_t len, char *buf, size_t cap)
{
    size_t out = 0;
    if (cap)
        buf[0] = '\0';
    /* Prefixes only when something follows them: "C-d" is Ctrl-d, but "-" alone is a key. */
    while (len > 2 && name[1] == '-' && strchr("CMS", name[0])) {
        const char *word = name[0] == 'C' ? "Ctrl-" : name[0] == 'M' ? "Alt-" : "Shift-";
        out = put(buf, cap, out, word, strlen(word));
        name += 2, len -= 2;
    }
    return put(buf, cap, out, name, len);
}

/* "1 2 3 4 5 6 7 8 9" reads better as "1-9": a run of 3 or more consecutive characters. */
static bool is_char_run(const char *keys, char *first, char *last)
{
    size_t n = strlen(keys);
    if (n < 5 || n % 2 == 0)
        return false;
    for (size_t i = 0; i < n; i += 2) /* the key list is short */
        if ((i + 1 < n && keys[i + 1] != ' ') || (i >= 2 && keys[i] != keys[i - 2] + 1))
            return false;
    *first = keys[0];
    *last = keys[n - 1];
    return true;
}

size_t keys_display_list(const struct key_binding *b, char *buf, size_t cap)
{
    size_t out = 0;
    if (cap)
        buf[0] = '\0';
    char first, last;
    if (is_char_run(b->keys, &first, &last)) {
        char run[4] = {first, '-', last, '\0'};
        return put(buf, cap, 0, run, 3);
    }
    const char *p = b->keys;
    while (*p) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char one[32];
        keys_display_name(p, len, one, sizeof one);
        if (out)
            out = put(buf, cap, out, ", ", 2);
        out = put(buf, cap, out, one, strlen(one));
        if (!e)
            break;
        p = e + 1;
    }
    return out;
}

/* Contexts in the order people read them. */
static const enum key_context order[] = {KCTX_TREE, KCTX_GLOBAL, KCTX_DETAILS, KCTX_PROMPT,
                                         KCTX_PASTE, KCTX_HELP,   KCTX_DOCS,    KCTX_APPS,
                                         KCTX_QUERIES, KCTX_LIST, KCTX_WALK,   KCTX_DIFF,
                                         KCTX_PICKER};

void keys_print_help(FILE *f)
{
    fputs("\nKeys in the explorer (? lists them there too):\n", f);
    for (size_t c = 0; c < sizeof order / sizeof order[0]; c++) {
        fprintf(f, "  %s:\n", keys_context_title(order[c]));
        for (size_t i = 0; i < keys_table_len; i++) {
            if (keys_table[i].context != order[c])
                continue;
            char list[128];
            keys_display_list(&keys_table[i], list, sizeof list);
            fprintf(f, "    %-24s %s\n", list, keys_table[i].help);
        }
    }
}

/* roff-escape text: a backslash doubles, a hyphen becomes \-, a leading dot or quote is
 * protected with \&. */
static void man_text(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

void keys_print_man(FILE *f)
{
    fputs(".SH KEYS\n"
          "The explorer's keys, generated from its key table (the same table gives the\n"
          ".B ?\n"
          "overlay and\n"
          ".BR \\-\\-help ).\n"
          "Keys listed under\n"
          ".B Anywhere\n"
          "work in the tree and in the details.\n",
          f);
    for (size_t c = 0; c < sizeof order / sizeof order[0]; c++) {
        fputs(".SS ", f);
        man_text(f, keys_context_title(order[c]));
        fputc('\n', f);
        for (size_t i = 0; i < keys_table_len; i++) {
            if (keys_table[i].context != order[c])
                continue;
            char list[128];
            keys_display_list(&keys_table[i], list, sizeof list);
            fputs(".TP\n.B ", f);
            man_text(f, list);
            fputc('\n', f);
            man_text(f, keys_table[i].help);
            fputc('\n', f);
        }
    }
}

void keys_print_markdown(FILE *f)
{
    for (size_t c = 0; c < sizeof order / sizeof order[0]; c++) {
        fprintf(f, "%s**%s**\n\n| key | does |\n|---|---|\n", c ? "\n" : "",
                keys_context_title(order[c]));
        for (size_t i = 0; i < keys_table_len; i++) {
            if (keys_table[i].context != order[c])
                continue;
            char list[128];
            keys_display_list(&keys_table[i], list, sizeof list);
            fputs("| `", f);
            for (const char *p = list; *p; p++) /* "j, Down" -> `j`, `Down` */
                if (p[0] == ',' && p[1] == ' ') {
                    fputs("`, `", f);
                    p++;
                } else {
                    fputc(*p, f);
                }
            fprintf(f, "` | %s |\n", keys_table[i].help);
        }
    }
}

/* Offset of the line starting with marker, or -1. */
static long find_line(const char *t, size_t len, const char *marker, size_t from)
{
    size_t m = strlen(marker);
    for (size_t i = from; i + m <= len;) { /* one pass over the lines */
        if (memcmp(t + i, marker, m) == 0)
            return (long)i;
        const char *nl = memchr(t + i, '\n', len - i);
        if (!nl)
            break;
        i = (size_t)(nl - t) + 1;
    }
    return -1;
}

bool keys_splice(const char *text, size_t len, const char *begin, const char *end,
                 void (*print)(FILE *), FILE *f)
{
    long b = find_line(text, len, begin, 0);
    if (b < 0)
        return false;
    const char *nl = memchr(text + b, '\n', len - (size_t)b);
    if (!nl)
        return false;
    size_t body = (size_t)(nl - text) + 1;
    long e = find_line(text, len, end, body);
    if (e < 0)
        return false;
    fwrite(text, 1, body, f);
    print(f);
    fwrite(text + e, 1, len - (size_t)e, f);
    return true;
}

bool keys_splice_man(const char *man_text, size_t len, FILE *f)
{
    return keys_splice(man_text, len, ".\\\" KEYS-BEGIN", ".\\\" KEYS-END", keys_print_man, f);
}

bool keys_splice_readme(const char *readme, size_t len, FILE *f)
{
    return keys_splice(readme, len, "<!-- KEYS-BEGIN -->", "<!-- KEYS-END -->",
                       keys_print_markdown, f);
}
