/*
 * edges.c - bin edges in a file of their own (edges.h).
 */
#include <string.h>
#include "acc.h"
#include "edges.h"
#include "writer.h"

const char *edges_float_descr(const struct gs_job *job)
{
	if (job->dtype.type == GS_F16)
		return "<f2";
	if (job->dtype.type == GS_F32 || job->dtype.type == GS_BF16)
		return "<f4";
	return "<f8";
}

int edges_file_write(struct cli *c, struct out *o, const char *path,
		     const char *descr, const double *edges, int64_t ifirst,
		     uint64_t n)
{
	struct gs_err err;
	struct sbuf b;
	int rc = 0;

	sb_init(&b);
	if (c->format == FMT_NPY) {
		uint64_t dims[1] = { n + 1 };

		npy_header(&b, descr, dims, 1, 0);
	}
	for (uint64_t i = 0; i <= n; i++) {
		if (descr[1] == 'i') {
			int64_t v = ifirst + (int64_t)i;

			sb_addn(&b, &v, 8);
		} else if (descr[2] == '2') {
			uint16_t x = hist_half_bits(edges[i]);

			sb_addn(&b, &x, 2);
		} else if (descr[2] == '4') {
			float x = (float)edges[i];

			sb_addn(&b, &x, 4);
		} else {
			sb_addn(&b, &edges[i], 8);
		}
	}
	if (b.oom)
		rc = gs_fail(&err, GS_ERUNTIME, path, "out of memory for the edges");
	else if (out_open(o, path, &err) < 0)
		rc = -1;
	else if (out_write(o, b.p, b.len, &err) < 0) {
		out_abort(o);
		rc = -1;
	}
	sb_free(&b);
	return rc < 0 ? cli_report(c, &err) : 0;
}
