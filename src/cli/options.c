/*
 * options.c - the options of a command, from its tables (struct opt_spec):
 * getopt_long's tables, the --help text, and `gpustat --options`, the
 * lines the completion and man page checks read. See command.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "command.h"
#include "mixedopt.h"

#define DEFAULT_CHUNK (64u << 20)	/* --chunk-size's default, 64 MiB */
#define DEFAULT_STREAMS 2

/* getopt's value for the command's option i: above every common id */
#define CMD_OPT_BASE 2000
/* getopt's value of a common option whose letter the command took: its
 * long form must not read as the command's letter (quantile's --quiet) */
#define COMMON_SHADOW 0x10000

static size_t count_opts(const struct opt_spec *o)
{
	size_t n = 0;

	while (o && o[n].name)
		n++;
	return n;
}

/* ---- parsing ------------------------------------------------------------ */

static int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static void cli_defaults(struct cli *c, const struct command *cmd)
{
	c->job.columns = 1;
	c->default_type = cmd->default_type;
	c->job.dtype.type = c->default_type;
	c->format = cmd->default_format;
	c->backend = BACKEND_AUTO;
	c->eo.chunk_size = DEFAULT_CHUNK;
	c->eo.threads = default_threads();
	c->eo.streams = DEFAULT_STREAMS;
	c->eo.stall_ms = ENGINE_STALL_MS;
	c->progress = -1;
	c->input_bytes = -1;
}

/* Whether cmd takes the common option o. */
static bool takes(const struct command *cmd, const struct opt_spec *o)
{
	return !(o->input && cmd->reads_no_data);
}

/* Whether one of cmd's own options has the letter ch: it takes the
 * letter from the common option (quantile's -q P from --quiet). */
static bool own_short(const struct command *cmd, char ch)
{
	for (size_t i = 0; ch && cmd->opts && cmd->opts[i].name; i++)
		if (cmd->opts[i].short_name == ch)
			return true;
	return false;
}

/* getopt_long's table: the common options cmd takes, then its own. */
static struct option *long_table(const struct command *cmd)
{
	size_t n1 = count_opts(common_opts), n2 = count_opts(cmd->opts), n = 0;
	struct option *all = calloc(n1 + n2 + 1, sizeof(*all));

	if (!all)
		return NULL;
	for (size_t i = 0; i < n1 + n2; i++) {
		const struct opt_spec *o = i < n1 ? &common_opts[i] : &cmd->opts[i - n1];

		if (i < n1 && !takes(cmd, o))
			continue;
		all[n].name = o->name;
		all[n].has_arg = o->has_arg;
		all[n++].val = i >= n1 ? CMD_OPT_BASE + (int)(i - n1) :
			       own_short(cmd, o->short_name) ? COMMON_SHADOW + o->id :
			       o->id;
	}
	return all;
}

/* getopt's short options: ':' first (a missing value is ':'), then each
 * letter with ':' for a value. */
static void short_table(const struct command *cmd, char *buf, size_t n)
{
	size_t used = 0;

	buf[used++] = ':';
	for (int pass = 0; pass < 2; pass++) {
		const struct opt_spec *o = pass ? cmd->opts : common_opts;

		for (size_t i = 0; o && o[i].name; i++) {
			if (!o[i].short_name || used + 3 >= n ||
			    (!pass && (!takes(cmd, &o[i]) ||
				       own_short(cmd, o[i].short_name))))
				continue;
			buf[used++] = o[i].short_name;
			if (o[i].has_arg == required_argument)
				buf[used++] = ':';
		}
	}
	buf[used] = '\0';
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Edit distance with adjacent transpositions ("scna" is one from "scan"),
 * of the first n bytes of a against b, row by row (the last three rows);
 * command and option names are short. */
static size_t edit_distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b), i, j;
	size_t rows[3][64], *prev2 = rows[0], *prev = rows[1], *row = rows[2], *t;

	if (n >= 64 || m >= 64)
		return SIZE_MAX;
	for (j = 0; j <= m; j++)
		prev[j] = j;
	for (i = 1; i <= n; i++) {
		row[0] = i;
		for (j = 1; j <= m; j++) {
			row[j] = min_size(prev[j - 1] + (a[i - 1] != b[j - 1]),
					  min_size(prev[j], row[j - 1]) + 1);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
				row[j] = min_size(row[j], prev2[j - 2] + 1);
		}
		t = prev2;
		prev2 = prev;
		prev = row;
		row = t;
	}
	return prev[m];
}

const char *cli_nearest(const char *word, size_t n, const char *const *names,
			size_t count)
{
	/* one edit for short words, two for longer ones, as a typo is */
	size_t best = n <= 4 ? 1 : 2, i;
	const char *found = NULL;

	for (i = 0; i < count; i++) {
		size_t d = edit_distance(word, n, names[i]);

		if (d <= best && (d < best || !found)) {
			best = d;
			found = names[i];
		}
	}
	return found;
}

/* getopt_long takes any unique prefix ("--prog"); one that is not unique
 * gets the candidates named. */
static bool ambiguous(struct gs_err *err, const char *word, size_t len,
		      const char *const *names, size_t n)
{
	char list[200] = "";
	size_t used = 0, hits = 0;

	for (size_t i = 0; len && i < n && used < sizeof(list); i++)
		if (!strncmp(names[i], word, len) && names[i][len]) {
			used += (size_t)snprintf(list + used, sizeof(list) - used,
						 "%s--%s", hits ? ", " : "", names[i]);
			hits++;
		}
	if (hits < 2)
		return false;
	gs_fail(err, GS_EUSAGE, "", "option '--%.*s' is ambiguous (%s)",
		(int)len, word, list);
	return true;
}

/* "unknown option '--bnis'; did you mean '--bins'?" */
static int unknown_long(struct gs_err *err, const char *bad,
			const struct option *longopts)
{
	const char *names[128];
	size_t n = 0, len;
	const char *near;

	while (longopts[n].name && n < 128) {
		names[n] = longopts[n].name;
		n++;
	}
	bad += 2;
	len = strcspn(bad, "=");
	if (ambiguous(err, bad, len, names, n))
		return -1;
	near = cli_nearest(bad, len, names, n);
	if (!near)
		return gs_fail(err, GS_EUSAGE, "", "unknown option '--%.*s'",
			       (int)len, bad);
	return gs_fail(err, GS_EUSAGE, "", "unknown option '--%.*s'; did you "
		       "mean '--%s'?", (int)len, bad, near);
}

/* What getopt_long's '?' was: an unknown short option, long option, or
 * word. bad is not the option itself while getopt is still inside a
 * cluster like -qx, and may be "". */
static int unknown(struct gs_err *err, const char *bad,
		   const struct option *longopts)
{
	if (optopt && optopt < 256 &&
	    (bad[0] != '-' || (bad[1] != '-' && !strchr(bad, '='))))
		return gs_fail(err, GS_EUSAGE, "", "unknown option '-%c'", optopt);
	if (bad[0] == '-' && bad[1] == '-')
		return unknown_long(err, bad, longopts);
	return gs_fail(err, GS_EUSAGE, "", "unknown option '%s'", bad);
}

/* The command's option with getopt value opt, or its short letter. */
static const struct opt_spec *command_opt(const struct command *cmd, int opt)
{
	size_t n = count_opts(cmd->opts);

	if (opt >= CMD_OPT_BASE && (size_t)(opt - CMD_OPT_BASE) < n)
		return &cmd->opts[opt - CMD_OPT_BASE];
	for (size_t i = 0; i < n; i++)
		if (opt < 256 && cmd->opts[i].short_name == opt)
			return &cmd->opts[i];
	return NULL;
}

int cli_parse(struct cli *c, int argc, char **argv, const struct command *cmd,
	      struct gs_err *err)
{
	char shortopts[64];
	struct option *longopts = long_table(cmd);
	const struct opt_spec *o;
	int rc = 0, opt;

	if (!longopts)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	c->cmd = argv[0];
	c->command = cmd;
	cli_defaults(c, cmd);
	if (cmd->init)
		cmd->init(c);
	short_table(cmd, shortopts, sizeof(shortopts));
	opterr = 0;
	optind = 0;		/* GNU: reinitialize */
	while (rc == 0 && (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (opt == '?')
			rc = unknown(err, argv[optind - 1], longopts);
		else if (opt == ':')
			rc = gs_fail(err, GS_EUSAGE, "", "option '%s' needs a value",
				     argv[optind - 1]);
		else if (opt >= COMMON_SHADOW)
			rc = cli_common_option(c, opt - COMMON_SHADOW, optarg, err);
		else if (opt == 'h')
			rc = (command_help(cmd, stdout), 1);
		else if ((o = command_opt(cmd, opt)) != NULL)
			rc = cmd->option(c, o->id, optarg, err);
		else
			rc = cli_common_option(c, opt, optarg, err);
	}
	free(longopts);
	if (rc)
		return rc;
	if (!c->type_set)
		c->job.dtype.type = c->default_type;
	if (c->endian_set)
		c->job.dtype.big_endian = c->big_endian;
	if (c->record.n && cli_record_options(c, err) < 0)
		return -1;
	c->operands = argv + optind;
	c->noperands = argc - optind;
	return 0;
}

/* ---- --help --------------------------------------------------------------- */

/* "  -t, --type TYPE       element type ...", the help's later lines
 * indented under its first. */
static void help_line(FILE *f, const struct opt_spec *o, const char *help)
{
	char left[64];
	const char *p = help;

	snprintf(left, sizeof(left), "  %c%c%c --%s%s%s",
		 o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
		 o->short_name ? ',' : ' ', o->name, o->arg ? " " : "",
		 o->arg ? o->arg : "");
	fprintf(f, "%-23s ", left);
	for (;;) {
		size_t n = strcspn(p, "\n");

		fprintf(f, "%.*s\n", (int)n, p);
		if (!p[n])
			break;
		p += n + 1;
		fprintf(f, "%24s", "");
	}
}

static void help_opts(FILE *f, const struct command *cmd,
		      const struct opt_spec *o)
{
	const char *section = NULL;
	bool common = o == common_opts;

	for (; o && o->name; o++) {
		section = o->section ? o->section : section;
		if (o->input && cmd->reads_no_data)
			continue;
		if (section) {
			fprintf(f, "%s\n", section);
			section = NULL;
		}
		struct opt_spec own = *o;

		if (common && own_short(cmd, o->short_name))
			own.short_name = 0;	/* the command's letter now */
		if (o->id == 'f' && o == &common_opts[count_opts(common_opts) - 1])
			help_line(f, &own, cmd->formats_help);
		else if (common && cmd->per_file_help &&
			 strcmp(o->name, "per-file") == 0)
			help_line(f, &own, cmd->per_file_help);
		else if (o->help)
			help_line(f, &own, o->help);
	}
}

void command_help(const struct command *cmd, FILE *f)
{
	const char *u = cmd->usage;

	for (int first = 1; *u; first = 0) {
		size_t n = strcspn(u, "\n");

		fprintf(f, "%s gpustat %s %.*s\n", first ? "Usage:" : "   or:",
			cmd->name, (int)n, u);
		u += n + (u[n] != '\0');
	}
	fprintf(f, "%s\n\n", cmd->about);
	help_opts(f, cmd, cmd->opts);
	help_opts(f, cmd, common_opts);
	fprintf(f, "\nExamples:\n");
	for (const char *e = cmd->examples; *e;) {
		size_t n = strcspn(e, "\n");

		fprintf(f, "  %.*s\n", (int)n, e);
		e += n + (e[n] != '\0');
	}
}

/* ---- gpustat --options and --commands ------------------------------------ */

/* The type names -t takes, for completion: gpustat's and numpy's names,
 * not numpy's one-letter codes or typestrings (type_list's tail). */
static void type_words(FILE *f)
{
	char list[1024], *w, *save = NULL;

	type_list(list, sizeof(list));
	list[strcspn(list, ",")] = ' ';		/* ", " after gpustat's own */
	list[strcspn(list, ",")] = '\0';	/* ", or typestrings like ..." */
	for (w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (strlen(w) > 1)
			fprintf(f, "%s%s", w == list ? "" : " ", w);
}

static void dump_opt(FILE *f, const char *cmd, const struct opt_spec *o,
		     const char *values)
{
	const char *brief = o->brief ? o->brief : o->help ? o->help : "-";

	fprintf(f, "%s\t--%s\t", cmd, o->name);
	if (o->short_name)
		fprintf(f, "-%c", o->short_name);
	else
		fputc('-', f);
	fprintf(f, "\t%s\t", o->arg ? o->arg :
		o->has_arg == optional_argument ? "[=N]" : "-");
	if (values && strcmp(values, "@type") == 0)
		type_words(f);
	else
		fputs(values ? values : "-", f);
	fprintf(f, "\t%.*s\n", (int)strcspn(brief, "\n"), brief);
}

void command_dump_options(const struct command *const *cmds, size_t n, FILE *f)
{
	const struct opt_spec *o;

	/* under "*" those of every command; -f is each command's, with its
	 * formats, and the input options those of the commands that read */
	for (o = common_opts; o->name; o++)
		if (o->id != 'f' && !o->input)
			dump_opt(f, "*", o, o->values);
	for (size_t i = 0; i < n; i++) {
		for (o = cmds[i]->opts; o && o->name; o++)
			dump_opt(f, cmds[i]->name, o, o->values);
		for (o = common_opts; o->name; o++)
			if (o->id == 'f')
				dump_opt(f, cmds[i]->name, o, cmds[i]->formats);
			else if (o->input && takes(cmds[i], o))
				dump_opt(f, cmds[i]->name, o, o->values);
	}
}

void command_dump_commands(const struct command *const *cmds, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\t%s\n", cmds[i]->name, cmds[i]->summary);
}
