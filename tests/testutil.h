/* testutil: helpers shared by the Check suites.
 *
 * Tests run from the repository root.  The corpus lives in $SPARKPLAN_CORPUS or
 * ../shared/corpus; suites that need it skip with a message when it is absent.
 * The program under test is $SPARKPLAN_BIN (./sparkplan by default).
 */
#ifndef SPARKPLAN_TESTUTIL_H
#define SPARKPLAN_TESTUTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sparkplan/load.h"
#include "sparkplan/plan.h"

/* Parse a C string as a document named "test"; fails the test on error. */
struct document *tu_parse(const char *text);
/* Parse, returning the status (doc may be NULL). */
enum sp_status tu_try_parse(const char *text, size_t len, struct document **doc);

/* Read a whole file into a malloc'd NUL-terminated buffer; NULL when unreadable. */
char *tu_read_file(const char *path, size_t *len);

/* Loads path twice, once finished from the builder's record of node order and once by the
 * walk over every node (plan_order_enable), and returns NULL when the two models agree in
 * every field document_finish sets, else a malloc'd sentence saying where they differ.
 * *nodes (may be NULL) gets the node count. */
char *tu_finish_differs(const char *path, size_t *nodes);

/* Corpus directory, or NULL (and a message printed once) when it is absent. */
const char *tu_corpus_dir(void);
/* Path of the sparkplan binary under test. */
const char *tu_binary(void);

/* The environment words ("ASAN_OPTIONS=... UBSAN_OPTIONS=...") that make the binary under
 * test, when it is built with the sanitizers (the sanitizer pass of make check), write any
 * report (an error, memory still allocated at exit) to PREFIX.PID rather than to the
 * terminal it draws on; the plain binary ignores them. */
void tu_san_env(char *buf, size_t cap, const char *prefix);
/* The first report written under prefix (malloc'd, cut to 16 KB), or NULL when there is
 * none; removes them all, so the next test starts clean. */
char *tu_san_report(const char *prefix);
/* Is there one?  (Cheap enough to ask at every poll of a screen: a crashed program's test
 * fails at once with the report rather than after a wait.) */
bool tu_san_reported(const char *prefix);
/* Fails the test when a report was written under prefix: the whole report on stderr (Check
 * cuts a failure message at 4 KB), its start in the failure message.  Call it once the
 * program is over, so that the report is whole. */
void tu_san_fail_on_report(const char *prefix);

/* What tmux's TU_PANE_EXIT format reads for a pane kept after its program ended
 * (remain-on-exit): true once the program is over and how is known, with *status its exit
 * status, or 128 + the signal that ended it.  A pane reads dead a moment before tmux has
 * the status, and tmux 3.3 sometimes never collects a program that dies early (it stays a
 * zombie): then the status is the zombie's own (Linux, /proc/PID/stat). */
#define TU_PANE_EXIT "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}:#{pane_pid}"
bool tu_pane_exit(const char *format_out, int *status);

/* Run a shell command, capture stdout (malloc'd) and the exit status. */
char *tu_run(const char *cmd, int *status);
/* The same with a printf-style command; fails the test when the shell cannot be started. */
char *tu_runf(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A scratch directory /tmp/sparkplan-TAG-XXXXXX for a suite (one at a time), its path, and
 * its removal; tu_tmp_write writes len bytes to DIR/name and returns the path (one of 4
 * static buffers). */
void tu_tmpdir_make(const char *tag);
const char *tu_tmpdir(void);
void tu_tmpdir_remove(void);
const char *tu_tmp_write(const char *name, const char *bytes, size_t len);

/* A formatted plan of n scans and exchanges under one Union (n + 1 operators, one details
 * block each; every third operator an Exchange), malloc'd and NUL-terminated, its length in
 * *len.  padded: each block also carries a 140-byte "Arguments: pad 000..." field, so the
 * text passes 4 MB at n = 30,000.  tail: what follows the Union's own details header. */
char *tu_union_plan(unsigned n, bool padded, const char *tail, size_t *len);

/* What was written to f (a tmpfile(): the outputs write to a FILE *), malloc'd and
 * NUL-terminated, its length in *len (may be NULL); f is closed. */
char *tu_stream_text(FILE *f, size_t *len);

/* One thread against two, for an output put together on two threads (emit.h's
 * emit_set_print_parallel, insight.h's insight_set_scans_parallel: set(min, chunk)):
 * render(ctx, &len) (a malloc'd text) with one thread (set(SIZE_MAX, 0)), then on two from
 * the first item in chunks of chunk (set(1, chunk); 0: the default chunk), the defaults put
 * back (set(0, 0)); fails the test at the first byte where the two texts differ, naming
 * what and the chunk size. */
void tu_expect_two_threads_same(void (*set)(size_t min, size_t chunk),
                                char *(*render)(void *ctx, size_t *len), void *ctx, size_t chunk,
                                const char *what);

/* fn(path, doc) for every corpus file (*.txt under tu_corpus_dir) that loads (load_path),
 * the document freed after it; *n is how many.  False, with a line on stderr naming test,
 * when there is no corpus (the caller skips).  Not reentrant (nftw has no context). */
bool tu_each_corpus_plan(const char *test, void (*fn)(const char *path, struct document *doc),
                         size_t *n);

/* doc written as --json (json) or --print writes it, malloc'd, *len bytes; fails the test
 * when the writer fails. */
char *tu_emitted(const struct document *doc, bool json, size_t *len);
/* a and b are the same document for a user: the same text (after clean-up), as many plans,
 * nodes and warnings, and --json and --print byte for byte.  For two loads of one input by
 * different paths (two threads against one, a file against bytes in memory). */
void tu_assert_same_document(const struct document *a, const struct document *b);

/* Node helpers: the first section's first root, the n-th child. */
struct plan_node *tu_root(struct document *doc);
struct plan_node *tu_child(struct plan_node *n, unsigned i);
bool tu_slice_is(struct slice s, const char *c);
/* Asserts that slice s reads c, and prints what it reads when it does not. */
#define tu_assert_slice_is(s, c)                                                          \
    do {                                                                                   \
        struct slice tu_s_ = (s);                                                          \
        const char *tu_c_ = (c);                                                           \
        ck_assert_msg(tu_slice_is(tu_s_, tu_c_), "%s is '%.*s', expected '%s'", #s,        \
                      (int)(tu_s_.len > 400 ? 400 : tu_s_.len), tu_s_.ptr, tu_c_);       \
    } while (0)
/* The fields the model derives instead of storing (plan.h), against what they stand for, on
 * every node of doc: its child count is the number of nodes naming it their parent, its
 * pre-order number and section read back, its name lies inside its text, its details
 * header's lines are those the block starts on; input order is by line.  Counts lines from
 * the text's start for each block: small documents only. */
void tu_check_derived(const struct document *doc);
/* The i-th field of a node's details block (plan_details_next); fails the test when the
 * block has fewer fields. */
struct plan_detail tu_detail(const struct plan_node *n, unsigned i);

#endif
