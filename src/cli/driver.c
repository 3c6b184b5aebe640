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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "operation.h"
#include "pagein.h"
#include "perfile.h"
#include "result_out.h"
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

/* The pass's handling of its accumulator; the last pass of -f state
 * writes the accumulator itself (a streaming command's passes are its -f
 * state's: done writes it). */
static int pass_done(struct cli *c, const struct pass *p, void *acc,
		     struct sbuf *b, struct gs_err *err)
{
	if (c->format == FMT_STATE && !p[1].done && !c->command->stream)
		return state_write(c, acc, b, err);
	return p->done(c, acc, b, err);
}

/* -v: what pass n cost (two-pass commands read their input twice), and
 * how much of the files it read was not in memory (coldread.h): all0 and
 * cold0 are input_cold_bytes's counts before it. */
static void pass_report(const struct cli *c, int n,
			const struct engine_stats *st, uint64_t all0,
			uint64_t cold0)
{
	uint64_t all, cold, bytes = st->records * job_record_size(&c->job);
	const char *how = input_cold_bytes(&all, &cold);
	char from[160] = "";

	if (strcmp(how, "off") != 0 && all > all0)
		snprintf(from, sizeof(from), "; %.1f of %.1f MiB of its file "
			 "reads not in memory (cold reads: %s)",
			 (cold - cold0) / 1048576.0, (all - all0) / 1048576.0,
			 how);
	fprintf(stderr, "gpustat: pass %d: %.1f MiB in %.3f s (%.2f GB/s)%s\n",
		n, bytes / 1048576.0, st->wall,
		st->wall > 0 ? bytes / st->wall / 1e9 : 0.0, from);
}

/* One pass over c->in (pass n): its accumulator within the limit, the
 * engine, then the pass's handling of the result. keep: the accumulator
 * is kept there (else freed). */
static int run_pass(struct cli *c, const struct pass *p, int n,
		    struct sbuf *b, void **keep, struct gs_err *err)
{
	struct engine_stats st;
	uint64_t all0, cold0;
	void *acc;
	int rc;

	c->job.cmd = p->op;
	if (p->start && p->start(c, err) < 0)
		return -1;
	acc = engine_acc_new(&c->job, &c->eo, p->extra ? p->extra(c) : 0, err);
	if (!acc)
		return -1;
	input_cold_bytes(&all0, &cold0);
	if (cli_run(c, c->in, c->in2, c->input_bytes, NULL, acc, &st, err) < 0)
		return -1;
	if (c->verbose)
		pass_report(c, n, &st, all0, cold0);
	c->records = st.records;
	rc = pass_done(c, p, acc, b, err);
	if (keep && rc == 0)
		*keep = acc;
	else
		acc_release(&c->job, acc);
	return rc;
}

/* Every pass over c->in into b; keep: the last one's accumulator. */
static int run_over(struct cli *c, const struct pass *passes, struct sbuf *b,
		    void **keep, struct gs_err *err)
{
	for (const struct pass *p = passes; p->done; p++)
		if (run_pass(c, p, (int)(p - passes) + 1, b,
			     p[1].done ? NULL : keep, err) < 0)
			return -1;
	return 0;
}

/* Operand i's result (perfile.h): every pass over it alone. A single
 * operand (or stdin, named "-") is the stream already open. With one
 * pass, its accumulator is merged into *total (the first becomes it). */
static int operand_result(struct cli *c, const struct pass *passes, int i,
			  struct perfile *pf, void **total, uint64_t *records,
			  struct gs_err *err)
{
	const char *name = c->noperands ? c->operands[i] : "-";
	struct input *all = c->in;
	int64_t all_bytes = c->input_bytes;
	void *acc = NULL;
	int rc;

	/* read alone, its failure is its own to report: an earlier
	 * operand's later passes muted the reports of theirs */
	c->mute_operands = false;
	if (c->noperands > 1 && cli_open_operand(c, i, err) < 0)
		return -1;
	rc = run_over(c, passes, perfile_next(pf, name),
		      passes[1].done ? NULL : &acc, err);
	rc = perfile_end(pf, rc, err);
	if (rc < 0 && !err->where[0])	/* a result's error: whose */
		snprintf(err->where, sizeof(err->where), "%s", name);
	if (c->noperands > 1) {
		/* after an error the engine may have left its reader running
		 * in this input (a blocking read of a pipe): the error ends
		 * the process, so the input is left to it, never freed under
		 * that reader */
		if (rc == 0)
			input_close(c->in);
		c->in = all;
		c->input_bytes = all_bytes;
	}
	*records += c->records;
	if (acc && *total)
		state_merge_acc(&c->job, *total, acc);
	if (acc && *total && rc == 0)
		rc = acc_check(&c->job, *total, err);
	if (acc && !*total)
		*total = acc;
	else
		acc_release(&c->job, acc);
	return rc;
}

/*
 * --per-file: every operand alone, each result what a run over it prints
 * (read as the run over all of them reads it: cli_open_operand), then,
 * with two or more, the total, what a run over them in a row
 * prints: with one pass the exact merge of their accumulators, with more
 * (hist's range first) the passes again over the whole stream. -f state
 * writes each operand's state and no total, which gpustat merge makes.
 */
static int run_per_file(struct cli *c, const struct pass *passes,
			struct sbuf *b, struct gs_err *err)
{
	struct perfile pf;
	uint64_t records = 0;
	void *total = NULL;
	int rc = 0, n = c->noperands ? c->noperands : 1;

	/* a total of more passes than one reads every operand again, after
	 * each was read alone: a pipe would be empty by then */
	if (n > 1 && passes[1].done && c->format != FMT_STATE &&
	    !input_rewindable(c->in))
		return gs_fail(err, GS_EUSAGE, "", "--per-file: the total reads "
			       "every operand again, and a pipe cannot be "
			       "read twice; give files");
	perfile_init(&pf, c, n, b);
	for (int i = 0; i < n && rc == 0; i++)
		rc = operand_result(c, passes, i, &pf, &total, &records, err);
	if (rc == 0 && n > 1 && c->format != FMT_STATE) {
		struct sbuf *t = perfile_next(&pf, NULL);

		c->records = records;
		rc = total ? pass_done(c, passes, total, t, err)
			   : run_over(c, passes, t, NULL, err);
		rc = perfile_end(&pf, rc, err);
	}
	if (rc == 0)
		rc = perfile_join(&pf, err);
	acc_release(&c->job, total);
	perfile_free(&pf);
	return rc;
}

bool cli_input_cold(const struct cli *c, const struct input *in,
		    int64_t input_bytes)
{
	return c->backend == BACKEND_AUTO && in && input_bytes > 0 &&
	       !c->info.compressed && input_cold(in);
}

/* The bytes the page cache could take now: MemAvailable, or -1 where
 * /proc/meminfo does not say. */
static int64_t cache_room(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long long kib = -1;

	if (!f)
		return -1;
	while (kib < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) != 1)
			kib = -1;
	fclose(f);
	return kib < 0 ? -1 : (int64_t)kib * 1024;
}

/* Whether the pass after the one about to read c->in finds it cold: it is
 * cold now, and the reading (which leaves what it reads in the page cache,
 * coldread.h) cannot leave it all there. A pass over a cold file is
 * planned as a pipe's, on the CPU (auto_plan.c), so a GPU started for
 * it before would be started for nothing; one over a file the first pass
 * left cached is planned as any cached file's. */
static bool stays_cold(const struct cli *c)
{
	int64_t room;

	if (!cli_input_cold(c, c->in, c->input_bytes))
		return false;
	room = cache_room();
	return room < 0 || c->input_bytes > room;
}

void cli_prestart(struct cli *c, enum gs_cmd op)
{
	struct gs_job job = c->job;
	int threads = c->eo.threads;
	struct gs_err err;

	job.cmd = op;
	job.cold_input = stays_cold(c);
	if (job.cold_input && c->verbose)
		fputs("gpustat: backend: no GPU started early: the file is "
		      "mostly on disk, larger than the memory free to cache "
		      "it\n", stderr);
	if (c->backend == BACKEND_AUTO && !c->eo.ndevices &&
	    engine_fit_threads(&job, &threads, true, 0, &err) < 0)
		return;
	if (!backend_prestart(c->backend, &job, c->input_bytes,
			      c->info.compressed, threads, c->eo.device,
			      c->eo.ndevices))
		return;
	if (c->verbose)
		fprintf(stderr, "gpustat: backend: the GPU starts in the "
			"background now, for %s\n", operation_of(&job)->name);
	/* the engine's buffers paged in meanwhile, for the GPU's backends to
	 * pin (auto's come from malloc, pinned by its start thread) */
	if (c->backend == BACKEND_CUDA || c->eo.ndevices)
		pagein_start(c->eo.chunk_size, ENGINE_NBUF * (c->in2 ? 2 : 1));
}

static int run_passes(struct cli *c, const struct pass *passes)
{
	bool own_finish = c->command->finish && c->format != FMT_STATE;
	/* --by's rows, a row per key, stream (result_out.h); --per-file's
	 * too, each labelled as it is made (perfile.h) */
	bool stream = c->by && !own_finish;
	struct result_out ro;
	struct gs_err err;
	struct sbuf b;
	int rc;

	sb_init(&b);
	/* --backend cuda, --devices: the GPU's context from here, beside the
	 * passes' first steps (cli_prestart); auto's depends on the pass's
	 * plan, which a command asks for itself (hist2d's range pass) */
	if (c->backend == BACKEND_CUDA || c->eo.ndevices)
		cli_prestart(c, passes->op);
	if (stream)
		result_out_start(&ro, c, &b);
	if ((c->per_file ? run_per_file(c, passes, &b, &err)
			 : run_over(c, passes, &b, NULL, &err)) < 0) {
		if (stream)
			result_out_abort(&ro);
		return cli_report(c, &err);
	}
	input_close(c->in);
	if (c->in2)
		input_close(c->in2);
	if (own_finish)
		rc = c->command->finish(c, &b);
	else if (stream)
		rc = result_out_finish(&ro, &b);
	else
		rc = cli_finish(c, &b);
	sb_free(&b);
	return rc;
}

/* --per-file reads each operand again alone: stdin cannot be, beside
 * others (alone it is its own total). */
static int check_per_file(const struct cli *c, struct gs_err *err)
{
	for (int i = 0; c->per_file && c->noperands > 1 && i < c->noperands; i++)
		if (strcmp(c->operands[i], "-") == 0)
			return gs_fail(err, GS_EUSAGE, "", "--per-file: stdin "
				       "('-') can only be the one operand");
	return 0;
}

/* Records of mixed types (-t list, a structured .npy), once the input
 * has settled them: the commands that read them. */
static int check_mixed(const struct cli *c, struct gs_err *err)
{
	char t[200];

	if (!c->job.rec || c->by)	/* --by reads every column of them */
		return 0;
	bool bools = true;

	record_name(c->job.rec, t, sizeof(t));
	for (unsigned k = 0; k < c->job.rec->n; k++)
		bools = bools && c->job.rec->type[k].boolean;
	if (!c->command->mixed && bools)
		return gs_fail(err, GS_EUSAGE, c->cmd, "records of mixed types "
			       "(%s): bool columns are read by sum, reduce, "
			       "stats and count, not yet by this command", t);
	if (!c->command->mixed)
		return gs_fail(err, GS_EUSAGE, c->cmd, "records of mixed types "
			       "(%s): it reads one column of them (-F N), not "
			       "yet several", t);
	return 0;
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
	if ((cmd->check && cmd->check(&c, &err) < 0) ||
	    check_per_file(&c, &err) < 0)
		return cli_report(&c, &err);
	if (!command_writes(cmd, c.format)) {
		gs_fail(&err, GS_EUSAGE, cmd->name, "writes %s, not -f %s",
			cmd->formats, format_name(c.format));
		return cli_report(&c, &err);
	}
	if ((cmd->open ? cmd->open(&c, &err) : open_all(&c, &err)) < 0 ||
	    check_mixed(&c, &err) < 0)
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
