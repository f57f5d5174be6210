/* jsonlint: a small JSON well-formedness checker for the tests (RFC 8259 grammar).
 *
 * Iterative (an explicit stack of open containers), so a 100,000-deep document checks
 * without recursion.  Strings must be valid UTF-8 with no raw control characters.
 * Owns nothing; allocates only its stack, freed before it returns.
 */
#ifndef SPARKPLAN_JSONLINT_H
#define SPARKPLAN_JSONLINT_H

#include <stddef.h>

/* NULL when s[0..len) is exactly one JSON value (whitespace around allowed); otherwise a
 * static message, with the byte offset of the problem in *at. */
const char *jsonlint_check(const char *s, size_t len, size_t *at);

#endif
