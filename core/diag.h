/*
 * diag.h: the diagnosis's parts (diagnose.c, diagnose-order.c, diag-*.c)
 * and what they share, private to them and to the pipeline, the one
 * caller of diagnose().  No reader of the model includes it: the answer
 * they read is in the incident (model.h).
 */
#ifndef RANKLINE_DIAG_H
#define RANKLINE_DIAG_H

#include "engine.h"

/* diagnose.c: the three answers from the events (through pipeline.c). */
void		 diagnose(struct rl_incident *);
void		 diagnose_reset(struct rl_incident *);
int64_t		 death_signal(const struct rl_event *);

/* diag-checkpoint.c: which checkpoint is safe to resume from. */
void		 checkpoint_analyze(struct rl_incident *);

/*
 * ckptdir.c: the checkpoint folder, when its files are among the paths
 * (for diag-checkpoint.c).
 */
struct ckpt_disk {
	bool		 present;	/* some checkpoint file was given */
	int		*broken;	/* steps whose files are incomplete */
	size_t		 nbroken;
	int		*complete;	/* steps whose files look whole */
	size_t		 ncomplete;
	int		 tracker;	/* the step a tracker file names, or RL_NONE */
	int		 tracker_source;/* that file's source, or RL_NONE */
	struct rl_evlist evidence;	/* what the files show */
};
void		 ckptdir_check(struct rl_incident *, struct ckpt_disk *);

/* diagnose-order.c */
void		 diagnose_resolve(struct rl_incident *);
void		 diagnose_copies(struct rl_incident *, bool *);
void		 diagnose_lone_rank(struct rl_incident *);
void		 diagnose_rank_sources(struct rl_incident *);
int		 diagnose_rank_cmp(const void *, const void *);
void		 diagnose_host_rows(struct rl_incident *);

/* diag-join.c: hardware and kernel lines joined to ranks (PCI address, pid). */
void		 join_resolve(struct rl_incident *);
int		 join_pci_rank(const struct rl_incident *, const char *,
		     const char *);

/* diag-skew.c: each host's clock offset, from the step lines of every rank. */
void		 skew_estimate(struct rl_incident *);
void		 zone_estimate(struct rl_incident *);

/* diag-clocks.c: a host in local time matched with zoned hosts. */
void		 clocks_match(struct rl_incident *);
int64_t		 clocks_cluster(int64_t *, size_t, size_t *);
int64_t		 skew_utc_ms(const struct rl_incident *, const struct rl_time *,
		     const char *);
int		 skew_cmp(const struct rl_incident *, const struct rl_time *,
		     const char *, const struct rl_time *, const char *, bool *);

/* diag-block.c: a cause line and the traceback right after it, together. */
size_t		 block_promote(struct rl_incident *);
size_t		 block_specific(struct rl_incident *);
size_t		 block_adopt(struct rl_incident *);
bool		 block_launcher(const struct rl_event *);

/* diag-handled.c: an error its own process lived past is harmless. */
size_t		 handled_mark(struct rl_incident *);
size_t		 handled_revive(struct rl_incident *);

/* diag-hang.c: collective progress at a timeout, the hang's start. */
void		 hang_analyze(struct rl_incident *);

/* diag-evidence.c: the reasons for each answer. */
void		 evlist_add(struct rl_evlist *, const struct rl_incident *, int,
		     enum rl_stance, const char *, ...)
		     __attribute__((format(printf, 5, 6)));
void		 evlist_add_file(struct rl_evlist *, int, const char *,
		     enum rl_stance, const char *, ...)
		     __attribute__((format(printf, 5, 6)));
void		 evlist_move(struct rl_evlist *, struct rl_evlist *);
void		 evidence_first(struct rl_incident *);
void		 evidence_verdict(struct rl_incident *);

/* diag-capacity.c: vLLM's memory budget and what one change would give. */
void		 capacity_build(struct rl_incident *);

/* diag-advice.c: the evidence checklist and the next steps. */
void		 advice_build(struct rl_incident *);

#endif
