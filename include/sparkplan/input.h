/* input: keys, mouse and pastes from the tty, through libtermkey.  The only module that
 * calls termkey_* (so libtermkey, in maintenance mode, can be replaced in one place).
 *
 * Events carry the canonical key names of keys.h ("j", "C-d", "S-Tab", "PageDown",
 * "Click", "WheelUp", "Paste").  A bracketed paste is collected here and delivered as one
 * IN_PASTE event: its text never reaches the key bindings.  The terminal's answers to the
 * background query are taken out of the bytes before libtermkey sees them.
 * Owns: the termkey instance, the paste buffer being collected and an answer cut between
 * two reads; an IN_PASTE event's text is handed over (malloc'd, the receiver frees it).
 * Never: reads the tty on its own (the loop polls and calls input_readable; only
 * input_drain_answers, as the explorer ends, waits for answers itself), draws.
 */
#ifndef SPARKPLAN_INPUT_H
#define SPARKPLAN_INPUT_H

#include <stdbool.h>
#include <stddef.h>

enum input_kind { IN_NONE, IN_KEY, IN_MOUSE, IN_PASTE };

struct input_event {
    enum input_kind kind;
    char name[32];     /* canonical key name; "Click", "WheelUp", "WheelDown"; "Paste" */
    char text[8];      /* what the key types ("a", " ", "\n"), "" for other keys */
    int line, col;     /* IN_MOUSE: 0-based screen position */
    char *paste;       /* IN_PASTE: the pasted bytes (malloc'd, receiver frees) */
    size_t paste_len;
    bool paste_cut;    /* the paste was longer than input_paste_max() and was cut */
    size_t paste_dropped; /* the bytes cut off */
};

#define INPUT_PASTE_MAX (64u << 20)

/* The most a paste keeps: INPUT_PASTE_MAX, or SPARKPLAN_PASTE_MAX bytes when that is set (the
 * terminal tests lower it: 64 MiB through tmux takes minutes).  What is cut is counted. */
size_t input_paste_max(void);

bool input_open(int fd, bool utf8, char *err, size_t errcap);
void input_close(void);
void input_stop(void);   /* around a suspend */
void input_start(void);
/* Bytes read from the tty by someone else (the terminal's answers were taken out). */
void input_push(const char *bytes, size_t len);
/* The terminal was asked its background (an OSC 11 query followed by a device-attributes
 * query, term_ask_background): until the device-attributes answer is in, the answers are
 * taken out of what is read (also one cut between two reads, or ended by BEL), so none of
 * it reaches the keys, and the OSC 11 one is kept for input_take_background. */
void input_expect_answers(void);
bool input_answers_pending(void);
/* The background an answer said since the last call (enum theme_bg, theme.h), once. */
int input_take_background(void);
/* Before the terminal is given back: reads and drops the answers still to come, for at
 * most timeout_ms (a late answer would otherwise land on the shell's command line). */
void input_drain_answers(int timeout_ms);
/* The tty is readable: take its bytes (then drain with input_next). */
void input_readable(void);
/* Next complete event; false when none is ready. *eof is set when the tty went away. */
bool input_next(struct input_event *ev, bool *eof);
/* A partial sequence is pending: how long to wait before input_force (ms), else -1. */
int input_wait_ms(void);
/* The wait ran out: take the pending bytes as keys (a lone ESC becomes Escape). */
bool input_force(struct input_event *ev);

#endif
