/* lex.c: one-line classifiers for the clean-up, the parser and the model (see lex.h). */
#include "sparkplan/lex.h"

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

static bool is_alnum(char c)
{
    return is_digit(c) || is_upper(c) || is_lower(c);
}

static bool has_prefix_v(const char *s, size_t n, const char *p)
{
    size_t k = strlen(p);
    return n >= k && memcmp(s, p, k) == 0;
}

/* The hot paths compare against literals: their length is a compile-time constant. */
#define has_prefix(s, n, lit) ((n) >= sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)
#define has_suffix(s, n, lit)                                                                      \
    ((n) >= sizeof(lit) - 1 && memcmp((s) + (n) - (sizeof(lit) - 1), (lit), sizeof(lit) - 1) == 0)
#define is_lit(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)
#define find_last(s, n, lit) find_last_n((s), (n), (lit), sizeof(lit) - 1)

/* Parse digits at s[*i..n) into an int32 (saturating); false when none. */
static bool read_uint(const char *s, size_t n, size_t *i, int32_t *out)
{
    size_t k = *i;
    int64_t v = 0;
    while (k < n && is_digit(s[k])) {
        if (v < INT32_MAX)
            v = v * 10 + (s[k] - '0');
        k++;
    }
    if (k == *i)
        return false;
    *out = v > INT32_MAX ? INT32_MAX : (int32_t)v;
    *i = k;
    return true;
}

/* ---- eight digits at a time --------------------------------------------------------------
 * Ids and stages are read on every line of an outline and every details header: a loop over
 * their digits was 10-13 instructions a digit (7 digits in a million-operator plan).  Eight
 * bytes are classified and converted at once instead (the conversion: simdjson's
 * parse_eight_digits_unrolled). */

/* The 8 bytes at s, s[0] in the lowest byte. */
static inline uint64_t load8(const char *s)
{
    uint64_t x;
    memcpy(&x, s, 8);
    return x;
}

/* A byte of x is non-zero in the result where x's byte is no ASCII digit.  Each byte is
   tested apart (no carry crosses a byte: the sum is of nibbles, 0x15 at most). */
static inline uint64_t non_digits8(uint64_t x)
{
    const uint64_t lo = 0x0F0F0F0F0F0F0F0Full;
    return ((x & ~lo) ^ 0x3030303030303030ull) | (((x & lo) + 0x0606060606060606ull) & 0x1010101010101010ull);
}

/* The value of the 8 digits of x (the first in the lowest byte; a byte whose low nibble is
   0 stands for a leading zero). */
static inline uint32_t value8(uint64_t x)
{
    x = (x & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    x = (x & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    return (uint32_t)((x & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32);
}

/* How many digits start s[0..8) (all 8 bytes readable), their value in *v (0 for none) when
   fewer than 8 (8: the caller reads the run another way). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DIGITS8 1
#else
#define DIGITS8 0 /* (8: every caller then reads the run a digit at a time) */
#endif
static inline unsigned lead_digits8(const char *s, uint32_t *v)
{
    if (!DIGITS8)
        return 8;
    uint64_t x = load8(s), nd = non_digits8(x);
    if (!nd)
        return 8;
    unsigned k = (unsigned)__builtin_ctzll(nd) / 8;
    *v = k ? value8(x << (8 * (8 - k))) : 0;
    return k;
}

/* How many digits end end[-8..0) (all 8 bytes readable), their value in *v as above. */
static inline unsigned tail_digits8(const char *end, uint32_t *v)
{
    if (!DIGITS8)
        return 8;
    uint64_t x = load8(end - 8), nd = non_digits8(x);
    if (!nd)
        return 8;
    unsigned k = (unsigned)__builtin_clzll(nd) / 8;
    *v = k ? value8(x & ~0ull << (8 * (8 - k))) : 0;
    return k;
}

/* read_id a digit at a time: near the end of the text, and for 8 digits or more. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool read_id_bytes(const char *s, size_t n, size_t *i, int32_t *out)
{
    size_t k = *i;
    uint64_t v = 0;
    /* Once past INT32_MAX the value stops growing (it fits: at most 10 x INT32_MAX + 9):
       only whether it is too big counts then. */
    while (k < n && is_digit(s[k])) {
        if (v <= INT32_MAX)
            v = v * 10 + (uint64_t)(s[k] - '0');
        k++;
    }
    if (k == *i)
        return false;
    *out = v > INT32_MAX ? LEX_NUMBER_TOO_BIG : (int32_t)v;
    *i = k;
    return true;
}

/* An id or a stage: digits at s[*i..n) as read_uint, LEX_NUMBER_TOO_BIG past INT32_MAX
 * (never clamped: two big ids must not become one).  Inline: a few instructions for the
 * ids Spark prints. */
static inline bool read_id(const char *s, size_t n, size_t *i, int32_t *out)
{
    size_t k = *i;
    if (n - k >= 8) {
        uint32_t v8;
        unsigned d = lead_digits8(s + k, &v8);
        if (d == 0)
            return false;
        if (d < 8) {
            *out = (int32_t)v8; /* 7 digits at most: below INT32_MAX */
            *i = k + d;
            return true;
        }
    }
    return read_id_bytes(s, n, i, out);
}

/* 24 bytes = 8 units of "   " or ":  ": OR-ing the first byte of each unit with 0x1A maps
   both ' ' (0x20) and ':' (0x3A) to 0x3A, so three word compares check eight units. */
static const unsigned char unit_or[24] = {0x1A, 0, 0, 0x1A, 0, 0, 0x1A, 0, 0, 0x1A, 0, 0,
                                          0x1A, 0, 0, 0x1A, 0, 0, 0x1A, 0, 0, 0x1A, 0, 0};
static const unsigned char unit_want[24] = {0x3A, ' ', ' ', 0x3A, ' ', ' ', 0x3A, ' ', ' ',
                                            0x3A, ' ', ' ', 0x3A, ' ', ' ', 0x3A, ' ', ' ',
                                            0x3A, ' ', ' ', 0x3A, ' ', ' '};
static const char spaces24[24] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                                  ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

static bool eight_plain_units(const char *s, bool *all_spaces)
{
    uint64_t w[3], o[3], x[3];
    memcpy(w, s, 24);
    memcpy(o, unit_or, 24);
    memcpy(x, unit_want, 24);
    if (((w[0] | o[0]) != x[0]) | ((w[1] | o[1]) != x[1]) | ((w[2] | o[2]) != x[2]))
        return false;
    *all_spaces = memcmp(s, spaces24, 24) == 0;
    return true;
}

#ifdef __SSE2__
/* Bit i set where s[i] == c, for the 48 bytes in v[0..3). */
static inline uint64_t eq48(const __m128i v[3], char c)
{
    const __m128i x = _mm_set1_epi8(c);
    return (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v[0], x)) |
           (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v[1], x)) << 16 |
           (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v[2], x)) << 32;
}

/* Are the 16 units in s[0..48) all "   " or ":  "?  Two compares a byte, for the windows
   after the first of a deep line, nearly all plain. */
static bool sixteen_plain_units(const char *s, bool *all_spaces)
{
    const uint64_t unit_starts = 0x249249249249ull, all = 0xFFFFFFFFFFFFull;
    __m128i v[3];
    v[0] = _mm_loadu_si128((const __m128i *)(const void *)s);
    v[1] = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    v[2] = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
    uint64_t sp = eq48(v, ' '), colon = eq48(v, ':') & unit_starts;
    if ((sp | colon) != all)
        return false;
    *all_spaces = colon == 0;
    return true;
}

/* The 16 units in s[0..48) at once: bit 3k of *plain is set when unit k is "   " or ":  ",
   of *branch when it is "+- " or ":- ", of *blank when it is "   ". */
static void sixteen_units(const char *s, uint64_t *plain, uint64_t *branch, uint64_t *blank)
{
    const uint64_t unit_starts = 0x249249249249ull; /* bits 0, 3, ... 45 */
    __m128i v[3];
    v[0] = _mm_loadu_si128((const __m128i *)(const void *)s);
    v[1] = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    v[2] = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
    uint64_t sp = eq48(v, ' '), colon = eq48(v, ':'), plus = eq48(v, '+'), minus = eq48(v, '-');
    uint64_t third_space = (sp >> 2) & unit_starts; /* every unit ends with a space */
    *plain = (sp | colon) & (sp >> 1) & third_space;
    *branch = (plus | colon) & (minus >> 1) & third_space;
    *blank = sp & (sp >> 1) & third_space;
}
#endif

void lex_tree_units(const char *s, size_t n, struct lex_prefix *out)
{
    size_t i = 0;
    bool branch = false, spaces_only = true;
#ifdef __SSE2__
    /* Prefixes are read 16 units a round (a deep line's is 10,000 units; a formatted
       outline's or a simple plan's some 15).  Bound: each round consumes 48 bytes or ends
       the loop. */
    {
        const uint64_t unit_starts = 0x249249249249ull;
        while (i + 48 <= n) {
            bool all_spaces;
            if (i > 0 && sixteen_plain_units(s + i, &all_spaces)) {
                /* A deep line, past its first 16 units. */
                i += 48;
                spaces_only &= all_spaces;
                branch = false;
                continue;
            }
            uint64_t plain, br, blank;
            sixteen_units(s + i, &plain, &br, &blank);
            uint64_t bad = ~(plain | br) & unit_starts;
            /* The units before the first that is neither. */
            unsigned count = bad ? (unsigned)__builtin_ctzll(bad) / 3 : 16;
            if (count) {
                uint64_t taken = count == 16 ? unit_starts
                                             : ((1ull << (3 * count)) - 1) & unit_starts;
                spaces_only &= (blank & taken) == taken;
                branch = (br >> (3 * (count - 1))) & 1;
                i += 3 * count;
            }
            if (count < 16)
                /* The unit there is neither: the loop below would stop at it at once. */
                goto done;
        }
    }
#endif
    /* Bound: each step consumes 3 bytes of the line (or 24 in the fast path). */
    while (i + 3 <= n) {
        char a = s[i], b = s[i + 1], c = s[i + 2];
        if (c != ' ')
            break;
        if (b == ' ' && (a == ' ' || a == ':')) {
            bool all_spaces;
            /* Deep plans are mostly spaces and bars: take 8 units at a time. */
            if (i + 24 <= n && eight_plain_units(s + i, &all_spaces)) {
                i += 24;
                spaces_only &= all_spaces;
            } else {
                spaces_only &= a == ' ';
                i += 3;
            }
            branch = false;
        } else if ((a == '+' || a == ':') && b == '-') {
            branch = true;
            spaces_only = false;
            i += 3;
        } else {
            break;
        }
    }
#ifdef __SSE2__
done:
#endif
    out->units = (uint32_t)(i / 3);
    out->len = i;
    out->branch = branch;
    out->spaces_only = spaces_only;
}

int32_t lex_codegen_marker(const char *s, size_t n, size_t *skip)
{
    *skip = 0;
    if (n < 2 || (s[0] != '*' && s[0] != '^'))
        return -1;
    if (s[1] == ' ') {
        *skip = 2;
        return 0;
    }
    if (s[1] == '(') {
        size_t i = 2;
        int32_t v;
        if (read_id(s, n, &i, &v) && i + 1 < n && s[i] == ')' && s[i + 1] == ' ') {
            *skip = i + 2;
            return v;
        }
        return -1;
    }
    /* Spark 2 printed "*Filter": a bare star glued to a capitalised name. */
    if (s[0] == '*' && is_upper(s[1])) {
        *skip = 1;
        return 0;
    }
    return -1;
}

enum head_kind lex_header(const char *s, size_t n)
{
    enum head_kind k = headline_kind(s, n);
    /* Lines the parser reads as text: an AQE label at column 0, other "=====" banners, code
       line numbers (the code mode tells those itself). */
    if (k == HEAD_AQE_LABEL || k == HEAD_BANNER || k == HEAD_CODE_LINE)
        return HEAD_NONE;
    return k;
}

bool lex_aqe_label(const char *s, size_t n, struct slice *inner)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
        n--;
    if (n < 8 || !has_prefix(s, n, "== ") || !has_suffix(s, n, " =="))
        return false;
    *inner = slice_make(s + 3, n - 6);
    return true;
}

/* Position of the last occurrence of needle (k bytes) in s[0..n), or SIZE_MAX. */
static size_t find_last_n(const char *s, size_t n, const char *needle, size_t k)
{
    size_t found = SIZE_MAX, i = 0;
    if (k > n)
        return found;
    /* Candidates are found by the needle's first byte that is not a space (" [codegen id
       : " by its '['): names are full of spaces, a '[' is rare. */
    size_t a = 0;
    while (a + 1 < k && needle[a] == ' ')
        a++;
    /* Bound: memchr advances i past every candidate; each check is one short memcmp. */
    while (i + k <= n) {
        const char *p = memchr(s + i + a, needle[a], n - k + 1 - i);
        if (!p)
            break;
        i = (size_t)(p - s) - a;
        if (memcmp(s + i, needle, k) == 0)
            found = i;
        i++;
    }
    return found;
}

/* Walks back from s[end) over the digits of an id (21 at most: a 64-bit number's 20 and one
 * more) and returns where they start; *v is their value as read_id reads it.  Up to 9 digits
 * (every id Spark prints) the value is summed on the way back, so they are read once. */
static size_t id_digits_before(const char *s, size_t end, int32_t *v)
{
    if (end >= 8) {
        uint32_t v8;
        unsigned d = tail_digits8(s + end, &v8);
        if (d < 8) {
            *v = (int32_t)v8;
            return end - d;
        }
    }
    size_t i = end;
    uint64_t val = 0, scale = 1; /* past 19 digits they wrap, and read_id reads the run */
    /* Bound: 21 digits. */
    while (i > 0 && end - i < 21 && is_digit(s[i - 1])) {
        val += (uint64_t)(s[i - 1] - '0') * scale;
        scale *= 10;
        i--;
    }
    if (end - i > 9) {
        size_t k = i;
        read_id(s, end, &k, v);
    } else {
        *v = (int32_t)val;
    }
    return i;
}

#define COMMENT_TAIL 1024 /* an annotation after the id is a few words */

bool lex_formatted_id(const char *s, size_t n, size_t stats_at, int32_t *id, size_t *name_end)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
        n--;
    if (n && s[n - 1] != ')') {
        /* A hand-annotated outline: "Exchange (4) // DATA SHUFFLE".  Only the line's tail
         * is searched: a 50 MB generated CASE WHEN line ends in ']' and has a ')' every
         * few bytes, each one a memcmp. */
        size_t from = n > COMMENT_TAIL ? n - COMMENT_TAIL : 0;
        size_t comment = find_last(s + from, n - from, ") // ");
        if (comment == SIZE_MAX)
            return false;
        n = from + comment + 1;
    }
    /* Query stages: "ShuffleQueryStage (4), Statistics(...)". */
    if (stats_at != SIZE_MAX && stats_at >= 2 && stats_at < n && s[stats_at - 2] == ',' &&
        s[stats_at - 1] == ' ')
        n = stats_at - 2;
    /* 4.x InMemoryTableScan: "InMemoryTableScan (3) (columnarIn=false, columnarOut=true)". */
    if (n >= 2 && s[n - 2] == 'e' && (has_suffix(s, n, "true)") || has_suffix(s, n, "false)"))) {
        size_t c = find_last(s, n, " (columnarIn=");
        if (c != SIZE_MAX)
            n = c;
    }
    /* "(12)" or "(unknown)": a digit or the 'n' of "unknown" comes before the ')'.  A
       simple-mode node string ends in "...])" or "...=true)" a third of the time: turned
       away here without walking back over it. */
    if (n < 3 || s[n - 1] != ')' || !(is_digit(s[n - 2]) || s[n - 2] == 'n'))
        return false;
    int32_t v = -1;
    size_t open; /* the group's first byte after its '(' */
    if (s[n - 2] == 'n') {
        if (!has_suffix(s, n - 1, "(unknown"))
            return false;
        open = n - 8;
    } else {
        open = id_digits_before(s, n - 1, &v);
        if (open == 0 || s[open - 1] != '(')
            return false;
    }
    size_t start = open - 1; /* the '(' */
    /* The group stands apart from the name: "Project (2)", not "RoundRobinPartitioning(10)". */
    if (start > 0 && s[start - 1] != ' ')
        return false;
    *id = v;
    *name_end = start;
    return true;
}

/* Whether s[0..k) holds a '('; room: the bytes readable from s (k or more).  An outline
   name is short: one 16-byte compare instead of a memchr call when the line has 16 bytes. */
static inline bool has_paren(const char *s, size_t k, size_t room)
{
#ifdef __SSE2__
    if (k <= 16 && room >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('(')));
        return (m & ((1u << k) - 1)) != 0; /* k <= 16: the shift fits */
    }
#endif
    return memchr(s, '(', k) != NULL;
}

/* lex_formatted_id of a node line with its Statistics( place found as lex_statistics_at
 * finds it.  Most outline lines are "Name (12)" with no other '(': the only '(' stands after
 * a blank, so no "Statistics(" group, comment or columnarIn suffix can be there, and the id
 * is the one the general rules read.  That case is read at once (the search for the group
 * and the general rules were about 180 instructions an outline line). */
bool lex_line_formatted_id(const char *s, size_t n, int32_t *id, size_t *name_end)
{
    size_t end = n;
    /* Bound: the line's trailing blanks. */
    while (end && (s[end - 1] == ' ' || s[end - 1] == '\r'))
        end--;
    if (end >= 4 && s[end - 1] == ')' && is_digit(s[end - 2])) {
        int32_t v;
        size_t open = id_digits_before(s, end - 1, &v);
        if (open >= 2 && s[open - 1] == '(' && s[open - 2] == ' ' && !has_paren(s, open - 2, n)) {
            *id = v;
            *name_end = open - 1;
            return true;
        }
    }
    return lex_formatted_id(s, n, lex_statistics_at(s, n), id, name_end);
}

static struct slice trim_right(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    return slice_make(s, n);
}

/* The bytes that end a node name's first word (a table: read for every node). */
static const bool word_end_char[256] = {[' '] = 1, ['('] = 1, ['['] = 1, [','] = 1, ['<'] = 1};

/* Length of the first word: up to ' ', '(', '[', ',', '<' or the end. */
static size_t word_len(const char *s, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    /* Names are 5-30 bytes: 16 at a time (five compares) instead of a table read a byte.
       Bound: each round consumes 16 bytes or returns. */
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
        __m128i paren = _mm_cmpeq_epi8(v, _mm_set1_epi8('('));
        __m128i bracket = _mm_cmpeq_epi8(v, _mm_set1_epi8('['));
        __m128i comma = _mm_cmpeq_epi8(v, _mm_set1_epi8(','));
        __m128i angle = _mm_cmpeq_epi8(v, _mm_set1_epi8('<'));
        __m128i end = _mm_or_si128(_mm_or_si128(sp, paren),
                                   _mm_or_si128(_mm_or_si128(bracket, comma), angle));
        unsigned m = (unsigned)_mm_movemask_epi8(end);
        if (m)
            return i + (size_t)__builtin_ctz(m);
        i += 16;
    }
#endif
    while (i < n && !word_end_char[(unsigned char)s[i]])
        i++;
    return i;
}

#define word_ends_with(s, n, lit) has_suffix(s, n, lit)

/* The first ' ', '[' or ',' of s[k..n) (n when none): a scan's table name, 20-60 bytes
   ("spark_catalog.tpcds.web_sales[...]"), 16 bytes a round rather than three compares a
   byte. */
static size_t scan_word_end(const char *s, size_t k, size_t n)
{
#ifdef __SSE2__
    /* Bound: each round consumes 16 bytes or returns. */
    while (k + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + k));
        __m128i end = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
                                                _mm_cmpeq_epi8(v, _mm_set1_epi8('['))),
                                   _mm_cmpeq_epi8(v, _mm_set1_epi8(',')));
        unsigned m = (unsigned)_mm_movemask_epi8(end);
        if (m)
            return k + (size_t)__builtin_ctz(m);
        k += 16;
    }
#endif
    /* Bound: the bytes left, once. */
    while (k < n && s[k] != ' ' && s[k] != '[' && s[k] != ',')
        k++;
    return k;
}

/* The first ' ' of s[0..n) (n when none); room: the bytes readable from s (n or more).
   Sixteen bytes a compare when they are there (an outline's name and its id are). */
static inline size_t first_space(const char *s, size_t n, size_t room)
{
    size_t w = 0;
#ifdef __SSE2__
    if (room >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
        if (m)
            return (size_t)__builtin_ctz(m) < n ? (size_t)__builtin_ctz(m) : n;
        if (n <= 16)
            return n;
        w = 16;
    }
#endif
    /* Bound: the bytes of s, once. */
    while (w < n && s[w] != ' ')
        w++;
    return w;
}

/* The state prefixes of a node string (lex_node_name). */
static const bool state_prefix_char[256] = {['\''] = 1, ['!'] = 1, ['~'] = 1};

struct slice lex_node_name(const char *s, size_t n, size_t formatted_end)
{
    /* State prefixes: ' unresolved, ! missing input (or RAPIDS "will not run on GPU"),
       ~ streaming. */
    size_t i = 0;
    /* Bound: 3 bytes.  (Nearly every name starts with a letter: one table read.) */
    while (i < n && i < 3 && state_prefix_char[(unsigned char)s[i]])
        i++;
    s += i;
    n -= i;
    if (formatted_end != SIZE_MAX) {
        size_t end = formatted_end > i ? formatted_end - i : 0;
        if (end > n)
            end = n;
        struct slice name = trim_right(s, end);
        size_t w = first_space(name.ptr, name.len, n);
        /* Outline joins carry "<joinType> <buildSide>" after the name: keep the name only. */
        if (w < name.len && (word_ends_with(name.ptr, w, "Join") ||
                             word_ends_with(name.ptr, w, "CartesianProduct") ||
                             word_ends_with(name.ptr, w, "(skew=true)")))
            name.len = w;
        return name;
    }
    size_t w = word_len(s, n);
    if (w == 0)
        return trim_right(s, n < 40 ? n : 40);
    /* Skew joins keep their "(skew=true)" suffix: it is part of Spark's node name. */
    if (w < n && s[w] == '(' && has_prefix(s + w, n - w, "(skew=true)"))
        return slice_make(s, w + 11);
    if (w + 1 < n && s[w] == ' ') {
        if (is_lit(s, w, "Execute")) {
            size_t w2 = word_len(s + w + 1, n - w - 1);
            return slice_make(s, w + 1 + w2);
        }
        /* Scans name their format and table: "Scan parquet db.t", "FileScan csv db.t",
           "BatchScan cat.db.t", "Scan hive db.t", "Scan In-memory table t". */
        if (word_ends_with(s, w, "Scan")) {
            size_t end = w, words = 1;
            /* Bound: at most 4 more words, each scanned once. */
            /* Comet: "CometScan [native_iceberg_compat] parquet db.t". */
            if (end + 2 < n && s[end + 1] == '[' && is_lower(s[end + 2])) {
                size_t k = end + 2;
                while (k < n && (is_lower(s[k]) || s[k] == '_'))
                    k++;
                if (k < n && s[k] == ']')
                    end = k + 1;
            }
            while (end + 1 < n && s[end] == ' ' && words < 5) {
                char c = s[end + 1];
                if (c == '[' || c == '(' || c == '<' || c == ' ')
                    break;
                size_t k = scan_word_end(s, end + 1, n);
                if (s[k - 1] == ':')
                    break; /* "Batched:" starts the metadata */
                end = k;
                words++;
                if (k < n && s[k] != ' ')
                    break; /* glued "[cols" or "," ends the name */
            }
            return slice_make(s, end);
        }
    }
    return slice_make(s, w);
}

bool lex_number(const char *s, size_t n, double *out, size_t *used)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        neg = s[i++] == '-';
    double mant = 0;
    int exp10 = 0, digits = 0;
    while (i < n && is_digit(s[i])) {
        if (digits < 18)
            mant = mant * 10 + (s[i] - '0');
        else
            exp10++;
        digits++;
        i++;
    }
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && is_digit(s[i])) {
            if (digits < 18) {
                mant = mant * 10 + (s[i] - '0');
                exp10--;
            }
            digits++;
            i++;
        }
    }
    if (digits == 0)
        return false;
    if (i + 1 < n && (s[i] == 'E' || s[i] == 'e')) {
        size_t k = i + 1;
        bool eneg = false;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            eneg = s[k++] == '-';
        int32_t e;
        if (read_uint(s, n, &k, &e)) {
            if (e > 400)
                e = 400;
            exp10 += eneg ? -e : e;
            i = k;
        }
    }
    double v = mant;
    /* Bound: |exp10| <= ~420, in steps of 22. */
    while (exp10 > 0) {
        int step = exp10 > 22 ? 22 : exp10;
        v *= pow10[step];
        exp10 -= step;
    }
    while (exp10 < 0) {
        int step = -exp10 > 22 ? 22 : -exp10;
        v /= pow10[step];
        exp10 += step;
    }
    *out = neg ? -v : v;
    *used = i;
    return true;
}

bool lex_size_bytes(const char *s, size_t n, double *out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {
        {"EiB", 1152921504606846976.0}, {"PiB", 1125899906842624.0}, {"TiB", 1099511627776.0},
        {"GiB", 1073741824.0},          {"MiB", 1048576.0},          {"KiB", 1024.0},
        {"B", 1.0},
    };
    double v;
    size_t used;
    if (!lex_number(s, n, &v, &used))
        return false;
    size_t i = used;
    while (i < n && s[i] == ' ')
        i++;
    double scale = 1.0;
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
        if (has_prefix_v(s + i, n - i, units[u].unit)) {
            scale = units[u].scale;
            break;
        }
    *out = v * scale;
    return true;
}

/* Spark appends ", Statistics(...)" to the node string, so the group closes the line, and
   it is short (sizeInBytes, rowCount, hints, Photon's ColumnStat / isRuntime): only that
   tail of a line ending with ')' is searched, not a 2 KB scan string on every line. */
#define STATS_TAIL 512

/* Is "Statistics" the 10 bytes before s[c] (c >= 10)? */
static inline bool statistics_before(const char *s, size_t c)
{
    return memcmp(s + c - 10, "Statistics", 10) == 0;
}

/* The last '(' of the mask m (bit b: s[base + b]) that closes "Statistics": where its
   group starts, or SIZE_MAX. */
static inline size_t statistics_in(const char *s, size_t base, unsigned m)
{
    /* Bound: each '(' of the mask once, from the last. */
    while (m) {
        unsigned b = 31u - (unsigned)__builtin_clz(m);
        if (statistics_before(s, base + b))
            return base + b - 10;
        m &= ~(1u << b);
    }
    return SIZE_MAX;
}

/* find_last(s + from, n - from, "Statistics(") + from, or SIZE_MAX: the last such group,
   found by its '(' from the end, 16 bytes a compare.  Asked of every node line that ends
   with ')' (a formatted outline's every line: its one '(' turns it away), where a search
   for the 'S' of every name was 80 instructions a line. */
static size_t last_statistics(const char *s, size_t from, size_t n)
{
    if (n < from + 11)
        return SIZE_MAX;
    size_t lo = from + 10; /* the lowest place of the group's '(' */
    size_t c = n;          /* places below c are left to look at */
#ifdef __SSE2__
    const __m128i paren = _mm_set1_epi8('(');
    /* Bound: 16 bytes a round, down to lo. */
    while (c >= lo + 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + c - 16));
        size_t at = statistics_in(s, c - 16, (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, paren)));
        if (at != SIZE_MAX)
            return at;
        c -= 16;
    }
    if (c > lo && c >= 16) {
        /* The last places: the 16 bytes before c, those below lo left out. */
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + c - 16));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, paren));
        return statistics_in(s, c - 16, m & 0xFFFFu << (lo - (c - 16))); /* shift < 16 */
    }
#endif
    /* Bound: the bytes left above lo (a short line's). */
    while (c > lo) {
        c--;
        if (s[c] == '(' && statistics_before(s, c))
            return c - 10;
    }
    return SIZE_MAX;
}

size_t lex_statistics_at(const char *s, size_t n)
{
    size_t end = n;
    while (end && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
        end--;
    if (end == 0 || s[end - 1] != ')')
        return SIZE_MAX;
    size_t from = end > STATS_TAIL ? end - STATS_TAIL : 0;
    return last_statistics(s, from, n);
}

bool lex_statistics(const char *s, size_t n, struct plan_stats *out, size_t *at_out)
{
    size_t at = lex_statistics_at(s, n);
    *at_out = at;
    if (at == SIZE_MAX)
        return false;
    const char *p = s + at + 11;
    size_t m = n - at - 11;
    const char *close = memchr(p, ')', m);
    if (close)
        m = (size_t)(close - p);
    memset(out, 0, sizeof *out);
    size_t k = find_last(p, m, "sizeInBytes=");
    if (k != SIZE_MAX)
        out->has_size = lex_size_bytes(p + k + 12, m - k - 12, &out->size_bytes);
    k = find_last(p, m, "rowCount=");
    if (k != SIZE_MAX) {
        size_t used;
        out->has_rows = lex_number(p + k + 9, m - k - 9, &out->row_count, &used);
    }
    return true;
}

/* Where " [codegen id : 12]" starts when it closes the line, as it does in Spark's own
   output; SIZE_MAX otherwise.  It is then the last one in the line (only digits and ']'
   follow it), found without searching the line for every '['. */
static size_t codegen_tail(const char *s, size_t n, int32_t *value)
{
    static const char mark[] = " [codegen id : ";
    const size_t k = sizeof mark - 1;
    if (n < k + 2 || s[n - 1] != ']')
        return SIZE_MAX;
    size_t d = n - 1;
    uint32_t v8;
    unsigned t = d >= 8 ? tail_digits8(s + d, &v8) : 8;
    *value = -1; /* (8 digits or more: the caller reads them) */
    if (t < 8) {
        d -= t;
        *value = (int32_t)v8;
    } else
        /* Bound: walks back over the digits only. */
        while (d > k && is_digit(s[d - 1]))
            d--;
    if (d == n - 1 || d < k || memcmp(s + d - k, mark, k) != 0)
        return SIZE_MAX;
    return d - k;
}

bool lex_details_header(const char *s, size_t n, int32_t *id, struct slice *name,
                        int32_t *codegen_id)
{
    if (n < 3 || s[0] != '(')
        return false;
    size_t i = 1;
    int32_t v;
    if (!read_id(s, n, &i, &v) || i >= n || s[i] != ')')
        return false;
    i++;
    if (i < n && s[i] != ' ')
        return false;
    if (i < n)
        i++;
    struct slice rest = trim_right(s + i, n - i);
    *codegen_id = -1;
    int32_t tail_stage;
    size_t cg = codegen_tail(rest.ptr, rest.len, &tail_stage);
    if (cg != SIZE_MAX && tail_stage >= 0) {
        /* (its digits read on the way back) */
        *codegen_id = tail_stage;
        rest.len = cg;
    } else if (cg == SIZE_MAX) {
        cg = find_last(rest.ptr, rest.len, " [codegen id : ");
    }
    if (cg != SIZE_MAX && rest.len != cg) {
        size_t k = cg + 15;
        int32_t c;
        if (read_id(rest.ptr, rest.len, &k, &c))
            *codegen_id = c;
        rest.len = cg;
    }
    size_t re = find_last(rest.ptr, rest.len, " [Reuses operator id: ");
    if (re != SIZE_MAX)
        rest.len = re;
    *id = v;
    *name = trim_right(rest.ptr, rest.len);
    return true;
}

/* The byte classes of details field keys (lex.h). */
#define W LEX_KEY_WORD
const unsigned char lex_key_char[256] = {
    [' '] = LEX_KEY_JOIN, ['-'] = LEX_KEY_JOIN, ['_'] = W,
    ['0'] = W, ['1'] = W, ['2'] = W, ['3'] = W, ['4'] = W, ['5'] = W, ['6'] = W, ['7'] = W,
    ['8'] = W, ['9'] = W,
    ['A'] = W, ['B'] = W, ['C'] = W, ['D'] = W, ['E'] = W, ['F'] = W, ['G'] = W, ['H'] = W,
    ['I'] = W, ['J'] = W, ['K'] = W, ['L'] = W, ['M'] = W, ['N'] = W, ['O'] = W, ['P'] = W,
    ['Q'] = W, ['R'] = W, ['S'] = W, ['T'] = W, ['U'] = W, ['V'] = W, ['W'] = W, ['X'] = W,
    ['Y'] = W, ['Z'] = W,
    ['a'] = W, ['b'] = W, ['c'] = W, ['d'] = W, ['e'] = W, ['f'] = W, ['g'] = W, ['h'] = W,
    ['i'] = W, ['j'] = W, ['k'] = W, ['l'] = W, ['m'] = W, ['n'] = W, ['o'] = W, ['p'] = W,
    ['q'] = W, ['r'] = W, ['s'] = W, ['t'] = W, ['u'] = W, ['v'] = W, ['w'] = W, ['x'] = W,
    ['y'] = W, ['z'] = W,
};
#undef W

/* The first index at or after i (and before limit) whose byte is not a key byte
   (lex_key_char, either class).  16 bytes a compare: keys like "Aggregate Attributes" are long, and
   every details line has one. */
static size_t key_span(const char *s, size_t i, size_t limit)
{
#ifdef __SSE2__
    const __m128i lower_bit = _mm_set1_epi8(0x20);
    const __m128i a1 = _mm_set1_epi8('a' - 1), z1 = _mm_set1_epi8('z' + 1);
    const __m128i d1 = _mm_set1_epi8('0' - 1), d9 = _mm_set1_epi8('9' + 1);
    const __m128i sp = _mm_set1_epi8(' '), us = _mm_set1_epi8('_'), dash = _mm_set1_epi8('-');
    /* Bound: 16 bytes a round.  Bytes above 0x7F are negative to the signed compares: no
       key byte, as in the table. */
    while (i + 16 <= limit) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i low = _mm_or_si128(v, lower_bit); /* 'A'..'Z' -> 'a'..'z' */
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(low, a1), _mm_cmplt_epi8(low, z1));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, d1), _mm_cmplt_epi8(v, d9));
        __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, us)),
                                     _mm_cmpeq_epi8(v, dash));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other));
        if (m != 0xFFFFu)
            return i + (size_t)__builtin_ctz(~m);
        i += 16;
    }
#endif
    while (i < limit && lex_key_char[(unsigned char)s[i]])
        i++;
    return i;
}

/* The rest of a details field's shape once its key's run of key bytes ends at i (key_span's
   answer over the first limit bytes): what follows the key says whether it is one. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool field_after_key(const char *s, size_t n, size_t limit, size_t i,
                                   size_t *key_end, size_t *value_start)
{
    *key_end = i;
    if (i < limit && s[i] == '[') {
        /* "Output [2]: [...]": the count stays with the value. */
        size_t k = i + 1;
        int32_t cnt;
        if (!read_uint(s, n, &k, &cnt) || k + 1 >= n || s[k] != ']' || s[k + 1] != ':')
            return false;
        *value_start = i;
        k += 2;
        if (k < n && s[k] != ' ')
            return false;
    } else if (i < n && s[i] == ':') {
        if (i + 1 < n && s[i + 1] != ' ')
            return false;
        *value_start = i + 1 < n ? i + 2 : n;
    } else {
        return false;
    }
    /* The key is never empty: s[0], a capital, is a key byte that no trim takes. */
    return true;
}

/* "Location [not included in comparison]...": PlanStabilitySuite rewrites "Location: ..."
   so. */
static inline bool location_rewritten(const char *s, size_t n)
{
    return has_prefix(s, n, "Location [");
}

/* The shape of a details field: where its key ends (before blanks: trim them) and its value
   starts; false when the line is none.  The one rule book of lex_details_field and
   lex_is_details_field.  Inline: the parser asks it of most lines of a formatted plan. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline bool field_shape(const char *s, size_t n, size_t *key_end, size_t *value_start)
{
    if (n == 0 || !is_upper(s[0]))
        return false;
    if (location_rewritten(s, n)) {
        *key_end = 8;
        *value_start = 9;
        return true;
    }
    size_t limit = n < 64 ? n : 64;
    return field_after_key(s, n, limit, key_span(s, 0, limit), key_end, value_start);
}

bool lex_details_field(const char *s, size_t n, struct slice *key, struct slice *value)
{
    size_t key_end, value_start;
    if (!field_shape(s, n, &key_end, &value_start))
        return false;
    *key = trim_right(s, key_end);
    *value = trim_right(s + value_start, n - value_start);
    return true;
}

bool lex_is_details_field(const char *s, size_t n)
{
    size_t key_end, value_start;
    return field_shape(s, n, &key_end, &value_start);
}

bool lex_key_memo_miss(const char *s, size_t n, struct lex_key_memo *memo, size_t slot)
{
    if (n < 16 || !is_upper(s[0]) || location_rewritten(s, n))
        return lex_is_details_field(s, n); /* (none of these is kept: see lex.h) */
    size_t limit = n < 64 ? n : 64, i = key_span(s, 0, limit), key_end = 0, value_start = 0;
    bool field = field_after_key(s, n, limit, i, &key_end, &value_start);
    /* The last byte field_after_key may read: the one that ended the key's run; after a '['
       the digits, the byte after them and two more; after a ':' one more. */
    size_t last = i;
    if (i < 16 && s[i] == '[') {
        last = i + 1;
        /* Bound: 16 bytes. */
        while (last < 16 && is_digit(s[last]))
            last++;
        last += 2;
    } else if (i < 16 && s[i] == ':') {
        last = i + 1;
    }
    /* Every place field_after_key compares with n or 64 is at most last + 1 <= 15 < n: the
       same answers for any line of 16 bytes or more that starts with s[0..last]. */
    if (last < 15) {
        memcpy(memo->head[slot], s, 16);
        memo->need[slot] = (uint16_t)((2u << last) - 1u);
        memo->field[slot] = field;
        /* Both are at most last + 1 (a field's value starts after its ": " or at its '['),
           so the kept bytes decide them too. */
        memo->key_end[slot] = field ? (uint8_t)key_end : 0;
        memo->value_start[slot] = field ? (uint8_t)value_start : 0;
    }
    return field;
}

bool lex_looks_like_operator(const char *s, size_t n)
{
    size_t i = 0;
    lex_codegen_marker(s, n, &i);
    while (i < n && i < 8 && (s[i] == '\'' || s[i] == '!' || s[i] == '~'))
        i++;
    if (i >= n || !is_upper(s[i]))
        return false;
    size_t start = i;
    bool lower = false;
    while (i < n && (is_alnum(s[i]) || s[i] == '_')) {
        lower |= is_lower(s[i]);
        i++;
    }
    if (i - start < 2 || !lower)
        return false;
    if (i < n && s[i] != ' ' && s[i] != '(' && s[i] != '[' && s[i] != ',' && s[i] != '\r')
        return false;
    /* Column-aligned tables (DESCRIBE, SHOW output) pad with runs of spaces or tabs; a node
       string never does right after its name. */
    if (i + 1 < n && s[i] == ' ' && s[i + 1] == ' ')
        return false;
    if (memchr(s, '\t', n))
        return false;
    struct slice k, v;
    if (lex_details_field(s, n, &k, &v))
        return false;
    return true;
}

void lex_truncation(const char *s, size_t n, long *fields, long *chars)
{
    *fields = *chars = -1;
    size_t i = 0;
    /* Bound: memchr skips to each "..." candidate; each check reads a few digits. */
    while (i + 5 <= n) {
        const char *p = memchr(s + i, '.', n - i);
        if (!p)
            break;
        i = (size_t)(p - s);
        if (i + 4 < n && p[1] == '.' && p[2] == '.' && p[3] == ' ' && is_digit(p[4])) {
            size_t k = i + 4;
            int32_t v = 0;
            read_uint(s, n, &k, &v);
            if (has_prefix(s + k, n - k, " more fields"))
                *fields = v;
            else if (has_prefix(s + k, n - k, " more characters"))
                *chars = v;
        }
        i++;
    }
    /* A cap of 0 replaces the whole plan with this sentence. */
    if (has_prefix(s, n, "Truncated plan of ")) {
        size_t k = 18;
        int32_t c;
        if (read_uint(s, n, &k, &c) && has_prefix(s + k, n - k, " characters"))
            *chars = c;
    }
}

bool lex_ends_tree(const char *s, size_t n)
{
    if (n == 0)
        return false;
    /* REPL prompts. */
    if (has_prefix(s, n, "scala> ") || has_prefix(s, n, ">>> ") || has_prefix(s, n, "spark-sql") ||
        has_prefix(s, n, "In [") || has_prefix(s, n, "Out[") || has_prefix(s, n, "$ "))
        return true;
    /* Log records: a level word near the start ("24/01/02 10:11:12 INFO SparkContext: ...",
       "INFO  2024-01-02 ...", "[WARN] ..."). */
    static const char *const levels[] = {"INFO ", "WARN ", "ERROR ", "DEBUG ", "TRACE ", "FATAL "};
    size_t lim = n < 40 ? n : 40;
    size_t start = s[0] == '[' ? 1 : 0;
    for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
        size_t l = strlen(levels[k]);
        if (has_prefix_v(s + start, n - start, levels[k]))
            return true;
        if (!is_digit(s[0]))
            continue;
        /* Bound: the first 40 bytes. */
        for (size_t i = 1; i + l <= lim; i++)
            if (s[i - 1] == ' ' && memcmp(s + i, levels[k], l) == 0)
                return true;
    }
    return false;
}

bool lex_log_record(const char *s, size_t n, struct slice *when, struct slice *logger)
{
    static const char *const levels[] = {"INFO", "WARN", "ERROR", "DEBUG", "TRACE", "FATAL"};
    size_t lim = n < 80 ? n : 80;
    /* Bound: the first 80 bytes, six words each. */
    for (size_t i = 0; i < lim; i++) {
        if (i > 0 && s[i - 1] != ' ' && s[i - 1] != '[')
            continue;
        /* The levels start with these bytes: a word that starts otherwise is none of them
           (six compares a word was 2,800 instructions a plan of a paste). */
        char c = s[i];
        if (c != 'I' && c != 'W' && c != 'E' && c != 'D' && c != 'T' && c != 'F')
            continue;
        for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++) {
            size_t l = strlen(levels[k]);
            if (i + l >= n || memcmp(s + i, levels[k], l) != 0 || (s[i + l] != ' ' && s[i + l] != ']'))
                continue;
            /* The time: what comes before the level, without a "[thread]" group. */
            size_t te = i;
            while (te > 0 && (s[te - 1] == ' ' || s[te - 1] == '['))
                te--;
            if (te > 0 && s[te - 1] == ']') {
                size_t ob = te;
                while (ob > 0 && s[ob - 1] != '[')
                    ob--;
                if (ob > 0)
                    te = ob - 1;
                while (te > 0 && s[te - 1] == ' ')
                    te--;
            }
            *when = te && is_digit(s[0]) ? slice_make(s, te) : slice_make(NULL, 0);
            /* The logger: the next word, up to ':' or a blank. */
            size_t b = i + l;
            while (b < n && (s[b] == ' ' || s[b] == ']'))
                b++;
            size_t e = b;
            while (e < n && s[e] != ' ' && s[e] != ':')
                e++;
            *logger = slice_make(s + b, e - b);
            return when->len > 0 || logger->len > 0;
        }
    }
    return false;
}

/* ident(.ident)*(...) closing the line: "df.show()", "spark.stop()", "print(plan)".  A
   stack frame ("org.x.Dataset.cache(Dataset.scala:2912)", "(Native Method)") is the text of
   a node Spark printed with its call site, not code. */
static bool code_call(const char *s, size_t n)
{
    size_t i = 0, dots = 0;
    /* Bound: the line, once. */
    while (i < n && (is_alnum(s[i]) || s[i] == '_' || s[i] == '.')) {
        dots += s[i] == '.';
        i++;
    }
    if (i == 0 || i >= n || s[i] != '(' || s[n - 1] != ')' || !is_lower(s[0]))
        return false;
    static const char *const calls[] = {"print(", "display(", "println(", "assert("};
    bool known = false;
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++)
        known = known || has_prefix_v(s, n, calls[k]);
    if (!dots && !known)
        return false;
    for (size_t k = i; k + 1 < n; k++)
        if ((s[k] == '.' && k + 6 < n && (memcmp(s + k, ".scala:", 7) == 0)) ||
            (s[k] == '.' && k + 5 < n && memcmp(s + k, ".java:", 6) == 0) ||
            (s[k] == 'N' && has_prefix(s + k, n - k, "Native Method")) ||
            (s[k] == '<' && has_prefix(s + k, n - k, "<console>")))
            return false;
    return true;
}

bool lex_closes_block(const char *s, size_t n)
{
    while (n && (s[0] == ' ' || s[0] == '\t'))
        s++, n--;
    return has_prefix(s, n, "```") || has_prefix(s, n, "~~~") || has_prefix(s, n, "*/") ||
           has_prefix(s, n, "**/") || has_prefix(s, n, "\"\"\"") || has_prefix(s, n, "\'\'\'") ||
           has_prefix(s, n, "</") || has_prefix(s, n, "<pre") || has_prefix(s, n, "<code");
}

bool lex_tree_marker_line(const char *s, size_t n)
{
    size_t i = 0;
    /* Bound: the line's prefix, once. */
    while (i < n && (s[i] == ' ' || s[i] == ':') && !(i + 1 < n && s[i] == ':' && s[i + 1] == '-'))
        i++;
    return i + 2 < n && (s[i] == '+' || s[i] == ':') && s[i + 1] == '-' && s[i + 2] == ' ';
}

bool lex_sentence_line(const char *s, size_t n)
{
    while (n && (s[0] == ' ' || s[0] == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    /* Prose and captions: a capitalised word ("The", "Figure"), not a field's key, then two
       plain lowercase words in a row.  The end of the line says nothing here: a hard-wrapped
       node string goes on with "Format: Parquet, Location:". */
    if (n >= 2 && is_upper(s[0]) && is_lower(s[1])) {
        size_t w = 0;
        while (w < n && s[w] != ' ')
            w++;
        if (w < 2 || s[w - 1] == ':' || s[w - 1] == ',')
            return false;
        while (n > w && (s[n - 1] == '.' || s[n - 1] == ':' || s[n - 1] == '?' || s[n - 1] == '!'))
            n--;
        return lex_reads_as_prose(s, n, w);
    }
    return false;
}

/* "aria-label=" or "data-toggle" anywhere in the line.  Both have their '-' at 4, a byte most
   plan lines hold few of, where an 'a' or a 'd' comes every few bytes. */
static bool copy_button_attr(const char *s, size_t n)
{
    /* Bound: each '-' found by memchr is tried once. */
    for (const char *p = s + (n > 4 ? 4 : n); (p = memchr(p, '-', (size_t)(s + n - p))) != NULL;
         p++) {
        size_t left = (size_t)(s + n - (p - 4));
        if (left >= 11 && (memcmp(p - 4, "aria-label=", 11) == 0 ||
                           memcmp(p - 4, "data-toggle", 11) == 0))
            return true;
    }
    return false;
}

bool lex_foreign_line(const char *s, size_t n)
{
    while (n && (s[0] == ' ' || s[0] == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n == 0)
        return false;
    /* Every test below but the copy button's and the semicolon's needs its own first byte:
       a plan line (a details field, an operator's text) is done after a few compares. */
    char c0 = s[0];
    bool lower = is_lower(c0);
    if (!lower && !is_upper(c0) && !strchr("`~*\"'<}=-#/%", c0))
        return s[n - 1] == ';' || copy_button_attr(s, n);
    /* Fences, comment and docstring ends, HTML closing tags, code blocks' braces. */
    if (lex_closes_block(s, n) || s[0] == '}' || has_prefix(s, n, "==>") || has_prefix(s, n, "-->") ||
        has_prefix(s, n, "# COMMAND ---") || has_prefix(s, n, "-- COMMAND ---") ||
        has_prefix(s, n, "// COMMAND ---") ||
        has_prefix(s, n, "=>") || has_prefix(s, n, "->"))
        return true;
    /* Any other HTML tag, and a copy button's attributes left behind by a web page. */
    if ((s[0] == '<' && n > 1 && (is_lower(s[1]) || is_upper(s[1])) &&
         !has_prefix(s, n, "<empty>")) ||
        copy_button_attr(s, n))
        return true;
    /* Code: a call, an assignment or a declaration, a statement's semicolon. */
    if ((lower && code_call(s, n)) || s[n - 1] == ';')
        return true;
    static const char *const decls[] = {"val ", "var ", "def ", "import ", "from ", "return ",
                                        "%sql", "%python", "%scala", "%md"};
    /* Bound: ten prefixes, tried on lines that start like one of them. */
    for (size_t k = 0; (lower || c0 == '%') && k < sizeof decls / sizeof decls[0]; k++)
        if (has_prefix_v(s, n, decls[k]) && n > strlen(decls[k]) && is_lower(s[1]))
            return true;
    return is_upper(c0) && lex_sentence_line(s, n);
}

bool lex_elision_line(const char *s, size_t n)
{
    size_t i = 0;
    /* Bound: the line, once. */
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    size_t start = i;
    if (n - i >= 3 && (unsigned char)s[i] == 0xE2 && (unsigned char)s[i + 1] == 0x80 &&
        (unsigned char)s[i + 2] == 0xA6) {
        i += 3; /* U+2026 "…" */
    } else {
        while (i < n && s[i] == '.')
            i++;
        if (i - start < 3)
            return false;
    }
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    return i == n;
}

/* A run of lowercase letters at s[i..) of at least 2, ending where a word ends. */
static size_t lower_word(const char *s, size_t n, size_t i)
{
    size_t k = i;
    while (k < n && is_lower(s[k]))
        k++;
    if (k - i < 2)
        return 0;
    if (k < n && s[k] != ' ' && s[k] != ',' && s[k] != '.' && s[k] != ';' && s[k] != ':' &&
        s[k] != '!' && s[k] != '?')
        return 0;
    return k - i;
}

/* One byte of lex_reads_as_prose's walk at i (> 0 unless the walk starts at 0): true when two
   plain lowercase words start there.  A byte that is no quote, no bracket and no lowercase
   letter after a space changes nothing. */
static inline bool prose_step(const char *s, size_t n, size_t i, int *depth, bool *quoted)
{
    char c = s[i];
    if (c == '`' || c == '"') {
        *quoted = !*quoted;
        return false;
    }
    if (*quoted)
        return false;
    if (c == '(' || c == '[' || c == '{') {
        (*depth)++;
        return false;
    }
    if ((c == ')' || c == ']' || c == '}') && *depth > 0) {
        (*depth)--;
        return false;
    }
    if (*depth || !is_lower(c) || (i > 0 && s[i - 1] != ' '))
        return false;
    size_t w1 = lower_word(s, n, i);
    /* lower_word only looks ahead of i: the walk goes on after it. */
    return w1 && i + w1 + 1 < n && s[i + w1] == ' ' && lower_word(s, n, i + w1 + 1);
}

bool lex_reads_as_prose(const char *s, size_t n, size_t from)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n == 0)
        return false;
    /* A line that introduces what follows, or ends a sentence ("..." is Spark's cut). */
    char last = s[n - 1];
    if (last == ':' || last == '?' || last == '!')
        return true;
    if (last == '.' && !has_suffix(s, n, ".."))
        return true;
    /* Two plain lowercase words in a row outside brackets, parentheses and quotes: "with
       broadcast", "executed in".  Node arguments are lists, expressions, identifiers and
       single keywords ("Relation [a#1] parquet", "DropTempViewCommand t"); English words
       inside expressions ("cast(x as int)") sit in parentheses. */
    int depth = 0;
    bool quoted = false;
    size_t i = from < n ? from : n;
    if (i == 0 && n && prose_step(s, n, i++, &depth, &quoted))
        return true;
#ifdef __SSE2__
    /* Only a quote, a bracket, or a lowercase letter after a space does anything in
       prose_step: 16 bytes without one are skipped at once (details lines are long). */
    const __m128i sp = _mm_set1_epi8(' '), a1 = _mm_set1_epi8('a' - 1), z1 = _mm_set1_epi8('z' + 1);
    /* Bound: 16 bytes a round; each marked byte is stepped once, in order. */
    while (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i before = _mm_loadu_si128((const __m128i *)(const void *)(s + i - 1));
        __m128i word = _mm_and_si128(_mm_and_si128(_mm_cmpgt_epi8(v, a1), _mm_cmplt_epi8(v, z1)),
                                     _mm_cmpeq_epi8(before, sp));
        __m128i mark = _mm_or_si128(
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('`')),
                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
                         _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('(')),
                                      _mm_cmpeq_epi8(v, _mm_set1_epi8(')')))),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('[')),
                                      _mm_cmpeq_epi8(v, _mm_set1_epi8(']'))),
                         _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('{')),
                                      _mm_cmpeq_epi8(v, _mm_set1_epi8('}')))));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(mark, word));
        for (; m; m &= m - 1)
            if (prose_step(s, n, i + (size_t)__builtin_ctz(m), &depth, &quoted))
                return true;
        i += 16;
    }
#endif
    /* Bound: each byte once. */
    for (; i < n; i++)
        if (prose_step(s, n, i, &depth, &quoted))
            return true;
    return false;
}
