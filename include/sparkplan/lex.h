/* lex: classify one line of plan text (tree prefix, codegen marker, headers, formatted ids,
 * details fields, statistics, operator names).  It sits in src/input, below everything that
 * asks it: the clean-up, the parser and the model; it calls only headline.c and libc.
 *
 * Owns nothing and allocates nothing: every function reads a (pointer, length) line and
 * returns values or slices into it.  No state between calls (but the key memo a caller may
 * keep for lex_is_details_field_memo), no recursion.  Each function
 * is linear in the bytes it looks at; most look only at the start or end of the line.
 * Never: reads past the length it is given (lines are not NUL-terminated).
 */
#ifndef SPARKPLAN_LEX_H
#define SPARKPLAN_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sparkplan/headline.h"
#include "sparkplan/plan.h"
#include "sparkplan/slice.h"

/* Byte classes of details field keys, one table for the parser and the clean-up's line
 * classifier: LEX_KEY_WORD for letters, digits and '_', LEX_KEY_JOIN for the ' ' and '-'
 * that join a key's words ("Aggregate Attributes", "Join type").  Both run on every line
 * of a formatted plan's details, hence a table. */
enum { LEX_KEY_WORD = 1, LEX_KEY_JOIN = 2 };
extern const unsigned char lex_key_char[256];

/* The tree prefix: 3-character units "   ", ":  ", "+- ", ":- " read from the line start. */
struct lex_prefix {
    uint32_t units;     /* number of units */
    size_t len;         /* bytes they cover (3 * units) */
    bool branch;        /* the last unit is "+- " or ":- ": the line is a node */
    bool spaces_only;   /* every unit is "   " (AQE sub-plan roots, indented text) */
};

/* The prefix of a line that starts with a unit (s[0] is ' ', ':' or '+', n >= 3). */
void lex_tree_units(const char *s, size_t n, struct lex_prefix *out);

/* The prefix of any line.  Inline: a line that cannot start with a unit (a details line, text:
 * most lines of a formatted plan) has an empty prefix, said without a call. */
static inline void lex_tree_prefix(const char *s, size_t n, struct lex_prefix *out)
{
    if (n >= 3 && (s[0] == ' ' || s[0] == ':' || s[0] == '+'))
        lex_tree_units(s, n, out);
    else
        *out = (struct lex_prefix){.units = 0, .len = 0, .branch = false, .spaces_only = true};
}

/* An id or stage Spark cannot have printed (its ids and stages are 32-bit ints): the
 * number is past INT32_MAX.  The parser keeps such a number as text, with a warning. */
#define LEX_NUMBER_TOO_BIG (-2)

/* Codegen marker at the start of a node string: "*(N) " -> N, "* " -> 0 (formatted; the id
 * comes from the details block), "*Name" (Spark 2) -> 0, Gluten "^(N) " -> N, "^ " -> 0.
 * Returns the stage (-1 when no marker, LEX_NUMBER_TOO_BIG) and sets *skip to the marker's
 * length. */
int32_t lex_codegen_marker(const char *s, size_t n, size_t *skip);

/* s is the line without its tree prefix (headers never carry one). */
/* The section a header line starts (headline.h names them all); HEAD_NONE for the lines the
 * parser reads as text (AQE labels at column 0, other "=====" banners, code line numbers). */
enum head_kind lex_header(const char *s, size_t n);

/* "== Final Plan ==" style AQE sub-plan label (after a "+- " unit).  *inner = "Final Plan". */
bool lex_aqe_label(const char *s, size_t n, struct slice *inner);

/* Formatted outline id: the last " (N)" or " (unknown)" group of the node string, before a
 * ", Statistics(...)" suffix (stats_at: where lex_statistics found "Statistics(", or
 * SIZE_MAX), a " (columnarIn=...)" suffix or a " // comment".  Returns true when present;
 * *id is -1 for "unknown", LEX_NUMBER_TOO_BIG past INT32_MAX; *name_end is where the name
 * part of the string ends. */
bool lex_formatted_id(const char *s, size_t n, size_t stats_at, int32_t *id, size_t *name_end);

/* lex_formatted_id(s, n, lex_statistics_at(s, n), id, name_end), with a node line's common
 * case ("Name (12)", one '(') read without the search for the Statistics( group. */
bool lex_line_formatted_id(const char *s, size_t n, int32_t *id, size_t *name_end);

/* Operator name of a node string (after the codegen marker).  formatted_end is the name_end
 * of lex_formatted_id (formatted outline) or SIZE_MAX for an ordinary node string. */
struct slice lex_node_name(const char *s, size_t n, size_t formatted_end);

/* "Statistics(sizeInBytes=1.2 GiB, rowCount=5)" closing the line (its last 512 bytes, which
 * must end with ')'; the last group wins).
 * Returns true when a Statistics( group was found (stats may still be empty: "Statistics(X)");
 * *at is its position or SIZE_MAX. */
bool lex_statistics(const char *s, size_t n, struct plan_stats *out, size_t *at);
/* Where lex_statistics finds its "Statistics(" group, without reading the figures; SIZE_MAX
 * when there is none. */
size_t lex_statistics_at(const char *s, size_t n);

/* "1.5 KiB" -> 1536.  Returns false when s holds no number. */
bool lex_size_bytes(const char *s, size_t n, double *out);
/* Locale-independent decimal with optional exponent ("1.23E+6").  *used = bytes consumed. */
bool lex_number(const char *s, size_t n, double *out, size_t *used);

/* Details block header "(N) Name [codegen id : K]" / "(N) Name [Reuses operator id: M]".
 * *codegen_id is -1 when absent; *id and *codegen_id are LEX_NUMBER_TOO_BIG past INT32_MAX. */
bool lex_details_header(const char *s, size_t n, int32_t *id, struct slice *name,
                        int32_t *codegen_id);

/* A details field line: "Output [2]: [a, b]" -> ("Output", "[2]: [a, b]"),
 * "Condition : x" -> ("Condition", "x"), "Batched: true" -> ("Batched", "true"). */
bool lex_details_field(const char *s, size_t n, struct slice *key, struct slice *value);
/* Whether lex_details_field takes the line for a field (the same rule), without the key and
 * the value: the parser only counts a block's fields. */
bool lex_is_details_field(const char *s, size_t n);

/* lex_is_details_field with a memory of the lines seen, for a caller that asks it of many
 * lines ("Input [2]: ", "Condition : " come back on most lines of a formatted plan).  In a
 * slot chosen by the line's first 13 bytes, the memo keeps the first 16 bytes of a line of 16
 * or more, the verdict, and how many of those bytes the verdict read (its key, the byte that
 * ended it and what follows up to the ':' and the blank after it, all within 15 bytes).  A
 * line of 16 bytes or more that starts with those bytes gets that verdict: the rule reads
 * nothing else, and every length it compares with is below 16.  No line with the
 * "Location [" shape is kept (a line that matches a kept one's bytes up to the end of its
 * key has its key, so it is none either).  The verdict is lex_is_details_field's whatever
 * the memo holds.  The memo is the caller's (one a thread), zeroed before first use: the one
 * piece of state this module lets a caller keep. */
#define LEX_KEY_MEMO_SLOTS 64
struct lex_key_memo {
    unsigned char head[LEX_KEY_MEMO_SLOTS][16]; /* a line's first 16 bytes */
    uint16_t need[LEX_KEY_MEMO_SLOTS];          /* the bytes of them its verdict read (bit k:
                                                   byte k); 0: nothing kept */
    bool field[LEX_KEY_MEMO_SLOTS];             /* its verdict */
    /* For a field: where its key ends (before its blanks) and its value starts, both read
       from those bytes (lex_details_field_memo) */
    uint8_t key_end[LEX_KEY_MEMO_SLOTS], value_start[LEX_KEY_MEMO_SLOTS];
};
/* The memo's slot for a line of 16 bytes or more. */
static inline size_t lex_key_memo_slot(const char *s)
{
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + 5, 8);
    return (size_t)((a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full) >> 58);
}
/* The verdict when the memo does not know the line; keeps it when it can. */
bool lex_key_memo_miss(const char *s, size_t n, struct lex_key_memo *memo, size_t slot);
/* Inline: its common case (a line the memo knows) is a 16-byte compare. */
static inline bool lex_is_details_field_memo(const char *s, size_t n, struct lex_key_memo *memo)
{
    if (n < 16)
        return lex_is_details_field(s, n);
    size_t slot = lex_key_memo_slot(s);
#ifdef __SSE2__
    unsigned same = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)s),
                       _mm_loadu_si128((const __m128i *)(const void *)memo->head[slot])));
    unsigned need = memo->need[slot];
    if (need && (same & need) == need)
        return memo->field[slot];
#endif
    return lex_key_memo_miss(s, n, memo, slot);
}

/* s[0..n) without the blanks at its end (' ', '\t', '\r'): how lex_details_field ends a
 * key and a value. */
static inline struct slice lex_trim_right(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) /* bound: n */
        n--;
    return slice_make(s, n);
}

/* lex_details_field with the memo (lex_is_details_field_memo's, shared with it): a field
 * line the memo knows gets its key and value from the places kept with its verdict, which
 * the same bytes decided; any other line is read by lex_details_field.  The analysis reads
 * the fields of every scan's block this way (plan_node_detail_values). */
static inline bool lex_details_field_memo(const char *s, size_t n, struct lex_key_memo *memo,
                                          struct slice *key, struct slice *value)
{
#ifdef __SSE2__
    if (n >= 16) {
        size_t slot = lex_key_memo_slot(s);
        unsigned same = (unsigned)_mm_movemask_epi8(
            _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)s),
                           _mm_loadu_si128((const __m128i *)(const void *)memo->head[slot])));
        unsigned need = memo->need[slot];
        if (need && (same & need) == need) {
            if (!memo->field[slot])
                return false;
            size_t v = memo->value_start[slot];
            *key = lex_trim_right(s, memo->key_end[slot]);
            *value = lex_trim_right(s + v, n - v);
            return true;
        }
        if (!lex_key_memo_miss(s, n, memo, slot))
            return false;
    }
#endif
    return lex_details_field(s, n, key, value);
}

/* Could this line start a plan printed without a header?  An operator-like name: capital
 * letter, CamelCase word, not a details field, not an all-capitals word. */
bool lex_looks_like_operator(const char *s, size_t n);

/* Does the first line of a lone node string read as a sentence?  It ends with ':', '.', '?'
 * or '!', or, from byte `from` (after the operator name), two plain lowercase words follow
 * each other outside brackets, parentheses and quotes ("Join with broadcast (no shuffle):",
 * "Repartition executed in 0.47 seconds").  Spark's node strings never do either. */
bool lex_reads_as_prose(const char *s, size_t n, size_t from);

/* A line that cannot continue a node's text: a log record ("24/01/02 10:11:12 INFO ...")
 * or a REPL prompt ("scala> ", ">>> ").  It ends the tree it follows. */
bool lex_ends_tree(const char *s, size_t n);

/* A line that never continues a node's text: a closing fence (```, ~~~), the end of a
 * comment (its closing star and slash) or docstring ("""), an HTML tag (</pre>), a brace, code
 * ("df.show()", "val x = ..."), a sentence or caption ("The scan reads the rows.").  Spark's
 * own continuation lines (SQL text of a command, VALUES rows, a call site's stack frames)
 * are none of these.  Leading and trailing blanks are ignored. */
bool lex_foreign_line(const char *s, size_t n);
/* The part of it that even a line cut at a terminal's width cannot be: a closing fence, the
 * end of a comment or docstring, an HTML tag that opens or closes a code block. */
bool lex_closes_block(const char *s, size_t n);
/* The sentence part of it: a capitalised word (not a field's key), then two plain
 * lowercase words in a row ("The scan reads the rows.", "Figure 2: the plan"). */
bool lex_sentence_line(const char *s, size_t n);
/* A line whose first text after blanks and ':' is "+- " or ":- ", on Spark's grid or not. */
bool lex_tree_marker_line(const char *s, size_t n);

/* A log record: "24/01/02 10:11:12 INFO SparkContext: ...", "2024-01-02 10:11:12,345 [main]
 * INFO  o.a.s.s.e.a.InsertAdaptiveSparkPlan - ...".  *when is the time before the level word
 * (empty when the line does not start with a digit), *logger the word after it. */
bool lex_log_record(const char *s, size_t n, struct slice *when, struct slice *logger);

/* A line (after its tree prefix) that only shortens the tree: "...", "…" (U+2026) and
 * blanks.  Tutorials print "+- ..." or ":  ..." where they left operators out.  Inline: such
 * a line starts with a blank, a '.' or the ellipsis' first byte, and the rest of nearly
 * every tree line (a node's name) is turned away without a call. */
bool lex_elision_line(const char *s, size_t n);
static inline bool lex_is_elision(const char *s, size_t n)
{
    return n && (s[0] == '.' || s[0] == ' ' || s[0] == '\t' || s[0] == '\xE2') &&
           lex_elision_line(s, n);
}

/* Truncation markers, in one pass: *fields = N of "... N more fields", *chars = N of
 * "... N more characters" or "Truncated plan of N characters"; -1 when absent. */
void lex_truncation(const char *s, size_t n, long *fields, long *chars);

#endif
