/* cmd_import.c - placeholder until the real command lands. */
#include "cli.h"

int cmd_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("'import' is not implemented yet");
	return 1;
}
