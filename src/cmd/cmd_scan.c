/*
 * cmd_scan.c - `gpustat scan`: inclusive (or --exclusive) prefix scans with
 * --op sum|min|max|prod, per column, written as raw little-endian values of
 * the output type (or .npy). Every output is the exact prefix rounded once.
 * CPU kernels: cpu_scan.c; the carry between chunks is the reduction of
 * everything before them (cpu_reduce.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "command.h"
#include "operation.h"
#include "state.h"
#include "report.h"
#include "sig.h"
#include "algorithm.h"

enum { OPT_EXCLUSIVE = 1, OPT_OP, OPT_OUT_TYPE, OPT_FORCE, OPT_CARRY_IN };

static const struct opt_spec scan_opts[] = {
	{ .name = "op",
	  .has_arg = required_argument,
	  .arg = "OP",
	  .help = "sum (default), min, max, prod",
	  .values = "sum min max prod",
	  .id = OPT_OP,
	  .brief = "the operation" },
	{ .name = "exclusive",
	  .has_arg = no_argument,
	  .help = "exclusive scan (the first output is the identity)",
	  .id = OPT_EXCLUSIVE },
	{ .name = "out-type",
	  .has_arg = required_argument,
	  .arg = "TYPE",
	  .help = "output type (default: the input type for floats,\n"
		  "i64/u64 for signed/unsigned integers)",
	  .values = "@type",
	  .id = OPT_OUT_TYPE,
	  .brief = "output type" },
	{ .name = "force",
	  .has_arg = no_argument,
	  .help = "write binary to a terminal anyway",
	  .id = OPT_FORCE },
	{ .name = "carry-in",
	  .has_arg = required_argument,
	  .arg = "STATE",
	  .help = "start from STATE, the -f state of everything before\n"
		  "this input (states in the file are merged first)",
	  .values = "@file",
	  .id = OPT_CARRY_IN,
	  .brief = "start from the state of the data before" },
	ALGORITHM_OPT(SCAN_ALGORITHMS,
		      "the kernel: default, or on the GPU hillis-steele\n"
		      "(step doubling) or blelloch (up- and down-sweep),\n"
		      "per block, then the blocks' carries; same output"),
	{ .name = NULL },
};

/* What the options leave for the run (the driver's c->state). */
struct scan_state {
	bool out_type_set, force;
	enum gs_type out_type;
	const char *carry_path;		/* --carry-in */
	struct state carry;		/* loaded from it */
	const char *carry_name;
};

static void scan_init(struct cli *c)
{
	c->job.cmd = CMD_SCAN;
	c->job.op = OP_SUM;
}

static int out_type_option(struct scan_state *s, const char *arg,
			   struct gs_err *err)
{
	struct gs_dtype d;
	bool explicit;

	if (type_parse(arg, &d, &explicit) < 0)
		return cli_unknown_type(err, "--out-type: ", arg);
	if (d.big_endian)
		return gs_fail(err, GS_EUSAGE, "", "--out-type: scans "
			       "write little-endian, not '%s'", arg);
	s->out_type = d.type;
	s->out_type_set = true;
	return 0;
}

static int scan_option(struct cli *c, int id, const char *arg,
		       struct gs_err *err)
{
	struct scan_state *s = c->state;

	switch (id) {
	case OPT_ALGORITHM:
		return cli_algorithm_option(c, arg, err);
	case OPT_EXCLUSIVE:
		c->job.exclusive = true;
		return 0;
	case OPT_OP:
		if (parse_op(arg, &c->job.op) < 0 || c->job.op > OP_MAX)
			return gs_fail(err, GS_EUSAGE, "", "--op: unknown scan "
				       "operation '%s' (sum, prod, min, max)", arg);
		return 0;
	case OPT_OUT_TYPE:
		return out_type_option(s, arg, err);
	case OPT_FORCE:
		s->force = true;
		return 0;
	case OPT_CARRY_IN:
		s->carry_path = arg;
		return 0;
	}
	return -1;
}

/* The sink: output in order, counting bytes for the npy header. */
struct scan_sink {
	struct out o;
	uint64_t bytes;		/* written after the header */
	uint64_t header;	/* bytes of the npy header written, or 0 */
};

static int sink_write(void *ctx, const void *buf, size_t n, struct gs_err *err)
{
	struct scan_sink *s = ctx;
	uint64_t before = s->o.written;
	int rc = out_write(&s->o, buf, n, err);

	/* what reached the output, a short write's part too (ulimit -f) */
	s->bytes += s->o.written - before;
	return rc;
}

#define NPY_PATCH_HEADER 128	/* room for any 64-bit count and columns */

static void scan_npy_header(const struct cli *c, struct sbuf *b, uint64_t nrec,
			    size_t pad_to)
{
	uint64_t dims[2] = { nrec, c->job.columns };

	npy_header(b, npy_descr(c->job.out_type), dims,
		   c->job.columns == 1 ? 1 : 2, pad_to);
}

/* Write the npy header first: on a seekable output a padded one that
 * patch_npy() rewrites with the real count, where our output began; on a
 * pipe or an appending file, the count that the input's known length
 * promises. */
static int start_npy(const struct cli *c, struct scan_sink *s, int64_t bytes,
		     struct gs_err *err)
{
	struct sbuf b;
	size_t rec = job_record_size(&c->job);

	sb_init(&b);
	if (s->o.seekable)
		scan_npy_header(c, &b, 0, NPY_PATCH_HEADER);
	else if (bytes >= 0)
		scan_npy_header(c, &b, (uint64_t)bytes / rec, 0);
	else
		return gs_fail(err, GS_EUSAGE, "scan", "-f npy needs a file "
			       "input of known length or a seekable output");
	int rc = b.oom ? gs_fail(err, GS_ERUNTIME, "", "out of memory")
		       : out_write(&s->o, b.p, b.len, err);

	if (rc == 0)
		s->header = b.len;
	sb_free(&b);
	return rc;
}

/* A seekable output's header: the whole records written, and nothing after
 * them (a run stopped inside a record). */
static int patch_npy(const struct cli *c, struct scan_sink *s,
		     struct gs_err *err)
{
	size_t out_rec = c->job.columns * type_size(c->job.out_type);
	uint64_t nrec = s->bytes / out_rec;
	struct sbuf b;
	int rc;

	sb_init(&b);
	scan_npy_header(c, &b, nrec, NPY_PATCH_HEADER);
	rc = out_pwrite(&s->o, b.p, b.len, 0, err);
	sb_free(&b);
	if (rc == 0 && out_cut(&s->o, s->header + nrec * out_rec) < 0)
		rc = gs_fail(err, GS_ERUNTIME, s->o.name, "%s", strerror(errno));
	return rc;
}

static int finish_npy(const struct cli *c, struct scan_sink *s, int64_t bytes,
		      uint64_t nrec, struct gs_err *err)
{
	if (s->o.seekable)
		return patch_npy(c, s, err);
	if ((uint64_t)bytes / job_record_size(&c->job) == nrec)
		return 0;
	return gs_fail(err, GS_ERUNTIME, s->o.name, "the npy header "
		       "promised %llu records but %llu were written",
		       (unsigned long long)((uint64_t)bytes /
					    job_record_size(&c->job)),
		       (unsigned long long)nrec);
}

/* A failed or stopped run: -o FILE is left as it was; stdout keeps what
 * was streamed, whole records only, under a .npy header that matches them
 * where it can be patched. err may say nothing more (an operand, reported
 * already). */
static int failed(const struct cli *c, struct scan_sink *s,
		  const struct gs_err *err)
{
	struct gs_err e2;

	/* a header that cannot be patched fails like the run: one line, the
	 * run's error, is enough */
	if (s->o.tmp)
		out_abort(&s->o);
	else if (s->header && s->o.seekable)
		patch_npy(c, s, &e2);
	else	/* a short write's part of a record (ulimit -f) */
		(void)out_cut(&s->o, s->bytes - s->bytes %
			      (c->job.columns * type_size(c->job.out_type)));
	return cli_report(c, err);
}

static int settle_out_type(struct cli *c, struct gs_err *err)
{
	struct scan_state *so = c->state;

	enum gs_type t = c->job.dtype.type;

	if (!so->out_type_set)
		so->out_type = type_is_float(t) ? t
			     : type_is_signed(t) ? GS_I64 : GS_U64;
	if (type_is_float(t) && !type_is_float(so->out_type))
		return gs_fail(err, GS_EUSAGE, "scan", "--out-type %s cannot hold "
			       "scans of %s", type_name(so->out_type), type_name(t));
	c->job.out_type = so->out_type;
	return 0;
}

/* A scan streams: an operand that cannot be read would leave a gap that
 * the prefixes after it hide. Every operand that cannot be opened is named
 * before anything is written (the error returned says nothing more); one
 * that fails later ends the output there (stop_on_operand). */
static int check_operands(struct cli *c)
{
	struct gs_err err;
	struct stat st;
	bool bad = false;

	for (int i = 0; i < c->noperands; i++) {
		const char *p = c->operands[i];

		if (strcmp(p, "-") == 0)
			continue;
		if (stat(p, &st) != 0)
			gs_fail(&err, GS_ERUNTIME, p, "%s", strerror(errno));
		else if (S_ISDIR(st.st_mode))
			gs_fail(&err, GS_ERUNTIME, p, "is a directory");
		else if (access(p, R_OK) != 0)
			gs_fail(&err, GS_ERUNTIME, p, "%s", strerror(errno));
		else
			continue;
		cli_report(c, &err);
		bad = true;
	}
	return bad ? -1 : 0;
}

static int scan_check(struct cli *c, struct gs_err *err)
{
	char *carry = (char *)((struct scan_state *)c->state)->carry_path;

	/* the carry is an input: -o (or stdout) must not be it */
	if (carry && out_check_inputs("-o", c->output, &carry, 1, err) < 0)
		return -1;
	if (c->format != FMT_BINARY && c->format != FMT_NPY &&
	    c->format != FMT_STATE)
		return gs_fail(err, GS_EUSAGE, "scan", "writes binary or npy, "
			       "not text formats");
	if (c->per_file && ((struct scan_state *)c->state)->carry_path)
		return gs_fail(err, GS_EUSAGE, "scan", "--per-file scans each "
			       "operand from the start; --carry-in continues one "
			       "stream");
	if (check_operands(c) < 0) {
		err->code = GS_ERUNTIME;
		err->what[0] = '\0';	/* reported already */
		return -1;
	}
	c->stop_on_operand = true;
	return 0;
}

/* --carry-in: the reduction of every record before this input, with this
 * scan's operation, type and columns. */
static int load_carry(struct cli *c, struct gs_err *err)
{
	struct scan_state *s = c->state;
	const struct gs_job *j;

	if (!s->carry_path)
		return 0;
	if (state_load(s->carry_path, &s->carry, &s->carry_name, err) < 0)
		return -1;
	j = &s->carry.job;
	if (j->rec)	/* scans read records of one type */
		return gs_fail(err, GS_EUSAGE, s->carry_name, "a state of "
			       "records of mixed types is no carry for a scan");
	if (j->cmd != CMD_REDUCE)
		return gs_fail(err, GS_EUSAGE, s->carry_name, "a %s state is "
			       "no carry for a scan (scan, sum or reduce -f "
			       "state is)", s->carry.command);
	if (j->op != c->job.op || j->dtype.type != c->job.dtype.type ||
	    j->columns != c->job.columns)
		return gs_fail(err, GS_EUSAGE, s->carry_name, "the carry is "
			       "--op %s of %u column%s of %s, this scan --op %s "
			       "of %u of %s", op_name(j->op), j->columns,
			       j->columns == 1 ? "" : "s", type_name(j->dtype.type),
			       op_name(c->job.op), c->job.columns,
			       type_name(c->job.dtype.type));
	return 0;
}

/* -f state: the state after this input, the carry-in's included, as the
 * carry of the input after it. */
static int scan_state_done(struct cli *c, void *acc, struct sbuf *b,
			   struct gs_err *err)
{
	struct scan_state *s = c->state;

	if (!s->carry.acc)
		return state_write(c, acc, b, err);
	reduce_kernels.acc_merge(&c->job, s->carry.acc, acc);
	c->records += s->carry.records;
	return state_write(c, s->carry.acc, b, err);
}

static int scan_plan(struct cli *c, const struct pass **passes,
		     struct gs_err *err)
{
	return load_carry(c, err);
}

static const struct pass state_passes[] = {
	{ .op = CMD_REDUCE, .done = scan_state_done },
	{ .done = NULL },
};

/* The scan of the input into sink; with --per-file, of each operand
 * alone (each from the empty prefix, as a run over it alone), one after
 * another into the one output. */
static int scan_run(struct cli *c, struct sink *sink, uint64_t *records,
		    struct gs_err *err)
{
	struct input *all = c->in;
	struct engine_stats st;

	*records = 0;
	if (!c->per_file || c->noperands < 2) {
		if (cli_run(c, c->in, NULL, c->input_bytes, sink, NULL, &st, err) < 0)
			return -1;
		*records = st.records;
		return 0;
	}
	input_close(all);
	for (int i = 0; i < c->noperands; i++) {
		int rc = cli_open_operand(c, i, err);

		if (rc == 0)
			rc = cli_run(c, c->in, NULL, c->input_bytes, sink, NULL,
				     &st, err);
		input_close(c->in);
		c->in = NULL;
		if (rc < 0)
			return -1;
		*records += st.records;
	}
	return 0;
}

static int scan_stream(struct cli *c)
{
	struct scan_state *so = c->state;
	struct gs_err err;
	struct scan_sink s = { .bytes = 0 };
	struct sink sink = { sink_write, &s };
	int64_t all_bytes = c->input_bytes;
	uint64_t records;

	if (load_carry(c, &err) < 0 || settle_out_type(c, &err) < 0 ||
	    out_open(&s.o, c->output, &err) < 0)
		return cli_report(c, &err);
	c->eo.carry_in = so->carry.acc;
	if (s.o.is_tty && !so->force) {
		gs_fail(&err, GS_EUSAGE, "scan", "refusing to write binary output "
			"to a terminal (redirect it, or use --force)");
		return failed(c, &s, &err);
	}
	if (c->format == FMT_NPY && start_npy(c, &s, c->input_bytes, &err) < 0)
		return failed(c, &s, &err);
	if (scan_run(c, &sink, &records, &err) < 0)
		return failed(c, &s, &err);
	input_close(c->in);
	if (c->operand_failed) {
		err.code = GS_ERUNTIME;
		err.what[0] = '\0';	/* reported already */
		return failed(c, &s, &err);
	}
	if (c->format == FMT_NPY &&
	    finish_npy(c, &s, all_bytes, records, &err) < 0)
		return failed(c, &s, &err);
	if (out_close(&s.o, &err) < 0)
		return cli_report(c, &err);
	return 0;
}

const struct command scan_command = {
	.name = "scan",
	.summary = "prefix sums (min, max, prod), written as binary",
	.usage = "[OPTION]... [FILE]...",
	.about = "Prefix scan of the stream (per column with -c), written as "
		 "raw\nlittle-endian values (or .npy with -f npy). Every output "
		 "is the exact\nprefix rounded once to the output type. Integer "
		 "scans are exact and\nrefuse to overflow the output type.",
	.examples = "gpustat scan < in.f32 > out.f32\n"
		    "gpustat scan -t u8 --out-type u32 counts.u8 -o cum.u32\n"
		    "gpustat scan --op max -f npy data.npy -o runmax.npy",
	.opts = scan_opts,
	.default_type = GS_F32,
	.default_format = FMT_BINARY,
	.formats = "binary npy state",
	.formats_help = "binary (default), npy, or state (the carry-in of\n"
			"the input after this one)",
	.per_file_help = "scan each operand from the start, as a run over\n"
			 "it alone, one after another into the output",
	.state_size = sizeof(struct scan_state),
	.init = scan_init,
	.option = scan_option,
	.check = scan_check,
	.plan = scan_plan,
	.passes = state_passes,
	.stream = scan_stream,
};
