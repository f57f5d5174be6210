/* opclass.c: operator kinds by name, and the one-line summary (see opclass.h). */
#include "sparkplan/opclass.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/catalog.h"
#include "sparkplan/nodeinfo.h"
#include "sparkplan/namekey.h"

/* Characters a lenient parser may leave before the operator name (a codegen marker, a
 * tree prefix). */
static bool skip_char(unsigned char c)
{
    return c == '*' || c == '(' || c == ')' || c == ' ' || c == '+' || c == '-' || c == ':' ||
           c == '|' || (c >= '0' && c <= '9');
}

struct slice op_word(const struct plan_node *n)
{
    struct slice w = plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n);
    size_t i = 0;
    while (i < w.len && skip_char((unsigned char)w.ptr[i]))
        i++;
    size_t j = i;
    while (j < w.len && w.ptr[j] != ' ' && w.ptr[j] != '[' && w.ptr[j] != '(' && w.ptr[j] != '\n')
        j++;
    struct slice word = slice_make(w.ptr + i, j - i);
    /* Spark names some operators with two words: "Execute CreateTableCommand" (the command
     * it runs), "Scan ExistingRDD", "Scan parquet", "Scan In-memory table". */
    if (slice_eq_cstr(word, "Execute") || slice_eq_cstr(word, "Scan")) {
        struct slice full = catalog_operator_name(slice_make(word.ptr, w.len - i));
        if (full.ptr == word.ptr && full.len > word.len)
            return full;
    }
    return word;
}

/* Name parts that decide the class, found in one pass over the word (classifying a
 * million nodes must stay fast: this runs when a tab opens). */
enum {
    T_EXCHANGE = 1 << 0,
    T_BROADCAST = 1 << 1,
    T_REUSED = 1 << 2,
    T_QUERYSTAGE = 1 << 3,
    T_SHUFFLE = 1 << 4,
    T_JOIN = 1 << 5,
    T_CARTESIAN = 1 << 6,
    T_SCAN = 1 << 7,
};

static bool at(struct slice w, size_t i, const char *lit, size_t n)
{
    return i + n <= w.len && memcmp(w.ptr + i, lit, n) == 0;
}

static unsigned word_parts(struct slice w)
{
    unsigned parts = 0;
    for (size_t i = 0; i < w.len; i++) { /* a word is short */
        switch (w.ptr[i]) {
        case 'E':
            parts |= at(w, i, "Exchange", 8) ? T_EXCHANGE : 0;
            break;
        case 'B':
            parts |= at(w, i, "Broadcast", 9) ? T_BROADCAST : 0;
            break;
        case 'R':
            parts |= at(w, i, "Reused", 6) ? T_REUSED : 0;
            break;
        case 'Q':
            parts |= at(w, i, "QueryStage", 10) ? T_QUERYSTAGE : 0;
            break;
        case 'S':
            parts |= at(w, i, "Shuffle", 7) ? T_SHUFFLE : at(w, i, "Scan", 4) ? T_SCAN : 0;
            break;
        case 'J':
            parts |= at(w, i, "Join", 4) ? T_JOIN : 0;
            break;
        case 'C':
            parts |= at(w, i, "CartesianProduct", 16) ? T_CARTESIAN : 0;
            break;
        default:
            break;
        }
    }
    return parts;
}

static int word_ends_with(struct slice w, const char *suffix)
{
    size_t n = strlen(suffix);
    return w.len >= n && memcmp(w.ptr + w.len - n, suffix, n) == 0;
}

/* A ReusedExchange says what it reuses either in its text (simple mode prints the reused
 * plan's root: "ReusedExchange [a#1], BroadcastExchange ...") or by id in formatted mode. */
static enum op_class reused_kind(const struct plan_node *n)
{
    if (slice_find(plan_node_text(n), "BroadcastExchange") >= 0)
        return OP_BROADCAST_REUSED;
    long at = slice_find(plan_node_details_text(n), "Reuses operator id: ");
    struct slice where = plan_node_details_text(n);
    if (at < 0) {
        at = slice_find(plan_node_text(n), "Reuses operator id: ");
        where = plan_node_text(n);
    }
    if (at >= 0 && n->section && n->section->plan) {
        size_t i = (size_t)at + strlen("Reuses operator id: ");
        int32_t id = 0;
        int digits = 0;
        while (i < where.len && where.ptr[i] >= '0' && where.ptr[i] <= '9' && digits < 9) {
            id = id * 10 + (where.ptr[i] - '0');
            i++, digits++;
        }
        const struct plan_node *t = digits ? plan_node_find_by_id(n->section->plan, id) : NULL;
        if (t && t != n && (word_parts(op_word(t)) & T_BROADCAST))
            return OP_BROADCAST_REUSED;
    }
    return OP_SHUFFLE_REUSED;
}

/* op_class_of of a node that is not a label, whose op_word is w. */
static enum op_class class_of_word(const struct plan_node *n, struct slice w)
{
    if (w.len == 0)
        return OP_OTHER;
    unsigned p = word_parts(w);
    if (p & T_QUERYSTAGE) {
        if (p & T_BROADCAST)
            return OP_BROADCAST_STAGE;
        if (p & T_SHUFFLE)
            return OP_SHUFFLE_STAGE;
        return OP_OTHER;
    }
    if ((p & (T_REUSED | T_EXCHANGE)) == (T_REUSED | T_EXCHANGE))
        return reused_kind(n);
    if ((p & (T_BROADCAST | T_EXCHANGE)) == (T_BROADCAST | T_EXCHANGE))
        return OP_BROADCAST;
    if (p & T_EXCHANGE)
        return OP_SHUFFLE;
    if (p & (T_JOIN | T_CARTESIAN))
        return OP_JOIN;
    if ((p & T_SCAN) || word_ends_with(w, "Relation") || slice_eq_cstr(w, "LogicalRDD"))
        return OP_SCAN;
    return OP_OTHER;
}

enum op_class op_class_of(const struct plan_node *n)
{
    if (n->flags & NODE_LABEL)
        return OP_LABEL;
    return class_of_word(n, op_word(n));
}

/* "SortMergeJoin", or "Join Inner" for the logical Join whose type is the next word. */
static void join_kind_name(const struct plan_node *n, char *buf, size_t cap)
{
    struct slice w = op_word(n);
    size_t len = w.len;
    const char *end = plan_node_text(n).ptr + plan_node_text(n).len;
    if (slice_eq_cstr(w, "Join") && w.ptr + w.len < end && w.ptr[w.len] == ' ') {
        const char *p = w.ptr + w.len + 1;
        while (p < end && *p != ',' && *p != ' ' && *p != '\n')
            p++;
        len = (size_t)(p - w.ptr);
    }
    if (len >= cap)
        len = cap - 1;
    /* Names come from the input: keep only printable ASCII so the summary is safe to show. */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)w.ptr[i];
        buf[i] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
    }
    buf[len] = '\0';
}

static int compare_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Stage ids are small in practice: a bitmap counts them in one pass; larger ids (from
 * hostile input) fall back to sorting. */
#define DISTINCT_BITMAP_IDS (1u << 20)

uint32_t op_count_distinct(int32_t *ids, size_t n)
{
    int32_t max = -1;
    for (size_t i = 0; i < n; i++)
        if (ids[i] > max)
            max = ids[i];
    uint32_t count = 0;
    if (max >= 0 && (uint32_t)max < DISTINCT_BITMAP_IDS) {
        uint8_t *bits = calloc((size_t)max / 8 + 1, 1);
        if (bits) {
            for (size_t i = 0; i < n; i++) {
                if (ids[i] < 0)
                    continue;
                uint8_t bit = (uint8_t)(1u << (ids[i] & 7));
                if (!(bits[ids[i] >> 3] & bit)) {
                    bits[ids[i] >> 3] |= bit;
                    count++;
                }
            }
            free(bits);
            return count;
        }
    }
    qsort(ids, n, sizeof *ids, compare_i32);
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= 0 && (i == 0 || ids[i] != ids[i - 1]))
            count++;
    return count;
}

/* What the summary counts a node as: the catalogue's role when it knows the operator (a
 * PhotonShuffleExchangeSource reads a shuffle, an EXECUTOR_BROADCAST shuffle broadcasts),
 * else the class its name suggests.  *strategy: the join strategy, JOIN_NONE when unknown.
 * The catalogue is asked only about names that look like an exchange or a join: on every
 * corpus operator the name classes never miss one the catalogue has, and a lookup per node
 * would cost a million-node tab most of a second. */
static enum op_class summary_class(const struct plan_node *n, enum op_class c,
                                   const struct catalog_entry *e, enum catalog_join *strategy)
{
    *strategy = JOIN_NONE;
    if (c != OP_SHUFFLE && c != OP_BROADCAST && c != OP_SHUFFLE_REUSED &&
        c != OP_BROADCAST_REUSED && c != OP_JOIN)
        return OP_OTHER;
    if (!e)
        return c == OP_SHUFFLE || c == OP_BROADCAST || c == OP_SHUFFLE_REUSED ||
                       c == OP_BROADCAST_REUSED || c == OP_JOIN
                   ? c
                   : OP_OTHER;
    switch (e->role) {
    case CAT_SHUFFLE:
        return node_is_executor_broadcast(n) ? OP_BROADCAST : OP_SHUFFLE;
    case CAT_BROADCAST:
        return OP_BROADCAST;
    case CAT_REUSED:
        return strcmp(e->name, "ReusedExchange") == 0 ? OP_SHUFFLE_REUSED : OP_OTHER;
    case CAT_JOIN:
        *strategy = e->join;
        return OP_JOIN;
    default:
        return OP_OTHER;
    }
}

/* op_summary_add with e = node_entry(n), when the caller has it.  by_name: count the joins
 * by name too (sum->joins: each join's name read and compared); op_counter's caller reads
 * the joins by strategy only, and a join's name cost about 400 instructions. */
static void summary_add(struct op_summary *sum, const struct plan_node *n, enum op_class c,
                        const struct catalog_entry *e, bool by_name)
{
    if (c == OP_LABEL)
        return;  /* "== Final Plan ==" is a heading, not an operator */
    sum->nodes++;
    enum catalog_join strategy;
    switch (summary_class(n, c, e, &strategy)) {
    case OP_SHUFFLE:
        sum->shuffles++;
        break;
    case OP_BROADCAST:
        sum->broadcasts++;
        break;
    case OP_SHUFFLE_REUSED:
    case OP_BROADCAST_REUSED:
        sum->reused++;
        break;
    case OP_JOIN: {
        sum->join_strategies[strategy]++;
        if (!by_name)
            break;
        char name[sizeof sum->joins[0].name];
        join_kind_name(n, name, sizeof name);
        unsigned k = 0;
        while (k < sum->n_join_kinds && strcmp(sum->joins[k].name, name) != 0)
            k++; /* bounded by OP_SUMMARY_JOIN_KINDS */
        if (k == sum->n_join_kinds) {
            if (k == OP_SUMMARY_JOIN_KINDS) {
                sum->other_joins++;
                break;
            }
            memcpy(sum->joins[k].name, name, sizeof name);
            sum->n_join_kinds++;
        }
        sum->joins[k].count++;
        break;
    }
    default:
        break;
    }
}

void op_summary_add(struct op_summary *sum, const struct plan_node *n, enum op_class c)
{
    /* summary_class reads the entry of exchanges and joins only */
    bool asks = c == OP_SHUFFLE || c == OP_BROADCAST || c == OP_SHUFFLE_REUSED ||
                c == OP_BROADCAST_REUSED || c == OP_JOIN;
    summary_add(sum, n, c, asks ? node_entry(n) : NULL, true);
}

void op_summary_start(struct op_summary_run *run, const struct plan_section *s, uint32_t begin,
                      uint32_t end)
{
    memset(run, 0, sizeof *run);
    if (end > s->n_nodes)
        end = s->n_nodes;
    run->s = s;
    run->begin = run->next = begin;
    run->end = end > begin ? end : begin;
    run->starts = malloc((size_t)(run->end - run->begin + 1) * sizeof *run->starts);
    run->failed = run->starts == NULL;
}

/* The operator word and class of a name, remembered: a million-operator plan has a few dozen
 * distinct names, and finding the word and its class cost ten times a look-up here.  A
 * direct-mapped cache per thread (the explorer counts on a thread of its own) keyed by the
 * bytes op_word reads (the name, or the text when there is none), as nodeinfo.c's name
 * cache is; longer names are classified every time.  A ReusedExchange's class depends on
 * the node (what it reuses): kept as "ask the node". */
#define WORD_CACHE_SLOTS 256
#define WORD_CACHE_KEY 80
#define CLASS_BY_NODE 0xFF

/* The facts' bits: the entry's index in catalog_entries + 1 (0: none), the class, the word's
 * "WholeStageCodegen" start, and a bit that says the rest is set (a fact of 0 is none). */
#define FACT_ENTRY OP_FACT_ENTRY
#define FACT_CLASS_SHIFT 16
#define FACT_WSC (1u << 24)
#define FACT_SET (1u << 31)
_Static_assert(OP_LABEL < 256, "a class fits its 8 bits");

/* The facts of a node of class cls, entry e and word w; 0 when the entry is not one of the
 * table's (the caller asks the node again). */
static uint32_t facts_make(enum op_class cls, const struct catalog_entry *e, struct slice w)
{
    size_t ix = 0;
    if (e) {
        if (e < catalog_entries || e >= catalog_entries + catalog_n_entries ||
            catalog_n_entries >= FACT_ENTRY)
            return 0;
        ix = (size_t)(e - catalog_entries) + 1;
    }
    return FACT_SET | (slice_starts_with(w, "WholeStageCodegen") ? FACT_WSC : 0) |
           (uint32_t)cls << FACT_CLASS_SHIFT | (uint32_t)ix;
}

static _Thread_local struct word_slot {
    char key[WORD_CACHE_KEY];
    uint8_t len;        /* 0: empty */
    uint8_t off, wlen;  /* the word: key[off .. off + wlen) */
    uint8_t cls;        /* enum op_class, CLASS_BY_NODE */
    const struct catalog_entry *entry; /* catalog_lookup_slice(key) */
    /* op_node_facts of every node with this key that is not a label: the key's entry, the
     * word's class; 0 when they depend on the node (no entry for the key: the text's is
     * asked; a class read off the node) */
    uint32_t facts;
} word_cache[WORD_CACHE_SLOTS];

/* class_of_word when it depends on the word only, else CLASS_BY_NODE. */
static unsigned class_of_word_only(struct slice w)
{
    unsigned p = w.len ? word_parts(w) : 0;
    if (!(p & T_QUERYSTAGE) && (p & (T_REUSED | T_EXCHANGE)) == (T_REUSED | T_EXCHANGE))
        return CLASS_BY_NODE;
    return (unsigned)class_of_word(NULL, w);
}

/* The slot of key k (the name of n, or its text when it has none; 1 to WORD_CACHE_KEY
 * bytes), filled from n when k is not there. */
static const struct word_slot *word_slot_of(const struct plan_node *n, struct slice k)
{
    uint32_t h = namekey_hash(k) % WORD_CACHE_SLOTS;
    struct word_slot *slot = &word_cache[h], *other = &word_cache[(h + 1) % WORD_CACHE_SLOTS];
    if (slot->len == k.len && namekey_same(slot->key, k.ptr, k.len))
        return slot;
    if (other->len == k.len && namekey_same(other->key, k.ptr, k.len))
        return other;
    if (slot->len)
        slot = other;
    struct slice w = op_word(n);
    memcpy(slot->key, k.ptr, k.len);
    slot->len = (uint8_t)k.len;
    slot->off = (uint8_t)(w.ptr - k.ptr);
    slot->wlen = (uint8_t)w.len;
    slot->cls = (uint8_t)class_of_word_only(w);
    slot->entry = catalog_lookup_slice(k);
    slot->facts = slot->entry && slot->cls != CLASS_BY_NODE
                      ? facts_make((enum op_class)slot->cls, slot->entry, w)
                      : 0;
    return slot;
}

/* op_word(n), class_of_word(n, that word) and *entry = node_entry(n), n not a label by its
 * flag.  node_entry looks the same key up (the name, or the text when there is none), so
 * the slot keeps that too: one look-up a node where the rules and the count took two. */
static enum op_class word_and_class(const struct plan_node *n, struct slice *word,
                                    const struct catalog_entry **entry)
{
    struct slice k = plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n);
    if (k.len == 0 || k.len > WORD_CACHE_KEY) {
        *word = op_word(n);
        *entry = node_entry(n);
        return class_of_word(n, *word);
    }
    const struct word_slot *slot = word_slot_of(n, k);
    /* node_entry: none for a label (by its text too), the key's entry, else (a name the
     * catalogue does not know) the text's */
    if (node_is_label(n))
        *entry = NULL;
    else if (slot->entry || !plan_node_name(n).len)
        *entry = slot->entry;
    else
        *entry = catalog_lookup_slice(plan_node_text(n));
    *word = slice_make(k.ptr + slot->off, slot->wlen);
    return slot->cls == CLASS_BY_NODE ? class_of_word(n, *word) : (enum op_class)slot->cls;
}

/* count_node's end, once the node's class and entry are known: start, the node starts a
 * stage (its parent is in another); wsc, its word starts with "WholeStageCodegen". */
static void count_known(struct op_summary *sum, const struct plan_node *n, bool start, bool wsc,
                        enum op_class cls, const struct catalog_entry *e, int32_t *start_id,
                        uint32_t *unnumbered, bool by_name)
{
    *start_id = -1;
    if (start && n->stage > 0)
        *start_id = n->stage;
    else if (start && n->stage == 0)
        ++*unnumbered;
    else if (n->stage < 0 && wsc)
        ++*unnumbered;
    summary_add(sum, n, cls, e, by_name);
}

/* n starts a codegen stage: it has one and its parent is in another (or has none), or it is
 * the first node of the range counted (first).  count_node and op_counter_node_facts both ask. */
static bool starts_stage(const struct plan_node *n, bool first)
{
    return n->stage >= 0 &&
           (first || !plan_node_parent(n) || plan_node_parent(n)->stage != n->stage);
}

/* One node of a summary: its counts into sum, and the stage it starts (its id, 0 for Spark 2's
 * bare '*') in *start_id, -1 when it starts none; *unnumbered grows by a WholeStageCodegen
 * node of a simplified tree.  first: n is the first node of the counted range (it starts a
 * stage whatever its parent).  op_summary_more and op_counter_node both count through it. */
static const struct catalog_entry *count_node(struct op_summary *sum, const struct plan_node *n,
                                              bool first, int32_t *start_id, uint32_t *unnumbered,
                                              bool by_name)
{
    bool start = starts_stage(n, first);
    /* the operator's word, read once for the stage test and the class */
    bool label = n->flags & NODE_LABEL;
    struct slice w = slice_make(NULL, 0);
    enum op_class cls = OP_LABEL;
    const struct catalog_entry *e = NULL; /* node_entry(n): none for a label */
    if (!label)
        cls = word_and_class(n, &w, &e);
    else if (n->stage < 0)
        w = op_word(n);
    count_known(sum, n, start, n->stage < 0 && slice_starts_with(w, "WholeStageCodegen"), cls,
                e, start_id, unnumbered, by_name);
    return e;
}

int op_summary_more(struct op_summary_run *run, uint32_t budget)
{
    const struct plan_section *s = run->s;
    struct op_summary *sum = &run->sum;
    uint32_t stop = run->end - run->next > budget ? run->next + budget : run->end;
    for (uint32_t i = run->next; i < stop; i++) {
        const struct plan_node *n = plan_section_node(s, i);
        if (i != run->begin && node_is_shadowed_initial(n)) {
            i += n->subtree_size;  /* what AQE planned first, not what ran */
            if (i >= stop)
                stop = i + 1 < run->end ? i + 1 : run->end;
            continue;
        }
        int32_t id;
        count_node(sum, n, i == run->begin, &id, &run->unnumbered, true);
        if (id > 0 && run->starts)
            run->starts[run->n_starts++] = id;
    }
    run->next = stop;
    if (run->next < run->end)
        return 0;
    if (run->starts) {
        sum->stages = op_count_distinct(run->starts, run->n_starts) + run->unnumbered;
        free(run->starts);
        run->starts = NULL;
    }
    return run->failed ? -1 : 1;
}

void op_summary_stop(struct op_summary_run *run)
{
    free(run->starts);
    run->starts = NULL;
}

int op_summary_compute(struct op_summary *sum, const struct plan_section *s, uint32_t begin,
                       uint32_t end)
{
    return op_summary_compute_cancellable(sum, s, begin, end, NULL) == SP_OK;
}

enum sp_status op_summary_compute_cancellable(struct op_summary *sum, const struct plan_section *s,
                                              uint32_t begin, uint32_t end,
                                              const atomic_int *cancel)
{
    struct op_summary_run run;
    op_summary_start(&run, s, begin, end);
    uint32_t slice = cancel ? OP_SUMMARY_CANCEL_EVERY : UINT32_MAX;
    int done = 0;
    while (done == 0) {  /* each round counts a slice of nodes: bounded by end - begin */
        if (cancel && atomic_load_explicit(cancel, memory_order_relaxed)) {
            op_summary_stop(&run);
            *sum = run.sum;
            return SP_ERR_CANCELLED;
        }
        done = op_summary_more(&run, slice);
    }
    *sum = run.sum;
    return done > 0 ? SP_OK : SP_ERR_NOMEM;
}

/* ---- a count made by the caller's own walk --------------------------------------------------- */

/* Stage ids below this are kept in the bitmap (128 KB at most); larger ones (hostile input)
 * in a list, counted by sorting as op_count_distinct does. */
#define COUNTER_BITMAP_IDS DISTINCT_BITMAP_IDS

/* The stage id a counted node starts, into c's bitmap (or list). */
static void counter_start(struct op_counter *c, int32_t id)
{
    if (id <= 0 || c->failed)
        return;
    if ((uint32_t)id < COUNTER_BITMAP_IDS) {
        size_t byte = (size_t)id >> 3;
        if (byte >= c->bits_len) {
            /* doubling: a million-operator plan's 300,000 stage ids grow it a dozen times */
            size_t len = c->bits_len ? c->bits_len : 64;
            while (len <= byte) /* bound: doubles up to COUNTER_BITMAP_IDS / 8 */
                len *= 2;
            uint8_t *nb = realloc(c->bits, len);
            if (!nb) {
                c->failed = true;
                return;
            }
            memset(nb + c->bits_len, 0, len - c->bits_len);
            c->bits = nb;
            c->bits_len = len;
        }
        c->bits[byte] |= (uint8_t)(1u << (id & 7));
        return;
    }
    if (c->n_big == c->cap_big) {
        size_t ncap = c->cap_big ? c->cap_big * 2 : 16;
        int32_t *nv = realloc(c->big, ncap * sizeof *nv);
        if (!nv) {
            c->failed = true;
            return;
        }
        c->big = nv;
        c->cap_big = ncap;
    }
    c->big[c->n_big++] = id;
}

const struct catalog_entry *op_counter_node(struct op_counter *c, const struct plan_node *n)
{
    int32_t id;
    const struct catalog_entry *e = count_node(&c->sum, n, false, &id, &c->unnumbered, false);
    counter_start(c, id);
    return e;
}

uint32_t op_node_facts(const struct plan_node *n)
{
    if (n->flags & NODE_LABEL)
        return 0;
    /* most nodes: the facts their key's slot keeps (word_and_class's answers, as below) */
    struct slice k = plan_node_name(n).len ? plan_node_name(n) : plan_node_text(n);
    if (k.len && k.len <= WORD_CACHE_KEY) {
        const struct word_slot *slot = word_slot_of(n, k);
        if (slot->facts && !node_is_label(n))
            return slot->facts;
    }
    struct slice w;
    const struct catalog_entry *e;
    enum op_class cls = word_and_class(n, &w, &e);
    return facts_make(cls, e, w);
}

const struct catalog_entry *op_counter_node_facts(struct op_counter *c, const struct plan_node *n,
                                                  uint32_t facts)
{
    if (!(facts & FACT_SET))
        return op_counter_node(c, n);
    bool start = starts_stage(n, false);
    const struct catalog_entry *e = op_facts_entry(facts);
    int32_t id;
    count_known(&c->sum, n, start, facts & FACT_WSC,
                (enum op_class)(facts >> FACT_CLASS_SHIFT & 0xFFu), e, &id, &c->unnumbered, false);
    counter_start(c, id);
    return e;
}



/* Adds v's counts to c and frees v's memory.  The joins by name (the explorer's header line)
 * are not merged: op_counter counts for --summary, which shows the joins by strategy. */
void op_counter_merge(struct op_counter *c, struct op_counter *v)
{
    c->sum.nodes += v->sum.nodes;
    c->sum.shuffles += v->sum.shuffles;
    c->sum.broadcasts += v->sum.broadcasts;
    c->sum.reused += v->sum.reused;
    for (size_t j = 0; j <= JOIN_LOGICAL; j++)
        c->sum.join_strategies[j] += v->sum.join_strategies[j];
    c->unnumbered += v->unnumbered;
    c->failed = c->failed || v->failed;
    if (!c->failed && v->bits_len > c->bits_len) {
        uint8_t *nb = realloc(c->bits, v->bits_len);
        if (!nb)
            c->failed = true;
        else {
            memset(nb + c->bits_len, 0, v->bits_len - c->bits_len);
            c->bits = nb;
            c->bits_len = v->bits_len;
        }
    }
    if (!c->failed)
        for (size_t i = 0; i < v->bits_len; i++) /* bound: v's bitmap */
            c->bits[i] |= v->bits[i];
    for (size_t i = 0; i < v->n_big && !c->failed; i++) { /* bound: v's large ids */
        if (c->n_big == c->cap_big) {
            size_t ncap = c->cap_big ? c->cap_big * 2 : 16;
            int32_t *nv = realloc(c->big, ncap * sizeof *nv);
            if (!nv) {
                c->failed = true;
                break;
            }
            c->big = nv;
            c->cap_big = ncap;
        }
        c->big[c->n_big++] = v->big[i];
    }
    op_counter_free(v);
}

int op_counter_finish(struct op_counter *c)
{
    if (c->failed) {
        c->sum.stages = 0;
        op_counter_free(c);
        return 0;
    }
    uint32_t count = 0;
    for (size_t i = 0; i < c->bits_len; i++) /* bound: the bitmap */
        count += (uint32_t)__builtin_popcount(c->bits[i]);
    c->sum.stages = count + (c->n_big ? op_count_distinct(c->big, c->n_big) : 0) + c->unnumbered;
    op_counter_free(c);
    return 1;
}

void op_counter_free(struct op_counter *c)
{
    free(c->bits);
    free(c->big);
    c->bits = NULL;
    c->big = NULL;
    c->bits_len = c->n_big = c->cap_big = 0;
}

static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *len += (size_t)n;
    if (*len >= cap)
        *len = cap - 1;
}

size_t op_summary_format(const struct op_summary *sum, int utf8, char *buf, size_t cap)
{
    size_t len = 0;
    const char *sep = utf8 ? " \xC2\xB7 " : " | ";
    const char *times = utf8 ? "\xC3\x97" : "x";
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    append(buf, cap, &len, "%u node%s", sum->nodes, sum->nodes == 1 ? "" : "s");
    append(buf, cap, &len, "%s%u shuffle%s", sep, sum->shuffles, sum->shuffles == 1 ? "" : "s");
    append(buf, cap, &len, "%s%u broadcast%s", sep, sum->broadcasts,
           sum->broadcasts == 1 ? "" : "s");
    if (sum->reused)
        append(buf, cap, &len, "%s%u reused", sep, sum->reused);
    append(buf, cap, &len, "%s%u codegen stage%s", sep, sum->stages, sum->stages == 1 ? "" : "s");
    if (sum->n_join_kinds) {
        append(buf, cap, &len, "%sjoins:", sep);
        for (unsigned k = 0; k < sum->n_join_kinds; k++)
            append(buf, cap, &len, " %s%s%u", sum->joins[k].name, times, sum->joins[k].count);
        if (sum->other_joins)
            append(buf, cap, &len, " other%s%u", times, sum->other_joins);
    } else {
        append(buf, cap, &len, "%sno joins", sep);
    }
    return len;
}
