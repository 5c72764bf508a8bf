package runtime

import (
	"context"
	"math"
)

// Board is what a generated package's Board is on every layout: its machinery (Core) and the
// methods whose behaviour does not depend on the layout beyond its codec and id type. A
// generated Board embeds it, so these are methods of the generated Board too, with its own
// Entry, id, Ranked, Written and Result types; the generated file adds only what its layout
// makes its own (field updates, change lists, bands, ranges, seasons).
//
// The functions it calls are the generated library's, named by the operations of
// BoardFunctions.
type Board[E any, I ID, R, W, X any] struct {
	core *Core
	dec  *Decoding[E, I, R, W, X]
	fn   boardFunctions
	// previous is the board's view in the layout this one replaces, where the schema names one
	// (NewBoardReplacing): the methods then run on the view of the layout the key holds (route).
	previous *Board[E, I, R, W, X]
	held     *heldLayout
}

// The library functions every layout's library has, by operation name (the generator's
// catalogue names its operations with these constants; its tests check that they agree).
const (
	OpSet        = "set"
	OpBest       = "best"
	OpInsert     = "insert"
	OpRemove     = "remove"
	OpTrim       = "trim"
	OpGet        = "get"
	OpRank       = "rank"
	OpPage       = "page"
	OpAround     = "around"
	OpAfter      = "after"
	OpGetMany    = "get_many"
	OpRankMany   = "rank_many"
	OpRankedMany = "ranked_many"
	OpBottom     = "bottom"
	OpStanding   = "standing"
)

// boardFunctions are a board's handles on the functions of its library that Board calls.
// get and rank are nil where the layout reads them with plain commands (bare ids, no data),
// page where it has no data.
type boardFunctions struct {
	set, best, insert, remove, trim, around, after, getMany, rankMany, rankedMany, bottom, standing *Function
	get, rank, page                                                                                 *Function
}

// NewBoard returns the board whose machinery is core, reading and writing entries as dec says.
func NewBoard[E any, I ID, R, W, X any](core *Core, dec *Decoding[E, I, R, W, X]) *Board[E, I, R, W, X] {
	lib, spec := core.spec.Library, core.spec
	b := &Board[E, I, R, W, X]{core: core, dec: dec, fn: boardFunctions{
		set: lib.Function(OpSet), best: lib.Function(OpBest), insert: lib.Function(OpInsert), remove: lib.Function(OpRemove), trim: lib.Function(OpTrim),
		around: lib.Function(OpAround), after: lib.Function(OpAfter), getMany: lib.Function(OpGetMany),
		rankMany: lib.Function(OpRankMany), rankedMany: lib.Function(OpRankedMany), bottom: lib.Function(OpBottom), standing: lib.Function(OpStanding),
	}}
	if spec.Indexed || spec.Data {
		// The entry of an id is found through the index, or read with its data, by a script.
		b.fn.get = lib.Function(OpGet)
	}
	if spec.Indexed {
		b.fn.rank = lib.Function(OpRank)
	}
	if spec.Data {
		b.fn.page = lib.Function(OpPage)
	}
	return b
}

// Key returns the board's key.
func (b *Board[E, I, R, W, X]) Key() string { return b.core.Key() }

// Keys returns the keys that hold the board: the sorted set, its side key (the meta key, or the
// index on a layout with a member prefix) and, on a layout with data, the data hash. Its writes'
// tokens are recorded beside them, each under a key of its own that expires by itself (AckKey).
func (b *Board[E, I, R, W, X]) Keys() []string { return b.core.Keys() }

// Load loads the board's Lua library on the server (on every master of a Cluster). Calls made
// outside a pipeline load it themselves where it is missing; call Load before calling its
// functions in a pipeline, where a server that lacks it (after a restart or FUNCTION FLUSH)
// answers that the function is not found.
func (b *Board[E, I, R, W, X]) Load(ctx context.Context) error {
	if b.previous != nil {
		if err := b.previous.core.Load(ctx); err != nil {
			return err
		}
	}
	return b.core.Load(ctx)
}

// Set stores e, replacing the entry of its id if there is one, and returns what it did: the
// entry before it (Existed false: none), e as stored, and whether the stored entry changed
// (Changed false: the board held e already), read in the same script.
func (b *Board[E, I, R, W, X]) Set(ctx context.Context, e E) (W, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (W, error) { return One(b.writeEntries(ctx, b.fn.set, []E{e}, true)) })
}

// SetMany stores many entries in one script call, atomically, and returns a Written per entry,
// in order; for an id given twice the last entry wins, and the second's Before is the first. It
// validates every entry first and writes nothing when one is invalid.
func (b *Board[E, I, R, W, X]) SetMany(ctx context.Context, entries []E) ([]W, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]W, error) { return b.writeEntries(ctx, b.fn.set, entries, false) })
}

// Best stores e unless the board's entry for its id ranks at least as high, comparing whole
// tuples, and returns what it did: Changed when it stored e, the entry before (Existed false:
// none) and after, read in the same script, so a new personal best and its exact gain need no
// second read.
func (b *Board[E, I, R, W, X]) Best(ctx context.Context, e E) (W, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (W, error) { return One(b.writeEntries(ctx, b.fn.best, []E{e}, true)) })
}

// BestMany applies Best to many entries in one script call, atomically and in order, and
// returns a Written per entry (an id given twice: the second's Before is what the first left).
// It validates every entry first and writes nothing when one is invalid.
func (b *Board[E, I, R, W, X]) BestMany(ctx context.Context, entries []E) ([]W, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]W, error) { return b.writeEntries(ctx, b.fn.best, entries, false) })
}

// Insert stores e unless the board holds an entry for its id already (the first submission
// wins), and returns what it did: Changed when it stored e; else the entry it keeps, unchanged,
// as both Before and Entry, read in the same script.
func (b *Board[E, I, R, W, X]) Insert(ctx context.Context, e E) (W, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (W, error) { return One(b.writeEntries(ctx, b.fn.insert, []E{e}, true)) })
}

// InsertMany applies Insert to many entries in one script call, atomically and in order, and
// returns a Written per entry (an id given twice: the first entry wins, and the second's
// Before is it). It validates every entry first and writes nothing when one is invalid.
func (b *Board[E, I, R, W, X]) InsertMany(ctx context.Context, entries []E) ([]W, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]W, error) { return b.writeEntries(ctx, b.fn.insert, entries, false) })
}

// writeEntries calls f, the set, best or insert function, for entries, each encoded as the layout's
// EntryArgs says; a season's board sends its bounds first, so the script refuses an entry
// stamped past its end. single: the call is Set, Best or Insert, a single write
// (Core.WriteOne), which a board made WithCoalescing combines with others.
func (b *Board[E, I, R, W, X]) writeEntries(ctx context.Context, f *Function, entries []E, single bool) ([]W, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	stride, season := 2, b.core.season
	if b.dec.hasData() {
		stride = 3
	}
	var args []any
	if b.core.spec.SeasonBounds {
		args = append(b.core.WriteArgs(2+stride*len(entries)), season.Start.UnixMicro(), season.End.UnixMicro())
	} else {
		args = b.core.WriteArgs(stride * len(entries))
	}
	for _, e := range entries {
		var err error
		if args, err = b.dec.EntryArgs(season, e, args); err != nil {
			return nil, err
		}
	}
	var v any
	var err error
	if single {
		v, err = b.core.WriteOne(ctx, f, args, stride)
	} else {
		v, err = b.core.Write(ctx, f, args)
	}
	if err != nil {
		return nil, err
	}
	read := Priors
	if b.dec.hasData() {
		read = PriorsData
	}
	ps, err := read(v, len(entries))
	if err != nil {
		return nil, err
	}
	return b.dec.Written(ps, entries), nil
}

// Remove deletes the entries of the given ids and returns how many there were.
func (b *Board[E, I, R, W, X]) Remove(ctx context.Context, ids ...I) (int64, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (int64, error) { return b.dec.Remove(ctx, b.core, b.fn.remove, ids) })
}

// Trim keeps the first keep entries, removes all below them and returns how many it removed.
func (b *Board[E, I, R, W, X]) Trim(ctx context.Context, keep int64) (int64, error) {
	if keep < 0 {
		return 0, IntRangeError("keep", keep, 0, math.MaxInt64)
	}
	return route(b, func(b *Board[E, I, R, W, X]) (int64, error) {
		return Int(b.core.Write(ctx, b.fn.trim, append(b.core.WriteArgs(1), keep)))
	})
}

// Get returns the entry of id, or an error matching ErrNotFound.
func (b *Board[E, I, R, W, X]) Get(ctx context.Context, id I) (E, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (E, error) {
		if b.fn.get == nil {
			return b.dec.Get(ctx, b.core, id)
		}
		return b.dec.GetScripted(ctx, b.core, b.fn.get, id)
	})
}

// Rank returns the 1-based position of the entry of id in the board's order, or an error
// matching ErrNotFound.
func (b *Board[E, I, R, W, X]) Rank(ctx context.Context, id I) (int64, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (int64, error) {
		if b.fn.rank == nil {
			return b.dec.Rank(ctx, b.core, id)
		}
		return b.dec.RankScripted(ctx, b.core, b.fn.rank, id)
	})
}

// Top returns the first n entries, best first.
func (b *Board[E, I, R, W, X]) Top(ctx context.Context, n int64) ([]R, error) {
	return b.Page(ctx, 0, n)
}

// Page returns limit entries from the 0-based position offset, best first: none for a limit of
// 0 or less, an error matching ErrOutOfRange for a negative offset.
func (b *Board[E, I, R, W, X]) Page(ctx context.Context, offset, limit int64) ([]R, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]R, error) {
		if b.fn.page == nil {
			return b.dec.Page(ctx, b.core, offset, limit)
		}
		return b.dec.PageAt(ctx, b.core, b.fn.page, offset, limit)
	})
}

// Around returns the entry of id with up to before entries ahead of it and after entries behind
// it, or an error matching ErrNotFound.
func (b *Board[E, I, R, W, X]) Around(ctx context.Context, id I, before, after int64) ([]R, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]R, error) {
		return b.dec.Around(ctx, b.core, b.fn.around, id, before, after, false)
	})
}

// AroundFilled is Around with the window kept whole at the ends of the board: what the top cuts
// from before is taken after, and what the end cuts from after is taken before, so the first
// entry still sees before + after others when the board has them. The entry of id is in the
// window; or an error matching ErrNotFound.
func (b *Board[E, I, R, W, X]) AroundFilled(ctx context.Context, id I, before, after int64) ([]R, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]R, error) {
		return b.dec.Around(ctx, b.core, b.fn.around, id, before, after, true)
	})
}

// After returns up to limit entries that rank after the cursor, best first, and the cursor of
// the last one (the same cursor when there are none). Paging by cursor is stable while scores
// change: an entry is never returned twice nor skipped because others moved ahead of it. A
// cursor whose score is NaN marks no place: it is refused (ErrBadScore) before anything is
// sent.
func (b *Board[E, I, R, W, X]) After(ctx context.Context, cur Cursor, limit int64) ([]R, Cursor, error) {
	type page struct {
		rs  []R
		cur Cursor
	}
	p, err := route(b, func(b *Board[E, I, R, W, X]) (page, error) {
		rs, next, err := b.dec.After(ctx, b.core, b.fn.after, cur, limit)
		return page{rs, next}, err
	})
	return p.rs, p.cur, err
}

// Count returns the number of entries.
func (b *Board[E, I, R, W, X]) Count(ctx context.Context) (int64, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (int64, error) { return b.core.Count(ctx) })
}

// GetMany returns, in one round trip, a Result per id in the order given: the entry, or an Err
// matching ErrNotFound when the id has none. An invalid id fails the whole call before
// anything is sent.
func (b *Board[E, I, R, W, X]) GetMany(ctx context.Context, ids ...I) ([]X, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]X, error) { return b.dec.GetMany(ctx, b.core, b.fn.getMany, ids) })
}

// RankMany returns, in one round trip, the 1-based rank of each id in the order given, 0 for
// an id without an entry. An invalid id fails the whole call before anything is sent.
func (b *Board[E, I, R, W, X]) RankMany(ctx context.Context, ids ...I) ([]int64, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]int64, error) { return b.dec.RankMany(ctx, b.core, b.fn.rankMany, ids) })
}

// RankedMany returns, in one round trip, the entry and 1-based rank of each id that has an
// entry, best first: a friends list's standings. An id without an entry is left out, an id
// given twice comes once. An invalid id fails the whole call before anything is sent.
func (b *Board[E, I, R, W, X]) RankedMany(ctx context.Context, ids ...I) ([]R, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]R, error) { return b.dec.RankedMany(ctx, b.core, b.fn.rankedMany, ids) })
}

// Bottom returns the last n entries, best first (the board's last entry last).
func (b *Board[E, I, R, W, X]) Bottom(ctx context.Context, n int64) ([]R, error) {
	return b.PageFromEnd(ctx, 0, n)
}

// PageFromEnd returns up to limit entries that end offset entries before the end of the board,
// best first, with their ranks: PageFromEnd(0, 10) is the last ten, PageFromEnd(10, 10) the ten
// before them. The board's size is read in the same script, so the page is exact. A negative
// offset is an error matching ErrOutOfRange.
func (b *Board[E, I, R, W, X]) PageFromEnd(ctx context.Context, offset, limit int64) ([]R, error) {
	return route(b, func(b *Board[E, I, R, W, X]) ([]R, error) {
		return b.dec.PageAt(ctx, b.core, b.fn.bottom, offset, limit)
	})
}

// Percentile returns the share of the board's entries that rank behind the entry of id, in
// percent: 0 for the last entry, 100·(n−1)/n for the first of n; or an error matching
// ErrNotFound. Its position and the board's size are read together, in one script call.
func (b *Board[E, I, R, W, X]) Percentile(ctx context.Context, id I) (float64, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (float64, error) {
		return b.dec.Percentile(ctx, b.core, b.fn.standing, id)
	})
}

// PageOf returns the 1-based page of pageSize entries that holds the entry of id (Page(ctx,
// (page-1)*pageSize, pageSize) returns it), or an error matching ErrNotFound; a pageSize below
// 1 is an error matching ErrOutOfRange.
func (b *Board[E, I, R, W, X]) PageOf(ctx context.Context, id I, pageSize int64) (int64, error) {
	return route(b, func(b *Board[E, I, R, W, X]) (int64, error) {
		return b.dec.PageOf(ctx, b.core, b.fn.standing, id, pageSize)
	})
}
