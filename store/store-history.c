/*
 * store-history.c: reading the incident database back: the history list,
 * one incident with its evidence and notes, the engineer's notes, and
 * recurrence, which answers "have we seen this before, and what did we
 * find then?" for a new incident before its report is printed.
 *
 * Recurrence has three parts.  Exact matches are earlier incidents of the
 * same fingerprint (an index on incidents.fingerprint).  Near matches are
 * other fingerprints whose template and notes share the rarer words of
 * this root's template, ranked by FTS5's bm25 over one row per
 * fingerprint: the rows are few (one per distinct failure, not one per
 * incident), and only the rarest words, held by at most one in NEAR_SHARE
 * of them, are asked for, so the lookup stays within milliseconds with
 * 100,000 incidents.  Offenders are the root's host, GPU and rank, counted in the
 * roots of earlier incidents.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-int.h"

#define RECALL_EXACT	5	/* exact matches listed (all are counted) */
#define RECALL_NEAR	5	/* near matches listed */
#define NEAR_WORDS	6	/* words of the template asked for, rarest first */
#define NEAR_SHARE	20	/* a word in over 1/20 of the failures says nothing */
#define NEAR_MINLEN	3	/* shorter words say nothing either */

static const char *const store_note_kinds[NOTE_NKINDS] = {
	[NOTE_DIAGNOSIS] = "diagnosis",
	[NOTE_RESOLUTION] = "resolution",
};

/* A note kind's name, as stored and exported. */
const char *
store_note_kind_name(enum store_note_kind kind)
{
	return (unsigned)kind < NOTE_NKINDS ? store_note_kinds[kind] : NULL;
}

/* An integer column, or RL_NONE for NULL. */
static int
store_column_maybe(sqlite3_stmt *stmt, int col)
{
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return RL_NONE;
	return sqlite3_column_int(stmt, col);
}

/* Fill a row from a STORE_ROW_SQL result, in its column order. */
static void
store_row_read(sqlite3_stmt *stmt, struct store_row *row)
{
	char	*first;
	int64_t	 nsources;

	memset(row, 0, sizeof *row);
	row->id = sqlite3_column_int64(stmt, 0);
	row->created = store_column(stmt, 1);
	row->updated = store_column(stmt, 2);
	row->started = store_column(stmt, 3);
	row->signature = store_column(stmt, 4);
	row->fingerprint = store_column(stmt, 5);
	row->rank = store_column_maybe(stmt, 6);
	row->host = store_column(stmt, 7);
	row->domain = store_column(stmt, 8);
	row->summary = store_column(stmt, 9);
	row->text = store_column(stmt, 10);
	first = store_column(stmt, 11);
	nsources = sqlite3_column_int64(stmt, 12);
	if (first != NULL && nsources > 1) {
		xasprintf(&row->sources, "%s (+%" PRId64 " more)", first,
		    nsources - 1);
		free(first);
	} else
		row->sources = first;
	row->nranks = sqlite3_column_int(stmt, 13);
	row->note = store_column(stmt, 14);
	row->uid = store_column(stmt, 15);
	row->occurred = store_column(stmt, 16);
	row->diagnosis = store_column(stmt, 17);
	row->resolution = store_column(stmt, 18);
	row->template = store_column(stmt, 19);
	row->pci = store_column(stmt, 20);
	row->job_scheduler = store_column(stmt, 21);
	row->job_run = store_column(stmt, 22);
	row->job_command = store_column(stmt, 23);
	row->explanation = store_column(stmt, 24);
	row->ckpt = store_column(stmt, 25);
	row->last_safe_step = store_column_maybe(stmt, 26);
	row->ended = store_column(stmt, 27);
	row->grp = store_column(stmt, 28);
	row->scope = store_column(stmt, 29);
}

/*
 * LIKE patterns matching query anywhere: *exact with LIKE's own
 * characters (% _ \\) escaped, and the return value with them left as
 * wildcards, a superset the trigram index can answer.  *exact is NULL when
 * the query holds none of them.
 */
static char *
store_like(const char *query, char **exact)
{
	struct buf	b = { 0 }, e = { 0 };
	bool		escaped = false;

	buf_addc(&b, '%');
	buf_addc(&e, '%');
	for (; *query != '\0'; query++) {
		if (*query == '%' || *query == '_' || *query == '\\') {
			buf_addc(&e, '\\');
			escaped = true;
		}
		buf_addc(&e, *query);
		buf_addc(&b, *query);
	}
	buf_addc(&b, '%');
	buf_addc(&e, '%');
	*exact = escaped ? buf_steal(&e) : NULL;
	buf_clear(&e);
	return buf_steal(&b);
}

/*
 * The stored incidents, newest first, at most limit (0 or less for
 * all), matching query (NULL or empty for all) anywhere in signature,
 * summary, root line, host, GPU, job or notes, ignoring case.
 */
int
store_list(struct store *st, const char *query, int limit,
    struct store_list *list, char **cause)
{
	struct store_q	 q;
	enum store_stmt	 which = STMT_LIST;
	char		*like = NULL, *exact = NULL;
	size_t		 cap = 0;
	int		 rc;

	list->rows = NULL;
	list->n = 0;
	if (query != NULL && *query != '\0') {
		like = store_like(query, &exact);
		which = exact != NULL ? STMT_LIST_ESCAPED : STMT_LIST_LIKE;
	}
	if (store_q_start(st, which, &q, cause) != 0) {
		free(like);
		free(exact);
		return -1;
	}
	if (like != NULL)
		store_q_text(&q, like);
	store_q_int(&q, limit > 0 ? limit : -1);
	if (exact != NULL)
		store_q_text(&q, exact);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		if (list->n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			list->rows = xreallocarray(list->rows, cap,
			    sizeof *list->rows);
		}
		store_row_read(q.stmt, &list->rows[list->n++]);
	}
	store_q_end(&q);
	free(like);
	free(exact);
	if (rc == -1) {
		store_list_clear(list);
		return -1;
	}
	return 0;
}

/* One stored incident by id; an unknown id is an error. */
int
store_get(struct store *st, int64_t id, struct store_row *row, char **cause)
{
	struct store_q	q;
	int		rc;

	memset(row, 0, sizeof *row);
	if (store_q_start(st, STMT_GET, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		store_row_read(q.stmt, row);
	store_q_end(&q);
	if (rc == 0)
		xasprintf(cause, "%s: no incident %" PRId64, st->path, id);
	return rc == 1 ? 0 : -1;
}

/* Whether an incident is stored: 1, 0, or -1 with the cause. */
static int
store_exists(struct store *st, int64_t id, char **cause)
{
	struct store_q	q;
	int		rc;

	if (store_q_start(st, STMT_EXISTS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	rc = store_q_step(st, &q, cause);
	store_q_end(&q);
	if (rc == 0)
		xasprintf(cause, "%s: no incident %" PRId64, st->path, id);
	return rc;
}

/* The fingerprint of a stored incident (NULL when healthy). */
static int
store_fingerprint_of(struct store *st, int64_t id, char **fp, char **cause)
{
	struct store_q	q;
	int		rc;

	*fp = NULL;
	if (store_q_start(st, STMT_FINGERPRINT_OF, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		*fp = store_column(q.stmt, 0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/* Insert the note and re-index, inside the transaction. */
static int
store_note_write(struct store *st, int64_t id, enum store_note_kind kind,
    const char *text, char **cause)
{
	struct store_q	 q;
	char		 now[32], *fp;
	int		 rc;

	store_now(now, sizeof now);
	if (store_q_start(st, STMT_NOTE, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	store_q_text(&q, now);
	store_q_text(&q, store_note_kind_name(kind));
	store_q_text(&q, text);
	if (store_q_run(st, &q, cause) != 0)
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		xasprintf(cause, "%s: no incident %" PRId64, st->path, id);
		return -1;
	}
	/* The note is searched by history QUERY and by near matches. */
	if (store_fingerprint_of(st, id, &fp, cause) != 0)
		return -1;
	rc = store_index(st, id, fp, cause);
	free(fp);
	return rc;
}

/* Add the engineer's note (a diagnosis or a resolution) to an incident. */
int
store_note(struct store *st, int64_t id, enum store_note_kind kind,
    const char *text, char **cause)
{
	if (text == NULL || store_note_kind_name(kind) == NULL) {
		xasprintf(cause, "%s: no note to add", st->path);
		return -1;
	}
	if (store_begin(st, cause) != 0)
		return -1;
	if (store_note_write(st, id, kind, text, cause) != 0 ||
	    store_commit(st, cause) != 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

/* Call cb for each note of an incident, oldest first: created, kind, text. */
int
store_notes(struct store *st, int64_t id,
    void (*cb)(void *, const char *, const char *, const char *), void *arg,
    char **cause)
{
	struct store_q	q;
	int		rc;

	if (store_q_start(st, STMT_NOTES, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	while ((rc = store_q_step(st, &q, cause)) == 1)
		cb(arg, (const char *)sqlite3_column_text(q.stmt, 0),
		    (const char *)sqlite3_column_text(q.stmt, 1),
		    (const char *)sqlite3_column_text(q.stmt, 2));
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/*
 * Call cb for each stored event of an incident, in stored order (borrowed
 * for the call).  The callback must not call store_events itself.
 */
int
store_events(struct store *st, int64_t id,
    void (*cb)(void *, const struct store_event *), void *arg, char **cause)
{
	struct store_q		q;
	struct store_event	e;
	size_t			n = 0;
	int			rc;

	if (store_q_start(st, STMT_EVENTS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		n++;
		e.source = (const char *)sqlite3_column_text(q.stmt, 0);
		e.line = sqlite3_column_int64(q.stmt, 1);
		e.time = (const char *)sqlite3_column_text(q.stmt, 2);
		e.signature = (const char *)sqlite3_column_text(q.stmt, 3);
		e.role = (const char *)sqlite3_column_text(q.stmt, 4);
		e.text = (const char *)sqlite3_column_text(q.stmt, 5);
		e.context = (const char *)sqlite3_column_text(q.stmt, 6);
		e.context_at = sqlite3_column_int64(q.stmt, 7);
		e.root = sqlite3_column_int(q.stmt, 8) != 0;
		e.rank = store_column_maybe(q.stmt, 9);
		cb(arg, &e);
	}
	store_q_end(&q);
	if (rc == -1)
		return -1;
	/* No events is a healthy run, or an unknown id. */
	if (n == 0 && store_exists(st, id, cause) != 1)
		return -1;
	return 0;
}

/*
 * Call cb for each stored rank of an incident, in stored order (rank
 * order, borrowed for the call): the timeline of a report made from the
 * store alone.
 */
int
store_ranks(struct store *st, int64_t id,
    void (*cb)(void *, const struct store_rank *), void *arg, char **cause)
{
	struct store_q		q;
	struct store_rank	r;
	int			rc;

	if (store_q_start(st, STMT_RANKS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		r.rank = store_column_maybe(q.stmt, 0);
		r.host = (const char *)sqlite3_column_text(q.stmt, 1);
		r.state = (const char *)sqlite3_column_text(q.stmt, 2);
		r.first = (const char *)sqlite3_column_text(q.stmt, 3);
		r.last = (const char *)sqlite3_column_text(q.stmt, 4);
		r.last_step = store_column_maybe(q.stmt, 5);
		r.first_signature = (const char *)sqlite3_column_text(q.stmt,
		    6);
		r.first_error = (const char *)sqlite3_column_text(q.stmt, 7);
		r.first_root = sqlite3_column_int(q.stmt, 8) != 0;
		r.progress = (const char *)sqlite3_column_text(q.stmt, 9);
		cb(arg, &r);
	}
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/* Append a match from a STORE_MATCH_SQL result. */
static void
store_match_read(sqlite3_stmt *stmt, struct rl_history *h, bool exact,
    double score)
{
	struct rl_history_match	*m;

	h->matches = xreallocarray(h->matches, h->nmatches + 1,
	    sizeof *h->matches);
	m = &h->matches[h->nmatches++];
	memset(m, 0, sizeof *m);
	m->incident = sqlite3_column_int64(stmt, 0);
	m->time = store_column(stmt, 1);
	m->fingerprint = store_column(stmt, 2);
	m->summary = store_column(stmt, 3);
	m->diagnosis = store_column(stmt, 4);
	m->resolution = store_column(stmt, 5);
	m->exact = exact;
	m->score = score;
}

/* Exact matches: how many, and the latest few. */
static int
store_recall_exact(struct store *st, const char *fp, int64_t exclude,
    struct rl_history *h, char **cause)
{
	struct store_q	q;
	int		rc;

	if (store_q_start(st, STMT_SEEN, &q, cause) != 0)
		return -1;
	store_q_text(&q, fp);
	store_q_int(&q, exclude);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		h->seen_before = (size_t)sqlite3_column_int64(q.stmt, 0);
	store_q_end(&q);
	if (rc == -1 || h->seen_before == 0)
		return rc == -1 ? -1 : 0;
	if (store_q_start(st, STMT_EXACT, &q, cause) != 0)
		return -1;
	store_q_text(&q, fp);
	store_q_int(&q, exclude);
	store_q_int(&q, RECALL_EXACT);
	while ((rc = store_q_step(st, &q, cause)) == 1)
		store_match_read(q.stmt, h, true, 1.0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/* One candidate word of a near query and how many fingerprints hold it. */
struct near_word {
	char		 word[64];
	int64_t		 doc;
};

/* Order words by rarity. */
static int
near_word_cmp(const void *a, const void *b)
{
	const struct near_word	*x = a, *y = b;

	return (x->doc > y->doc) - (x->doc < y->doc);
}

/*
 * The words of a template as FTS5's unicode61 tokenizer cuts them (ASCII
 * folded to lower case), without the masks' own names, each once.
 */
static size_t
near_words(const char *t, struct near_word *v, size_t max)
{
	const char	*p, *start;
	size_t		 n = 0, len, i;

	for (p = t; *p != '\0';) {
		if (!isalnum((unsigned char)*p) && (unsigned char)*p < 0x80) {
			p++;
			continue;
		}
		start = p;
		while (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80)
			p++;
		len = (size_t)(p - start);
		/* "<num>": a mask's name is no word of the line. */
		if ((start > t && start[-1] == '<' && *p == '>') ||
		    len < NEAR_MINLEN || len >= sizeof v->word)
			continue;
		for (i = 0; i < len; i++)
			v[n].word[i] = (char)tolower((unsigned char)start[i]);
		v[n].word[len] = '\0';
		for (i = 0; i < n && strcmp(v[i].word, v[n].word) != 0; i++)
			;
		if (i == n && ++n == max)
			break;
	}
	return n;
}

/* How many fingerprints hold a word (FTS5's vocabulary: one lookup). */
static int
near_doc(struct store *st, struct near_word *w, char **cause)
{
	struct store_q	q;
	int		rc;

	w->doc = 0;
	if (store_q_start(st, STMT_VOCAB, &q, cause) != 0)
		return -1;
	store_q_text(&q, w->word);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		w->doc = sqlite3_column_int64(q.stmt, 0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/* How many fingerprints there are, near enough: the last one's id. */
static int
near_count(struct store *st, int64_t *n, char **cause)
{
	struct store_q	q;
	int		rc;

	*n = 0;
	if (store_q_start(st, STMT_FP_COUNT, &q, cause) != 0)
		return -1;
	if ((rc = store_q_step(st, &q, cause)) == 1)
		*n = sqlite3_column_int64(q.stmt, 0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/*
 * The FTS5 query of the rarer words of a template: "a" OR "b" ..., or
 * NULL when no word is both known and rare enough to mean something.
 * The words are letters and digits only, so quoting them is enough.
 */
static int
near_query(struct store *st, const char *template, char **query,
    char **cause)
{
	struct near_word	 v[64];
	struct buf		 b = { 0 };
	size_t			 n, i, k = 0;
	int64_t			 nfp;

	*query = NULL;
	if (near_count(st, &nfp, cause) != 0)
		return -1;
	n = near_words(template, v, 64);
	for (i = 0; i < n; i++) {
		if (near_doc(st, &v[i], cause) != 0)
			return -1;
	}
	qsort(v, n, sizeof *v, near_word_cmp);
	for (i = 0; i < n && k < NEAR_WORDS; i++) {
		if (v[i].doc == 0 || v[i].doc > nfp / NEAR_SHARE + 1)
			continue;
		buf_printf(&b, "%s\"%s\"", k++ ? " OR " : "", v[i].word);
	}
	if (k > 0)
		*query = buf_steal(&b);
	return 0;
}

/* The latest incident of a near fingerprint, as a match with a score. */
static int
near_latest(struct store *st, int64_t fid, int64_t exclude, double score,
    struct rl_history *h, char **cause)
{
	struct store_q	q;
	int		rc;

	if (store_q_start(st, STMT_NEAR_LATEST, &q, cause) != 0)
		return -1;
	store_q_int(&q, fid);
	store_q_int(&q, exclude);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		store_match_read(q.stmt, h, false, score);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/*
 * Near matches: other fingerprints ranked by bm25 over their template and
 * notes.  bm25 is negative, lower better; the score is s / (1 + s) of its
 * opposite, so that closer is higher and every score is below 1.
 */
static int
store_recall_near(struct store *st, const struct rl_signature *sig,
    int64_t exclude, struct rl_history *h, char **cause)
{
	struct store_q	 q;
	char		*query;
	int64_t		*fid = NULL;
	double		*score = NULL, s;
	size_t		 n = 0, i, listed = 0;
	int		 rc;

	if (near_query(st, sig->template, &query, cause) != 0)
		return -1;
	if (query == NULL)
		return 0;
	if (store_q_start(st, STMT_NEAR, &q, cause) != 0) {
		free(query);
		return -1;
	}
	store_q_text(&q, query);
	store_q_int(&q, RECALL_NEAR + 1);
	/* Collected first: near_latest runs another statement. */
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		fid = xreallocarray(fid, n + 1, sizeof *fid);
		score = xreallocarray(score, n + 1, sizeof *score);
		fid[n] = sqlite3_column_int64(q.stmt, 0);
		s = -sqlite3_column_double(q.stmt, 1);
		score[n++] = s > 0 ? s / (1 + s) : 0;
	}
	store_q_end(&q);
	free(query);
	for (i = 0; rc != -1 && i < n && listed < RECALL_NEAR; i++) {
		size_t before = h->nmatches;

		if (near_latest(st, fid[i], exclude, score[i], h, cause) != 0)
			rc = -1;
		else if (h->nmatches > before && h->matches[before].fingerprint
		    != NULL && strcmp(h->matches[before].fingerprint,
		    sig->fingerprint) == 0) {
			/* Our own fingerprint is an exact match, not near. */
			h->nmatches--;
			free(h->matches[before].time);
			free(h->matches[before].fingerprint);
			free(h->matches[before].summary);
			free(h->matches[before].diagnosis);
			free(h->matches[before].resolution);
		} else if (h->nmatches > before)
			listed++;
	}
	free(fid);
	free(score);
	return rc == -1 ? -1 : 0;
}

/* One offender of this root, if it was in earlier roots. */
static int
store_recall_offender(struct store *st, enum rl_offender_kind kind,
    const char *name, int64_t exclude, struct rl_history *h, char **cause)
{
	struct store_q		 q;
	struct rl_offender	*o = NULL;
	int64_t			 count = 0;
	int			 rc;

	if (name == NULL)
		return 0;
	if (store_q_start(st, STMT_OFFENDER, &q, cause) != 0)
		return -1;
	store_q_text(&q, offender_kind_name(kind));
	store_q_text(&q, name);
	store_q_int(&q, exclude);
	if ((rc = store_q_step(st, &q, cause)) == 1 &&
	    (count = sqlite3_column_int64(q.stmt, 0)) > 0) {
		h->offenders = xreallocarray(h->offenders, h->noffenders + 1,
		    sizeof *h->offenders);
		o = &h->offenders[h->noffenders++];
		memset(o, 0, sizeof *o);
		o->kind = kind;
		o->name = xstrdup(name);
		o->count = (size_t)count;
		o->first = store_column(q.stmt, 1);
		o->last = store_column(q.stmt, 2);
	}
	store_q_end(&q);
	if (rc == -1 || o == NULL)
		return rc == -1 ? -1 : 0;
	if (store_q_start(st, STMT_OFFENDER_LAST, &q, cause) != 0)
		return -1;
	store_q_text(&q, offender_kind_name(kind));
	store_q_text(&q, name);
	store_q_int(&q, exclude);
	if ((rc = store_q_step(st, &q, cause)) == 1)
		o->last_incident = sqlite3_column_int64(q.stmt, 0);
	store_q_end(&q);
	return rc == -1 ? -1 : 0;
}

/* The history of a signature, leaving out incident exclude (its own). */
static int
store_recall_sig(struct store *st, const struct rl_signature *sig,
    const char *rank, int64_t exclude, struct rl_history *h, char **cause)
{
	memset(h, 0, sizeof *h);
	h->looked = true;
	h->incident = exclude;
	if (sig->fingerprint == NULL)
		return 0;
	if (store_recall_exact(st, sig->fingerprint, exclude, h, cause) != 0 ||
	    store_recall_near(st, sig, exclude, h, cause) != 0 ||
	    store_recall_offender(st, OFFENDER_HOST, sig->host, exclude, h,
	    cause) != 0 ||
	    store_recall_offender(st, OFFENDER_GPU, sig->pci, exclude, h,
	    cause) != 0 ||
	    store_recall_offender(st, OFFENDER_RANK, rank, exclude, h,
	    cause) != 0) {
		history_clear(h);
		return -1;
	}
	return 0;
}

/*
 * What the database knows of an incident's failure: earlier incidents of
 * its fingerprint, near ones, and its root's host, GPU and rank in earlier
 * roots.  exclude is the incident's own id (0 if it is not stored), so
 * that it is never its own earlier match.  Reads only; the root is the
 * model's signature (inc->sig), which the pipeline made.
 */
int
store_recall(struct store *st, const struct rl_incident *inc, int64_t exclude,
    struct rl_history *h, char **cause)
{
	char	*rank = store_rank_offender(inc);
	int	 rv;

	rv = store_recall_sig(st, &inc->sig, rank, exclude, h, cause);
	free(rank);
	return rv;
}

/*
 * What the history says of a stored incident, as store_recall says it of
 * one in memory: its row's fingerprint, template, host, GPU and rank stand
 * for the signature (a report made from the store alone).
 */
int
store_recall_stored(struct store *st, int64_t id, struct rl_history *h,
    char **cause)
{
	struct rl_signature	 sig = { 0 };
	struct store_row	 r;
	struct store_q		 q;
	char			*rank = NULL;
	int			 rv;

	memset(h, 0, sizeof *h);
	if (store_get(st, id, &r, cause) != 0)
		return -1;
	/* The rank as it was saved, with its host and job (the offender). */
	if (store_q_start(st, STMT_OFFENDER_OF, &q, cause) != 0) {
		store_row_clear(&r);
		return -1;
	}
	store_q_int(&q, id);
	store_q_text(&q, offender_kind_name(OFFENDER_RANK));
	if ((rv = store_q_step(st, &q, cause)) == 1)
		rank = store_column(q.stmt, 0);
	store_q_end(&q);
	if (rv == -1) {
		store_row_clear(&r);
		return -1;
	}
	sig.fingerprint = r.fingerprint;
	sig.template = r.template != NULL ? r.template : "";
	sig.host = r.host;
	sig.pci = r.pci;
	sig.rank = r.rank;
	sig.rule = r.signature;
	rv = store_recall_sig(st, &sig, rank, id, h, cause);
	free(rank);
	store_row_clear(&r);
	return rv;
}

/*
 * The hosts, GPUs and ranks in the roots of at least min incidents, most
 * often first.
 */
int
store_offenders(struct store *st, int64_t min, struct store_offenders *out,
    char **cause)
{
	struct store_q		 q;
	struct store_offender	*o;
	int			 rc;

	out->v = NULL;
	out->n = 0;
	if (store_q_start(st, STMT_OFFENDERS, &q, cause) != 0)
		return -1;
	store_q_int(&q, min);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
		o = &out->v[out->n++];
		o->kind = store_column(q.stmt, 0);
		o->name = store_column(q.stmt, 1);
		o->count = sqlite3_column_int64(q.stmt, 2);
		o->first = store_column(q.stmt, 3);
		o->last = store_column(q.stmt, 4);
		o->incidents = store_column(q.stmt, 5);
	}
	store_q_end(&q);
	if (rc == -1) {
		store_offenders_clear(out);
		return -1;
	}
	return 0;
}

/* Free what store_offenders made. */
void
store_offenders_clear(struct store_offenders *out)
{
	size_t	i;

	for (i = 0; i < out->n; i++) {
		free(out->v[i].kind);
		free(out->v[i].name);
		free(out->v[i].first);
		free(out->v[i].last);
		free(out->v[i].incidents);
	}
	free(out->v);
	out->v = NULL;
	out->n = 0;
}

/* Free a row's strings; the row itself is the caller's. */
void
store_row_clear(struct store_row *row)
{
	char	**fields[] = {
		&row->created, &row->updated, &row->started, &row->signature,
		&row->fingerprint, &row->host, &row->domain, &row->summary,
		&row->text, &row->sources, &row->note, &row->uid,
		&row->occurred, &row->diagnosis, &row->resolution,
		&row->template, &row->pci, &row->job_scheduler, &row->job_run,
		&row->job_command, &row->explanation, &row->ckpt, &row->ended,
		&row->grp, &row->scope
	};
	size_t	  i;

	for (i = 0; i < sizeof fields / sizeof *fields; i++)
		free(*fields[i]);
	memset(row, 0, sizeof *row);
}

/* Free a list's rows; it is left empty, ready for another store_list. */
void
store_list_clear(struct store_list *list)
{
	size_t	i;

	for (i = 0; i < list->n; i++)
		store_row_clear(&list->rows[i]);
	free(list->rows);
	list->rows = NULL;
	list->n = 0;
}

/*
 * The paths of an incident's sources, as stored (a file's real path), in
 * *v (n of them, NULL-terminated, each and the array the caller's).
 */
int
store_source_paths(struct store *st, int64_t id, char ***v, size_t *n,
    char **cause)
{
	struct store_q	 q;
	int		 rc;

	*v = NULL;
	*n = 0;
	if (store_q_start(st, STMT_PATHS, &q, cause) != 0)
		return -1;
	store_q_int(&q, id);
	while ((rc = store_q_step(st, &q, cause)) == 1) {
		*v = xreallocarray(*v, *n + 2, sizeof **v);
		(*v)[(*n)++] = store_column(q.stmt, 0);
		(*v)[*n] = NULL;
	}
	store_q_end(&q);
	if (rc == -1) {
		while (*n > 0)
			free((*v)[--*n]);
		free(*v);
		*v = NULL;
		return -1;
	}
	return 0;
}
