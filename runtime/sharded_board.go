package runtime

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// ShardedBoard is what a generated package's ShardedBoard is on every layout: its shards, each
// a Board, and the methods that merge their answers whose behaviour does not depend on the
// layout beyond its codec and id type. A generated ShardedBoard embeds it, so these are methods
// of the generated ShardedBoard too, with its own Entry, id, Ranked, Written and Result types;
// the generated file adds only what its layout makes its own (field updates, change lists,
// bands, ranges, competition ranks, seasons) and the shards as its own Boards (Shards).
//
// A write goes to the shard of its id (ShardOf; a batch to every shard it touches, at once, under
// one token), and a read asks every shard in one pipeline and merges the answers by the layout's
// Compare (MergeSorted, Shares, Heads), or adds them up, so that ranks, pages and counts are
// exactly those of one Board holding the same entries.
type ShardedBoard[E any, I ID, R, W, X any] struct {
	c      redis.UniversalClient
	shards []*Board[E, I, R, W, X] // shard i holds the ids that ShardOf maps to i
	tokens *Tokens                 // one per batch write, shared by its shards' scripts
	dec    *Decoding[E, I, R, W, X]
	// previous is the board over its shards' views in the layout theirs replaces (Board's
	// previous), where they have one: its reads that merge shards run on the view of the layout
	// the shards hold (shardedRoute).
	previous *ShardedBoard[E, I, R, W, X]
}

// NewShardedBoard returns the board whose shards are shards (at least one), in order: shard i
// holds the ids that ShardOf maps to i. Every shard is a Board of the same layout and options.
func NewShardedBoard[E any, I ID, R, W, X any](c redis.UniversalClient, shards []*Board[E, I, R, W, X]) *ShardedBoard[E, I, R, W, X] {
	s := &ShardedBoard[E, I, R, W, X]{c: c, shards: shards, tokens: NewTokens(), dec: shards[0].dec}
	if shards[0].previous != nil {
		views := make([]*Board[E, I, R, W, X], len(shards))
		for i, b := range shards {
			views[i] = b.previous
		}
		s.previous = &ShardedBoard[E, I, R, W, X]{c: c, shards: views, tokens: s.tokens, dec: views[0].dec}
	}
	return s
}

// shardedRoute runs call on s or on its view in the previous layout, as its shards hold the
// one or the other (Board's route): a read that merges the shards' entries compares them in
// one layout's order, so while a migration has switched some shards and not others, it is
// refused (ErrLayoutMismatch), and writes and reads of one id are not. A read the previous
// layout's view refuses unsent (no exact form there) is tried on this layout's.
func shardedRoute[E any, I ID, R, W, X, T any](s *ShardedBoard[E, I, R, W, X], call func(*ShardedBoard[E, I, R, W, X]) (T, error)) (T, error) {
	if s.previous == nil {
		return call(s)
	}
	first, second := s.previous, s
	if s.shards[0].newFirst() { // every shard is in the layout shard 0 is, but mid-migration
		first, second = s, s.previous
	}
	v, err := call(first)
	if !errors.Is(err, ErrLayoutMismatch) && !readRefused(err) {
		return v, err
	}
	v2, err2 := call(second)
	if errors.Is(err2, ErrLayoutMismatch) {
		return v, err
	}
	return v2, err2
}

// Keys returns every key of every shard, shard by shard.
func (s *ShardedBoard[E, I, R, W, X]) Keys() []string {
	var keys []string
	for _, b := range s.shards {
		keys = append(keys, b.core.ScriptKeys()...)
	}
	return keys
}

// Load caches the board's scripts on the server (on every master of a Cluster), as Board.Load
// does: the shards share them.
func (s *ShardedBoard[E, I, R, W, X]) Load(ctx context.Context) error {
	return s.shards[0].core.spec.Library.Load(ctx, s.c)
}

// Set applies Board.Set on the shard of e's id.
func (s *ShardedBoard[E, I, R, W, X]) Set(ctx context.Context, e E) (W, error) {
	return s.shard(s.dec.IDOf(e)).Set(ctx, e)
}

// SetMany stores many entries with one script call per shard that holds some of them, all at
// once, and returns a Written per entry in the order of entries; each shard's part is atomic,
// and for an id given twice the last entry wins. It validates every entry first and writes
// nothing when one is invalid. When a shard's call fails, the other shards' parts stand; a
// failure with ErrUncertain carries the batch's token: resend the whole batch under it
// (WithIdempotencyKey) and every shard's part is applied exactly once, each answering with its
// first reply.
func (s *ShardedBoard[E, I, R, W, X]) SetMany(ctx context.Context, entries []E) ([]W, error) {
	return s.writeMany(ctx, entries, (*Board[E, I, R, W, X]).SetMany)
}

// Best applies Board.Best on the shard of e's id.
func (s *ShardedBoard[E, I, R, W, X]) Best(ctx context.Context, e E) (W, error) {
	return s.shard(s.dec.IDOf(e)).Best(ctx, e)
}

// BestMany applies Board.BestMany with one script call per shard that holds some of the
// entries, all at once, and returns a Written per entry in the order of entries. It validates
// every entry first and writes nothing when one is invalid; a failed shard's call is resent as
// SetMany's is.
func (s *ShardedBoard[E, I, R, W, X]) BestMany(ctx context.Context, entries []E) ([]W, error) {
	return s.writeMany(ctx, entries, (*Board[E, I, R, W, X]).BestMany)
}

// Insert applies Board.Insert on the shard of e's id.
func (s *ShardedBoard[E, I, R, W, X]) Insert(ctx context.Context, e E) (W, error) {
	return s.shard(s.dec.IDOf(e)).Insert(ctx, e)
}

// InsertMany applies Board.InsertMany with one script call per shard that holds some of the
// entries, all at once, and returns a Written per entry in the order of entries. It validates
// every entry first and writes nothing when one is invalid; a failed shard's call is resent as
// SetMany's is.
func (s *ShardedBoard[E, I, R, W, X]) InsertMany(ctx context.Context, entries []E) ([]W, error) {
	return s.writeMany(ctx, entries, (*Board[E, I, R, W, X]).InsertMany)
}

// writeMany validates entries (encodable), then sends each shard's part through call, the
// Board's batch method, under the batch's one token.
func (s *ShardedBoard[E, I, R, W, X]) writeMany(ctx context.Context, entries []E, call func(*Board[E, I, R, W, X], context.Context, []E) ([]W, error)) ([]W, error) {
	if err := s.encodable(entries); err != nil {
		return nil, err
	}
	return GatherBatch(ctx, s, s.shards, entries, func(x E) string { return IDText(s.dec.IDOf(x)) }, call)
}

// encodable reports the first entry that a Board's batch writes refuse before they send
// anything — one whose season-anchored fields lie outside the board's season, that Encode
// refuses or whose Data is invalid (EntryArgs) — so that a batch with one invalid entry writes
// nothing on any shard, as on a Board.
func (s *ShardedBoard[E, I, R, W, X]) encodable(entries []E) error {
	b := s.shards[0] // every shard holds the board's season
	for _, e := range entries {
		if _, err := s.dec.EntryArgs(b.core.season, e, nil); err != nil {
			return err
		}
	}
	return nil
}

// Remove deletes the entries of the given ids, with one script call per shard that holds some
// of them, all at once, and returns how many there were. An invalid id fails the call before
// anything is sent.
func (s *ShardedBoard[E, I, R, W, X]) Remove(ctx context.Context, ids ...I) (int64, error) {
	for _, id := range ids {
		if err := s.dec.CheckID(id); err != nil {
			return 0, err
		}
	}
	ctx, err := s.batch(ctx)
	if err != nil {
		return 0, err
	}
	var removed atomic.Int64
	err = ScatterItems(ctx, s.shards, len(ids), func(i int) string {
		return IDText(ids[i])
	}, func(ctx context.Context, b *Board[E, I, R, W, X], at []int) error {
		n, err := b.Remove(ctx, Pick(ids, at)...)
		removed.Add(n)
		return err
	})
	return removed.Load(), err
}

// Trim keeps the board's first keep entries, across all shards, removes all below them and
// returns how many it removed. It reads the first keep entries of every shard (one pipelined
// round, as Page does) to learn how many of each shard's entries are among the board's first
// keep, then trims every shard to its share with one script each, all at once. Each shard's
// trim is atomic; a write that lands between the two rounds may move the cut by that write, and
// the board never keeps more than keep entries.
func (s *ShardedBoard[E, I, R, W, X]) Trim(ctx context.Context, keep int64) (int64, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) (int64, error) {
		if keep < 0 {
			return 0, IntRangeError("keep", keep, 0, math.MaxInt64)
		}
		shares := make([]int64, len(s.shards))
		if keep > 0 {
			heads, err := s.trimHeads(ctx, keep)
			if err != nil {
				return 0, err
			}
			shares = Shares(heads, keep, s.dec.CompareRanked)
		}
		ctx, err := s.batch(ctx)
		if err != nil {
			return 0, err
		}
		return SumShards(ctx, len(s.shards), func(ctx context.Context, i int) (int64, error) {
			return s.shards[i].Trim(ctx, shares[i])
		})
	})
}

// trimHeads is Trim's read of every shard's first keep entries: heads, or on a board with data
// the same positions without their data, which Trim does not return.
func (s *ShardedBoard[E, I, R, W, X]) trimHeads(ctx context.Context, keep int64) ([][]R, error) {
	if !s.dec.hasData() {
		return s.heads(ctx, keep)
	}
	return s.plainRanges(ctx, func(int) (int64, int64) {
		return 0, keep - 1
	})
}

// Get returns the entry of id from its shard, or an error matching ErrNotFound.
func (s *ShardedBoard[E, I, R, W, X]) Get(ctx context.Context, id I) (E, error) {
	return s.shard(id).Get(ctx, id)
}

// Rank returns the 1-based position of the entry of id among all shards, or an error matching
// ErrNotFound: the entry from its shard, then, in one pipelined round, how many entries of every
// shard rank ahead of it: greater scores (ZCOUNT, O(log n)) and equal scores with greater
// members (the run of equal scores).
func (s *ShardedBoard[E, I, R, W, X]) Rank(ctx context.Context, id I) (int64, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) (int64, error) {
		pos, _, err := s.standing(ctx, id, false)
		if err != nil {
			return 0, err
		}
		return pos + 1, nil
	})
}

// Top returns the first n entries of the board, best first.
func (s *ShardedBoard[E, I, R, W, X]) Top(ctx context.Context, n int64) ([]R, error) {
	return s.Page(ctx, 0, n)
}

// Page returns limit entries from the 0-based position offset, best first. Every shard reads
// its first offset + limit entries, in one pipelined round, and they are merged by Compare: the
// cost grows with offset, so page deep boards with After.
func (s *ShardedBoard[E, I, R, W, X]) Page(ctx context.Context, offset, limit int64) ([]R, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) ([]R, error) {
		n, err := pageDepth(offset, limit)
		if n == 0 || err != nil {
			return nil, err
		}
		heads, err := s.heads(ctx, n)
		if err != nil {
			return nil, err
		}
		merged := MergeSorted(heads, n, s.dec.CompareRanked)
		return s.dec.Renumber(merged[min(offset, int64(len(merged))):], offset), nil
	})
}

// Around returns the entry of id with up to before entries ahead of it and after entries behind
// it, as Board.Around does, or an error matching ErrNotFound. It takes three rounds: the entry,
// its position (as Rank), then the window's part of every shard, pipelined.
func (s *ShardedBoard[E, I, R, W, X]) Around(ctx context.Context, id I, before, after int64) ([]R, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) ([]R, error) { return s.around(ctx, id, before, after, false) })
}

// AroundFilled is Around with the window kept whole at the ends of the board, as
// Board.AroundFilled does.
func (s *ShardedBoard[E, I, R, W, X]) AroundFilled(ctx context.Context, id I, before, after int64) ([]R, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) ([]R, error) { return s.around(ctx, id, before, after, true) })
}

// around reads the window around the entry of id, at position r. Of the entries ahead of it in
// the window, a shard holds at most r-start, the last of those it has ahead of the entry; of
// those behind, at most stop-r, the first after them: each shard reads that range, and the
// merge holds the window.
func (s *ShardedBoard[E, I, R, W, X]) around(ctx context.Context, id I, before, after int64, fill bool) ([]R, error) {
	e, err := s.shard(id).Get(ctx, id)
	if err != nil {
		return nil, err
	}
	cur, err := s.dec.CursorOf(e)
	if err != nil {
		return nil, err
	}
	ahead, count, err := s.ahead(ctx, cur, true)
	if err != nil {
		return nil, err
	}
	r := Sum(ahead) // the entry's 0-based position
	start, stop := AroundBounds(r, max(before, 0), max(after, 0), count, fill)
	parts, err := s.ranges(ctx, func(i int) (int64, int64) {
		return max(0, ahead[i]-(r-start)), ahead[i] + (stop - r)
	})
	if err != nil {
		return nil, err
	}
	merged := MergeSorted(parts, -1, s.dec.CompareRanked)
	k := slices.IndexFunc(merged, func(x R) bool {
		return s.dec.Compare(s.dec.EntryOf(x), e) == 0
	})
	if k < 0 {
		return nil, NotFound(IDText(id)) // removed between the rounds
	}
	lo := max(0, k-int(r-start))
	hi := min(len(merged), k+int(stop-r)+1)
	return s.dec.Renumber(merged[lo:hi], r-int64(k-lo)), nil
}

// After returns up to limit entries that rank after the cursor, best first, and the cursor of
// the last one (the same cursor when there are none), as Board.After does: every shard's after
// script runs from the cursor, in one pipelined round, and the pages merge by Compare; an
// entry's rank is its shard-summed position. A cursor whose score is NaN is refused
// (ErrBadScore) before anything is sent.
func (s *ShardedBoard[E, I, R, W, X]) After(ctx context.Context, cur Cursor, limit int64) ([]R, Cursor, error) {
	if math.IsNaN(cur.Score) {
		return nil, cur, BadScore(cur.Score, "a cursor's score is a number, never NaN")
	}
	type after struct {
		starts []int64
		pages  [][]R
		dec    *Decoding[E, I, R, W, X]
	}
	a, err := shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) (after, error) {
		starts, pages, err := s.afterAll(ctx, cur, limit)
		return after{starts, pages, s.dec}, err
	})
	if err != nil {
		return nil, cur, err
	}
	page := s.dec.Renumber(MergeSorted(a.pages, limit, s.dec.CompareRanked), Sum(a.starts))
	if len(page) == 0 {
		return page, cur, nil
	}
	next, err := a.dec.CursorOf(s.dec.EntryOf(page[len(page)-1])) // in the layout the shards hold
	if err != nil {
		return nil, cur, err
	}
	return page, next, nil
}

// Count returns the number of entries of all shards, read in one pipelined round.
func (s *ShardedBoard[E, I, R, W, X]) Count(ctx context.Context) (int64, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) (int64, error) {
		cmds, err := s.readAll(ctx, func(c redis.Cmdable, _ int, key string) redis.Cmder {
			return c.ZCard(ctx, key)
		})
		if err != nil {
			return 0, err
		}
		var n int64
		for _, cmd := range cmds {
			k, err := cmd.(*redis.IntCmd).Result()
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	})
}

// GetMany returns a Result per id in the order given, as Board.GetMany does, with one script
// call per shard that holds some of the ids, all at once. An invalid id fails the whole call
// before anything is sent.
func (s *ShardedBoard[E, I, R, W, X]) GetMany(ctx context.Context, ids ...I) ([]X, error) {
	for _, id := range ids {
		if err := s.dec.CheckID(id); err != nil {
			return nil, err
		}
	}
	return Gather(ctx, s.shards, ids, IDText[I], func(b *Board[E, I, R, W, X], ctx context.Context, ids []I) ([]X, error) {
		return b.GetMany(ctx, ids...)
	})
}

// RankMany returns the 1-based rank of each id in the order given, 0 for an id without an
// entry, in two rounds: the entries (GetMany), then one pipelined round in which every shard
// counts the entries ahead of each of them (ids × shards after-script calls).
func (s *ShardedBoard[E, I, R, W, X]) RankMany(ctx context.Context, ids ...I) ([]int64, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) ([]int64, error) {
		found, err := s.GetMany(ctx, ids...)
		if err != nil {
			return nil, err
		}
		return s.ranksOf(ctx, found)
	})
}

// RankedMany returns the entry and 1-based rank of each id that has an entry, best first, as
// Board.RankedMany does, in RankMany's two rounds.
func (s *ShardedBoard[E, I, R, W, X]) RankedMany(ctx context.Context, ids ...I) ([]R, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) ([]R, error) {
		ids = Distinct(ids)
		found, err := s.GetMany(ctx, ids...)
		if err != nil {
			return nil, err
		}
		ranks, err := s.ranksOf(ctx, found)
		if err != nil {
			return nil, err
		}
		entries := make([]E, len(found))
		for i, r := range found {
			entries[i], _ = s.dec.ResultOf(r) // an id without an entry has rank 0 and is left out
		}
		return s.dec.rankedInOrder(ranks, entries), nil
	})
}

// ranksOf is the 1-based rank of each of GetMany's results, 0 for one without an entry: every
// shard counts the entries ahead of each entry, in one pipelined round (entries × shards
// after-script calls).
func (s *ShardedBoard[E, I, R, W, X]) ranksOf(ctx context.Context, found []X) ([]int64, error) {
	pipe := NewPipe(s.c)
	calls := make([][]*redis.Cmd, len(found))
	for i, r := range found {
		e, err := s.dec.ResultOf(r)
		if err != nil {
			continue // no entry: rank 0
		}
		cur, err := s.dec.CursorOf(e)
		if err != nil {
			return nil, err
		}
		calls[i] = s.queueAfter(ctx, pipe, cur, 0)
	}
	pipe.Exec(ctx)
	ranks := make([]int64, len(found))
	for i, cmds := range calls {
		for _, cmd := range cmds {
			v, err := cmd.Result()
			if err != nil {
				return nil, err
			}
			start, _, err := s.dec.window(v)
			if err != nil {
				return nil, err
			}
			ranks[i] += start // the entry's own shard counts it: the sum is 1-based
		}
	}
	return ranks, nil
}

// Bottom returns the last n entries, best first (the board's last entry last).
func (s *ShardedBoard[E, I, R, W, X]) Bottom(ctx context.Context, n int64) ([]R, error) {
	return s.PageFromEnd(ctx, 0, n)
}

// PageFromEnd returns up to limit entries that end offset entries before the end of the board,
// best first, with their ranks, as Board.PageFromEnd does. Every shard reads its last offset +
// limit entries and its size in one pipelined round; the board's last offset + limit entries
// are the last of their merge by Compare. The cost grows with offset, as Page's does.
func (s *ShardedBoard[E, I, R, W, X]) PageFromEnd(ctx context.Context, offset, limit int64) ([]R, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) ([]R, error) {
		n, err := pageDepth(offset, limit)
		if n == 0 || err != nil {
			return nil, err
		}
		tails, count, err := s.tails(ctx, n)
		if err != nil {
			return nil, err
		}
		merged := MergeSorted(tails, -1, s.dec.CompareRanked)
		from := int64(len(merged)) - min(n, int64(len(merged)))
		to := max(from, int64(len(merged))-offset)
		return s.dec.Renumber(merged[from:to], count-int64(len(merged))+from), nil
	})
}

// tails reads the last n entries of every shard, best first, and adds up the shards' sizes, in
// one pipelined round. On a board with data, every shard's bottom script reads them with their
// data: a shard's reply starts at its size less the entries it read, so the two add up to its
// size.
func (s *ShardedBoard[E, I, R, W, X]) tails(ctx context.Context, n int64) (lists [][]R, count int64, err error) {
	if s.dec.hasData() {
		starts, lists, err := s.scriptWindows(ctx, s.shards[0].fn.bottom, func(int) []any {
			return []any{0, n}
		})
		if err != nil {
			return nil, 0, err
		}
		for i, start := range starts {
			count += start + int64(len(lists[i]))
		}
		return lists, count, nil
	}
	sizes := make([]*redis.IntCmd, len(s.shards))
	cmds, err := s.readAll(ctx, func(c redis.Cmdable, i int, key string) redis.Cmder {
		sizes[i] = c.ZCard(ctx, key)
		return c.ZRevRangeWithScores(ctx, key, -n, -1)
	})
	if err != nil {
		return nil, 0, err
	}
	lists = make([][]R, len(cmds))
	for i, cmd := range cmds {
		size, err := sizes[i].Result()
		if err != nil {
			return nil, 0, err
		}
		count += size
		zs, err := cmd.(*redis.ZSliceCmd).Result()
		if err != nil {
			return nil, 0, err
		}
		if lists[i], err = s.dec.RankedAt(0, ZPairs(zs)); err != nil {
			return nil, 0, err
		}
	}
	return lists, count, nil
}

// Percentile returns the share of the board's entries that rank behind the entry of id, in
// percent, as Board.Percentile does, or an error matching ErrNotFound. Its position and the
// board's size are read in the same pipelined round.
func (s *ShardedBoard[E, I, R, W, X]) Percentile(ctx context.Context, id I) (float64, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) (float64, error) {
		pos, count, err := s.standing(ctx, id, true)
		if err != nil {
			return 0, err
		}
		return 100 * float64(count-1-pos) / float64(count), nil
	})
}

// PageOf returns the 1-based page of pageSize entries that holds the entry of id (Page(ctx,
// (page-1)*pageSize, pageSize) returns it), or an error matching ErrNotFound; a pageSize below 1
// is an error matching ErrOutOfRange.
func (s *ShardedBoard[E, I, R, W, X]) PageOf(ctx context.Context, id I, pageSize int64) (int64, error) {
	return shardedRoute(s, func(s *ShardedBoard[E, I, R, W, X]) (int64, error) {
		if pageSize < 1 {
			return 0, IntRangeError("pageSize", pageSize, 1, math.MaxInt64)
		}
		pos, _, err := s.standing(ctx, id, false)
		if err != nil {
			return 0, err
		}
		return pos/pageSize + 1, nil
	})
}

// standing reads the 0-based position of the entry of id among all shards and, when sized, the
// number of entries: the entry from its shard, then every shard's count of the entries ahead of
// it, and its size, in one pipelined round (ahead).
func (s *ShardedBoard[E, I, R, W, X]) standing(ctx context.Context, id I, sized bool) (pos, count int64, err error) {
	e, err := s.shard(id).Get(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	cur, err := s.dec.CursorOf(e)
	if err != nil {
		return 0, 0, err
	}
	ahead, count, err := s.ahead(ctx, cur, sized)
	if err != nil {
		return 0, 0, err
	}
	return Sum(ahead), count, nil
}

// shard returns the shard that holds id.
func (s *ShardedBoard[E, I, R, W, X]) shard(id I) *Board[E, I, R, W, X] {
	return s.shards[ShardOf(IDText(id), len(s.shards))]
}

// batch gives a batch write's context its one write token (the caller's idempotency key, if
// any): every shard's script of the batch runs under it, so that resending the batch under it
// applies each part once.
func (s *ShardedBoard[E, I, R, W, X]) batch(ctx context.Context) (context.Context, error) {
	token, err := s.tokens.Next(ctx)
	if err != nil {
		return ctx, err
	}
	return WithIdempotencyKey(ctx, token), nil
}

// GatherBatch sends a batch write's items to their shards (sb's, in order, as the generated
// package's Boards: shards) under the batch's one token, so that resending the batch under it
// applies each shard's part once, and returns call's results in the order of items (Gather).
func GatherBatch[S, T, Y, E any, I ID, R, W, X any](ctx context.Context, sb *ShardedBoard[E, I, R, W, X], shards []S, items []T, idOf func(T) string, call func(S, context.Context, []T) ([]Y, error)) ([]Y, error) {
	ctx, err := sb.batch(ctx)
	if err != nil {
		return nil, err
	}
	return Gather(ctx, shards, items, idOf, call)
}

// expired is, for the board of a season, an error matching ErrSeasonExpired once its expiry has
// passed (Core.Expired): the first check of a read that pipelines the shards' commands itself,
// as each shard's own reads refuse it.
func (s *ShardedBoard[E, I, R, W, X]) expired() error { return s.shards[0].core.Expired() }

// readAll sends one read command to every shard, which cmd queues on a pipeline for the shard's
// sorted set key, in one round trip per node (the nodes at once), and returns the commands in
// shard order. As Board's reads do, a shard not yet seen to record the layout's fingerprint has
// it read in the same pipeline: another layout's board is an error matching ErrLayoutMismatch.
func (s *ShardedBoard[E, I, R, W, X]) readAll(ctx context.Context, cmd func(redis.Cmdable, int, string) redis.Cmder) ([]redis.Cmder, error) {
	if err := s.expired(); err != nil {
		return nil, err
	}
	pipe := s.c.Pipeline()
	fps := make([]*Fingerprints, len(s.shards))
	cmds := make([]redis.Cmder, len(s.shards))
	for i, b := range s.shards {
		fps[i] = b.core.QueueFingerprint(ctx, pipe)
		cmds[i] = cmd(pipe, i, b.core.Key())
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own reply and error
	for i, b := range s.shards {
		TypeError(cmds[i])
		if err := b.core.CheckFingerprint(fps[i]); err != nil {
			return nil, err
		}
	}
	return cmds, nil
}

// heads reads enough of every shard's first entries that the first n of their merge are the
// board's first n (every entry when n is math.MaxInt64): its share of n and a margin, and on the
// rare shard that may hold more of them, up to n in a second round (Heads).
func (s *ShardedBoard[E, I, R, W, X]) heads(ctx context.Context, n int64) ([][]R, error) {
	return Heads(len(s.shards), n, s.dec.CompareRanked, func(bounds func(int) (int64, int64)) ([][]R, error) {
		return s.ranges(ctx, bounds)
	})
}

// ranges reads, from every shard i, its entries at the 0-based positions bounds(i) (a stop of
// -1 reads to the end), best first, in one pipelined round; on a board with data, with their
// data: every shard's page script.
func (s *ShardedBoard[E, I, R, W, X]) ranges(ctx context.Context, bounds func(int) (int64, int64)) ([][]R, error) {
	if !s.dec.hasData() {
		return s.plainRanges(ctx, bounds)
	}
	_, lists, err := s.scriptWindows(ctx, s.shards[0].fn.page, func(i int) []any {
		start, stop := bounds(i)
		limit := stop - start + 1
		if stop < 0 {
			limit = math.MaxInt64 // to the end
		}
		return []any{start, limit}
	})
	return lists, err
}

// plainRanges reads, from every shard i, its entries at the 0-based positions bounds(i), best
// first, with one ZREVRANGE each (without their data, on a board with data: Trim only compares
// them), in one pipelined round.
func (s *ShardedBoard[E, I, R, W, X]) plainRanges(ctx context.Context, bounds func(int) (int64, int64)) ([][]R, error) {
	cmds, err := s.readAll(ctx, func(c redis.Cmdable, i int, key string) redis.Cmder {
		start, stop := bounds(i)
		return c.ZRevRangeWithScores(ctx, key, start, stop)
	})
	if err != nil {
		return nil, err
	}
	lists := make([][]R, len(cmds))
	for i, cmd := range cmds {
		zs, err := cmd.(*redis.ZSliceCmd).Result()
		if err != nil {
			return nil, err
		}
		if lists[i], err = s.dec.RankedAt(0, ZPairs(zs)); err != nil {
			return nil, err
		}
	}
	return lists, nil
}

// scriptWindows runs script, which answers a window of entries ({a count, entries}, with their
// data on a board with data), on every shard i with args(i), in one pipelined round, and returns
// each shard's count and entries.
func (s *ShardedBoard[E, I, R, W, X]) scriptWindows(ctx context.Context, script *Function, args func(int) []any) (counts []int64, parts [][]R, err error) {
	if err := s.expired(); err != nil {
		return nil, nil, err
	}
	pipe := NewPipe(s.c)
	cmds := make([]*redis.Cmd, len(s.shards))
	for i, b := range s.shards {
		cmds[i] = pipe.CallRO(ctx, script, b.core.ScriptKeys(), args(i)...)
	}
	pipe.Exec(ctx)
	counts, parts = make([]int64, len(s.shards)), make([][]R, len(s.shards))
	for i, cmd := range cmds {
		v, err := cmd.Result()
		if err != nil {
			return nil, nil, err
		}
		n, ps, err := s.dec.window(v)
		if err != nil {
			return nil, nil, err
		}
		counts[i] = n
		if parts[i], err = s.dec.RankedAt(0, ps); err != nil {
			return nil, nil, err
		}
	}
	return counts, parts, nil
}

// ShardWindows runs script, a read function of sb's library that answers a window ({a count,
// entries}, with their data on a layout with data), on every shard of sb with args, in one
// pipelined round, and returns each shard's count and entries (a generated ShardedBoard's band
// reads merge them).
func ShardWindows[E any, I ID, R, W, X any](ctx context.Context, sb *ShardedBoard[E, I, R, W, X], script *Function, args ...any) (counts []int64, parts [][]R, err error) {
	return sb.scriptWindows(ctx, script, func(int) []any { return args })
}

// ShardPlace runs script, sb's around_score function, on every shard at the place (score,
// member) with before and after, in one pipelined round, and returns the place's 0-based
// position among all shards, the merged entries the shards read, and how many of them, a
// prefix, rank ahead of the place: greater scores, and equal scores with greater members
// (Redis's order of equal scores: their bytes; the member "" is the place before every entry of
// its score).
func ShardPlace[E any, I ID, R, W, X any](ctx context.Context, sb *ShardedBoard[E, I, R, W, X], script *Function, score float64, member string, before, after int64) (pos int64, ahead int, merged []R, err error) {
	starts, parts, err := ShardWindows(ctx, sb, script, FormatScore(score), member, before, after)
	if err != nil {
		return 0, 0, nil, err
	}
	pos = Sum(starts)
	for _, part := range parts {
		for _, r := range part {
			cur, err := sb.dec.CursorOf(sb.dec.EntryOf(r))
			if err != nil {
				return 0, 0, nil, err
			}
			if cur.Score > score || cur.Score == score && cur.Member > member {
				pos++ // a shard's start is its position of the place less the entries it read ahead of it
				ahead++
			}
		}
	}
	return pos, ahead, MergeSorted(parts, -1, sb.dec.CompareRanked), nil
}

// queueAfter queues on pipe the after script of every shard from cur with limit: each call
// answers how many of its shard's entries rank at or before cur, and up to limit entries after
// it.
func (s *ShardedBoard[E, I, R, W, X]) queueAfter(ctx context.Context, pipe *Pipe, cur Cursor, limit int64) []*redis.Cmd {
	cmds := make([]*redis.Cmd, len(s.shards))
	for i, b := range s.shards {
		cmds[i] = pipe.CallRO(ctx, b.fn.after, b.core.ScriptKeys(), FormatScore(cur.Score), cur.Member, limit)
	}
	return cmds
}

// afterAll runs the after script of every shard from cur, in one pipelined round: per shard,
// how many of its entries rank at or before cur, and up to limit entries after it.
func (s *ShardedBoard[E, I, R, W, X]) afterAll(ctx context.Context, cur Cursor, limit int64) (starts []int64, pages [][]R, err error) {
	if err := s.expired(); err != nil {
		return nil, nil, err
	}
	pipe := NewPipe(s.c)
	windows := s.queueAfter(ctx, pipe, cur, limit)
	pipe.Exec(ctx)
	starts, pages = make([]int64, len(s.shards)), make([][]R, len(s.shards))
	for i, w := range windows {
		v, err := w.Result()
		if err != nil {
			return nil, nil, err
		}
		start, ps, err := s.dec.window(v)
		if err != nil {
			return nil, nil, err
		}
		starts[i] = start
		if pages[i], err = s.dec.RankedAt(0, ps); err != nil {
			return nil, nil, err
		}
	}
	return starts, pages, nil
}

// ahead counts, on every shard, the entries that rank ahead of cur — greater scores (ZCOUNT),
// and equal scores with greater members (the run of equal scores, best first) — and, when
// sized, adds up the shards' sizes (ZCARD), in one pipelined round; only a run of more than
// TieBand equal scores ahead takes more.
func (s *ShardedBoard[E, I, R, W, X]) ahead(ctx context.Context, cur Cursor, sized bool) (counts []int64, total int64, err error) {
	score := FormatScore(cur.Score)
	greater, sizes := make([]*redis.IntCmd, len(s.shards)), make([]*redis.IntCmd, len(s.shards))
	runs, err := s.readAll(ctx, func(c redis.Cmdable, i int, key string) redis.Cmder {
		greater[i] = c.ZCount(ctx, key, "("+score, "+inf")
		if sized {
			sizes[i] = c.ZCard(ctx, key)
		}
		return TieRun(ctx, c, key, score, 0)
	})
	if err != nil {
		return nil, 0, err
	}
	counts = make([]int64, len(s.shards))
	for i, run := range runs {
		band, err := run.(*redis.StringSliceCmd).Result()
		if err != nil {
			return nil, 0, err
		}
		n, err := greater[i].Result()
		if err != nil {
			return nil, 0, err
		}
		ties, err := TiesAhead(ctx, s.c, s.shards[i].core.Key(), score, cur.Member, band)
		if err != nil {
			return nil, 0, err
		}
		counts[i] = n + ties
		if sized {
			size, err := sizes[i].Result()
			if err != nil {
				return nil, 0, err
			}
			total += size
		}
	}
	return counts, total, nil
}

// ReshardShards copies every entry of src into dst, a generated ShardedBoard's Reshard: shard by
// shard, in keyset pages (Board.After) of pageSize entries, each stored in dst with one SetMany
// (Reshard).
func ReshardShards[E any, I ID, R, W, X any](ctx context.Context, src, dst *ShardedBoard[E, I, R, W, X], from ReshardProgress[Cursor], pageSize int64, progress func(ReshardProgress[Cursor])) (ReshardProgress[Cursor], error) {
	return Reshard(ctx, len(src.shards), from, pageSize, src.entriesAfter, func(ctx context.Context, entries []E) error {
		_, err := dst.SetMany(ctx, entries)
		return err
	}, progress, src.Count, dst.Count)
}

// entriesAfter reads shard i's entries after cur, up to n, and the cursor of the last
// (Board.After).
func (s *ShardedBoard[E, I, R, W, X]) entriesAfter(ctx context.Context, i int, cur Cursor, n int64) ([]E, Cursor, error) {
	page, next, err := s.shards[i].After(ctx, cur, n)
	entries := make([]E, len(page))
	for j, r := range page {
		entries[j] = s.dec.EntryOf(r)
	}
	return entries, next, err
}

// pageDepth is how many entries a read of limit entries from position offset takes from each
// shard's end: offset + limit (to the board's end where the sum overflows), 0 for a limit of 0
// or less; a negative offset is an error matching ErrOutOfRange.
func pageDepth(offset, limit int64) (int64, error) {
	if offset < 0 {
		return 0, IntRangeError("offset", offset, 0, math.MaxInt64)
	}
	if limit <= 0 {
		return 0, nil
	}
	if n := offset + limit; n >= offset {
		return n, nil
	}
	return math.MaxInt64, nil // offset + limit overflows: to the board's end
}
