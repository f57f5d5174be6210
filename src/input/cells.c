/* cells.c: the cells of a notebook, by original line (see cells.h).
 *
 * JSON notebooks are read by a small scanner: strings, numbers and literals are skipped over
 * except where a cell's fields sit, containers are tracked on a fixed stack (frames deeper
 * than it are counted, not stored: no notebook field lives that deep).  Lines are counted as
 * the bytes go by; a JSON string never holds a raw newline, so a value's first and last
 * lines are where its quote or bracket opens and closes.
 */
#include "sparkplan/cells.h"

#include <string.h>

#define MAX_FRAMES 64
#define CODE_MAX 200

enum role {
    R_NONE,
    R_ROOT,       /* a top-level object */
    R_WORKSHEETS, /* nbformat 3: "worksheets": [ {"cells": [...]} ] */
    R_WORKSHEET,
    R_CELLS,      /* "cells", "paragraphs", "commands" */
    R_CELL,
    R_SOURCE,     /* a cell's text as an array of lines */
    R_OUTPUTS,    /* "outputs", "results" */
};

struct frame {
    unsigned char role;
    bool object;
};

struct scan {
    const char *b;
    size_t n, i;
    uint32_t line;
    struct arena *a;
    struct cell_map *m;
    size_t cap;
    struct frame st[MAX_FRAMES];
    size_t depth;         /* frames open (may exceed MAX_FRAMES) */
    bool want_key;
    char key[24];         /* the key of the value that comes next, "" in arrays */
    struct cell *cell; /* the cell being read */
    char code[CODE_MAX + 1];  /* the line of its text being decoded */
    size_t code_len;
    bool code_done;       /* first_code found, or the text is over */
    size_t outputs_depth; /* depth of the open outputs container, 0 when none */
    bool ok;
};

const char *cells_format_name(enum cell_format f)
{
    switch (f) {
    case CELLS_TEXT: return "text";
    case CELLS_JUPYTER: return "jupyter";
    case CELLS_ZEPPELIN: return "zeppelin";
    case CELLS_DATABRICKS: return "databricks";
    case CELLS_DATABRICKS_PY: return "databricks-source";
    }
    return "text";
}

static bool has(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    if (n < k)
        return false;
    /* Bound: n bytes, each compared with w's first byte, and w at most once each. */
    for (size_t i = 0; i + k <= n; i++)
        if (s[i] == w[0] && memcmp(s + i, w, k) == 0)
            return true;
    return false;
}

static struct cell *new_cell(struct scan *sc)
{
    struct cell_map *m = sc->m;
    if (m->n_cells == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 32;
        /* The old array stays in the arena: the copies double, so they add up to linear. */
        struct cell *c = arena_alloc(sc->a, cap * sizeof *c);
        if (!c) {
            sc->ok = false;
            return NULL;
        }
        if (m->n_cells)
            memcpy(c, m->cells, m->n_cells * sizeof *c);
        m->cells = c;
        sc->cap = cap;
    }
    struct cell *c = &m->cells[m->n_cells++];
    memset(c, 0, sizeof *c);
    c->number = (uint32_t)m->n_cells;
    c->execution_count = -1;
    c->first_line = c->last_line = sc->line;
    return c;
}

/* A line of a cell's text is complete: the first one that is code is kept. */
static void code_line_done(struct scan *sc)
{
    struct cell *c = sc->cell;
    size_t s = 0, e = sc->code_len;
    while (s < e && (sc->code[s] == ' ' || sc->code[s] == '\t'))
        s++;
    while (e > s && (sc->code[e - 1] == ' ' || sc->code[e - 1] == '\t' || sc->code[e - 1] == '\r'))
        e--;
    sc->code_len = 0;
    if (!c || sc->code_done || s == e)
        return;
    if (sc->code[s] == '%') {
        /* "%md", "%%sql": a magic says what the cell is, the code comes after it. */
        if (!c->type && e - s >= 3 && memcmp(sc->code + s, "%md", 3) == 0)
            c->type = "markdown";
        return;
    }
    /* A comment says what the code does; the first line of code says what ran. */
    bool markdown = c->type && strcmp(c->type, "markdown") == 0;
    if (!markdown && (sc->code[s] == '#' || (e - s >= 2 && ((sc->code[s] == '/' && sc->code[s + 1] == '/') ||
                                                         (sc->code[s] == '-' && sc->code[s + 1] == '-')))))
        return;
    sc->code[e] = '\0';
    c->first_code = arena_strdup(sc->a, sc->code + s);
    if (!c->first_code)
        sc->ok = false;
    sc->code_done = true;
}

static void code_byte(struct scan *sc, char ch)
{
    if (ch == '\n') {
        code_line_done(sc);
        return;
    }
    if (sc->code_len < CODE_MAX)
        sc->code[sc->code_len++] = ch;
}

/* Decodes the JSON string b[from..to) (without its quotes) into the cell's code line. */
static void decode_into_code(struct scan *sc, size_t from, size_t to)
{
    const char *b = sc->b;
    /* Bound: the string's bytes, once. */
    for (size_t i = from; i < to && !sc->code_done; i++) {
        if (b[i] != '\\' || i + 1 >= to) {
            code_byte(sc, b[i]);
            continue;
        }
        char e = b[++i];
        if (e == 'n') {
            code_byte(sc, '\n');
        } else if (e == 't') {
            code_byte(sc, ' ');
        } else if (e == 'u' && i + 4 < to) {
            unsigned v = 0;
            for (int k = 1; k <= 4; k++) {
                char h = b[i + k];
                v = v * 16 + (unsigned)(h >= '0' && h <= '9'   ? h - '0'
                                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                               : 0);
            }
            i += 4;
            if (v < 0x80) {
                code_byte(sc, (char)v);
            } else if (v < 0x800) {
                code_byte(sc, (char)(0xC0 | (v >> 6)));
                code_byte(sc, (char)(0x80 | (v & 0x3F)));
            } else {
                code_byte(sc, (char)(0xE0 | (v >> 12)));
                code_byte(sc, (char)(0x80 | ((v >> 6) & 0x3F)));
                code_byte(sc, (char)(0x80 | (v & 0x3F)));
            }
        } else if (e != 'r') {
            code_byte(sc, e); /* \" \\ \/ */
        }
    }
}

static void text_over(struct scan *sc)
{
    if (sc->code_len)
        code_line_done(sc);
    sc->code_done = true;
}

static bool key_is(const struct scan *sc, const char *k)
{
    return strcmp(sc->key, k) == 0;
}

static enum role parent_role(const struct scan *sc)
{
    if (sc->depth == 0 || sc->depth > MAX_FRAMES)
        return R_NONE;
    return (enum role)sc->st[sc->depth - 1].role;
}

/* The role of a container opening here. */
static enum role container_role(struct scan *sc, bool object)
{
    enum role p = parent_role(sc);
    if (sc->depth == 0)
        return object ? R_ROOT : R_NONE;
    switch (p) {
    case R_ROOT:
        if (object)
            return R_NONE;
        if (key_is(sc, "cells") || key_is(sc, "paragraphs") || key_is(sc, "commands")) {
            if (sc->m->format == CELLS_TEXT)
                sc->m->format = key_is(sc, "cells")        ? CELLS_JUPYTER
                                : key_is(sc, "paragraphs") ? CELLS_ZEPPELIN
                                                           : CELLS_DATABRICKS;
            return R_CELLS;
        }
        if (key_is(sc, "worksheets")) {
            sc->m->format = CELLS_JUPYTER;
            return R_WORKSHEETS;
        }
        return R_NONE;
    case R_WORKSHEETS:
        return object ? R_WORKSHEET : R_NONE;
    case R_WORKSHEET:
        return !object && key_is(sc, "cells") ? R_CELLS : R_NONE;
    case R_CELLS:
        return object ? R_CELL : R_NONE;
    case R_CELL:
        if (!object && (key_is(sc, "source") || key_is(sc, "input")))
            return R_SOURCE;
        if (key_is(sc, "outputs") || key_is(sc, "results"))
            return R_OUTPUTS;
        return R_NONE;
    default:
        return R_NONE;
    }
}

static void open_container(struct scan *sc, bool object)
{
    enum role r = container_role(sc, object);
    if (r == R_CELL) {
        sc->cell = new_cell(sc);
        sc->code_len = 0;
        sc->code_done = false;
    } else if (r == R_SOURCE && sc->cell) {
        sc->cell->src_first = sc->line + 1; /* its lines start below the bracket */
    } else if (r == R_OUTPUTS && sc->cell) {
        sc->cell->out_first = sc->line;
        sc->outputs_depth = sc->depth + 1;
    } else if (sc->outputs_depth && sc->cell && !sc->cell->out_text && !object &&
               (key_is(sc, "text") || key_is(sc, "text/plain"))) {
        /* Jupyter's lines of output text; Zeppelin's and Databricks' "data" is one string
           (its plan is then on line 1 of the output, as far as the JSON tells). */
        sc->cell->out_text = sc->line + 1;
    }
    if (sc->depth < MAX_FRAMES)
        sc->st[sc->depth] = (struct frame){(unsigned char)r, object};
    sc->depth++;
    sc->want_key = object;
    sc->key[0] = '\0';
}

static void close_container(struct scan *sc)
{
    if (sc->depth == 0)
        return;
    enum role r = parent_role(sc);
    sc->depth--;
    if (r == R_CELL && sc->cell) {
        text_over(sc);
        sc->cell->last_line = sc->line;
        if (!sc->cell->type)
            sc->cell->type = "code";
        sc->cell = NULL;
    } else if (r == R_SOURCE && sc->cell) {
        sc->cell->src_last = sc->line;
        if (sc->cell->src_first > sc->line)
            sc->cell->src_first = sc->line;
        text_over(sc);
    } else if (r == R_OUTPUTS && sc->cell) {
        sc->cell->out_last = sc->line;
        sc->outputs_depth = 0;
    }
    sc->want_key = false;
}

static void string_value(struct scan *sc, size_t from, size_t to)
{
    enum role p = parent_role(sc);
    struct cell *c = sc->cell;
    if (!c)
        return;
    if (p == R_SOURCE) {
        decode_into_code(sc, from, to);
    } else if (p == R_CELL) {
        if (key_is(sc, "cell_type")) {
            size_t n = to - from;
            c->type = n == 8 && memcmp(sc->b + from, "markdown", 8) == 0 ? "markdown"
                      : n == 3 && memcmp(sc->b + from, "raw", 3) == 0    ? "raw"
                                                                          : "code";
        } else if (key_is(sc, "source") || key_is(sc, "input") || key_is(sc, "text") ||
                   key_is(sc, "command")) {
            /* The whole text in one string (Zeppelin, Databricks, some nbformat 4). */
            c->src_first = c->src_last = sc->line;
            decode_into_code(sc, from, to);
            text_over(sc);
        }
    }
}

static void number_value(struct scan *sc, size_t from, size_t to)
{
    if (parent_role(sc) != R_CELL || !sc->cell ||
        !(key_is(sc, "execution_count") || key_is(sc, "prompt_number")))
        return;
    long v = 0;
    for (size_t i = from; i < to && sc->b[i] >= '0' && sc->b[i] <= '9' && v < 100000000; i++)
        v = v * 10 + (sc->b[i] - '0');
    sc->cell->execution_count = (int32_t)v;
}

/* The end of the string whose opening quote is at b[i] (the index of its closing quote, or
   n when it runs to the end). */
static size_t string_end(const char *b, size_t n, size_t i)
{
    /* Bound: the string's bytes; memchr for the quotes. */
    for (size_t j = i + 1; j < n;) {
        const char *q = memchr(b + j, '"', n - j);
        if (!q)
            return n;
        size_t k = (size_t)(q - b), bs = 0;
        while (k > i + 1 + bs && b[k - 1 - bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            return k;
        j = k + 1;
    }
    return n;
}

static void scan_json(struct scan *sc)
{
    const char *b = sc->b;
    size_t n = sc->n;
    /* Bound: every byte once (strings are skipped by string_end). */
    while (sc->i < n && sc->ok) {
        char c = b[sc->i];
        switch (c) {
        case '\n':
            sc->line++;
            sc->i++;
            break;
        case '"': {
            size_t e = string_end(b, n, sc->i);
            if (sc->want_key && sc->depth && sc->depth <= MAX_FRAMES &&
                sc->st[sc->depth - 1].object) {
                size_t k = e - sc->i - 1;
                if (k >= sizeof sc->key)
                    k = sizeof sc->key - 1;
                memcpy(sc->key, b + sc->i + 1, k);
                sc->key[k] = '\0';
                sc->want_key = false;
            } else {
                string_value(sc, sc->i + 1, e);
            }
            sc->i = e + 1;
            break;
        }
        case '{':
        case '[':
            open_container(sc, c == '{');
            sc->i++;
            break;
        case '}':
        case ']':
            close_container(sc);
            sc->i++;
            break;
        case ',':
            sc->want_key = sc->depth && sc->depth <= MAX_FRAMES && sc->st[sc->depth - 1].object;
            if (!sc->want_key)
                sc->key[0] = '\0';
            sc->i++;
            break;
        default:
            if ((c >= '0' && c <= '9') || c == '-') {
                size_t e = sc->i;
                while (e < n && ((b[e] >= '0' && b[e] <= '9') || b[e] == '-' || b[e] == '.' ||
                                 b[e] == 'e' || b[e] == 'E' || b[e] == '+'))
                    e++;
                number_value(sc, sc->i, e);
                sc->i = e;
            } else {
                sc->i++;
            }
            break;
        }
    }
}

/* "# COMMAND ----------", "-- COMMAND ----------", "// COMMAND ----------". */
static size_t comment_mark(const char *s, size_t n)
{
    if (n >= 2 && s[0] == '#')
        return 1;
    if (n >= 3 && ((s[0] == '-' && s[1] == '-') || (s[0] == '/' && s[1] == '/')))
        return 2;
    return 0;
}

static bool databricks_line(const char *s, size_t n, const char *word)
{
    size_t k = comment_mark(s, n), w = strlen(word);
    return k && n >= k + 1 + w && s[k] == ' ' && memcmp(s + k + 1, word, w) == 0;
}

/* A Databricks notebook source file: cells between "COMMAND ----------" lines. */
static void scan_databricks_source(struct scan *sc)
{
    const char *b = sc->b, *end = b + sc->n;
    sc->m->format = CELLS_DATABRICKS_PY;
    /* Bound: every line once. */
    for (const char *s = b; s < end && sc->ok;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - s);
        sc->line++;
        if (sc->line == 1) {
            /* the "Databricks notebook source" line itself */
        } else if (databricks_line(s, n, "COMMAND ----------") || !sc->cell) {
            if (sc->cell)
                text_over(sc);
            sc->cell = new_cell(sc);
            sc->code_len = 0;
            sc->code_done = false;
            if (sc->cell && !databricks_line(s, n, "COMMAND ----------")) {
                sc->cell->src_first = sc->line;
                goto text;
            }
            if (sc->cell)
                sc->cell->src_first = sc->line + 1;
        } else {
        text:
            sc->cell->last_line = sc->cell->src_last = sc->line;
            size_t k = 0;
            if (databricks_line(s, n, "MAGIC")) {
                k = comment_mark(s, n) + 7;
                if (k > n)
                    k = n;
                if (!sc->cell->type && !sc->code_done && n - k >= 3 && memcmp(s + k, "%md", 3) == 0)
                    sc->cell->type = "markdown";
            }
            for (size_t i = k; i < n && !sc->code_done; i++)
                code_byte(sc, s[i]);
            if (!sc->code_done)
                code_line_done(sc);
        }
        s = nl ? nl + 1 : end;
    }
    if (sc->cell)
        text_over(sc);
    for (size_t i = 0; i < sc->m->n_cells; i++)
        if (!sc->m->cells[i].type)
            sc->m->cells[i].type = "code";
}

bool cells_build(const char *bytes, size_t len, struct arena *a, struct cell_map *out)
{
    memset(out, 0, sizeof *out);
    if (!bytes || !len)
        return true;
    struct scan sc;
    memset(&sc, 0, sizeof sc);
    sc.b = bytes;
    sc.n = len;
    sc.a = a;
    sc.m = out;
    sc.ok = true;
    sc.line = 1;
    size_t head = len < 65536 ? len : 65536, i = 0;
    while (i < head && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t'))
        i++;
    if (i < head && bytes[i] == '{' &&
        (has(bytes, head, "\"cells\"") || has(bytes, head, "\"worksheets\"") ||
         has(bytes, head, "\"paragraphs\"") || has(bytes, head, "\"commands\""))) {
        scan_json(&sc);
    } else if (databricks_line(bytes, head, "Databricks notebook source")) {
        sc.line = 0;
        scan_databricks_source(&sc);
    }
    if (!sc.ok || !out->n_cells) {
        bool ok = sc.ok;
        memset(out, 0, sizeof *out);
        return ok;
    }
    return true;
}

const struct cell *cells_find(const struct cell_map *m, uint32_t line)
{
    size_t lo = 0, hi = m->n_cells;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->cells[mid].last_line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->n_cells && m->cells[lo].first_line <= line)
        return &m->cells[lo];
    return NULL;
}

bool cells_is_output(const struct cell *c, uint32_t line)
{
    return c->out_first && line >= c->out_first && line <= c->out_last;
}

uint32_t cells_line_in(const struct cell *c, uint32_t line)
{
    uint32_t from;
    if (cells_is_output(c, line))
        from = c->out_text && line >= c->out_text ? c->out_text : line;
    else if (c->src_first && line >= c->src_first)
        from = c->src_first;
    else
        from = line;
    return line >= from ? line - from + 1 : 1;
}
