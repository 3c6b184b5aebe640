/*
 * scan_seed.cu - gpu_scan_seed and gpu_scan_seed_async (scan.h): the
 * CPU's state as the GPU scan's carry, for --backend auto's hand-over, a
 * --carry-in, and each chunk of a --devices lane.
 */
#include <stdlib.h>
#include "scan_handle.cuh"

/*
 * --backend auto scans the first chunks on the CPU while the GPU starts,
 * then hands the rest to the GPU: the CPU's state (a struct red_col per
 * column, the exact reduction of every earlier record) becomes the carry,
 * exactly, before the first launch.
 * - sums: the xsum's bits from 2^L up, as the K limbs (the xsum's lsb
 *   weighs 2^-XSUM_FRAC, the carry's 2^L), and its NaN/inf flags as
 *   EXACT_*. Exact iff widening the limbs back gives every limb of the
 *   xsum: no bit below 2^L (none, for sums of the input type) and no value
 *   past the K limbs (none below 2^63 elements). Each chunk's window and
 *   its parts' narrow prefixes start from this carry.
 * - min/max: the key of the value and the NaN flag, as scan_word's of()
 *   makes them; the identity while no element has been seen (count 0).
 * - and/or/xor: the bits as they are (both sides sign-extend them).
 * prod is not seeded: the GPU's brackets group the factors otherwise, so
 * a split that depends on when the GPU started would decide which
 * near-ties stop (src/engine/backend.c keeps prod scans on the CPU in
 * auto).
 */

/* Sums: columns values of sum_val<K>, lsb 2^L, into dst. */
template <int K, int L>
static bool scan_seed_sum(const struct red_col *st, unsigned columns,
			  void *dst, size_t vsize)
{
	const int d = L + XSUM_FRAC;	/* the carry's lsb, as an xsum bit */
	sum_val<K> *v = (sum_val<K> *)dst;

	if (vsize != sizeof(sum_val<K>))
		return false;
	for (unsigned c = 0; c < columns; c++) {
		const struct xsum *x = &st[c].u.sum;
		sum_val<XSUM_LIMBS> w, back;

		memcpy(w.l, x->limb, sizeof(w.l));
		w.flags = (x->nan ? EXACT_NAN : 0) | (x->pinf ? EXACT_PINF : 0) |
			  (x->ninf ? EXACT_NINF : 0);
		v[c] = sum_narrow<XSUM_LIMBS, K>(w, d);
		back = sum_widen<K, XSUM_LIMBS>(v[c], d);
		if (memcmp(back.l, w.l, sizeof(w.l)))
			return false;
	}
	return true;
}

/* min, max, and, or, xor: columns word_vals into dst. */
static bool scan_seed_word(const struct gs_job *job, const struct red_col *st,
			   void *dst, size_t vsize)
{
	enum gs_type t = job->dtype.type;
	word_val *v = (word_val *)dst;

	if (vsize != sizeof(word_val))
		return false;
	for (unsigned c = 0; c < job->columns; c++) {
		const struct red_col *s = &st[c];

		v[c].w = scan_word_ident(t, job->op);
		v[c].nan = 0;
		if (job->op >= OP_AND)
			v[c].w = s->u.bits;
		else if (type_is_float(t))
			v[c].nan = s->u.mm.nan;
		if (job->op >= OP_AND || s->count == 0)
			continue;
		if (type_is_float(t))
			v[c].w = f64_ukey(s->u.mm.v.f);
		else if (type_is_signed(t))
			v[c].w = (u64)s->u.mm.v.i ^ SCAN_SIGN;
		else
			v[c].w = s->u.mm.v.u;
	}
	return true;
}

/* The CPU's state as the carry of job's scan: job->columns values of
 * vsize bytes (gpu_scan's) into dst. False for prod, or where a value has
 * no exact carry. K and L as scan_bind_job gives them (scan_wide). */
bool scan_seed_host(const struct gs_job *job, const struct red_col *st,
		    void *dst, size_t vsize)
{
	bool ok = false;

	if (job->op == OP_PROD)
		return false;
	if (job->op != OP_SUM)
		return scan_seed_word(job, st, dst, vsize);
	dtype_dispatch(job->dtype.type, [&](auto tag) {
		typedef scan_wide<DTYPE_OF(tag)> W;

		ok = scan_seed_sum<W::K, W::L>(st, job->columns, dst, vsize);
		return cudaSuccess;
	});
	return ok;
}

cudaError_t gpu_scan_seed(struct gpu_scan *g, const struct red_col *state)
{
	size_t bytes = g->job.columns * g->vsize;
	void *host = malloc(bytes);
	cudaError_t e;

	if (!host)
		return cudaErrorMemoryAllocation;
	if (!scan_seed_host(&g->job, state, host, g->vsize)) {
		free(host);
		return cudaErrorInvalidValue;
	}
	e = cudaMemcpy(g->carry, host, bytes, cudaMemcpyHostToDevice);
	free(host);
	CUDA_RET(e);
	/* as in scan_alloc: the backend's non-blocking streams do not wait
	 * for the default stream */
	return cudaStreamSynchronize(0);
}

size_t gpu_scan_carry_bytes(const struct gpu_scan *g)
{
	return g->job.columns * g->vsize;
}

cudaError_t gpu_scan_seed_async(struct gpu_scan *g, const struct red_col *state,
				void *host_pinned, cudaStream_t s)
{
	if (!scan_seed_host(&g->job, state, host_pinned, g->vsize))
		return cudaErrorInvalidValue;
	return cudaMemcpyAsync(g->carry, host_pinned, gpu_scan_carry_bytes(g),
			       cudaMemcpyHostToDevice, s);
}
