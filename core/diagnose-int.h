/*
 * diagnose-int.h: what diagnose.c and diagnose-order.c share, private to
 * the diagnosis.
 */
#ifndef RANKLINE_DIAGNOSE_INT_H
#define RANKLINE_DIAGNOSE_INT_H

/* diagnose-order.c */
void		 diagnose_resolve(struct rl_incident *);
void		 diagnose_rank_sources(struct rl_incident *);
int		 diagnose_rank_cmp(const void *, const void *);

#endif
