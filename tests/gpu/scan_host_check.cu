/*
 * scan_host_check.cu - host-only check of cuda/scan_kernels.cu's
 * __host__ __device__ pieces against the CPU code; no GPU needed.
 *
 *   1. scan_round (one rounding of (m + d) * 2^e) against cpu_reduce.c's
 *      round_u128, every format;
 *   2. sum_round of random K-limb fixed-point values against xsum_round of
 *      the same value built in a struct xsum;
 *   3. whole scans: the kernels' three phases replayed serially on the
 *      host with the same monoids (tiles, carry per column, chunk splits,
 *      the status and its message) against cpu_scan, byte for byte, for
 *      every type, op, output type, --exclusive and 1-3 columns.
 *
 * Build and run (from the repository root, after make):
 *   nvcc -std=c++17 -O2 -Xcompiler -Wall,-Wextra -I src \
 *     tests/gpu/scan_host_check.cu build/cpu_scan.o build/cpu_reduce.o \
 *     build/xsum.o build/types.o -o /tmp/scan_host_check -lm
 *   /tmp/scan_host_check
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "../../cuda/scan_kernels.cu"
extern "C" {
#include "cpu_red.h"
}

static unsigned long long fails, checks, scans, scan_errors;
static unsigned long long win_chunks[4], win_switches;	/* by mode */

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

static u64 rnd_bits(int nb)
{
	return nb <= 0 ? 0 : nb >= 64 ? rnd() : rnd() & ((1ull << nb) - 1);
}

/* ---- 1. scan_round vs round_u128 ---------------------------------------- */

static void check_round(void)
{
	for (int f = XF_F16; f <= XF_F64; f++) {
		for (int i = 0; i < 200000; i++) {
			int nb = 1 + (int)(rnd() % 128);
			u128 m = (u128)rnd_bits(nb - 64) << 64 | rnd_bits(nb);
			long e = (long)(rnd() % 2400) - 1250;
			bool neg = rnd() & 1;
			u64 want, got;

			if (i % 7 == 0)		/* ties and near-ties */
				m |= (u128)1 << (rnd() % 100);
			want = round_u128(m, e, neg, (enum xfmt)f);
			got = scan_round(m, false, e, neg, scan_fmts[f]);
			EXPECT(want == got, "round fmt %d m %llx:%llx e %ld: %llx != %llx",
			       f, (u64)(m >> 64), (u64)m, e, got, want);
		}
	}
}

/* ---- 2. sum_round vs xsum_round ----------------------------------------- */

template <int K, int L>
static void check_sum_round_one(int f)
{
	sum_val<K> v;
	struct xsum x;
	int top = (int)(rnd() % K), style = (int)(rnd() % 4);

	for (int j = 0; j < K; j++)
		v.l[j] = j > top ? 0 : style == 0 ? rnd() :
			 style == 1 ? (rnd() % 3 == 0 ? rnd() : 0) :
			 style == 2 ? (j == top ? rnd_bits(1 + (int)(rnd() % 64)) : 0) :
			 (j == top || j == 0 ? rnd() : ~0ull * (rnd() & 1));
	if (rnd() & 1) {	/* negate: two's complement of K limbs */
		u64 c = 1;

		for (int j = 0; j < K; j++) {
			v.l[j] = ~v.l[j] + c;
			c = c && v.l[j] == 0;
		}
	}
	/* the same value: the limbs, less 2^(64K) when the top bit is set */
	xsum_init(&x);
	for (int j = 0; j < K; j++)
		xsum_add_u128(&x, v.l[j], L + 64 * j, false);
	if (v.l[K - 1] >> 63)
		xsum_add_u128(&x, 1, L + 64 * K, true);
	v.flags = rnd() % 16 == 0 ? (unsigned)(1 + rnd() % 7) : 0;
	x.nan = v.flags & EXACT_NAN;
	x.pinf = v.flags & EXACT_PINF;
	x.ninf = v.flags & EXACT_NINF;
	u64 want = xsum_round(&x, (enum xfmt)f), got = sum_round<K>(v, L, scan_fmts[f]);

	EXPECT(want == got, "sum_round K %d fmt %d top %d style %d: %llx != %llx",
	       K, f, top, style, got, want);
}

/* A narrow window's value at a random lsb against the wide one it
 * widens to (f64's 34 limbs, lsb -1074): the same rounding. */
template <int N>
static void check_sum_round_lsb(int f)
{
	sum_val<N> v;
	int w = -1074 + (int)(rnd() % (2176 - 64 * N));
	int top = (int)(rnd() % N);

	for (int j = 0; j < N; j++)
		v.l[j] = j > top ? 0 : rnd() % 3 ? rnd() : rnd_bits((int)(rnd() % 64));
	if (rnd() & 1) {
		u64 c = 1;

		for (int j = 0; j < N; j++) {
			v.l[j] = ~v.l[j] + c;
			c = c && v.l[j] == 0;
		}
	}
	v.flags = rnd() % 16 == 0 ? (unsigned)(1 + rnd() % 7) : 0;
	sum_val<34> wide = sum_widen<N, 34>(v, w + 1074);
	sum_val<N> back = sum_narrow<34, N>(wide, w + 1074);
	u64 want = sum_round<34>(wide, -1074, scan_fmts[f]);
	u64 got = sum_round<N>(v, w, scan_fmts[f]);

	EXPECT(want == got, "sum_round N %d lsb %d fmt %d: %llx != %llx", N, w,
	       f, got, want);
	EXPECT(!memcmp(back.l, v.l, sizeof(v.l)) && back.flags == v.flags,
	       "sum_narrow(sum_widen) N %d lsb %d", N, w);
}

static void check_sum_round(void)
{
	for (int f = XF_F16; f <= XF_F64; f++) {
		for (int i = 0; i < 20000; i++) {
			check_sum_round_one<2, 0>(f);
			check_sum_round_one<2, -24>(f);
			check_sum_round_one<6, -149>(f);
			if (i % 4 == 0)
				check_sum_round_one<34, -1074>(f);
			check_sum_round_lsb<2>(f);
			check_sum_round_lsb<3>(f);
		}
	}
}

/* ---- 3. whole scans against cpu_scan ------------------------------------ */

/* The kernels' phases, serially: tile totals, the carry per column, then
 * every thread's run from its tile prefix; the status as scan_fail and
 * scan_status_kernel leave it. Returns the chunk's status. */
template <class Op>
static struct scan_status emu_chunk(const scan_cfg &c, unsigned C,
				    std::vector<typename Op::V> &carry,
				    const typename Op::elem *in, size_t nrec,
				    unsigned osize, unsigned char *out)
{
	typedef typename Op::V V;
	size_t ntiles = (nrec + SCAN_TILE - 1) / SCAN_TILE;
	std::vector<V> tilev(C * ntiles);
	std::vector<scan_bad> bad(C * ntiles);
	struct scan_status st;

	memset(&st, 0xff, sizeof(st));
	for (unsigned col = 0; col < C; col++)
		for (size_t t = 0; t < ntiles; t++) {
			V tot = Op::ident(c);

			for (size_t r = t * SCAN_TILE; r < nrec && r < (t + 1) * SCAN_TILE; r++)
				tot = Op::add(tot, Op::of(in[r * C + col], c), c);
			tilev[col * ntiles + t] = tot;
		}
	for (unsigned col = 0; col < C; col++)
		for (size_t t = 0; t < ntiles; t++) {
			V tot = tilev[col * ntiles + t];

			tilev[col * ntiles + t] = carry[col];
			carry[col] = Op::add(carry[col], tot, c);
		}
	for (unsigned col = 0; col < C; col++)
		for (size_t t = 0; t < ntiles; t++) {
			u64 least = SCAN_NONE;
			__int128 lval = 0;

			for (unsigned th = 0; th < SCAN_THREADS; th++) {
				size_t r0 = t * SCAN_TILE + (size_t)th * SCAN_ITEMS;
				V run = tilev[col * ntiles + t];
				u64 key = SCAN_NONE, bits;
				__int128 val = 0, v;

				for (size_t r = t * SCAN_TILE; r < r0 && r < nrec; r++)
					run = Op::add(run, Op::of(in[r * C + col], c), c);
				for (int j = 0; j < SCAN_ITEMS && r0 + j < nrec; j++) {
					size_t r = r0 + j;
					V e = Op::of(in[r * C + col], c);

					if (!c.excl)
						run = Op::add(run, e, c);
					if (Op::out(run, c, &bits, &v))
						memcpy(out + (r * C + col) * osize, &bits, osize);
					else if (key == SCAN_NONE) {
						key = (u64)r * C + col;
						val = v;
					}
					if (c.excl)
						run = Op::add(run, e, c);
				}
				if (key < least) {
					least = key;
					lval = val;
				}
			}
			if (c.can_fail && least != SCAN_NONE) {
				bad[col * ntiles + t].lo = (u64)lval;
				bad[col * ntiles + t].hi = (u64)((u128)lval >> 64);
				if (least < st.key)
					st.key = least;
			}
		}
	if (st.key != SCAN_NONE) {
		st.rec = st.key / C;
		st.col = (unsigned)(st.key % C);
		st.lo = bad[st.col * ntiles + st.rec / SCAN_TILE].lo;
		st.hi = bad[st.col * ntiles + st.rec / SCAN_TILE].hi;
	}
	return st;
}

/* The GPU path replayed over chunks of `chunk` records; 0 or -1 with the
 * status check's error and the record index in the stream. */
template <class Op>
static int emu_scan(const struct gs_job *job, const void *data, size_t n,
		    size_t chunk, unsigned char *out, size_t *bad,
		    struct gs_err *err)
{
	scan_cfg c = scan_cfg_of(job);
	unsigned C = job->columns, osize = (unsigned)type_size(job->out_type);
	std::vector<typename Op::V> carry(C, Op::ident(c));
	const typename Op::elem *in = (const typename Op::elem *)data;

	for (size_t f = 0; f < n; f += chunk) {
		size_t k = n - f < chunk ? n - f : chunk;
		struct scan_status st = emu_chunk<Op>(c, C, carry, in + f * C, k,
						      osize, out + f * C * osize);

		if (gpu_scan_status_check(job, &st, f, bad, err)) {
			*bad += f;
			return -1;
		}
	}
	return 0;
}

/* A float sum as scan_run_win runs it: the prepass over the chunk, the
 * window, the chosen variant's phases, the widened carry. */
template <typename T, int K, int L>
static int emu_scan_win(const struct gs_job *job, const void *data, size_t n,
			size_t chunk, unsigned char *out)
{
	scan_cfg c = scan_cfg_of(job);
	unsigned C = job->columns, osize = (unsigned)type_size(job->out_type);
	std::vector<sum_val<K>> carry(C, scan_sum<T, K, L>::ident(c));
	std::vector<sum_val<2>> c2(C);
	std::vector<sum_val<3>> c3(C);
	const T *in = (const T *)data;
	int last = -1;

	for (size_t f = 0; f < n; f += chunk) {
		size_t k = n - f < chunk ? n - f : chunk;
		struct scan_win win;

		memset(&win, 0x7f, 2 * sizeof(int));
		for (size_t i = 0; i < k * C; i++)
			scan_win_term(in[f * C + i], &win.lo, &win.nhi);
		scan_window<K, L>(&win, carry.data(), c2.data(), c3.data(), C, k);
		c.w = win.w;
		if (win.mode == 2)
			emu_chunk<scan_nsum<T, 2>>(c, C, c2, in + f * C, k, osize,
						   out + f * C * osize);
		else if (win.mode == 3)
			emu_chunk<scan_nsum<T, 3>>(c, C, c3, in + f * C, k, osize,
						   out + f * C * osize);
		else
			emu_chunk<scan_sum<T, K, L>>(c, C, carry, in + f * C, k,
						     osize, out + f * C * osize);
		scan_widen<K, L>(&win, carry.data(), c2.data(), c3.data(), C);
		win_chunks[win.mode]++;
		win_switches += last >= 0 && last != win.mode;
		last = win.mode;
	}
	return 0;
}

template <typename T, int K, int L>
static int emu_type(const struct gs_job *job, const void *data, size_t n,
		    size_t chunk, unsigned char *out, size_t *bad,
		    struct gs_err *err)
{
	if (job->op == OP_SUM && K > 2)
		return emu_scan_win<T, K, L>(job, data, n, chunk, out);
	if (job->op == OP_SUM)
		return emu_scan<scan_sum<T, K, L>>(job, data, n, chunk, out, bad, err);
	return emu_scan<scan_word<T>>(job, data, n, chunk, out, bad, err);
}

/* The same dispatch as scan_bind_job. */
static int emu(const struct gs_job *job, const void *data, size_t n,
	       size_t chunk, unsigned char *out, size_t *bad, struct gs_err *err)
{
	switch (job->dtype.type) {
	case GS_U8: return emu_type<unsigned char, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_I8: return emu_type<signed char, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_U16: return emu_type<unsigned short, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_I16: return emu_type<short, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_U32: return emu_type<unsigned, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_I32: return emu_type<int, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_U64: return emu_type<unsigned long long, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_I64: return emu_type<long long, 2, 0>(job, data, n, chunk, out, bad, err);
	case GS_F16: return emu_type<scan_f16, 2, -24>(job, data, n, chunk, out, bad, err);
	case GS_BF16: return emu_type<scan_bf16, 6, -149>(job, data, n, chunk, out, bad, err);
	case GS_F32: return emu_type<float, 6, -149>(job, data, n, chunk, out, bad, err);
	default: return emu_type<double, 34, -1074>(job, data, n, chunk, out, bad, err);
	}
}

/* Random data of type t: a mode picks how hard (small values, full range,
 * wide exponents with cancellation, rare specials; for floats, 4: runs of
 * 1500 values that alternate narrow and wide exponent ranges, so chunks
 * switch between the narrow and wide kernels, 5: a huge first value
 * cancelled halfway, so the carry alone forces the wide window and then
 * lets a narrow one back). */
static void gen(enum gs_type t, void *data, size_t n, int mode)
{
	unsigned char *p = (unsigned char *)data;
	size_t sz = type_size(t);

	for (size_t i = 0; i < n; i++) {
		u64 b = rnd();
		bool special = mode == 3 && rnd() % 500 == 0;

		if (!type_is_float(t)) {
			if (mode == 0)
				b = (u64)((long long)(rnd() % 7) - 3);
			memcpy(p + i * sz, &b, sz);
			continue;
		}
		if (t == GS_F16 || t == GS_BF16) {
			uint16_t h = (uint16_t)b;
			int eb = t == GS_F16 ? 10 : 7, ef = t == GS_F16 ? 0x1f : 0xff;

			if (((h >> eb) & ef) == ef && !special)
				h &= (uint16_t)~(1u << (eb + 1));	/* finite */
			if (mode == 0)
				h &= (uint16_t)~(3u << (eb + 2));
			memcpy(p + i * sz, &h, 2);
			continue;
		}
		double v;
		int span = t == GS_F32 ? 250 : 2000;
		int m = mode == 4 ? (int)(i / 1500 % 3) : mode == 5 ? 1 : mode;
		int ex = m == 0 ? (int)(rnd() % 10) : m == 1 ? (int)(rnd() % 60) - 30
			 : (int)(rnd() % span) - span / 2;

		v = ldexp((double)(rnd() >> 11), ex - 53);
		if (rnd() & 1)
			v = -v;
		if (i && rnd() % 5 == 0)	/* cancel the last value exactly */
			v = t == GS_F32 ? -(double)((float *)p)[i - 1]
					: -((double *)p)[i - 1];
		if (mode == 5 && (i == 0 || i == n / 2))
			v = ldexp(i ? -1.0 : 1.0, span / 2 - 3);
		if (special) {
			static const double sp[] = { NAN, INFINITY, -INFINITY, -0.0 };

			v = sp[rnd() % 4];
		}
		if (t == GS_F32) {
			float fv = (float)v;

			memcpy(p + i * sz, &fv, 4);
		} else {
			memcpy(p + i * sz, &v, 8);
		}
	}
}

static void check_scan_one(enum gs_type t, enum gs_op op, enum gs_type ot,
			   bool excl, unsigned cols, size_t nrec, int mode)
{
	struct gs_job job;
	size_t n = nrec * cols, osz = type_size(ot), cbad = 0, gbad = 0;
	std::vector<unsigned char> data(n * type_size(t) + 8), cout(n * osz + 8),
		gout(n * osz + 8);
	std::vector<struct red_col> state(cols);
	struct gs_err cerr, gerr;
	size_t chunks[] = { 1, 7, SCAN_TILE - 1, SCAN_TILE, SCAN_TILE + 1, 5000, nrec };
	void *scratch = malloc(cpu_scan_scratch_size(&job));
	int crc, grc;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_SCAN;
	job.dtype.type = t;
	job.columns = cols;
	job.op = op;
	job.exclusive = excl;
	job.out_type = ot;
	gen(t, data.data(), n, mode);
	reduce_kernels.acc_init(&job, state.data());
	crc = cpu_scan(&job, state.data(), scratch, data.data(), nrec, cout.data(),
		       &cbad, &cerr);
	free(scratch);
	size_t chunk = chunks[rnd() % (sizeof(chunks) / sizeof(chunks[0]))];

	if (chunk == 0)
		chunk = 1;
	grc = emu(&job, data.data(), nrec, chunk, gout.data(), &gbad, &gerr);
	EXPECT(crc == grc, "%s op %d -> %s excl %d cols %u n %zu: rc cpu %d emu %d (%s)",
	       type_name(t), op, type_name(ot), excl, cols, nrec, crc, grc,
	       crc ? cerr.what : gerr.what);
	if (crc != grc)
		return;
	scans++;
	scan_errors += crc != 0;
	if (crc) {
		EXPECT(cbad == gbad && !strcmp(cerr.what, gerr.what),
		       "%s op %d -> %s: error cpu '%s' at %zu, emu '%s' at %zu",
		       type_name(t), op, type_name(ot), cerr.what, cbad, gerr.what, gbad);
		return;
	}
	size_t at = 0;

	while (at < n * osz && cout[at] == gout[at])
		at++;
	EXPECT(at == n * osz, "%s op %d -> %s excl %d cols %u n %zu mode %d chunk %zu: "
	       "output differs at element %zu", type_name(t), op, type_name(ot),
	       excl, cols, nrec, mode, chunk, at / osz);
}

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

int main(void)
{
	check_round();
	check_sum_round();
	check_scans();
	check_windows();
	printf("scan_host_check: %llu checks (%llu scans, %llu of them "
	       "overflow errors), %llu failed\n", checks, scans, scan_errors, fails);
	printf("float sum chunks: %llu wide, %llu in 2 limbs, %llu in 3, "
	       "%llu mode switches\n", win_chunks[0], win_chunks[2],
	       win_chunks[3], win_switches);
	EXPECT(win_chunks[0] && win_chunks[2] && win_chunks[3] && win_switches,
	       "every window mode and a switch between them replayed");
	return fails != 0;
}
