/*
 * scan_check_emu.cuh - part 4 of scan_host_check.cu, included by it: the
 * kernels' phases replayed on the host (tiles, blocks, parts, chunks, the
 * windows, and the block scan the job's --algorithm picks:
 * scan_check_block.cuh), whole scans emulated with the kernels'
 * __host__ __device__ code.
 */

/* ---- 4. whole scans against cpu_scan ------------------------------------ */

#include "scan_check_block.cuh"

/* Threads of tile `tile` that own records (the rest hold the empty
 * prefix). */
static unsigned emu_active(size_t nrec, size_t tile)
{
	size_t left = nrec - tile * SCAN_TILE;

	return left >= SCAN_TILE ? SCAN_THREADS
				 : (unsigned)((left + SCAN_ITEMS - 1) / SCAN_ITEMS);
}

/* scan_load: the totals of the first act threads' records of a tile. */
template <class Op>
static void emu_load(const scan_cfg &c, const typename Op::elem *in,
		     unsigned C, unsigned col, size_t nrec, size_t tile,
		     unsigned act, typename Op::V *thr)
{
	for (unsigned th = 0; th < (act + 31) / 32 * 32; th++) {
		size_t r0 = tile * SCAN_TILE + (size_t)th * SCAN_ITEMS;

		thr[th] = Op::ident(c);
		for (int j = 0; j < SCAN_ITEMS; j++)
			if (r0 + j < nrec)
				thr[th] = Op::add(thr[th], Op::of(in[(r0 + j) * C + col], c), c);
	}
}

/* The blocks the replayed launch has (scan_split_for gives the GPU's SMs
 * times the out kernel's occupancy): the number of parts a column is cut
 * into, and so how a product's factors are grouped. */
static unsigned emu_blocks = 528;

/* Phase 1, the part totals: each thread's records tile after tile, then
 * the block's total, into partv[col * parts + p]. */
template <class Op>
static void emu_totals(const scan_cfg &c, unsigned C,
		       const typename Op::elem *in, size_t nrec, size_t ntiles,
		       const struct scan_split &sp,
		       std::vector<typename Op::V> &partv)
{
	typedef typename Op::V V;
	std::vector<V> thr(SCAN_THREADS), sum(SCAN_THREADS), ex(SCAN_THREADS);
	V tot;

	for (unsigned col = 0; col < C; col++)
		for (unsigned p = 0; p < sp.parts; p++) {
			size_t t0 = p * sp.tpp, t1 = std::min(t0 + sp.tpp, ntiles);
			unsigned act = emu_active(nrec, t0);	/* the fullest */

			for (unsigned th = 0; th < SCAN_THREADS; th++)
				sum[th] = Op::ident(c);
			for (size_t t = t0; t < t1; t++) {
				emu_load<Op>(c, in, C, col, nrec, t,
					     emu_active(nrec, t), thr.data());
				for (unsigned th = 0; th < (act + 31) / 32 * 32; th++)
					sum[th] = Op::add(sum[th],
							  th < (emu_active(nrec, t) + 31) / 32 * 32 ?
							  thr[th] : Op::ident(c), c);
			}
			/* the totals kernel's block scan is the warp scan's
			 * whatever the algorithm */
			emu_block_warp<Op>(c, sum.data(), act, ex.data(), &tot);
			partv[col * sp.parts + p] = tot;
		}
}

/* Phase 2, the carry per column: the parts' totals scanned into their
 * prefixes, from carry, which moves past them. */
template <class Op>
static void emu_parts(const scan_cfg &c, unsigned C,
		      const struct scan_split &sp,
		      std::vector<typename Op::V> &partv,
		      std::vector<typename Op::V> &carry)
{
	typedef typename Op::V V;
	std::vector<V> thr(SCAN_THREADS), ex(SCAN_THREADS);
	V tot;

	for (unsigned col = 0; col < C; col++)
		for (size_t p0 = 0; p0 < sp.parts; p0 += SCAN_THREADS) {
			unsigned act = sp.parts - p0 < SCAN_THREADS ?
				       (unsigned)(sp.parts - p0) : SCAN_THREADS;

			for (unsigned th = 0; th < SCAN_THREADS; th++)
				thr[th] = th < act ? partv[col * sp.parts + p0 + th]
						   : Op::ident(c);
			emu_block_scan<Op>(c, thr.data(), act, ex.data(), &tot);
			for (unsigned th = 0; th < act; th++)
				partv[col * sp.parts + p0 + th] =
					Op::add(carry[col], ex[th], c);
			carry[col] = Op::add(carry[col], tot, c);
		}
}

/* One tile's outputs from the prefix pre; the least failing element's key
 * (record * C + col) and why, or SCAN_NONE. The tile's total in *tot. */
template <class Op>
static u64 emu_tile(const scan_cfg &c, unsigned C, unsigned col,
		    const typename Op::elem *in, size_t nrec, size_t t,
		    typename Op::V pre, unsigned osize, unsigned char *out,
		    typename Op::V *tot, struct scan_bad *lwhy)
{
	typedef typename Op::V V;
	std::vector<V> thr(SCAN_THREADS), ex(SCAN_THREADS);
	unsigned act = emu_active(nrec, t);
	u64 least = SCAN_NONE;

	emu_load<Op>(c, in, C, col, nrec, t, act, thr.data());
	emu_block_scan<Op>(c, thr.data(), act, ex.data(), tot);
	for (unsigned th = 0; th < act; th++) {
		size_t r0 = t * SCAN_TILE + (size_t)th * SCAN_ITEMS;
		V run = Op::add(pre, ex[th], c);
		u64 key = SCAN_NONE, bits;
		struct scan_bad fail = {}, why;

		for (int j = 0; j < SCAN_ITEMS && r0 + j < nrec; j++) {
			size_t r = r0 + j;
			V e = Op::of(in[r * C + col], c);

			if (!c.excl)
				run = Op::add(run, e, c);
			if (!Op::out(run, c, &bits, &why) && key == SCAN_NONE) {
				key = (u64)r * C + col;
				fail = why;
			}
			memcpy(out + (r * C + col) * osize, &bits, osize);
			if (c.excl)
				run = Op::add(run, e, c);
		}
		if (key < least) {
			least = key;
			*lwhy = fail;
		}
	}
	return least;
}

/* The kernels' phases on the host, in their grouping: part totals, the
 * carry per column, then every part's tiles in order from the part's
 * prefix; the status as scan_fail and scan_status_kernel leave it.
 * Returns the chunk's status. */
template <class Op>
static struct scan_status emu_chunk(const scan_cfg &c, unsigned C,
				    std::vector<typename Op::V> &carry,
				    const typename Op::elem *in, size_t nrec,
				    unsigned osize, unsigned char *out)
{
	typedef typename Op::V V;
	size_t ntiles = (nrec + SCAN_TILE - 1) / SCAN_TILE;
	struct scan_split sp = scan_split_of(ntiles, C, emu_blocks);
	std::vector<V> partv(C * sp.parts);
	std::vector<scan_bad> bad(C * sp.parts);
	struct scan_status st;
	V tot;

	memset(&st, 0xff, sizeof(st));
	emu_totals<Op>(c, C, in, nrec, ntiles, sp, partv);
	emu_parts<Op>(c, C, sp, partv, carry);
	for (unsigned col = 0; col < C; col++)
		for (unsigned p = 0; p < sp.parts; p++) {
			size_t t0 = p * sp.tpp, t1 = std::min(t0 + sp.tpp, ntiles);
			V pre = partv[col * sp.parts + p];
			bool failed = false;

			for (size_t t = t0; t < t1; t++) {
				struct scan_bad lwhy = {};
				u64 least = emu_tile<Op>(c, C, col, in, nrec, t, pre,
							 osize, out, &tot, &lwhy);

				pre = Op::add(pre, tot, c);
				if (c.can_fail && !failed && least != SCAN_NONE) {
					failed = true;
					bad[col * sp.parts + p] = lwhy;
					if (least < st.key)
						st.key = least;
				}
			}
		}
	if (st.key != SCAN_NONE) {
		st.rec = st.key / C;
		st.col = (unsigned)(st.key % C);
		st.why = bad[st.col * sp.parts + st.rec / SCAN_TILE / sp.tpp];
	}
	return st;
}

/* Where the replay starts: the empty prefix (seed NULL, first 0), or the
 * carry gpu_scan_seed would make of the CPU's state after `first`
 * records (seed: scan_seed_host's values). */
struct emu_from {
	const void *seed;
	uint64_t first;
	/* the CPU state seed was made from (its sign of zero); NULL: none */
	const struct red_col *state;
};

/* The carry the replay starts from. */
template <class V>
static std::vector<V> emu_carry(const struct emu_from &from, unsigned C,
				const V &ident)
{
	std::vector<V> carry(C, ident);

	if (from.seed)
		memcpy(carry.data(), from.seed, C * sizeof(V));
	return carry;
}

/* The GPU path replayed over chunks of `chunk` records; 0 or -1 with the
 * status check's error and the failing record's index in data. */
template <class Op>
static int emu_scan(const struct gs_job *job, const void *data, size_t n,
		    size_t chunk, unsigned char *out, size_t *bad,
		    struct gs_err *err, const struct emu_from &from)
{
	scan_cfg c = scan_cfg_of(job);
	unsigned C = job->columns, osize = (unsigned)type_size(job->out_type);
	std::vector<typename Op::V> carry = emu_carry(from, C, Op::ident(c));
	const typename Op::elem *in = (const typename Op::elem *)data;

	for (size_t f = 0; f < n; f += chunk) {
		size_t k = n - f < chunk ? n - f : chunk;
		struct scan_status st = emu_chunk<Op>(c, C, carry, in + f * C, k,
						      osize, out + f * C * osize);

		if (gpu_scan_status_check(job, &st, from.first + f, bad, err)) {
			*bad += f;
			return -1;
		}
	}
	return 0;
}

/* An element's exact.cuh bits (scan_exact_bits, on the host). */
static unsigned x_bits(float x) { return exact_bits_f32(x); }
static unsigned x_bits(bf16_bits x) { return (unsigned)x.v << 16; }
static u64 x_bits(double x) { return exact_bits_f64(x); }
static void x_add(exact_w32 *w, exact_thr *t, unsigned u, long long *s)
{
	exact_w32_add(w, t, u, s);
}
static void x_add(exact_w64 *w, exact_thr *t, u64 u, long long *s)
{
	exact_w64_add(w, t, u, s);
}
static void x_fold(exact_w32 *w, exact_thr *t, long long *s)
{
	exact_w32_fold(w, t, s);
}
static void x_fold(exact_w64 *w, exact_thr *t, long long *s)
{
	exact_w64_fold(w, t, s);
}

/* Column col's exact total of k records as scan_win_totals_kernel keeps it
 * (a window, a thread accumulator, slots; here one thread), widened by
 * scan_slots_wide; it must equal the K-limb sum of the same values. */
template <typename T, int K, int L>
static sum_val<K> emu_win_total(const T *in, unsigned C, unsigned col, size_t k)
{
	typedef typename std::conditional<sizeof(T) == 8, exact_w64,
					  exact_w32>::type W;
	std::vector<long long> slot(EXACT_SLOTS, 0);
	scan_cfg c = {};
	sum_val<K> wide, direct = scan_sum_wide<T, K, L>::ident(c);
	struct exact_thr th;
	W w;

	exact_thr_init(&th, EXACT_EMIN);
	w.acc = 0;
	w.b = 1;
	for (size_t r = 0; r < k; r++) {
		if (r % (EXACT_WIN_TERMS / 2) == 0)	/* as a thread's bound */
			x_fold(&w, &th, slot.data());
		x_add(&w, &th, x_bits(in[r * C + col]), slot.data());
		direct = scan_sum_wide<T, K, L>::add(direct,
						scan_sum_wide<T, K, L>::of(in[r * C + col], c), c);
	}
	x_fold(&w, &th, slot.data());
	exact_thr_flush(&th, slot.data());
	wide = scan_slots_wide<K, L>(slot.data(), th.flags);
	EXPECT(!memcmp(wide.l, direct.l, sizeof(wide.l)) && wide.flags == direct.flags,
	       "scan_slots_wide: %s column %u of %zu records: the slots' sum differs "
	       "from the K-limb sum", type_name(sizeof(T) == 8 ? GS_F64 : sizeof(T) == 4 ?
	       GS_F32 : GS_BF16), col, k);
	return wide;
}

/* The lowest and top bits of n values as scan_win_totals_kernel finds them
 * (scan_wbits, in runs as a thread's), checked against a bit count of
 * each value. */
template <typename T>
static void emu_wbits(const T *in, size_t n, struct scan_win *win)
{
	int lo = SCAN_WIN_NONE, nhi = SCAN_WIN_NONE;

	for (size_t i = 0; i < n; i += 37) {
		scan_wbits<T> wb;

		scan_wbits_init(&wb);
		for (size_t j = i; j < n && j < i + 37; j++)
			scan_wbits_add(&wb, in[j]);
		scan_wbits_done(&wb, &win->lo, &win->nhi);
	}
	for (size_t i = 0; i < n; i++) {
		bool neg;
		u64 m;
		int e, l, h;

		if (scan_fields(in[i], &neg, &m, &e) || !m)
			continue;
		l = e + scan_ctz64(m);
		h = e + 63 - exact_clz64(m);
		lo = l < lo ? l : lo;
		nhi = -h < nhi ? -h : nhi;
	}
	EXPECT(lo == win->lo && nhi == win->nhi,
	       "scan_wbits: lowest bit %d, top %d; counted %d, %d", win->lo,
	       -win->nhi, lo, -nhi);
}

/* scan_sum_hw<T, O>'s out pass of a chunk (mode 4) from the one-limb carry
 * c1 (before the chunk), which must write what scan_sum_window<T, 1>'s wrote
 * (ref) and leave its carry (after, c1n). */
template <typename T, typename O>
static void emu_sum_hw(const scan_cfg &c, unsigned C,
		     const std::vector<sum_val<1>> &c1,
		     const std::vector<sum_val<1>> &c1n, const T *in, size_t k,
		     unsigned osize, const unsigned char *ref)
{
	std::vector<sum_hw_val> h(C);
	std::vector<unsigned char> out(k * C * osize);

	for (unsigned col = 0; col < C; col++)
		h[col].v = (long long)c1[col].l[0];
	emu_chunk<scan_sum_hw<T, O>>(c, C, h, in, k, osize, out.data());
	EXPECT(!memcmp(out.data(), ref, out.size()),
	       "scan_sum_hw: %zu records of %u columns (w %d) differ from the "
	       "one-limb window's outputs", k, C, c.w);
	for (unsigned col = 0; col < C; col++)
		EXPECT((u64)h[col].v == c1n[col].l[0],
		       "scan_sum_hw: column %u's carry differs", col);
}

/* scan_wide_out_kernel's work on a chunk that takes the wide window, from
 * the wide carries before it: each part cut into the threads' runs, as
 * the kernel cuts it; each run summed into limb-major limbs (wide_term),
 * its prefix (the part's, plus the runs before it), then the walk
 * (wide_fix, wide_round). Its outputs must be scan_sum_wide's (ref). */
static unsigned long long wide_walks;

template <typename T, int K, int L>
static void emu_wide(const scan_cfg &c, unsigned C,
		     const std::vector<sum_val<K>> &carry, const T *in,
		     size_t k, unsigned osize, const unsigned char *ref)
{
	typedef scan_sum_wide<T, K, L> Op;
	const unsigned S = SCAN_THREADS;
	size_t ntiles = (k + SCAN_TILE - 1) / SCAN_TILE;
	struct scan_split sp = scan_split_of(ntiles, C, emu_blocks);
	std::vector<unsigned char> out(k * C * osize);
	std::vector<u64> lim(K * S);
	std::vector<sum_val<K>> run(S);
	int ka, m;

	for (unsigned col = 0; col < C; col++) {
		sum_val<K> pre = carry[col];

		for (unsigned p = 0; p < sp.parts; p++) {
			size_t r0 = p * sp.tpp * SCAN_TILE;
			size_t r1 = std::min((p + 1) * sp.tpp * SCAN_TILE, k);
			size_t seg = ((r1 - r0 + S - 1) / S + SCAN_ITEMS - 1) /
				     SCAN_ITEMS * SCAN_ITEMS;

			std::fill(lim.begin(), lim.end(), 0);
			for (unsigned th = 0; th < S; th++) {
				size_t s0 = std::min(r0 + th * seg, r1);
				size_t s1 = std::min(s0 + seg, r1);
				unsigned fl = 0;

				for (size_t r = s0; r < s1; r++)
					wide_elem<T, K, L>(&lim[th], S, in[r * C + col],
							   &fl, &ka, &m);
				for (int j = 0; j < K; j++)
					run[th].l[j] = lim[j * S + th];
				run[th].flags = fl;
			}
			/* the block's scan of the runs as the kernel does it,
			 * limb by limb: the threads' exclusive 128-bit sum of
			 * the limb, plus the part's prefix's limb and the
			 * carry out of the limb below; flags by count */
			std::vector<sum_val<K>> ex(S);
			std::vector<u64> cy(S, 0);
			u128 acc;

			for (int j = 0; j < K; j++) {
				acc = 0;
				for (unsigned th = 0; th < S; th++) {
					ex[th].l[j] = wide_limb(acc, pre.l[j], &cy[th]);
					acc += run[th].l[j];
				}
			}
			for (unsigned th = 0, fl = pre.flags; th < S; th++) {
				ex[th].flags = fl;
				fl |= run[th].flags;
			}
			/* ... which must be the exact prefix, any grouping's */
			for (unsigned th = 0; th < S; th++) {
				sum_val<K> v = run[th];

				EXPECT(!memcmp(ex[th].l, pre.l, sizeof(pre.l)) &&
				       ex[th].flags == pre.flags,
				       "scan_wide_out_kernel's limb scan: thread %u's "
				       "prefix differs from the K-limb sum", th);
				run[th] = ex[th];
				pre = Op::add(pre, v, c);
			}
			for (unsigned th = 0; th < S; th++) {
				size_t s0 = std::min(r0 + th * seg, r1);
				size_t s1 = std::min(s0 + seg, r1);
				struct wide_at w;

				for (int j = 0; j < K; j++)
					lim[j * S + th] = run[th].l[j];
				wide_find<K>(&lim[th], S, &w);
				w.flags = run[th].flags;
				for (size_t r = s0; r < s1; r++) {
					u64 bits = 0;

					if (c.excl)
						bits = wide_round<K>(&lim[th], S, w, L, c.fmt);
					if (wide_elem<T, K, L>(&lim[th], S, in[r * C + col],
							       &w.flags, &ka, &m))
						wide_fix<K>(&lim[th], S, &w, ka, m);
					if (!c.excl)
						bits = wide_round<K>(&lim[th], S, w, L, c.fmt);
					memcpy(&out[(r * C + col) * osize], &bits, osize);
				}
			}
		}
	}
	wide_walks++;
	EXPECT(!memcmp(out.data(), ref, out.size()),
	       "scan_wide_out_kernel's walk: %zu records of %u columns differ "
	       "from scan_sum_wide's outputs", k, C);
}

/* The walk's pieces on their own, one prefix at a time against
 * scan_sum_wide's K-limb add and sum_round: after every term the kept
 * sign, top and lowest limbs must be what wide_find finds from scratch,
 * and the rounding sum_round's. The terms are made to hurt: every
 * exponent (subnormals, the largest), exact cancellation back to zero,
 * carries and borrows through runs of full or empty limbs, the sign
 * crossing zero again and again; a NaN or an infinity (random bits)
 * ends a sequence. */
template <typename T, int K, int L>
static void check_wide_walk_one(int style, int n, const struct ieee_fmt &f)
{
	typedef scan_sum_wide<T, K, L> Op;
	typedef typename scan_ffmt<T>::U U;
	const int W = scan_ffmt<T>::W, FB = scan_ffmt<T>::FB;
	scan_cfg c = {};
	sum_val<K> v = Op::ident(c);
	u64 lim[K] = { 0 };
	struct wide_at w = { -1, K, false, 0 }, fresh;
	T last = 0;
	int ka, m;

	for (int i = 0; i < n; i++) {
		U u = (U)rnd_bits(W);
		T x;

		if (style == 1) {	/* only the top and bottom exponents */
			U e = (U)((1u << (W - FB - 1)) - 2 - rnd() % 4);

			u = (u & ~((U)((1u << (W - FB - 1)) - 1) << FB)) |
			    (rnd() & 1 ? (U)(rnd() % 4) : e) << FB;
		}
		memcpy(&x, &u, sizeof(x));
		if (style == 2 && i % 2)	/* back to where it was */
			x = -last;
		if (style == 3 && rnd() % 4 == 0)	/* a full run of limbs */
			x = (T)(rnd() & 1 ? 1 : -1) * std::numeric_limits<T>::denorm_min();
		if (style == 4)		/* small values around zero */
			x = (T)((double)(int)(rnd() % 7) - 3.0) *
			    std::numeric_limits<T>::denorm_min() * (T)(1 << (rnd() % 20));
		last = x;
		v = Op::add(v, Op::of(x, c), c);
		if (wide_elem<T, K, L>(lim, 1, x, &w.flags, &ka, &m))
			wide_fix<K>(lim, 1, &w, ka, m);
		fresh = w;
		wide_find<K>(lim, 1, &fresh);
		EXPECT(!memcmp(lim, v.l, sizeof(lim)) && w.flags == v.flags,
		       "wide_term: K %d style %d term %d: the limbs differ from "
		       "sum_add's", K, style, i);
		EXPECT(w.top == fresh.top && w.low == fresh.low && w.neg == fresh.neg,
		       "wide_fix: K %d style %d term %d: top %d low %d neg %d, "
		       "from scratch %d %d %d", K, style, i, w.top, w.low, w.neg,
		       fresh.top, fresh.low, fresh.neg);
		EXPECT(wide_round<K>(lim, 1, w, L, f) == sum_round<K>(v, L, f),
		       "wide_round: K %d style %d term %d differs from sum_round",
		       K, style, i);
		if (w.flags)	/* a NaN or inf sticks: start again */
			return;
	}
}

static void check_wide_walk(void)
{
	for (int fm = XF_F16; fm <= XF_F64; fm++)
		for (int style = 0; style < 5; style++)
			for (int r = 0; r < 20; r++) {
				check_wide_walk_one<double, 34, -1074>(style, 400,
							ieee_fmt_of((enum xfmt)fm));
				check_wide_walk_one<float, 6, -149>(style, 400,
							ieee_fmt_of((enum xfmt)fm));
			}
}

/* The window lsbs that take scan_sum_hw for output format f (an empty range
 * for f16 and bf16 outputs), as scan_run_win finds them. */
template <typename T>
static void emu_sum_hw_range(const struct ieee_fmt &f, int *lo, int *hi)
{
	*lo = 1;
	*hi = 0;
	if (f.width == 32)
		scan_sum_hw_range<T, float>(lo, hi);
	if (f.width == 64)
		scan_sum_hw_range<T, double>(lo, hi);
}

/* A float sum as scan_run_win runs it: the chunk's bits and exact totals
 * (checked against the K-limb sums), the window, the chosen variant's
 * out pass from the carry narrowed to it (the parts' prefixes are exact,
 * so only their values matter, not their grouping), the wide carry
 * advanced by the totals (and checked against the narrow one). A chunk
 * that takes scan_sum_hw (mode 4) is replayed as the one-limb variant too,
 * and the two must agree. */
template <typename T, int K, int L>
static int emu_scan_win(const struct gs_job *job, const void *data, size_t n,
			size_t chunk, unsigned char *out,
			const struct emu_from &from)
{
	scan_cfg c = scan_cfg_of(job);
	unsigned C = job->columns, osize = (unsigned)type_size(job->out_type);
	std::vector<sum_val<K>> carry = emu_carry(from, C,
						  scan_sum_wide<T, K, L>::ident(c));
	std::vector<sum_val<K>> next(C);
	std::vector<sum_val<1>> c1(C);
	std::vector<sum_val<2>> c2(C);
	std::vector<sum_val<3>> c3(C);
	const T *in = (const T *)data;
	int last = -1;

	for (size_t f = 0; f < n; f += chunk) {
		size_t k = n - f < chunk ? n - f : chunk;
		struct scan_win win;
		unsigned fl = 0;
		int d, hlo, hhi;

		memset(&win, 0x7f, 2 * sizeof(int));
		emu_wbits(in + f * C, k * C, &win);
		scan_window_pick<K, L>(&win, carry.data(), C, k);
		for (size_t i = 0; i < k * C; i++) {
			bool neg;
			u64 m;
			int e;

			fl |= scan_fields(in[f * C + i], &neg, &m, &e);
		}
		for (unsigned col = 0; col < C; col++)
			fl |= carry[col].flags;
		emu_sum_hw_range<T>(c.fmt, &hlo, &hhi);
		scan_sum_hw_pick(&win, fl, hlo, hhi);
		d = win.w - L;
		for (unsigned col = 0; col < C; col++) {
			next[col] = scan_sum_wide<T, K, L>::add(carry[col],
				emu_win_total<T, K, L>(in + f * C, C, col, k), c);
			c1[col] = sum_narrow<K, 1>(carry[col], d);
			c2[col] = sum_narrow<K, 2>(carry[col], d);
			c3[col] = sum_narrow<K, 3>(carry[col], d);
		}
		c.w = win.w;
		if (win.mode == 1 || win.mode == 4) {
			std::vector<sum_val<1>> before = c1;

			emu_chunk<scan_sum_window<T, 1>>(c, C, c1, in + f * C, k, osize,
						   out + f * C * osize);
			if (win.mode == 4 && c.fmt.width == 32)
				emu_sum_hw<T, float>(c, C, before, c1, in + f * C, k,
						   osize, out + f * C * osize);
			if (win.mode == 4 && c.fmt.width == 64)
				emu_sum_hw<T, double>(c, C, before, c1, in + f * C, k,
						    osize, out + f * C * osize);
		} else if (win.mode == 2) {
			emu_chunk<scan_sum_window<T, 2>>(c, C, c2, in + f * C, k, osize,
						   out + f * C * osize);
		} else if (win.mode == 3) {
			emu_chunk<scan_sum_window<T, 3>>(c, C, c3, in + f * C, k, osize,
						   out + f * C * osize);
		} else {
			std::vector<sum_val<K>> before = carry;

			emu_chunk<scan_sum_wide<T, K, L>>(c, C, carry, in + f * C, k,
						     osize, out + f * C * osize);
			emu_wide<T, K, L>(c, C, before, in + f * C, k, osize,
					  out + f * C * osize);
		}
		for (unsigned col = 0; col < C; col++) {
			sum_val<K> back = win.mode == 1 || win.mode == 4 ?
					  sum_widen<1, K>(c1[col], d)
					: win.mode == 2 ? sum_widen<2, K>(c2[col], d)
					: win.mode == 3 ? sum_widen<3, K>(c3[col], d)
					: carry[col];

			EXPECT(!memcmp(back.l, next[col].l, sizeof(back.l)) &&
			       back.flags == next[col].flags,
			       "window mode %d: the chunk's carry differs from the "
			       "carry plus the exact total", win.mode);
			carry[col] = next[col];
		}
		win_chunks[win.mode]++;
		win_switches += last >= 0 && last != win.mode;
		last = win.mode;
	}
	return 0;
}

/* The same choice as scan_bind_elem. */
template <typename T, int K, int L>
static int emu_type(const struct gs_job *job, const void *data, size_t n,
		    size_t chunk, unsigned char *out, size_t *bad,
		    struct gs_err *err, const struct emu_from &from)
{
	if (job->op == OP_PROD) {
		if constexpr (dtype_is_float<T>::value)
			return emu_scan<scan_fprod<T>>(job, data, n, chunk, out,
						       bad, err, from);
		else
			return emu_scan<scan_iprod<T>>(job, data, n, chunk, out,
						       bad, err, from);
	}
	if constexpr (K > 2)	/* float sums with a window */
		if (job->op == OP_SUM)
			return emu_scan_win<T, K, L>(job, data, n, chunk, out,
						     from);
	if (job->op == OP_SUM)
		return emu_scan<scan_sum_wide<T, K, L>>(job, data, n, chunk, out, bad,
						   err, from);
	return scan_word_op<T>(job->op, [&](auto w) {
		return emu_scan<decltype(w)>(job, data, n, chunk, out, bad, err,
					     from);
	});
}

/* The same dispatch as scan_bind_job. */
static int emu_kernels(const struct gs_job *job, const void *data, size_t n,
		       size_t chunk, unsigned char *out, size_t *bad,
		       struct gs_err *err, const struct emu_from &from)
{
#define EMU(T, K, L) emu_type<T, K, L>(job, data, n, chunk, out, bad, err, from)
	switch (job->dtype.type) {
	case GS_U8: return EMU(unsigned char, 2, 0);
	case GS_I8: return EMU(signed char, 2, 0);
	case GS_U16: return EMU(unsigned short, 2, 0);
	case GS_I16: return EMU(short, 2, 0);
	case GS_U32: return EMU(unsigned, 2, 0);
	case GS_I32: return EMU(int, 2, 0);
	case GS_U64: return EMU(unsigned long long, 2, 0);
	case GS_I64: return EMU(long long, 2, 0);
	case GS_F16: return EMU(f16_bits, 2, -24);
	case GS_BF16: return EMU(bf16_bits, 6, -149);
	case GS_F32: return EMU(float, 6, -149);
	default: return EMU(double, 34, -1074);
	}
#undef EMU
}

/* What the backend's writer adds to a float sum's output (zero_signs in
 * backend_cuda_scan.cu): the zeros whose prefix holds -0 terms only, -0. */
static void emu_zero_signs(const struct gs_job *job, const void *data,
			   size_t n, unsigned char *out,
			   const struct emu_from &from)
{
	size_t isz = type_size(job->dtype.type), osz = type_size(job->out_type);

	for (unsigned col = 0; col < job->columns; col++) {
		const struct red_col *s = from.state ? &from.state[col] : NULL;
		size_t run;

		if (s && s->count && !s->u.sum.negzero)
			continue;
		run = xsum_negzero_run((const char *)data + col * isz, n,
				       isz * job->columns,
				       type_xfmt(job->dtype.type), false, false);
		xsum_scan_negzero(out + col * osz, n, osz * job->columns,
				  type_xfmt(job->out_type), job->exclusive,
				  s && s->count, run);
	}
}

/* The GPU path: the kernels, then the writer's signs of zero. */
static int emu(const struct gs_job *job, const void *data, size_t n,
	       size_t chunk, unsigned char *out, size_t *bad, struct gs_err *err,
	       const struct emu_from &from = emu_from{ NULL, 0, NULL })
{
	int rc = emu_kernels(job, data, n, chunk, out, bad, err, from);

	if (rc == 0 && job->op == OP_SUM && type_is_float(job->dtype.type))
		emu_zero_signs(job, data, n, out, from);
	return rc;
}
