/* sanitize: the one gate between plan text and any terminal or output stream.
 *
 * Plan text may hold control characters, escape sequences and invalid UTF-8 (pastes, binary
 * files, hostile input).  Everything shown — in the explorer and in --print — goes through
 * here first: C0 controls become caret notation (ESC -> "^[", BEL -> "^G"), DEL -> "^?",
 * C1 controls (U+0080..U+009F) and the invisible format controls that reorder or hide text
 * (bidi embeddings, overrides and isolates U+202A..U+202E, U+2066..U+2069, zero-width
 * U+200B..U+200F, U+2028/2029, U+2060..U+2064, U+061C, U+FEFF) -> "<U+202E>" style, invalid
 * UTF-8 bytes -> "\xNN", and a tab becomes one space.  The result is valid UTF-8 with no control characters.
 * Owns nothing: writes into caller buffers or streams.  Never allocates.
 */
#ifndef SPARKPLAN_SANITIZE_H
#define SPARKPLAN_SANITIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sparkplan/slice.h"

/* Longest output one input byte or character can produce ("<U+009B>" is 8 bytes). */
#define SANITIZE_MAX_EXPANSION 8

/* Decode one item at s[0..len): returns the number of input bytes consumed (>= 1) and
 * writes its safe rendering (1..SANITIZE_MAX_EXPANSION bytes, valid UTF-8) to out, setting
 * *out_len.  *safe is true when the input bytes were shown as they are. */
size_t sanitize_next(const char *s, size_t len, char out[SANITIZE_MAX_EXPANSION], size_t *out_len,
                     bool *safe);

/* Sanitize into a buffer of cap bytes (NUL-terminated when cap > 0).  Returns the full
 * length the result needs (like snprintf), so callers can size buffers. */
size_t sanitize_to_buf(struct slice in, char *out, size_t cap);

/* Length of the valid UTF-8 sequence at s[0..len) (overlongs, surrogates and code points
 * above U+10FFFF rejected), or 0 when s does not start one; *cp gets the code point.
 * Shared with emit's JSON escaping so both agree on what "invalid" means. */
size_t sanitize_utf8_len(const char *s, size_t len, uint32_t *cp);

/* Sanitize straight to a stream; returns false on write error. */
bool sanitize_fwrite(FILE *f, struct slice in);

#endif
