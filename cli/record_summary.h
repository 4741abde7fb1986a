/* record_summary.h - the end of `loopscope record` (cli only). */
#ifndef LS_CLI_RECORD_SUMMARY_H
#define LS_CLI_RECORD_SUMMARY_H

#include <stdint.h>

/* Prints to stderr the command to run next on bundle and, when stderr is
 * a terminal and the recording holds at most a few MB of PT (so the
 * analysis takes about a second at most), its five top loops first. */
void cli_record_summary(const char *bundle, uint64_t pt_bytes);

#endif
