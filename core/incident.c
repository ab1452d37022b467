/*
 * incident.c: the model every reader shares.  An incident owns its sources,
 * the processes found in them, the ranks they gather into, and the matched
 * events.  It is built by ingest.c and answered by diagnose.c; the console,
 * the reports and the store only read it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

static const char *rank_state_names[RANK_NSTATES] = {
	"ok", "failed", "collateral", "hung", "exited"
};
static const char *ckpt_status_names[] = { "none", "safe", "unsafe", "unknown" };
static const char *scope_names[] = { NULL, "one", "some", "all" };

static void	incident_unmake(struct rl_incident *);

#define KEEP_FAILURES	64	/* first failures per signature and writer */
#define KEEP_EVIDENCE	16	/* first evidence lines */
#define KEEP_COLLATERAL	1	/* ... a wide job's collateral lines */
#define KEEP_MARKS	256	/* latest checkpoint marks */
#define KEEP_STEPS	32	/* sampled step and periodic lines */
#define KEEP_STEPS_MIN	2	/* ... with many sources, down to this */
#define KEEP_SAMPLES	16384	/* samples a rule keeps over all sources */
_Static_assert(KEEP_MARKS <= KEEP_MAX && KEEP_STEPS <= KEEP_MAX &&
    KEEP_FAILURES <= KEEP_MAX && KEEP_EVIDENCE <= KEEP_MAX,
    "a keep's limit fits its count");

/* The tail of every keep that has had none: read, never written. */
struct rl_event keep_no_tail;

/*
 * Keeps, and the events of sources read to their end, are had from slabs,
 * not one by one: a wide job makes some twenty keeps a rank, never freed
 * before the incident, and each keep or array malloc'd alone carried its
 * header (3.3 MB each at 10,000 ranks) and lay wherever the heap had room,
 * not beside its source's others.  A slab holds twice the last one's
 * bytes, up to a limit: little for a small incident, and little left empty
 * in the last of each reading thread's part.
 */
#define SLAB_KEEPS_MIN	2048
#define SLAB_KEEPS_MAX	8192
#define SLAB_EVENTS_MIN	4096
#define SLAB_EVENTS_MAX	16384
#define SLAB_PACK_EVENTS 8	/* a keep's events packed at most */

struct slab {
	struct slab	*next;		/* filled before this one */
	size_t		 used;
	size_t		 cap;
	size_t		 pad;		/* what follows is 16-byte aligned */
	unsigned char	 b[];
};

/*
 * What the slabs hold asks 8-byte alignment, no more: a keep's events go
 * side by side, where rounding each keep's to 16 left 8 bytes after every
 * odd count of 136-byte events.
 */
#define SLAB_ALIGN	8
_Static_assert(_Alignof(struct rl_event) <= SLAB_ALIGN &&
    _Alignof(struct rl_keep) <= SLAB_ALIGN, "slabs align what they hold");

/* n bytes from the slabs at *head, made as they fill. */
static void *
slab_alloc(struct slab **head, size_t n, size_t min, size_t max)
{
	struct slab	*s = *head;
	size_t		 cap;
	void		*p;

	n = (n + SLAB_ALIGN - 1) & ~(size_t)(SLAB_ALIGN - 1);
	if (s == NULL || s->cap - s->used < n) {
		cap = s == NULL ? min : s->cap < max / 2 ? 2 * s->cap : max;
		if (cap < n)
			cap = n;
		s = xmalloc(sizeof *s + cap);
		s->next = *head;
		s->used = 0;
		s->cap = cap;
		*head = s;
	}
	p = s->b + s->used;
	s->used += n;
	return p;
}

/* Free a list of slabs. */
static void
slabs_free(struct slab *s)
{
	struct slab	*next;

	for (; s != NULL; s = next) {
		next = s->next;
		free(s);
	}
}

/* Put the slabs of `from` at the head of *to's: a part's, absorbed. */
static void
slabs_take(struct slab **to, struct slab **from)
{
	struct slab	*s = *from;

	if (s == NULL)
		return;
	while (s->next != NULL)
		s = s->next;
	s->next = *to;
	*to = *from;
	*from = NULL;
}

/* A keep's memory, zeroed. */
static struct rl_keep *
keep_new(struct rl_incident *inc)
{
	struct rl_keep	*k;

	k = slab_alloc(&inc->kslab, sizeof *k, SLAB_KEEPS_MIN,
	    SLAB_KEEPS_MAX);
	memset(k, 0, sizeof *k);
	return k;
}

/* Free the texts and events of a keep, whose memory is its slab's. */
static void
keep_free(struct rl_keep *k)
{
	uint32_t	i;

	for (i = 0; i < k->n; i++)
		free(keep_at(k, i)->text);
	if (!k->v_slab)
		free(k->v);
	if (k->tail != &keep_no_tail) {
		free(k->tail->text);
		free(k->tail);
	}
}

struct rl_incident *
incident_create(const struct ruleset *rules)
{
	struct rl_incident	*inc;

	inc = xcalloc(1, sizeof *inc);
	inc->rules = rules;
	inc->answer.first = RL_NONE;
	inc->answer.last_safe_step = RL_NONE;
	return inc;
}

/*
 * How many step and periodic lines each of a rule's keeps samples, for a
 * reading of nsources: 32, and fewer past 512 sources, so that a job of
 * 10,000 ranks costs what its failures cost more than what its steps do.
 * Past 8,192 sources two are sampled, and the latest kept: every rank
 * samples the same steps, which still match one host's clock with
 * another's, and eight of each were 23 MB of 185 at 10,000 ranks.
 */
uint32_t
incident_samples(size_t nsources)
{
	size_t	n = nsources > 0 ? KEEP_SAMPLES / nsources : KEEP_STEPS;

	return n > KEEP_STEPS ? KEEP_STEPS : n < KEEP_STEPS_MIN ?
	    KEEP_STEPS_MIN : (uint32_t)n;
}

/*
 * Free one source and what it owns.  Its ingest first: ending it finishes
 * the job head's last line and the contexts, which read the source's path.
 */
static void
source_free(struct rl_source *s)
{
	ingest_free(s->ingest);
	free(s->path);
	free(s->host);
	free(s->proc_key);
	free(s->error);
	if (s->early_fd != -1)
		close(s->early_fd);
	job_clear(&s->job);
	buf_clear(&s->head.line);
	context_list_clear(s);
	capacity_digests_free(s->capd);
	if (s->spill != -1)
		close(s->spill);
	free(s);
}

void
incident_free(struct rl_incident *inc)
{
	size_t	i;

	if (inc == NULL)
		return;
	for (i = 0; i < inc->nsources; i++)
		source_free(inc->sources[i]);
	free(inc->sources);
	for (i = 0; i < inc->nprocs; i++) {
		free(inc->procs[i]->key);
		free(inc->procs[i]->host);
		free(inc->procs[i]->last_text);
		context_free(inc->procs[i]->last_context);
		free(inc->procs[i]);
	}
	free(inc->procs);
	free(inc->phash);
	for (i = 0; i < inc->nranks; i++) {
		free(inc->ranks[i].host);
		free(inc->ranks[i].sources);
	}
	free(inc->ranks);
	for (i = 0; i < inc->nkeeps; i++)
		keep_free(inc->keeps[i]);
	free(inc->keeps);
	slabs_free(inc->kslab);
	slabs_free(inc->eslab);
	free(inc->tally);
	incident_disown(inc);
	incident_unmake(inc);
	free(inc->events);
	free(inc->copies);
	answer_clear(&inc->answer);
	free(inc->fingerprint);
	fingerprint_signature_clear(&inc->sig);
	job_clear(&inc->job);
	errlist_clear(&inc->errors);
	fileset_clear(&inc->walked);
	free(inc);
}

/* Add a source by the path the user gave; the incident owns it. */
struct rl_source *
incident_add_source(struct rl_incident *inc, const char *path,
    enum source_kind kind)
{
	struct rl_source	*s;

	s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->kind = kind;
	s->rank = s->local_rank = RL_NONE;
	s->spill = -1;
	s->early_fd = -1;
	s->file_size = -1;
	s->index = (unsigned)inc->nsources;
	inc->sources = array_grow(inc->sources, inc->nsources, &inc->csources,
	    sizeof *inc->sources);
	inc->sources[inc->nsources++] = s;
	return s;
}

/* Put procs[i] in the index, which has room. */
static void
process_index_add(struct rl_incident *inc, size_t i)
{
	size_t	slot, mask = inc->phsize - 1;

	for (slot = str_hash(STR_HASH_SEED, inc->procs[i]->key) & mask;
	    inc->phash[slot] != NULL; slot = (slot + 1) & mask)
		;
	inc->phash[slot] = inc->procs[i];
}

/*
 * Bring the index of processes by key up to date, with room for one more:
 * at 10,000 ranks a scan of every key for each new writer would cost
 * billions of compares.
 */
static void
process_index(struct rl_incident *inc)
{
	size_t	i;

	if (2 * (inc->nprocs + 1) > inc->phsize) {
		free(inc->phash);
		for (inc->phsize = inc->phsize == 0 ? 64 : inc->phsize;
		    inc->phsize < 2 * (inc->nprocs + 1);)
			inc->phsize *= 2;
		inc->phash = xcalloc(inc->phsize, sizeof *inc->phash);
		inc->phashed = 0;
	}
	for (i = inc->phashed; i < inc->nprocs; i++)
		process_index_add(inc, i);
	inc->phashed = inc->nprocs;
}

/*
 * Room for one more process: procs is grown by doubling, at each power of
 * two (a realloc a process copied them all each time under
 * AddressSanitizer, whose realloc always moves: 100,000 writers).
 */
static void
process_room(struct rl_incident *inc)
{
	inc->procs = array_grow(inc->procs, inc->nprocs, &inc->cprocs,
	    sizeof *inc->procs);
}

/* The slot of the process with this key, or of the empty one it would take. */
static size_t
process_slot(struct rl_incident *inc, const char *key)
{
	struct rl_process	*p;
	size_t			 slot, mask;

	process_index(inc);
	mask = inc->phsize - 1;
	for (slot = str_hash(STR_HASH_SEED, key) & mask;
	    (p = inc->phash[slot]) != NULL; slot = (slot + 1) & mask) {
		if (strcmp(p->key, key) == 0)
			break;
	}
	return slot;
}

/* The process with this key, or NULL. */
struct rl_process *
incident_process_find(struct rl_incident *inc, const char *key)
{
	return inc->phash[process_slot(inc, key)];
}

/*
 * Find or make the process with this key.  The key is what makes two
 * streams one process (the same host and local rank, or the same folder of
 * torchrun's --log-dir); host and ranks fill in what the caller knows.
 */
struct rl_process *
incident_process(struct rl_incident *inc, const char *key, const char *host,
    int rank, int local_rank)
{
	struct rl_process	*p;
	size_t			 slot;

	slot = process_slot(inc, key);
	if ((p = inc->phash[slot]) != NULL)
		goto found;
	p = xcalloc(1, sizeof *p);
	p->key = xstrdup(key);
	p->rank = p->local_rank = p->pid = p->exitcode = RL_NONE;
	p->last_source = RL_NONE;
	p->index = (unsigned)inc->nprocs;
	process_room(inc);
	inc->procs[inc->nprocs++] = p;
	inc->phash[slot] = p;
	inc->phashed = inc->nprocs;
found:
	if (p->host == NULL && host != NULL)
		p->host = xstrdup(host);
	if (rank != RL_NONE && (p->rank == RL_NONE || p->rank_guessed)) {
		p->rank = rank;
		p->rank_guessed = false;
	}
	if (p->local_rank == RL_NONE)
		p->local_rank = local_rank;
	return p;
}

/* Make an event empty, with the next arrival number. */
static void
event_init(struct rl_incident *inc, struct rl_event *e, unsigned ncaps)
{
	int64_t		*capv = event_capv(e);
	unsigned	 i;

	/*
	 * Field by field, not a memset: a replaced tail is made empty once per
	 * matched line, and the compilers make a memset of this size a
	 * `rep stos`, whose start costs more than these stores.
	 */
	_Static_assert(sizeof *e == 80, "event_init sets every field");
	e->line = e->offset = 0;
	e->time = (struct rl_time){ 0 };
	e->rule = NULL;
	e->text = NULL;
	e->seq = inc->next_seq++;
	e->ord = 0;
	for (i = 0; i < ncaps; i++)
		capv[i] = RL_CAP_UNSET;
	e->source = 0;
	e->process = e->rank = RL_NONE;
	e->role = 0;
	e->at = 0;
	e->pat = 0;
	e->guess = 0;
	e->timed = e->weak = e->rank_resolved = e->harmless = false;
	e->revived = false;
	e->tform = 0;
	e->tlen = 0;
}

/* Add an event to the gathered ones. */
static void
incident_push(struct rl_incident *inc, struct rl_event *e)
{
	if (inc->nevents == inc->cevents) {
		inc->cevents = inc->cevents == 0 ? 64 : inc->cevents * 2;
		inc->events = xreallocarray(inc->events, inc->cevents,
		    sizeof *inc->events);
	}
	inc->events[inc->nevents++] = e;
}

/*
 * Append an empty event to the gathered ones (the diagnosis's own, such as
 * a hang's culprit), owned by the incident until the next gathering.
 */
struct rl_event *
incident_add_event(struct rl_incident *inc)
{
	struct rl_event	*e = xcalloc(1, EVENT_SIZE(EVENT_CAPS));

	event_init(inc, e, EVENT_CAPS);
	inc->made = xreallocarray(inc->made, inc->nmade + 1,
	    sizeof *inc->made);
	inc->made[inc->nmade++] = e;
	incident_push(inc, e);
	return e;
}

/* Free the diagnosis's own events. */
static void
incident_unmake(struct rl_incident *inc)
{
	size_t	i;

	for (i = 0; i < inc->nmade; i++)
		free(inc->made[i]);
	free(inc->made);
	inc->made = NULL;
	inc->nmade = 0;
}

/*
 * Take a text an event made by hand points to (a kept event's text is its
 * keep's): the incident frees it, at the latest with itself.
 */
char *
incident_own(struct rl_incident *inc, char *text)
{
	inc->owned = xreallocarray(inc->owned, inc->nowned + 1,
	    sizeof *inc->owned);
	inc->owned[inc->nowned++] = text;
	return text;
}

/* Free the texts of events made by hand, whose events are gone. */
void
incident_disown(struct rl_incident *inc)
{
	size_t	i;

	for (i = 0; i < inc->nowned; i++)
		free(inc->owned[i]);
	free(inc->owned);
	inc->owned = NULL;
	inc->nowned = 0;
}

/* How a rule's events are kept: see struct rl_keep. */
static void
keep_policy(const struct rl_incident *inc, struct rl_keep *k,
    const struct rl_rule *r)
{
	/* Following, sources come as found: as many as are known. */
	size_t	width = inc->width != 0 ? inc->width : inc->nsources;

	if (r->mark == MARK_CKPT_BEGIN || r->mark == MARK_CKPT_END) {
		k->policy = KEEP_LAST;
		k->limit = KEEP_MARKS;
	} else if (r->role == ROLE_PROGRESS && (r->mark == MARK_STEP ||
	    r->mark == MARK_NONE || r->mark == MARK_ALIVE)) {
		k->policy = KEEP_SAMPLE;
		k->limit = incident_samples(width);
	} else if (r->role == ROLE_PROGRESS || r->role == ROLE_EVIDENCE) {
		k->policy = KEEP_FIRST;
		k->limit = KEEP_EVIDENCE;
	} else if (r->role == ROLE_COLLATERAL && width >= LEAN_SOURCES) {
		/*
		 * A rank waiting on a dead peer repeats its watchdog line for
		 * each collective it had queued, the same on thousands of
		 * ranks: its first says when it began, the tail holds its
		 * latest, and the keep counts the rest.  64 of each would be
		 * 90 MB at 10,000 ranks, for lines no reader tells apart.
		 */
		k->policy = KEEP_FIRST;
		k->limit = KEEP_COLLATERAL;
	} else {
		k->policy = KEEP_FIRST;
		k->limit = KEEP_FAILURES;
	}
	k->ring = 1;
	k->stride = 0;
}

/*
 * The i-th of n keeps, with the keep KEEP_AHEAD on, and the events of the
 * one half as far, fetched meanwhile: a pass over every keep (gathering,
 * absorbing) finds each somewhere else on the heap.
 */
#define KEEP_AHEAD	8

static inline struct rl_keep *
keep_ahead(struct rl_keep *const *v, size_t n, size_t i)
{
	if (i + KEEP_AHEAD < n) {
		fetch_lines(v[i + KEEP_AHEAD], 4);
		fetch_lines(v[i + KEEP_AHEAD / 2]->v, 1);
	}
	return v[i];
}

/*
 * Make the keep of a rule's events from one process in one source.  Its
 * source's reading makes each once, and finds its own (ingest_keep).
 */
struct rl_keep *
incident_keep(struct rl_incident *inc, const struct rl_rule *r, int proc,
    unsigned src)
{
	struct rl_keep	*k;

	k = keep_new(inc);
	k->tail = &keep_no_tail;
	k->rule = r;
	k->process = proc;
	k->source = src;
	keep_policy(inc, k, r);
	if (inc->nkeeps == inc->ckeeps) {
		inc->ckeeps = inc->ckeeps == 0 ? 64 : 2 * inc->ckeeps;
		inc->keeps = xreallocarray(inc->keeps, inc->ckeeps,
		    sizeof *inc->keeps);
	}
	inc->keeps[inc->nkeeps++] = k;
	return k;
}

/* A keep's tail, made when first wanted. */
static struct rl_event *
keep_tail(struct rl_keep *k)
{
	if (k->tail == &keep_no_tail)
		k->tail = xcalloc(1, keep_esize(k));
	return k->tail;
}

/*
 * Append a slot to a keep.  The slots grow as they fill: most keeps hold a
 * few events, and 1,024 sources with a dozen keeps each at their limit
 * would be hundreds of megabytes.
 */
static struct rl_event *
keep_append(struct rl_keep *k)
{
	void	*v;
	size_t	 size = keep_esize(k);

	if (k->n == k->cap) {
		k->cap = k->cap == 0 ? 1 : k->cap * 2;
		if (k->cap > k->limit)
			k->cap = k->limit;
		if (k->v_slab) {
			/* Its source's slab's: out of it, to grow. */
			v = xreallocarray(NULL, k->cap, size);
			memcpy(v, k->v, k->n * size);
			k->v = v;
			k->v_slab = false;
		} else
			k->v = xreallocarray(k->v, k->cap, size);
	}
	return keep_at(k, k->n++);
}

/*
 * A full sample keeps every other event it held, by their numbers, so that
 * what stays is spread evenly over the run (and, numbered by step, is the
 * same steps on every rank).  False if nothing could go.
 */
static bool
keep_thin(struct rl_keep *k)
{
	struct rl_event	*e;
	uint32_t	 i, n = 0;

	while (k->n == k->limit && k->stride < KEEP_STRIDE_MAX) {
		k->stride++;
		for (i = n = 0; i < k->n; i++) {
			e = keep_at(k, i);
			if ((e->ord & keep_stride_mask(k)) == 0)
				memmove(keep_at(k, n++), e, keep_esize(k));
			else
				free(e->text);
		}
		k->n = n;
	}
	return k->n < k->limit;
}

/*
 * The slot for a rule's next matched line, emptied: a place of its own, or
 * the keep's tail, which holds the latest line the keep did not keep.  `ord` numbers it for a sample:
 * the step it reports, else its match number.
 */
struct rl_event *
keep_add(struct rl_incident *inc, struct rl_keep *k, uint64_t ord)
{
	struct rl_event	*e;

	k->matched++;
	switch (k->policy) {
	case KEEP_FIRST:
		if (k->n < k->limit) {
			e = keep_append(k);
			break;
		}
		/* Only the latest of the rest, so that the last one shows. */
		e = keep_tail(k);
		free(e->text);
		break;
	case KEEP_LAST:
		if (k->n < k->limit) {
			e = keep_append(k);
			break;
		}
		/* The first mark stays; the latest take turns in the rest. */
		e = keep_at(k, k->ring);
		free(e->text);
		k->ring = k->ring + 1 < k->limit ? k->ring + 1 : 1;
		break;
	default:
		/* The stride is a power of two: no division per line. */
		if ((ord & keep_stride_mask(k)) == 0 && (k->n < k->limit ||
		    (keep_thin(k) && (ord & keep_stride_mask(k)) == 0))) {
			e = keep_append(k);
			if (k->tail != &keep_no_tail) {
				free(k->tail->text);
				memset(k->tail, 0, keep_esize(k));
			}
		} else {
			e = keep_tail(k);
			free(e->text);
		}
		break;
	}
	event_init(inc, e, k->rule->ncaps);
	e->ord = (uint32_t)ord;
	return e;
}

/*
 * A source was read to its end: its n keeps v give back the slots they
 * grew and did not fill.  Growing by doubling
 * left a quarter of the events' room empty, 16 MB at 10,000 ranks.  In a
 * lean incident, the texts that are the bytes of a file that can be read
 * again are let go (event_text reads them when asked).
 */
void
keep_shrink(struct rl_incident *inc, struct rl_keep **v, size_t n,
    struct rl_source *src, bool done)
{
	struct rl_keep	*k;
	void		*e;
	size_t		 i;
	bool		 away = src->lean && source_rereadable(src), pack;

	for (i = 0; i < n; i++) {
		k = v[i];
		if (k->source != src->index)
			continue;
		if (away)
			keep_texts_away(k, src);
		pack = done && k->n <= SLAB_PACK_EVENTS;
		if (k->n == 0 || (k->cap == k->n && !pack) || k->v_slab)
			continue;
		if (pack) {
			/*
			 * Read to its end, the source's events go side by
			 * side: a pass over the keeps finds them in order.
			 * Not at a rest, after which they may grow again,
			 * and not a keep's many (a console's samples of 512
			 * ranks, 10 MB), whose copy would be new memory.
			 */
			e = slab_alloc(&inc->eslab, k->n * keep_esize(k),
			    SLAB_EVENTS_MIN, SLAB_EVENTS_MAX);
			memcpy(e, k->v, k->n * keep_esize(k));
			free(k->v);
			k->v = e;
			k->v_slab = true;
		} else
			k->v = xreallocarray(k->v, k->n, keep_esize(k));
		k->cap = k->n;
	}
	if (done)
		capacity_digests_fit(src->capd);
}

/* A kept event by its arrival number, or NULL if it is no longer kept. */
struct rl_event *
keep_find(struct rl_keep *k, uint64_t seq)
{
	uint32_t	i;

	if (k->tail->rule != NULL && k->tail->seq == seq)
		return k->tail;
	for (i = 0; i < k->n; i++) {
		if (keep_at(k, i)->seq == seq)
			return keep_at(k, i);
	}
	return NULL;
}

/*
 * Gather every kept event into inc->events, afresh, keep by keep; the
 * diagnosis sorts them by time and arrival.
 *
 * While a source may still grow (following), the diagnosis works on
 * copies: the keeps change under it as lines come (a sample thinned, a
 * tail replaced), and what the console shows must not.  Once every line
 * is read (inc->settled), the events are the keeps' own, and the copy of
 * them all, a third of a many-rank analysis's memory, is not made: what
 * the diagnosis sets on them (a resolved rank, a process's time) it would
 * set again the same.
 */
void
incident_gather(struct rl_incident *inc)
{
	struct rl_keep	*k;
	struct rl_tally	*t;
	struct rl_event	*e;
	size_t		 i, need, bytes = 0, nc = 0;
	uint32_t	 j;

	heap_advise();
	inc->nevents = 0;
	incident_unmake(inc);
	/*
	 * Room for them all at once, with a little for the diagnosis's own:
	 * doubling would leave up to half of the largest array unused.  The
	 * copies' bytes only while they are made.
	 */
	for (i = 0, need = 16; i < inc->nkeeps; i++) {
		need += inc->keeps[i]->n + 1;
		if (!inc->settled)
			bytes += (inc->keeps[i]->n + 1) *
			    keep_esize(inc->keeps[i]);
	}
	if (need > inc->cevents) {
		inc->cevents = need;
		inc->events = xreallocarray(inc->events, inc->cevents,
		    sizeof *inc->events);
	}
	if (inc->settled) {
		free(inc->copies);
		inc->copies = NULL;
		inc->ccopies = 0;
	} else if (bytes > inc->ccopies) {
		inc->ccopies = bytes;
		inc->copies = xrealloc(inc->copies, inc->ccopies);
	}
	for (i = 0; i < inc->ntally; i++) {
		memset(&inc->tally[i], 0, sizeof inc->tally[i]);
		inc->tally[i].first = INT64_MAX;
		inc->tally[i].last = INT64_MIN;
	}
	for (i = 0; i < inc->nkeeps; i++) {
		k = keep_ahead(inc->keeps, inc->nkeeps, i);
		if (k->lines > 0) {
			t = incident_tally(inc, k->rule);
			t->lines += k->lines;
			t->count += k->count;
			if (k->total > t->total)
				t->total = k->total;
			tally_times(t, &k->first, &k->last);
		}
		for (j = 0; j <= k->n; j++) {
			e = j < k->n ? keep_at(k, j) : k->tail;
			if (e == k->tail && e->rule == NULL)
				continue;
			if (!inc->settled) {
				memcpy((char *)inc->copies + nc, e,
				    keep_esize(k));
				e = (struct rl_event *)(void *)
				    ((char *)inc->copies + nc);
				nc += keep_esize(k);
			}
			incident_push(inc, e);
		}
	}
}

/* The position of a global rank in the sorted ranks table, or -1. */
long
incident_rank_pos(const struct rl_incident *inc, int rank)
{
	size_t	lo = 0, hi = inc->nranks, mid;

	/* Ranks 0 to n - 1, each once, the usual job: rank r is at r. */
	if (rank >= 0 && (size_t)rank < inc->nranks &&
	    inc->ranks[rank].rank == rank)
		return rank;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (inc->ranks[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < inc->nranks && inc->ranks[lo].rank == rank ? (long)lo : -1;
}

/*
 * Widen a tally's first and last times to lines first and last (a time
 * since boot, or none, says nothing of the wall clock).
 */
void
tally_times(struct rl_tally *t, const struct rl_time *first,
    const struct rl_time *last)
{
	int64_t	ms;

	if ((first->flags & RL_TIME_VALID) && !(first->flags & RL_TIME_BOOT) &&
	    (ms = clock_utc_ms(first)) < t->first)
		t->first = ms;
	if ((last->flags & RL_TIME_VALID) && !(last->flags & RL_TIME_BOOT) &&
	    (ms = clock_utc_ms(last)) > t->last)
		t->last = ms;
}

/* The tally of a rule, made on first use. */
struct rl_tally *
incident_tally(struct rl_incident *inc, const struct rl_rule *r)
{
	size_t	i;

	if (r->index >= inc->ntally) {
		inc->tally = xreallocarray(inc->tally, r->index + 1,
		    sizeof *inc->tally);
		for (i = inc->ntally; i <= r->index; i++) {
			memset(&inc->tally[i], 0, sizeof inc->tally[i]);
			inc->tally[i].first = INT64_MAX;
			inc->tally[i].last = INT64_MIN;
		}
		inc->ntally = r->index + 1;
	}
	return &inc->tally[r->index];
}

/* The rank entry for a global rank, or NULL. */
const struct rl_rank *
incident_rank(const struct rl_incident *inc, int rank)
{
	size_t	i;

	for (i = 0; i < inc->nranks; i++) {
		if (inc->ranks[i].rank == rank)
			return &inc->ranks[i];
	}
	return NULL;
}

const char *
rank_state_name(enum rank_state s)
{
	return s < RANK_NSTATES ? rank_state_names[s] : "?";
}

const char *
ckpt_status_name(enum ckpt_status s)
{
	return s <= CKPT_UNKNOWN ? ckpt_status_names[s] : "?";
}

/* NULL for no scope, as the JSON wants it. */
const char *
scope_name(enum rl_scope s)
{
	return s <= SCOPE_ALL ? scope_names[s] : NULL;
}

/* One process of a part merged into one of the whole. */
static void
process_merge(struct rl_process *d, struct rl_process *s)
{
	if (d->host == NULL && s->host != NULL) {
		d->host = s->host;
		s->host = NULL;
	}
	if (s->rank != RL_NONE && (d->rank == RL_NONE || d->rank_guessed)) {
		d->rank = s->rank;
		d->rank_guessed = s->rank_guessed;
	}
	if (d->local_rank == RL_NONE)
		d->local_rank = s->local_rank;
	if (d->pid == RL_NONE)
		d->pid = s->pid;
	if (d->exitcode == RL_NONE)
		d->exitcode = s->exitcode;
	if (d->signal == 0)
		d->signal = s->signal;
	if ((s->last.flags & RL_TIME_VALID) && (!(d->last.flags &
	    RL_TIME_VALID) || clock_cmp(&s->last, &d->last) >= 0)) {
		d->last = s->last;
		d->last_source = s->last_source;
		d->last_line = s->last_line;
		d->last_offset = s->last_offset;
		d->last_len = s->last_len;
		free(d->last_text);
		d->last_text = s->last_text;
		s->last_text = NULL;
		context_free(d->last_context);
		d->last_context = s->last_context;
		s->last_context = NULL;

	}
	d->lines += s->lines;
}

/*
 * Take what a part read into the whole: the part read a run of the
 * sources (whose indexes are the whole's) on another thread, after the
 * sources the whole holds already, so processes are joined by their keys
 * in the order they came, and the part's arrival numbers go after the
 * whole's.  Read in order, the parts make the whole one reading would.
 * The part is left empty, to be freed.
 */
void
incident_absorb(struct rl_incident *inc, struct rl_incident *part)
{
	struct rl_process	*p, *q;
	struct rl_keep		*k;
	struct rl_event		*e;
	uint64_t		 base = inc->next_seq;
	size_t			 i, j, slot, mask;
	int			*map;

	/*
	 * Processes, by key, through the whole's own index: at 10,000 ranks
	 * in eight parts, a table of the whole's made for each part cost
	 * more than the rest of the absorbing.
	 */
	map = xcalloc(part->nprocs + 1, sizeof *map);
	for (i = 0; i < part->nprocs; i++) {
		p = part->procs[i];
		process_index(inc);
		mask = inc->phsize - 1;
		for (slot = str_hash(STR_HASH_SEED, p->key) & mask;
		    (q = inc->phash[slot]) != NULL && strcmp(q->key, p->key) != 0;
		    slot = (slot + 1) & mask)
			;
		if (q != NULL) {
			process_merge(q, p);
			map[i] = (int)q->index;
			free(p->key);
			free(p->host);
			free(p->last_text);
			context_free(p->last_context);
			free(p);
			continue;
		}
		p->index = (unsigned)inc->nprocs;
		process_room(inc);
		inc->procs[inc->nprocs++] = p;
		inc->phash[slot] = p;
		inc->phashed = inc->nprocs;
		map[i] = (int)p->index;
	}
	part->nprocs = 0;
	free(part->phash);
	part->phash = NULL;
	part->phsize = part->phashed = 0;

	/* Keeps: the sources differ, so no two are the same keep. */
	inc->ckeeps = inc->nkeeps + part->nkeeps + 1;
	inc->keeps = xreallocarray(inc->keeps, inc->ckeeps,
	    sizeof *inc->keeps);
	for (i = 0; i < part->nkeeps; i++) {
		k = keep_ahead(part->keeps, part->nkeeps, i);
		k->process = k->process == RL_NONE ? RL_NONE : map[k->process];
		for (j = 0; j <= k->n; j++) {
			e = j < k->n ? keep_at(k, j) : k->tail;
			if (e == k->tail && e->rule == NULL)
				continue;
			e->seq += base;
			if (e->process != RL_NONE)
				e->process = map[e->process];
		}
		inc->keeps[inc->nkeeps++] = k;
	}
	part->nkeeps = 0;
	/* Their memory with them: the part's slabs are the whole's. */
	slabs_take(&inc->kslab, &part->kslab);
	slabs_take(&inc->eslab, &part->eslab);
	free(map);

	inc->next_seq = base + part->next_seq;
	inc->lines += part->lines;
	inc->bytes += part->bytes;
	inc->matched += part->matched;
	if ((part->start.flags & RL_TIME_VALID) && (!(inc->start.flags &
	    RL_TIME_VALID) || clock_cmp(&part->start, &inc->start) < 0))
		inc->start = part->start;
	if ((part->end.flags & RL_TIME_VALID) && (!(inc->end.flags &
	    RL_TIME_VALID) || clock_cmp(&part->end, &inc->end) > 0))
		inc->end = part->end;
	if ((part->zoned_start.flags & RL_TIME_VALID) &&
	    (!(inc->zoned_start.flags & RL_TIME_VALID) ||
	    clock_cmp(&part->zoned_start, &inc->zoned_start) < 0))
		inc->zoned_start = part->zoned_start;
	if ((part->zoned_end.flags & RL_TIME_VALID) &&
	    (!(inc->zoned_end.flags & RL_TIME_VALID) ||
	    clock_cmp(&part->zoned_end, &inc->zoned_end) > 0))
		inc->zoned_end = part->zoned_end;
	for (i = 0; i < part->errors.n; i++)
		errlist_add(&inc->errors, "%s", part->errors.v[i]);
}

/*
 * A process's last timed line, as ingestion copied it, or read again
 * where a lean reading did not copy it (a hang shows a few of them); ""
 * if none, or if its place in the file is no longer a line.
 */
char *
process_last_line(const struct rl_incident *inc, const struct rl_process *p)
{
	const struct rl_source	*src;
	char			*t;
	size_t			 n;

	if (p->last_text != NULL || p->last_source < 0 ||
	    (size_t)p->last_source >= inc->nsources)
		return xstrdup(p->last_text != NULL ? p->last_text : "");
	src = inc->sources[p->last_source];
	if (!src->lean)
		return xstrdup("");
	t = xmalloc(p->last_len + 1);
	n = source_pread(src, t, p->last_len, p->last_offset);
	if (n != p->last_len || memchr(t, '\n', n) != NULL)
		n = 0;
	t[n] = '\0';
	return t;
}

/* Free everything an answer owns and make it empty again. */
void
answer_clear(struct rl_answer *a)
{
	size_t	i;

	free(a->summary);
	free(a->explanation);
	free(a->verdict_explanation);
	free(a->ckpt_explanation);
	free(a->unsafe_steps);
	free(a->suspect_steps);
	evlist_clear(&a->first_evidence);
	evlist_clear(&a->verdict_evidence);
	evlist_clear(&a->ckpt_evidence);
	free(a->zones);
	for (i = 0; i < a->nskew; i++)
		free(a->skew[i].host);
	free(a->skew);
	idhash_clear(&a->skew_of);
	strv_free(a->capacity.lines, a->capacity.nlines);
	strv_free(a->capacity.whatif, a->capacity.nwhatif);
	evlist_clear(&a->capacity.evidence);
	for (i = 0; i < CHECK_NITEMS; i++) {
		free(a->checklist[i].missing);
		evlist_clear(&a->checklist[i].evidence);
	}
	for (i = 0; i < a->nadvice; i++) {
		free(a->advice[i].host);
		free(a->advice[i].text);
		free(a->advice[i].why);
	}
	free(a->advice);
	memset(a, 0, sizeof *a);
	a->first = RL_NONE;
	a->last_safe_step = a->clean_step = RL_NONE;
	a->hang.culprit = a->hang.lag_rank = a->hang.dump_origin = RL_NONE;
	a->hang.lag_event = a->hang.dump_event = a->hang.timeout_event =
	    RL_NONE;
}
