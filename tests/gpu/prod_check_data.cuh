/*
 * prod_check_data.cuh - prod_host_check.cu's inputs, included by it (one
 * translation unit): products of every type built to stay in range, to
 * overflow at a known element, and to land on or near rounding ties.
 */

/* ---- data ---------------------------------------------------------------- */

static enum gs_type gs_of(f16_bits) { return GS_F16; }
static enum gs_type gs_of(bf16_bits) { return GS_BF16; }
static enum gs_type gs_of(float) { return GS_F32; }
static enum gs_type gs_of(double) { return GS_F64; }
static enum gs_type gs_of(unsigned char) { return GS_U8; }
static enum gs_type gs_of(signed char) { return GS_I8; }
static enum gs_type gs_of(unsigned short) { return GS_U16; }
static enum gs_type gs_of(short) { return GS_I16; }
static enum gs_type gs_of(unsigned) { return GS_U32; }
static enum gs_type gs_of(int) { return GS_I32; }
static enum gs_type gs_of(unsigned long long) { return GS_U64; }
static enum gs_type gs_of(long long) { return GS_I64; }

/* A float element from its bit pattern, and from an exact value. */
template <typename T>
static T from_bits(u64 b)
{
	T x;

	memcpy(&x, &b, sizeof x);	/* little-endian: the low bytes */
	return x;
}

template <typename T>
static T from_value(double v)
{
	return from_bits<T>(round_f64(v, type_xfmt(gs_of(T{}))));
}

enum fkind {
	F_BITS,		/* random bit patterns: NaN, inf, zeros, subnormals */
	F_NEAR1,	/* [0.5, 2), both signs */
	F_ULP,		/* 1 + ulp repeated */
	F_ULPMIX,	/* 1 + ulp and the value just below 1, mixed */
	F_BIG,		/* near the largest finite value: the product overflows */
	F_TINY,		/* subnormals and tiny normals: it underflows */
	F_ZEROS,	/* near 1 with some zeros and infinities */
	F_NANS,		/* near 1 with some NaNs */
	F_SMALLINT,	/* small integers and powers of two: exact products */
	F_TIE,		/* engineered products at or near a rounding tie */
	F_NKINDS
};

static const char *fkind_name[F_NKINDS] = {
	"bits", "near1", "ulp", "ulpmix", "big", "tiny", "zeros", "nans",
	"smallint", "tie",
};

/* Factor lists of 2^k - 1 (sign -1) or 2^k + 1 (sign +1): a product of
 * them times 2^-k is 1 -+ 2^-k, and times a tie lands just off it. */
struct recipe {
	int k, sign;
	std::vector<u64> f;
};

static const std::vector<struct recipe> recipes = {
	{ 128, -1, { 3, 5, 17, 257, 641, 65537, 6700417, 274177, 67280421310721ull } },
	{ 120, -1, { 1073741823, 1073741825, 1048577, 1099510579201ull } },
	{ 64, 1, { 274177, 67280421310721ull } },
	{ 64, -1, { 4294967295ull, 4294967297ull } },
	{ 60, 1, { 1048577, 1099510579201ull } },
	{ 108, -1, { 3, 3, 3, 3, 5, 7, 13, 19, 37, 73, 109, 87211, 246241, 262657, 279073 } },
	{ 72, -1, { 3, 3, 3, 5, 7, 13, 17, 19, 37, 73, 109, 241, 433, 38737 } },
	{ 60, -1, { 3, 3, 5, 5, 7, 11, 13, 31, 41, 61, 151, 331, 1321 } },
	{ 48, -1, { 3, 3, 5, 7, 13, 17, 97, 241, 257, 673 } },
	{ 36, -1, { 3, 3, 3, 5, 7, 13, 19, 37, 73, 109 } },
	{ 24, -1, { 3, 3, 5, 7, 13, 17, 241 } },
};

static void check_recipes(void)
{
	for (const struct recipe &r : recipes) {
		struct oracle o;
		u128 want = r.sign < 0 ? ~(u128)0 >> (128 - r.k) : ((u128)1 << r.k) + 1;
		u128 got;

		oracle_init(&o);
		for (u64 f : r.f)
			oracle_mul(&o, (double)f);
		got = (u128)big_bits(o.w, 64) << 64 | big_bits(o.w, 0);
		EXPECT(got == want && o.w.size() <= 2 && o.e == 0,
		       "recipe 2^%d%+d", r.k, r.sign);
	}
}

/* Significand bits of float type T. */
template <typename T>
static int sig_bits(void)
{
	return dtype_fmt<T>::p;
}

/* One engineered column: a tie (3^34, or (1 + 2^-26)(1 + 2^-27) where the
 * type has the bits) or a double (3^33), times 1 -+ 2^-k or nothing, a
 * random sign, padded with 1s and pairs 2^j, 2^-j, shuffled. */
template <typename T>
static void gen_tie(std::vector<double> &v, size_t nrec)
{
	int p = sig_bits<T>();
	int step = p == 11 ? 13 : 100;	/* powers of two the type holds */
	std::vector<double> f;
	long long scale = 0;
	u64 pick = rnd() % 4;

	if (pick == 3 && p >= 28) {
		f.push_back(1 + 0x1p-26);
		f.push_back(1 + 0x1p-27);
	} else {
		for (int i = 0; i < (pick == 2 ? 33 : 34); i++)
			f.push_back(3);
	}
	if (rnd() % 5) {
		std::vector<const struct recipe *> ok;

		for (const struct recipe &r : recipes) {
			bool fits = true;

			for (u64 x : r.f)
				fits &= x < (1ull << p);
			if (fits)
				ok.push_back(&r);
		}
		const struct recipe *r = ok[rnd() % ok.size()];

		for (u64 x : r->f)
			f.push_back((double)x);
		scale -= r->k;
	}
	tie_pad(f, scale, step, v, nrec);
}

/* Column values of kind k (exactly representable in T, or raw bits). */
template <typename T>
static void gen_float(enum fkind k, std::vector<T> &col, size_t nrec)
{
	const int p = sig_bits<T>(), w = 8 * (int)sizeof(T);
	const u64 one = round_f64(1.0, type_xfmt(gs_of(T{})));
	const u64 sign = 1ull << (w - 1);
	std::vector<double> v;

	col.resize(nrec);
	if (k == F_TIE) {
		gen_tie<T>(v, nrec);
		for (size_t i = 0; i < nrec; i++)
			col[i] = from_value<T>(v[i]);
		return;
	}
	for (size_t i = 0; i < nrec; i++) {
		u64 r = rnd(), b;
		double x;

		switch (k) {
		case F_BITS:
			col[i] = from_bits<T>(r);
			continue;
		case F_ULP:
			col[i] = from_bits<T>(one + 1);
			continue;
		case F_ULPMIX:
			col[i] = from_bits<T>(r % 3 ? one + 1 : one - 1);
			continue;
		case F_BIG:	/* the top binades: exponent field emax - 1 .. */
			b = (u64)dtype_fmt<T>::emax - 1 - (r >> 40) % 3;
			b = b << (p - 1) | (r & ((1ull << (p - 1)) - 1));
			col[i] = from_bits<T>(b | (r >> 63 ? sign : 0));
			continue;
		case F_TINY:	/* subnormals and the lowest normal binades */
			b = (r >> 40) % 3 << (p - 1) | (r & ((1ull << (p - 1)) - 1));
			col[i] = from_bits<T>((b ? b : 1) | (r >> 63 ? sign : 0));
			continue;
		case F_SMALLINT:
			x = r % 3 ? (double)(1 + r % 7 * 2) :	/* odd 1 .. 13 */
				    ldexp(1, (int)((r >> 8) % 9) - 4);
			col[i] = from_value<T>(r >> 63 ? -x : x);
			continue;
		default:
			break;
		}
		x = (1 + unif()) * (r & 1 ? 0.5 : 1);	/* near 1 */
		if (r >> 63)
			x = -x;
		if (k == F_ZEROS && r % 60 == 7)
			x = r & 2 ? -0.0 : 0.0;
		if (k == F_ZEROS && r % 300 == 11)
			x = r & 2 ? -INFINITY : INFINITY;
		if (k == F_NANS && r % 100 == 3)
			x = NAN;
		if (k == F_NANS && r % 150 == 5)
			x = -INFINITY;
		col[i] = from_value<T>(x);
	}
}

enum ikind {
	I_BITS,		/* random bits: overflow soon, a zero now and then */
	I_SMALL,	/* -3 .. 3 (0 .. 3 unsigned): zeros */
	I_SMALLNZ,	/* the same without zeros: overflow after ~80 */
	I_EDGE,		/* random factors whose product is near 2^128, and +-1 */
	I_EXTREME,	/* the type's extremes and +-1 */
	I_ONES,		/* +-1: the sign alone */
	I_ZLAST,	/* ones, then a zero in the last record */
	I_NKINDS
};

static const char *ikind_name[I_NKINDS] = {
	"bits", "small", "smallnz", "edge", "extreme", "ones", "zlast",
};

template <typename T>
static T rnd_int(u64 r)
{
	T x;

	memcpy(&x, &r, sizeof x);
	return x;
}

template <typename T>
static void gen_int(enum ikind k, std::vector<T> &col, size_t nrec)
{
	const bool sgn = std::is_signed<T>::value;
	const T one = 1, mone = (T)(sgn ? -1 : 1);

	col.assign(nrec, one);
	if (k == I_EDGE) {
		/* random factors until |product| has 127 bits or more */
		int nb = 0, bits = 8 * (int)sizeof(T);
		size_t i = 0;

		while (nb < 127 && i < nrec) {
			u64 r = rnd();
			T x = rnd_int<T>(r >> (64 - bits + (int)(r % 4)));
			u64 a = sgn && (long long)x < 0 ? 0 - (u64)(long long)x : (u64)x;

			if (a < 2)
				continue;
			col[i++] = x;
			nb += 64 - __builtin_clzll(a) - 1;
		}
		for (size_t j = i; j < nrec; j++)
			col[j] = rnd() & 1 ? one : mone;
		for (size_t j = nrec; j > 1; j--)
			std::swap(col[j - 1], col[rnd() % j]);
		return;
	}
	for (size_t i = 0; i < nrec; i++) {
		u64 r = rnd();

		switch (k) {
		case I_BITS: col[i] = rnd_int<T>(r); break;
		case I_SMALL: col[i] = (T)(sgn ? (long long)(r % 7) - 3 : (long long)(r % 4)); break;
		case I_SMALLNZ:
			col[i] = (T)(1 + r % 3);
			if (sgn && r >> 63)
				col[i] = (T)-col[i];
			break;
		case I_EXTREME:
			col[i] = r % 4 == 0 ? (T)(sgn ? (T)1 << (8 * sizeof(T) - 1) : (T)~(T)0) :
				 r % 4 == 1 ? (T)(sgn ? (T)~((T)1 << (8 * sizeof(T) - 1)) : (T)~(T)0) :
				 r & 4 ? one : mone;
			break;
		case I_ONES: col[i] = r & 1 ? one : mone; break;
		case I_ZLAST: col[i] = i == nrec - 1 ? (T)0 : r & 1 ? one : mone; break;
		default: break;
		}
	}
}
