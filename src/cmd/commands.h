/*
 * commands.h - every command's descriptor, from the table commands.def.
 */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "command.h"

#define COMMAND(name) extern const struct command name##_command;
#include "commands.def"
#undef COMMAND

#endif
