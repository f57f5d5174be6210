/* diff_impl: what diff.c, diff_fields.c and diff_merge.c share — a side flattened into
 * pre-order arrays, and the comparison's working state.  Private to src/analysis.
 * Owns: every array of a struct dtree (dtree_free) and the field vectors of a diff_ctx.
 */
#ifndef SPARKPLAN_DIFF_IMPL_H
#define SPARKPLAN_DIFF_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "sparkplan/diff.h"

#define DIFF_NONE UINT32_MAX

/* One side in pre-order; index 0 is a virtual root over the forest, so a subtree is the
 * range [i, i + size[i]]. */
struct dtree {
    const struct plan_node **node;   /* NULL for 0 and for headings */
    const struct diff_part **part;   /* a heading's part, else NULL */
    uint32_t *parent, *first_child, *next_sibling;
    uint32_t *size;                  /* descendants */
    uint32_t *nwdesc;                /* descendants that are not wrappers */
    uint64_t *hash;                  /* normalised content of the node alone */
    uint64_t *tree_hash;             /* content and shape of the subtree */
    struct slice *op;                /* canonical operator ("Project" for CometProject) */
    uint16_t *klass;                 /* match class (diff.c), 0 none */
    bool *wrapper;                   /* AQE / codegen / transition wrapper */
    uint32_t *partner;               /* index on the other side, DIFF_NONE when unmatched */
    uint32_t n;
};

void dtree_free(struct dtree *t);

/* A node's fields as the comparison sees them: the arguments of its text, "Key: value"
 * parts of a simple-mode text, and its details fields. */
struct nfield {
    struct slice key, value;   /* original text */
    uint64_t norm;             /* hash of the normalised value */
};

struct nfields {
    struct nfield *v;
    size_t n, cap;
};

struct diff_ctx {
    unsigned norm;
    bool opaque_ids;           /* a side prints #x ids: ids compare by name alone */
    struct dtree a, b;
    struct diff_idmap *ids_a, *ids_b;
    char *scratch;             /* normalisation buffer */
    size_t scratch_cap;
    struct nfields fa, fb;
};

uint64_t diff_hash_slice(struct slice s);
/* Hashes the normalised form of value into *h (mixing it in). */
bool diff_norm_value(struct diff_ctx *c, struct slice value, struct diff_idmap *ids,
                     uint64_t *h);
/* The fields of n, normalised through ids, into out (emptied first).  False: no memory. */
bool diff_node_fields(struct diff_ctx *c, const struct plan_node *n, struct diff_idmap *ids,
                      struct nfields *out);
/* Classification, merged tree and summary into a new result. */
bool diff_merge(struct diff_ctx *c, struct diff_result **out);

#endif
