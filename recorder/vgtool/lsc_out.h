/* lsc_out.h - buffered record writer of the Valgrind tool. */
#ifndef LSC_OUT_H
#define LSC_OUT_H

#include "pub_tool_basics.h"
#include "lsc_proto.h"

extern UInt lsc_out_lost;	/* records that could not be written */

/* Open (create, truncate) the output; -1 after a message on error. */
int lsc_out_open(const HChar *path);
/* Append one record of payload p1 then p2; -1 if it was lost. */
int lsc_out_record(UInt type, UInt tid, const void *p1, UInt n1,
		   const void *p2, UInt n2);
/* Write out everything buffered; -1 on a write error. */
int lsc_out_flush(void);
/* The next global sideband sequence number. */
ULong lsc_out_next_seq(void);
/* Forget buffered bytes and close without writing (fork child). */
void lsc_out_abandon(void);
/* Flush and close. */
void lsc_out_close(void);

#endif
