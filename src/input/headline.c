/* headline.c: the section-header lines of plan text, from one table (see headline.h). */
#include "sparkplan/headline.h"

#include <string.h>

enum match {
    TITLE,         /* "== text ==" exactly */
    TITLE_PREFIX,  /* "== text... ==" */
    WHOLE,         /* the line is text */
    PREFIX,        /* the line starts with text */
    PREFIX_DIGIT,  /* ... and a digit follows */
};

struct rule {
    const char *text;
    size_t len;
    enum match match;
    enum head_kind kind;
    const char *suffix;   /* and the line ends with it (NULL: anything) */
    size_t suffix_len;
};

#define RULE(text, match, kind) {text, sizeof text - 1, match, kind, NULL, 0}
#define RULE_ENDS(text, match, kind, suffix)                                                       \
    {text, sizeof text - 1, match, kind, suffix, sizeof suffix - 1}

/* First match wins: longer names before the names they start with.  A rule that starts
   with a capital must be known to headline_capital_may_start (headline.h) too. */
static const struct rule rules[] = {
    RULE("Parsed Logical Plan", TITLE, HEAD_PARSED),
    RULE("Analyzed Logical Plan", TITLE, HEAD_ANALYZED),
    RULE("Optimized Logical Plan", TITLE, HEAD_OPTIMIZED),
    RULE("Physical Plan", TITLE, HEAD_PHYSICAL),
    RULE("Subtree ", TITLE_PREFIX, HEAD_SUBTREE),
    RULE("===== Subqueries =====", PREFIX, HEAD_SUBQUERIES),
    RULE("===== Adaptively Optimized Out Exchanges =====", PREFIX, HEAD_OPTIMIZED_OUT),
    RULE("=====", PREFIX, HEAD_BANNER),
    /* Spark's debugCodegen always prints the count and the sentence whole. */
    RULE_ENDS("Found ", PREFIX_DIGIT, HEAD_FOUND_CODEGEN, " WholeStageCodegen subtrees."),
    RULE("Generated code:", WHOLE, HEAD_GENERATED_CODE),
    RULE("/* ", PREFIX_DIGIT, HEAD_CODE_LINE),
    RULE("Subquery:", PREFIX_DIGIT, HEAD_SUBQUERY_ENTRY),
    RULE("Subplan:", PREFIX_DIGIT, HEAD_SUBPLAN_ENTRY),
    RULE("-- !query analysis", PREFIX, HEAD_QUERY_ANALYSIS),
    RULE("-- !query output", PREFIX, HEAD_QUERY_OUTPUT),
    RULE("-- !query optimized", PREFIX, HEAD_QUERY_OUTPUT),
    RULE("-- !query", PREFIX, HEAD_QUERY_MARK),
};

/* AQE labels ("== Final Plan ==") at column 0 are titles shorter than this ending in " Plan". */
enum { AQE_LABEL_MAX = 20 };
static const char plan_suffix[] = " Plan";

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool starts(const char *s, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(s, lit, k) == 0;
}

static bool ends(const char *s, size_t n, const char *lit, size_t k)
{
    return n >= k && memcmp(s + n - k, lit, k) == 0;
}

static const char *skip_leading(const char *s, size_t *n)
{
    while (*n && (s[0] == ' ' || s[0] == '\t'))
        s++, (*n)--;
    return s;
}

static void trim_trailing(const char *s, size_t *n)
{
    while (*n && is_blank(s[*n - 1]))
        (*n)--;
}

/* "== " + a title not starting with '=' + " ==", on a trimmed line. */
static bool is_title(const char *s, size_t n)
{
    return n >= 6 && starts(s, n, "== ", 3) && s[3] != '=' && ends(s, n, " ==", 3);
}

bool headline_is_title(const char *s, size_t n)
{
    s = skip_leading(s, &n);
    /* The opening "== " first: nearly every line fails on it, and trimming the end (terminal
       padding can be long) cannot change it. */
    if (n < 6 || memcmp(s, "== ", 3) != 0 || s[3] == '=')
        return false;
    trim_trailing(s, &n);
    return is_title(s, n);
}

static bool rule_matches(const struct rule *r, const char *s, size_t n, const char *title,
                         size_t title_len)
{
    switch (r->match) {
    case TITLE:
        return title && title_len == r->len && memcmp(title, r->text, r->len) == 0;
    case TITLE_PREFIX:
        return title && starts(title, title_len, r->text, r->len);
    case WHOLE:
        return n == r->len && memcmp(s, r->text, r->len) == 0;
    case PREFIX:
        break;
    case PREFIX_DIGIT:
        if (n <= r->len || s[r->len] < '0' || s[r->len] > '9')
            return false;
        break;
    }
    return starts(s, n, r->text, r->len) &&
           (!r->suffix || ends(s + r->len, n - r->len, r->suffix, r->suffix_len));
}

/* Does a rule that is no title start with the line's first two bytes?  Only such a rule can
 * match it: a details line such as "Functions [1]: ..." (every one of a big formatted plan
 * comes here twice, from the parser and the quick scan) is turned away without a compare. */
static bool some_rule_starts(const char *s, size_t n)
{
    /* Bound: the table's few rules. */
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const struct rule *r = &rules[i];
        if (r->match != TITLE && r->match != TITLE_PREFIX && r->text[0] == s[0] &&
            (n < 2 || r->text[1] == s[1]))
            return true;
    }
    return false;
}

enum head_kind headline_kind(const char *s, size_t n)
{
    s = skip_leading(s, &n);
    /* Every name starts with one of these: most lines are turned away here. */
    if (!n || !headline_first_byte(s[0]))
        return HEAD_NONE;
    /* Titles and banners start with '='; any other line must start as a rule's text does. */
    if (s[0] != '=' && !some_rule_starts(s, n))
        return HEAD_NONE;
    trim_trailing(s, &n);
    if (n < 3)
        return HEAD_NONE;
    const char *title = NULL;
    size_t title_len = 0;
    if (is_title(s, n)) {
        title = s + 3;
        title_len = n - 6;
    }
    /* Bound: the table's few rules. */
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rule_matches(&rules[i], s, n, title, title_len))
            return rules[i].kind;
    if (!title)
        return HEAD_NONE;
    if (title_len < AQE_LABEL_MAX && ends(title, title_len, plan_suffix, sizeof plan_suffix - 1))
        return HEAD_AQE_LABEL;
    return HEAD_OTHER_HEADER;
}
