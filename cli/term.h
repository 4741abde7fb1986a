/* term.h - what the command line does only for a person at a terminal:
 * a progress line on stderr while a command decodes or records, and
 * colour.  Nothing here changes what goes to a file or a pipe.
 */
#ifndef LS_CLI_TERM_H
#define LS_CLI_TERM_H

#include <stdint.h>
#include <stdio.h>

/* --color=WHEN (main.c, before the command). */
enum { CLI_COLOR_AUTO = 0, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

/* Sets the colour mode; "auto" colours a terminal unless NO_COLOR is set
 * (to anything but ""). */
void cli_color_set(int mode);
/* Parses auto|always|never into *mode; 0, or -1 when it is none of them. */
int cli_color_parse(const char *s, int *mode);
/* Whether output to f gets colour. */
int cli_color_on(FILE *f);
/* The escape sequence for a colour role on f ("" without colour):
 * "err", "warn", "bold", "dim", "hot" (a share worth a look), "loop" (a
 * loop's label in the report views), "off". */
const char *cli_color(FILE *f, const char *role);

/* Progress on stderr, when it is a terminal and the work has taken more
 * than a second: PT bytes decoded of the bundle's, instructions, their
 * rate and the time left.  main() installs it for every decoding
 * command; -q (cli_progress_quiet()) or a stderr that is no terminal
 * turn it off. */
void cli_progress_init(void);
void cli_progress_quiet(void);
struct lsb_reader;
/* The decodes of several readers of bundle r (its shards, on threads)
 * are one pass: its PT bytes in all; NULL: back to one pass per reader. */
void cli_progress_group(const struct lsb_reader *r);
/* The next n decodes of a bundle are one line (0 or 1: each its own):
 * its PT bytes n times over, so that the time left covers them all
 * (analyze decodes twice, struct lsa_know; thrice with --deps). */
void cli_progress_passes(unsigned n);
/* Erases the progress line (before a message, and at exit). */
void cli_progress_clear(void);
/* While a command records: a line with the size of the bundle file at
 * path (growing as the recorder writes), the time since the start, and,
 * when the recorder reports them (cli_progress_recorded(): the sw
 * backend), the PT bytes and memory-access bytes it received and the PT
 * rate; else the bundle's rate.  Stops with cli_progress_watch_stop(),
 * which draws the final counts once more.  Returns 0, or -1 when no
 * thread could be made (then there is no progress, nothing else
 * changes). */
int cli_progress_watch(const char *path);
void cli_progress_watch_stop(void);
/* The recorder's counts so far (any thread). */
void cli_progress_recorded(uint64_t pt_bytes, uint64_t acc_bytes);

#endif
