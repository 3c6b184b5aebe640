/*
 * scan_check_data.cuh - scan_host_check.cu's inputs and judges, included
 * by it: random and edge data of every type, products built to land on or
 * near rounding ties, the exact prefix of a product (the oracle), and the
 * comparison of an emulated scan with cpu_scan.c.
 */

/* ---- data ---------------------------------------------------------------- */

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

/* ---- products: data ------------------------------------------------------ */

/* Kinds of float factors for prod scans. */
enum pkind {
	P_BITS,		/* random bit patterns: NaN, inf, zeros, subnormals */
	P_NEAR1,	/* [0.5, 2), both signs */
	P_ULP,		/* 1 + ulp, now and then the value just below 1 */
	P_BIG,		/* the top binades: the prefix overflows */
	P_TINY,		/* subnormals and the lowest binades: it underflows */
	P_SWING,	/* runs of 2^S then of 2^-S: far out of range and back */
	P_ZEROS,	/* near 1 with signed zeros and infinities */
	P_NANS,		/* near 1 with NaNs and -inf */
	P_SMALLINT,	/* small odd integers and powers of two: exact, ties */
	P_TIE,		/* engineered prefixes at or near a rounding tie */
	P_NKINDS
};

/* Kinds of integer factors. */
enum qkind {
	Q_BITS,		/* random bits: past 2^128 soon */
	Q_SMALL,	/* -3 .. 3 (0 .. 3 unsigned): zeros */
	Q_SMALLNZ,	/* +-1 .. 3: the output type overflows, then 2^128 */
	Q_ONES,		/* +-1, a rare zero: the sign alone */
	Q_EXTREME,	/* the type's extremes and +-1 */
	Q_ZFIRST,	/* random bits after an early zero: no overflow */
	Q_EDGE,		/* factors whose product ends near 2^128, then +-1 */
	Q_NKINDS
};

static const char *const pkind_name[P_NKINDS] = {
	"bits", "near1", "ulp", "big", "tiny", "swing", "zeros", "nans",
	"smallint", "tie",
};
static const char *const qkind_name[Q_NKINDS] = {
	"bits", "small", "smallnz", "ones", "extreme", "zfirst", "edge",
};

/* Significand bits (hidden bit included) and largest exponent of the
 * float types. */
static int fmt_p(enum gs_type t)
{
	return ieee_fmt_of(type_xfmt(t)).p;
}

static int fmt_emax(enum gs_type t)
{
	return ieee_fmt_of(type_xfmt(t)).emax;
}

static double unif(void)
{
	return (double)(rnd() >> 11) * 0x1p-53;
}

/* Element i of a float array of type t: v rounded to t (exact where v is
 * representable), or raw bits. */
static void put_float(enum gs_type t, unsigned char *p, size_t i, double v)
{
	u64 b = round_f64(v, type_xfmt(t));

	memcpy(p + i * type_size(t), &b, type_size(t));
}

static void put_bits(enum gs_type t, unsigned char *p, size_t i, u64 b)
{
	memcpy(p + i * type_size(t), &b, type_size(t));
}

static double get_float(enum gs_type t, const unsigned char *p, size_t i)
{
	uint16_t h;
	float f;
	double d;

	switch (t) {
	case GS_F16: memcpy(&h, p + i * 2, 2); return f16_to_f32(h);
	case GS_BF16: memcpy(&h, p + i * 2, 2); return bf16_to_f32(h);
	case GS_F32: memcpy(&f, p + i * 4, 4); return f;
	default: memcpy(&d, p + i * 8, 8); return d;
	}
}

/* Lists of integer factors whose product is 2^k + sign (sign -1 or +1),
 * for near-ties: a prefix at a tie times them and 2^-k sits 2^-k
 * (relative) off it. Found at start by trial division of 2^j -+ 1 (j <=
 * 64) and of 2^2j - 1 = (2^j - 1)(2^j + 1); maxbits is the widest factor
 * (an input type holds the list when it is at most its significand). */
struct recipe {
	int k, sign, maxbits;
	std::vector<u64> f;
};

static std::vector<struct recipe> recipes;

static int bitlen128(u128 v)
{
	return v >> 64 ? 128 - __builtin_clzll((u64)(v >> 64))
		       : v ? 64 - __builtin_clzll((u64)v) : 0;
}

static bool factor(u128 n, const std::vector<u64> &primes, struct recipe *r)
{
	for (u64 p : primes) {
		if ((u128)p * p > n)
			break;
		while (n % p == 0) {
			r->f.push_back(p);
			n /= p;
		}
	}
	if (n > 1) {
		if (n >> 53)
			return false;	/* no input type holds it */
		r->f.push_back((u64)n);
	}
	r->maxbits = 0;
	for (u64 x : r->f)
		r->maxbits = std::max(r->maxbits, bitlen128(x));
	return true;
}

static void find_recipes(void)
{
	const unsigned lim = 1u << 20;
	std::vector<bool> comp(lim);
	std::vector<u64> primes;

	for (unsigned i = 2; i < lim; i++) {
		if (comp[i])
			continue;
		primes.push_back(i);
		for (unsigned j = 2 * i; j < lim; j += i)
			comp[j] = true;
	}
	for (int j = 2; j <= 64; j++) {
		struct recipe m = { j, -1, 0, {} }, p = { j, 1, 0, {} };
		bool okm = factor(((u128)1 << j) - 1, primes, &m);
		bool okp = factor(((u128)1 << j) + 1, primes, &p);

		if (okm)
			recipes.push_back(m);
		if (okp)
			recipes.push_back(p);
		if (okm && okp) {
			struct recipe b = { 2 * j, -1, std::max(m.maxbits, p.maxbits), m.f };

			b.f.insert(b.f.end(), p.f.begin(), p.f.end());
			recipes.push_back(b);
		}
	}
}

/*
 * One engineered column of nrec factors (exact in type t): an odd N of
 * p_out + 1 bits (3^a 5^b 7^c), a tie of the output format; mostly times
 * a recipe's 2^k +- 1 and 2^-k, so N (1 +- 2^-k): at k of 124 and more
 * (f64 factors only), as near the tie as the brackets resolve. Pairs 2^j,
 * 2^-j, a sign and ones around them, shuffled.
 */
static void gen_tie(enum gs_type t, enum gs_type ot, std::vector<double> &v,
		    size_t nrec)
{
	int pin = fmt_p(t), pout = fmt_p(ot);
	int step = t == GS_F16 ? 12 : 100;	/* powers of two t holds */
	std::vector<double> f;
	long long scale = 0;
	u64 pick = rnd() % 4;	/* 0: the tie itself */

	do {		/* random odd primes until N has pout + 1 bits */
		u128 n = 1;

		f.clear();
		while (bitlen128(n) < pout + 1) {
			int q = 3 + 2 * (int)(rnd() % 3);

			n *= q;
			f.push_back(q);
		}
		if (bitlen128(n) == pout + 1)
			break;
	} while (true);
	if (pick) {
		std::vector<const struct recipe *> ok;
		int kmax = 0;

		for (const struct recipe &r : recipes)
			if (r.maxbits <= pin)
				kmax = std::max(kmax, r.k);
		/* half of them as near as t's factors get (f64: 2^-124 ..
		 * 2^-128, where the brackets give out) */
		for (const struct recipe &r : recipes)
			if (r.maxbits <= pin && (pick == 1 || r.k >= kmax - 4))
				ok.push_back(&r);
		if (!ok.empty()) {
			const struct recipe *r = ok[rnd() % ok.size()];

			for (u64 x : r->f)
				f.push_back((double)x);
			scale -= r->k;
		}
	}
	tie_pad(f, scale, step, v, nrec);
}

static void gen_fprod(enum gs_type t, enum gs_type ot, unsigned char *p,
		      size_t nrec, unsigned cols, int kind)
{
	const int pb = fmt_p(t), w = 8 * (int)type_size(t);
	const u64 one = round_f64(1.0, type_xfmt(t)), sign = 1ull << (w - 1);
	const u64 emaxf = 2 * (u64)fmt_emax(t) + 1;	/* the all-ones field */
	const int S = t == GS_F16 ? 7 : t == GS_F64 ? 40 : 20;
	std::vector<double> v;

	for (unsigned c = 0; c < cols; c++) {
		if (kind == P_TIE) {
			gen_tie(t, ot, v, nrec);
			for (size_t i = 0; i < nrec; i++)
				put_float(t, p, i * cols + c, v[i]);
			continue;
		}
		for (size_t i = 0; i < nrec; i++) {
			size_t at = i * cols + c;
			u64 r = rnd(), b;
			double x;

			switch (kind) {
			case P_BITS:
				put_bits(t, p, at, r);
				continue;
			case P_ULP:
				put_bits(t, p, at, r % 5 ? one + 1 : one - 1);
				continue;
			case P_BIG:
				b = emaxf - 1 - (r >> 40) % 3;
				b = b << (pb - 1) | (r & ((1ull << (pb - 1)) - 1));
				put_bits(t, p, at, b | (r >> 63 ? sign : 0));
				continue;
			case P_TINY:
				b = (r >> 40) % 3 << (pb - 1) | (r & ((1ull << (pb - 1)) - 1));
				put_bits(t, p, at, (b ? b : 1) | (r >> 63 ? sign : 0));
				continue;
			case P_SWING:
				x = ldexp(1 + unif() / 2, i / 300 % 2 ? -S : S);
				put_float(t, p, at, r >> 63 ? -x : x);
				continue;
			case P_SMALLINT:
				x = r % 3 ? (double)(1 + r % 7 * 2) :
					    ldexp(1, (int)((r >> 8) % 9) - 4);
				put_float(t, p, at, r >> 63 ? -x : x);
				continue;
			default:
				break;
			}
			x = (1 + unif()) * (r & 1 ? 0.5 : 1);	/* near 1 */
			if (r >> 63)
				x = -x;
			if (kind == P_ZEROS && r % 60 == 7)
				x = r & 2 ? -0.0 : 0.0;
			if (kind == P_ZEROS && r % 300 == 11)
				x = r & 2 ? -INFINITY : INFINITY;
			if (kind == P_NANS && r % 100 == 3)
				x = NAN;
			if (kind == P_NANS && r % 150 == 5)
				x = -INFINITY;
			put_float(t, p, at, x);
		}
	}
}

/* An integer element of type t from a value (two's complement bits). */
static void put_int(enum gs_type t, unsigned char *p, size_t i, long long v)
{
	memcpy(p + i * type_size(t), &v, type_size(t));
}

static void gen_iprod(enum gs_type t, unsigned char *p, size_t nrec,
		      unsigned cols, int kind)
{
	const bool sgn = type_is_signed(t);
	const int bits = 8 * (int)type_size(t);
	const long long mone = sgn ? -1 : 1;
	const u64 umax = bits == 64 ? ~0ull : (1ull << bits) - 1;

	for (unsigned c = 0; c < cols; c++) {
		size_t zat = nrec ? rnd() % (nrec / 10 + 1) : 0;
		double lg = 0, goal = 125.5 + 3.5 * unif();

		for (size_t i = 0; i < nrec; i++) {
			size_t at = i * cols + c;
			u64 r = rnd(), m;

			switch (kind) {
			case Q_BITS:
				put_bits(t, p, at, r);
				break;
			case Q_SMALL:
				put_int(t, p, at, sgn ? (long long)(r % 7) - 3 : (long long)(r % 4));
				break;
			case Q_SMALLNZ:
				put_int(t, p, at, (long long)(1 + r % 3) * (sgn && r >> 63 ? -1 : 1));
				break;
			case Q_ONES:
				put_int(t, p, at, r % 500 == 0 ? 0 : r & 1 ? 1 : mone);
				break;
			case Q_EXTREME:	/* min, max, +-1 */
				put_bits(t, p, at, r % 4 == 0 ? (sgn ? 1ull << (bits - 1) : umax) :
						   r % 4 == 1 ? (sgn ? umax >> 1 : umax) :
						   (u64)(r & 4 ? 1 : mone));
				break;
			case Q_ZFIRST:
				put_bits(t, p, at, i == zat ? 0 : r);
				break;
			default: {	/* Q_EDGE: mb-bit factors up to the goal */
				int mb = 2 + (int)(rnd() % (unsigned)(bits - 1 - sgn));

				if (lg >= goal) {
					put_int(t, p, at, r & 1 ? 1 : mone);
					break;
				}
				m = r >> (64 - mb) | 1ull << (mb - 1);
				lg += log2((double)m);
				put_bits(t, p, at, sgn && rnd() % 2 ? 0 - m : m);
				break;
			}
			}
		}
	}
}

/* ---- products: the exact prefix ----------------------------------------- */

/* The exact product of one column's factors so far: the odd part of the
 * finite nonzero factors' product as a bignum w (w[0] is odd) times 2^e,
 * and the flags. Rounded to a format from its top 128 bits with a sticky
 * bit for the rest: an independent check of every rounded output. */
struct oracle {
	std::vector<u64> w;
	long long e;
	bool nan, zero, inf, neg, gave_up;
};

/* Bignums past this many limbs take too long here (quadratic). */
#define ORACLE_LIMBS 2048

static void oracle_init(struct oracle *o)
{
	o->w.assign(1, 1);
	o->e = 0;
	o->nan = o->zero = o->inf = o->neg = o->gave_up = false;
}

static void oracle_mul(struct oracle *o, double v)
{
	struct exact_term t;
	u64 m, carry = 0;
	int z;

	o->neg ^= signbit(v) != 0;
	if (isnan(v) || isinf(v) || v == 0) {
		o->nan |= isnan(v) != 0;
		o->inf |= isinf(v) != 0;
		o->zero |= v == 0;
		return;
	}
	t = exact_f64(v);
	m = (u64)(t.m < 0 ? -t.m : t.m);
	z = __builtin_ctzll(m);
	m >>= z;
	o->e += t.e + z;
	if (m == 1 || o->gave_up)
		return;
	if (o->w.size() > ORACLE_LIMBS) {
		o->gave_up = true;
		return;
	}
	for (u64 &x : o->w) {
		u128 p = (u128)x * m + carry;

		x = (u64)p;
		carry = (u64)(p >> 64);
	}
	if (carry)
		o->w.push_back(carry);
}

/* Bits [pos, pos + 64) of w. */
static u64 big_bits(const std::vector<u64> &w, size_t pos)
{
	size_t i = pos / 64, s = pos % 64;
	u64 lo = i < w.size() ? w[i] >> s : 0;
	u64 hi = s && i + 1 < w.size() ? w[i + 1] << (64 - s) : 0;

	return lo | hi;
}

/* The correctly rounded prefix in format f, or false (gave up). */
static bool oracle_round(const struct oracle *o, int f, u64 *bits)
{
	const struct ieee_fmt d = ieee_fmt_of((enum xfmt)f);
	size_t nb, sh;
	u128 m;

	if (o->nan || (o->zero && o->inf)) {
		*bits = d.nan;
		return true;
	}
	if (o->inf || o->zero) {
		*bits = (u64)o->neg << (d.width - 1) | (o->inf ? d.inf : 0);
		return true;
	}
	if (o->gave_up)
		return false;
	nb = 64 * o->w.size() - (size_t)__builtin_clzll(o->w.back());
	sh = nb > 128 ? nb - 128 : 0;
	m = (u128)big_bits(o->w, sh + 64) << 64 | big_bits(o->w, sh);
	/* w[0] is odd: anything cut off below is nonzero, a sticky bit far
	 * below the rounding point */
	if (sh)
		m |= 1;
	*bits = round_u128(m, o->e + (long long)sh, o->neg, (enum xfmt)f);
	return true;
}

/* ---- comparing ----------------------------------------------------------- */

/* Outcomes of the prod scans. Float: both wrote every output (equal), both
 * failed at the same element with the same message, or one side failed
 * first (where the other rounded), or both at one record in other
 * columns; outputs checked against the exact prefix. Integer: both wrote
 * everything, both failed alike (overflow of the type, of 128 bits). */
static unsigned long long pf_ok, pf_fail, pf_cpu_first, pf_gpu_first,
	pf_other_col, pf_oracle, pi_ok, pi_type, pi_wide;

/* Every output of column col the CPU (written: cw records) and the
 * emulation (gw) wrote against the exact prefix, until the bignum grows
 * too large for this test. */
static void oracle_check(const struct gs_job *job, const unsigned char *in,
			 unsigned col, const unsigned char *cout,
			 size_t cw, const unsigned char *gout, size_t gw,
			 const char *what)
{
	unsigned C = job->columns, osz = (unsigned)type_size(job->out_type);
	int f = (int)type_xfmt(job->out_type);
	struct oracle o;
	size_t n = std::max(cw, gw);

	oracle_init(&o);
	for (size_t r = 0; r < n; r++) {
		double x = get_float(job->dtype.type, in, r * C + col);
		u64 want, got;

		if (!job->exclusive)
			oracle_mul(&o, x);
		if (!oracle_round(&o, f, &want))
			return;
		pf_oracle++;
		if (r < cw) {
			got = 0;
			memcpy(&got, cout + (r * C + col) * osz, osz);
			EXPECT(got == want, "%s: cpu output %zu col %u %llx, exact %llx",
			       what, r, col, got, want);
		}
		if (r < gw) {
			got = 0;
			memcpy(&got, gout + (r * C + col) * osz, osz);
			EXPECT(got == want, "%s: gpu output %zu col %u %llx, exact %llx",
			       what, r, col, got, want);
		}
		if (job->exclusive)
			oracle_mul(&o, x);
	}
}

/*
 * A prod scan's results. The records before the first failure on either
 * side are written by both and must be equal. Integers (and every other
 * op) must fail alike. A float prefix near a rounding tie may fail on one
 * side only (the brackets differ with the grouping): counted, and every
 * float output is checked against the exact prefix.
 */
static void compare_prod(const struct gs_job *job, const unsigned char *in,
			 size_t nrec, int crc, size_t cbad,
			 const struct gs_err &cerr, const unsigned char *cout,
			 int grc, size_t gbad, const struct gs_err &gerr,
			 const unsigned char *gout, const char *what)
{
	size_t cw = crc ? cbad : nrec, gw = grc ? gbad : nrec;
	size_t rec = job->columns * type_size(job->out_type);
	bool same = crc == grc && (!crc || (cbad == gbad && !strcmp(cerr.what, gerr.what)));
	static int notes;

	EXPECT(!memcmp(cout, gout, std::min(cw, gw) * rec),
	       "%s: the written outputs differ", what);
	if (!type_is_float(job->dtype.type)) {
		EXPECT(same, "%s: cpu %d at %zu '%s', gpu %d at %zu '%s'", what,
		       crc, cbad, crc ? cerr.what : "", grc, gbad,
		       grc ? gerr.what : "");
		pi_ok += same && !crc;
		pi_type += same && crc && strstr(cerr.what, "(try --out-type)");
		pi_wide += same && crc && strstr(cerr.what, "128 bits");
		return;
	}
	if (same) {
		pf_ok += !crc;
		pf_fail += crc != 0;
		EXPECT(!crc || strstr(cerr.what, "cannot be rounded exactly"),
		       "%s: %s", what, cerr.what);
	} else if (cw == gw) {
		pf_other_col++;
	} else {
		pf_cpu_first += cw < gw;
		pf_gpu_first += gw < cw;
		if (notes++ < 6)
			printf("note: %s: the %s could not round element %zu ('%s'), "
			       "the %s %s\n", what, cw < gw ? "CPU" : "GPU",
			       std::min(cw, gw), cw < gw ? cerr.what : gerr.what,
			       cw < gw ? "GPU" : "CPU",
			       (cw < gw ? grc : crc) ? "failed later" : "rounded every one");
	}
	if (nrec * job->columns <= 30000)
		for (unsigned col = 0; col < job->columns; col++)
			oracle_check(job, in, col, cout, cw, gout, gw, what);
}

/* The blocks of a replayed launch, at random: parts of one tile each (an
 * H100's 528 blocks for these sizes), or of several tiles. */
static unsigned rnd_blocks(void)
{
	static const unsigned b[] = { 1, 2, 3, 5, 528 };

	return b[rnd() % (sizeof(b) / sizeof(b[0]))];
}

/* kind: gen's mode, or for prod scans a pkind / qkind. chunk 0: one of the
 * awkward sizes at random; blocks 0: rnd_blocks(). */
static void check_scan_one(enum gs_type t, enum gs_op op, enum gs_type ot,
			   bool excl, unsigned cols, size_t nrec, int kind,
			   size_t chunk = 0, unsigned blocks = 0)
{
	struct gs_job job;
	size_t n = nrec * cols, osz = type_size(ot), cbad = 0, gbad = 0;
	std::vector<unsigned char> data(n * type_size(t) + 8), cout(n * osz + 8),
		gout(n * osz + 8);
	std::vector<struct red_col> state(cols);
	struct gs_err cerr, gerr;
	size_t chunks[] = { 1, 7, SCAN_TILE - 1, SCAN_TILE, SCAN_TILE + 1, 5000, nrec };
	void *scratch;
	char what[200];
	int crc, grc;

	memset(&job, 0, sizeof(job));
	job.cmd = CMD_SCAN;
	job.dtype.type = t;
	job.columns = cols;
	job.op = op;
	job.exclusive = excl;
	job.out_type = ot;
	job.algo = check_algo;
	if (op != OP_PROD)
		gen(t, data.data(), n, kind);
	else if (type_is_float(t))
		gen_fprod(t, ot, data.data(), nrec, cols, kind);
	else
		gen_iprod(t, data.data(), nrec, cols, kind);
	scratch = malloc(cpu_scan_scratch_size(&job));
	reduce_kernels.acc_init(&job, state.data());
	crc = cpu_scan(&job, state.data(), scratch, data.data(), nrec, cout.data(),
		       &cbad, &cerr);
	free(scratch);
	if (!chunk)
		chunk = chunks[rnd() % (sizeof(chunks) / sizeof(chunks[0]))];
	if (chunk == 0)
		chunk = 1;
	emu_blocks = blocks ? blocks : rnd_blocks();
	grc = emu(&job, data.data(), nrec, chunk, gout.data(), &gbad, &gerr);
	snprintf(what, sizeof(what), "%s op %d %s -> %s excl %d cols %u n %zu chunk %zu blocks %u%s%s",
		 type_name(t), op, op != OP_PROD ? "" : type_is_float(t) ?
		 pkind_name[kind] : qkind_name[kind], type_name(ot), excl, cols,
		 nrec, chunk, emu_blocks, check_algo ? " --algorithm " : "",
		 check_algo ? algo_name(check_algo) : "");
	scans++;
	scan_errors += crc != 0;
	if (op == OP_PROD) {
		compare_prod(&job, data.data(), nrec, crc, cbad, cerr, cout.data(),
			     grc, gbad, gerr, gout.data(), what);
		return;
	}
	EXPECT(crc == grc, "%s mode %d: rc cpu %d emu %d (%s)", what, kind, crc,
	       grc, crc ? cerr.what : gerr.what);
	if (crc != grc)
		return;
	if (crc) {
		EXPECT(cbad == gbad && !strcmp(cerr.what, gerr.what),
		       "%s: error cpu '%s' at %zu, emu '%s' at %zu", what,
		       cerr.what, cbad, gerr.what, gbad);
		EXPECT(!memcmp(cout.data(), gout.data(), cbad * cols * osz),
		       "%s: the outputs before the error differ", what);
		return;
	}
	size_t at = 0;

	while (at < n * osz && cout[at] == gout[at])
		at++;
	EXPECT(at == n * osz, "%s mode %d: output differs at element %zu", what,
	       kind, at / osz);
}
