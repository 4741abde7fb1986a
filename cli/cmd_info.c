/* cmd_info.c - placeholder until the real command lands. */
#include "cli.h"

int cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("'info' is not implemented yet");
	return 1;
}
