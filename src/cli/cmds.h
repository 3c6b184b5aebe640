/*
 * cmds.h - the commands, one file each (cmd_*.c), and what they share.
 * Each takes argv with the command name first and returns the exit status.
 */
#ifndef CMDS_H
#define CMDS_H

#include "acc.h"
#include "cli.h"

int cmd_hist(int argc, char **argv);
int cmd_sum(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_dot(int argc, char **argv);
int cmd_scan(int argc, char **argv);
int cmd_reduce(int argc, char **argv);

/* Print one row of results (sum, dot, reduce) in c->format: name is the
 * value column's name, op the reduce op's name or NULL. */
int emit_results(struct cli *c, const char *name, const char *op,
		 const struct result *r, unsigned n, uint64_t count);

/* The common options, for every command's --help. */
extern const char common_help[];

#endif
