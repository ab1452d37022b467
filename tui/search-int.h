/*
 * search-int.h: the search's state, shared by search.c (reading, n and N,
 * the status line) and search-hits.c (the hits in time order, per row,
 * and what the merged log asks of them), and by no other file.
 */
#ifndef RANKLINE_SEARCH_INT_H
#define RANKLINE_SEARCH_INT_H

#include "find.h"

/* A line hit the rows show: where it goes in time, and on which row. */
struct search_vis {
	int64_t		 key;		/* its time's order (search_key) */
	int64_t		 pos;		/* on the axis, as index.pos */
	uint32_t	 hit;		/* into lines */
	int		 row;
};

/* An event by its place, to tell a line hit from an event's line. */
struct search_evkey {
	uint32_t	 source;
	uint64_t	 line;
	unsigned	 ev;
};

struct tui_search {
	struct find	*find;		/* owned */
	bool		 backward;	/* ? : n goes back in time */
	unsigned	*hits;		/* event hits: indexes, in time order */
	size_t		 nhits;
	size_t		 chits;		/* room in hits */
	unsigned char	*is_hit;	/* per event of the index */
	size_t		 nevents;	/* events is_hit is for */
	size_t		 limited;	/* event lines the match limits stopped */

	struct find_read *reader;	/* every line read again, or NULL */
	struct rl_incident *inc;	/* borrowed: the incident it reads */
	bool		 reading;	/* the idle hook runs it */
	bool		 stopped;	/* Esc stopped it */
	bool		 said;		/* its end was said */
	struct find_hit	*lines;		/* line hits, as found */
	size_t		 nlines;
	size_t		 clines;
	bool		 capped;	/* more were found than kept */
	uint64_t	 started;	/* uv_hrtime of the start */
	double		 ms;		/* what reading every line took */

	bool		 stale;		/* lines or index changed since derived */
	struct search_evkey *keys;	/* every event, by source and line */
	size_t		 nkeys;
	struct search_vis *vis;		/* line hits shown, in time order */
	size_t		 nvis;
	long		*all;		/* every hit in time order: an event
					   index, or -(k + 1) for vis[k] */
	size_t		 nall;
	size_t		*row_hits;	/* hits per row, both kinds */
	int64_t		*rpos;		/* vis' positions grouped by row */
	size_t		*rfirst;	/* row r's are rpos[rfirst[r]..r+1] */
	size_t		 nrows;		/* rows row_hits is for */

	long		 sel;		/* the selected line hit (into lines),
					   or -1 */
	uint64_t	 sel_seq;	/* t->sel_seq when it was selected, or
					   UINT64_MAX: no event was */
};

/* search-hits.c */
void		 search_underive(struct tui_search *);
void		 search_derive(struct tui *);
int		 search_vis_cmp(const void *, const void *);
bool		 search_sel_is(const struct tui *, long);
void		 search_select_vis(struct tui *, size_t);

#endif
