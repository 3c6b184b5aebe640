/*
 * bench_kernels.c - CPU kernel throughput on in-memory data, one thread.
 *
 * For each command, fold a buffer of random data (made once, outside the
 * timing) into a fresh accumulator a few times and report input GB/s, the
 * best of the repeats. No I/O: this is the ceiling the engine can reach on
 * one core. Build and run with bench/bench_cpu.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "acc.h"
#include "cpu_red.h"

#define REPEATS 3

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill(void *buf, size_t n, enum gs_type t)
{
	for (size_t i = 0; i < n; i++) {
		double u = (double)(next() >> 11) * 0x1p-53;	/* [0, 1) */

		if (t == GS_F32)
			((float *)buf)[i] = (float)(u * 2 - 0.5);
		else if (t == GS_F64)
			((double *)buf)[i] = u * 2 - 0.5;
		else if (t == GS_U8)
			((uint8_t *)buf)[i] = (uint8_t)next();
	}
}

static double run_acc(const struct gs_job *job, const void *d, const void *d2,
		      size_t nrec)
{
	const struct acc_kernels *k = acc_kernels_for(job);
	void *acc = malloc(k->acc_size(job));
	size_t ss = k->scratch_size(job);
	void *scratch = ss ? malloc(ss) : NULL;
	double best = 1e30;

	for (int r = 0; r < REPEATS; r++) {
		k->acc_init(job, acc);
		double t0 = now();

		k->cpu_add(job, acc, scratch, d, d2, nrec);
		double t = now() - t0;

		best = t < best ? t : best;
	}
	free(acc);
	free(scratch);
	return best;
}

static double run_scan(const struct gs_job *job, const void *d, size_t nrec)
{
	struct red_col state;
	size_t ss = cpu_scan_scratch_size(job);
	void *scratch = ss ? malloc(ss) : NULL;
	void *out = malloc(nrec * type_size(job->out_type));
	struct gs_err err;
	size_t bad;
	double best = 1e30;

	for (int r = 0; r < REPEATS; r++) {
		reduce_kernels.acc_init(job, &state);
		double t0 = now();

		if (cpu_scan(job, &state, scratch, d, nrec, out, &bad, &err) < 0)
			fprintf(stderr, "scan failed: %s\n", err.what);
		double t = now() - t0;

		best = t < best ? t : best;
	}
	free(out);
	free(scratch);
	return best;
}

struct bcase {
	const char *name;
	enum gs_cmd cmd;
	enum gs_type type;
	enum gs_op op;
	bool ranged;
	bool pairs;
};

static const struct bcase cases[] = {
	{ "sum f32", CMD_REDUCE, GS_F32, OP_SUM, false, false },
	{ "sum f64", CMD_REDUCE, GS_F64, OP_SUM, false, false },
	{ "dot f32 (A B)", CMD_DOT, GS_F32, OP_SUM, false, false },
	{ "dot f64 (A B)", CMD_DOT, GS_F64, OP_SUM, false, false },
	{ "stats f32", CMD_STATS, GS_F32, OP_SUM, false, false },
	{ "stats f64", CMD_STATS, GS_F64, OP_SUM, false, false },
	{ "hist u8", CMD_HIST, GS_U8, OP_SUM, false, false },
	{ "hist f32 --bins 100", CMD_HIST, GS_F32, OP_SUM, true, false },
	{ "reduce max f32", CMD_REDUCE, GS_F32, OP_MAX, false, false },
	{ "scan f32", CMD_SCAN, GS_F32, OP_SUM, false, false },
	{ "scan f64", CMD_SCAN, GS_F64, OP_SUM, false, false },
};

/* One random element of type t: integers take random bits; floats mix
 * magnitudes over 2^-20..2^20 and both signs, to exercise many exponents. */
static void gen_one(unsigned char *p, enum gs_type t)
{
	uint64_t r = next();
	double u = (double)(r >> 11) * 0x1p-53;
	double f = (u - 0.5) * ldexp(1.0, (int)(next() % 41) - 20);
	float g = (float)f;

	switch (t) {
	case GS_F64:
		memcpy(p, &f, 8);
		break;
	case GS_F32:
		memcpy(p, &g, 4);
		break;
	case GS_BF16: {
		uint32_t b;

		memcpy(&b, &g, 4);
		b >>= 16;
		memcpy(p, &b, 2);
		break;
	}
	case GS_F16: {
		/* a finite half: random sign, exponent 1..30, mantissa */
		uint16_t h = (uint16_t)((r & 0x8000) | ((1 + r % 30) << 10) |
					((r >> 20) & 0x3ff));
		memcpy(p, &h, 2);
		break;
	}
	default:
		memcpy(p, &r, type_size(t));
	}
}

/* Elements whose products stay in range, for prod: floats 1 + u * 2^-10
 * (|u| < 1/2, correctly rounded to the type), each negative with chance
 * 1/2; integers +-1 (signed types) with a 3 about every n / 50 elements,
 * at most 60 of them, so the product stays below 2^96. */
static void gen_near1(unsigned char *p, enum gs_type t, size_t n)
{
	static unsigned threes;
	uint64_t r = next();
	uint64_t bits;

	if (type_is_float(t)) {
		double v = 1 + ((double)(r >> 11) * 0x1p-53 - 0.5) * 0x1p-10;

		bits = round_f64(r & 1 ? -v : v, type_xfmt(t));
	} else {
		long long v = type_is_signed(t) && (r & 2) ? -1 : 1;

		if (r % (n / 50 + 1) == 0 && threes < 60) {
			v *= 3;
			threes++;
		}
		bits = (uint64_t)v;
	}
	memcpy(p, &bits, type_size(t));	/* little-endian: the low bytes */
}

/* Float elements on a grid (for a scan's one-limb window): integers of
 * the type's precision or less times a power of two, k * 2^-16 with
 * |k| < 2^23 for f32, 2^-4 and 2^7 for bf16, 2^-20 and 2^30 for f64 (and
 * f16). With odd set, element n/2 is 2^40 and the next -2^40 (a chunk
 * holding them needs a wider window), and element 2n/3 is a NaN. */
static void gen_grid(unsigned char *p, enum gs_type t, size_t i, size_t n,
		     bool odd)
{
	int bits = t == GS_F32 ? 23 : t == GS_BF16 ? 7 : t == GS_F16 ? 10 : 30;
	int lsb = t == GS_F32 ? -16 : t == GS_BF16 ? -4 : t == GS_F16 ? -14 : -20;
	long long k = (long long)(next() % (2ull << bits)) - (1ll << bits);
	double v = ldexp((double)k, lsb);

	if (odd && (i == n / 2 || i == n / 2 + 1))
		v = i == n / 2 ? 0x1p40 : -0x1p40;
	if (odd && i == 2 * n / 3)
		v = NAN;
	uint64_t b = round_f64(v, type_xfmt(t));

	memcpy(p, &b, type_size(t));	/* little-endian: the low bytes */
}

/* A standard normal (Box-Muller, from two uniforms in (0, 1]) rounded to
 * float type t: data of a few binades, like most measurements. */
static void gen_normal(unsigned char *p, enum gs_type t)
{
	double u = (double)((next() >> 11) + 1) * 0x1p-53;
	double v = (double)(next() >> 11) * 0x1p-53;
	uint64_t b = round_f64(sqrt(-2 * log(u)) * cos(2 * M_PI * v),
			       type_xfmt(t));

	memcpy(p, &b, type_size(t));	/* little-endian: the low bytes */
}

/* --gen TYPE MIB: write MIB MiB of random TYPE elements to stdout;
 * --gen-near1 TYPE MIB: elements for products (gen_near1);
 * --gen-grid TYPE MIB, --gen-grid-odd TYPE MIB: float elements on a grid
 * (gen_grid); --gen-normal TYPE MIB: float standard normals (gen_normal). */
enum gen_kind { GEN_RANDOM, GEN_NEAR1, GEN_GRID, GEN_GRID_ODD, GEN_NORMAL };

static int gen(const char *type, size_t mib, enum gen_kind kind)
{
	struct gs_dtype d;
	bool explicit;
	size_t block = 1 << 20;
	unsigned char *buf = malloc(block);

	if (!buf || type_parse(type, &d, &explicit) < 0)
		return 1;
	size_t sz = type_size(d.type), n = mib * block / sz;

	if (kind >= GEN_GRID && !type_is_float(d.type)) {	/* floats only */
		free(buf);
		return 1;
	}
	for (size_t i = 0; i < mib; i++) {
		for (size_t j = 0; j < block; j += sz) {
			if (kind == GEN_NEAR1)
				gen_near1(buf + j, d.type, n);
			else if (kind == GEN_NORMAL)
				gen_normal(buf + j, d.type);
			else if (kind >= GEN_GRID)
				gen_grid(buf + j, d.type, (i * block + j) / sz, n,
					 kind == GEN_GRID_ODD);
			else
				gen_one(buf + j, d.type);
		}
		if (fwrite(buf, 1, block, stdout) != block)
			return 1;
	}
	free(buf);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const char *const gens[] = {
		"--gen", "--gen-near1", "--gen-grid", "--gen-grid-odd",
		"--gen-normal",
	};

	for (int k = 0; argc == 4 && k < 5; k++)
		if (strcmp(argv[1], gens[k]) == 0)
			return gen(argv[2], (size_t)atol(argv[3]), (enum gen_kind)k);

	size_t bytes = (size_t)(argc > 1 ? atof(argv[1]) : 256) << 20;
	void *a = malloc(bytes), *b = malloc(bytes);

	if (!a || !b)
		return 1;
	printf("%-22s %10s\n", "kernel (1 thread)", "GB/s");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bcase *c = &cases[i];
		struct gs_job job = {
			.cmd = c->cmd, .dtype = { c->type, false }, .columns = 1,
			.op = c->op, .out_type = c->type, .ranged = c->ranged,
			.bins = 100, .lo = 0, .hi = 1, .two_inputs = c->cmd == CMD_DOT,
		};
		size_t n = bytes / type_size(c->type);
		double t;

		fill(a, n, c->type);
		fill(b, n, c->type);
		if (c->cmd == CMD_SCAN)
			t = run_scan(&job, a, n);
		else
			t = run_acc(&job, a, c->cmd == CMD_DOT ? b : NULL, n);
		/* dot reads both streams */
		double in = (double)bytes * (c->cmd == CMD_DOT ? 2 : 1);

		printf("%-22s %10.2f\n", c->name, in / t / 1e9);
	}
	free(a);
	free(b);
	return 0;
}
