/*
 * cmd_merge.c - `gpustat merge STATE...`: the states that `-f state` wrote
 * for the shards of a stream (files, or one after another on stdin), merged
 * exactly and printed as the command that wrote them prints its result: the
 * same bits as one run over the shards in a row, whatever their grouping
 * and order (an integer product that overflows names no element: where it
 * passed 2^128 depends on the data before it). -f state writes the merged
 * state, for merges of merges. The format is docs/STATE.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "group.h"
#include "operation.h"
#include "perfile.h"
#include "result_out.h"
#include "state.h"

/* What the operands hold (the driver's c->state). */
struct merge_state {
	struct state total;		/* the merge so far */
	const char *first;		/* where its first state came from */
	struct state *each;		/* --per-file: each operand's merge */
};

/* Every state in operand i, in order, into the total; with --per-file
 * into its own merge too, then a copy of that into the total (read once:
 * a pipe cannot be read twice). */
static int read_operand(struct cli *c, const char *path, int i,
			struct gs_err *err)
{
	struct merge_state *m = c->state;
	const char *first;

	if (!m->each || c->noperands < 2) {
		if (state_load(path, &m->total, &m->first, err) < 0)
			return -1;
		if (m->each)
			m->each[i] = m->total;
		return 0;
	}
	/* every operand's table is held to the end, and the total's: a
	 * share of the limit each */
	if (state_load_within(path, &m->each[i], &first,
			      group_limit() / ((uint64_t)c->noperands + 1),
			      err) < 0)
		return -1;
	return state_fold_copy(&m->total, &m->first, &m->each[i], first, err);
}

/* Read every operand (or stdin); each one that fails is reported, and the
 * run goes on to name the others, as a cat of them would. */
static int merge_open(struct cli *c, struct gs_err *err)
{
	struct merge_state *m = c->state;
	char *stdin_only[] = { "-" };
	char **ops = c->noperands ? c->operands : stdin_only;
	int n = c->noperands ? c->noperands : 1;

	if (out_check_inputs("-o", c->output, c->operands, c->noperands, err) < 0)
		return -1;
	m->each = c->per_file ? calloc((size_t)n, sizeof(*m->each)) : NULL;
	if (c->per_file && !m->each)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (int i = 0; i < n; i++) {
		struct gs_err table;

		/* a total that failed (a group-by's table that could not
		 * spill: reported) takes no more */
		if (m->total.acc &&
		    acc_check(&m->total.job, m->total.acc, &table) < 0)
			break;
		if (read_operand(c, ops[i], i, err) < 0) {
			c->operand_failed = true;
			cli_report(c, err);
		}
	}
	err->code = GS_ERUNTIME;
	err->what[0] = '\0';	/* reported already */
	return c->operand_failed ? -1 : 0;
}

/* Merge s as its command's last pass prints it, or as a state again. */
static int merged_result(struct cli *c, const struct pass *last,
			 const struct state *s, struct sbuf *b,
			 struct gs_err *err)
{
	c->job = s->job;
	c->records = s->records;
	return c->format == FMT_STATE ? state_write(c, s->acc, b, err)
				      : last->done(c, s->acc, b, err);
}

/* --per-file: each operand's merge, then (with two or more, and not as
 * states) the total (perfile.h). m: the merge's own state (c->state is
 * the command's by now). */
static int merged_per_file(struct cli *c, const struct merge_state *m,
			   const struct pass *last, struct sbuf *b,
			   struct gs_err *err)
{
	int n = c->noperands ? c->noperands : 1, rc = 0;
	struct perfile pf;

	perfile_init(&pf, c, n, b);
	for (int i = 0; i < n && rc == 0; i++) {
		const char *name = c->noperands ? c->operands[i] : "-";

		rc = merged_result(c, last, &m->each[i], perfile_next(&pf, name),
				   err);
		rc = perfile_end(&pf, rc, err);
		if (rc < 0 && !err->where[0])	/* a result's error: whose */
			snprintf(err->where, sizeof(err->where), "%s", name);
	}
	if (rc == 0 && n > 1 && c->format != FMT_STATE) {
		rc = merged_result(c, last, &m->total, perfile_next(&pf, NULL),
				   err);
		rc = perfile_end(&pf, rc, err);
	}
	if (rc == 0)
		rc = perfile_join(&pf, err);
	perfile_free(&pf);
	return rc;
}

/* The total as its command prints it, or as a state again. */
static int merge_stream(struct cli *c)
{
	struct merge_state *m = c->state;
	const struct command *cmd = command_find(m->total.command);
	const struct pass *last = cmd ? cmd->passes : NULL;
	struct result_out ro;
	struct gs_err err;
	struct sbuf b;
	bool own_finish, stream;
	int rc;

	while (last && last[1].done)
		last++;
	/* a grouped run's (--by) states: its one pass */
	if (last && m->total.job.cmd == CMD_GROUP && cmd->opts &&
	    group_by_option(cmd))
		last = group_passes;
	if (!last || (last->op != m->total.job.cmd &&
		      !(cmd->other_state &&
			cmd->other_state_op == m->total.job.cmd))) {
		gs_fail(&err, GS_ERUNTIME, m->first, "no command '%s' makes "
			"such a state", m->total.command);
		return cli_report(c, &err);
	}
	if (cmd->stream && c->format != FMT_STATE) {
		gs_fail(&err, GS_EUSAGE, "merge", "%s states merge into a state "
			"(-f state), the carry-in of a later %s", cmd->name,
			cmd->name);
		return cli_report(c, &err);
	}
	if (!command_writes(cmd, c->format)) {
		gs_fail(&err, GS_EUSAGE, "merge", "%s writes %s, not -f %s",
			cmd->name, cmd->formats, format_name(c->format));
		return cli_report(c, &err);
	}
	/* from here on c is a run of that command over every shard */
	c->command = cmd;
	c->cmd = cmd->name;
	c->job = m->total.job;
	c->state = cmd->state_size ? calloc(1, cmd->state_size) : NULL;
	if (cmd->state_size && !c->state) {
		gs_fail(&err, GS_ERUNTIME, "", "out of memory");
		return cli_report(c, &err);
	}
	/* --by's rows (or its state), a key at a time, stream as a run's
	 * (result_out.h) */
	own_finish = cmd->finish && c->format != FMT_STATE;
	stream = m->total.job.cmd == CMD_GROUP && !own_finish;
	sb_init(&b);
	if (stream)
		result_out_start(&ro, c, &b);
	rc = m->each ? merged_per_file(c, m, last, &b, &err)
		     : merged_result(c, last, &m->total, &b, &err);
	if (rc < 0) {
		if (stream)
			result_out_abort(&ro);
		sb_free(&b);
		return cli_report(c, &err);
	}
	rc = own_finish ? cmd->finish(c, &b) : stream ?
	     result_out_finish(&ro, &b) : cli_finish(c, &b);
	sb_free(&b);
	return rc;
}

const struct command merge_command = {
	.name = "merge",
	.summary = "merge -f state results of shards into one result",
	.usage = "[OPTION]... [STATE]...",
	.about = "Merge the states that -f state wrote for the shards of a "
		 "stream (files, or\none after another on stdin) and print "
		 "exactly what the command that wrote\nthem prints for the "
		 "shards in a row, in any grouping and order.",
	.examples = "gpustat sum -f state -o a.state a.f32\n"
		    "gpustat merge a.state b.state c.state\n"
		    "cat shards/*.state | gpustat merge -f json",
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS " pgm png",	/* hist2d's images too */
	.formats_help = RESULT_FORMATS_HELP ",\npgm, png (hist2d's image)",
	.reads_no_data = true,
	.state_size = sizeof(struct merge_state),
	.open = merge_open,
	.stream = merge_stream,
};
