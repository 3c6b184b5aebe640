/*
 * auto_plan.c - see auto_plan.h.
 *
 * For B bytes of input, with c the CPU's rate (elements per second per
 * thread times the threads, in bytes) and g the GPU pipeline's:
 *
 *   the CPU alone    B / c
 *   with a GPU       S + (B - c S) / g + F    when B > c S
 *
 * The hybrid computes on the CPU while the GPU starts (S seconds: the
 * context, the backend's open), then sends the rest to the GPU, and pays F
 * once (pinning the engine's buffers as the GPU first copies them, the
 * GPU's teardown). When the CPU would be done before the GPU starts (B <=
 * c S), the GPU never helps.
 *
 * The table's c is one kind of data's: the exact sums slow down with the
 * spread of the values' exponents (f32 over 41 binades sum about 11x
 * slower than normally distributed ones on 16 threads: 1.52 s for 8 GiB
 * on the CPU, planned 0.29 s, against 0.79 s with --backend cuda on an
 * H100).
 * So where the plan picks the CPU, auto_plan_late revises it as the CPU
 * runs, with the same model: after d bytes in t seconds, with B' to go,
 *
 *   the CPU alone    B' / c'                  c' = d / t, measured
 *   with a GPU       S + (B' - c' S) / g + F  started now
 *
 * and the GPU starts once the first passes AUTO_LATE_MARGIN times the
 * second.
 *
 * An input of unknown length (a pipe) has no B to plan with, and its rate
 * is the producer's, unknown before it comes: it runs on the CPU, watched
 * (auto_plan_stream). After d bytes in t seconds of the CPU's work and w
 * seconds of wall time (both from the end of the first chunk's work),
 *
 *   the CPU's rate   c' = d / t
 *   the input's      r  = d / w
 *
 * Where the input is the bottleneck the CPU waits for it between chunks
 * (w > t): a GPU would compute faster what comes no faster. Where the CPU
 * is, it never waits, and r = c'. So the CPU keeps up while c' >=
 * AUTO_LATE_MARGIN r (it waits a fifth of the time or more); otherwise the
 * GPU starts, the length unknown taken as long enough to pay for its start.
 * The check runs after every chunk, so a producer that speeds up can still
 * start the GPU later in the run.
 *
 * The CPU's cost is per element (the exact sums cost about the same per
 * f32 and per f64: 1.50 and 2.84 GB/s on one core, bench/RESULTS.md), the
 * GPU's per byte (its pipeline is bound by reading and PCIe). The figures
 * are those of a 16-thread host with an H100 (bench/RESULTS.md);
 * bench/bench_e2e.sh measures what fits them again:
 *   cpu_me  = elements / (--backend cpu seconds at 8G) / threads
 *   gpu_gbs = bytes / (run, from -v's process line of --backend cuda)
 *   S       = backend choice + buffers + backend open (the same line)
 *   F       = teardown, and auto's "pinned in" from -v
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "auto_plan.h"
#include "group_gpu.h"
#include "gvals.h"

#define AUTO_GPU_START_S 0.40	/* S: context about 0.35 s, then its open */
#define AUTO_GPU_FIXED_S 0.15	/* F */
/* The revision starts a GPU only where the CPU's time left is predicted
 * to pass the GPU's by more than a quarter: S alone spread that much
 * between runs (auto's GPU ready after 260-380 ms, bench/RESULTS.md), and
 * a GPU started needlessly costs its start's core and a slower end. On a
 * pipe, the CPU must compute a quarter faster than the input comes. */
#define AUTO_LATE_MARGIN 1.25
/* ... and trusts the CPU's rate (and a pipe's) after 20 ms of its chunks:
 * 2 chunks of 64 MiB take 4.6 ms at the plan's 29.4 GB/s for a sum of f32
 * on 16 threads, and a stall of 9 ms among them would read as a CPU 3x
 * slower. At a tenth of the plan's rate one chunk takes 23 ms: a slow CPU
 * is found as soon. */
#define AUTO_LATE_MIN_S 0.02

struct auto_rate {
	enum gs_cmd cmd;
	int op;			/* enum gs_op, or -1 for any */
	int ranged;		/* hist: 1 ranged bins, 0 one per value, -1 any */
	int type;		/* enum gs_type, or -1 for any */
	double cpu_me;		/* CPU: millions of elements/s per thread */
	double gpu_gbs;		/* GPU pipeline: GB/s of input */
	const char *what;
};

/* The first row that matches the job, else its operation's own (the RATE
 * of its row of ops.def, measured as these are). cpu_me from --backend cpu
 * on 16 threads: sum f32 1 GiB in 0.182 s (5.9 GB/s), hist u8 4 GiB
 * 0.507 s, hist f32 100 bins 1 GiB 0.364 s, scan f32 1 GiB 0.356 s; stats,
 * dot and max by their ratio to the sum on one core (1.04, 1.09, 2.06).
 * gpu_gbs: --backend cuda reads 8 GiB in 0.29 s of busy time (30 GB/s);
 * a scan also copies and writes its output back. A row that is off is
 * corrected while the run goes (the revision, auto_plan_late). */
static const struct auto_rate auto_rates[] = {
	{ CMD_HIST, -1, 0, -1, 530, 30, "a histogram of one bin per value" },
	/* the vectorized f32 kernels, --backend cpu on 8 GiB of f32 normals
	 * on 16 cores: hist 100 bins 1.233 s, stats 0.527 s, dot --pairs
	 * 0.451 s, reduce max 0.229 s (the rows for other types are the
	 * figures above) */
	{ CMD_HIST, -1, 1, GS_F32, 109, 30, "a histogram of ranged bins" },
	{ CMD_STATS, -1, -1, GS_F32, 255, 30, "stats" },
	/* the narrow integer blocks (one column of 8- or 16-bit values, or
	 * 2, 3, 4, 6 or 8 of them in lanes; other counts are slower, and the
	 * revision finds it), at one thread's ratio to the f32 kernel per
	 * byte: u8 1.0, i16 1.3 */
	{ CMD_STATS, -1, -1, GS_U8, 1000, 30, "stats" },
	{ CMD_STATS, -1, -1, GS_I8, 1000, 30, "stats" },
	{ CMD_STATS, -1, -1, GS_U16, 640, 30, "stats" },
	{ CMD_STATS, -1, -1, GS_I16, 640, 30, "stats" },
	{ CMD_DOT, -1, -1, GS_F32, 297, 30, "a dot product" },
	/* the narrow integer blocks: --pairs per byte 0.87 (i16) and 0.59
	 * (u8) of the f32 kernel's on one thread */
	{ CMD_DOT, -1, -1, GS_U8, 700, 30, "a dot product" },
	{ CMD_DOT, -1, -1, GS_I8, 700, 30, "a dot product" },
	{ CMD_DOT, -1, -1, GS_U16, 510, 30, "a dot product" },
	{ CMD_DOT, -1, -1, GS_I16, 510, 30, "a dot product" },
	/* f32 sums: windowed doubles (cpu_fsum32.c) on the file mapped in
	 * place; 8 GiB on 16 threads in 0.291 s */
	{ CMD_REDUCE, OP_SUM, -1, GS_F32, 460, 30, "a sum" },
	/* integers in narrow lanes, per byte against the f32 sum on one
	 * thread: u8 0.7, i16 1.4, i32 1.5, u64 (the __int128 loop) 1.0 */
	{ CMD_REDUCE, OP_SUM, -1, GS_U8, 1290, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_I8, 1290, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_U16, 920, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_I16, 920, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_U32, 460, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_I32, 460, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_U64, 230, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, GS_I64, 230, 30, "a sum" },
	{ CMD_REDUCE, OP_SUM, -1, -1, 92, 30, "a sum" },
	{ CMD_REDUCE, OP_MIN, -1, -1, 585, 30, "a minimum" },
	{ CMD_REDUCE, OP_MAX, -1, -1, 585, 30, "a maximum" },
	/* ops.def's rates of quantile's passes (mode of 8/16-bit types is
	 * the first) and mode's hash tables: on one core a select pass over
	 * 64M f32 takes 0.11 to 0.17 s of submit, the sum 0.155 s, so about
	 * the sum's rate. Mode's hash tables: one core inserts 8M u32 of 1000
	 * values at 420 M/s, 64M random ones (a table past its limit) at
	 * 4 M/s. With an H100 (bench/RESULTS.md) the GPU's select passes are
	 * exact but slower end to end than the CPU's at 1 GiB (quantile f32
	 * 0.79 s against 0.42, f64 0.90 against 0.25; mode u8/u16 0.61 against
	 * 0.17-0.28), and mode's tables are faster on the GPU only on data of
	 * many distinct values (u32: 0.63 s against 1.00), which auto cannot
	 * know beforehand: a GPU rate of 0 keeps auto on the CPU for them;
	 * --backend cuda runs them. */
	/* the 64-bit integer scan (a sum of 8- to 32-bit values into i64 or
	 * u64): i16 about 1000 M/s on one thread; sixteen threads write 8
	 * bytes an element, so a quarter */
	{ CMD_SCAN, OP_SUM, -1, GS_U8, 250, 15, "a scan" },
	{ CMD_SCAN, OP_SUM, -1, GS_I8, 250, 15, "a scan" },
	{ CMD_SCAN, OP_SUM, -1, GS_U16, 250, 15, "a scan" },
	{ CMD_SCAN, OP_SUM, -1, GS_I16, 250, 15, "a scan" },
	{ CMD_SCAN, OP_SUM, -1, GS_U32, 250, 15, "a scan" },
	{ CMD_SCAN, OP_SUM, -1, GS_I32, 250, 15, "a scan" },
};

/* Each operation's own rate, for any job of it: the RATE column of
 * ops.def, in the order of enum gs_cmd. */
static const struct auto_rate op_rates[] = {
#define OPERATION(id, name, cpu, gpu, state, rate, ...) \
	{ CMD_##id, -1, -1, -1, rate },
#define RATE(cpu_me, gpu_gbs, what) cpu_me, gpu_gbs, what
#include "ops.def"
#undef OPERATION
#undef RATE
};

/* Whether auto may take the GPU for job at all (why[n] says why not; why
 * may be NULL). A group-by: where its keys cannot outgrow the device
 * table (group_gpu_auto), or, for a plan from the input's known size
 * (sized), whatever its keys (group_gpu_auto_sized): the plan then weighs
 * the GPU against the CPU's rate with few keys, its fastest. The revisions
 * (auto_plan_late, auto_plan_stream) take it only in the first case: a CPU
 * slower than planned is one with many keys, which the GPU's table may not
 * hold either. A group-by's quantile or median: of the packed form, in
 * little-endian records (gvals_gpu_auto). */
static bool gpu_takes(const struct gs_job *job, bool sized, char *why,
		      size_t n)
{
	char none[1];

	if (job->cmd != CMD_GROUP && job->cmd != CMD_GVALS)
		return true;
	if (!why) {
		why = none;
		n = sizeof(none);
	}
	if (job->cmd == CMD_GVALS)
		return gvals_gpu_auto(job, why, n);
	return sized ? group_gpu_auto_sized(job, why, n) :
		       group_gpu_auto(job, why, n);
}

static const struct auto_rate *rate_of(const struct gs_job *job)
{
	size_t n = sizeof(auto_rates) / sizeof(auto_rates[0]);

	for (size_t i = 0; i < n; i++) {
		const struct auto_rate *r = &auto_rates[i];

		if (r->cmd == job->cmd &&
		    (r->op < 0 || r->op == (int)job->op) &&
		    (r->ranged < 0 || r->ranged == (int)job->ranged) &&
		    (r->type < 0 || r->type == (int)job->dtype.type))
			return r;
	}
	return &op_rates[job->cmd];
}

/* What -v calls job: the rate's name, and for a 2-D histogram its bins:
 * the CPU's threads, and so its rate, follow from them (each thread keeps
 * its own counts, within the accumulators' limit: at 4096 x 4096, 2 bytes
 * a bin leave 27 threads; 8 left 6, and 2.7x the time, on the H200 of
 * ops.def's row). Into buf[n], or r->what. */
static const char *what_of(const struct auto_rate *r, const struct gs_job *job,
			   char *buf, size_t n)
{
	if (job->cmd != CMD_HIST2D && job->cmd != CMD_HIST2DW)
		return r->what;
	snprintf(buf, n, "%s (%llux%llu bins)", r->what,
		 (unsigned long long)job->bins,
		 (unsigned long long)job->ybins);
	return buf;
}

/* The CPU's rate for job on threads threads, in bytes of input per second
 * (a group-by's rates are in records). */
static double cpu_rate(const struct auto_rate *r, const struct gs_job *job,
		       int threads)
{
	double size = (double)type_size(job->dtype.type);

	if (job->cmd == CMD_GROUP || job->cmd == CMD_GVALS)
		size = job->rec ? (double)job->rec->size : size * job->columns;

	return r->cpu_me * 1e6 * size * (threads < 1 ? 1 : threads);
}

/* Seconds for b bytes with a GPU started now, the CPU computing at cpu
 * bytes/s until it is ready; 0 when the CPU is done before (b <= cpu S). */
static double gpu_time(const struct auto_rate *r, double b, double cpu)
{
	double s = AUTO_GPU_START_S;

	if (b <= cpu * s)
		return 0;
	return s + (b - cpu * s) / (r->gpu_gbs * 1e9) + AUTO_GPU_FIXED_S;
}

bool auto_plan_gpu(const struct gs_job *job, int64_t input_bytes,
		   bool compressed, int threads, char *why, size_t n)
{
	const struct auto_rate *r = rate_of(job);
	double cpu = cpu_rate(r, job, threads), b = (double)input_bytes;
	double s = AUTO_GPU_START_S, t_cpu, t_gpu;
	char wbuf[80];
	const char *what = what_of(r, job, wbuf, sizeof(wbuf));
	char tbuf[80];
	const char *tn = job->rec ? record_name(job->rec, tbuf, sizeof(tbuf)) :
				    type_name(job->dtype.type);

	const char *hook = getenv(AUTO_CPU_CHUNKS_ENV);

	if (hook && *hook) {
		snprintf(why, n, "%s is set: the CPU starts, the GPU takes "
			 "over once it is ready", AUTO_CPU_CHUNKS_ENV);
		return true;
	}
	if (!gpu_takes(job, input_bytes >= 0 && !compressed, why, n))
		return false;
	if (r->gpu_gbs <= 0) {
		snprintf(why, n, "%s runs on the CPU under auto: its GPU "
			 "kernels were slower end to end where measured "
			 "(--backend cuda runs them)", what);
		return false;
	}
	if (compressed) {
		/* one core decodes 0.4-0.5 GB/s of zstd (bench/RESULTS.md),
		 * below what the CPU computes on a core's share; the cores
		 * decode, and a GPU's start would take one of them and 0.4 s:
		 * 16 frames of i16 summed in 0.318 s on the CPU, 0.370 s with
		 * the GPU started, one frame 3.04 s against 3.19 */
		snprintf(why, n, "compressed input: decoding it on the CPU is "
			 "the limit, not %s of %s, and a GPU's start would take "
			 "a core from it: the CPU", what,
			 tn);
		return false;
	}
	if (job->cold_input) {
		snprintf(why, n, "a file mostly on disk: it comes at the "
			 "disk's rate, unknown before it is read, far below what "
			 "%s of %s computes on %d thread%s: the CPU, watched as "
			 "for a pipe", what, tn, threads, threads == 1 ? "" : "s");
		return false;
	}
	if (input_bytes < 0) {
		snprintf(why, n, "input of unknown length: the CPU, watched "
			 "against the input's rate: the GPU starts should %s of "
			 "%s on %d thread%s not compute %.2f times as fast as "
			 "the input comes (an unknown length is taken as long)",
			 what, tn, threads,
			 threads == 1 ? "" : "s", AUTO_LATE_MARGIN);
		return false;
	}
	t_cpu = b / cpu;
	t_gpu = gpu_time(r, b, cpu);
	if (t_gpu == 0) {
		snprintf(why, n, "%s of %lld bytes of %s: about %.3f s on %d "
			 "CPU thread%s (%.1f GB/s), done before a GPU could "
			 "start (%.2f s): the CPU", what,
			 (long long)input_bytes, tn,
			 t_cpu, threads, threads == 1 ? "" : "s", cpu / 1e9, s);
		return false;
	}
	snprintf(why, n, "%s of %lld bytes of %s: about %.3f s on %d CPU "
		 "thread%s (%.1f GB/s) against %.3f s with a GPU (%.2f s to "
		 "start, then %.0f GB/s): %s", what, (long long)input_bytes,
		 tn, t_cpu, threads,
		 threads == 1 ? "" : "s", cpu / 1e9, t_gpu,
		 s, r->gpu_gbs, t_gpu < t_cpu ? "the CPU starts, the GPU takes "
		 "over once it is ready" : "the CPU");
	char no[160];

	if (t_gpu < t_cpu && job->cmd == CMD_GROUP &&
	    !group_gpu_auto(job, no, sizeof(no))) {
		size_t len = strlen(why);

		snprintf(why + len, n - len, " (keys past the GPU's table of "
			 "%llu are folded on the CPU)",
			 (unsigned long long)group_gpu_max_keys(job));
	}
	return t_gpu < t_cpu;
}

bool auto_plan_watch(const struct gs_job *job, int64_t input_bytes,
		     bool compressed)
{
	return input_bytes != 0 && !compressed && rate_of(job)->gpu_gbs > 0 &&
	       gpu_takes(job, false, NULL, 0);
}

/* GPUSTAT_AUTO_CPU_GBS as bytes per second; 0 unless set to a finite
 * number above 0 (anything else is as if unset). */
static double hook_rate(void)
{
	const char *hook = getenv(AUTO_CPU_GBS_ENV);
	char *end;
	double r;

	if (!hook || !*hook)
		return 0;
	r = strtod(hook, &end);
	return *end == '\0' && isfinite(r) && r > 0 ? r * 1e9 : 0;
}

bool auto_plan_faked(void)
{
	return hook_rate() > 0;
}

bool auto_plan_late(const struct gs_job *job, int threads, uint64_t done,
		    double secs, uint64_t left, char *why, size_t n)
{
	const struct auto_rate *r = rate_of(job);
	double plan = cpu_rate(r, job, threads), cpu = hook_rate(), t_cpu, t_gpu;
	bool faked = cpu > 0;

	if (!faked && secs > 0)
		cpu = (double)done / secs;
	snprintf(why, n, "the CPU ran at %.2f GB/s%s, the plan's %.2f",
		 cpu / 1e9, faked ? " (" AUTO_CPU_GBS_ENV ")" : "", plan / 1e9);
	if (r->gpu_gbs <= 0 || cpu <= 0 || (!faked && secs < AUTO_LATE_MIN_S) ||
	    !gpu_takes(job, false, NULL, 0))
		return false;
	t_gpu = gpu_time(r, (double)left, cpu);
	t_cpu = (double)left / cpu;
	if (t_gpu == 0 || t_cpu <= AUTO_LATE_MARGIN * t_gpu)
		return false;
	size_t len = strlen(why);

	snprintf(why + len, n - len, ": %.3f s left on it against %.3f s "
		 "with a GPU", t_cpu, t_gpu);
	return true;
}

bool auto_plan_stream(const struct gs_job *job, uint64_t done, double secs,
		      double wall, char *why, size_t n)
{
	double cpu = hook_rate(), in = wall > 0 ? (double)done / wall : 0;
	bool faked = cpu > 0, brief;
	const char *verdict;

	if (!faked && secs > 0)
		cpu = (double)done / secs;
	brief = cpu <= 0 || in <= 0 || (!faked && secs < AUTO_LATE_MIN_S);
	bool start = !brief && rate_of(job)->gpu_gbs > 0 &&
		     gpu_takes(job, false, NULL, 0) &&
		     cpu < AUTO_LATE_MARGIN * in;

	verdict = start ? "" : brief ? "alone, too briefly measured to judge: "
		  "it " : "kept up: it ";
	snprintf(why, n, "%scomputed at %.2f GB/s%s, the input came at %.2f "
		 "GB/s", verdict, cpu / 1e9,
		 faked ? " (" AUTO_CPU_GBS_ENV ")" : "", in / 1e9);
	return start;
}
