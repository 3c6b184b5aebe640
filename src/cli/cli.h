/*
 * cli.h - what every command shares: the common options, strict number
 * parsing, opening the operands, running the engine, and printing errors.
 * Only this layer (and main.c) prints diagnostics or decides exit codes.
 */
#ifndef CLI_H
#define CLI_H

#include <getopt.h>
#include "backend.h"
#include "engine.h"
#include "input.h"
#include "out.h"

struct command;

/* One option: getopt's entry, its --help line, the words completion offers.
 * help may hold '\n': the lines after the first are indented under it. */
struct opt_spec {
	const char *name;	/* long name, without "--" */
	char short_name;	/* a letter, or 0 */
	int has_arg;		/* no_argument, required_argument, optional_argument */
	const char *arg;	/* the value's name in --help ("N", "LO:HI"), or NULL */
	const char *help;
	/* the value's words for completion: "a b c", "@type", "@file", or
	 * NULL for a value that cannot be listed (a number) */
	const char *values;
	int id;			/* what the command's option() is given */
	const char *section;	/* a heading --help prints before it, or NULL */
	/* a few words for completion menus, where help's first line is not
	 * one (NULL: that line) */
	const char *brief;
	/* how data is read and run through the engine (input, type and
	 * execution options): not for commands that read none (merge) */
	bool input;
};

/* One run of a command: the options, the job, the operands and what the
 * run has opened. The driver (driver.c) fills it; the command's hooks
 * read and complete it. */
struct cli {
	const char *cmd;		/* command name, for messages */
	const struct command *command;
	void *state;			/* the command's own (command.state_size) */
	struct gs_job job;
	struct gs_record record;	/* -t T1,T2,... or a structured .npy:
					 * job.rec points here (gs.h) */
	struct gs_record cut_record;	/* ...or here: -F's columns of it */
	enum gs_type default_type;
	bool type_set, endian_set, columns_set, format_set;
	bool chunk_set;		/* --chunk-size given: kept as given */
	bool threads_set;	/* -j given: kept as given */
	bool core_left;		/* a core left to one zstd stream's decoder */
	bool big_endian;		/* --endian big */
	bool type_endian;		/* -t named a byte order ('>f4') */
	const char *type_from_name;	/* no -t: the operand whose name set
					 * the type (suffix.h), or NULL */
	bool raw;
	bool text;			/* --text, or text found */
	bool text_found;		/* text found without --text */
	bool columns_given;		/* -c on the command line (not a header) */
	bool header;			/* --header */
	struct fields *fields;		/* -F LIST, or NULL */
	const char *fields_arg;		/* -F's LIST as given */
	const char *by;			/* --by COLS (cmd/group.c), or NULL */
	/* --by over text: what each field of a line is (textin.h's
	 * TEXTIN_*, key_width of them) and the keys' dictionary, for every
	 * operand --per-file opens after the stream (cmd/group.c) */
	struct textkeys *text_keys;
	uint8_t *key_mask;
	unsigned key_width;
	unsigned width;			/* -F: the records' width (job.columns
					 * is the columns cut from them) */
	unsigned cut;			/* -F: how many columns are cut */
	char *header_line;		/* --header: the stream's first line */
	uint64_t zstd_window;		/* --long, --memory: 0 for the default */
	enum gs_format format;
	const char *output;
	enum backend_choice backend;
	struct engine_opts eo;
	int verbose;
	bool quiet;
	int progress;			/* -1 auto, 0 off, 1 on */
	bool per_file;			/* --per-file (perfile.h) */
	char **operands;
	int noperands;
	bool operand_failed;		/* an operand was reported */
	bool mute_operands;		/* a second pass: reported already */
	bool output_checked;		/* the output is none of the inputs */
	bool stop_on_operand;		/* an operand error ends the run (scan) */
	/* opened by the driver (or the command's open hook) */
	struct input *in, *in2;		/* in2: dot A B's second stream */
	struct input_info info;
	int64_t input_bytes;		/* of every operand, or -1: unknown */
	uint64_t records;		/* of the last pass */
};

/* Parse argv (argv[0] is the command name) with the common options and
 * cmd's (options.c). Returns 0, 1 when --help was printed (exit 0), or -1
 * with err filled (usage error). */
int cli_parse(struct cli *c, int argc, char **argv, const struct command *cmd,
	      struct gs_err *err);
/* A common option (cli.c), by its id in common_opts. */
int cli_common_option(struct cli *c, int id, const char *arg,
		      struct gs_err *err);
extern const struct opt_spec common_opts[];

/* --algorithm NAME, a row of each command that has it (hist, sum, reduce,
 * dot, scan; algorithm.h): NAMES are the command's words, HELP its --help
 * text. The command's option() hands OPT_ALGORITHM to cli_algorithm_option,
 * which checks the name against the row's words. */
#define OPT_ALGORITHM 900
#define ALGORITHM_OPT(NAMES, HELP) \
	{ .name = "algorithm", .has_arg = required_argument, .arg = "NAME", \
	  .help = HELP, .values = NAMES, .id = OPT_ALGORITHM, \
	  .brief = "the kernel to run (same output)" }
int cli_algorithm_option(struct cli *c, const char *arg, struct gs_err *err);

/* The usage error of a TYPE that -t (opt "") or another option (opt
 * "--out-type: ") does not know: the valid names, and the nearest one
 * where one is near. */
int cli_unknown_type(struct gs_err *err, const char *opt, const char *arg);

/* "text", "tsv", ... as -f spells them. */
const char *format_name(enum gs_format f);

/* The name in names nearest to the first n bytes of word, if one is near
 * enough to be a typo of it ("stat" for "stats"), else NULL. */
const char *cli_nearest(const char *word, size_t n, const char *const *names,
			size_t count);

/* Strict parsers (numbers.c): the whole string, no sign surprises, range
 * checked. */
int parse_u64(const char *s, uint64_t *v);
int parse_size(const char *s, uint64_t *v);	/* 64K, 1M, 2G (powers of 1024) */
int parse_double(const char *s, double *v);	/* finite only */
/* "LO:HI" into lo and hi, both finite (hist's and hist2d's --range). */
int parse_range(const char *s, double *lo, double *hi);

/* Open the operands (or the given list) and settle the job's type and
 * columns from the options and any npy/pnm header. */
int cli_open_input(struct cli *c, char *const *paths, int npaths,
		   struct input **in, struct input_info *info, struct gs_err *err);

/* Operand i alone as c->in (and its length as c->input_bytes), for
 * --per-file: read as the whole stream reads it (text or not as the
 * stream's first operand decided, the stream's type and columns), so that
 * it fails where the one run fails on it, or an error naming it. */
int cli_open_operand(struct cli *c, int i, struct gs_err *err);

/* The records' width (-c, a header, --header's names, -F on text: the
 * first line's fields) into the job and in, then -F's columns cut from
 * them (columns.c); name is the operand for errors. */
int cli_columns(struct cli *c, struct input *in, struct input_info *info,
		const char *name, struct gs_err *err);

/* Start the GPU's context on a thread of its own now (backend_prestart)
 * where the pass of operation op will want a GPU: with --backend cuda or
 * --devices whatever the job, under auto where its plan says so for c's
 * job made op, on the threads its accumulators leave, so c->job must be
 * what that pass will run (its fields set: a command asks for a later
 * pass from an earlier one's start, as hist2d's range pass does for its
 * counts). A cold file (cli_input_cold) that the pass before will not
 * leave in the page cache starts nothing: that pass is planned as the
 * cold file's, on the CPU. -v says when it starts. */
void cli_prestart(struct cli *c, enum gs_cmd op);

/* Whether auto plans a run over in (input_bytes long) as a cold file's,
 * as a pipe's (job.cold_input): a file mostly on disk, not compressed. */
bool cli_input_cold(const struct cli *c, const struct input *in,
		    int64_t input_bytes);

/* Pick the backend and run the job; acc may be NULL for scan. */
int cli_run(struct cli *c, struct input *in, struct input *in2,
	    int64_t input_bytes, struct sink *sink, void *acc,
	    struct engine_stats *st, struct gs_err *err);

/* Print "gpustat: WHERE: WHAT" (usage errors get the --help hint) and
 * return the exit status for it. */
int cli_report(const struct cli *c, const struct gs_err *err);

/* Print a note on stderr unless -q. */
void cli_note(const struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Finish a command: write its result b to the output and close it. Nothing
 * is written when an operand failed (exit 1: a number on stdout means every
 * input was read whole) or when b ran out of memory (an error, never a cut
 * result). Returns the exit status. */
struct sbuf;
int cli_finish(struct cli *c, const struct sbuf *b);

#endif
