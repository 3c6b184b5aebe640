/*
 * command.h - what a command is: one descriptor (struct command) that the
 * generic driver (driver.c) runs, as git's builtins are rows of one table
 * (cmd/commands.def lists them, cmd/commands.c holds the table, main.c
 * finds the command in it).
 *
 * A descriptor names the command, its options (struct opt_spec: getopt's
 * entry, the --help line and what completion offers), its help texts, the
 * passes it plans over the input and the operation of each (operation.h),
 * and how it writes its result. The driver does the rest, the same for
 * every command: it parses the common options and the command's, prints
 * --help generated from the tables, opens the operands, sizes and makes
 * each pass's accumulator, runs the engine, and writes the result (or
 * nothing after an error) to stdout or -o.
 *
 * `gpustat --options` and `gpustat --commands` print the tables as lines of
 * text: the completion scripts offer what they list, and the tests check
 * the completions and the man page against them (tests/test_completions.sh,
 * tests/test_man.sh).
 */
#ifndef COMMAND_H
#define COMMAND_H

#include <stdio.h>
#include "acc.h"
#include "cli.h"
#include "report.h"

/* One pass over the input: an operation, what to keep beside its
 * accumulator, and what to do before and after it. */
struct pass {
	enum gs_cmd op;
	/* Before the accumulator is made (NULL: nothing): settle the job for
	 * this pass, or refuse it (a range pass of a pipe). 0 or -1 with err. */
	int (*start)(struct cli *c, struct gs_err *err);
	/* bytes the command keeps beside the accumulator (its formatted
	 * results), counted in the accumulators' limit; NULL for none */
	uint64_t (*extra)(const struct cli *c);
	/* The accumulator after a whole, successful pass over the input
	 * (c->records: how many). A pass before the last settles the job for
	 * the next (hist's range); the last one formats the result into b.
	 * Returns 0, or -1 with err filled. */
	int (*done)(struct cli *c, void *acc, struct sbuf *b, struct gs_err *err);
};

/* The formats of a command that prints results (every one but scan). */
#define RESULT_FORMATS "text tsv csv json binary npy state"
#define RESULT_FORMATS_HELP "text (default), tsv, csv, json, binary, npy,\n" \
	"state (a partial result for gpustat merge)"

struct command {
	const char *name;
	const char *summary;	/* one line for gpustat --help and completion */
	const char *usage;	/* after "gpustat NAME ", one form per line */
	const char *about;	/* what it computes, for --help */
	const char *examples;	/* one per line */
	const struct opt_spec *opts;	/* its own options, ended by { NULL } */
	enum gs_type default_type;
	enum gs_format default_format;
	const char *formats;	/* the -f values it writes, as "text tsv ..." */
	const char *formats_help;	/* -f's --help text */
	const char *per_file_help;	/* --per-file's, or NULL: the common */
	bool reads_no_data;	/* takes none of the input options (merge) */
	bool mixed;		/* reads records of mixed types (gs.h) */
	size_t state_size;	/* its own state, zeroed, at c->state */

	/* Each may be NULL. init: defaults before the options are parsed.
	 * option: one of opts (by id). check: after parsing, before anything
	 * is opened (usage errors). open: open the operands (default: all of
	 * them as one stream into c->in). plan: after opening: settle the job
	 * and return the passes to run, in order (default: `passes`). */
	void (*init)(struct cli *c);
	int (*option)(struct cli *c, int id, const char *arg, struct gs_err *err);
	int (*check)(struct cli *c, struct gs_err *err);
	int (*open)(struct cli *c, struct gs_err *err);
	int (*plan)(struct cli *c, const struct pass **passes, struct gs_err *err);
	const struct pass *passes;	/* ended by { .done = NULL } */
	/* Whether the last pass of `passes` prints the states of another
	 * operation too (merge), and which: hist's weighted CMD_HISTW */
	bool other_state;
	enum gs_cmd other_state_op;

	/* Write the result b (the last pass's) and close the output; returns
	 * the exit status (default: cli_finish). */
	int (*finish)(struct cli *c, const struct sbuf *b);
	/* A command that streams its output (scan) runs this after opening
	 * instead of the plan and passes (which make its -f state), and
	 * returns the exit status. */
	int (*stream)(struct cli *c);
};

/* Whether cmd writes format f (a word of cmd->formats). */
bool command_writes(const struct command *cmd, enum gs_format f);

/* Run cmd with argv (argv[0] its name); returns the exit status. */
int command_run(const struct command *cmd, int argc, char **argv);

/* cmd's --help text, generated from its tables, to f. */
void command_help(const struct command *cmd, FILE *f);

/* Every command's options as lines for the completion scripts and the
 * tests of the man page and completions (gpustat --options):
 * "COMMAND<TAB>--LONG<TAB>-S<TAB>ARG<TAB>VALUES<TAB>BRIEF" ('-' for none;
 * VALUES the words an option's value can be, space-separated), the common
 * options under the command name "*", -f under each command with its own
 * formats. */
void command_dump_options(const struct command *const *cmds, size_t n, FILE *f);
/* "NAME<TAB>SUMMARY" per command (gpustat --commands). */
void command_dump_commands(const struct command *const *cmds, size_t n, FILE *f);

#endif
