/* gen: deterministic generator of large Spark plans for `make bench`.
 *
 *   gen formatted NODES FILE   formatted-mode plan: outline with (id)s, then details blocks
 *   gen simple NODES FILE      simple-mode plan: joins, exchanges, *(N) codegen stages
 *   gen chain DEPTH FILE       one chain DEPTH levels deep (almost all indentation)
 *   gen longline BYTES FILE    a small plan whose Project line is BYTES long
 *
 * The plans copy the shapes Spark prints (see docs/spark-plan-format.md in the shared
 * docs and the corpus): tree markers in 3-character units, whole-stage-codegen markers on
 * the operators of a stage with post-order stage ids, formatted ids in post-order, details
 * blocks with the fields each operator kind prints.  A fixed-seed PRNG makes every run
 * byte-identical.  Owns: one node array, freed at exit.  Never reads any input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---- output: one big buffer, no printf on the hot path ---------------------------- */

static FILE *out_file;
static char out_buf[1 << 20];
static size_t out_len;
static uint64_t out_total; /* bytes produced so far, flushed or not */

static void out_flush(void)
{
    if (out_len && fwrite(out_buf, 1, out_len, out_file) != out_len) {
        perror("gen: write");
        exit(1);
    }
    out_len = 0;
}

static int json_escape; /* eventlog: the plan is written as the body of a JSON string */
static void put_raw(const char *s, size_t n);

static void put_mem(const char *s, size_t n)
{
    if (!json_escape) {
        put_raw(s, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\n')
            put_raw("\\n", 2);
        else if (c == '"' || c == '\\')
            put_raw((const char[]){'\\', c}, 2);
        else
            put_raw(&s[i], 1);
    }
}

static void put_raw(const char *s, size_t n)
{
    while (n) {
        if (out_len == sizeof out_buf)
            out_flush();
        size_t room = sizeof out_buf - out_len, k = n < room ? n : room;
        memcpy(out_buf + out_len, s, k);
        out_len += k;
        out_total += k;
        s += k;
        n -= k;
    }
}

static void put(const char *s) { put_mem(s, strlen(s)); }

static void put_ch(char c)
{
    if (json_escape) {
        put_mem(&c, 1);
        return;
    }
    if (out_len == sizeof out_buf)
        out_flush();
    out_buf[out_len++] = c;
    out_total++;
}

static void put_u(uint64_t v)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_mem(tmp + i, sizeof tmp - (size_t)i);
}

/* ---- deterministic randomness ------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n) /* uniform-ish in [0, n) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)(((rng_state * 0x2545F4914F6CDD1Dull) >> 32) % n);
}

/* ---- a little TPC-DS flavoured catalogue ------------------------------------------- */

struct table {
    const char *name, *prefix;
    const char *cols[4];
    const char *types[4];
};

static const struct table tables[] = {
    {"store_sales", "ss", {"item_sk", "quantity", "list_price", "sold_date_sk"},
     {"int", "int", "decimal(7,2)", "int"}},
    {"catalog_sales", "cs", {"item_sk", "quantity", "list_price", "sold_date_sk"},
     {"int", "int", "decimal(7,2)", "int"}},
    {"web_sales", "ws", {"item_sk", "ext_sales_price", "bill_customer_sk", "sold_date_sk"},
     {"int", "decimal(7,2)", "int", "int"}},
    {"date_dim", "d", {"date_sk", "year", "moy", "week_seq"}, {"int", "int", "int", "int"}},
    {"item", "i", {"item_sk", "brand_id", "class_id", "category_id"},
     {"int", "int", "int", "int"}},
    {"customer", "c", {"customer_sk", "first_name", "last_name", "birth_country"},
     {"int", "string", "string", "string"}},
    {"store", "s", {"store_sk", "store_id", "store_name", "state"},
     {"int", "string", "string", "string"}},
};
#define N_TABLES (sizeof tables / sizeof tables[0])

/* ---- the tree ------------------------------------------------------------------------ */

enum kind {
    K_SCAN,       /* FileScan parquet (simple) / Scan parquet (formatted) */
    K_C2R,        /* ColumnarToRow */
    K_FILTER,
    K_PROJECT,
    K_BHJ,        /* BroadcastHashJoin */
    K_SMJ,        /* SortMergeJoin */
    K_SORT,
    K_EXCHANGE,
    K_BEXCHANGE,  /* BroadcastExchange */
    K_HASHAGG,
    K_UNION,
    K_TAKE,       /* TakeOrderedAndProject */
    K_LOCAL,      /* LocalTableScan */
};

/* Operators that whole-stage codegen fuses (they carry a *(N) marker). */
static int is_codegen(enum kind k)
{
    return k == K_C2R || k == K_FILTER || k == K_PROJECT || k == K_BHJ || k == K_SMJ ||
           k == K_SORT || k == K_HASHAGG;
}

struct gnode {
    uint32_t parent, first_child, last_child, next_sibling;
    uint32_t e0;       /* first expression id of the node's output */
    uint32_t id;       /* formatted operator id, post-order, 1-based */
    int32_t stage;     /* codegen stage id, -1 outside any stage */
    uint8_t kind, tab, nc, partial;
};

static struct gnode *nodes;
static uint32_t n_nodes, cap_nodes;
static uint32_t next_expr = 1;

static uint32_t node_new(enum kind k, uint32_t parent)
{
    if (n_nodes == cap_nodes) {
        cap_nodes = cap_nodes ? cap_nodes * 2 : 1024;
        nodes = realloc(nodes, cap_nodes * sizeof *nodes);
        if (!nodes) {
            fputs("gen: out of memory\n", stderr);
            exit(1);
        }
    }
    uint32_t i = n_nodes++;
    struct gnode *n = &nodes[i];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->first_child = n->last_child = n->next_sibling = NONE;
    n->kind = (uint8_t)k;
    n->stage = -1;
    if (parent != NONE) {
        struct gnode *p = &nodes[parent];
        if (p->last_child == NONE)
            p->first_child = i;
        else
            nodes[p->last_child].next_sibling = i;
        p->last_child = i;
    }
    return i;
}

/* Output columns flow up: a pass-through operator shows its first child's columns. */
static void inherit_cols(uint32_t i)
{
    struct gnode *n = &nodes[i], *c = &nodes[n->first_child];
    n->tab = c->tab;
    n->e0 = c->e0;
    n->nc = c->nc;
}

/* Nodes are created top-down (parents first, as the tree is printed), so a parent's
 * columns are only known once its children exist: fix_cols runs bottom-up at the end. */

/* Filter? over ColumnarToRow over a file scan, optionally under a Project. */
static uint32_t scan_chain(uint32_t parent)
{
    uint32_t top = parent;
    if (rnd(2))
        top = node_new(K_PROJECT, top);
    if (rnd(4))
        top = node_new(K_FILTER, top);
    top = node_new(K_C2R, top);
    uint32_t s = node_new(K_SCAN, top);
    nodes[s].tab = (uint8_t)rnd(N_TABLES);
    nodes[s].nc = (uint8_t)(1 + rnd(2));
    nodes[s].e0 = next_expr;
    next_expr += nodes[s].nc;
    return s;
}

/* A joined relation; the recursion is bounded by joins (at most 3 levels), not by input. */
static void relation(uint32_t parent, int joins)
{
    uint32_t r = rnd(10);
    if (joins == 0 || r < 3) {
        scan_chain(parent);
        return;
    }
    if (r < 7) { /* broadcast join: streamed side on the left, small table broadcast */
        uint32_t top = rnd(2) ? node_new(K_PROJECT, parent) : parent;
        uint32_t j = node_new(K_BHJ, top);
        relation(j, joins - 1);
        uint32_t b = node_new(K_BEXCHANGE, j);
        scan_chain(b);
        return;
    }
    uint32_t top = node_new(K_PROJECT, parent);
    uint32_t j = node_new(K_SMJ, top);
    uint32_t ls = node_new(K_SORT, j);
    relation(node_new(K_EXCHANGE, ls), joins - 1);
    uint32_t rs = node_new(K_SORT, j);
    scan_chain(node_new(K_EXCHANGE, rs));
}

/* One query block: final aggregate, shuffle, partial aggregate over joins. */
static void branch(uint32_t parent)
{
    uint32_t f = node_new(K_HASHAGG, parent);
    uint32_t x = node_new(K_EXCHANGE, f);
    uint32_t p = node_new(K_HASHAGG, x);
    nodes[p].partial = 1;
    relation(p, (int)rnd(3));
}

/* Bottom-up pass: nodes were appended parents first, so reverse index order visits every
 * child before its parent. */
static void fix_cols(void)
{
    for (uint32_t i = n_nodes; i-- > 0;) {
        struct gnode *n = &nodes[i];
        if (n->kind == K_SCAN || n->kind == K_LOCAL || n->first_child == NONE)
            continue;
        inherit_cols(i);
        if (n->kind == K_HASHAGG || n->kind == K_TAKE) {
            n->e0 = next_expr;   /* aggregates name new attributes (+1: the buffer) */
            next_expr += n->nc + 1u;
        }
        if (n->kind == K_PROJECT && n->nc > 1)
            n->nc--;
    }
}

/* Post-order ids and codegen stages (ids assigned when a stage root is left, as Spark's
 * CollapseCodegenStages does).  Iterative walk over the child/sibling links. */
static void number_nodes(uint32_t root)
{
    uint32_t next_id = 1, next_stage = 1, i = root;
    for (;;) {
        while (nodes[i].first_child != NONE)
            i = nodes[i].first_child;
        for (;;) { /* leave i: every descendant has been numbered */
            struct gnode *n = &nodes[i];
            n->id = next_id++;
            uint32_t p = n->parent;
            int stage_root = is_codegen(n->kind) &&
                             (p == NONE || !is_codegen(nodes[p].kind) || nodes[p].kind == K_SMJ);
            if (stage_root)
                n->stage = (int32_t)next_stage++;
            if (n->next_sibling != NONE) {
                i = n->next_sibling;
                break;
            }
            if (p == NONE)
                goto stages;
            i = p;
        }
    }
stages:
    /* Pre-order: a fused operator takes its stage root's id (parents come first in the
     * array, so the parent's stage is already final). */
    for (uint32_t k = 0; k < n_nodes; k++) {
        struct gnode *n = &nodes[k];
        if (!is_codegen(n->kind) || n->stage >= 0)
            continue;
        n->stage = nodes[n->parent].stage;
    }
}

/* ---- text of one node ----------------------------------------------------------------- */

static void put_col(const struct gnode *n, unsigned k, int with_id)
{
    const struct table *t = &tables[n->tab];
    put(t->prefix);
    put_ch('_');
    put(t->cols[k % 4]);
    if (with_id) {
        put_ch('#');
        put_u(n->e0 + k);
    }
}

static void put_cols(const struct gnode *n, const char *sep)
{
    for (unsigned k = 0; k < n->nc; k++) {
        if (k)
            put(sep);
        put_col(n, k, 1);
    }
}

static void put_list(const struct gnode *n) /* "[a#1, b#2]" */
{
    put_ch('[');
    put_cols(n, ", ");
    put_ch(']');
}

static void put_counted(const char *field, const struct gnode *n) /* "Input [2]: [..]" */
{
    put(field);
    put(" [");
    put_u(n->nc);
    put("]: ");
    put_list(n);
    put_ch('\n');
}

static const struct gnode *child(const struct gnode *n, unsigned k)
{
    uint32_t c = n->first_child;
    while (k-- && c != NONE) /* k <= 1: joins have two children */
        c = nodes[c].next_sibling;
    return c == NONE ? NULL : &nodes[c];
}

static void put_condition(const struct gnode *c)
{
    put("(isnotnull(");
    put_col(c, 0, 1);
    put(") AND (");
    put_col(c, 1, 1);
    put(" > ");
    put_u(c->e0 % 97);
    put("))");
}

static void put_read_schema(const struct gnode *n)
{
    const struct table *t = &tables[n->tab];
    put("struct<");
    for (unsigned k = 0; k < n->nc; k++) {
        if (k)
            put_ch(',');
        put_col(n, k, 0);
        put_ch(':');
        put(t->types[k % 4]);
    }
    put_ch('>');
}

static void put_hash_mode(const struct gnode *c)
{
    (void)c;
    put("HashedRelationBroadcastMode(List(cast(input[0, int, false] as bigint)),false)");
}

static void put_partitioning(const struct gnode *n)
{
    put("hashpartitioning(");
    put_col(n, 0, 1);
    put(", 200)");
}

/* Simple mode: the whole node string on one line (verbose=false). */
static void simple_text(const struct gnode *n)
{
    const struct gnode *c = child(n, 0), *r = child(n, 1);
    switch ((enum kind)n->kind) {
    case K_SCAN:
        put("FileScan parquet spark_catalog.tpcds.");
        put(tables[n->tab].name);
        put_ch('[');
        put_cols(n, ",");
        put("] Batched: true, DataFilters: [isnotnull(");
        put_col(n, 0, 1);
        put(")], Format: Parquet, Location: InMemoryFileIndex(1 paths)[file:/warehouse/tpcds/");
        put(tables[n->tab].name);
        put("], PartitionFilters: [], PushedFilters: [IsNotNull(");
        put_col(n, 0, 0);
        put(")], ReadSchema: ");
        put_read_schema(n);
        break;
    case K_C2R: put("ColumnarToRow"); break;
    case K_FILTER: put("Filter "); put_condition(c); break;
    case K_PROJECT: put("Project "); put_list(n); break;
    case K_BHJ:
        put("BroadcastHashJoin [");
        put_col(c, 0, 1);
        put("], [");
        put_col(r, 0, 1);
        put("], Inner, BuildRight, false");
        break;
    case K_SMJ:
        put("SortMergeJoin [");
        put_col(c, 0, 1);
        put("], [");
        put_col(r, 0, 1);
        put("], Inner");
        break;
    case K_SORT: put("Sort ["); put_col(n, 0, 1); put(" ASC NULLS FIRST], false, 0"); break;
    case K_EXCHANGE:
        put("Exchange ");
        put_partitioning(n);
        put(", ENSURE_REQUIREMENTS, [plan_id=");
        put_u(n->id);
        put_ch(']');
        break;
    case K_BEXCHANGE:
        put("BroadcastExchange ");
        put_hash_mode(c);
        put(", [plan_id=");
        put_u(n->id);
        put_ch(']');
        break;
    case K_HASHAGG:
        put("HashAggregate(keys=[");
        put_col(c, 0, 1);
        put(n->partial ? "], functions=[partial_sum(" : "], functions=[sum(");
        put_col(c, 1, 1);
        put(")])");
        break;
    case K_UNION: put("Union"); break;
    case K_TAKE:
        put("TakeOrderedAndProject(limit=100, orderBy=[");
        put_col(c, 0, 1);
        put(" ASC NULLS FIRST], output=[");
        put_cols(c, ",");
        put("])");
        break;
    case K_LOCAL: put("LocalTableScan "); put_list(n); break;
    }
}

/* Formatted mode operator name (outline and details header). */
static void outline_name(const struct gnode *n)
{
    switch ((enum kind)n->kind) {
    case K_SCAN: put("Scan parquet spark_catalog.tpcds."); put(tables[n->tab].name); break;
    case K_C2R: put("ColumnarToRow"); break;
    case K_FILTER: put("Filter"); break;
    case K_PROJECT: put("Project"); break;
    case K_BHJ: put("BroadcastHashJoin Inner BuildRight"); break;
    case K_SMJ: put("SortMergeJoin Inner"); break;
    case K_SORT: put("Sort"); break;
    case K_EXCHANGE: put("Exchange"); break;
    case K_BEXCHANGE: put("BroadcastExchange"); break;
    case K_HASHAGG: put("HashAggregate"); break;
    case K_UNION: put("Union"); break;
    case K_TAKE: put("TakeOrderedAndProject"); break;
    case K_LOCAL: put("LocalTableScan"); break;
    }
}

static void outline_text(const struct gnode *n)
{
    outline_name(n);
    put(" (");
    put_u(n->id);
    put_ch(')');
}

static const char *detail_name(const struct gnode *n)
{
    switch ((enum kind)n->kind) {
    case K_BHJ: return "BroadcastHashJoin";
    case K_SMJ: return "SortMergeJoin";
    default: return NULL;
    }
}

/* Formatted mode details block (without the blank line that precedes it). */
static void details_block(const struct gnode *n)
{
    const struct gnode *c = child(n, 0), *r = child(n, 1);
    put_ch('(');
    put_u(n->id);
    put(") ");
    if (detail_name(n))
        put(detail_name(n)); /* joins: no join type in the details header */
    else
        outline_name(n);
    if (n->stage >= 0) {
        put(" [codegen id : ");
        put_u((uint64_t)n->stage);
        put_ch(']');
    }
    put_ch('\n');
    switch ((enum kind)n->kind) {
    case K_SCAN:
        put_counted("Output", n);
        put("Batched: true\nLocation: InMemoryFileIndex [file:/warehouse/tpcds/");
        put(tables[n->tab].name);
        put("]\nPushedFilters: [IsNotNull(");
        put_col(n, 0, 0);
        put(")]\nReadSchema: ");
        put_read_schema(n);
        put_ch('\n');
        break;
    case K_FILTER:
        put_counted("Input", c);
        put("Condition : ");
        put_condition(c);
        put_ch('\n');
        break;
    case K_PROJECT:
        put_counted("Output", n);
        put_counted("Input", c);
        break;
    case K_BHJ:
    case K_SMJ:
        put("Left keys [1]: [");
        put_col(c, 0, 1);
        put("]\nRight keys [1]: [");
        put_col(r, 0, 1);
        put("]\nJoin type: Inner\nJoin condition: None\n");
        break;
    case K_SORT:
        put_counted("Input", c);
        put("Arguments: [");
        put_col(c, 0, 1);
        put(" ASC NULLS FIRST], false, 0\n");
        break;
    case K_EXCHANGE:
        put_counted("Input", c);
        put("Arguments: ");
        put_partitioning(c);
        put(", ENSURE_REQUIREMENTS, [plan_id=");
        put_u(n->id);
        put("]\n");
        break;
    case K_BEXCHANGE:
        put_counted("Input", c);
        put("Arguments: ");
        put_hash_mode(c);
        put(", [plan_id=");
        put_u(n->id);
        put("]\n");
        break;
    case K_HASHAGG:
        put_counted("Input", c);
        put("Keys [1]: [");
        put_col(c, 0, 1);
        put(n->partial ? "]\nFunctions [1]: [partial_sum(" : "]\nFunctions [1]: [sum(");
        put_col(c, 1, 1);
        put(")]\nAggregate Attributes [1]: [sum#");
        put_u(n->e0 + n->nc);
        put("L]\n");
        put_counted("Results", n);
        break;
    case K_C2R:
    case K_LOCAL:
        put_counted(n->kind == K_C2R ? "Input" : "Output", n);
        break;
    case K_UNION:
        break; /* multi-child operators print only Arguments, and Union has none */
    case K_TAKE:
        put_counted("Input", c);
        put("Arguments: 100, [");
        put_col(c, 0, 1);
        put(" ASC NULLS FIRST], ");
        put_list(c);
        put_ch('\n');
        break;
    }
}

/* ---- printing the tree ------------------------------------------------------------- */

/* Pre-order walk printing tree markers.  guides holds, for each ancestor level, "   " or
 * ":  " (bar continues when that ancestor has later siblings). */
static void print_tree(uint32_t root, int formatted)
{
    size_t guides_cap = 3 * 1024, depth = 0;
    char *guides = malloc(guides_cap);
    uint32_t i = root;
    for (;;) {
        const struct gnode *n = &nodes[i];
        if (depth > 0) {
            put_mem(guides, 3 * (depth - 1));
            put(n->next_sibling == NONE ? "+- " : ":- ");
        }
        if (n->stage >= 0) {
            if (formatted) {
                put("* ");
            } else {
                put("*(");
                put_u((uint64_t)n->stage);
                put(") ");
            }
        }
        if (formatted)
            outline_text(n);
        else
            simple_text(n);
        put_ch('\n');
        if (n->first_child != NONE) {
            if (depth > 0) { /* the guide unit this node leaves for its descendants */
                if (3 * depth > guides_cap) {
                    guides_cap *= 2;
                    guides = realloc(guides, guides_cap);
                    if (!guides)
                        exit(1);
                }
                memcpy(guides + 3 * (depth - 1), n->next_sibling == NONE ? "   " : ":  ", 3);
            }
            depth++;
            i = n->first_child;
            continue;
        }
        /* climb until a node with a next sibling; each step up is one level */
        while (nodes[i].next_sibling == NONE && nodes[i].parent != NONE) {
            i = nodes[i].parent;
            depth--;
        }
        if (nodes[i].next_sibling == NONE)
            break;
        i = nodes[i].next_sibling;
    }
    free(guides);
}

static void print_details(void)
{
    uint32_t *by_id = malloc((size_t)(n_nodes + 1) * sizeof *by_id);
    if (!by_id)
        exit(1);
    for (uint32_t k = 0; k < n_nodes; k++)
        by_id[nodes[k].id] = k;
    put_ch('\n');
    for (uint32_t id = 1; id <= n_nodes; id++) {
        put_ch('\n');
        details_block(&nodes[by_id[id]]);
    }
    put_ch('\n');
    free(by_id);
}

/* ---- the plans ----------------------------------------------------------------------- */

/* TakeOrderedAndProject over a two-level union of query blocks, until about target nodes
 * (a big generated UNION ALL report query). */
static uint32_t build_big(uint32_t target)
{
    uint32_t root = node_new(K_TAKE, NONE);
    uint32_t f = node_new(K_HASHAGG, root);
    uint32_t p = node_new(K_HASHAGG, node_new(K_EXCHANGE, f));
    nodes[p].partial = 1;
    uint32_t outer = node_new(K_UNION, p);
    const uint32_t groups = 64;
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t gf = node_new(K_HASHAGG, outer);
        uint32_t gp = node_new(K_HASHAGG, node_new(K_EXCHANGE, gf));
        nodes[gp].partial = 1;
        uint32_t u = node_new(K_UNION, gp);
        uint64_t goal = (uint64_t)target * (g + 1) / groups;
        do
            branch(u);
        while (n_nodes < goal);
    }
    return root;
}

/* A ten-operator plan, the "tiny plan" key costs are compared with. */
static uint32_t build_small(void)
{
    uint32_t root = node_new(K_TAKE, NONE);
    uint32_t p = node_new(K_HASHAGG, node_new(K_EXCHANGE, node_new(K_HASHAGG, root)));
    nodes[p].partial = 1;
    uint32_t j = node_new(K_BHJ, p);
    uint32_t s1 = node_new(K_SCAN, node_new(K_C2R, j));
    uint32_t s2 = node_new(K_SCAN, node_new(K_C2R, node_new(K_BEXCHANGE, j)));
    nodes[s1].tab = 0;
    nodes[s2].tab = 3;
    nodes[s1].nc = nodes[s2].nc = 2;
    nodes[s1].e0 = 1;
    nodes[s2].e0 = 3;
    next_expr = 5;
    return root;
}

/* A plan of about target (11-100) operators: one union of query blocks, the smallest
 * plans that fill the explorer's 38-line pane (the fair baseline for a full screen). */
static uint32_t build_fill(uint32_t target)
{
    uint32_t root = node_new(K_TAKE, NONE);
    uint32_t p = node_new(K_HASHAGG, node_new(K_EXCHANGE, node_new(K_HASHAGG, root)));
    nodes[p].partial = 1;
    uint32_t u = node_new(K_UNION, p);
    do
        branch(u);
    while (n_nodes < target);
    return root;
}

/* Left-deep chain: every level a Project or Filter, every 50th a broadcast join whose
 * chain continues on the left (":  " guides) with a LocalTableScan on the right. */
static uint32_t build_chain(uint32_t depth)
{
    uint32_t root = node_new(K_PROJECT, NONE), top = root;
    for (uint32_t d = 1; d + 1 < depth; d++) {
        enum kind k = d % 50 == 0 ? K_BHJ : (d % 2 ? K_FILTER : K_PROJECT);
        top = node_new(k, top);
    }
    uint32_t leaf = node_new(K_LOCAL, top);
    nodes[leaf].nc = 2;
    nodes[leaf].e0 = next_expr;
    next_expr += 2;
    /* the joins' right sides, appended after the chain so the chain is the first child */
    for (uint32_t k = 0; k < n_nodes; k++) {
        if (nodes[k].kind != K_BHJ || nodes[k].last_child != nodes[k].first_child)
            continue;
        uint32_t b = node_new(K_LOCAL, node_new(K_BEXCHANGE, k));
        nodes[b].tab = 3;
        nodes[b].nc = 2;
        nodes[b].e0 = next_expr;
        next_expr += 2;
    }
    return root;
}

static void write_longline(uint64_t bytes)
{
    /* Generated SQL: one CASE WHEN with a branch per code, on one Project line. */
    put("== Physical Plan ==\n*(1) Project [ss_item_sk#1, CASE ");
    for (uint32_t k = 0; out_total + 64 < bytes; k++) {
        put("WHEN (ss_store_code#2 = S");
        put_u(k);
        put(") THEN ");
        put_u(k % 1000);
        put_ch(' ');
    }
    put("ELSE -1 END AS bucket#3]\n");
    put("+- *(1) Filter isnotnull(ss_item_sk#1)\n");
    put("   +- *(1) ColumnarToRow\n");
    put("      +- FileScan parquet spark_catalog.tpcds.store_sales[ss_item_sk#1,ss_store_code#2] "
        "Batched: true, DataFilters: [isnotnull(ss_item_sk#1)], Format: Parquet, Location: "
        "InMemoryFileIndex(1 paths)[file:/warehouse/tpcds/store_sales], PartitionFilters: [], "
        "PushedFilters: [IsNotNull(ss_item_sk)], ReadSchema: "
        "struct<ss_item_sk:int,ss_store_code:string>\n\n");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: gen formatted|simple|chain|longline|eventlog SIZE FILE\n", stderr);
        return 2;
    }
    const char *kind = argv[1];
    uint64_t size = strtoull(argv[2], NULL, 10);
    out_file = fopen(argv[3], "wb");
    if (!out_file || size == 0) {
        perror(argv[3]);
        return 1;
    }
    if (strcmp(kind, "longline") == 0) {
        write_longline(size);
    } else {
        uint32_t root;
        if (strcmp(kind, "chain") == 0)
            root = build_chain((uint32_t)size);
        else if (size <= 10)
            root = build_small();
        else if (size <= 100)
            root = build_fill((uint32_t)size);
        else
            root = build_big((uint32_t)size);
        fix_cols();
        number_nodes(root);
        /* eventlog: the formatted plan as Spark's event log carries it, the string value of
           physicalPlanDescription on one JSON line (SparkListenerSQLExecutionStart) */
        int elog = strcmp(kind, "eventlog") == 0;
        if (elog)
            put("{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
                "\"executionId\":0,\"description\":\"report\",\"details\":\"\","
                "\"physicalPlanDescription\":\"");
        json_escape = elog;
        put("== Physical Plan ==\n");
        if (elog || strcmp(kind, "formatted") == 0) {
            print_tree(root, 1);
            print_details();
            json_escape = 0;
            if (elog)
                put("\",\"time\":1700000000000}\n");
        } else {
            print_tree(root, 0);
            put_ch('\n');
        }
    }
    out_flush();
    if (fclose(out_file) != 0) {
        perror(argv[3]);
        return 1;
    }
    return 0;
}
