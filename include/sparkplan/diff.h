/* diff: what changed between two plans — normalised, matched as trees, classified.
 *
 * A side is a forest picked from a parsed document (diff_select): every section of every
 * plan, one plan ("#2"), one section ("@optimized") or one of an adaptive plan's trees
 * ("@initial", "@final").  Both sides are normalised (diff_norm: ids renumbered, statistics,
 * locations and hashes dropped, each step switchable), matched as trees (identical subtrees
 * first, largest first; then parents by the matched descendants below them; then children
 * of matched pairs by operator and operator class, with engines' operator names mapped onto
 * Spark's through the catalogue), and every node is classified same / changed / replaced /
 * added / removed / moved.  The result is the merged tree in pre-order.
 * Owns: a struct diff_result and everything it points to except plan nodes and their text
 * (slices into the two documents, which must outlive it); diff_free releases it at once.
 * Never: prints, draws, recurses on tree depth, or makes a pass quadratic in the nodes
 * (candidate scans are bounded by small constants).
 */
#ifndef SPARKPLAN_DIFF_H
#define SPARKPLAN_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"
#include "sparkplan/plan.h"
#include "sparkplan/status.h"

/* Normalisations: each is noise that is not a difference.  --ignore names in brackets. */
enum {
    DIFF_NORM_EXPRIDS = 1u << 0,  /* [exprids] amount#11 -> amount#1: renumbered per name in
                                     order of first appearance in the node (#x counts as
                                     the first) */
    DIFF_NORM_PLANIDS = 1u << 1,  /* [planids] [plan_id=N] and [id=#N] */
    DIFF_NORM_OPIDS = 1u << 2,    /* [opids] formatted "(N)", Reuses / Hosting operator id,
                                     QueryStage N */
    DIFF_NORM_CODEGEN = 1u << 3,  /* [codegen] *(N) stage ids, [codegen id : N] */
    DIFF_NORM_SUBQUERY = 1u << 4, /* [subquery] Subquery:N */
    DIFF_NORM_STATS = 1u << 5,    /* [stats] Statistics(...) */
    DIFF_NORM_LOCATION = 1u << 6, /* [location] file Locations */
    DIFF_NORM_HASHES = 1u << 7,   /* [hashes] object hashes: Foo@3f2a1b */
    DIFF_NORM_CATALOG = 1u << 8,  /* [catalog] the spark_catalog. prefix */
};
#define DIFF_NORM_IDS (DIFF_NORM_EXPRIDS | DIFF_NORM_PLANIDS | DIFF_NORM_OPIDS | \
                       DIFF_NORM_CODEGEN | DIFF_NORM_SUBQUERY)
#define DIFF_NORM_DEFAULT (DIFF_NORM_IDS | DIFF_NORM_STATS | DIFF_NORM_LOCATION | \
                           DIFF_NORM_HASHES | DIFF_NORM_CATALOG)

/* "ids,catalog,stats" -> bits ("ids" is the five id kinds, "all" every one, "none" none).
 * SP_ERR_USAGE with the unknown word in err. */
enum sp_status diff_norm_parse(const char *list, unsigned *out, struct diag *err);
/* The names of the bits set, comma separated ("none" when 0), into buf. */
const char *diff_norm_format(unsigned norm, char *buf, size_t cap);

/* The normalised form of text, written into buf (cap bytes, NUL-terminated, cut short when
 * it does not fit); returns the full length.  Expression ids are renumbered through state
 * (NULL: every id becomes #1): per name, in order of first appearance since the last
 * diff_idmap_reset, which the diff calls before each node, so that a node's own structure
 * counts (a#1 = a#2 is not a#1 = a#1) but not which fresh ids another part of the plan got. */
struct diff_idmap;
size_t diff_normalize(struct slice text, unsigned norm, struct diff_idmap *state, char *buf,
                      size_t cap);
struct diff_idmap *diff_idmap_new(void);
void diff_idmap_reset(struct diff_idmap *m);
/* Every id becomes #1 (a side printed "#x" ids: numbers mean nothing to compare with). */
void diff_idmap_opaque(struct diff_idmap *m);
void diff_idmap_free(struct diff_idmap *m);

/* ---- selection ------------------------------------------------------------------------- */

/* One tree of a side: the roots first_root, first_root->next_sibling, ...; a part of a
 * forest with several parts shows as a heading node titled `title`. */
struct diff_part {
    struct slice title;
    uint32_t line;
    const struct plan_node *first_root;
    const struct plan_section *section;
};

struct diff_side {
    const struct document *doc;
    struct diff_part *parts;     /* malloc */
    size_t n_parts;
    bool skip_shadowed;          /* leave out AQE Initial Plans a Final Plan replaced */
};

/* Picks from doc what spec names: "" everything; "#N" plan N (1-based); "@WHAT" where WHAT
 * is parsed, analyzed, optimized, physical, initial, final (Final or Current Plan) or a
 * section number; both as "#N@WHAT".  A whole plan leaves out an AQE Initial Plan that a
 * Final Plan replaced.  SP_ERR_USAGE with a message when the spec names nothing there. */
enum sp_status diff_select(const struct document *doc, const char *spec, struct diff_side *out,
                           struct diag *err);
void diff_side_free(struct diff_side *side);
/* Where the spec of "FILE#2@final" starts: the first '#' or '@' whose prefix exists as a
 * file, when arg itself is not one; strlen(arg) when there is no spec. */
size_t diff_spec_split(const char *arg);

/* ---- the comparison -------------------------------------------------------------------- */

enum diff_change {
    DIFF_SAME,
    DIFF_CHANGED,    /* same operator, fields differ */
    DIFF_REPLACED,   /* another operator of the same class took its place */
    DIFF_ADDED,      /* only in B */
    DIFF_REMOVED,    /* only in A */
    DIFF_MOVED,      /* matched, under another parent */
};
const char *diff_change_name(enum diff_change c); /* "same", "changed", ... */

struct diff_field {
    struct slice key;
    struct slice a, b;     /* original text of the value; has_* false when a side lacks it */
    bool has_a, has_b;
};

/* One node of the merged tree.  A heading (a part of a forest of several) has a == b ==
 * NULL and its parts in part_a / part_b (one may be NULL). */
struct diff_entry {
    const struct plan_node *a, *b;
    const struct diff_part *part_a, *part_b;
    bool heading;
    enum diff_change change;
    uint32_t depth;            /* in the merged tree */
    uint32_t subtree_size;     /* merged descendants */
    bool subtree_same;         /* this node and every descendant are the same */
    struct diff_field *fields; /* the differing fields of changed / replaced / moved nodes */
    uint32_t n_fields;
};

#define DIFF_SUMMARY_OPS 8
struct diff_op_count {
    char a[48], b[48];         /* b empty for added / removed counts */
    uint32_t count;
};

struct diff_summary {
    uint32_t count[DIFF_MOVED + 1];    /* by enum diff_change */
    struct diff_op_count replaced[DIFF_SUMMARY_OPS], added[DIFF_SUMMARY_OPS],
        removed[DIFF_SUMMARY_OPS];     /* most frequent first */
    unsigned n_replaced, n_added, n_removed;
};

struct diff_result {
    struct diff_entry *entries;  /* the merged tree in pre-order */
    size_t n;
    struct diff_summary summary;
    bool equal;                  /* nothing but same */
    unsigned norm;
    struct arena arena;          /* fields and normalised text */
};

/* Compares side a with side b under the normalisations norm.  Near-linear in the nodes.
 * SP_ERR_NOMEM on allocation failure (then *out is NULL). */
enum sp_status diff_sides(const struct diff_side *a, const struct diff_side *b, unsigned norm,
                          struct diff_result **out, struct diag *err);
void diff_free(struct diff_result *r);

/* "SortMergeJoin→BroadcastHashJoin ×1 · −2 Exchange · +1 BroadcastExchange · 3 changed",
 * "no differences" when equal; ASCII separators when !utf8.  Returns the length written. */
size_t diff_summary_format(const struct diff_summary *s, int utf8, char *buf, size_t cap);

/* The operator a node stands for, engines' names mapped onto Spark's: "Project" for
 * CometProject, ProjectExecTransformer, GpuProject, PhotonProject. */
struct slice diff_canonical_op(const struct plan_node *n);

#endif
