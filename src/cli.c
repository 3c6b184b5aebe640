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

#define DEFAULT_CHUNK (64u << 20)	/* SPEC: 64 MiB */
#define DEFAULT_STREAMS 2

enum {
	OPT_ENDIAN = 1000, OPT_RAW, OPT_BACKEND, OPT_DEVICE, OPT_CHUNK,
	OPT_STREAMS, OPT_PROGRESS, OPT_NO_PROGRESS,
};

static const struct option common_longopts[] = {
	{ "type", required_argument, NULL, 't' },
	{ "endian", required_argument, NULL, OPT_ENDIAN },
	{ "columns", required_argument, NULL, 'c' },
	{ "raw", no_argument, NULL, OPT_RAW },
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

static const char *const op_names[] = {
	[OP_SUM] = "sum", [OP_PROD] = "prod", [OP_MIN] = "min",
	[OP_MAX] = "max", [OP_AND] = "and", [OP_OR] = "or", [OP_XOR] = "xor",
};

int parse_op(const char *s, enum gs_op *op)
{
	for (int i = 0; i <= OP_XOR; i++)
		if (strcmp(s, op_names[i]) == 0) {
			*op = (enum gs_op)i;
			return 0;
		}
	return -1;
}

const char *op_name(enum gs_op op)
{
	return op_names[op];
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

static int common_option(struct cli *c, int opt, const char *arg,
			 struct gs_err *err)
{
	uint64_t u;
	bool explicit;

	switch (opt) {
	case 't':
		if (type_parse(arg, &c->job.dtype, &explicit) < 0)
			return usage(err, "unknown type '%s'", arg);
		c->type_set = true;
		if (explicit)
			c->endian_set = false;
		return 0;
	case OPT_ENDIAN:
		if (strcmp(arg, "little") && strcmp(arg, "big"))
			return usage(err, "--endian: expected little or big, not '%s'", arg);
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
	case 'f':
		if (parse_format(arg, &c->format) < 0)
			return usage(err, "unknown format '%s' (text, tsv, csv, json, binary, npy)", arg);
		c->format_set = true;
		return 0;
	case 'o':
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

static bool same_dtype(struct gs_dtype a, struct gs_dtype b)
{
	return a.type == b.type &&
	       (type_size(a.type) == 1 || a.big_endian == b.big_endian);
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
		if (c->type_set && !same_dtype(c->job.dtype, info->dtype))
			return gs_fail(err, GS_EUSAGE, name,
				       "-t %s contradicts the %s header (%s)",
				       dtype_str(c->job.dtype, a, sizeof(a)),
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
	struct input_opts io = { .raw = c->raw, .warn = warn_operand, .warn_ctx = c };

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

int cli_finish_text(struct cli *c, const void *text, size_t n)
{
	struct out o;
	struct gs_err err;

	if (out_open(&o, c->output, &err) < 0 ||
	    out_write(&o, text, n, &err) < 0 || out_close(&o, &err) < 0)
		return cli_report(c, &err);
	return c->operand_failed ? GS_ERUNTIME : 0;
}
