/*
 * unit_perfile.c - --per-file's join (perfile.c, wr_json.c) on results no
 * command makes today: an empty json result still closes its object, and
 * a result whose buffer ran out of memory ends the run at once, its
 * buffer whole again for the next.
 */
#include <string.h>
#include "perfile.h"
#include "unit.h"

/* The joined json of results given as strings; NULL: an empty result. */
static void join_json(const char *const *res, int n, struct sbuf *b)
{
	struct cli c = { .format = FMT_JSON };
	struct perfile pf;
	struct gs_err err;

	sb_init(b);
	perfile_init(&pf, &c, n, b);
	for (int i = 0; i < n; i++) {
		struct sbuf *s = perfile_next(&pf, i ? "b" : "a");

		if (res[i])
			sb_add(s, res[i]);
		CHECK(perfile_end(&pf, 0, &err) == 0);
	}
	CHECK(perfile_join(&pf, &err) == 0);
	perfile_free(&pf);
}

static void check_empty_results(void)
{
	static const char *const empty[] = { NULL };
	static const char *const both[] = { "{\"x\":1}\n", NULL };
	static const char *const braces[] = { "{}\n", "{\"x\":1}\n" };
	struct sbuf b;

	join_json(empty, 1, &b);
	CHECKF(b.len && strcmp(b.p, "[{\"file\":\"a\"}]\n") == 0, "%s", b.p);
	sb_free(&b);
	join_json(both, 2, &b);
	CHECKF(b.len && strcmp(b.p, "[{\"file\":\"a\",\"x\":1},\n"
			       "{\"file\":\"b\"}]\n") == 0,
	       "%s", b.p);
	sb_free(&b);
	join_json(braces, 2, &b);
	CHECKF(b.len && strcmp(b.p, "[{\"file\":\"a\"},\n"
			       "{\"file\":\"b\",\"x\":1}]\n") == 0,
	       "%s", b.p);
	sb_free(&b);
}

/* A result cut by out of memory fails its end (the run stops there, not
 * after reading every later operand for nothing), and the buffer of the
 * next result is not cut before anything is added to it. */
static void check_oom(void)
{
	struct cli c = { .format = FMT_JSON };
	struct perfile pf;
	struct gs_err err = { 0 };
	struct sbuf b, *s;

	sb_init(&b);
	perfile_init(&pf, &c, 2, &b);
	s = perfile_next(&pf, "a");
	sb_add(s, "{\"x\":");
	s->oom = true;		/* as a failed realloc leaves it */
	CHECK(perfile_end(&pf, 0, &err) == -1);
	CHECKF(strstr(err.what, "out of memory") != NULL, "%s", err.what);
	CHECK(b.oom);
	s = perfile_next(&pf, "b");
	CHECK(!s->oom);
	perfile_free(&pf);
	sb_free(&b);
}

int main(void)
{
	check_empty_results();
	check_oom();
	UNIT_END();
}
