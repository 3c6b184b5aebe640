/*
 * algorithm.c - see algorithm.h.
 */
#include <string.h>
#include "algorithm.h"

static const char *const names[GS_NALGOS] = {
	[ALGO_DEFAULT] = "default",
	[ALGO_CPU] = "cpu",
	[ALGO_GLOBAL_ATOMIC] = "global-atomic",
	[ALGO_SHARED_ATOMIC] = "shared-atomic",
	[ALGO_SORT] = "sort",
	[ALGO_ATOMIC] = "atomic",
	[ALGO_BLOCK_TREE] = "block-tree",
	[ALGO_HILLIS_STEELE] = "hillis-steele",
	[ALGO_BLELLOCH] = "blelloch",
};

const char *algo_name(enum gs_algo a)
{
	return (unsigned)a < GS_NALGOS ? names[a] : "?";
}

/* Whether word is one of list's space-separated words. */
static bool in_list(const char *word, const char *list)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strspn(p, " ")) {
		size_t k = strcspn(p, " ");

		if (k == n && strncmp(p, word, n) == 0)
			return true;
		p += k;
	}
	return false;
}

int algo_parse(const char *s, const char *list, enum gs_algo *a)
{
	if (!in_list(s, list))
		return -1;
	for (int i = 0; i < GS_NALGOS; i++)
		if (strcmp(s, names[i]) == 0) {
			*a = (enum gs_algo)i;
			return 0;
		}
	return -1;
}

bool algo_on_gpu(enum gs_algo a)
{
	return a != ALGO_DEFAULT && a != ALGO_CPU;
}
