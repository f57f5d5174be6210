/* clip: taking text out of the explorer — to the clipboard by OSC 52 (y, Y: works over
 * SSH and inside tmux, which passes it on or keeps it as a buffer) and to $PAGER (|).
 * Owns nothing; the texts are slices of the document or the caller's.
 * Never: draws (it says what it did in the status message).
 */
#ifndef SPARKPLAN_CLIP_H
#define SPARKPLAN_CLIP_H

#include <stddef.h>

#include "sparkplan/keys.h"
#include "sparkplan/slice.h"

struct tui;
struct plan_node;

/* Clipboard copies stop at this many bytes (terminals drop longer OSC 52 strings). */
#define CLIP_MAX_BYTES (512 * 1024)

/* A node's subtree as Spark printed it: from the node's line to its last descendant's,
 * tree prefixes included (one contiguous piece of the document). */
struct slice clip_subtree_text(const struct plan_node *n);
/* y and Y (the selected node's text, its subtree), | (its subtree to $PAGER) in the
 * tree; reactions. */
int clip_key(struct tui *t, enum key_action a);
/* Copies text, saying "copied WHAT (N bytes)". */
void clip_copy(struct tui *t, struct slice text, const char *what);
/* Shows text in $PAGER (less when unset) and comes back; reactions. */
int clip_pipe(struct tui *t, struct slice text);

#endif
