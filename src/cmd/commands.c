/*
 * commands.c - the table of commands (commands.def), for main.c and for
 * merge, which formats a state as the command that wrote it.
 */
#include <string.h>
#include "commands.h"

const struct command *const commands[] = {
#define COMMAND(name) &name##_command,
#include "commands.def"
#undef COMMAND
};
const size_t ncommands = sizeof(commands) / sizeof(commands[0]);

const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ncommands; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}
