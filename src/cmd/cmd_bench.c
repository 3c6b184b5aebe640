/*
 * cmd_bench.c - `gpustat bench [COMMAND...] [FILE]`, as zstd -b: what each
 * command's algorithms (--algorithm, algorithm.h) cost on this machine.
 *
 * The data is FILE's bytes or --size bytes generated (random bytes for
 * integers, uniform [0, 1) for floats), written once to a temporary file
 * that then sits in the page cache. For each command and algorithm it
 * prints:
 *   device       the GPU kernels over data already in GPU memory (CUDA
 *                events, the best of several runs: cuda/algos/bench_device.cu)
 *   cub          CUB's same operation on the same data, where CUB has one
 *                (a plain sum, scan or byte histogram: not exact)
 *   end-to-end   the whole command (gpustat COMMAND -o /dev/null) from the
 *                page-cached file, the best of a few runs
 * and once, the `cat`-style reading of the same file, for scale. Without a
 * GPU only the CPU rows run, and it says so. Throughput is GB/s of input
 * (10^9 bytes per second).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "algorithm.h"
#include "command.h"
#include "commands.h"
#include "out.h"
#include "report.h"
#include "suffix.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"
#endif

enum { OPT_SIZE = 1 };

#define BENCH_COMMANDS "hist sum reduce dot scan"
#define ALL_ALGORITHMS "all default cpu global-atomic shared-atomic sort " \
	"atomic block-tree hillis-steele blelloch"
/* Runs of a whole command, the best kept. */
#define E2E_RUNS 3

static const struct opt_spec bench_opts[] = {
	{ .name = "size",
	  .has_arg = required_argument,
	  .arg = "SIZE",
	  .help = "bytes of generated data, with K/M/G (default 64M),\n"
		  "cut to whole pairs of elements",
	  .id = OPT_SIZE,
	  .brief = "bytes of generated data" },
	{ .name = "algorithm",
	  .has_arg = required_argument,
	  .arg = "NAME",
	  .help = "all (default), or the one algorithm to time",
	  .values = ALL_ALGORITHMS,
	  .id = OPT_ALGORITHM,
	  .brief = "the algorithms to time" },
	{ .name = NULL },
};

struct bench_state {
	uint64_t size;
	const char *algo;		/* NULL: all */
	const char *cmds[8];		/* the commands to time */
	int ncmds;
	const char *file;		/* FILE, or NULL: generated */
	char tmp[4096];			/* the generated data's file */
	void *data;
	size_t n;
	bool gpu;
	int rows;
	bool tty;
};

static void bench_init(struct cli *c)
{
	struct bench_state *b = c->state;

	b->size = (uint64_t)64 << 20;
}

static int bench_option(struct cli *c, int id, const char *arg,
			struct gs_err *err)
{
	struct bench_state *b = c->state;
	enum gs_algo a;

	if (id == OPT_SIZE) {
		if (parse_size(arg, &b->size) < 0 || b->size < 64 ||
		    b->size > ((uint64_t)1 << 36))
			return gs_fail(err, GS_EUSAGE, "", "--size: expected a "
				       "size from 64 to 64G, not '%s'", arg);
		return 0;
	}
	if (strcmp(arg, "all") && algo_parse(arg, ALL_ALGORITHMS, &a) < 0)
		return gs_fail(err, GS_EUSAGE, "", "--algorithm: expected all "
			       "or one of %s, not '%s'", ALL_ALGORITHMS + 4, arg);
	b->algo = strcmp(arg, "all") ? arg : NULL;
	return 0;
}

/* Operands: the commands to time (default all), then at most one FILE. */
static int bench_check(struct cli *c, struct gs_err *err)
{
	struct bench_state *b = c->state;

	for (int i = 0; i < c->noperands; i++) {
		const char *w = c->operands[i];
		const struct command *cmd = command_find(w);
		bool timed = cmd && strstr(BENCH_COMMANDS, w) && strcmp(w, "s");

		if (timed && b->ncmds < 8)
			b->cmds[b->ncmds++] = cmd->name;
		else if (!b->file && !cmd)
			b->file = w;
		else
			return gs_fail(err, GS_EUSAGE, "bench", "'%s': expected "
				       "a command of %s, or one FILE", w,
				       BENCH_COMMANDS);
	}
	/* the data file is an input: -o (or stdout) must not be it */
	if (b->file) {
		char *in = (char *)b->file;

		if (out_check_inputs("-o", c->output, &in, 1, err) < 0)
			return -1;
		/* its name may say its type (suffix.h), as an operand's */
		if (suffix_settle(c, err) < 0)
			return -1;
		c->type_set |= c->type_from_name != NULL;
	}
	if (b->ncmds == 0) {
		static const char *const all[] = { "hist", "sum", "reduce",
						   "dot", "scan" };

		memcpy(b->cmds, all, sizeof(all));
		b->ncmds = 5;
	}
	return 0;
}

/* The operands are bench's own: nothing to open before the run. */
static int bench_open(struct cli *c, struct gs_err *err)
{
	return 0;
}

/* ---- data --------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* n bytes of type t: random bits for integers, uniform [0, 1) floats. */
static void fill(void *p, size_t n, enum gs_type t)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	size_t k = type_size(t), i;

	for (i = 0; i + k <= n; i += k) {
		uint64_t r = xorshift(&s);
		char *q = (char *)p + i;

		if (t == GS_F32) {
			float f = (float)(r >> 40) * 0x1p-24f;
			memcpy(q, &f, 4);
		} else if (t == GS_F64) {
			double d = (double)(r >> 11) * 0x1p-53;
			memcpy(q, &d, 8);
		} else if (t == GS_F16) {	/* exponents 1..14: [2^-14, 1) */
			uint16_t h = (uint16_t)(((r >> 10) % 14 + 1) << 10 | (r & 0x3ff));
			memcpy(q, &h, 2);
		} else if (t == GS_BF16) {
			float f = (float)(r >> 40) * 0x1p-24f;
			uint32_t u;

			memcpy(&u, &f, 4);
			u >>= 16;
			memcpy(q, &u, 2);
		} else {
			memcpy(q, &r, k);
		}
	}
	memset((char *)p + i, 0, n - i);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The data, in memory and in a page-cached file. */
static int bench_data(struct cli *c, struct gs_err *err)
{
	struct bench_state *b = c->state;
	enum gs_type t = c->type_set ? c->job.dtype.type : GS_F32;
	int fd;

	if (b->file) {
		FILE *f = fopen(b->file, "rb");
		long len;

		if (!f || fseek(f, 0, SEEK_END) < 0 || (len = ftell(f)) < 0 ||
		    fseek(f, 0, SEEK_SET) < 0) {
			if (f)
				fclose(f);
			return gs_fail(err, GS_ERUNTIME, b->file, "cannot read it");
		}
		b->n = (size_t)len;
		b->data = malloc(b->n ? b->n : 1);
		if (!b->data || fread(b->data, 1, b->n, f) != b->n) {
			fclose(f);
			return gs_fail(err, GS_ERUNTIME, b->file, "cannot read it");
		}
		fclose(f);
		return 0;
	}
	/* whole pairs of elements: every command reads whole records, dot
	 * --pairs two elements each (a trailing byte failed every row) */
	b->n = (size_t)(b->size - b->size % (2 * type_size(t)));
	b->data = malloc(b->n);
	if (!b->data)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory for %zu bytes",
			       b->n);
	fill(b->data, b->n, t);
	const char *dir = getenv("TMPDIR");

	snprintf(b->tmp, sizeof(b->tmp), "%s/gpustat-bench-XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(b->tmp);
	if (fd < 0 || write(fd, b->data, b->n) != (ssize_t)b->n) {
		if (fd >= 0)
			close(fd);
		gs_fail(err, GS_ERUNTIME, b->tmp, "cannot write the data there "
			"(TMPDIR picks the folder)");
		if (fd < 0)
			b->tmp[0] = '\0';
		return -1;
	}
	close(fd);
	b->file = b->tmp;
	return 0;
}

/* ---- rows --------------------------------------------------------------- */

static void progress(struct bench_state *b, const char *cmd, const char *a,
		     const char *what)
{
	if (b->tty)
		fprintf(stderr, "\rbench: %s %s %s ...\033[K", cmd, a, what);
}

static void row(struct cli *c, struct sbuf *o, const char *cmd,
		const char *a, const char *where, const char *what,
		double sec)
{
	struct bench_state *b = c->state;
	double gbps = sec > 0 ? b->n / sec * 1e-9 : 0;

	if (c->format == FMT_JSON)
		sb_addf(o, "%s\n  {\"command\": \"%s\", \"algorithm\": \"%s\", "
			  "\"backend\": \"%s\", \"measure\": \"%s\", "
			  "\"bytes\": %zu, \"seconds\": %.6g, \"gbps\": %.4g}",
			  b->rows ? "," : "", cmd, a, where, what, b->n, sec, gbps);
	else
		sb_addf(o, "%-7s %-14s %-5s %-36s %9.2f\n", cmd, a, where, what,
			  gbps);
	b->rows++;
}

/* cat: read the file in 1 MiB blocks; the best of E2E_RUNS. */
static double time_read(const char *path)
{
	static char buf[1 << 20];
	double best = 0;

	for (int r = 0; r < E2E_RUNS; r++) {
		int fd = open(path, O_RDONLY);
		double t0 = now();

		if (fd < 0)
			return 0;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
		t0 = now() - t0;
		best = r == 0 || t0 < best ? t0 : best;
	}
	return best;
}

/* The job of a command's device rows, as the command would make it. */
static struct gs_job bench_job(const struct cli *c, const char *cmd)
{
	enum gs_type t = c->type_set ? c->job.dtype.type : GS_F32;
	struct gs_job j = { .dtype = { .type = t }, .columns = 1 };

	if (!strcmp(cmd, "hist")) {
		j.cmd = CMD_HIST;
		j.ranged = type_is_float(t) || type_size(t) > 2;
		j.bins = 256;
		j.hi = 1;
	} else if (!strcmp(cmd, "dot")) {
		j.cmd = CMD_DOT;
		j.columns = 2;
	} else if (!strcmp(cmd, "scan")) {
		j.cmd = CMD_SCAN;
		j.out_type = type_is_float(t) ? t : type_is_signed(t) ? GS_I64
								      : GS_U64;
	} else {
		j.cmd = CMD_REDUCE;
		j.op = !strcmp(cmd, "reduce") ? OP_MAX : OP_SUM;
	}
	return j;
}

/* gpustat CMD ... -o /dev/null FILE on backend be, the best of E2E_RUNS;
 * -1 where it fails (an algorithm the job does not have). */
static double time_command(const struct cli *c, const struct gs_job *j,
			   const char *cmd, const char *algo, const char *be)
{
	const struct bench_state *b = c->state;
	const struct command *command = command_find(cmd);
	char *argv[24];
	int argc = 0;
	double best = -1;

	argv[argc++] = (char *)cmd;
	argv[argc++] = "-t";
	argv[argc++] = (char *)type_name(j->dtype.type);
	if (j->cmd == CMD_HIST && j->ranged) {
		argv[argc++] = "--bins=256";
		argv[argc++] = "--range=0:1";
	}
	if (j->cmd == CMD_DOT) {
		argv[argc++] = "--pairs";
		argv[argc++] = "-c2";
	}
	if (j->cmd == CMD_REDUCE && j->op == OP_MAX)
		argv[argc++] = "--op=max";
	argv[argc++] = "--algorithm";
	argv[argc++] = (char *)algo;
	argv[argc++] = "--backend";
	argv[argc++] = (char *)be;
	argv[argc++] = "-q";
	argv[argc++] = "--raw";
	argv[argc++] = "-o/dev/null";
	argv[argc++] = (char *)b->file;
	argv[argc] = NULL;
	for (int r = 0; r < E2E_RUNS; r++) {
		double t0 = now();

		optind = 0;	/* getopt_long again from the start */
		if (command_run(command, argc, argv) != 0)
			return -1;
		t0 = now() - t0;
		best = best < 0 || t0 < best ? t0 : best;
	}
	return best;
}

/* The GPU rows of one algorithm: device-resident and end-to-end. */
static void gpu_rows(struct cli *c, struct sbuf *o, const char *cmd,
		     struct gs_job *j, const char *a)
{
#ifdef GS_HAVE_CUDA
	struct bench_state *b = c->state;
	struct gs_err err;
	const char *no;
	double sec;

	if (!cuda_algo_supports(j, &no) || !cuda_supports(j, &no))
		return;
	progress(b, cmd, a, "device");
	if (cuda_bench_kernel(j, b->data, b->n, c->eo.device, &sec, &err) == 0)
		row(c, o, cmd, a, "gpu", "device", sec);
	else
		cli_report(c, &err);
	progress(b, cmd, a, "end-to-end");
	if ((sec = time_command(c, j, cmd, a, "cuda")) >= 0)
		row(c, o, cmd, a, "gpu", "end-to-end", sec);
#else
	(void)c, (void)o, (void)cmd, (void)j, (void)a;
#endif
}

/* CUB's row of a command, where it has one. */
static void cub_row(struct cli *c, struct sbuf *o, const char *cmd,
		    struct gs_job *j)
{
#ifdef GS_HAVE_CUDA
	struct bench_state *b = c->state;
	struct gs_err err;
	const char *what;
	char label[64];
	double sec;

	j->algo = ALGO_DEFAULT;
	progress(b, cmd, "cub", "device");
	int rc = cuda_bench_cub(j, b->data, b->n, c->eo.device, &sec, &what, &err);

	if (rc < 0)
		cli_report(c, &err);
	snprintf(label, sizeof(label), "device (cub::%s)", rc == 0 ? what : "");
	if (rc == 0)
		row(c, o, cmd, "cub", "gpu", label, sec);
#else
	(void)c, (void)o, (void)cmd, (void)j;
#endif
}

/* Every row of one command. */
static void bench_one(struct cli *c, struct sbuf *o, const char *cmd)
{
	struct bench_state *b = c->state;
	const struct opt_spec *s = command_find(cmd)->opts;
	struct gs_job j = bench_job(c, cmd);
	char names[128], *save = NULL;
	double sec;

	while (s->name && s->id != OPT_ALGORITHM)
		s++;
	snprintf(names, sizeof(names), "%s", s->name ? s->values : "default");
	for (char *a = strtok_r(names, " ", &save); a;
	     a = strtok_r(NULL, " ", &save)) {
		if (b->algo && strcmp(b->algo, a))
			continue;
		algo_parse(a, ALL_ALGORITHMS, &j.algo);
		if (!algo_on_gpu(j.algo)) {	/* default and cpu: the CPU's */
			progress(b, cmd, a, "cpu");
			if ((sec = time_command(c, &j, cmd, a, "cpu")) >= 0)
				row(c, o, cmd, a, "cpu", "end-to-end", sec);
		}
		if (b->gpu && j.algo != ALGO_CPU)
			gpu_rows(c, o, cmd, &j, a);
	}
	if (b->gpu && !b->algo)
		cub_row(c, o, cmd, &j);
}

static void bench_run(struct cli *c, struct sbuf *o)
{
	struct bench_state *b = c->state;
	const char *t = type_name(c->type_set ? c->job.dtype.type : GS_F32);

	if (c->format == FMT_JSON)
		sb_addf(o, "{\"bytes\": %zu, \"type\": \"%s\", \"gpu\": %s, "
			  "\"rows\": [", b->n, t, b->gpu ? "true" : "false");
	else
		sb_addf(o, "# %zu bytes of %s (%s)%s\n%-7s %-14s %-5s %-36s %9s\n",
			  b->n, t, b->tmp[0] ? "generated" : b->file,
			  b->gpu ? "" : "; no GPU: CPU rows only", "command",
			  "algorithm", "where", "measure", "GB/s");
	progress(b, "read", "cat", "");
	row(c, o, "read", "cat", "cpu", "read(2) of the cached file",
	    time_read(b->file));
	for (int i = 0; i < b->ncmds; i++)
		bench_one(c, o, b->cmds[i]);
	if (c->format == FMT_JSON)
		sb_addf(o, "\n]}\n");
	if (b->tty)
		fputs("\r\033[K", stderr);
}

static int bench_stream(struct cli *c)
{
	struct bench_state *b = c->state;
	struct gs_err err;
	struct sbuf o;
	int rc;

#ifdef GS_HAVE_CUDA
	char why[300];

	b->gpu = cuda_device_count() > 0 &&
		 cuda_probe(c->eo.device, why, sizeof(why)) == 0;
#endif
	b->tty = c->progress != 0 && isatty(2) && !c->quiet;
	if (!b->gpu && !c->quiet)
		fprintf(stderr, "gpustat: bench: no GPU: CPU rows only\n");
	if (bench_data(c, &err) < 0) {
		if (b->tmp[0])
			unlink(b->tmp);
		return cli_report(c, &err);
	}
	sb_init(&o);
	bench_run(c, &o);
	if (b->tmp[0])
		unlink(b->tmp);
	free(b->data);
	rc = cli_finish(c, &o);
	sb_free(&o);
	return rc;
}

const struct command bench_command = {
	.name = "bench",
	.summary = "time each algorithm, CUB and reading, as zstd -b",
	.usage = "[COMMAND]... [-t TYPE] [--size SIZE] [--algorithm all|NAME] "
		 "[FILE]",
	.about = "Time the commands (hist, sum, reduce, dot, scan; default all) "
		 "with each\nalgorithm on generated data (--size bytes of -t, "
		 "default 64M of f32) or\nFILE: the GPU kernels on data in GPU "
		 "memory (CUDA events), CUB's same\noperation, and whole runs "
		 "from the page-cached file beside reading it.\nWithout a GPU "
		 "only the CPU rows. GB/s are 10^9 bytes of input a second.",
	.examples = "gpustat bench\n"
		    "gpustat bench hist -t u8 --size 100M\n"
		    "gpustat bench sum dot -t f32 --algorithm block-tree -f json",
	.opts = bench_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = "text json",
	.formats_help = "text (default) or json",
	.state_size = sizeof(struct bench_state),
	.init = bench_init,
	.option = bench_option,
	.check = bench_check,
	.open = bench_open,
	.stream = bench_stream,
};
