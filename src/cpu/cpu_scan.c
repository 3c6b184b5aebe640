/*
 * cpu_scan.c - prefix scans (sum, prod, min, max, and, or, xor) on the CPU.
 * Every output is the exact prefix, rounded once to the output type.
 *
 * The state between calls is a struct red_col per column (the reduction of
 * everything before), so chunks chain exactly whatever their sizes.
 *
 * Float sums take a fast path: the exact prefix is kept as an unevaluated
 * pair hi + lo of doubles. Per element, TwoSum(hi, x) = s + e exactly, and
 * lo + e is checked to be exact with a second TwoSum whose error must be 0.
 * The output is RN(hi + lo) for f64; for narrower types it is hi + lo rounded
 * to odd in double (53 bits >= 24 + 2, so rounding that to nearest even into
 * f32/f16/bf16 is the correct rounding of the exact value). Inexactness and
 * non-finite values are only flagged in the loop; a block of RED_BLOCK
 * elements that flags anything is redone from its start state with an xsum
 * per element (the slow, always exact path), and the fast path resumes when
 * the xsum is again exactly a pair of doubles.
 *
 * Integer scans keep the prefix exact (an __int128 for sums) and refuse an
 * output that does not fit the output type.
 */
#include <math.h>
#include <string.h>
#include "cpu_red.h"
#include "numfmt.h"

struct scan_scratch {
	double in[RED_BLOCK];
	double res[RED_BLOCK];
	__int128 ibuf[RED_BLOCK];
};

size_t cpu_scan_scratch_size(const struct gs_job *job)
{
	return sizeof(struct scan_scratch);
}

/* ---- output ------------------------------------------------------------- */

/* Store float results (exact in double, or rounded to odd for narrower
 * outputs: the conversions below round them to nearest even). */
static void store_fblock(enum gs_type ot, void *out, unsigned columns,
			 unsigned col, size_t r0, size_t n, const double *res)
{
	size_t at = r0 * columns + col;

	switch (ot) {
	case GS_F64:
		for (size_t i = 0; i < n; i++)
			((double *)out)[at + i * columns] = res[i];
		break;
	case GS_F32:
		for (size_t i = 0; i < n; i++)
			((float *)out)[at + i * columns] = (float)res[i];
		break;
	default:
		for (size_t i = 0; i < n; i++)
			((uint16_t *)out)[at + i * columns] =
				(uint16_t)round_f64(res[i], type_xfmt(ot));
		break;
	}
}

static void store_bits(void *out, size_t idx, size_t sz, uint64_t v)
{
	switch (sz) {
	case 1: ((uint8_t *)out)[idx] = (uint8_t)v; break;
	case 2: ((uint16_t *)out)[idx] = (uint16_t)v; break;
	case 4: ((uint32_t *)out)[idx] = (uint32_t)v; break;
	default: ((uint64_t *)out)[idx] = v; break;
	}
}

/* Store an exact integer (neg ? -mag : mag); false if it does not fit. */
static bool put_int(enum gs_type ot, void *out, size_t idx, bool neg,
		    unsigned __int128 mag)
{
	unsigned bits = 8 * (unsigned)type_size(ot);
	unsigned __int128 lim;

	if (type_is_float(ot)) {
		store_bits(out, idx, type_size(ot),
			   round_u128(mag, 0, neg, type_xfmt(ot)));
		return true;
	}
	if (type_is_signed(ot))
		lim = ((unsigned __int128)1 << (bits - 1)) - !neg;
	else
		lim = neg ? 0 : ((unsigned __int128)1 << bits) - 1;
	if (mag > lim)
		return false;
	store_bits(out, idx, bits / 8, (uint64_t)(neg ? -mag : mag));
	return true;
}

/* ---- float sums --------------------------------------------------------- */

static bool xsum_special(const struct xsum *x)
{
	return x->nan || x->pinf || x->ninf;
}

/* hi + lo == x exactly, or false. */
static bool pair_from_xsum(const struct xsum *x, double *hi, double *lo)
{
	struct xsum r;

	if (xsum_special(x))
		return false;
	*hi = xsum_to_f64(x);
	if (!isfinite(*hi))
		return false;
	r = *x;
	xsum_add_f64(&r, -*hi);
	*lo = xsum_to_f64(&r);
	xsum_add_f64(&r, -*lo);
	return xsum_is_zero(&r);
}

static void xsum_from_pair(struct xsum *x, double hi, double lo)
{
	xsum_init(x);
	xsum_add_f64(x, hi);
	xsum_add_f64(x, lo);
}

/* RN(hi + lo), or hi + lo rounded to odd (odd); flags a non-finite sum. */
static inline __attribute__((always_inline))
double out_round(double hi, double lo, bool odd, uint64_t *bad)
{
	double r = hi + lo, t, e;
	uint64_t rb, eb, inexact;

	if (!odd)
		return r;
	t = r - hi;
	e = (hi - (r - t)) + (lo - t);
	*bad |= e != e;
	memcpy(&rb, &r, sizeof(rb));
	memcpy(&eb, &e, sizeof(eb));
	inexact = e != 0;
	/* truncate toward zero (one step down if e points inward), then make
	 * the last bit odd if anything was lost */
	rb -= ((rb ^ eb) >> 63) & inexact;
	rb |= inexact;
	memcpy(&r, &rb, sizeof(r));
	return r;
}

static inline __attribute__((always_inline))
bool fsum_fast_t(const double *x, size_t n, double *hp, double *lp,
		 double *res, bool excl, bool odd)
{
	double hi = *hp, lo = *lp, s, t, e, u, e2;
	uint64_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		if (excl)
			res[i] = out_round(hi, lo, odd, &bad);
		s = hi + x[i];
		t = s - hi;
		e = (hi - (s - t)) + (x[i] - t);
		u = lo + e;
		t = u - lo;
		e2 = (lo - (u - t)) + (e - t);
		bad |= e2 != 0;
		hi = s;
		lo = u;
		if (!excl)
			res[i] = out_round(hi, lo, odd, &bad);
	}
	/* a NaN or infinity in hi is sticky, so checking the end is enough */
	if (bad || !isfinite(hi))
		return false;
	*hp = hi + lo;
	*lp = (hi - (*hp - (*hp - hi))) + (lo - (*hp - hi));
	return true;
}

/* One block on the fast path; false (and *hp, *lp untouched) if any step
 * was inexact or not finite. */
static bool fsum_fast(const double *x, size_t n, double *hp, double *lp,
		      double *res, bool excl, bool odd)
{
	if (excl)
		return odd ? fsum_fast_t(x, n, hp, lp, res, true, true)
			   : fsum_fast_t(x, n, hp, lp, res, true, false);
	return odd ? fsum_fast_t(x, n, hp, lp, res, false, true)
		   : fsum_fast_t(x, n, hp, lp, res, false, false);
}

static void fsum_slow(struct xsum *x, const double *v, size_t n, bool excl,
		      enum xfmt f, double *res)
{
	for (size_t i = 0; i < n; i++) {
		if (excl)
			res[i] = xfmt_to_f64(xsum_round(x, f), f);
		/* once NaN or infinite, the finite part no longer matters */
		if (!xsum_special(x) || !isfinite(v[i]))
			xsum_add_f64(x, v[i]);
		if (!excl)
			res[i] = xfmt_to_f64(xsum_round(x, f), f);
	}
}

static void scan_fsum(const struct gs_job *job, struct red_col *st,
		      struct scan_scratch *sc, const void *data, unsigned col,
		      size_t nrec, void *out)
{
	enum xfmt f = type_xfmt(job->out_type);
	struct xsum x = st->u.sum;
	bool negzero = x.negzero;	/* scan_signs' to change */
	double hi = 0, lo = 0;
	bool fast;

	x.negzero = false;		/* the sums see no sign of zero */
	fast = pair_from_xsum(&x, &hi, &lo);

	for (size_t r0 = 0; r0 < nrec; r0 += RED_BLOCK) {
		size_t n = nrec - r0 < RED_BLOCK ? nrec - r0 : RED_BLOCK;

		gather_f64(job->dtype.type, data, job->columns, col, r0, n, sc->in);
		if (fast && !fsum_fast(sc->in, n, &hi, &lo, sc->res,
				       job->exclusive, f != XF_F64)) {
			xsum_from_pair(&x, hi, lo);
			fast = false;
		}
		if (!fast) {
			fsum_slow(&x, sc->in, n, job->exclusive, f, sc->res);
			fast = pair_from_xsum(&x, &hi, &lo);
		}
		store_fblock(job->out_type, out, job->columns, col, r0, n, sc->res);
	}
	if (fast)
		xsum_from_pair(&st->u.sum, hi, lo);
	else
		st->u.sum = x;
	st->u.sum.negzero = negzero;
}

/* ---- other float scans -------------------------------------------------- */

/* The current prefix as a double exact in the output format, or false. */
static bool fcur(const struct gs_job *job, const struct red_col *c,
		 enum xfmt f, double *v)
{
	uint64_t bits;

	if (job->op == OP_PROD) {
		if (!fprod_round(&c->u.fp, f, &bits))
			return false;
		*v = xfmt_to_f64(bits, f);
	} else {
		*v = c->u.mm.nan ? NAN : c->u.mm.v.f;
	}
	return true;
}

static void fstep(enum gs_op op, struct red_col *c, double v)
{
	if (op == OP_PROD) {
		fprod_mul_f64(&c->u.fp, v);
	} else if (isnan(v)) {
		c->u.mm.nan = true;
	} else if (op == OP_MIN ? f64_key(v) < f64_key(c->u.mm.v.f)
				: f64_key(v) > f64_key(c->u.mm.v.f)) {
		c->u.mm.v.f = v;
	}
}

static int scan_fother(const struct gs_job *job, struct red_col *st,
		       struct scan_scratch *sc, const void *data, unsigned col,
		       size_t nrec, void *out, size_t *bad, struct gs_err *err)
{
	enum xfmt f = type_xfmt(job->out_type);

	for (size_t r0 = 0; r0 < nrec; r0 += RED_BLOCK) {
		size_t n = nrec - r0 < RED_BLOCK ? nrec - r0 : RED_BLOCK;

		gather_f64(job->dtype.type, data, job->columns, col, r0, n, sc->in);
		for (size_t i = 0; i < n; i++) {
			if (!job->exclusive)
				fstep(job->op, st, sc->in[i]);
			if (!fcur(job, st, f, &sc->res[i])) {
				store_fblock(job->out_type, out, job->columns,
					     col, r0, i, sc->res);
				*bad = r0 + i;
				return gs_fail(err, GS_ERUNTIME, "",
					       "element %llu column %u: prefix product cannot be rounded exactly",
					       (unsigned long long)(st->count + r0 + i), col);
			}
			if (job->exclusive)
				fstep(job->op, st, sc->in[i]);
		}
		store_fblock(job->out_type, out, job->columns, col, r0, n, sc->res);
	}
	return 0;
}

/* ---- integer scans ------------------------------------------------------ */

/* The live prefix of an integer scan. */
struct iscan {
	__int128 v;		/* sum, min, max */
	struct iprod ip;	/* prod */
	uint64_t bits;		/* and, or, xor */
};

static bool xsum_to_i128(const struct xsum *x, __int128 *v)
{
	const unsigned lo = XSUM_FRAC / 64;
	uint64_t ext;

	for (unsigned i = 0; i < lo; i++)
		if (x->limb[i])
			return false;
	ext = (uint64_t)((int64_t)x->limb[lo + 1] >> 63);
	for (unsigned i = lo + 2; i < XSUM_LIMBS; i++)
		if (x->limb[i] != ext)
			return false;
	*v = (__int128)((unsigned __int128)x->limb[lo + 1] << 64 | x->limb[lo]);
	return true;
}

static void iscan_load(const struct gs_job *job, const struct red_col *c,
		       struct iscan *s)
{
	bool sgn = type_is_signed(job->dtype.type);

	memset(s, 0, sizeof(*s));
	switch (job->op) {
	case OP_SUM: xsum_to_i128(&c->u.sum, &s->v); break;
	case OP_PROD: s->ip = c->u.ip.p; break;
	case OP_MIN:
	case OP_MAX: s->v = sgn ? c->u.mm.v.i : (__int128)c->u.mm.v.u; break;
	default: s->bits = c->u.bits; break;
	}
}

static void iscan_save(const struct gs_job *job, struct red_col *c,
		       const struct iscan *s, __int128 start)
{
	switch (job->op) {
	case OP_SUM: xsum_add_i128(&c->u.sum, s->v - start, 0); break;
	case OP_PROD: c->u.ip.p = s->ip; break;
	case OP_MIN:
	case OP_MAX: c->u.mm.v.u = (uint64_t)s->v; break;
	default: c->u.bits = s->bits; break;
	}
}

static void istep(enum gs_op op, struct iscan *s, __int128 x)
{
	switch (op) {
	case OP_SUM: s->v += x; break;
	case OP_PROD: iprod_mul(&s->ip, x); break;
	case OP_MIN: s->v = x < s->v ? x : s->v; break;
	case OP_MAX: s->v = x > s->v ? x : s->v; break;
	case OP_AND: s->bits &= (uint64_t)x; break;
	case OP_OR: s->bits |= (uint64_t)x; break;
	case OP_XOR: s->bits ^= (uint64_t)x; break;
	}
}

/* The prefix as sign and magnitude; false if a product passed 2^128. */
static bool icur(enum gs_op op, bool sgn, const struct iscan *s, bool *neg,
		 unsigned __int128 *mag)
{
	__int128 v = s->v;

	if (op == OP_PROD) {
		bool zero = s->ip.flags & PROD_ZERO;

		*neg = (s->ip.flags & PROD_NEG) && !zero;
		*mag = zero ? 0 : (unsigned __int128)s->ip.mag[1] << 64 | s->ip.mag[0];
		return zero || !(s->ip.flags & PROD_OVER);
	}
	if (op >= OP_AND)
		v = sgn ? (__int128)(int64_t)s->bits : (__int128)s->bits;
	*neg = v < 0;
	*mag = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	return true;
}

static int ioverflow(const struct gs_job *job, uint64_t elem, unsigned col,
		     bool ok, bool neg, unsigned __int128 mag,
		     struct gs_err *err)
{
	char dec[48];

	if (!ok)
		return gs_fail(err, GS_ERUNTIME, "",
			       "element %llu column %u: prefix prod overflows 128 bits",
			       (unsigned long long)elem, col);
	u128_to_dec(mag, neg, dec);
	return gs_fail(err, GS_ERUNTIME, "",
		       "element %llu column %u: prefix %s %s overflows %s (try --out-type)",
		       (unsigned long long)elem, col, op_name(job->op), dec,
		       type_name(job->out_type));
}

#define STORE_INTS(T) do {                                                \
	for (size_t i = 0; i < n; i++)                                    \
		((T *)out)[at + i * columns] = (T)v[i];                   \
} while (0)

/* Store n checked integers, record r0 onwards. */
static void store_iblock(enum gs_type ot, void *out, unsigned columns,
			 unsigned col, size_t r0, size_t n, const __int128 *v)
{
	size_t at = r0 * columns + col;

	switch (type_size(ot)) {
	case 1: STORE_INTS(uint8_t); break;
	case 2: STORE_INTS(uint16_t); break;
	case 4: STORE_INTS(uint32_t); break;
	default: STORE_INTS(uint64_t); break;
	}
}

/* The common integer scan, a sum into an integer type: the prefixes of a
 * block replace its elements in place, and one test per element (folded
 * into a flag) checks the output range. Returns the first bad index or n. */
static size_t isum_block(enum gs_type ot, __int128 *v, size_t n, bool excl,
			 __int128 *acc)
{
	unsigned bits = 8 * (unsigned)type_size(ot);
	__int128 hi = type_is_signed(ot) ? ((__int128)1 << (bits - 1)) - 1
					 : ((__int128)1 << bits) - 1;
	__int128 lo = type_is_signed(ot) ? -hi - 1 : 0, a = *acc, x;
	bool out = false;

	for (size_t i = 0; i < n; i++) {
		x = v[i];
		if (!excl)
			a += x;
		v[i] = a;
		out |= a < lo || a > hi;
		if (excl)
			a += x;
	}
	*acc = a;
	for (size_t i = 0; out && i < n; i++)
		if (v[i] < lo || v[i] > hi)
			return i;
	return n;
}

/* Inputs of 32 bits or fewer summed into a 64-bit type (i16 into i64, the
 * default): a block whose every prefix stays in the output's range whatever
 * its values (the start at least n times the largest input away from the
 * ends, one test a block) adds in 64 bits and stores as it goes, with no
 * gather, no 128-bit sums and no test per element (a 256 MiB i16 file
 * scanned to i64 on one thread: 0.35 s before, 0.14 after). A block near
 * the ends goes the checked way, which finds the element. */
#define WIDE_ISUM(T, O) do {                                              \
	const T *s = (const T *)data + r0 * columns + col;                \
	O *o = (O *)out + r0 * columns + col, a = (O)*acc;                \
	if (excl)                                                         \
		for (size_t i = 0; i < n; i++) {                          \
			o[i * columns] = a;                               \
			a += (O)s[i * columns];                           \
		}                                                         \
	else                                                              \
		for (size_t i = 0; i < n; i++)                            \
			o[i * columns] = a += (O)s[i * columns];          \
	*acc = (__int128)a;                                               \
} while (0)

static bool isum_wide(const struct gs_job *job, const void *data,
		      unsigned col, size_t r0, size_t n, void *out,
		      __int128 *acc)
{
	enum gs_type t = job->dtype.type, ot = job->out_type;
	unsigned bits = 8 * (unsigned)type_size(t), columns = job->columns;
	bool sgn = type_is_signed(t), osgn = type_is_signed(ot), excl = job->exclusive;
	__int128 most = sgn ? (__int128)1 << (bits - 1) : ((__int128)1 << bits) - 1;
	__int128 hi = osgn ? INT64_MAX : (__int128)UINT64_MAX;
	__int128 lo = osgn ? INT64_MIN : 0, reach = most * (__int128)n;

	if (bits > 32 || type_size(ot) != 8 || (sgn && !osgn) ||
	    *acc + reach > hi || *acc - (sgn ? reach : 0) < lo)
		return false;
	switch (t) {
	case GS_U8: if (osgn) WIDE_ISUM(uint8_t, int64_t); else WIDE_ISUM(uint8_t, uint64_t); break;
	case GS_I8: WIDE_ISUM(int8_t, int64_t); break;
	case GS_U16: if (osgn) WIDE_ISUM(uint16_t, int64_t); else WIDE_ISUM(uint16_t, uint64_t); break;
	case GS_I16: WIDE_ISUM(int16_t, int64_t); break;
	case GS_U32: if (osgn) WIDE_ISUM(uint32_t, int64_t); else WIDE_ISUM(uint32_t, uint64_t); break;
	default: WIDE_ISUM(int32_t, int64_t); break;
	}
	return true;
}

static int scan_isum(const struct gs_job *job, struct red_col *st,
		     struct scan_scratch *sc, const void *data, unsigned col,
		     size_t nrec, void *out, size_t *bad, struct gs_err *err)
{
	__int128 start, acc;
	size_t k;

	if (!xsum_to_i128(&st->u.sum, &start))
		return gs_fail(err, GS_ERUNTIME, "", "prefix sum overflows 128 bits");
	acc = start;
	for (size_t r0 = 0; r0 < nrec; r0 += RED_BLOCK) {
		size_t n = nrec - r0 < RED_BLOCK ? nrec - r0 : RED_BLOCK;

		if (isum_wide(job, data, col, r0, n, out, &acc))
			continue;
		gather_int(job->dtype.type, data, job->columns, col, r0, n, sc->ibuf);
		k = isum_block(job->out_type, sc->ibuf, n, job->exclusive, &acc);
		if (k < n) {
			__int128 v = sc->ibuf[k];

			/* the outputs before the failing one are right */
			store_iblock(job->out_type, out, job->columns, col, r0, k, sc->ibuf);
			*bad = r0 + k;
			return ioverflow(job, st->count + r0 + k, col, true, v < 0,
					 v < 0 ? -(unsigned __int128)v : (unsigned __int128)v,
					 err);
		}
		store_iblock(job->out_type, out, job->columns, col, r0, n, sc->ibuf);
	}
	xsum_add_i128(&st->u.sum, acc - start, 0);
	return 0;
}

static int scan_int(const struct gs_job *job, struct red_col *st,
		    struct scan_scratch *sc, const void *data, unsigned col,
		    size_t nrec, void *out, size_t *bad, struct gs_err *err)
{
	bool sgn = type_is_signed(job->dtype.type), neg, ok;
	unsigned __int128 mag;
	struct iscan s;
	__int128 start;

	if (job->op == OP_SUM && !xsum_to_i128(&st->u.sum, &start))
		return gs_fail(err, GS_ERUNTIME, "", "prefix sum overflows 128 bits");
	iscan_load(job, st, &s);
	start = s.v;
	for (size_t r0 = 0; r0 < nrec; r0 += RED_BLOCK) {
		size_t n = nrec - r0 < RED_BLOCK ? nrec - r0 : RED_BLOCK;

		gather_int(job->dtype.type, data, job->columns, col, r0, n, sc->ibuf);
		for (size_t i = 0; i < n; i++) {
			size_t at = (r0 + i) * job->columns + col;

			if (!job->exclusive)
				istep(job->op, &s, sc->ibuf[i]);
			ok = icur(job->op, sgn, &s, &neg, &mag);
			if (!ok || !put_int(job->out_type, out, at, neg, mag)) {
				*bad = r0 + i;
				return ioverflow(job, st->count + r0 + i, col,
						 ok, neg, mag, err);
			}
			if (job->exclusive)
				istep(job->op, &s, sc->ibuf[i]);
		}
	}
	iscan_save(job, st, &s, start);
	return 0;
}

/* ---- the entry point ---------------------------------------------------- */

static int scan_check(const struct gs_job *job, struct gs_err *err)
{
	bool flt = type_is_float(job->dtype.type);

	if (flt && job->op >= OP_AND)
		return gs_fail(err, GS_EUSAGE, "", "--op %s needs an integer type",
			       op_name(job->op));
	if (flt && !type_is_float(job->out_type))
		return gs_fail(err, GS_EUSAGE, "",
			       "a scan of %s needs a float output type, not %s",
			       type_name(job->dtype.type), type_name(job->out_type));
	return 0;
}

/* The sign of a zero prefix: -0 where every term of it was -0, as IEEE
 * addition gives; the state's flag carries it to the next call. */
static void scan_signs(const struct gs_job *job, struct red_col *st,
		       const void *data, unsigned col, size_t nrec, void *out)
{
	size_t sz = type_size(job->dtype.type), osz = type_size(job->out_type);
	bool lead = st->count && st->u.sum.negzero;	/* the prefix before */
	size_t run;

	if (st->count && !lead)
		return;
	run = xsum_negzero_run((const char *)data + col * sz, nrec,
			       sz * job->columns, type_xfmt(job->dtype.type),
			       false, false);
	xsum_scan_negzero((char *)out + col * osz, nrec, osz * job->columns,
			  type_xfmt(job->out_type), job->exclusive, lead, run);
	xsum_note_negzero(&st->u.sum, st->count, nrec, run == nrec);
}

static int scan_col(const struct gs_job *job, struct red_col *st,
		    struct scan_scratch *sc, const void *data, unsigned col,
		    size_t nrec, void *out, size_t *bad, struct gs_err *err)
{
	bool fin = type_is_float(job->dtype.type);

	if (!fin && job->op == OP_SUM && !type_is_float(job->out_type))
		return scan_isum(job, st, sc, data, col, nrec, out, bad, err);
	if (!fin)
		return scan_int(job, st, sc, data, col, nrec, out, bad, err);
	if (job->op != OP_SUM)
		return scan_fother(job, st, sc, data, col, nrec, out, bad, err);
	scan_fsum(job, st, sc, data, col, nrec, out);
	scan_signs(job, st, data, col, nrec, out);
	return 0;
}

int cpu_scan(const struct gs_job *job, struct red_col *state, void *scratch,
	     const void *data, size_t nrec, void *out, size_t *bad_index,
	     struct gs_err *err)
{
	struct gs_err e;
	size_t bad = 0;
	int rc = 0;

	if (scan_check(job, err))
		return -1;
	/* with several columns, report the error at the earliest record */
	for (unsigned c = 0; c < job->columns; c++) {
		if (scan_col(job, &state[c], scratch, data, c, nrec, out, &bad, &e)) {
			if (rc == 0 || bad < *bad_index) {
				*bad_index = bad;
				*err = e;
			}
			rc = -1;
			continue;
		}
		state[c].count += nrec;
	}
	return rc;
}
