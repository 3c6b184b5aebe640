/*
 * unit_ops.c - what is made from the rows of src/numerics/ops.def agrees with them:
 * enum gs_cmd has one value per row, in their order; each operation's
 * record (ops/operation.c) has its row's name (unique: a state file
 * names its operation by it), CPU kernels, state codec and flow; and
 * --backend auto (engine/auto_plan.c) plans a job of it that none of its
 * finer rows matches by the row's RATE: what the reason calls it, the
 * CPU's rate per thread and the GPU's, or, at a GPU rate of 0, the CPU
 * whatever the size.
 */
#include <stdio.h>
#include <string.h>
#include "auto_plan.h"
#include "operation.h"
#include "unit.h"

struct row {
	enum gs_cmd id;
	const char *name;
	const struct acc_kernels *cpu;
	const struct state_codec *state;
	bool stream;
	double cpu_me, gpu_gbs;
	const char *what;
};

static const struct row rows[] = {
#define OPERATION(id, nm, kernels, gpu, codec, rate, flow, zero) \
	{ CMD_##id, nm, &kernels, codec, flow, rate },
#define STATE(x) &x
#define NO_STATE NULL
#define FOLD false
#define STREAM true
#define RATE(cpu_me, gpu_gbs, what) cpu_me, gpu_gbs, what
#include "ops.def"
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* The record of row r matches it. */
static void check_record(size_t i)
{
	const struct row *r = &rows[i];
	struct gs_job job = { .cmd = r->id, .columns = 1 };
	const struct operation *op = operation_of(&job);

	CHECKF((size_t)r->id == i, "row %zu is CMD %d", i, (int)r->id);
	CHECKF(strcmp(op->name, r->name) == 0, "%s: named %s", r->name,
	       op->name);
	CHECK(op->cpu == r->cpu && acc_kernels_for(&job) == r->cpu);
	CHECK(op->state == r->state);
	CHECK(op->stream == r->stream);
	for (size_t k = 0; k < i; k++)
		CHECKF(strcmp(rows[k].name, r->name) != 0, "%s twice", r->name);
}

/* A job of row r's operation that no finer row of auto_plan.c matches
 * (they pick types, sums, minima and maxima, and hist's bins of one per
 * value) is planned by the row's rate. */
static void check_rate(const struct row *r)
{
	struct gs_job job = { .cmd = r->id, .columns = 1, .op = OP_PROD,
			      .ranged = true };
	char why[400], cpu[64], gpu[64];

	job.dtype.type = GS_F64;
	/* a group-by goes to the GPU only for keys of few values (u16); a
	 * group-by's quantile for one key and one value of 32 bits at most */
	unsigned key = 0, val = 1;
	struct gs_group gr = { .nkeys = 1, .nvals = 1, .key = &key,
			       .val = &val, .what = GROUP_SUM, .limit = 1,
			       .ranks = true };
	bool keyed = r->id == CMD_GROUP || r->id == CMD_GVALS;

	if (keyed) {
		job.dtype.type = GS_U16;
		job.columns = 2;
		job.group = &gr;
	}
	bool on_gpu = auto_plan_gpu(&job, (int64_t)1 << 50, false, 1, why,
				    sizeof(why));

	if (r->gpu_gbs <= 0) {
		CHECKF(!on_gpu && strstr(why, r->what) == why &&
		       strstr(why, "its GPU kernels were slower"),
		       "%s: %s", r->name, why);
		CHECK(!auto_plan_watch(&job, 1 << 20, false));
		return;
	}
	/* a group-by's rates are in records */
	snprintf(cpu, sizeof(cpu), "on 1 CPU thread (%.1f GB/s)",
		 r->cpu_me * 1e6 * (double)type_size(job.dtype.type) *
		 (keyed ? job.columns : 1) / 1e9);
	snprintf(gpu, sizeof(gpu), "then %.0f GB/s", r->gpu_gbs);
	CHECKF(on_gpu && strstr(why, r->what) == why && strstr(why, cpu) &&
	       strstr(why, gpu), "%s: %s", r->name, why);
	CHECK(auto_plan_watch(&job, 1 << 20, false));
}

int main(void)
{
	CHECKF(NROWS == GS_NCMDS, "%zu rows, %d operations", NROWS,
	       (int)GS_NCMDS);
	for (size_t i = 0; i < NROWS; i++) {
		check_record(i);
		check_rate(&rows[i]);
	}
	UNIT_END();
}
