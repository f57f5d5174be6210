/* headline: the lines of plan text that name a section ("== Physical Plan ==", "Subquery:1
 * ...", "Found 3 WholeStageCodegen subtrees.", "-- !query", ...), named in one table.
 *
 * The parser (lex_header) and the paste clean-up (cl_facts) both ask here, so they cannot
 * disagree on which lines are headers; each decides only what it does with one (where the
 * line may be indented, whether a kind matters to it).
 * Owns nothing, allocates nothing, keeps no state; reads a (pointer, length) line, never past
 * its length.  Linear in the line, and most lines are told apart by their first byte.
 * Never: recursion, a hand-typed string length (the table takes them from sizeof).
 */
#ifndef SPARKPLAN_HEADLINE_H
#define SPARKPLAN_HEADLINE_H

#include <stdbool.h>
#include <stddef.h>

enum head_kind {
    HEAD_NONE,
    HEAD_PARSED,          /* == Parsed Logical Plan == */
    HEAD_ANALYZED,        /* == Analyzed Logical Plan == */
    HEAD_OPTIMIZED,       /* == Optimized Logical Plan == */
    HEAD_PHYSICAL,        /* == Physical Plan == */
    HEAD_SUBTREE,         /* == Subtree 1 / 3 (maxMethodCodeSize:...) == */
    HEAD_OTHER_HEADER,    /* == Extended Information (...) ==, == Whole Stage Codegen ==, ... */
    HEAD_AQE_LABEL,       /* == Final Plan == at column 0: a title shorter than 20 bytes
                             ending in " Plan", not a section of its own */
    HEAD_SUBQUERIES,      /* ===== Subqueries ===== */
    HEAD_OPTIMIZED_OUT,   /* ===== Adaptively Optimized Out Exchanges ===== */
    HEAD_BANNER,          /* any other line starting with "=====" */
    HEAD_FOUND_CODEGEN,   /* Found 3 WholeStageCodegen subtrees. */
    HEAD_GENERATED_CODE,  /* Generated code: */
    HEAD_CODE_LINE,       /* a generated code line number: a slash, a star, then digits */
    HEAD_SUBQUERY_ENTRY,  /* Subquery:1 Hosting operator id = ... */
    HEAD_SUBPLAN_ENTRY,   /* Subplan:1 */
    HEAD_QUERY_MARK,      /* -- !query (SQL test golden files), -- !query schema */
    HEAD_QUERY_OUTPUT,    /* -- !query output / -- !query optimized */
    HEAD_QUERY_ANALYSIS,  /* -- !query analysis: the tree that follows is an analyzed plan */
};

/* What the line names; leading and trailing blanks (' ', '\t', '\r') are skipped. */
enum head_kind headline_kind(const char *s, size_t n);

/* A "== title ==" line (after blanks; the title does not start with '='): the kinds
 * HEAD_PARSED .. HEAD_AQE_LABEL. */
bool headline_is_title(const char *s, size_t n);

/* Every line headline_kind() names starts with one of these bytes (after blanks): a caller
 * on a hot path may ask this first. */
static inline bool headline_first_byte(char c)
{
    return c == '=' || c == 'F' || c == 'G' || c == 'S' || c == '/' || c == '-';
}

/* Can a line led by a capital (at its first byte, no blanks before) be one headline_kind()
 * names?  Of the table's rules only those that are no "== title ==" start with a capital:
 * "Found ", "Generated code:", "Subquery:", "Subplan:", and headline_kind turns a line away
 * unless its first two bytes start a rule (n < 2 included).  Every other capital starts a
 * field or text.  The parser's details lines and the clean-up's facts both ask this on every
 * line, so a new rule led by a capital must be added here (check_headline holds the two to
 * the table). */
static inline bool headline_capital_may_start(const char *s, size_t n)
{
    switch (s[0]) {
    case 'F': return n < 2 || s[1] == 'o';
    case 'G': return n < 2 || s[1] == 'e';
    case 'S': return n < 2 || s[1] == 'u';
    default: return false;
    }
}

static inline bool headline_kind_is_title(enum head_kind k)
{
    return k >= HEAD_PARSED && k <= HEAD_AQE_LABEL;
}

#endif
