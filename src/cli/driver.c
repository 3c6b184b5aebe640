/*
 * driver.c - the one way every command runs (see command.h): parse, check,
 * open, plan the passes, run each over the input, finish. A command only
 * fills in what is its own; the order of the steps, the accumulators' limit
 * and the rule that nothing is written after an error live here.
 *
 * Exit paths return without freeing what the run made: the process ends
 * right after, and after a backend error the engine's reader may still be
 * using the input (engine.c says why the engine is not freed then either).
 */
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "state.h"

/* Every operand as one stream into c->in. */
static int open_all(struct cli *c, struct gs_err *err)
{
	if (cli_open_input(c, c->operands, c->noperands, &c->in, &c->info,
			   err) < 0)
		return -1;
	c->input_bytes = c->info.total_bytes;
	return 0;
}

bool command_writes(const struct command *cmd, enum gs_format f)
{
	const char *name = format_name(f), *p = cmd->formats;
	size_t n = strlen(name);

	for (; (p = strstr(p, name)) != NULL; p += n)
		if ((p == cmd->formats || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* One pass: its accumulator within the limit, the engine over the input,
 * then the pass's own handling of the result; the last pass of -f state
 * writes the accumulator itself. */
static int run_pass(struct cli *c, const struct pass *p, struct sbuf *b,
		    struct gs_err *err)
{
	struct engine_stats st;
	void *acc;
	int rc;

	c->job.cmd = p->op;
	if (p->start && p->start(c, err) < 0)
		return -1;
	acc = engine_acc_new(&c->job, &c->eo, p->extra ? p->extra(c) : 0, err);
	if (!acc)
		return -1;
	if (cli_run(c, c->in, c->in2, c->input_bytes, NULL, acc, &st, err) < 0)
		return -1;
	c->records = st.records;
	/* a streaming command's passes are its -f state's: done writes it */
	if (c->format == FMT_STATE && !p[1].done && !c->command->stream)
		rc = state_write(c, acc, b, err);
	else
		rc = p->done(c, acc, b, err);
	free(acc);
	return rc;
}

static int run_passes(struct cli *c, const struct pass *passes)
{
	struct gs_err err;
	struct sbuf b;
	int rc;

	sb_init(&b);
	for (const struct pass *p = passes; p->done; p++)
		if (run_pass(c, p, &b, &err) < 0)
			return cli_report(c, &err);
	input_close(c->in);
	if (c->in2)
		input_close(c->in2);
	if (c->command->finish && c->format != FMT_STATE)
		rc = c->command->finish(c, &b);
	else
		rc = cli_finish(c, &b);
	sb_free(&b);
	return rc;
}

int command_run(const struct command *cmd, int argc, char **argv)
{
	struct cli c = { .cmd = argv[0] };
	const struct pass *passes = cmd->passes;
	struct gs_err err;
	int rc;

	if (cmd->state_size && !(c.state = calloc(1, cmd->state_size))) {
		gs_fail(&err, GS_ERUNTIME, "", "out of memory");
		return cli_report(&c, &err);
	}
	rc = cli_parse(&c, argc, argv, cmd, &err);
	if (rc)
		return rc > 0 ? 0 : cli_report(&c, &err);
	if (cmd->check && cmd->check(&c, &err) < 0)
		return cli_report(&c, &err);
	if (!command_writes(cmd, c.format)) {
		gs_fail(&err, GS_EUSAGE, cmd->name, "writes %s, not -f %s",
			cmd->formats, format_name(c.format));
		return cli_report(&c, &err);
	}
	if ((cmd->open ? cmd->open(&c, &err) : open_all(&c, &err)) < 0)
		return cli_report(&c, &err);
	/* a streaming command's -f state is that of its passes, if any */
	if (cmd->stream && (c.format != FMT_STATE || !cmd->passes))
		return cmd->stream(&c);
	if (cmd->plan && cmd->plan(&c, &passes, &err) < 0)
		return cli_report(&c, &err);
	rc = run_passes(&c, passes);
	free(c.state);
	return rc;
}
