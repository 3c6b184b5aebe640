/*
 * commands.h - every command's descriptor, from the table commands.def.
 */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "command.h"

#define COMMAND(name) extern const struct command name##_command;
#include "commands.def"
#undef COMMAND

/* Every command, in the order of commands.def. */
extern const struct command *const commands[];
extern const size_t ncommands;

/* The command named name, or NULL. */
const struct command *command_find(const char *name);

#endif
