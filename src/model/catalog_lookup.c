/* catalog_lookup.c: tolerant operator-name lookup over the catalogue table (see catalog.h). */
#include "sparkplan/catalog.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Other spellings of catalogued operators: class names, formatted-mode names. */
static const struct {
    const char *alias, *name;
} aliases[] = {
    {"Scan In-memory table", "InMemoryTableScan"},
    {"HiveTableScan", "Scan hive"},
    {"FileSourceScan", "FileScan"},
    {"ExternalRDDScan", "Scan"},
    {"RDDScan", "Scan ExistingRDD"},
    {"ShuffleExchangeExec", "Exchange"},
    {"BroadcastExchangeExec", "BroadcastExchange"},
    {"ExecutedCommandExec", "Execute"},
    {"DataWritingCommandExec", "Execute"},
};

/* Formats that FileSourceScanExec prints after "Scan " (its fileFormat short name). */
static const char *const file_formats[] = {
    "parquet", "orc", "csv", "json", "text", "avro", "delta", "binaryFile", "libsvm", "image",
    "xml", "Parquet", "ORC", "CSV", "JSON", "Text",
};

static bool is_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_upper(char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Skips "(digits) " or "*(digits) " / "^(digits) " style prefixes; returns bytes consumed. */
static size_t skip_paren_number(const char *p, size_t len, size_t at)
{
    size_t i = at;
    if (i >= len || p[i] != '(')
        return 0;
    i++;
    size_t digits = i;
    while (i < len && is_digit(p[i]))
        i++;
    if (i == digits || i + 1 >= len || p[i] != ')' || p[i + 1] != ' ')
        return 0;
    return i + 2 - at;
}

static size_t token_end(const char *p, size_t len, size_t i)
{
    while (i < len && is_name_char(p[i]))
        i++;
    return i;
}

/* End of a scan's second word: "parquet", "JDBCRelation", "ExistingRDD" (stops at ' ', '(',
 * '[' like Spark's node names do). */
static size_t word_end(const char *p, size_t len, size_t i)
{
    while (i < len && p[i] != ' ' && p[i] != '(' && p[i] != '[' && p[i] != ',')
        i++;
    return i;
}

struct slice catalog_operator_name(struct slice t)
{
    const char *p = t.ptr;
    size_t len = t.len, i = 0;
    if (!p)
        return slice_make(NULL, 0);
    while (i < len && p[i] == ' ')
        i++;
    i += skip_paren_number(p, len, i);          /* formatted details header "(12) " */
    if (i < len && (p[i] == '*' || p[i] == '^')) { /* codegen markers */
        size_t n = skip_paren_number(p, len, i + 1);
        if (n)
            i += 1 + n;
        else if (i + 1 < len && p[i + 1] == ' ')
            i += 2;
        else if (p[i] == '*' && i + 1 < len && is_upper(p[i + 1]))
            i += 1;                              /* Spark 2: "*Filter" */
    }
    while (i < len && (p[i] == '\'' || p[i] == '!' || p[i] == '~'))
        i++;
    size_t start = i;
    if (i >= len || !((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z')))
        return slice_make(NULL, 0);
    size_t end = token_end(p, len, i);
    if (end < len && p[end] == '.')              /* a class name (exception text), not an operator */
        return slice_make(NULL, 0);
    struct slice first = slice_make(p + start, end - start);
    if (slice_eq_cstr(first, "Scan") && end + 1 < len && p[end] == ' ') {
        static const char in_memory[] = " In-memory table";
        size_t n = sizeof in_memory - 1;
        if (len - end >= n && memcmp(p + end, in_memory, n) == 0)
            return slice_make(p + start, end + n - start);
        size_t w = word_end(p, len, end + 1);
        if (w > end + 1)
            return slice_make(p + start, w - start);
    } else if (slice_eq_cstr(first, "Execute") && end + 1 < len && p[end] == ' ') {
        size_t w = token_end(p, len, end + 1);
        if (w > end + 1)
            return slice_make(p + start, w - start);
    }
    return first;
}

/* ---- exact lookup through a sorted index built on first use ---------------------------- */

static int cmp_slice_cstr(struct slice a, const char *b)
{
    size_t bl = strlen(b);
    size_t n = a.len < bl ? a.len : bl;
    int c = n ? memcmp(a.ptr, b, n) : 0;
    if (c)
        return c;
    return a.len < bl ? -1 : a.len > bl ? 1 : 0;
}

static int cmp_entries(const void *a, const void *b)
{
    const struct catalog_entry *x = *(const struct catalog_entry *const *)a;
    const struct catalog_entry *y = *(const struct catalog_entry *const *)b;
    return strcmp(x->name, y->name);
}

/* The table is small and constant; its index by name is built once and never freed.
 * pthread_once: the explorer's analysis thread and its main thread both look names up. */
static const struct catalog_entry *index_storage[512];
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

/* The exact lookup by name through a hash of the names (a pasted plan asks for every node's
 * name, some 40,000 times for the corpus's 13 MB, where the binary search took about 500
 * instructions, a strlen at each of its nine steps).  Built from the sorted index: each name
 * and alias is put with what the binary search finds for it, so the two cannot differ. */
#define NAME_SLOTS 2048 /* a power of two, over four times the names and aliases */
static struct name_slot {
    const char *name; /* NULL: empty */
    size_t len;
    const struct catalog_entry *entry;
} name_slots[NAME_SLOTS];

static uint32_t name_hash(const char *p, size_t n)
{
    /* FNV-1a: names are short. */
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 16777619u;
    return h;
}

static const struct catalog_entry *find_sorted(struct slice name)
{
    const struct catalog_entry **idx = index_storage;
    size_t lo = 0, hi = catalog_n_entries < 512 ? catalog_n_entries : 512;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_slice_cstr(name, idx[mid]->name);
        if (c == 0)
            return idx[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (slice_eq_cstr(name, aliases[i].alias))
            return find_sorted(slice_cstr(aliases[i].name));
    return NULL;
}

static void name_put(const char *name)
{
    size_t n = strlen(name);
    const struct catalog_entry *e = find_sorted(slice_make(name, n));
    if (!e)
        return;
    /* Bound: the table is never full (NAME_SLOTS is over four times the names). */
    for (uint32_t h = name_hash(name, n);; h++) {
        struct name_slot *sl = &name_slots[h & (NAME_SLOTS - 1)];
        if (!sl->name) {
            *sl = (struct name_slot){name, n, e};
            return;
        }
        if (sl->len == n && memcmp(sl->name, name, n) == 0)
            return; /* a name twice: the search's answer is in already */
    }
}

static void build_index(void)
{
    size_t n = catalog_n_entries < 512 ? catalog_n_entries : 512;
    for (size_t i = 0; i < n; i++)
        index_storage[i] = &catalog_entries[i];
    qsort(index_storage, n, sizeof index_storage[0], cmp_entries);
    for (size_t i = 0; i < n; i++)
        name_put(index_storage[i]->name);
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        name_put(aliases[i].alias);
}

static const struct catalog_entry *find_exact(struct slice name)
{
    pthread_once(&index_once, build_index);
    /* Bound: the table is never full, so an empty slot ends the probe. */
    for (uint32_t h = name_hash(name.ptr, name.len);; h++) {
        const struct name_slot *sl = &name_slots[h & (NAME_SLOTS - 1)];
        if (!sl->name)
            return NULL;
        if (sl->len == name.len && memcmp(sl->name, name.ptr, name.len) == 0)
            return sl->entry;
    }
}

static bool ends_with(struct slice s, const char *suffix)
{
    size_t n = strlen(suffix);
    return s.len > n && memcmp(s.ptr + s.len - n, suffix, n) == 0;
}

/* Names with a structure: "Scan <format>", "Scan <relation>", "Execute <Command>", "...Exec". */
static const struct catalog_entry *find_shaped(struct slice name)
{
    const struct catalog_entry *e = find_exact(name);
    if (e)
        return e;
    if (slice_starts_with(name, "Scan ")) {
        struct slice word = slice_make(name.ptr + 5, name.len - 5);
        for (size_t i = 0; i < sizeof file_formats / sizeof file_formats[0]; i++)
            if (slice_eq_cstr(word, file_formats[i]))
                return find_exact(slice_cstr("FileScan"));
        if (slice_starts_with(word, "JDBCRelation"))
            return find_exact(slice_cstr("Scan JDBCRelation"));
        return find_exact(slice_cstr("RowDataSourceScan"));
    }
    if (slice_starts_with(name, "Execute ")) {
        e = find_exact(slice_make(name.ptr + 8, name.len - 8));
        return e ? e : find_exact(slice_cstr("Execute"));
    }
    if (ends_with(name, "Exec"))
        return find_exact(slice_make(name.ptr, name.len - 4));
    return NULL;
}

const struct catalog_entry *catalog_lookup_slice(struct slice text)
{
    struct slice name = catalog_operator_name(text);
    return name.len ? find_shaped(name) : NULL;
}

const struct catalog_entry *catalog_lookup(const char *name)
{
    return catalog_lookup_slice(slice_cstr(name));
}

struct catalog_match catalog_match(struct slice text)
{
    struct catalog_match m = {NULL, true, ENGINE_SPARK};
    struct slice name = catalog_operator_name(text);
    if (!name.len)
        return m;
    m.entry = find_shaped(name);
    if (m.entry) {
        m.guessed_engine = m.entry->engine;
        return m;
    }
    /* Unknown accelerator operator: strip the engine's prefix or suffix and look for the
     * Spark operator underneath. */
    static const struct {
        const char *affix;
        bool prefix;
        enum catalog_engine engine;
    } affixes[] = {
        {"Gpu", true, ENGINE_RAPIDS},          {"Comet", true, ENGINE_COMET},
        {"Photon", true, ENGINE_PHOTON},       {"Velox", true, ENGINE_GLUTEN},
        {"Columnar", true, ENGINE_GLUTEN},     {"Native", true, ENGINE_AURON},
        {"ExecTransformer", false, ENGINE_GLUTEN}, {"Transformer", false, ENGINE_GLUTEN},
    };
    for (size_t i = 0; i < sizeof affixes / sizeof affixes[0]; i++) {
        size_t n = strlen(affixes[i].affix);
        struct slice rest;
        if (affixes[i].prefix && slice_starts_with(name, affixes[i].affix) && name.len > n)
            rest = slice_make(name.ptr + n, name.len - n);
        else if (!affixes[i].prefix && ends_with(name, affixes[i].affix))
            rest = slice_make(name.ptr, name.len - n);
        else
            continue;
        const struct catalog_entry *e = find_shaped(rest);
        if (e && e->engine == ENGINE_SPARK) {
            m.entry = e;
            m.exact = false;
            m.guessed_engine = affixes[i].engine;
            return m;
        }
    }
    return m;
}

/* ---- display words ----------------------------------------------------------------------- */

const char *catalog_engine_name(enum catalog_engine e)
{
    switch (e) {
    case ENGINE_SPARK: return "Spark";
    case ENGINE_PHOTON: return "Photon (Databricks)";
    case ENGINE_COMET: return "Comet (DataFusion)";
    case ENGINE_GLUTEN: return "Gluten/Velox";
    case ENGINE_RAPIDS: return "RAPIDS (GPU)";
    case ENGINE_AURON: return "Auron";
    }
    return "?";
}

const char *catalog_kind_name(enum catalog_kind k)
{
    switch (k) {
    case KIND_PHYSICAL: return "physical operator";
    case KIND_LOGICAL: return "logical plan node";
    case KIND_BOTH: return "logical and physical operator";
    case KIND_COMMAND: return "command";
    case KIND_MARKER: return "wrapper";
    }
    return "?";
}

const char *catalog_movement_name(enum catalog_movement m)
{
    switch (m) {
    case MOVE_NARROW: return "narrow";
    case MOVE_SHUFFLE: return "wide (shuffle)";
    case MOVE_BROADCAST: return "wide (broadcast)";
    case MOVE_GATHER: return "wide (gathers to one task)";
    case MOVE_NONE: return "logical";
    case MOVE_DRIVER: return "driver";
    }
    return "?";
}

const char *catalog_movement_text(enum catalog_movement m)
{
    switch (m) {
    case MOVE_NARROW: return "works on each partition where it is; no data moves between partitions";
    case MOVE_SHUFFLE: return "moves rows between partitions over the network; ends a stage";
    case MOVE_BROADCAST: return "collects one side and copies it to every executor";
    case MOVE_GATHER: return "brings rows from every partition into one task or the driver";
    case MOVE_NONE: return "describes the query; the physical plan decides how data moves";
    case MOVE_DRIVER: return "runs once in the driver, not in tasks; a command that writes data "
                             "starts jobs for the query below it";
    }
    return "?";
}

const char *catalog_join_name(enum catalog_join j)
{
    switch (j) {
    case JOIN_NONE: return "";
    case JOIN_BROADCAST_HASH: return "broadcast hash";
    case JOIN_SHUFFLED_HASH: return "shuffled hash";
    case JOIN_SORT_MERGE: return "sort-merge";
    case JOIN_BROADCAST_NESTED_LOOP: return "broadcast nested loop";
    case JOIN_CARTESIAN: return "cartesian product";
    case JOIN_LOGICAL: return "logical join";
    }
    return "?";
}

static int lower_c(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

const struct catalog_entry *catalog_lookup_nocase(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < catalog_n_entries; i++) { /* a few hundred entries */
        const char *e = catalog_entries[i].name;
        size_t k = 0;
        while (k < n && e[k] && lower_c((unsigned char)e[k]) == lower_c((unsigned char)name[k]))
            k++;
        if (k == n && e[k] == '\0')
            return &catalog_entries[i];
    }
    return NULL;
}

/* Edit distance of two short names, case ignored (both cut to 63 bytes). */
static unsigned distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    la = la > 63 ? 63 : la;
    lb = lb > 63 ? 63 : lb;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = lower_c((unsigned char)a[i - 1]) != lower_c((unsigned char)b[j - 1]);
            unsigned best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

size_t catalog_suggest(const char *name, const char **out, size_t max)
{
    size_t n = 0;
    unsigned limit = strlen(name) < 6 ? 1 : strlen(name) < 12 ? 2 : 3;
    for (unsigned d = 0; d <= limit && n < max; d++) /* closest first */
        for (size_t i = 0; i < catalog_n_entries && n < max; i++)
            if (distance(name, catalog_entries[i].name) == d)
                out[n++] = catalog_entries[i].name;
    return n;
}
