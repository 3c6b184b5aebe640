/*
 * cli.c - see cli.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "sig.h"
#include "progress.h"
#include "report.h"

#define DEFAULT_CHUNK (64u << 20)	/* SPEC: 64 MiB */
#define DEFAULT_STREAMS 2

enum {
	OPT_ENDIAN = 1000, OPT_RAW, OPT_BACKEND, OPT_DEVICE, OPT_CHUNK,
	OPT_STREAMS, OPT_PROGRESS, OPT_NO_PROGRESS,
};

/* zstd window limits (input.c); apart from the enum above, in the range
 * that cli_parse hands to common_option */
enum { OPT_LONG = 1090, OPT_MEMORY };

static const struct option common_longopts[] = {
	{ "type", required_argument, NULL, 't' },
	{ "endian", required_argument, NULL, OPT_ENDIAN },
	{ "columns", required_argument, NULL, 'c' },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "long", optional_argument, NULL, OPT_LONG },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "chunk-size", required_argument, NULL, OPT_CHUNK },
	{ "streams", required_argument, NULL, OPT_STREAMS },
	{ "threads", required_argument, NULL, 'j' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};
static const char common_shortopts[] = "t:c:f:o:j:vqh";

/* ---- numbers ------------------------------------------------------------ */

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')	/* strtoull would skip white space and negate */
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);

	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int parse_size(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')	/* strtoull would skip white space and negate */
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if ((*end == 'i' && end[1] == 'B' && shift) || (*end == 'B' && shift))
		end += *end == 'i' ? 2 : 1;
	if (*end || (shift && x > (UINT64_MAX >> shift)))
		return -1;
	*v = (uint64_t)x << shift;
	return 0;
}

int parse_double(const char *s, double *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))	/* strtod skips it */
		return -1;
	errno = 0;
	double x = strtod(s, &end);

	if (errno == ERANGE && fabs(x) > 1)
		return -1;
	if (*end || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}

/* ---- messages ----------------------------------------------------------- */

int cli_report(const struct cli *c, const struct gs_err *err)
{
	/* a run stopped by a signal ends quietly, like one the signal killed */
	if (err->code >= GS_ESIGNAL || !err->what[0])
		return err->code ? err->code : GS_ERUNTIME;
	if (err->where[0])
		fprintf(stderr, "gpustat: %s: %s", err->where, err->what);
	else
		fprintf(stderr, "gpustat: %s", err->what);
	if (err->code == GS_EUSAGE)
		fprintf(stderr, " (try 'gpustat %s%s--help')",
			c && c->cmd ? c->cmd : "", c && c->cmd ? " " : "");
	fputc('\n', stderr);
	return err->code ? err->code : GS_ERUNTIME;
}

void cli_note(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	fputs("gpustat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void warn_operand(void *ctx, const struct gs_err *err)
{
	struct cli *c = ctx;

	c->operand_failed = true;
	if (!c->mute_operands)
		cli_report(c, err);
}

/* ---- options ------------------------------------------------------------ */

static int usage(struct gs_err *err, const char *fmt, const char *arg)
{
	return gs_fail(err, GS_EUSAGE, "", fmt, arg);
}

static int parse_format(const char *s, enum gs_format *f)
{
	static const char *const names[] = { "text", "tsv", "csv", "json",
					     "binary", "npy" };

	for (int i = 0; i < 6; i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum gs_format)i;
			return 0;
		}
	return -1;
}

static int parse_positive_int(const char *s, int *v, int max)
{
	uint64_t x;

	if (parse_u64(s, &x) < 0 || x < 1 || x > (uint64_t)max)
		return -1;
	*v = (int)x;
	return 0;
}

static const char *endian_name(bool big)
{
	return big ? "big" : "little";
}

/* One line that names every spelling -t accepts. */
static int unknown_type(struct gs_err *err, const char *arg)
{
	char names[400];

	type_list(names, sizeof(names));
	return gs_fail(err, GS_EUSAGE, "", "unknown type '%.40s' (valid: %s)",
		       arg, names);
}

static int common_option(struct cli *c, int opt, const char *arg,
			 struct gs_err *err)
{
	uint64_t u;
	bool explicit;
	struct gs_dtype d;

	switch (opt) {
	case 't':
		if (type_parse(arg, &d, &explicit) < 0)
			return unknown_type(err, arg);
		if (explicit && c->endian_set && c->big_endian != d.big_endian)
			return gs_fail(err, GS_EUSAGE, "", "-t '%s' contradicts "
				       "--endian %s", arg, endian_name(c->big_endian));
		c->job.dtype = d;
		c->type_set = true;
		c->type_endian = explicit;
		return 0;
	case OPT_ENDIAN:
		if (strcmp(arg, "little") && strcmp(arg, "big"))
			return usage(err, "--endian: expected little or big, not '%s'", arg);
		/* either order of -t '>f4' and --endian little is the same error */
		if (c->type_endian && c->job.dtype.big_endian != (strcmp(arg, "big") == 0))
			return gs_fail(err, GS_EUSAGE, "", "--endian %s contradicts "
				       "the %s-endian type of -t", arg,
				       endian_name(c->job.dtype.big_endian));
		c->endian_set = true;
		c->big_endian = strcmp(arg, "big") == 0;
		return 0;
	case 'c':
		if (parse_u64(arg, &u) < 0 || u < 1 || u > (1u << 20))
			return usage(err, "--columns: expected a count from 1 to 1048576, not '%s'", arg);
		c->job.columns = (unsigned)u;
		c->columns_set = true;
		return 0;
	case OPT_RAW:
		c->raw = true;
		return 0;
	case OPT_LONG:	/* as zstd -d --long=N: windows up to 2^N bytes */
		if (!arg)
			arg = "31";
		if (parse_u64(arg, &u) < 0 || u < 10 || u > 31)
			return usage(err, "--long: expected a window log from 10 to 31, not '%s'", arg);
		c->zstd_window = (uint64_t)1 << u;
		return 0;
	case OPT_MEMORY:	/* as zstd -d --memory=SIZE */
		if (parse_size(arg, &u) < 0 || u < 1024 || u > INPUT_ZSTD_WINDOW_MAX)
			return usage(err, "--memory: expected a size from 1K to 2G, not '%s'", arg);
		c->zstd_window = u;
		return 0;
	case 'f':
		if (parse_format(arg, &c->format) < 0)
			return usage(err, "unknown format '%s' (text, tsv, csv, json, binary, npy)", arg);
		c->format_set = true;
		return 0;
	case 'o':
		if (!*arg)
			return usage(err, "--output: expected a file name, not '%s'", arg);
		c->output = arg;
		return 0;
	case OPT_BACKEND:
		if (strcmp(arg, "auto") == 0)
			c->backend = BACKEND_AUTO;
		else if (strcmp(arg, "cpu") == 0)
			c->backend = BACKEND_CPU;
		else if (strcmp(arg, "cuda") == 0)
			c->backend = BACKEND_CUDA;
		else
			return usage(err, "unknown backend '%s' (auto, cuda, cpu)", arg);
		return 0;
	case OPT_DEVICE:
		if (parse_u64(arg, &u) < 0 || u > 1024)
			return usage(err, "--device: expected a GPU number, not '%s'", arg);
		c->eo.device = (int)u;
		return 0;
	case OPT_CHUNK:
		if (parse_size(arg, &u) < 0 || u == 0 || u > ((uint64_t)1 << 40))
			return usage(err, "--chunk-size: expected a size like 64M, not '%s'", arg);
		c->eo.chunk_size = (size_t)u;
		return 0;
	case OPT_STREAMS:
		if (parse_positive_int(arg, &c->eo.streams, 64) < 0)
			return usage(err, "--streams: expected 1 to 64, not '%s'", arg);
		return 0;
	case 'j':
		if (parse_positive_int(arg, &c->eo.threads, 64) < 0)
			return usage(err, "--threads: expected 1 to 64, not '%s'", arg);
		return 0;
	case 'v':
		c->verbose++;
		return 0;
	case 'q':
		c->quiet = true;
		c->progress = 0;
		return 0;
	case OPT_PROGRESS:
		c->progress = 1;
		return 0;
	case OPT_NO_PROGRESS:
		c->progress = 0;
		return 0;
	}
	return usage(err, "internal: unhandled option %s", "");
}

static int default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static void cli_defaults(struct cli *c)
{
	c->job.columns = 1;
	c->job.dtype.type = c->default_type;
	c->format = FMT_TEXT;
	c->backend = BACKEND_AUTO;
	c->eo.chunk_size = DEFAULT_CHUNK;
	c->eo.threads = default_threads();
	c->eo.streams = DEFAULT_STREAMS;
	c->eo.stall_ms = ENGINE_STALL_MS;
	c->progress = -1;
}

/* The common table followed by the command's, for getopt_long. */
static struct option *merge_longopts(const struct cmd_opts *co)
{
	size_t n1 = sizeof(common_longopts) / sizeof(common_longopts[0]) - 1;
	size_t n2 = 0;

	while (co && co->longopts && co->longopts[n2].name)
		n2++;
	struct option *all = calloc(n1 + n2 + 1, sizeof(*all));

	if (!all)
		return NULL;
	memcpy(all, common_longopts, n1 * sizeof(*all));
	if (n2)
		memcpy(all + n1, co->longopts, n2 * sizeof(*all));
	return all;
}

static bool is_common_short(int opt)
{
	return opt < 256 && strchr(common_shortopts, opt) != NULL;
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

int cli_parse(struct cli *c, int argc, char **argv, const struct cmd_opts *co,
	      struct gs_err *err)
{
	char shortopts[64];
	struct option *longopts = merge_longopts(co);
	int rc = 0, opt;

	if (!longopts)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	c->cmd = argv[0];
	cli_defaults(c);
	snprintf(shortopts, sizeof(shortopts), ":%s%s", common_shortopts,
		 co && co->shortopts ? co->shortopts : "");
	opterr = 0;
	optind = 0;		/* GNU: reinitialize */
	while (rc == 0 && (opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const char *bad = argv[optind - 1];

		if (opt == '?') {
			/* bad is not the option itself while getopt is
			 * still inside a cluster like -qx, and may be "" */
			rc = optopt && optopt < 256 &&
			     (bad[0] != '-' || (bad[1] != '-' && !strchr(bad, '=')))
				? gs_fail(err, GS_EUSAGE, "", "unknown option '-%c'", optopt)
				: bad[0] == '-' && bad[1] == '-'
				? unknown_long(err, bad, longopts)
				: usage(err, "unknown option '%s'", bad);
		} else if (opt == ':') {
			rc = usage(err, "option '%s' needs a value", bad);
		} else if (opt == 'h') {
			fputs(co->help, stdout);
			rc = 1;
		} else if (is_common_short(opt) || (opt >= 1000 && opt < 1100)) {
			rc = common_option(c, opt, optarg, err);
		} else {
			rc = co->handle(co->ctx, opt, optarg, err);
		}
	}
	free(longopts);
	if (rc)
		return rc;
	if (!c->type_set)
		c->job.dtype.type = c->default_type;
	if (c->endian_set)
		c->job.dtype.big_endian = c->big_endian;
	c->operands = argv + optind;
	c->noperands = argc - optind;
	return 0;
}

/* ---- running ------------------------------------------------------------ */

/* Whether -t's type a agrees with a header's b: the byte order counts only
 * where -t named one ('>f4', not f32), and numpy's bool is not u8. */
static bool same_dtype(struct gs_dtype a, struct gs_dtype b, bool order)
{
	return a.type == b.type && a.boolean == b.boolean &&
	       (type_size(a.type) == 1 || !order || a.big_endian == b.big_endian);
}

static const char *dtype_str(struct gs_dtype d, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s", type_name(d.type),
		 d.big_endian && type_size(d.type) > 1 ? " (big-endian)" : "");
	return buf;
}

/* Settle type and columns between the options and a header. */
static int settle_dtype(struct cli *c, const struct input_info *info,
			const char *name, struct gs_err *err)
{
	char a[40], b[40];

	if (info->has_type) {
		if (c->type_set &&
		    !same_dtype(c->job.dtype, info->dtype, c->type_endian))
			return gs_fail(err, GS_EUSAGE, name,
				       "-t %s contradicts the %s header (%s)",
				       dtype_str(c->job.dtype, a, sizeof(a)),
				       info->format,
				       dtype_str(info->dtype, b, sizeof(b)));
		if (c->endian_set && type_size(info->dtype.type) > 1 &&
		    c->big_endian != info->dtype.big_endian)
			return gs_fail(err, GS_EUSAGE, name,
				       "--endian %s contradicts the %s header (%s)",
				       c->big_endian ? "big" : "little",
				       info->format,
				       dtype_str(info->dtype, b, sizeof(b)));
		c->job.dtype = info->dtype;
	}
	if (info->columns) {
		if (c->columns_set && c->job.columns != info->columns)
			return gs_fail(err, GS_EUSAGE, name,
				       "--columns %u contradicts the %s header (%u columns)",
				       c->job.columns, info->format, info->columns);
		c->job.columns = info->columns;
	}
	return 0;
}

int cli_open_input(struct cli *c, char *const *paths, int npaths,
		   struct input **in, struct input_info *info, struct gs_err *err)
{
	struct input_opts io = { .raw = c->raw, .zstd_window = c->zstd_window,
				 .warn = warn_operand, .warn_ctx = c,
				 .stop_on_error = c->stop_on_operand };

	/* before anything is opened for writing (dot opens A and B apart) */
	if (!c->output_checked &&
	    out_check_inputs("-o", c->output, c->operands, c->noperands, err) < 0)
		return -1;
	c->output_checked = true;
	if (input_open(in, paths, npaths, &io, err) < 0)
		return -1;
	if (input_probe(*in, info, err) < 0)
		return -1;
	if (settle_dtype(c, info, npaths ? paths[0] : "stdin", err) < 0)
		return -1;
	input_set_dtype(*in, c->job.dtype, c->job.columns);
	if (c->verbose)
		fprintf(stderr, "gpustat: input: %s, %s, %u column%s\n",
			info->format, type_name(c->job.dtype.type),
			c->job.columns, c->job.columns == 1 ? "" : "s");
	return 0;
}

int cli_run(struct cli *c, struct input *in, struct input *in2,
	    int64_t input_bytes, struct sink *sink, void *acc,
	    struct engine_stats *st, struct gs_err *err)
{
	const char *why = "";
	const struct backend *be = backend_select(c->backend, &c->job,
						  input_bytes, c->eo.device,
						  &why, err);

	/* no result can come of it: the operand's line is the one to read */
	if (!be && c->operand_failed)
		err->what[0] = '\0';
	if (!be)
		return -1;
	if (c->verbose)
		fprintf(stderr, "gpustat: backend: %s (%d thread%s): %s\n",
			be->name, c->eo.threads, c->eo.threads == 1 ? "" : "s",
			why);
	/* static: after a backend error the engine leaves its reader
	 * running (it may sit in a blocking read), still counting into it */
	static struct progress p;
	bool show = progress_wanted(c->progress);

	if (show) {
		progress_start(&p, input_bytes, c->progress > 0);
		c->eo.counter = &p.bytes;
	}
	int rc = engine_run(&c->job, &c->eo, be, in, in2, sink, acc, st, err);

	if (show) {
		progress_stop(&p);
		c->eo.counter = NULL;
	}
	if (c->verbose && rc == 0) {
		char line[400];

		engine_stats_line(st, line, sizeof(line));
		fprintf(stderr, "gpustat: stages: %s\n", line);
	}
	if (c->verbose && be == &backend_auto) {
		char what[700];

		backend_auto_report(what, sizeof(what));
		fprintf(stderr, "gpustat: backend: %s\n", what);
	}
	return rc;
}

int cli_finish(struct cli *c, const struct sbuf *b)
{
	struct out o;
	struct gs_err err;

	/* a number on stdout means every input was read whole */
	if (c->operand_failed)
		return GS_ERUNTIME;
	if (b->oom) {
		gs_fail(&err, GS_ERUNTIME, "", "out of memory for the output");
		return cli_report(c, &err);
	}
	if (out_open(&o, c->output, &err) < 0)
		return cli_report(c, &err);
	if (out_write(&o, b->p, b->len, &err) < 0) {
		out_abort(&o);
		return cli_report(c, &err);
	}
	if (out_close(&o, &err) < 0)
		return cli_report(c, &err);
	return 0;
}
