/* cmd_record.c - placeholder until the real command lands. */
#include "cli.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("'record' is not implemented yet");
	return 1;
}
