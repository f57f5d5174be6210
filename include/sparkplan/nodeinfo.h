/* nodeinfo: read facts off one node, whatever explain mode printed it.
 *
 * The same fact sits in different places per mode: PushedFilters is a details field in
 * formatted mode and "PushedFilters: [...]" inside the FileScan line in simple mode; an
 * Exchange's partitioning is its argument string or its "Arguments:" field.  These helpers
 * look in the details first, then in the node text, and return slices into doc->text.
 * Owns nothing, allocates nothing, never recurses.  Every scan is bounded by the node's own
 * text length.
 */
#ifndef SPARKPLAN_NODEINFO_H
#define SPARKPLAN_NODEINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sparkplan/catalog.h"
#include "sparkplan/plan.h"

/* Catalogue entry for the node (NULL for labels and unknown operators). */
const struct catalog_entry *node_entry(const struct plan_node *n);
enum catalog_role node_role(const struct plan_node *n);

/* Value of a field ("PushedFilters", "ReadSchema", "Arguments", "Keys"...): the details field,
 * else "KEY: value" inside the node text.  Lists come back with their brackets ("[a, b]"),
 * the "[n]:" count prefix of formatted mode removed.  Empty slice when absent. */
struct slice node_field(const struct plan_node *n, const char *key);
/* node_field's first look only: the details field KEY (its value as node_field gives it), or
 * an empty slice.  node_field is this when neither the node's text nor its details text holds
 * KEY: a caller that knows so skips two searches (the analysis, for "PartitionFilters"). */
struct slice node_detail_field(const struct plan_node *n, const char *key);
bool node_has_field(const struct plan_node *n, const char *key);
/* node_field's second look only: "KEY: value" in the node's text, then in its details text
 * (node_field's answer for a key its details block does not hold). */
struct slice node_field_outside(const struct plan_node *n, const char *key);
/* node_detail_field of k keys (k <= NODE_DETAIL_FIELDS_MAX) with the details block split
 * once: out[j] is node_detail_field(n, keys[j]).  Returns the keys the block holds, bit j
 * for keys[j] (out[j] of the others is empty).  A formatted scan is asked for four fields,
 * and a split of its block cost about 400 instructions a line. */
#define NODE_DETAIL_FIELDS_MAX 8u
unsigned node_detail_fields(const struct plan_node *n, size_t k, const char *const keys[],
                            struct slice out[]);
/* The same with the keys' lengths given (klen[j] = strlen(keys[j])). */
unsigned node_detail_fields_n(const struct plan_node *n, size_t k, const char *const keys[],
                              const size_t klen[], struct slice out[]);

/* The ": " places of one node string, found in one pass for several look-ups of its
 * "KEY: value" fields (a simple-mode scan's line is asked for four): text_fields_get(tf, key)
 * is the field node_field finds in the text, for a node without a details block.  Past
 * TEXT_FIELDS_MAX places, text_fields_get searches the text as node_field does. */
#define TEXT_FIELDS_MAX 48u
#define TEXT_FIELDS_MANY UINT32_MAX
struct text_fields {
    struct slice text;
    uint32_t n;                    /* places found, TEXT_FIELDS_MANY: more than the room */
    size_t at[TEXT_FIELDS_MAX];    /* where each ": " is, in order */
};
void text_fields_init(struct text_fields *tf, struct slice text);
struct slice text_fields_get_n(const struct text_fields *tf, const char *key, size_t klen);
/* The key's length measured here, inline, where the compiler knows a literal's. */
static inline struct slice text_fields_get(const struct text_fields *tf, const char *key)
{
    return text_fields_get_n(tf, key, strlen(key));
}
/* text_fields_get_n with what node_list_count and node_schema_field_count say of the value,
 * counted on the walk that finds its end when the value opens a group where it starts ('['
 * or "struct<") closed in the text: the other count is -1 then (the value has not its
 * shape).  Both are COUNT_NOT_KNOWN for any other value, or none: the caller counts.  A
 * simple-mode scan's PushedFilters, PartitionFilters and ReadSchema were walked twice. */
#define COUNT_NOT_KNOWN (-2L)
struct slice text_fields_get_counted(const struct text_fields *tf, const char *key, size_t klen,
                                     long *list_count, long *schema_count);

/* Statistics from the parser, or parsed from "Statistics(sizeInBytes=..., rowCount=...)" in
 * the text or details (query stages in formatted mode).  False when the node has none. */
bool node_stats(const struct plan_node *n, struct plan_stats *out);
/* "1.2 MiB" style rendering of a byte count into buf. */
const char *node_format_bytes(double bytes, char *buf, size_t cap);

/* Number of elements of a bracketed list "[a#1, f(b#2, c), ... 5 more fields]", counting
 * the elided ones; -1 when s is not a list. */
long node_list_count(struct slice list);
/* Top-level fields of a "struct<a:int,b:struct<c:int>>" schema; -1 when not a struct. */
long node_schema_field_count(struct slice schema);
/* True for an empty list "[]" (or the field "None"). */
bool node_list_is_empty(struct slice list);

/* Partitioning of an exchange: "hashpartitioning(a#1, 200)", "SinglePartition", ... (empty
 * when not found) and its kind. */
enum partitioning_kind {
    PART_UNKNOWN,
    PART_HASH,
    PART_RANGE,
    PART_ROUND_ROBIN,
    PART_SINGLE,
    PART_OTHER,
};
struct slice node_partitioning(const struct plan_node *n, enum partitioning_kind *kind);
/* node_partitioning's kind alone: the end of the partitioning's arguments is not looked for
 * (about 230 instructions an exchange, for a count that needs no keys). */
enum partitioning_kind node_partitioning_kind(const struct plan_node *n);
const char *partitioning_kind_name(enum partitioning_kind k);
/* The keys inside "hashpartitioning(a#1, b#2, 200)": "a#1, b#2" (empty for others). */
struct slice partitioning_keys(struct slice partitioning);
/* Why the shuffle exists: "ENSURE_REQUIREMENTS", "REPARTITION_BY_COL", ... or empty. */
struct slice node_shuffle_origin(const struct plan_node *n);
/* Photon's executor-side broadcast: a shuffle whose origin (on it, or on the map stage that
 * wraps it) is EXECUTOR_BROADCAST.  It broadcasts; it is not a shuffle by key. */
bool node_is_executor_broadcast(const struct plan_node *n);

/* Joins: "Inner", "LeftOuter", ... (empty when not printed) and the build side. */
struct slice node_join_type(const struct plan_node *n);
enum build_side { BUILD_UNKNOWN, BUILD_LEFT, BUILD_RIGHT };
enum build_side node_build_side(const struct plan_node *n);
/* Whether this join type lets Spark broadcast that side (FullOuter: neither; LeftOuter,
 * LeftSemi, LeftAnti, ExistenceJoin: right only; RightOuter: left only). */
bool join_side_broadcastable(struct slice join_type, enum build_side side);

/* Aggregates: does it group by keys?  -1 unknown, 0 no keys (global), 1 keys.  And whether
 * it is the partial half (functions print partial_...). */
int node_aggregate_has_keys(const struct plan_node *n);
bool node_aggregate_is_partial(const struct plan_node *n);

/* Table name of a scan ("spark_catalog.default.store_sales") or of a logical relation;
 * empty when it has none. */
struct slice node_table_name(const struct plan_node *n);
/* node_table_name, and in *text_op what catalog_operator_name(plan_node_text(n)) gives (it
 * finds that on the way: a caller that needs it too does not look again). */
struct slice node_table_name_op(const struct plan_node *n, struct slice *text_op);

/* Walks that skip nodes which only wrap or convert data (codegen, query stages, shuffle
 * reads, row/columnar transitions).  _down follows the only child; both return n itself when
 * it is not a wrapper, NULL when the chain ends.  Bounded by the wrapper chain length. */
bool node_is_wrapper(const struct plan_node *n);
const struct plan_node *node_down_through_wrappers(const struct plan_node *n);
const struct plan_node *node_up_through_wrappers(const struct plan_node *n);

/* AQE header labels: "== Initial Plan ==" and friends. */
bool node_is_label_text_(const struct plan_node *n); /* private: node_is_label's slow half */
/* Asked for every node by every rule: the flag, or a text that starts like "== ...".  Most
 * texts start with a letter: that answer is inline. */
static inline bool node_is_label(const struct plan_node *n)
{
    if (n->flags & NODE_LABEL)
        return true;
    struct slice t = plan_node_text(n);
    char c = t.len ? t.ptr[0] : '\0';
    if (c != ' ' && c != '\t' && c != '=')
        return false;
    return node_is_label_text_(n);
}
bool node_is_initial_plan_label(const struct plan_node *n);
/* An "== Initial Plan ==" label whose AdaptiveSparkPlan also holds a Final or Current plan:
 * what AQE planned first and then replaced.  Its subtree is not the plan that runs.
 * Looks at the first 16 children of the AQE node (it has two or three labels). */
bool node_is_shadowed_initial_(const struct plan_node *n); /* private: the label's case */
static inline bool node_is_shadowed_initial(const struct plan_node *n)
{
    return node_is_label(n) && node_is_shadowed_initial_(n);
}

/* Byte search inside a slice, for needles of a few bytes (n of them: slice_find_n).  The
 * needle's length is measured here, inline, where the compiler knows a literal's: the rules
 * search node texts for literals a few million times on a big plan. */
long slice_find_n(struct slice hay, const char *needle, size_t n, size_t from);
static inline long slice_find_in(struct slice hay, const char *needle, size_t from)
{
    return slice_find_n(hay, needle, strlen(needle), from);
}
/* The first byte at or after i that is a bracket of any kind ([ ] ( ) < > { }) or a comma;
 * s.len when none.  For walks that act on those bytes only. */
size_t slice_next_structural(struct slice s, size_t i);
/* slice_next_structural's answers from i on, in order, one a call:
 *     struct structural_walk w; structural_walk_init(&w, s, i);
 *     for (size_t j = structural_walk_next(&w); j < s.len; j = structural_walk_next(&w)) ...
 * is the walk `for (j = slice_next_structural(s, i); j < s.len; j = slice_next_structural(s,
 * j + 1))`.  A 16-byte step's bytes are tested once and kept as a mask, where each call of
 * slice_next_structural tested its step again (about 60 instructions a bracket or comma). */
struct structural_walk {
    struct slice s;
    size_t base;      /* where the mask's bit 0 is */
    size_t next;      /* the first byte not tested yet */
    uint32_t bits;    /* the structural bytes of [base, next) not given yet */
};
static inline void structural_walk_init(struct structural_walk *w, struct slice s, size_t i)
{
    w->s = s;
    w->base = w->next = i;
    w->bits = 0;
}
size_t structural_walk_refill_(struct structural_walk *w);
static inline size_t structural_walk_next(struct structural_walk *w)
{
    if (w->bits) {
        size_t at = w->base + (size_t)__builtin_ctz(w->bits);
        w->bits &= w->bits - 1;
        return at;
    }
    return structural_walk_refill_(w);
}

#endif
