/*
 * perfile.c - see perfile.h; each format joins the results its own way
 * (writer.h).
 */
#include <stdlib.h>
#include "perfile.h"
#include "writer.h"

int perfile_init(struct perfile *pf, int n)
{
	pf->n = 0;
	pf->direct = NULL;
	pf->body = calloc((size_t)n, sizeof(*pf->body));
	pf->name = calloc((size_t)n, sizeof(*pf->name));
	return pf->body && pf->name ? 0 : -1;
}

void perfile_direct(struct perfile *pf, const struct cli *c, struct sbuf *b)
{
	if (writer_format(c->format)->join == writer_concat)
		pf->direct = b;
}

struct sbuf *perfile_next(struct perfile *pf, const char *name)
{
	struct sbuf *b = &pf->body[pf->n];

	if (pf->direct)
		return pf->direct;

	sb_init(b);
	pf->name[pf->n++] = name;
	return b;
}

void perfile_free(struct perfile *pf)
{
	for (int i = 0; i < pf->n; i++)
		sb_free(&pf->body[i]);
	free(pf->body);
	free(pf->name);
}

int perfile_join(const struct cli *c, const struct perfile *pf,
		 struct sbuf *b, struct gs_err *err)
{
	if (pf->direct)		/* in b already */
		return 0;
	for (int i = 0; i < pf->n; i++)
		if (pf->body[i].oom) {
			b->oom = true;
			return 0;
		}
	return writer_format(c->format)->join(c, pf->body, pf->name, pf->n, b,
					       err);
}
