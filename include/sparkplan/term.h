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
    TERM_SIG_QUIT = 1 << 2,     /* SIGINT, SIGTERM, SIGHUP, SIGQUIT */
    TERM_SIG_CONT = 1 << 3,     /* SIGCONT: resumed after a stop we did not ask for */
};

/* Choose the tty (fd 0/stdout when both are terminals and !force_dev_tty, else
 * /dev/tty), install the signal handlers.  On failure (TERM unset, no tty) fills err and
 * returns false, having touched nothing. */
bool term_open(bool force_dev_tty, char *err, size_t errcap);
/* The terminal's background as COLORFGBG says it (after term_open): an enum theme_bg
 * (theme.h), THEME_BG_UNKNOWN when it says nothing. */
int term_background(void);
/* Asks the terminal its background (OSC 11, then a device-attributes query), after
 * term_start_screen; false when the terminal cannot be asked (TERM dumb or vt*).  Nothing
 * waits for the answer: the key reader takes it (input_take_background) and the explorer
 * applies it when it comes; term_close waits for it a moment at most, so that it never
 * lands on the shell. */
bool term_ask_background(void);
/* Start curses on the chosen tty (after input_open).  utf8: the locale's codeset. */
bool term_start_screen(char *err, size_t errcap);
/* The tty to poll for keys; -1 (poll skips it) while suspended in the background. */
int term_fd(void);
/* The screen is up and in the foreground: drawing may go on. */
bool term_shown(void);
/* The signal that asked the explorer to end (TERM_SIG_QUIT), or 0: it exits 128 + that. */
int term_quit_signal(void);
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
/* Leave the screen, stop the process (Ctrl-z), and come back when continued in the
 * terminal's foreground (term_resume): the caller redraws all when term_shown(). */
void term_suspend(void);
/* After SIGCONT: re-enter a screen left by term_suspend when the process is in the
 * terminal's foreground; in the background stay quiet (false) until the next SIGCONT. */
bool term_resume(void);
/* Restore the terminal: modes off, endwin, input closed, screen freed, tty closed (none of
 * it written while suspended in the background).  After SIGQUIT it then raises SIGQUIT
 * again with its default action (a core dump, as without the explorer). */
void term_close(void);

#endif
