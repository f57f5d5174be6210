/* term: the terminal — which tty, signals through a self-pipe, curses start and stop,
 * mouse and bracketed-paste modes, suspend and resume.  The only module that touches
 * termios (through curses), signal handlers and mode escape sequences.
 *
 * Owns: the tty FILE (when /dev/tty was opened), the SCREEN and the signal pipe; term_close
 * releases them and is idempotent (also registered with atexit).  Input decoding is
 * input.c's; term only tells it when to stop and start around a suspend.
 * Never: writes to stderr while the screen is up, calls curses from a signal handler.
 */
#ifndef SPARKPLAN_TERM_H
#define SPARKPLAN_TERM_H

#include <stdbool.h>
#include <stddef.h>

enum {
    TERM_SIG_RESIZE = 1 << 0,   /* SIGWINCH */
    TERM_SIG_SUSPEND = 1 << 1,  /* SIGTSTP from outside (Ctrl-z arrives as a key) */
    TERM_SIG_QUIT = 1 << 2,     /* SIGINT, SIGTERM, SIGHUP */
    TERM_SIG_CONT = 1 << 3,     /* SIGCONT: resumed after a stop we did not ask for */
};

/* Choose the tty (fd 0/stdout when both are terminals and !force_dev_tty, else
 * /dev/tty), install the signal handlers.  On failure fills err and returns false. */
bool term_open(bool force_dev_tty, char *err, size_t errcap);
/* The terminal's background: COLORFGBG, else an OSC 11 query answered within timeout_ms
 * (nothing left on screen or in the input when the terminal does not answer; keys typed
 * meanwhile go to the key reader).  Call after term_open and input_open, before curses
 * starts.  Returns an enum theme_bg (theme.h). */
int term_background(int timeout_ms);
/* Start curses on the chosen tty (after input_open).  utf8: the locale's codeset. */
bool term_start_screen(char *err, size_t errcap);
int term_fd(void);
int term_signal_fd(void);
bool term_utf8(void);
/* Drain the signal pipe: a TERM_SIG_* mask. */
unsigned term_take_signals(void);
/* Re-read the window size and tell curses (after SIGWINCH or a resume). */
void term_resize(void);
/* Mouse + SGR coordinates + bracketed paste on or off (symmetric). */
void term_modes(bool on);
/* Sends bytes to the clipboard: OSC 52 (base64); false when out of memory. */
bool term_osc52(const char *bytes, size_t len);
/* Leaves the screen, runs `sh -c cmd` with text on its input and the terminal as its
 * output, waits for it, and comes back (the caller redraws all).  false and err when the
 * command could not run. */
bool term_pager(const char *cmd, const char *text, size_t len, char *err, size_t errcap);
/* Leave the screen, stop the process (Ctrl-z), and come back: the caller redraws all. */
void term_suspend(void);
/* Restore the terminal: modes off, endwin, input closed, screen freed, tty closed. */
void term_close(void);

#endif
