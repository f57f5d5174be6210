/* cells: where the lines of an input came from, when the input is a notebook — the cells of
 * a Jupyter notebook (nbformat 3 and 4, Databricks' .ipynb exports too), of a Zeppelin note
 * ("paragraphs"), of a Databricks JSON export ("commands") or of a Databricks notebook
 * source file ("# Databricks notebook source", cells split by "# COMMAND ----------").
 *
 * Reads the input bytes once, before clean-up, in one linear pass with an explicit stack (no
 * recursion, nothing kept of the bytes): the map holds line ranges and small strings copied
 * into the given arena, so it outlives the input.  A JSON input is scanned only when its
 * first 64 KB name one of the keys above; everything else gets an empty map at no cost.
 * Never: allocates outside the arena, prints, or changes the bytes.
 */
#ifndef SPARKPLAN_CELLS_H
#define SPARKPLAN_CELLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"

enum cell_format {
    CELLS_TEXT,         /* not a notebook: the map is empty */
    CELLS_JUPYTER,
    CELLS_ZEPPELIN,
    CELLS_DATABRICKS,   /* a Databricks JSON export */
    CELLS_DATABRICKS_PY /* a Databricks notebook source file (.py, .sql, .scala) */
};

struct cell {
    uint32_t number;           /* 1-based, in the order of the file */
    int32_t execution_count;   /* -1 when none (never run, markdown, no such field) */
    const char *type;          /* "code", "markdown", "raw" (static strings) */
    const char *first_code;    /* first line of its text that is not blank nor a magic
                                  ("%md", "%%sql"), arena copy; NULL when none */
    uint32_t first_line, last_line; /* original lines the cell spans */
    uint32_t src_first, src_last;   /* its text (source / input / text / command) */
    uint32_t out_first, out_last;   /* its outputs or results, 0 when none */
    uint32_t out_text;              /* first line of its first output text, 0 when none */
};

struct cell_map {
    enum cell_format format;
    struct cell *cells; /* arena */
    size_t n_cells;
};

/* Fills *out (an empty map for plain text).  Returns false only when the arena is out of
 * memory (the map is then empty). */
bool cells_build(const char *bytes, size_t len, struct arena *a, struct cell_map *out);

/* The cell holding original line `line`, or NULL.  Binary search. */
const struct cell *cells_find(const struct cell_map *m, uint32_t line);

/* Is `line` inside the cell's outputs (printed by running it) rather than its own text? */
bool cells_is_output(const struct cell *c, uint32_t line);

/* The line's place inside its cell, 1-based: within the outputs or the text it lies in. */
uint32_t cells_line_in(const struct cell *c, uint32_t line);

const char *cells_format_name(enum cell_format f); /* "jupyter", "zeppelin", ... */

#endif
