/*
 * scan_host_check.cu - host-only check of the GPU scan's (cuda/scan/)
 * __host__ __device__ pieces against the CPU code; no GPU needed.
 *
 *   1. ieee.h's ieee_round (one rounding of (m + d) * 2^e), which the scan
 *      shares with the CPU, and ieee_round_fast and scan_round_f64 against
 *      a slow reference written here (guard, round and sticky bits one at a
 *      time), itself checked against the host's long double conversions,
 *      every format;
 *   2. sum_round of random K-limb fixed-point values against xsum_round of
 *      the same value built in a struct xsum; scan_sum_hw's element and
 *      output conversions against scan_sum_window<T, 1>'s at random window lsbs
 *      of its range (chunks in 4 that take scan_sum_hw replay both);
 *   3. the prod monoids: a factor's bracket and a chain of them against
 *      xprod.c's element steps (fprod_mul_f64, iprod_mul), the one-factor
 *      step against the full merge, the rounding against fprod_round;
 *   4. whole scans: the kernels' three phases replayed on the host with the
 *      same monoids in the device's grouping (thread runs, warp shuffles,
 *      warp totals, tiles, the carry per column, chunk splits, the status
 *      and its message) against cpu_scan, byte for byte, for every type,
 *      op, output type, --exclusive and 1-3 columns. prod scans get data
 *      of every kind (near 1, 1 + ulp, zeros, signs, NaN and inf,
 *      subnormals, runs that overflow and underflow and come back, exact
 *      products and ties, engineered near-ties, integer overflow of the
 *      output type and of 128 bits). Where the CPU and the replay both
 *      fail they must fail alike, and the outputs before the first failure
 *      must be equal. A float prefix within about n * 2^-126 of a rounding
 *      tie may fail on one side only (the brackets depend on the grouping,
 *      as between the CPU's thread counts): counted, not a failure; every
 *      float prod output either side wrote is also checked against the
 *      exact prefix (a bignum) correctly rounded.
 *   5. --backend auto's hand-over of a scan: cpu_scan over a prefix of the
 *      data (or the threaded CPU's merged slice totals), its state turned
 *      into the GPU's carry by scan_seed_host (gpu_scan_seed's conversion),
 *      the rest replayed as in 4 from that carry, against one cpu_scan of
 *      everything: every type, op (prod is refused), output type, split,
 *      1-3 columns, --exclusive, with NaN, infinities, signed zeros, the
 *      largest and the subnormal values, cancellations and integer
 *      extremes; overflow errors must name the same record.
 *
 * Build and run (after make): sh tests/gpu/scan_host_check.sh; make check
 * runs it through tests/test_gpu_host.sh wherever nvcc is found.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <limits>
#include <vector>
#include "scan_handle.cuh"
extern "C" {
#include "algorithm.h"
#include "cpu_red.h"
}

static unsigned long long fails, checks, scans, scan_errors;
/* The block scan whole scans are replayed with (--algorithm): the default's,
 * then again each classic one's. */
static enum gs_algo check_algo = ALGO_DEFAULT;
static unsigned long long win_chunks[5], win_switches;	/* by mode */

#define EXPECT(cond, ...) do {                                            \
	checks++;                                                         \
	if (!(cond) && fails++ < 20) {                                    \
		printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

static u64 rng_state = 0x9e3779b97f4a7c15ull;

static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#include "tie_pad.h"

static u64 rnd_bits(int nb)
{
	return nb <= 0 ? 0 : nb >= 64 ? rnd() : rnd() & ((1ull << nb) - 1);
}

#include "scan_check_round.cuh"
#include "scan_check_emu.cuh"
#include "scan_check_data.cuh"

/* ---- drivers ------------------------------------------------------------- */

static void check_scans(void)
{
	static const enum gs_op ops[] = { OP_SUM, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
	static const size_t sizes[] = { 0, 1, 2, 100, SCAN_TILE + 3, 3 * SCAN_TILE + 17 };

	for (int t = GS_U8; t < GS_NTYPES; t++)
		for (unsigned o = 0; o < 6; o++) {
			if (type_is_float((enum gs_type)t) && ops[o] >= OP_AND)
				continue;
			for (int ot = GS_U8; ot < GS_NTYPES; ot++) {
				if (type_is_float((enum gs_type)t) &&
				    !type_is_float((enum gs_type)ot))
					continue;
				for (int k = 0; k < 4; k++)
					check_scan_one((enum gs_type)t, ops[o],
						       (enum gs_type)ot, rnd() & 1,
						       1 + (unsigned)(rnd() % 3),
						       sizes[rnd() % 6], (int)(rnd() % 6));
			}
		}
}

/* More float sums where the window matters: narrow, 3 limbs, switching. */
static void check_windows(void)
{
	static const enum gs_type ts[] = { GS_BF16, GS_F32, GS_F64 };
	static const size_t sizes[] = { 100, 3000, 7000 };
	static const int modes[] = { 1, 4, 5 };

	for (int i = 0; i < 120; i++)
		check_scan_one(ts[i % 3], OP_SUM,
			       (enum gs_type)(GS_F16 + (int)(rnd() % 4)), rnd() & 1,
			       1 + (unsigned)(rnd() % 2), sizes[rnd() % 3],
			       modes[rnd() % 3]);
}

/* prod scans: every input and output type, every kind of data, 1-3
 * columns, --exclusive or not, chunk splits; then near-ties, and long
 * runs whose chunks have more tiles than the carry kernel's block. */
static void check_prods(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 9, 100, SCAN_TILE + 3,
					3 * SCAN_TILE + 17, 7000 };
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);

	for (int t = GS_U8; t < GS_NTYPES; t++) {
		bool flt = type_is_float((enum gs_type)t);

		for (int ot = flt ? GS_F16 : GS_U8; ot < GS_NTYPES; ot++)
			for (int k = 0; k < (flt ? (int)P_NKINDS : (int)Q_NKINDS); k++)
				for (int r = 0; r < 2; r++)
					check_scan_one((enum gs_type)t, OP_PROD,
						       (enum gs_type)ot, rnd() & 1,
						       1 + (unsigned)(rnd() % 3),
						       sizes[rnd() % nsizes], k);
	}
	for (int i = 0; i < 1600; i++)
		check_scan_one((enum gs_type)(GS_F16 + i % 4), OP_PROD,
			       (enum gs_type)(GS_F16 + i / 4 % 4), rnd() & 1,
			       1 + (unsigned)(rnd() % 2), 50 + rnd() % 3000, P_TIE);
	/* 600000 records: 293 tiles, in 293 parts (two rounds of the carry
	 * kernel) or, with 264 blocks, 147 parts of two tiles */
	for (int k : { P_ULP, P_NEAR1, P_SWING, P_ZEROS })
		check_scan_one(GS_F32, OP_PROD, k == P_SWING ? GS_F64 : GS_F32,
			       rnd() & 1, 1, 600000, k, k == P_ULP ? 300000 : 600000,
			       528);
	check_scan_one(GS_F64, OP_PROD, GS_F64, true, 1, 600000, P_NEAR1, 0, 264);
	check_scan_one(GS_I16, OP_PROD, GS_I64, false, 1, 600000, Q_ONES, 0, 528);
	check_scan_one(GS_U8, OP_PROD, GS_F32, true, 2, 300000, Q_ONES, 0, 528);
}

/* The whole scans again with each classic block scan (--algorithm
 * hillis-steele, blelloch): their replays must give the CPU's bytes too.
 * Products of every kind of data, fewer than check_prods' (the block scan
 * is checked on every monoid by scan_algos_host_check). */
static unsigned long long classic_scans;

static void check_classic(void)
{
	static const size_t sizes[] = { 1, 9, 100, SCAN_TILE + 3, 3 * SCAN_TILE + 17 };
	unsigned long long before = scans;

	for (enum gs_algo a : { ALGO_HILLIS_STEELE, ALGO_BLELLOCH }) {
		check_algo = a;
		check_scans();
		check_windows();
		for (int t = GS_U8; t < GS_NTYPES; t++) {
			bool flt = type_is_float((enum gs_type)t);

			for (int k = 0; k < (flt ? (int)P_NKINDS : (int)Q_NKINDS); k++)
				check_scan_one((enum gs_type)t, OP_PROD,
					       (enum gs_type)(flt ? GS_F16 + rnd() % 4
							      : GS_U8 + rnd() % 12),
					       rnd() & 1, 1 + (unsigned)(rnd() % 3),
					       sizes[rnd() % 5], k);
		}
	}
	check_algo = ALGO_DEFAULT;
	classic_scans = scans - before;
}

/* ---- 5. the hybrid's hand-over: the CPU's state as the GPU's carry ------- */

/* Edge values of type t. Floats: +-0, the largest finite, the smallest
 * subnormal, huge and subnormal values, values near 1 and of any binade,
 * exact cancellations of the previous one; style 1 adds one or two of NaN,
 * +inf, -inf at random places. Integers: the type's extremes, 0, +-1, and
 * small values (style 0: extremes rare) or random bits (style 1). */
static void gen_edge(enum gs_type t, unsigned char *p, size_t n, int style)
{
	const int w = 8 * (int)type_size(t);
	const u64 sign = 1ull << (w - 1), umax = w == 64 ? ~0ull : (1ull << w) - 1;

	for (size_t i = 0; i < n; i++) {
		u64 r = rnd(), b;

		if (!type_is_float(t)) {
			bool sgn = type_is_signed(t);

			if (style == 0 && r % 100)
				b = (u64)((long long)(r >> 8 & 7) - 3);
			else if (r % 5 == 0)
				b = sgn ? sign : 0;		/* the least */
			else if (r % 5 == 1)
				b = sgn ? umax >> 1 : umax;	/* the largest */
			else if (r % 5 == 2)
				b = r >> 8 & 1 ? ~0ull : r >> 9 & 1;	/* -1, 0, 1 */
			else
				b = rnd();
			put_bits(t, p, i, b);
			continue;
		}
		const int pb = fmt_p(t), bias = fmt_emax(t);
		const u64 mant = (1ull << (pb - 1)) - 1, s = r >> 63 ? sign : 0;
		u64 e;

		switch (r % 12) {
		case 0: b = s | (u64)(2 * bias) << (pb - 1) | mant; break;
		case 1: b = s | 1; break;
		case 2: b = s; break;
		case 3: b = s | (u64)(2 * bias - (int)((r >> 8) % 4)) << (pb - 1) |
			    (rnd() & mant); break;
		case 4: b = s | (rnd() & mant); break;
		case 5:
			if (i) {
				b = 0;
				memcpy(&b, p + (i - 1) * type_size(t), type_size(t));
				b ^= sign;
				break;
			}
			/* fall through */
		case 6:
		case 7:		/* any binade */
			e = 1 + (r >> 8) % (2 * (u64)bias);
			b = s | e << (pb - 1) | (rnd() & mant);
			break;
		default:	/* near 1 */
			e = (u64)(bias + (int)((r >> 8) % 21) - 10);
			b = s | e << (pb - 1) | (rnd() & mant);
			break;
		}
		put_bits(t, p, i, b);
	}
	for (int k = style && n ? 1 + (int)(rnd() % 2) : 0; k > 0; k--) {
		const int pb = fmt_p(t);
		const u64 inf = (u64)(2 * fmt_emax(t) + 1) << (pb - 1);
		u64 r = rnd();

		put_bits(t, p, rnd() % n, r % 3 == 0 ? inf | 1ull << (pb - 2) :
				       r % 3 == 1 ? inf : inf | sign);
	}
}

/* Hand-overs replayed, by outcome: every output equal; an error after the
 * hand-over (on the GPU's side), equal; an error in the CPU's part; a
 * NaN/inf flag in the carry; states made the threaded CPU's way. */
static unsigned long long ho_ok, ho_gpu_err, ho_cpu_err, ho_flags, ho_threaded;

/* Whether column states carry a NaN or an infinity. */
static bool ho_special(const struct gs_job *job, const struct red_col *st)
{
	for (unsigned c = 0; c < job->columns; c++)
		if (type_is_float(job->dtype.type) &&
		    (job->op == OP_SUM ? st[c].u.sum.nan || st[c].u.sum.pinf ||
					 st[c].u.sum.ninf
				       : st[c].u.mm.nan))
			return true;
	return false;
}

/* The state of the first n records as the threaded CPU backend leaves it:
 * two slices' totals (reduce_kernels, as total_task) merged. */
static void ho_threaded_state(const struct gs_job *job, const unsigned char *data,
			      size_t n, void *scratch, struct red_col *st)
{
	size_t a = n ? rnd() % (n + 1) : 0, rec = job_record_size(job);
	std::vector<struct red_col> s1(job->columns), s2(job->columns);

	reduce_kernels.acc_init(job, st);
	reduce_kernels.acc_init(job, s1.data());
	reduce_kernels.acc_init(job, s2.data());
	if (a)
		reduce_kernels.cpu_add(job, s1.data(), scratch, data, NULL, a);
	if (n - a)
		reduce_kernels.cpu_add(job, s2.data(), scratch, data + a * rec,
				       NULL, n - a);
	reduce_kernels.acc_merge(job, st, s1.data());
	reduce_kernels.acc_merge(job, st, s2.data());
}

/* One scan's output and status against the hand-over's: the same status,
 * and the same bytes of nrec records of rec bytes (elements of esize), up
 * to a failing record. */
static void ho_compare(const char *what, int crc, size_t cbad,
		       const struct gs_err *cerr, const unsigned char *cout,
		       int grc, size_t gbad, const struct gs_err *gerr,
		       const unsigned char *hout, size_t nrec, size_t rec,
		       size_t esize)
{
	size_t at = 0;

	EXPECT(crc == grc, "%s: rc cpu %d, hand-over %d (%s)", what, crc, grc,
	       crc ? cerr->what : gerr->what);
	if (crc != grc)
		return;
	if (crc) {
		EXPECT(cbad == gbad && !strcmp(cerr->what, gerr->what) &&
		       !memcmp(cout, hout, cbad * rec),
		       "%s: error cpu '%s' at %zu, hand-over '%s' at %zu", what,
		       cerr->what, cbad, gerr->what, gbad);
		ho_gpu_err++;
		return;
	}
	while (at < nrec * rec && cout[at] == hout[at])
		at++;
	EXPECT(at == nrec * rec, "%s: output differs at element %zu", what,
	       at / esize);
	ho_ok++;
}

/*
 * --backend auto's scan: cpu_scan over the first `split` records (two
 * calls, as two chunks), its state converted by scan_seed_host (what
 * gpu_scan_seed copies to the device) into the carry of the variant
 * scan_bind_job binds, the rest replayed on the GPU path from that carry
 * (the status naming records from `split` on). Every output, and any
 * error (record, message, the outputs before it), must be those of one
 * cpu_scan over everything.
 */
static void check_handover_one(enum gs_type t, enum gs_op op, enum gs_type ot,
			       bool excl, unsigned cols, size_t nrec, size_t split,
			       int kind, size_t chunk)
{
	struct gs_job job;
	size_t isz = type_size(t), rec = cols * type_size(ot), a;
	size_t cbad = 0, hbad = 0, gbad = 0;
	std::vector<unsigned char> data(nrec * cols * isz + 8), cout(nrec * rec + 8),
		hout(nrec * rec + 8);
	std::vector<struct red_col> full(cols), st(cols);
	struct gs_err cerr, herr, gerr;
	struct gpu_scan g = {};
	void *scratch;
	char what[160];
	int crc, hrc, grc;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_SCAN;
	job.dtype.type = t;
	job.columns = cols;
	job.op = op;
	job.exclusive = excl;
	job.out_type = ot;
	g.job = job;
	scan_bind_job(&g);
	std::vector<unsigned char> seed(cols * g.vsize);

	if (kind < 6)
		gen(t, data.data(), nrec * cols, kind);
	else
		gen_edge(t, data.data(), nrec * cols, kind - 6);
	snprintf(what, sizeof(what), "hand-over %s op %d -> %s excl %d cols %u "
		 "n %zu split %zu kind %d chunk %zu", type_name(t), op,
		 type_name(ot), excl, cols, nrec, split, kind, chunk);
	scratch = malloc(std::max(cpu_scan_scratch_size(&job),
				  reduce_kernels.scratch_size(&job)));
	reduce_kernels.acc_init(&job, full.data());
	crc = cpu_scan(&job, full.data(), scratch, data.data(), nrec, cout.data(),
		       &cbad, &cerr);
	/* the CPU's part, as two chunks */
	a = split ? rnd() % (split + 1) : 0;
	reduce_kernels.acc_init(&job, st.data());
	hrc = cpu_scan(&job, st.data(), scratch, data.data(), a, hout.data(),
		       &hbad, &herr);
	if (hrc == 0) {
		hrc = cpu_scan(&job, st.data(), scratch, data.data() + a * cols * isz,
			       split - a, hout.data() + a * rec, &hbad, &herr);
		hbad += a;
	}
	if (hrc) {	/* stopped on the CPU: no hand-over */
		EXPECT(crc && cbad == hbad && !strcmp(cerr.what, herr.what) &&
		       !memcmp(cout.data(), hout.data(), cbad * rec),
		       "%s: the CPU's part failed otherwise (%s)", what, herr.what);
		ho_cpu_err++;
		free(scratch);
		return;
	}
	if (rnd() % 3 == 0) {
		ho_threaded_state(&job, data.data(), split, scratch, st.data());
		ho_threaded++;
	}
	free(scratch);
	ho_flags += ho_special(&job, st.data());
	if (!scan_seed_host(&job, st.data(), seed.data(), g.vsize)) {
		EXPECT(false, "%s: the state has no carry", what);
		return;
	}
	emu_blocks = rnd_blocks();
	grc = emu(&job, data.data() + split * cols * isz, nrec - split, chunk,
		  hout.data() + split * rec, &gbad, &gerr,
		  emu_from{ seed.data(), split, st.data() });
	gbad += split;
	ho_compare(what, crc, cbad, &cerr, cout.data(), grc, gbad, &gerr,
		   hout.data(), nrec, rec, type_size(ot));
}

/* A hand-over of each op, type and output type; more float sums, where
 * the seeded carry decides the first GPU chunks' windows; prod is never
 * seeded. */
static void check_handovers(void)
{
	static const enum gs_op ops[] = { OP_SUM, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
	static const size_t sizes[] = { 1, 2, 100, SCAN_TILE + 3, 3 * SCAN_TILE + 17, 7000 };
	static const size_t chunks[] = { 1, 7, SCAN_TILE - 1, SCAN_TILE + 1, 5000 };
	static const int fkinds[] = { 1, 2, 3, 4, 5, 6, 7 }, ikinds[] = { 0, 2, 6, 7 };

	for (int t = GS_U8; t < GS_NTYPES; t++) {
		bool flt = type_is_float((enum gs_type)t);

		for (unsigned o = 0; o < 6; o++) {
			if (flt && ops[o] >= OP_AND)
				continue;
			for (int ot = flt ? GS_F16 : GS_U8; ot < GS_NTYPES; ot++)
				for (int r = 0; r < (flt ? 3 : 1); r++) {
					size_t n = sizes[rnd() % 6];
					size_t sp[] = { 0, 1, n / 2, rnd() % (n + 1), n - 1, n };

					check_handover_one((enum gs_type)t, ops[o],
							   (enum gs_type)ot, rnd() & 1,
							   1 + (unsigned)(rnd() % 3), n,
							   sp[rnd() % 6],
							   flt ? fkinds[rnd() % 7] : ikinds[rnd() % 4],
							   chunks[n > 100 ? 1 + rnd() % 4 : rnd() % 5]);
				}
		}
	}
	for (int i = 0; i < 150; i++) {
		static const enum gs_type ts[] = { GS_F16, GS_BF16, GS_F32, GS_F64 };
		size_t n = 3000 + rnd() % 5000;

		check_handover_one(ts[i % 4], OP_SUM,
				   (enum gs_type)(GS_F16 + (int)(rnd() % 4)), rnd() & 1,
				   1 + (unsigned)(rnd() % 2), n, rnd() % (n + 1),
				   fkinds[3 + rnd() % 4], chunks[2 + rnd() % 3]);
	}
	for (int t = GS_U8; t < GS_NTYPES; t++) {
		struct gs_job job;
		struct gpu_scan g = {};
		struct red_col st[1];

		memset(&job, 0, sizeof(job));
		job.cmd = CMD_SCAN;
		job.dtype.type = (enum gs_type)t;
		job.columns = 1;
		job.op = OP_PROD;
		job.out_type = type_is_float(job.dtype.type) ? GS_F64 : GS_I64;
		g.job = job;
		scan_bind_job(&g);
		reduce_kernels.acc_init(&job, st);
		std::vector<unsigned char> seed(g.vsize);

		EXPECT(!scan_seed_host(&job, st, seed.data(), g.vsize),
		       "a prod scan of %s was seeded", type_name(job.dtype.type));
	}
}

int main(void)
{
	find_recipes();
	check_round();
	check_sum_round();
	check_wide_walk();
	check_prod_monoids();
	check_scans();
	check_windows();
	check_prods();
	check_classic();
	check_handovers();
	EXPECT(ho_ok && ho_gpu_err && ho_cpu_err && ho_flags && ho_threaded,
	       "hand-overs of every outcome replayed");
	EXPECT(win_chunks[0] && win_chunks[1] && win_chunks[2] &&
	       win_chunks[3] && win_chunks[4] && win_switches,
	       "every window mode and a switch between them replayed");
	EXPECT(pf_ok && pf_fail && pi_ok && pi_type && pi_wide,
	       "prod scans of every outcome replayed");
	EXPECT(wide_walks == win_chunks[0], "every wide chunk replayed as "
	       "scan_wide_out_kernel walks it");
	printf("float sum chunks: %llu wide (each walked as "
	       "scan_wide_out_kernel does too), %llu in 1 limb (%llu of them by "
	       "the hardware's conversions), %llu in 2, %llu in 3, %llu mode "
	       "switches\n", win_chunks[0], win_chunks[1] + win_chunks[4],
	       win_chunks[4], win_chunks[2], win_chunks[3], win_switches);
	printf("float prod scans: %llu both wrote every output (equal), %llu "
	       "both failed alike; one side failed first: the CPU %llu, the "
	       "GPU %llu; %llu failed at one record in other columns; %llu "
	       "outputs checked against the exact prefix\n", pf_ok, pf_fail,
	       pf_cpu_first, pf_gpu_first, pf_other_col, pf_oracle);
	printf("integer prod scans: %llu both wrote every output (equal), "
	       "both failed alike: %llu overflowing the output type, %llu "
	       "past 128 bits\n", pi_ok, pi_type, pi_wide);
	printf("hand-overs (CPU state -> GPU carry): %llu equal to one CPU "
	       "scan, %llu failing after the hand-over alike, %llu failing in "
	       "the CPU's part; %llu carried a NaN or inf, %llu states made "
	       "the threaded CPU's way\n", ho_ok, ho_gpu_err, ho_cpu_err,
	       ho_flags, ho_threaded);
	printf("classic block scans (hillis-steele, blelloch): %llu of the "
	       "scans replayed with them\n", classic_scans);
	printf("scan_host_check: %llu checks (%llu scans, %llu of them "
	       "errors on the CPU), %llu failed\n", checks, scans, scan_errors,
	       fails);
	return fails != 0;
}
