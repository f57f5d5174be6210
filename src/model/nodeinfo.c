/* nodeinfo.c: facts read off one node in any explain mode (see nodeinfo.h). */
#include "sparkplan/nodeinfo.h"
#include "sparkplan/namekey.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The catalogue entry of an operator name, remembered: the analysis asks for the entry of
 * every node several times, and a plan has a few dozen distinct names for 10^5-10^6 nodes.
 * A direct-mapped cache keyed by the name's bytes (the lookup is a pure function of them);
 * longer names are looked up every time.  One per thread: the explorer analyses on a thread
 * of its own while its main thread draws, and both look names up. */
#define NAME_CACHE_SLOTS 256
#define NAME_CACHE_KEY 80  /* "FileScan parquet spark_catalog.tpcds.catalog_sales" is 49 */

static _Thread_local struct name_cache_slot {
    char key[NAME_CACHE_KEY];
    uint8_t len;  /* 0: empty slot */
    const struct catalog_entry *entry;
} name_cache[NAME_CACHE_SLOTS];

static const struct catalog_entry *entry_of_name(struct slice name)
{
    if (name.len == 0 || name.len > NAME_CACHE_KEY)
        return catalog_lookup_slice(name);
    /* Two slots a name: a few dozen names in 256 slots share one now and then (Exchange
     * and Sort did), and one-slot sharing made every other look-up a miss. */
    uint32_t h = namekey_hash(name) % NAME_CACHE_SLOTS;
    struct name_cache_slot *slot = &name_cache[h], *other = &name_cache[(h + 1) % NAME_CACHE_SLOTS];
    if (slot->len == name.len && namekey_same(slot->key, name.ptr, name.len))
        return slot->entry;
    if (other->len == name.len && namekey_same(other->key, name.ptr, name.len))
        return other->entry;
    if (slot->len)
        slot = other;
    slot->entry = catalog_lookup_slice(name);
    memcpy(slot->key, name.ptr, name.len);
    slot->len = (uint8_t)name.len;
    return slot->entry;
}

const struct catalog_entry *node_entry(const struct plan_node *n)
{
    if (!n || node_is_label(n))
        return NULL;
    if (!plan_node_name(n).len)
        return catalog_lookup_slice(plan_node_text(n));
    const struct catalog_entry *e = entry_of_name(plan_node_name(n));
    return e ? e : catalog_lookup_slice(plan_node_text(n));
}

enum catalog_role node_role(const struct plan_node *n)
{
    const struct catalog_entry *e = node_entry(n);
    return e ? e->role : CAT_OTHER;
}

/* The first needle (n >= 1 bytes) in hay.  Most searches here are in one node's text, a
 * few hundred bytes, where memmem's set-up (a 256-byte shift table each call) cost more than
 * the search.  Not memchr for the first byte either: the needles start with a space
 * (" AS ", " more field"), and a 50 MB generated CASE WHEN line has millions of spaces.
 * With SSE2, 16 starts a step are tested on the needle's first and last byte together, and
 * only starts that pass both are compared whole. */
static const char *find_bytes(const char *hay, size_t len, const char *needle, size_t n)
{
    if (n > len)
        return NULL;
    size_t last = len - n; /* the last start */
    size_t i = 0;
#ifdef __SSE2__
    if (n > 1) {
        const __m128i first = _mm_set1_epi8(needle[0]), tail = _mm_set1_epi8(needle[n - 1]);
        for (; i + 16 <= last + 1; i += 16) { /* bound: 16 starts a step */
            __m128i a = _mm_loadu_si128((const __m128i *)(hay + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(hay + i + n - 1));
            unsigned mask = (unsigned)_mm_movemask_epi8(
                _mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, tail)));
            while (mask) { /* bound: one bit per candidate start */
                unsigned k = (unsigned)__builtin_ctz(mask);
                if (memcmp(hay + i + k + 1, needle + 1, n - 2) == 0)
                    return hay + i + k;
                mask &= mask - 1;
            }
        }
    } else {
        return memchr(hay, needle[0], len);
    }
#endif
    for (; i <= last; i++) /* bound: the starts left, fewer than 16 with SSE2 */
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0)
            return hay + i;
    return NULL;
}

long slice_find_n(struct slice hay, const char *needle, size_t n, size_t from)
{
    if (n == 0 || hay.len < n || from > hay.len - n)
        return -1;
    const char *hit = find_bytes(hay.ptr + from, hay.len - from, needle, n);
    return hit ? hit - hay.ptr : -1;
}

/* The bytes slice_next_structural stops at, by value. */
static const bool structural_byte[256] = {
    ['['] = true, [']'] = true, ['('] = true, [')'] = true, ['<'] = true,
    ['>'] = true, ['{'] = true, ['}'] = true, [','] = true,
};

#ifdef __SSE2__
/* The structural bytes of the 16 at p, bit k for p[k]. */
static inline uint32_t structural_mask16(const char *p)
{
    const __m128i sq_open = _mm_set1_epi8('['), sq_close = _mm_set1_epi8(']');
    const __m128i paren = _mm_set1_epi8('('), paren_close = _mm_set1_epi8(')');
    const __m128i angle = _mm_set1_epi8('<'), angle_close = _mm_set1_epi8('>');
    const __m128i brace = _mm_set1_epi8('{'), brace_close = _mm_set1_epi8('}');
    const __m128i comma = _mm_set1_epi8(',');
    __m128i a = _mm_loadu_si128((const __m128i *)p);
    __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, sq_open), _mm_cmpeq_epi8(a, sq_close)),
                     _mm_or_si128(_mm_cmpeq_epi8(a, paren), _mm_cmpeq_epi8(a, paren_close))),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, angle), _mm_cmpeq_epi8(a, angle_close)),
                     _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, brace), _mm_cmpeq_epi8(a, brace_close)),
                                  _mm_cmpeq_epi8(a, comma))));
    return (uint32_t)_mm_movemask_epi8(m);
}
#endif

/* The first byte at or after i that is a bracket of any kind ([ ] ( ) < > { }) or a comma;
 * s.len when there is none.  The walks over lists, schemas and groups below act on these
 * bytes only: skipping the others 16 at a time (SSE2) makes them a few times cheaper on
 * the column lists a scan carries. */
size_t slice_next_structural(struct slice s, size_t i)
{
#ifdef __SSE2__
    for (; i + 16 <= s.len; i += 16) { /* bound: 16 bytes a step */
        uint32_t bits = structural_mask16(s.ptr + i);
        if (bits)
            return i + (size_t)__builtin_ctz(bits);
    }
#endif
    for (; i < s.len; i++) /* bound: the slice; with SSE2 its last 15 bytes */
        if (structural_byte[(unsigned char)s.ptr[i]])
            return i;
    return s.len;
}

/* The mask of w's bytes is used up: test the next 16 (SSE2), or the last ones a byte at a
 * time, and give the first structural byte found; s.len when none is left. */
size_t structural_walk_refill_(struct structural_walk *w)
{
    const struct slice s = w->s;
#ifdef __SSE2__
    /* Bound: 16 bytes a step; the last step is the slice's last 16 bytes, the ones already
     * tested shifted out. */
    while (w->next < s.len && s.len >= 16) {
        uint32_t bits;
        if (w->next + 16 <= s.len) {
            bits = structural_mask16(s.ptr + w->next);
            w->base = w->next;
            w->next += 16;
        } else {
            bits = structural_mask16(s.ptr + s.len - 16) >> (16 - (s.len - w->next));
            w->base = w->next;
            w->next = s.len;
        }
        if (bits) {
            w->bits = bits & (bits - 1);
            return w->base + (size_t)__builtin_ctz(bits);
        }
    }
#endif
    while (w->next < s.len) { /* bound: the slice (with SSE2, one shorter than 16 bytes) */
        size_t at = w->next++;
        if (structural_byte[(unsigned char)s.ptr[at]])
            return at;
    }
    w->bits = 0;
    return s.len;
}

/* End (exclusive) of a bracketed group starting at s.ptr[at] ('[', '(' or '<'); nesting of all
 * three kinds is tracked.  Returns s.len when unclosed. */
static size_t group_end(struct slice s, size_t at)
{
    int depth = 0;
    struct structural_walk sw;
    structural_walk_init(&sw, s, at);
    for (size_t i = structural_walk_next(&sw); i < s.len; i = structural_walk_next(&sw)) {
        char c = s.ptr[i];
        if (c == '[' || c == '(' || c == '<')
            depth++;
        else if (c == ']' || c == ')' || c == '>') {
            if (--depth == 0)
                return i + 1;
        }
    }
    return s.len;
}

/* "[3]: [a, b, c]" -> "[a, b, c]"; ": x" -> "x". */
static struct slice strip_count_prefix(struct slice v)
{
    /* Most values need nothing done: no blank at either end (slice_trim's bytes), no ':' and
     * no "[N" in front.  Answered inline: three slice_trim calls were 80 instructions a
     * field, and a formatted scan asks for four or five.  (The lexer trims a value's end
     * already; the tests of its last byte keep the answer exact for any slice.) */
    if (v.len > 0) {
        char a = v.ptr[0], z = v.ptr[v.len - 1];
        if (a != ' ' && a != '\t' && a != ':' && z != ' ' && z != '\t' && z != '\r' &&
            z != '\n' && !(a == '[' && v.len > 2 && isdigit((unsigned char)v.ptr[1])))
            return v;
    }
    v = slice_trim(v);
    if (v.len > 2 && v.ptr[0] == '[' && isdigit((unsigned char)v.ptr[1])) {
        size_t i = 1;
        while (i < v.len && isdigit((unsigned char)v.ptr[i]))
            i++;
        if (i + 1 < v.len && v.ptr[i] == ']' && v.ptr[i + 1] == ':')
            v = slice_make(v.ptr + i + 2, v.len - i - 2);
    }
    v = slice_trim(v);
    if (v.len && v.ptr[0] == ':')
        v = slice_trim(slice_make(v.ptr + 1, v.len - 1));
    return v;
}

static bool is_key_boundary(char c)
{
    return c == ' ' || c == ',' || c == '[' || c == '(' || c == '\n';
}

static struct slice field_value_at(struct slice text, size_t start);

/* "KEY: value" inside a node string. */
static struct slice field_in_text(struct slice text, const char *key)
{
    size_t klen = strlen(key);
    long at = -1;
    for (size_t from = 0;;) {  /* each iteration moves past one occurrence */
        long hit = slice_find_in(text, key, from);
        if (hit < 0)
            return slice_make(NULL, 0);
        size_t after = (size_t)hit + klen;
        if ((hit == 0 || is_key_boundary(text.ptr[hit - 1])) && after + 1 < text.len &&
            text.ptr[after] == ':' && text.ptr[after + 1] == ' ') {
            at = (long)after + 2;
            break;
        }
        from = (size_t)hit + 1;
    }
    return field_value_at(text, (size_t)at);
}

/* The value of a "KEY: " field of a node string that starts at text.ptr[start]: a bracketed
 * group, a struct<...>, or the rest up to a newline or ", ". */
static struct slice field_value_at(struct slice text, size_t start)
{
    size_t end;
    if (start < text.len && (text.ptr[start] == '[' || text.ptr[start] == '('))
        end = group_end(text, start);
    else if (text.len - start >= 7 && memcmp(text.ptr + start, "struct<", 7) == 0)
        end = group_end(text, start + 6);
    else {
        end = start;
        while (end < text.len && text.ptr[end] != '\n' &&
               !(text.ptr[end] == ',' && end + 1 < text.len && text.ptr[end + 1] == ' '))
            end++;
    }
    return slice_make(text.ptr + start, end - start);
}

struct slice node_detail_field(const struct plan_node *n, const char *key)
{
    struct plan_detail d;
    if (n->n_details && plan_node_detail(n, key, &d))
        return strip_count_prefix(d.value);
    return slice_make(NULL, 0);
}

struct slice node_field(const struct plan_node *n, const char *key)
{
    struct plan_detail d;
    if (n->n_details && plan_node_detail(n, key, &d))
        return strip_count_prefix(d.value);
    return node_field_outside(n, key);
}

struct slice node_field_outside(const struct plan_node *n, const char *key)
{
    struct slice v = field_in_text(plan_node_text(n), key);
    if (!v.ptr && plan_node_details_text(n).len)
        v = field_in_text(plan_node_details_text(n), key);
    return v;
}

unsigned node_detail_fields(const struct plan_node *n, size_t k, const char *const keys[],
                            struct slice out[])
{
    size_t klen[NODE_DETAIL_FIELDS_MAX];
    for (size_t j = 0; j < k; j++)
        klen[j] = strlen(keys[j]);
    return node_detail_fields_n(n, k, keys, klen, out);
}

unsigned node_detail_fields_n(const struct plan_node *n, size_t k, const char *const keys[],
                              const size_t klen[], struct slice out[])
{
    /* (the first field of a key is plan_node_detail's answer too) */
    unsigned found = plan_node_detail_values(n, k, keys, klen, out);
    for (unsigned f = found; f; f &= f - 1) /* bound: the keys found */
        out[__builtin_ctz(f)] = strip_count_prefix(out[__builtin_ctz(f)]);
    return found;
}

void text_fields_init(struct text_fields *tf, struct slice text)
{
    tf->text = text;
    tf->n = 0;
    size_t i = 0;
    if (text.len < 2)
        return;
    size_t last = text.len - 2; /* the last place of a ": " */
#ifdef __SSE2__
    const __m128i colon = _mm_set1_epi8(':'), space = _mm_set1_epi8(' ');
    for (; i + 16 <= last + 1; i += 16) { /* bound: 16 places a step */
        __m128i a = _mm_loadu_si128((const __m128i *)(text.ptr + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(text.ptr + i + 1));
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, colon), _mm_cmpeq_epi8(b, space)));
        for (; m; m &= m - 1) { /* bound: one bit a place */
            if (tf->n == TEXT_FIELDS_MAX) {
                tf->n = TEXT_FIELDS_MANY;
                return;
            }
            tf->at[tf->n++] = i + (size_t)__builtin_ctz(m);
        }
    }
#endif
    for (; i <= last; i++) { /* bound: the places left, fewer than 16 with SSE2 */
        if (text.ptr[i] != ':' || text.ptr[i + 1] != ' ')
            continue;
        if (tf->n == TEXT_FIELDS_MAX) {
            tf->n = TEXT_FIELDS_MANY;
            return;
        }
        tf->at[tf->n++] = i;
    }
}

/* Where the value of key (klen > 0 bytes) starts in tf's text, or SIZE_MAX: field_in_text's
 * place, the first of the key with a boundary before it and ": " right after it; the ": "
 * places are in order, so the first that has the key before it is that one.  tf keeps its
 * places (not TEXT_FIELDS_MANY). */
static inline size_t text_fields_start(const struct text_fields *tf, const char *key, size_t klen)
{
    struct slice t = tf->text;
    for (uint32_t k = 0; k < tf->n; k++) { /* bound: the places found */
        size_t q = tf->at[k];
        if (q < klen || t.ptr[q - 1] != key[klen - 1] || !namekey_same(t.ptr + q - klen, key, klen))
            continue;
        size_t hit = q - klen;
        if (hit == 0 || is_key_boundary(t.ptr[hit - 1]))
            return q + 2;
    }
    return SIZE_MAX;
}

struct slice text_fields_get_n(const struct text_fields *tf, const char *key, size_t klen)
{
    if (tf->n == TEXT_FIELDS_MANY || !klen)
        return field_in_text(tf->text, key);
    size_t start = text_fields_start(tf, key, klen);
    return start == SIZE_MAX ? slice_make(NULL, 0) : field_value_at(tf->text, start);
}

bool node_has_field(const struct plan_node *n, const char *key)
{
    return node_field(n, key).ptr != NULL;
}

/* ---- statistics -------------------------------------------------------------------------- */

static bool parse_number(const char *p, size_t len, double *out, size_t *used)
{
    char buf[48];
    size_t n = 0;
    while (n < len && n < sizeof buf - 1 &&
           (isdigit((unsigned char)p[n]) || p[n] == '.' || p[n] == 'E' || p[n] == 'e' ||
            p[n] == '+' || p[n] == '-'))
        n++;
    if (n == 0)
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *end;
    *out = strtod(buf, &end);
    *used = (size_t)(end - buf);
    return *used > 0;
}

static bool parse_stats_text(struct slice t, struct plan_stats *out)
{
    long at = slice_find_in(t, "Statistics(", 0);
    if (at < 0)
        return false;
    struct slice rest = slice_make(t.ptr + at, t.len - (size_t)at);
    struct plan_stats s = {0};
    long sz = slice_find_in(rest, "sizeInBytes=", 0);
    if (sz >= 0) {
        size_t p = (size_t)sz + 12, used;
        double v;
        if (parse_number(rest.ptr + p, rest.len - p, &v, &used)) {
            p += used;
            while (p < rest.len && rest.ptr[p] == ' ')
                p++;
            static const struct {
                const char *unit;
                double mul;
            } units[] = {{"EiB", 1152921504606846976.0}, {"PiB", 1125899906842624.0},
                         {"TiB", 1099511627776.0},       {"GiB", 1073741824.0},
                         {"MiB", 1048576.0},             {"KiB", 1024.0},
                         {"B", 1.0}};
            for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
                size_t ul = strlen(units[i].unit);
                if (rest.len - p >= ul && memcmp(rest.ptr + p, units[i].unit, ul) == 0) {
                    s.has_size = true;
                    s.size_bytes = v * units[i].mul;
                    break;
                }
            }
        }
    }
    long rc = slice_find_in(rest, "rowCount=", 0);
    if (rc >= 0) {
        size_t used;
        double v;
        if (parse_number(rest.ptr + rc + 9, rest.len - (size_t)rc - 9, &v, &used)) {
            s.has_rows = true;
            s.row_count = v;
        }
    }
    if (!s.has_size && !s.has_rows)
        return false;
    *out = s;
    return true;
}

bool node_stats(const struct plan_node *n, struct plan_stats *out)
{
    if (plan_node_stats(n, out))
        return true;
    return parse_stats_text(plan_node_text(n), out) ||
           (plan_node_details_text(n).len && parse_stats_text(plan_node_details_text(n), out));
}

const char *node_format_bytes(double bytes, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    size_t u = 0;
    while (bytes >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, cap, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

/* ---- lists and schemas -------------------------------------------------------------------- */

static long element_weight_rare(struct slice el);

/* Adds one element's worth: "... 5 more fields" counts 5.  Most elements are a name after
 * ", ": past the blanks slice_trim takes from the front, a byte that neither trim takes and
 * that is not the '.' of "... " makes the answer 1 (about 40 instructions an element less).
 * Inline, with group_step: every list counted asks them of each element and bracket, and
 * GCC had left both as calls (about 10 instructions each, a third of them the call's). */
static inline __attribute__((always_inline)) long element_weight(struct slice el)
{
    size_t i = 0;
    while (i < el.len && (el.ptr[i] == ' ' || el.ptr[i] == '\t')) /* bound: the element */
        i++;
    if (i < el.len && el.ptr[i] != '.' && el.ptr[i] != '\r' && el.ptr[i] != '\n')
        return 1;
    return element_weight_rare(el);
}

/* element_weight of the others: blank, "... N more fields", or a '.' first. */
static long element_weight_rare(struct slice el)
{
    el = slice_trim(el);
    if (el.len == 0)
        return 0;
    if (slice_starts_with(el, "... ")) {
        long n = strtol(el.ptr + 4, NULL, 10);  /* digits follow; stops at " more" */
        if (n > 0 && slice_find_in(el, " more field", 0) >= 0)
            return n;
    }
    return 1;
}

/* Whether c opens / closes a bracketed group as group_end counts them: +1, -1 or 0. */
static inline __attribute__((always_inline)) int group_step(char c)
{
    return (c == '[' || c == '(' || c == '<') - (c == ']' || c == ')' || c == '>');
}

/* One structural byte c, at p[i], of a list node_list_count counts: the depth it keeps (all
 * four kinds of bracket nest) and, at a comma on the top level, the element before it
 * (from *el_start). */
static inline __attribute__((always_inline)) void list_step(char c, const char *p, size_t i,
                                                            int *depth, long *count,
                                                            size_t *el_start)
{
    if (c == '[' || c == '(' || c == '<' || c == '{')
        (*depth)++;
    else if (c == ']' || c == ')' || c == '>' || c == '}')
        (*depth)--;
    else if (c == ',' && *depth == 0) {
        *count += element_weight(slice_make(p + *el_start, i - *el_start));
        *el_start = i + 1;
    }
}

/* The same for the fields of a struct<...> node_schema_field_count counts: '<' and '('
 * nest, a comma on the top level starts a field. */
static inline __attribute__((always_inline)) void schema_step(char c, int *depth, long *count)
{
    if (c == '<' || c == '(')
        (*depth)++;
    else if (c == '>' || c == ')')
        (*depth)--;
    else if (c == ',' && *depth == 0)
        (*count)++;
}

/* slice_trim's answer for a slice that starts with a bracket: nothing to trim at its start,
 * and a call only when its last byte is one trimmed at the end. */
static struct slice trim_bracketed(struct slice s)
{
    if (s.len && s.ptr[0] == '[') {
        char z = s.ptr[s.len - 1];
        if (z != ' ' && z != '\t' && z != '\r' && z != '\n')
            return s;
    }
    return slice_trim(s);
}

long node_list_count(struct slice list)
{
    list = trim_bracketed(list);
    if (list.len < 2 || list.ptr[0] != '[')
        return -1;
    /* One walk finds the group's end (as group_end does) and counts its top-level elements
     * on the way; an unclosed list ends at the slice's end, its last byte not counted. */
    long count = 0;
    int depth = 0, group = 1;
    size_t el_start = 1, end = list.len;
    /* Other bytes change nothing below: they are skipped. */
    struct structural_walk sw;
    structural_walk_init(&sw, list, 1);
    for (size_t i = structural_walk_next(&sw); i < list.len; i = structural_walk_next(&sw)) {
        char c = list.ptr[i];
        group += group_step(c);
        if (group == 0) {
            end = i + 1;
            break;
        }
        if (i + 1 >= list.len)
            break;
        list_step(c, list.ptr, i, &depth, &count, &el_start);
    }
    if (end < 2)
        return -1;
    count += element_weight(slice_make(list.ptr + el_start, end - 1 - el_start));
    return count;
}

bool node_list_is_empty(struct slice list)
{
    list = trim_bracketed(list);
    return slice_eq_cstr(list, "[]") || slice_eq_cstr(list, "None");
}

long node_schema_field_count(struct slice schema)
{
    schema = slice_trim(schema);
    if (!slice_starts_with(schema, "struct<"))
        return -1;
    /* One walk finds the end of struct<...> (as group_end does) and counts its top-level
     * fields on the way. */
    long count = 1;
    int depth = 0, group = 1;
    size_t end = schema.len;
    /* Other bytes change nothing below: they are skipped. */
    struct structural_walk sw;
    structural_walk_init(&sw, schema, 7);
    for (size_t i = structural_walk_next(&sw); i < schema.len; i = structural_walk_next(&sw)) {
        char c = schema.ptr[i];
        group += group_step(c);
        if (group == 0) {
            end = i + 1;
            break;
        }
        if (i + 1 >= schema.len)
            break;
        schema_step(c, &depth, &count);
    }
    if (end > schema.len || schema.ptr[end - 1] != '>')
        return -1;  /* abbreviated ("...") or cut: unknown */
    if (end == 8)
        return 0;   /* struct<> */
    return count;
}

/* field_value_at(text, start) for a value that opens a group at start: "[" (node_list_count
 * of it in *list_count) or "struct<" (node_schema_field_count in *schema_count), counted on
 * the walk group_end makes to find its end.  Their walks read the same structural bytes
 * from the byte after the opening, their group (+1 at '[', '(', '<', -1 at the closings) is
 * group_end's depth and ends the value where it comes to 0, before either reaches its
 * slice's last byte.  False when the group is not closed in the text: the value is then the
 * text's rest, whose last byte the counts treat apart (the caller counts). */
static bool counted_value_at(struct slice text, size_t start, struct slice *value,
                             long *list_count, long *schema_count)
{
    bool list = text.ptr[start] == '[';
    size_t from = list ? start + 1 : start + 7;
    long count = list ? 0 : 1;
    int depth = 0, group = 1;
    size_t el_start = from;
    struct structural_walk sw;
    structural_walk_init(&sw, text, from);
    for (size_t i = structural_walk_next(&sw); i < text.len; i = structural_walk_next(&sw)) {
        char c = text.ptr[i];
        group += group_step(c);
        if (group == 0) {
            *value = slice_make(text.ptr + start, i + 1 - start);
            if (list) {
                *list_count = count + element_weight(slice_make(text.ptr + el_start, i - el_start));
                *schema_count = -1;
            } else {
                *list_count = -1;
                *schema_count = c != '>' ? -1 : i + 1 - start == 8 ? 0 : count;
            }
            return true;
        }
        if (list)
            list_step(c, text.ptr, i, &depth, &count, &el_start);
        else
            schema_step(c, &depth, &count);
    }
    return false;
}

struct slice text_fields_get_counted(const struct text_fields *tf, const char *key, size_t klen,
                                     long *list_count, long *schema_count)
{
    *list_count = *schema_count = COUNT_NOT_KNOWN;
    if (tf->n == TEXT_FIELDS_MANY || !klen)
        return text_fields_get_n(tf, key, klen);
    /* text_fields_get_n's place, then its value (field_value_at) */
    size_t start = text_fields_start(tf, key, klen);
    if (start == SIZE_MAX)
        return slice_make(NULL, 0);
    struct slice t = tf->text, v;
    if (start < t.len &&
        (t.ptr[start] == '[' || (t.len - start >= 7 && memcmp(t.ptr + start, "struct<", 7) == 0)) &&
        counted_value_at(t, start, &v, list_count, schema_count))
        return v;
    *list_count = *schema_count = COUNT_NOT_KNOWN;
    return field_value_at(t, start);
}

/* ---- exchanges ----------------------------------------------------------------------------- */

/* Does hay hold needle (lower case) at offset at, in any case? */
static inline bool has_nocase_at_n(struct slice hay, size_t at, const char *needle, size_t n)
{
    if (at > hay.len || hay.len - at < n)
        return false;
    /* The bytes as they are first, eight at a time ("hashpartitioning(" is printed in lower
     * case): a byte loop with its tolower test cost about 8 instructions a byte. */
    if (namekey_same(hay.ptr + at, needle, n))
        return true;
    /* A byte that is the needle's (lower case) byte is its own tolower in any locale: the
     * call is made only for the others (the capitals of "RoundRobinPartitioning"). */
    for (size_t k = 0; k < n; k++) /* bounded by the needle */
        if (hay.ptr[at + k] != needle[k] && tolower((unsigned char)hay.ptr[at + k]) != needle[k])
            return false;
    return true;
}

/* word and tail with their lengths (no strlen a look) */
#define KIND_WORDS(w, t) w, t, sizeof w - 1, sizeof t - 1
static const struct {
    const char *word, *tail;
    size_t word_len, tail_len;
    enum partitioning_kind kind;
} partitioning_kinds[] = {
    {KIND_WORDS("hash", "ing("), PART_HASH},        {KIND_WORDS("range", "ing("), PART_RANGE},
    {KIND_WORDS("roundrobin", "ing("), PART_ROUND_ROBIN}, {KIND_WORDS("single", ""), PART_SINGLE},
    {KIND_WORDS("unknown", "ing("), PART_OTHER},    {KIND_WORDS("keygrouped", "ing("), PART_OTHER},
};

/* Is "partition" at t.ptr[h] (any case) a partitioning's name?  Which one in *best_i. */
static bool partitioning_name_at(struct slice t, size_t h, size_t *best_i)
{
    if (!has_nocase_at_n(t, h, "partition", 9))
        return false;
    for (size_t i = 0; i < sizeof partitioning_kinds / sizeof partitioning_kinds[0]; i++) {
        size_t w = partitioning_kinds[i].word_len;
        if (h >= w && has_nocase_at_n(t, h - w, partitioning_kinds[i].word, w) &&
            has_nocase_at_n(t, h + 9, partitioning_kinds[i].tail, partitioning_kinds[i].tail_len)) {
            *best_i = i;
            return true;
        }
    }
    return false;
}

/* The partitioning in t and its kind; with whole false, only its start (and kind) are
 * found: the slice ends there (node_partitioning_kind). */
static struct slice partitioning_in(struct slice t, enum partitioning_kind *kind, bool whole)
{
    /* Every name holds "partition": the text is searched once for that word, and the name
     * is read around each hit.  The first hit that is a name is the earliest name: words
     * are at most 10 letters and "partition" is 9, so two names cannot start in the other
     * order.  (Six case-insensitive searches over each node's text and details were a
     * tenth of the analysis of a 1M-node plan.)  The starts are tested 16 a step for the
     * word's first and last letters, 'p' and 'n' in either case; only those are read
     * whole (a memchr for each 'p' and 'P' of an exchange's details block, "price",
     * "plan_id", cost 540 instructions an exchange). */
    long best = -1;
    size_t best_i = 0;
    if (t.len < 9)
        return slice_make(NULL, 0);
    size_t last = t.len - 9, h = 0; /* the last start */
#ifdef __SSE2__
    const __m128i lower = _mm_set1_epi8(0x20), p = _mm_set1_epi8('p'), n = _mm_set1_epi8('n');
    for (; best < 0 && h + 16 <= last + 1; h += 16) { /* bound: 16 starts a step */
        __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)(t.ptr + h)), lower);
        __m128i z = _mm_or_si128(_mm_loadu_si128((const __m128i *)(t.ptr + h + 8)), lower);
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, p), _mm_cmpeq_epi8(z, n)));
        for (; m; m &= m - 1) /* bound: one bit a candidate */
            if (partitioning_name_at(t, h + (size_t)__builtin_ctz(m), &best_i)) {
                best = (long)(h + (size_t)__builtin_ctz(m));
                break;
            }
    }
#endif
    for (; best < 0 && h <= last; h++) /* bound: the starts left, fewer than 16 with SSE2 */
        if ((t.ptr[h] | 0x20) == 'p' && partitioning_name_at(t, h, &best_i))
            best = (long)h;
    size_t best_len = best < 0 ? 0
                               : partitioning_kinds[best_i].word_len + 9 +
                                     partitioning_kinds[best_i].tail_len;
    if (best >= 0)
        best = best - (long)partitioning_kinds[best_i].word_len;
    if (best < 0)
        return slice_make(NULL, 0);
    /* Include a prefix glued to the name ("gpu", "Coalesced"). */
    size_t start = (size_t)best;
    while (start > 0 && isalpha((unsigned char)t.ptr[start - 1]))
        start--;
    size_t open = (size_t)best + best_len;
    *kind = partitioning_kinds[best_i].kind;
    if (!whole)
        return slice_make(t.ptr + start, 0);
    size_t end = partitioning_kinds[best_i].kind == PART_SINGLE ? open : group_end(t, open - 1);
    while (partitioning_kinds[best_i].kind == PART_SINGLE && end < t.len &&
           isalpha((unsigned char)t.ptr[end]))
        end++;  /* "SinglePartition" / "gpusinglepartitioning" */
    return slice_make(t.ptr + start, end - start);
}

struct slice node_partitioning(const struct plan_node *n, enum partitioning_kind *kind)
{
    enum partitioning_kind k = PART_UNKNOWN;
    struct slice p = partitioning_in(plan_node_text(n), &k, true);
    if (!p.ptr && plan_node_details_text(n).len)
        p = partitioning_in(plan_node_details_text(n), &k, true);
    if (kind)
        *kind = k;
    return p;
}

enum partitioning_kind node_partitioning_kind(const struct plan_node *n)
{
    enum partitioning_kind k = PART_UNKNOWN;
    struct slice p = partitioning_in(plan_node_text(n), &k, false);
    if (!p.ptr && plan_node_details_text(n).len)
        partitioning_in(plan_node_details_text(n), &k, false);
    return k;
}

const char *partitioning_kind_name(enum partitioning_kind k)
{
    switch (k) {
    case PART_HASH: return "hash";
    case PART_RANGE: return "range";
    case PART_ROUND_ROBIN: return "round-robin";
    case PART_SINGLE: return "single partition";
    case PART_OTHER: return "other";
    case PART_UNKNOWN: return "unknown";
    }
    return "?";
}

struct slice partitioning_keys(struct slice p)
{
    long open = slice_find_in(p, "(", 0);
    if (open < 0 || p.len < 2 || p.ptr[p.len - 1] != ')')
        return slice_make(NULL, 0);
    /* Keys run up to the last top-level ", N" (the partition count). */
    size_t last_comma = 0;
    int depth = 0;
    for (size_t i = (size_t)open + 1; i + 1 < p.len; i++) {
        char c = p.ptr[i];
        if (c == '(' || c == '[')
            depth++;
        else if (c == ')' || c == ']')
            depth--;
        else if (c == ',' && depth == 0)
            last_comma = i;
    }
    size_t start = (size_t)open + 1;
    size_t end = last_comma ? last_comma : p.len - 1;
    return slice_trim(slice_make(p.ptr + start, end - start));
}

struct slice node_shuffle_origin(const struct plan_node *n)
{
#define ORIGIN(o) {o, sizeof o - 1}
    static const struct {
        const char *word;
        size_t len;
    } origins[] = {
        ORIGIN("ENSURE_REQUIREMENTS"),          ORIGIN("REPARTITION_BY_COL"),
        ORIGIN("REPARTITION_BY_NUM"),           ORIGIN("REPARTITION_WITH_NUM"),
        ORIGIN("REBALANCE_PARTITIONS_BY_NONE"), ORIGIN("REBALANCE_PARTITIONS_BY_COL"),
        ORIGIN("REQUIRED_BY_STATEFUL_OPERATOR"), ORIGIN("EXECUTOR_BROADCAST"),
        ORIGIN("REPARTITION"),
    };
#undef ORIGIN
    /* the text and the block read once, each origin's length known (a count asks every
     * exchange) */
    struct slice text = plan_node_text(n), details = plan_node_details_text(n);
    for (size_t i = 0; i < sizeof origins / sizeof origins[0]; i++) {
        long at = slice_find_n(text, origins[i].word, origins[i].len, 0);
        struct slice t = text;
        if (at < 0 && details.len) {
            t = details;
            at = slice_find_n(t, origins[i].word, origins[i].len, 0);
        }
        if (at >= 0)
            return slice_make(t.ptr + at, origins[i].len);
    }
    return slice_make(NULL, 0);
}

bool node_is_executor_broadcast(const struct plan_node *n)
{
    struct slice origin = node_shuffle_origin(n);
    if (!origin.len && plan_node_parent(n) && node_role(plan_node_parent(n)) == CAT_QUERY_STAGE)
        origin = node_shuffle_origin(plan_node_parent(n));
    return slice_eq_cstr(origin, "EXECUTOR_BROADCAST");
}

/* ---- joins ---------------------------------------------------------------------------------- */

static bool is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* First whole-word occurrence of a join type. */
static struct slice join_type_in(struct slice t)
{
    static const char *const types[] = {
        "Inner", "Cross", "LeftOuter", "RightOuter", "FullOuter", "LeftSemi", "LeftAnti",
        "LeftSingle", "ExistenceJoin",
    };
    long best = -1;
    size_t best_len = 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        size_t len = strlen(types[i]);
        for (size_t from = 0;;) {  /* each round skips one occurrence */
            long at = slice_find_in(t, types[i], from);
            if (at < 0)
                break;
            size_t after = (size_t)at + len;
            bool left_ok = at == 0 || !is_word_char(t.ptr[at - 1]);
            bool right_ok = after >= t.len || !is_word_char(t.ptr[after]);
            if (left_ok && right_ok) {
                if (best < 0 || at < best) {
                    best = at;
                    best_len = len;
                }
                break;
            }
            from = (size_t)at + 1;
        }
    }
    return best < 0 ? slice_make(NULL, 0) : slice_make(t.ptr + best, best_len);
}

struct slice node_join_type(const struct plan_node *n)
{
    struct plan_detail d;
    if (n->n_details && plan_node_detail(n, "Join type", &d))
        return strip_count_prefix(d.value);
    return join_type_in(plan_node_text(n));
}

enum build_side node_build_side(const struct plan_node *n)
{
    long l = slice_find_in(plan_node_text(n), "BuildLeft", 0);
    long r = slice_find_in(plan_node_text(n), "BuildRight", 0);
    if (l >= 0 && (r < 0 || l < r))
        return BUILD_LEFT;
    if (r >= 0)
        return BUILD_RIGHT;
    return BUILD_UNKNOWN;
}

bool join_side_broadcastable(struct slice type, enum build_side side)
{
    if (!type.len || slice_eq_cstr(type, "Inner") || slice_eq_cstr(type, "Cross"))
        return true;
    if (slice_eq_cstr(type, "FullOuter"))
        return false;
    if (slice_eq_cstr(type, "RightOuter"))
        return side == BUILD_LEFT;
    return side == BUILD_RIGHT;  /* LeftOuter, LeftSemi, LeftAnti, LeftSingle, ExistenceJoin */
}

/* ---- aggregates ----------------------------------------------------------------------------- */

int node_aggregate_has_keys(const struct plan_node *n)
{
    const struct catalog_entry *e = node_entry(n);
    if (e && strcmp(e->name, "PhotonAgg") == 0)
        return 0;
    if (e && strcmp(e->name, "PhotonGroupingAgg") == 0)
        return 1;
    struct plan_detail d;
    if (n->n_details && plan_node_detail(n, "Keys", &d))
        return node_list_is_empty(strip_count_prefix(d.value)) ? 0 : 1;
    long at = slice_find_in(plan_node_text(n), "keys=[", 0);
    if (at >= 0)
        return (size_t)at + 6 < plan_node_text(n).len && plan_node_text(n).ptr[at + 6] == ']' ? 0
                                                                                              : 1;
    return -1;
}

bool node_aggregate_is_partial(const struct plan_node *n)
{
    struct slice parts[2] = {plan_node_text(n), plan_node_details_text(n)};
    for (int i = 0; i < 2; i++) {
        if (slice_find_in(parts[i], "partial_", 0) >= 0)
            return true;
        for (size_t from = 0;;) {  /* "merge_" of PartialMerge, not Photon's "finalmerge_" */
            long at = slice_find_in(parts[i], "merge_", from);
            if (at < 0)
                break;
            if (at == 0 || !isalpha((unsigned char)parts[i].ptr[at - 1]))
                return true;
            from = (size_t)at + 1;
        }
    }
    return false;
}

/* ---- scans ---------------------------------------------------------------------------------- */

static bool is_format_word(struct slice w)
{
    /* Every format below starts with one of these letters: most words are table names. */
    if (!w.len || !strchr("pocjtadhbilx", w.ptr[0]))
        return false;
    static const char *const formats[] = {
        "parquet", "orc", "csv", "json", "text", "avro", "delta", "hive", "binaryFile",
        "libsvm",  "image", "xml",
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (slice_eq_cstr(w, formats[i]))
            return true;
    return false;
}

/* The first byte at or after i that ends node_table_name's word (a blank, [ ( , or a line
 * break); s.len when there is none.  A scan's table name ("spark_catalog.tpcds.web_sales")
 * is a few dozen bytes that the byte loop took five compares each for: about 320
 * instructions a scan, a twelfth of rule_scan.  With SSE2, 16 bytes a step. */
static size_t table_word_end(struct slice s, size_t i)
{
#ifdef __SSE2__
    if (i + 16 <= s.len) {
        const __m128i blank = _mm_set1_epi8(' '), bracket = _mm_set1_epi8('[');
        const __m128i paren = _mm_set1_epi8('('), comma = _mm_set1_epi8(',');
        const __m128i newline = _mm_set1_epi8('\n');
        for (; i + 16 <= s.len; i += 16) { /* bound: 16 bytes a step */
            __m128i a = _mm_loadu_si128((const __m128i *)(s.ptr + i));
            __m128i m = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(a, blank), _mm_cmpeq_epi8(a, bracket)),
                _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, paren), _mm_cmpeq_epi8(a, comma)),
                             _mm_cmpeq_epi8(a, newline)));
            unsigned bits = (unsigned)_mm_movemask_epi8(m);
            if (bits)
                return i + (size_t)__builtin_ctz(bits);
        }
    }
#endif
    for (; i < s.len; i++) { /* bound: the slice; with SSE2 its last 15 bytes */
        char c = s.ptr[i];
        if (c == ' ' || c == '[' || c == '(' || c == ',' || c == '\n')
            return i;
    }
    return s.len;
}

struct slice node_table_name(const struct plan_node *n)
{
    struct slice op;
    return node_table_name_op(n, &op);
}

struct slice node_table_name_op(const struct plan_node *n, struct slice *text_op)
{
    struct slice t = plan_node_text(n);
    size_t i = 0;
    /* Skip the operator name: one word, or two for a scan ("Scan ExistingRDD", "Scan
     * parquet"), whose second word names what it reads, not a table. */
    struct slice op = catalog_operator_name(t);
    *text_op = op;
    if (slice_eq_cstr(op, "Scan ExistingRDD"))
        return slice_make(NULL, 0);  /* what follows, if anything, names an RDD */
    if (slice_starts_with(op, "Scan ") && op.ptr >= t.ptr && op.ptr + op.len <= t.ptr + t.len)
        i = (size_t)(op.ptr + op.len - t.ptr);
    else
        while (i < t.len && is_word_char(t.ptr[i]))
            i++;
    bool relation = slice_starts_with(t, "Relation") || slice_starts_with(t, "RelationV2");
    for (int step = 0; step < 3; step++) {  /* at most: [reader] format table */
        while (i < t.len && t.ptr[i] == ' ')
            i++;
        if (i >= t.len)
            return slice_make(NULL, 0);
        if (t.ptr[i] == '[') {
            if (relation) {  /* Relation[a#1] parquet: no table; RelationV2[..] name */
                i = group_end(t, i);
                continue;
            }
            if (step == 0 && slice_starts_with(t, "CometScan")) {
                i = group_end(t, i);
                continue;
            }
            return slice_make(NULL, 0);
        }
        size_t s = i;
        i = table_word_end(t, i);
        struct slice w = slice_make(t.ptr + s, i - s);
        if (w.len == 0)
            return slice_make(NULL, 0);
        if (is_format_word(w))
            continue;
        if (slice_eq_cstr(w, "In-memory"))
            return slice_make(NULL, 0);
        return w;
    }
    return slice_make(NULL, 0);
}

/* ---- walking through wrappers ---------------------------------------------------------------- */

bool node_is_label_text_(const struct plan_node *n)
{
    return slice_starts_with(slice_trim(plan_node_text(n)), "== ");
}

bool node_is_initial_plan_label(const struct plan_node *n)
{
    return node_is_label(n) && slice_find_in(plan_node_text(n), "Initial Plan", 0) >= 0;
}

bool node_is_shadowed_initial_(const struct plan_node *n)
{
    if (!node_is_initial_plan_label(n) || !plan_node_parent(n))
        return false;
    /* An AdaptiveSparkPlan holds two or three labels; a hostile input with thousands of
     * sibling labels must not make every one of them scan all the others. */
    int guard = 0;
    for (const struct plan_node *c = plan_node_first_child(plan_node_parent(n)); c && guard < 16;
         c = plan_node_next_sibling(c), guard++)
        if (c != n && node_is_label(c) && !node_is_initial_plan_label(c))
            return true;
    return false;
}

bool node_is_wrapper(const struct plan_node *n)
{
    if (node_is_label(n))
        return true;
    switch (node_role(n)) {
    case CAT_CODEGEN:
    case CAT_QUERY_STAGE:
    case CAT_SHUFFLE_READ:
    case CAT_TRANSITION:
    case CAT_AQE:
        return true;
    default:
        return false;
    }
}

const struct plan_node *node_down_through_wrappers(const struct plan_node *n)
{
    while (n && node_is_wrapper(n))
        n = plan_node_first_child(n);
    return n;
}

const struct plan_node *node_up_through_wrappers(const struct plan_node *n)
{
    while (n && node_is_wrapper(n))
        n = plan_node_parent(n);
    return n;
}
