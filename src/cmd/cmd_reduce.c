/*
 * cmd_reduce.c - `gpustat sum` and `gpustat reduce --op OP`: one reduction
 * per column (sum is reduce --op sum). CPU kernels: cpu_reduce.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "report.h"

const char common_help[] =
"Input and type:\n"
"  -t, --type TYPE       element type: u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16\n"
"                        f32 f64, or as numpy spells it (float32, <f4, >i2,\n"
"                        |u1, float = f64, int = i64, bool = u8 of 0 and 1)\n"
"      --endian E        little (default) or big; a -t with a byte order\n"
"                        (>f4) must agree\n"
"  -c, --columns N       records of N interleaved values; one result per column\n"
"      --raw             no detection of zstd, .npy or PGM/PPM input\n"
"      --long            allow zstd windows up to 2^31 bytes (--long=N: 2^N);\n"
"                        without it, windows over 128M are refused\n"
"      --memory SIZE     zstd frames with windows up to SIZE (at most 2G)\n"
"Execution:\n"
"      --backend B       auto (default), cuda, cpu\n"
"      --device N        the GPU to use\n"
"      --chunk-size SIZE bytes per chunk, with K/M/G (default 64M)\n"
"      --streams N       CUDA streams (default 2)\n"
"  -j, --threads N       CPU threads (default: all cores)\n"
"  -v, --verbose         say which backend runs, why, and each stage's busy time\n"
"  -q, --quiet           no notes or progress; errors only\n"
"      --progress        show progress on stderr; --no-progress hides it\n"
"  -h, --help            this help\n"
"Output:\n"
"  -o, --output FILE     write to FILE instead of stdout\n";

static const char sum_help[] =
"Usage: gpustat sum [OPTION]... [FILE]...\n"
"The exact sum of all elements (per column with -c), rounded once to\n"
"double for float types and exact for integers.\n\n"
"%s"
"  -f, --format FMT      text (default), tsv, csv, json, binary, npy\n"
"\n"
"Examples:\n"
"  gpustat sum data.f32\n"
"  gpustat sum -t f64 big.f64.zst\n"
"  gpustat sum -t u16 -c 3 -f json image.u16\n";

static const char reduce_help[] =
"Usage: gpustat reduce [--op OP] [OPTION]... [FILE]...\n"
"Reduce all elements (per column with -c) with OP: sum, prod, min, max,\n"
"and, or, xor (and/or/xor for integer types only). Sums and products are\n"
"exact, rounded once for float types.\n\n"
"      --op OP           sum (default), prod, min, max, and, or, xor\n"
"%s"
"  -f, --format FMT      text (default), tsv, csv, json, binary, npy\n"
"\n"
"Examples:\n"
"  gpustat reduce --op max data.f32\n"
"  gpustat reduce --op xor -t u64 blocks.bin\n";

static char *help_text(const char *fmt)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), fmt, common_help);
	return buf;
}

/* ---- printing a row of results ----------------------------------------- */

static void add_result_text(struct sbuf *b, const struct result *r)
{
	if (r->kind == RES_INT_DEC)
		sb_add(b, r->dec);
	else if (r->kind == RES_F64)
		sb_double(b, r->f);
	else
		sb_add(b, "nan");
}

static void add_result_json(struct sbuf *b, const struct result *r)
{
	if (r->kind == RES_INT_DEC)
		sb_add(b, r->dec);
	else if (r->kind == RES_F64)
		sb_json_double(b, r->f);
	else
		sb_add(b, "\"nan\"");
}

/* An integer result as 8 little-endian bytes of i64/u64. */
static int result_bytes(const struct cli *c, const struct result *r,
			unsigned char *out, struct gs_err *err)
{
	bool sgn = type_is_signed(c->job.dtype.type);
	uint64_t bits;

	if (r->kind == RES_F64 || (r->kind == RES_NONE && type_is_float(c->job.dtype.type))) {
		double f = r->kind == RES_F64 ? r->f : (double)NAN;

		memcpy(&bits, &f, 8);
	} else if (r->kind == RES_NONE) {
		return gs_fail(err, GS_ERUNTIME, c->cmd, "no result for empty input");
	} else {
		char *end;

		errno = 0;
		if (sgn)
			bits = (uint64_t)strtoll(r->dec, &end, 10);
		else
			bits = r->dec[0] == '-' ? (errno = ERANGE, 0)
						: strtoull(r->dec, &end, 10);
		if (errno)
			return gs_fail(err, GS_ERUNTIME, c->cmd,
				       "result %s does not fit %s for binary output",
				       r->dec, sgn ? "i64" : "u64");
	}
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(bits >> (8 * i));
	return 0;
}

static int emit_binary(struct cli *c, struct sbuf *b, const struct result *r,
		       unsigned n, struct gs_err *err)
{
	bool is_float = type_is_float(c->job.dtype.type);

	if (c->format == FMT_NPY) {
		uint64_t dims[1] = { n };

		npy_header(b, is_float ? "<f8" : type_is_signed(c->job.dtype.type)
			   ? "<i8" : "<u8", dims, 1, 0);
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned char v[8];

		if (result_bytes(c, &r[i], v, err) < 0)
			return -1;
		sb_addn(b, v, 8);
	}
	return 0;
}

int emit_results(struct cli *c, const char *name, const char *op,
		 const struct result *r, unsigned n, uint64_t count)
{
	struct sbuf b;
	struct gs_err err;
	char sep = report_sep(c->format);

	sb_init(&b);
	if (c->format == FMT_JSON) {
		sb_addf(&b, "{\"command\":\"%s\",", c->cmd);
		if (op)
			sb_addf(&b, "\"op\":\"%s\",", op);
		sb_addf(&b, "\"type\":\"%s\",\"columns\":%u,\"count\":%llu,\"result\":[",
			type_name(c->job.dtype.type), c->job.columns,
			(unsigned long long)count);
		for (unsigned i = 0; i < n; i++) {
			if (i)
				sb_add(&b, ",");
			add_result_json(&b, &r[i]);
		}
		sb_add(&b, "]}\n");
	} else if (c->format == FMT_BINARY || c->format == FMT_NPY) {
		if (emit_binary(c, &b, r, n, &err) < 0) {
			sb_free(&b);
			return cli_report(c, &err);
		}
	} else {
		if (report_has_header(c->format)) {
			report_value_names(&b, c->format, name, n);
			sb_add(&b, "\n");
		}
		for (unsigned i = 0; i < n; i++) {
			if (i)
				sb_addn(&b, &sep, 1);
			add_result_text(&b, &r[i]);
		}
		sb_add(&b, "\n");
	}
	int rc = cli_finish(c, &b);

	sb_free(&b);
	return rc;
}

/* ---- running ------------------------------------------------------------ */

static int check_op(struct cli *c, struct gs_err *err)
{
	enum gs_op op = c->job.op;

	if ((op == OP_AND || op == OP_OR || op == OP_XOR) &&
	    type_is_float(c->job.dtype.type))
		return gs_fail(err, GS_EUSAGE, c->cmd,
			       "--op %s needs an integer type, not %s",
			       op_name(op), type_name(c->job.dtype.type));
	return 0;
}

static int run_reduce(struct cli *c, const char *name, const char *op)
{
	struct input *in;
	struct input_info info;
	struct engine_stats st;
	struct gs_err err;

	c->job.cmd = CMD_REDUCE;
	if (cli_open_input(c, c->operands, c->noperands, &in, &info, &err) < 0 ||
	    check_op(c, &err) < 0)
		return cli_report(c, &err);

	unsigned n = c->job.columns;	/* a header may have set it */
	struct red_col *acc = engine_acc_new(&c->job, &c->eo,
					     (uint64_t)n * sizeof(struct result), &err);
	struct result *r = acc ? calloc(n, sizeof(*r)) : NULL;

	if (!r) {
		if (acc)
			gs_fail(&err, GS_ERUNTIME, "", "out of memory");
		return cli_report(c, &err);
	}
	if (cli_run(c, in, NULL, info.total_bytes, NULL, acc, &st, &err) < 0)
		return cli_report(c, &err);
	input_close(in);
	for (unsigned i = 0; i < n; i++)
		if (red_result(&c->job, &acc[i], &r[i], &err) < 0)
			return cli_report(c, &err);
	int rc = emit_results(c, name, op, r, n, st.records);

	free(acc);
	free(r);
	return rc;
}

int cmd_sum(int argc, char **argv)
{
	struct cli c = { .default_type = GS_F32 };
	struct cmd_opts co = { .help = help_text(sum_help) };
	struct gs_err err;
	int rc = cli_parse(&c, argc, argv, &co, &err);

	if (rc)
		return rc > 0 ? 0 : cli_report(&c, &err);
	c.job.op = OP_SUM;
	return run_reduce(&c, "sum", NULL);
}

enum { OPT_OP = 256 };

static const struct option reduce_longopts[] = {
	{ "op", required_argument, NULL, OPT_OP },
	{ NULL, 0, NULL, 0 },
};

static int reduce_option(void *ctx, int opt, const char *arg, struct gs_err *err)
{
	struct cli *c = ctx;

	if (opt == OPT_OP && parse_op(arg, &c->job.op) == 0)
		return 0;
	return gs_fail(err, GS_EUSAGE, "", "--op: unknown operation '%s' "
		       "(sum, prod, min, max, and, or, xor)", arg);
}

int cmd_reduce(int argc, char **argv)
{
	struct cli c = { .default_type = GS_F32 };
	struct cmd_opts co = { reduce_longopts, "", reduce_option, &c,
			       help_text(reduce_help) };
	struct gs_err err;

	c.job.op = OP_SUM;
	int rc = cli_parse(&c, argc, argv, &co, &err);

	if (rc)
		return rc > 0 ? 0 : cli_report(&c, &err);
	return run_reduce(&c, op_name(c.job.op), op_name(c.job.op));
}
