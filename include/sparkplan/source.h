/* source: one input of a document: its bytes, how they are held, and the text the parser
 * reads.
 *
 * Owns: the input bytes (malloc'd with a NUL guard byte after len, or a mapfile.h mapping),
 * the cleaned text when clean-up wrote one (in the source's arena, or over the input's own
 * buffer), and the line map and line depths that go with it.  source_free() releases all
 * of it; nothing else frees any part.  The model's slices point into `text`, so a source
 * lives as long as its document (struct document embeds one).
 * Life: source_init() (text = the bytes) -> clean-up may source_set_text() once ->
 * source_drop_input() when the text is a copy -> the parser reads text -> source_free().
 * Warnings about the input (the clean-up's) are kept as notes (source_note) until the
 * loader files them on the document: nothing in src/input calls the model.
 * Never: parses, allocates outside its arena, frees the bytes while text points into them.
 *
 * How to add an input (an event log, a notebook, a decompressed file): read it whole into a
 * malloc'd buffer (len + 1 bytes, a NUL at len) or map it, hand it to source_init(), and
 * feed what it says to the plan builder (build.h); docs/layout.md has the steps.
 */
#ifndef SPARKPLAN_SOURCE_H
#define SPARKPLAN_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sparkplan/arena.h"

/* line_depth value of a line that carries its own prefix. */
#define CLEAN_OWN_PREFIX UINT32_MAX

#define SOURCE_NOTES 4

struct source {
    char *bytes;               /* the input as read; NULL once released (source_drop_input) or
                                  written over by the cleaned text (then `over`) */
    size_t len;                /* the input's size, known after it is gone */
    bool mapped;               /* bytes (or `over`, written on them) is a mapping of len bytes */
    char *over;                /* the cleaned text when written over the input's buffer */
    struct arena arena;        /* the cleaned text, line map and depths otherwise */
    const char *text;          /* what the parser reads: bytes, `over`, or in the arena */
    size_t text_len;
    const uint32_t *line_map;  /* text line (1-based index) -> input line; NULL = identity, or
                                  line_from */
    uint32_t line_from;        /* with no line_map, when not 0: every text line comes from this
                                  input line (a plan string decoded from one line: an event
                                  log's record, whose 2.6 million lines took a 10 MB map of one
                                  value); source_input_line reads either */
    uint32_t n_text_lines;
    /* NULL unless clean-up rebuilt a tree whose indentation was lost and the rebuilt prefixes
     * would not fit in memory (a 100,000-deep chain is 15 GB of spaces).  Then for text line
     * i (1-based, array of n_text_lines + 1): the number of 3-column prefix units the line
     * stands for, its marker included (a root 0, its children 1, ...); the line itself starts
     * with just its marker ("+- ", ":- ") or, for an AQE section root, with nothing.
     * CLEAN_OWN_PREFIX: the line carries its own prefix. */
    const uint32_t *line_depth;
    /* Warnings of a reader that rewrites the input (the clean-up), kept here until the
     * loader files them on the document (document_warn): the input stage never calls the
     * model.  More than SOURCE_NOTES are dropped (the clean-up makes two at most). */
    struct source_note {
        uint32_t line;             /* input line, 1-based; 0: the whole input */
        char message[128];
    } notes[SOURCE_NOTES];
    unsigned n_notes;
};

/* The input line text line text_line (1-based) comes from: line_map's, or line_from, or
 * text_line itself (no map, or a line number the text does not have). */
static inline uint32_t source_input_line(const struct source *s, uint32_t text_line)
{
    if (text_line == 0 || text_line > s->n_text_lines)
        return text_line;
    if (s->line_map)
        return s->line_map[text_line];
    return s->line_from ? s->line_from : text_line;
}

/* Takes bytes (malloc'd, or a mapping when mapped; may be NULL with len 0); text = bytes. */
void source_init(struct source *s, char *bytes, size_t len, bool mapped);

/* Reads text it does not own (another source's bytes, for a trial parse beside the quick
 * scan): s holds nothing, and must be given the owner's source (source_move) or freed
 * before the owner is. */
void source_borrow(struct source *s, const char *text, size_t len);

/* Back to reading the input as it is (no map, no depths); false when it is gone. */
bool source_read_input(struct source *s);

/* Clean-up's text, allocated in s->arena or written over s->bytes (then the buffer changes
 * owner: bytes becomes NULL, over holds it).  map and depth are in s->arena or NULL; line_from
 * is 0 (set it after for a text without a map whose lines all come from one input line). */
void source_set_text(struct source *s, char *text, size_t text_len, const uint32_t *map,
                     uint32_t n_lines, const uint32_t *depth);

/* The text is a copy of its own: release the input bytes (nothing points into them). */
void source_drop_input(struct source *s);

/* Moves everything from `from` to `to` (which holds nothing); `from` is left empty. */
void source_move(struct source *to, struct source *from);

void source_free(struct source *s);

/* Keeps a warning about the input for the loader (see notes above). */
void source_note(struct source *s, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
