/* catalog: what each operator in a Spark plan does, in plain words.
 *
 * Owns: a static table (src/model/catalog.c, data only) with one entry per operator name seen
 * in real plans — Spark's physical and logical operators, commands, and the accelerator
 * variants (Photon, Comet, Gluten/Velox, RAPIDS, Auron), each mapped to the Spark operator it
 * stands for.  Everything returned points into that table: nothing to free, never NULL-terminated
 * copies, valid for the life of the program.
 * Lookup (catalog_lookup.c) is tolerant of the forms plans print: codegen markers, state
 * prefixes (' ! ~), multi-word scan names, "Execute X", a trailing "Exec", "(skew=true)".
 * Never: allocates, prints, or reads files.
 */
#ifndef SPARKPLAN_CATALOG_H
#define SPARKPLAN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "sparkplan/slice.h"

/* Who prints this name. */
enum catalog_engine {
    ENGINE_SPARK,     /* Apache Spark itself */
    ENGINE_PHOTON,    /* Databricks Photon */
    ENGINE_COMET,     /* Apache DataFusion Comet */
    ENGINE_GLUTEN,    /* Apache Gluten with the Velox backend */
    ENGINE_RAPIDS,    /* NVIDIA RAPIDS Accelerator (GPU) */
    ENGINE_AURON,     /* Apache Auron (formerly Blaze) */
};

/* Which plans it appears in. */
enum catalog_kind {
    KIND_PHYSICAL,    /* physical plan operator (what runs) */
    KIND_LOGICAL,     /* parsed / analyzed / optimized plans only */
    KIND_BOTH,        /* same name in logical and physical plans (Project, Filter, Sort...) */
    KIND_COMMAND,     /* a command (DDL, INSERT, SET...), logical or wrapped by Execute */
    KIND_MARKER,      /* not an operator of its own: codegen wrappers, stage wrappers */
};

/* What the operator is for; analyze uses it to count and classify nodes of any engine. */
enum catalog_role {
    CAT_OTHER,
    CAT_SCAN,        /* reads a table, files, an RDD, a range or local rows */
    CAT_FILTER,
    CAT_PROJECT,
    CAT_JOIN,
    CAT_AGGREGATE,
    CAT_SHUFFLE,     /* writes a shuffle: the end of a stage (Exchange and its variants) */
    CAT_BROADCAST,   /* collects and broadcasts a side (BroadcastExchange and variants) */
    CAT_SHUFFLE_READ,/* reads a shuffle as AQE decided (AQEShuffleRead, shuffle sources) */
    CAT_REUSED,      /* ReusedExchange / ReusedSubquery */
    CAT_QUERY_STAGE, /* AQE query stage wrappers */
    CAT_SORT,
    CAT_LIMIT,       /* limits and top-N */
    CAT_WINDOW,
    CAT_SET,         /* Union, Except, Intersect */
    CAT_EXPAND,      /* Expand, Generate */
    CAT_PYTHON,      /* rows evaluated by a Python worker */
    CAT_CACHE,       /* InMemoryTableScan / InMemoryRelation */
    CAT_TRANSITION,  /* row <-> columnar conversions, batch resizing */
    CAT_CODEGEN,     /* whole-stage codegen wrappers and their input adapters */
    CAT_AQE,         /* AdaptiveSparkPlan */
    CAT_SUBQUERY,
    CAT_COMMAND,
    CAT_WRITE,       /* writes files or a table */
    CAT_RELATION,    /* a logical leaf naming a table or data source */
};

/* Join strategy, for joins of every engine. */
enum catalog_join {
    JOIN_NONE,
    JOIN_BROADCAST_HASH,
    JOIN_SHUFFLED_HASH,
    JOIN_SORT_MERGE,
    JOIN_BROADCAST_NESTED_LOOP,
    JOIN_CARTESIAN,
    JOIN_LOGICAL,     /* logical Join / LateralJoin: strategy not chosen yet */
};

/* Does it move rows between partitions? */
enum catalog_movement {
    MOVE_NARROW,      /* works on each partition where it is */
    MOVE_SHUFFLE,     /* wide: redistributes rows between partitions (a stage boundary) */
    MOVE_BROADCAST,   /* wide: collects one side and copies it to every executor */
    MOVE_GATHER,      /* wide: brings rows to one task or to the driver */
    MOVE_NONE,        /* logical node or command: describes, moves nothing itself */
    MOVE_DRIVER,      /* runs on the driver, not in tasks (a command; additive, QA #9) */
};

struct catalog_entry {
    const char *name;          /* as plans print it: "BroadcastHashJoin", "Scan hive" */
    enum catalog_engine engine;
    const char *stands_for;    /* Spark operator an accelerator variant replaces; NULL for Spark */
    enum catalog_kind kind;
    enum catalog_role role;
    enum catalog_join join;
    enum catalog_movement movement;
    const char *what;          /* one or two plain sentences */
    const char *check;         /* what a reader should look at on this node */
};

/* The table, in catalog.c. */
extern const struct catalog_entry catalog_entries[];
extern const size_t catalog_n_entries;

/* Result of a tolerant lookup. */
struct catalog_match {
    const struct catalog_entry *entry;  /* NULL when nothing fits */
    bool exact;               /* false: found through an engine prefix/suffix guess */
    enum catalog_engine guessed_engine; /* when !exact: the engine the name looks like */
};

/* The operator name inside a node string or name: codegen markers (*(N) , * , ^(N) , ^ ),
 * state prefixes (' ! ~), a formatted "(N) " id prefix are skipped; multi-word names are kept
 * ("Scan parquet", "Scan In-memory table", "Execute InsertIntoHadoopFsRelationCommand").
 * Returns an empty slice when the text does not start like an operator. */
struct slice catalog_operator_name(struct slice node_text);

/* Entry for a node name or a whole node string; NULL when unknown. */
const struct catalog_entry *catalog_lookup(const char *name);
const struct catalog_entry *catalog_lookup_slice(struct slice name);
/* Like catalog_lookup_slice but also guesses unknown accelerator names from their Spark
 * counterpart: "GpuExpand" -> Expand (exact = false, guessed_engine = ENGINE_RAPIDS). */
struct catalog_match catalog_match(struct slice name);

/* The entry whose name is name, case ignored ("sortmergejoin"), or NULL. */
const struct catalog_entry *catalog_lookup_nocase(const char *name);
/* Up to max entry names close to name (a few typing mistakes, case ignored), closest
 * first; returns how many. */
size_t catalog_suggest(const char *name, const char **out, size_t max);

/* Display words. */
const char *catalog_engine_name(enum catalog_engine e);   /* "Spark", "Photon", ... */
const char *catalog_kind_name(enum catalog_kind k);       /* "physical", "logical", ... */
const char *catalog_movement_name(enum catalog_movement m); /* "narrow", "wide (shuffle)" ... */
const char *catalog_movement_text(enum catalog_movement m); /* one sentence */
const char *catalog_join_name(enum catalog_join j);       /* "broadcast hash", "sort-merge" ... */

#endif
