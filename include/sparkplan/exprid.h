/* exprid: expression ids (amount#11, customer_id#10L) — which a node mentions, which nodes
 * mention one, and which node produces it.
 *
 * Ids are Spark's exprId numbers; "#x" ids of normalized golden files cannot be traced and are
 * reported as such.  "[id=#5]" (subquery / exchange plan ids) are not expression ids.
 * Owns: struct exprid_hits arrays (malloc), freed with exprid_hits_free().  Refs returned by
 * exprid_node_refs are slices into the document text.
 * Never: recursion; every search is linear in the text searched.
 */
#ifndef SPARKPLAN_EXPRID_H
#define SPARKPLAN_EXPRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/plan.h"
#include "sparkplan/status.h"

struct exprid_ref {
    struct slice text;     /* "customer_id#10L" as printed (name, '#', digits, suffix) */
    struct slice name;     /* "customer_id" (may be empty: "#11") */
    uint64_t id;           /* 10; 0 when normalized */
    bool normalized;       /* "#x": not traceable */
};

/* Ids in a piece of text, in order of first appearance, each id once.  Writes up to cap refs
 * and returns how many distinct ids there are (may exceed cap).  Normalized ids (#x) are
 * collapsed into one ref per name. */
size_t exprid_scan(struct slice text, struct exprid_ref *out, size_t cap);
/* Ids a node mentions: its text, then its details. */
size_t exprid_node_refs(const struct plan_node *n, struct exprid_ref *out, size_t cap);
/* Does the text mention #id (exactly that number, with or without the L suffix)? */
bool exprid_mentions(struct slice text, uint64_t id);
bool exprid_node_mentions(const struct plan_node *n, uint64_t id);
/* Parses "amount#11", "#11", "11L" or "11" into an id.  False when there is none. */
bool exprid_parse(const char *s, uint64_t *id);

struct exprid_hits {
    const struct plan_node **nodes;  /* every node in scope mentioning the id, in input order */
    size_t n;
    const struct plan_node *producer;/* in the focus section: where the id comes from */
};

/* Every node of `plan` (all its sections; NULL = whole document) mentioning id.  The producer
 * is searched in `focus` (NULL: the first section with a hit): an alias "AS name#id" first,
 * then a scan, then the bottom-most node in data flow. */
enum sp_status exprid_find(const struct document *doc, const struct plan *plan,
                           const struct plan_section *focus, uint64_t id,
                           struct exprid_hits *out, struct diag *err);
void exprid_hits_free(struct exprid_hits *h);

#endif
