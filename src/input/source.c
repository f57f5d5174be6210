/* source.c: the bytes of one input and the text read from them (see source.h). */
#include "sparkplan/source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparkplan/mapfile.h"

void source_init(struct source *s, char *bytes, size_t len, bool mapped)
{
    memset(s, 0, sizeof *s);
    arena_init(&s->arena);
    s->bytes = bytes;
    s->len = len;
    s->mapped = mapped;
    s->text = bytes;
    s->text_len = len;
}

void source_borrow(struct source *s, const char *text, size_t len)
{
    source_init(s, NULL, 0, false);
    s->text = text;
    s->text_len = len;
}

bool source_read_input(struct source *s)
{
    if (!s->bytes)
        return false;
    s->text = s->bytes;
    s->text_len = s->len;
    s->line_map = NULL;
    s->line_from = 0;
    s->line_depth = NULL;
    return true;
}

void source_set_text(struct source *s, char *text, size_t text_len, const uint32_t *map,
                     uint32_t n_lines, const uint32_t *depth)
{
    if (s->bytes && text == s->bytes) {
        s->over = text;
        s->bytes = NULL;
    }
    s->text = text;
    s->text_len = text_len;
    s->line_map = map;
    s->line_from = 0;
    s->n_text_lines = n_lines;
    if (depth)
        s->line_depth = depth;
}

/* The buffer the input came in: the bytes, or the text written over them. */
static void release_buffer(struct source *s, char *buf)
{
    if (s->mapped)
        mapfile_close(buf, s->len);
    else
        free(buf);
}

void source_drop_input(struct source *s)
{
    if (!s->bytes || s->text == s->bytes)
        return;
    release_buffer(s, s->bytes);
    s->bytes = NULL;
    if (!s->over)
        s->mapped = false;
}

void source_move(struct source *to, struct source *from)
{
    *to = *from;
    memset(from, 0, sizeof *from);
    arena_init(&from->arena);
}

void source_free(struct source *s)
{
    arena_free(&s->arena);
    if (s->bytes)
        release_buffer(s, s->bytes);
    else if (s->over)
        release_buffer(s, s->over);
    memset(s, 0, sizeof *s);
}

void source_note(struct source *s, uint32_t line, const char *fmt, ...)
{
    if (s->n_notes == SOURCE_NOTES)
        return;
    struct source_note *n = &s->notes[s->n_notes++];
    n->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->message, sizeof n->message, fmt, ap);
    va_end(ap);
}
