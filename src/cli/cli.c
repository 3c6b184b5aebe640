/*
 * cli.c - see cli.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "mixedopt.h"
#include "algorithm.h"
#include "command.h"
#include "fields.h"
#include "sig.h"
#include "suffix.h"
#include "progress.h"
#include "report.h"
#include "timeline.h"

enum {
	OPT_ENDIAN = 1000, OPT_RAW, OPT_BACKEND, OPT_DEVICE, OPT_DEVICES, OPT_CHUNK,
	OPT_STREAMS, OPT_PROGRESS, OPT_NO_PROGRESS, OPT_LONG, OPT_MEMORY,
	OPT_PER_FILE, OPT_TEXT,
	OPT_FORMAT = 'f', OPT_HEADER = 'H', OPT_FIELDS = 'F',
};

/* The options of every command, in the order of their --help. -f's help
 * is the command's (formats_help); --no-progress is told in --progress's. */
const struct opt_spec common_opts[] = {
	{ .name = "type",
	  .short_name = 't',
	  .has_arg = required_argument,
	  .arg = "TYPE",
	  .help = "element type: u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16\n"
		  "f32 f64, or as numpy spells it (float32, <f4, >i2,\n"
		  "|u1, float = f64, int = i64, bool = u8 of 0 and 1);\n"
		  "without it, as the files' names end (x.f64, x.i16.zst);\n"
		  "a list (i32,f32) types each column of a record",
	  .values = "@type",
	  .id = 't',
	  .section = "Input and type:",
	  .brief = "element type",
	  .input = true },
	{ .name = "endian",
	  .has_arg = required_argument,
	  .arg = "E",
	  .help = "little (default) or big; a -t with a byte order\n"
		  "(>f4) must agree",
	  .values = "little big",
	  .id = OPT_ENDIAN,
	  .brief = "byte order",
	  .input = true },
	{ .name = "columns",
	  .short_name = 'c',
	  .has_arg = required_argument,
	  .arg = "N",
	  .help = "records of N interleaved values; one result per column",
	  .id = 'c',
	  .input = true },
	{ .name = "raw",
	  .has_arg = no_argument,
	  .help = "read the bytes as they are: no detection of text,\n"
		  "zstd, gzip, .npy or PGM/PPM; with -t, no type from\n"
		  "the files' names",
	  .id = OPT_RAW,
	  .brief = "read the bytes as they are",
	  .input = true },
	{ .name = "text",
	  .has_arg = no_argument,
	  .help = "decimal numbers as text, split by white space or\n"
		  "commas (one record per line with -c), each rounded\n"
		  "correctly to the type (default f64)",
	  .id = OPT_TEXT,
	  .brief = "read decimal numbers as text",
	  .input = true },
	{ .name = "header",
	  .short_name = 'H',
	  .has_arg = no_argument,
	  .help = "the first line of each text operand names the\n"
		  "columns (the same line in each); implies --text",
	  .id = OPT_HEADER,
	  .brief = "the first line of text names the columns",
	  .input = true },
	{ .name = "fields",
	  .short_name = 'F',
	  .has_arg = required_argument,
	  .arg = "LIST",
	  .help = "only these columns, in this order: numbers from 1,\n"
		  "ranges as cut -f has them (2-4, 3-, -2), or --header's\n"
		  "names; -c N stays the records' width",
	  .id = OPT_FIELDS,
	  .brief = "the columns to read, in order",
	  .input = true },
	{ .name = "long",
	  .has_arg = optional_argument,
	  .help = "allow zstd windows up to 2^31 bytes (--long=N: 2^N);\n"
		  "without it, windows over 128M are refused",
	  .id = OPT_LONG,
	  .brief = "allow zstd windows up to 2^N bytes",
	  .input = true },
	{ .name = "memory",
	  .has_arg = required_argument,
	  .arg = "SIZE",
	  .help = "zstd frames with windows up to SIZE (at most 2G)",
	  .id = OPT_MEMORY,
	  .input = true },
	{ .name = "backend",
	  .has_arg = required_argument,
	  .arg = "B",
	  .help = "auto (default), cuda, cpu",
	  .values = "auto cuda cpu",
	  .id = OPT_BACKEND,
	  .section = "Execution:",
	  .brief = "where to run",
	  .input = true },
	{ .name = "device",
	  .has_arg = required_argument,
	  .arg = "N",
	  .help = "the GPU to use",
	  .id = OPT_DEVICE,
	  .input = true },
	{ .name = "devices",
	  .has_arg = required_argument,
	  .arg = "LIST",
	  .help = "spread the chunks over these GPUs: 0,1 or all\n"
		  "(a GPU listed twice runs two pipelines)",
	  .values = "all",
	  .id = OPT_DEVICES,
	  .brief = "the GPUs to spread the chunks over",
	  .input = true },
	{ .name = "chunk-size",
	  .has_arg = required_argument,
	  .arg = "SIZE",
	  .help = "bytes per chunk, with K/M/G (default 64M)",
	  .id = OPT_CHUNK,
	  .input = true },
	{ .name = "streams",
	  .has_arg = required_argument,
	  .arg = "N",
	  .help = "CUDA streams (default 2)",
	  .id = OPT_STREAMS,
	  .input = true },
	{ .name = "threads",
	  .short_name = 'j',
	  .has_arg = required_argument,
	  .arg = "N",
	  .help = "CPU threads (default: all cores)",
	  .id = 'j',
	  .input = true },
	{ .name = "verbose",
	  .short_name = 'v',
	  .has_arg = no_argument,
	  .help = "say which backend runs, why, and where the time goes",
	  .id = 'v' },
	{ .name = "quiet",
	  .short_name = 'q',
	  .has_arg = no_argument,
	  .help = "no notes or progress; errors only",
	  .id = 'q' },
	{ .name = "progress",
	  .has_arg = no_argument,
	  .help = "show progress on stderr; --no-progress hides it",
	  .id = OPT_PROGRESS,
	  .input = true },
	{ .name = "no-progress",
	  .has_arg = no_argument,
	  .id = OPT_NO_PROGRESS,
	  .brief = "hide progress",
	  .input = true },
	{ .name = "help",
	  .short_name = 'h',
	  .has_arg = no_argument,
	  .help = "this help",
	  .id = 'h',
	  .brief = "show the options and exit" },
	{ .name = "per-file",
	  .has_arg = no_argument,
	  .help = "one result per operand, then their total (as wc):\n"
		  "each operand read as one run over them all reads it",
	  .id = OPT_PER_FILE,
	  .section = "Output:",
	  .brief = "one result per operand, and a total" },
	{ .name = "output",
	  .short_name = 'o',
	  .has_arg = required_argument,
	  .arg = "FILE",
	  .help = "write to FILE instead of stdout",
	  .values = "@file",
	  .id = 'o' },
	{ .name = "format",
	  .short_name = 'f',
	  .has_arg = required_argument,
	  .arg = "FMT",
	  .id = OPT_FORMAT,
	  .brief = "output format" },
	{ .name = NULL },
};

/* ---- messages ----------------------------------------------------------- */

int cli_report(const struct cli *c, const struct gs_err *err)
{
	/* a run stopped by a signal ends quietly, like one the signal killed;
	 * a write past ulimit -f (SIGXFSZ's status) names its file */
	if ((err->code >= GS_ESIGNAL && !err->where[0]) || !err->what[0])
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

static const char *const format_names[] = { "text", "tsv", "csv", "json",
					    "binary", "npy", "state", "pgm",
					    "png" };

const char *format_name(enum gs_format f)
{
	return format_names[f];
}

static int parse_format(const char *s, enum gs_format *f)
{
	for (int i = 0; i < GS_NFORMATS; i++)
		if (strcmp(s, format_names[i]) == 0) {
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

int cli_unknown_type(struct gs_err *err, const char *opt, const char *arg)
{
	const char *words[128], *near;
	char names[400], hint[80] = "";
	size_t n = type_spellings(words, 128), k = 0;

	/* numpy's one-letter codes are one edit from any letter */
	for (size_t i = 0; i < n; i++)
		if (strlen(words[i]) > 1)
			words[k++] = words[i];
	near = cli_nearest(arg, strlen(arg), words, k);
	if (near)
		snprintf(hint, sizeof(hint), "; did you mean '%s'?", near);
	type_list(names, sizeof(names));
	return gs_fail(err, GS_EUSAGE, "", "%sunknown type '%.40s'%s (valid: %s)",
		       opt, arg, hint, names);
}

/* -t, --endian, -c, --raw, --long, --memory: how the input is read. */
static int input_option(struct cli *c, int opt, const char *arg,
			struct gs_err *err)
{
	uint64_t u;
	bool explicit;
	struct gs_dtype d;

	switch (opt) {
	case 't':
		c->record.n = 0;
		if (strchr(arg, ','))
			return cli_type_list(c, arg, err);
		if (type_parse(arg, &d, &explicit) < 0)
			return cli_unknown_type(err, "", arg);
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
		c->columns_set = c->columns_given = true;
		return 0;
	case OPT_RAW:
		c->raw = true;
		return 0;
	case OPT_TEXT:	/* numpy.loadtxt's and float()'s type, unless -t */
		c->text = true;
		c->default_type = GS_F64;
		return 0;
	case OPT_HEADER:	/* text, read as --text reads it */
		c->header = true;
		c->default_type = GS_F64;
		return 0;
	case OPT_FIELDS:
		fields_free(c->fields);
		c->fields = NULL;
		c->fields_arg = arg;
		return fields_parse(arg, &c->fields, err);
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
	}
	return 1;
}

static int parse_backend(const char *arg, enum backend_choice *b)
{
	static const char *const names[] = { "auto", "cpu", "cuda" };
	static const enum backend_choice choices[] = { BACKEND_AUTO, BACKEND_CPU,
						       BACKEND_CUDA };

	for (int i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0) {
			*b = choices[i];
			return 0;
		}
	return -1;
}

/* --devices all, or a comma-separated list of at most GS_MAX_DEVICES
 * GPUs; one GPU is --device's. */
static int parse_devices(struct cli *c, const char *arg, struct gs_err *err)
{
	const char *p = arg;
	uint64_t u;
	char num[24];
	size_t k;

	if (strcmp(arg, "all") == 0) {
		c->eo.ndevices = -1;
		return 0;
	}
	for (c->eo.ndevices = 0; c->eo.ndevices < GS_MAX_DEVICES; p += k + 1) {
		k = strcspn(p, ",");
		if (k == 0 || k >= sizeof(num))
			break;
		memcpy(num, p, k);
		num[k] = '\0';
		if (parse_u64(num, &u) < 0 || u > 1023)
			break;
		c->eo.devices[c->eo.ndevices++] = (int)u;
		if (!p[k]) {
			c->eo.device = c->eo.devices[0];
			c->eo.ndevices = c->eo.ndevices > 1 ? c->eo.ndevices : 0;
			return 0;
		}
	}
	return usage(err, "--devices: expected all or GPU numbers like 0,1 "
		     "(at most 16), not '%s'", arg);
}

/* --backend, --device, --chunk-size, --streams, -j: how the run computes. */
static int run_option(struct cli *c, int opt, const char *arg,
		      struct gs_err *err)
{
	uint64_t u;

	switch (opt) {
	case OPT_BACKEND:
		if (parse_backend(arg, &c->backend) < 0)
			return usage(err, "unknown backend '%s' (auto, cuda, cpu)", arg);
		return 0;
	case OPT_DEVICES:
		return parse_devices(c, arg, err);
	case OPT_DEVICE:
		if (parse_u64(arg, &u) < 0 || u > 1024)
			return usage(err, "--device: expected a GPU number, not '%s'", arg);
		c->eo.device = (int)u;
		return 0;
	case OPT_CHUNK:
		if (parse_size(arg, &u) < 0 || u == 0 || u > ((uint64_t)1 << 40))
			return usage(err, "--chunk-size: expected a size like 64M, not '%s'", arg);
		c->eo.chunk_size = (size_t)u;
		c->chunk_set = true;
		return 0;
	case OPT_STREAMS:
		if (parse_positive_int(arg, &c->eo.streams, 64) < 0)
			return usage(err, "--streams: expected 1 to 64, not '%s'", arg);
		return 0;
	case 'j':
		if (parse_positive_int(arg, &c->eo.threads, 64) < 0)
			return usage(err, "--threads: expected 1 to 64, not '%s'", arg);
		c->threads_set = true;
		return 0;
	}
	return 1;
}

/* -f, -o, -v, -q, --progress, --no-progress, --per-file: what the run
 * tells. */
static int output_option(struct cli *c, int opt, const char *arg,
			 struct gs_err *err)
{
	switch (opt) {
	case OPT_FORMAT:
		if (parse_format(arg, &c->format) < 0)
			return usage(err, "unknown format '%s' (text, tsv, csv, json, binary, npy, state, pgm, png)", arg);
		c->format_set = true;
		return 0;
	case 'o':
		if (!*arg)
			return usage(err, "--output: expected a file name, not '%s'", arg);
		c->output = arg;
		return 0;
	case 'v':
		c->verbose++;
		timeline_enable();
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
	case OPT_PER_FILE:
		c->per_file = true;
		return 0;
	}
	return 1;
}

int cli_common_option(struct cli *c, int id, const char *arg,
		      struct gs_err *err)
{
	int rc = input_option(c, id, arg, err);

	if (rc == 1)
		rc = run_option(c, id, arg, err);
	if (rc == 1)
		rc = output_option(c, id, arg, err);
	return rc == 1 ? usage(err, "internal: unhandled option %s", "") : rc;
}

/* --algorithm: one of the words of the command's row (algorithm.h). */
int cli_algorithm_option(struct cli *c, const char *arg, struct gs_err *err)
{
	const struct opt_spec *o = c->command->opts;

	while (o->name && o->id != OPT_ALGORITHM)
		o++;
	if (o->name && algo_parse(arg, o->values, &c->job.algo) == 0)
		return 0;
	return gs_fail(err, GS_EUSAGE, "", "--algorithm: %s has no algorithm "
		       "'%s' (%s)", c->cmd, arg, o->name ? o->values : "none");
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
	char a[200], b[40];

	if (info->has_type && info->rec)
		return cli_settle_record(c, info, name, err);
	if (info->has_type && c->job.rec)
		return gs_fail(err, GS_EUSAGE, name, "-t %s contradicts the %s "
			       "header (%s)", record_name(c->job.rec, a,
			       sizeof(a)), info->format,
			       dtype_str(info->dtype, b, sizeof(b)));
	if (info->has_type) {
		if (c->type_from_name && c->job.dtype.type != info->dtype.type)
			return gs_fail(err, GS_EUSAGE, name, "the %s header (%s) "
				       "contradicts the name %.200s (%s)",
				       info->format,
				       dtype_str(info->dtype, b, sizeof(b)),
				       c->type_from_name,
				       type_name(c->job.dtype.type));
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

#define CHUNK_FLOOR ((size_t)1 << 20)
#define CHUNK_ONE_STREAM ((size_t)8 << 20)

/* Open paths and settle the job with what they say. continued: they are
 * operands of the stream that cli_open_input opened before, read as that
 * stream reads them (cli_open_operand). */
static int open_input(struct cli *c, char *const *paths, int npaths,
		      bool continued, struct input **in, struct input_info *info,
		      struct gs_err *err)
{
	struct input_opts io = { .raw = c->raw, .zstd_window = c->zstd_window,
				 .threads = c->eo.threads,
				 .warn = warn_operand, .warn_ctx = c,
				 .stop_on_error = c->stop_on_operand,
				 .text = c->text || c->header,
				 .text_lines = c->columns_given || c->header ||
					       c->fields || c->by,
				 .header = c->header,
				 .count_line = (c->fields || c->by) &&
					       !c->columns_given,
				 .words = c->by || c->fields,
				 .continued = continued &&
					      (c->text_found || !(c->text || c->header)) };

	/* before anything is opened for writing (dot opens A and B apart) */
	if (!c->output_checked &&
	    (out_check_inputs("-o", c->output, c->operands, c->noperands, err) < 0 ||
	     suffix_settle(c, err) < 0))
		return -1;
	c->output_checked = true;
	if (c->width)	/* -F cut the records of an input before */
		c->job.columns = c->width;
	if (c->record.n) {	/* ...and of mixed types: the whole record */
		c->job.rec = &c->record;
		c->job.dtype = (struct gs_dtype){ .type = GS_U8 };
		c->job.columns = c->record.n;
	}
	if (input_open(in, paths, npaths, &io, err) < 0)
		return -1;
	/* a header is checked against the stream's type as the one run does */
	if (continued) {
		input_set_dtype(*in, c->job.dtype, c->job.columns);
		input_set_record(*in, c->job.rec);
	}
	if (input_probe(*in, info, err) < 0)
		return -1;
	/* decimal text found without --text: the run reads it as --text
	 * does (f64 unless -t or a name says), every later input of it too */
	if ((info->text || c->text || c->header) && c->job.rec)
		return gs_fail(err, GS_EUSAGE, npaths ? paths[0] : "stdin",
			       "records of mixed types (-t list) are read from "
			       "binary data; text is read into one type");
	if (info->text && !c->text) {
		c->text = c->text_found = true;
		c->default_type = GS_F64;
		if (!c->type_set && !c->type_from_name)
			c->job.dtype = (struct gs_dtype){ .type = GS_F64 };
	}
	if (settle_dtype(c, info, npaths ? paths[0] : "stdin", err) < 0 ||
	    cli_columns(c, *in, info, input_name(*in), err) < 0)
		return -1;
	/* by default no chunk larger than the input: a small one then pins
	 * (CUDA) and copies no more than it needs; the floor keeps chunks of
	 * a file that grows while read from becoming tiny */
	if (info->total_bytes >= 0 && !c->chunk_set) {
		uint64_t want = (uint64_t)info->total_bytes;

		if (want < CHUNK_FLOOR)
			want = CHUNK_FLOOR;
		if (want < c->eo.chunk_size)
			c->eo.chunk_size = (size_t)want;
	}
	/* zstd decoded on one thread fills small chunks: their pages are
	 * cleared once by the kernel (the 256 MiB of 64 MiB ones took a
	 * quarter of a run over 1 GiB) and stay in the cache between the
	 * decoder and the computation */
	if (info->one_stream && !c->chunk_set &&
	    c->eo.chunk_size > CHUNK_ONE_STREAM)
		c->eo.chunk_size = CHUNK_ONE_STREAM;
	/* ...and leaves its core to the decoder: a thread computing on every
	 * core took it from the decoder at each chunk */
	if (info->one_stream && !c->threads_set && !c->core_left &&
	    c->eo.threads > 2) {
		c->eo.threads--;	/* once: every operand opens an input */
		c->core_left = true;
	}
	if (c->verbose) {
		char from[240] = "";

		if (c->type_from_name && !info->has_type)
			snprintf(from, sizeof(from), " (from the name %.200s)",
				 c->type_from_name);
		char rec[200];

		fprintf(stderr, "gpustat: input: %s, %s%s, %u column%s\n",
			info->format, c->job.rec ? record_name(c->job.rec, rec,
			sizeof(rec)) : type_name(c->job.dtype.type), from,
			c->job.columns, c->job.columns == 1 ? "" : "s");
	}
	return 0;
}

int cli_open_input(struct cli *c, char *const *paths, int npaths,
		   struct input **in, struct input_info *info, struct gs_err *err)
{
	return open_input(c, paths, npaths, false, in, info, err);
}

int cli_open_operand(struct cli *c, int i, struct gs_err *err)
{
	struct gs_job job = c->job;
	struct input_info info;

	if (open_input(c, &c->operands[i], 1, true, &c->in, &info, err) < 0)
		return -1;
	c->input_bytes = info.total_bytes;
	if (c->job.dtype.type != job.dtype.type || c->job.columns != job.columns ||
	    c->job.dtype.big_endian != job.dtype.big_endian)
		return gs_fail(err, GS_ERUNTIME, c->operands[i], "--per-file: "
			       "read alone, it is not the stream's %s of %u "
			       "column%s", type_name(job.dtype.type), job.columns,
			       job.columns == 1 ? "" : "s");
	return 0;
}

int cli_run(struct cli *c, struct input *in, struct input *in2,
	    int64_t input_bytes, struct sink *sink, void *acc,
	    struct engine_stats *st, struct gs_err *err)
{
	const char *why = "";
	double t0 = timeline_now();

	timeline_run_begin();
	/* a cold file comes at its disk's rate: auto plans it as a pipe's */
	c->job.cold_input = cli_input_cold(c, in, input_bytes);
	if (c->verbose && c->job.cold_input)
		fputs("gpustat: input: a file mostly on disk\n", stderr);
	/* --backend cuda creates the GPU's context here (its probe) */
	const struct backend *be = backend_select(c->backend, &c->job,
						  input_bytes, c->info.compressed,
						  c->eo.threads,
						  c->eo.device, c->eo.ndevices,
						  &why, err);

	timeline_add(TL_SELECT, timeline_now() - t0);

	/* no result can come of it: the operand's line is the one to read */
	if (!be && c->operand_failed)
		err->what[0] = '\0';
	if (!be)
		return -1;
	if (c->verbose)
		fprintf(stderr, "gpustat: backend: %s (%d thread%s): %s\n",
			be->name, c->eo.threads, c->eo.threads == 1 ? "" : "s",
			why);
	if (c->verbose && c->job.algo != ALGO_DEFAULT)
		fprintf(stderr, "gpustat: algorithm: %s\n",
			algo_name(c->job.algo));
	/* static: after a backend error the engine leaves its reader
	 * running (it may sit in a blocking read), still counting into it */
	static struct progress p;
	bool show = progress_wanted(c->progress);

	if (show) {
		progress_start(&p, input_bytes, c->progress > 0);
		c->eo.counter = &p.bytes;
	}
	c->eo.input_bytes = input_bytes;
	int rc = engine_run(&c->job, &c->eo, be, in, in2, sink, acc, st, err);

	timeline_add(TL_BUFFERS, st->alloc);
	timeline_add(TL_OPEN, st->open);
	timeline_add(TL_TEARDOWN, st->teardown);
	if (st->wall > 0)
		timeline_add(TL_RUN, st->wall - st->setup - st->teardown);
	timeline_run_end();

	if (show) {
		progress_stop(&p);
		c->eo.counter = NULL;
	}
	if (c->verbose && rc == 0) {
		char line[400];

		engine_stats_line(st, line, sizeof(line));
		fprintf(stderr, "gpustat: stages: %s\n", line);
		if (input_decode_line(in, line, sizeof(line)))
			fprintf(stderr, "gpustat: %s\n", line);
	}
	if (c->verbose && (be == &backend_auto || be == &backend_auto_late)) {
		char what[1000];

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
