/*
 * prefilter.c: find every rule's required literal in one pass.
 *
 * Running each rule's regex on each line would cost (rules x bytes); most
 * lines of a training log match nothing.  An Aho-Corasick automaton over all
 * the literals, stored as a dense DFA over byte classes, reads each byte
 * once and names the rules worth trying.  Bytes that occur in no literal
 * share class 0, which keeps the table small enough to stay in cache.
 */
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

/* A trie node under construction. */
struct ac_node {
	uint32_t	*next;		/* ncls children, 0 = none (root is 0) */
	uint32_t	 fail;		/* failure link */
	uint32_t	 out;		/* first output + 1 */
};

/* Give every byte that appears in some literal a class of its own. */
static void
prefilter_classes(struct prefilter *pf, char **lit, size_t n)
{
	size_t	i, j;

	memset(pf->cls, 0, sizeof pf->cls);
	pf->ncls = 1;
	for (i = 0; i < n; i++) {
		for (j = 0; lit[i][j] != '\0'; j++) {
			uint8_t	c = (uint8_t)lit[i][j];

			if (pf->cls[c] == 0)
				pf->cls[c] = (uint8_t)pf->ncls++;
		}
	}
}

/* Append a trie node; returns its index. */
static uint32_t
ac_new(struct ac_node **nodes, size_t *n, size_t *cap, unsigned ncls)
{
	if (*n == *cap) {
		*cap = *cap == 0 ? 256 : *cap * 2;
		*nodes = xreallocarray(*nodes, *cap, sizeof **nodes);
	}
	(*nodes)[*n].next = xcalloc(ncls, sizeof (uint32_t));
	(*nodes)[*n].fail = 0;
	(*nodes)[*n].out = 0;
	return (uint32_t)(*n)++;
}

/*
 * Build the automaton: lit[i] leads to target[i].  Literals may repeat;
 * each occurrence is one output.
 */
void
prefilter_build(struct prefilter *pf, char **lit, uint32_t *target, size_t n)
{
	struct ac_node	*nodes = NULL;
	size_t		 nn = 0, cap = 0, i, j, head, tail;
	uint32_t	*queue, s, t, c;

	prefilter_free(pf);
	if (n > 256 * 255)
		fatal("too many literals (%zu)", n);
	prefilter_classes(pf, lit, n);
	ac_new(&nodes, &nn, &cap, pf->ncls);
	pf->outnext = xcalloc(n, sizeof *pf->outnext);
	pf->outtarget = xcalloc(n, sizeof *pf->outtarget);
	pf->nout = n;
	for (i = 0; i < n; i++) {
		s = 0;
		for (j = 0; lit[i][j] != '\0'; j++) {
			c = pf->cls[(uint8_t)lit[i][j]];
			if (nodes[s].next[c] == 0) {
				t = ac_new(&nodes, &nn, &cap, pf->ncls);
				nodes[s].next[c] = t;
			}
			s = nodes[s].next[c];
		}
		pf->outtarget[i] = target[i];
		pf->outnext[i] = nodes[s].out;
		nodes[s].out = (uint32_t)i + 1;
	}

	/*
	 * Breadth first, so a node's failure link is final before its
	 * children need it.  Each node's output chain is extended with its
	 * failure node's chain, which turns the trie into the DFA in place.
	 */
	queue = xcalloc(nn, sizeof *queue);
	head = tail = 0;
	for (c = 0; c < pf->ncls; c++) {
		if ((t = nodes[0].next[c]) != 0)
			queue[tail++] = t;
	}
	while (head < tail) {
		s = queue[head++];
		if (nodes[s].out == 0)
			nodes[s].out = nodes[nodes[s].fail].out;
		else {
			/* Find the end of s's own chain and link the rest. */
			uint32_t	o = nodes[s].out;

			while (pf->outnext[o - 1] != 0 &&
			    pf->outnext[o - 1] != nodes[nodes[s].fail].out)
				o = pf->outnext[o - 1];
			if (pf->outnext[o - 1] == 0)
				pf->outnext[o - 1] = nodes[nodes[s].fail].out;
		}
		for (c = 0; c < pf->ncls; c++) {
			t = nodes[s].next[c];
			if (t == 0) {
				nodes[s].next[c] = nodes[nodes[s].fail].next[c];
				continue;
			}
			nodes[t].fail = nodes[nodes[s].fail].next[c];
			queue[tail++] = t;
		}
	}
	free(queue);

	pf->nstates = nn;
	pf->delta = xreallocarray(NULL, nn * pf->ncls, sizeof *pf->delta);
	pf->out = xcalloc(nn, sizeof *pf->out);
	if (nn * pf->ncls >= PF_OUT)
		fatal("prefilter too large (%zu states)", nn);
	for (i = 0; i < nn; i++)
		pf->out[i] = nodes[i].out;
	for (i = 0; i < nn; i++) {
		for (c = 0; c < pf->ncls; c++) {
			t = nodes[i].next[c];
			pf->delta[i * pf->ncls + c] = (uint32_t)(t * pf->ncls) |
			    (pf->out[t] != 0 ? PF_OUT : 0);
		}
	}
	for (i = 0; i < nn; i++)
		free(nodes[i].next);
	free(nodes);
}

void
prefilter_free(struct prefilter *pf)
{
	free(pf->delta);
	free(pf->out);
	free(pf->outnext);
	free(pf->outtarget);
	memset(pf, 0, sizeof *pf);
}
