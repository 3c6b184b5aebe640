/*
 * dispatch_scan.cu - the dispatch that does not depend on the element
 * type: the job's configuration for the kernels, the cut of a chunk, the
 * binding of a job to its element type's kernels (each compiled in its
 * own dispatch_scan_*.cu), and the status kernel every scan that can
 * fail launches.
 */
#include "scan_handle.cuh"

extern "C" {
#include "xprod.h"	/* type_xfmt */
}

/* After phase 3: the failing record, column and why, for the host. One
 * kernel for every variant (agent_scan.cuh declares it). */
__global__ void scan_status_kernel(struct scan_status *st,
				   const struct scan_bad *bad,
				   unsigned columns, struct scan_split sp)
{
	u64 rec;

	if (st->key == SCAN_NONE)
		return;
	rec = st->key / columns;
	st->rec = rec;
	st->col = (unsigned)(st->key % columns);
	st->why = bad[(size_t)st->col * sp.parts + rec / SCAN_TILE / sp.tpp];
}

/* How a chunk of nrec records is cut for bps blocks per SM: as many
 * parts as blocks fit, within the entries allocated at open. */
struct scan_split scan_split_at(struct gpu_scan *g, size_t nrec, unsigned bps)
{
	unsigned blocks = g->nsm * bps;

	return scan_split_of((nrec + SCAN_TILE - 1) / SCAN_TILE, g->job.columns,
			     blocks < g->max_parts ? blocks : g->max_parts);
}

/* The element type's scan_bind_elem, instantiated in its dispatch_scan_*.cu. */
bool scan_bind_job(struct gpu_scan *g)
{
	g->run = NULL;
	return dtype_dispatch(g->job.dtype.type, [g](auto tag) {
		scan_bind_elem<DTYPE_OF(tag)>(g);
		return cudaSuccess;
	}) == cudaSuccess && g->run;
}

/* The block scan of --algorithm. */
static int scan_block_of(enum gs_algo a)
{
	return a == ALGO_HILLIS_STEELE ? SCAN_BLOCK_HS
	     : a == ALGO_BLELLOCH ? SCAN_BLOCK_BLELLOCH : SCAN_BLOCK_WARP;
}

scan_cfg scan_cfg_of(const struct gs_job *job)
{
	scan_cfg c;
	enum gs_type ot = job->out_type;

	memset(&c, 0, sizeof(c));
	c.op = job->op;
	c.excl = job->exclusive;
	c.ofloat = type_is_float(ot);
	c.osigned = type_is_signed(ot);
	c.osize = (unsigned)type_size(ot);
	/* integers that may not fit; products past 2^128 or not roundable */
	c.can_fail = (!type_is_float(job->dtype.type) && !c.ofloat) ||
		     job->op == OP_PROD;
	c.fmt = ieee_fmt_of(c.ofloat ? type_xfmt(ot) : XF_F64);
	if (job->op >= OP_MIN)
		c.ident = scan_word_ident(job->dtype.type, job->op);
	c.block = scan_block_of(job->algo);
	return c;
}
