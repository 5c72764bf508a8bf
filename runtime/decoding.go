package runtime

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// ID is the type of a board's ids: text, or an unsigned integer (its decimal text on the board).
type ID interface{ string | uint64 }

// Decoding is what a board's reads and writes need of its generated package: how an entry is
// decoded, and how the package's result types are made of one. The package's Ranked, Written
// and Result embed its Entry, so that a result reads as an entry does (r.Laps); a type
// parameter cannot be embedded, so the package gives their constructors. With it, what is the
// same on every layout (its methods) lives here once, and a generated method calls one of them.
type Decoding[E any, I ID, R, W, X any] struct {
	Decode     func(score float64, member string) (E, error) // the package's Decode
	DecodeData func(e *E, data string) error                 // reads an entry's data into it; nil on a layout without data
	ScoreOfP   func(p uint64) float64                        // the score of a mixed-radix integer, as Encode computes it

	NewRanked  func(rank int64, e E) R                    // the package's Ranked
	NewWritten func(e, before E, existed, changed bool) W // the package's Written
	NewResult  func(w W, err error) X                     // the package's Result

	// EntryArgs appends what the set, best and insert functions take of e: its score and member, and
	// its data on a layout with data. It refuses e (before anything is sent) where the layout
	// cannot store it, as Encode does, or where season, the board's season (nil: none), cannot
	// hold a season-anchored field of e.
	EntryArgs func(season *Season, e E, args []any) ([]any, error)

	IDName     string // the id's field, as errors name it
	IDMaxBytes int    // the longest text id an entry can have (text ids only)

	// What a ShardedBoard needs beside (nil on a layout without sharded: true): how it routes
	// an entry to its shard and merges the shards' entries.
	IDOf     func(e E) I                                       // the entry's id
	Encode   func(e E) (score float64, member string, _ error) // the package's Entry.Encode
	Compare  func(a, b E) int                                  // the package's Compare: the board's order
	EntryOf  func(r R) E                                       // the entry a Ranked holds
	ResultOf func(x X) (E, error)                              // the entry a Result holds, or its Err
	// WrittenOf: what a Result holds, for First (a layout with field updates or Touch).
	WrittenOf func(x X) (W, error)
	// TiedPlace: the place before every entry equal to e on its first tied score fields
	// (ShardedScoreReads' competition ranks).
	TiedPlace func(e E, tied int) (float64, string, error)
}

// CursorOf is the cursor of e: its stored score and member.
func (d *Decoding[E, I, R, W, X]) CursorOf(e E) (Cursor, error) {
	score, member, err := d.Encode(e)
	return Cursor{Score: score, Member: member}, err
}

// CompareRanked orders ranked entries as the board does.
func (d *Decoding[E, I, R, W, X]) CompareRanked(a, b R) int {
	return d.Compare(d.EntryOf(a), d.EntryOf(b))
}

// Renumber gives merged entries their ranks: start is the 0-based position of the first.
func (d *Decoding[E, I, R, W, X]) Renumber(rs []R, start int64) []R {
	for i := range rs {
		rs[i] = d.NewRanked(start+int64(i)+1, d.EntryOf(rs[i]))
	}
	return rs
}

// decode decodes an entry as the board's reads return it, its data included.
func (d *Decoding[E, I, R, W, X]) decode(p Pair) (E, error) {
	e, err := d.Decode(p.Score, p.Member)
	if err == nil && d.DecodeData != nil {
		err = d.DecodeData(&e, p.Data)
	}
	return e, err
}

// hasData says whether the board's replies carry each entry's data.
func (d *Decoding[E, I, R, W, X]) hasData() bool { return d.DecodeData != nil }

// window reads a reply that is a window of entries: the 0-based position of the first, then
// the entries (with their data on a layout with data).
func (d *Decoding[E, I, R, W, X]) window(v any) (int64, []Pair, error) {
	if d.hasData() {
		return WindowData(v)
	}
	return Window(v)
}

// CheckID refuses an id no entry can have: a text id that is empty or longer than the layout
// allows (*RangeError). Every integer is an id.
func (d *Decoding[E, I, R, W, X]) CheckID(id I) error {
	s, ok := any(id).(string)
	if !ok {
		return nil
	}
	if n := len(s); n == 0 || n > d.IDMaxBytes {
		return IDLengthError(d.IDName, n, d.IDMaxBytes)
	}
	return nil
}

// IDText is an id as the board's members and errors write it.
func IDText[I ID](id I) string {
	if n, ok := any(id).(uint64); ok {
		return strconv.FormatUint(n, 10)
	}
	return any(id).(string)
}

// RankedAt decodes the entries of a range reply, best first; start is the 0-based position of
// the first.
func (d *Decoding[E, I, R, W, X]) RankedAt(start int64, ps []Pair) ([]R, error) {
	out := make([]R, len(ps))
	for i, p := range ps {
		e, err := d.decode(p)
		if err != nil {
			return nil, err
		}
		out[i] = d.NewRanked(start+int64(i)+1, e)
	}
	return out, nil
}

// Window decodes v, a read function's reply that is a window of entries (the 0-based position
// of the first, then the entries), or returns err, the call's error.
func (d *Decoding[E, I, R, W, X]) Window(v any, err error) ([]R, error) {
	if err != nil {
		return nil, err
	}
	start, ps, err := d.window(v)
	if err != nil {
		return nil, err
	}
	return d.RankedAt(start, ps)
}

// Around calls f, a board's around function, for the entry of id with up to before entries
// ahead of it and after behind it; fill keeps the window whole at the board's ends (what one
// end cuts is taken from the other). An id without an entry is an error matching ErrNotFound.
func (d *Decoding[E, I, R, W, X]) Around(ctx context.Context, c *Core, f *Function, id I, before, after int64, fill bool) ([]R, error) {
	if err := d.CheckID(id); err != nil {
		return nil, err
	}
	fillArg := "0"
	if fill {
		fillArg = "1"
	}
	v, err := c.CallRO(ctx, f, id, max(before, 0), max(after, 0), fillArg)
	if errors.Is(err, redis.Nil) {
		return nil, NotFound(IDText(id))
	}
	return d.Window(v, err)
}

// After calls f, a board's after function, for up to limit entries that rank after cur, and
// returns them with the cursor of the last (cur itself when there are none). A cursor whose
// score is NaN marks no place: it is refused (ErrBadScore) before anything is sent.
func (d *Decoding[E, I, R, W, X]) After(ctx context.Context, c *Core, f *Function, cur Cursor, limit int64) ([]R, Cursor, error) {
	if math.IsNaN(cur.Score) {
		return nil, cur, BadScore(cur.Score, "a cursor's score is a number, never NaN")
	}
	v, err := c.CallRO(ctx, f, FormatScore(cur.Score), cur.Member, limit)
	if err != nil {
		return nil, cur, err
	}
	start, ps, err := d.window(v)
	if err != nil {
		return nil, cur, err
	}
	page, err := d.RankedAt(start, ps)
	if err != nil || len(ps) == 0 {
		return page, cur, err
	}
	last := ps[len(ps)-1]
	return page, Cursor{Score: last.Score, Member: last.Member}, nil
}

// PageAt calls f, a read function that answers limit entries at offset with a window (a
// board's bottom, or page on a layout with data): none for a limit of 0 or less, and a
// negative offset an error matching ErrOutOfRange.
func (d *Decoding[E, I, R, W, X]) PageAt(ctx context.Context, c *Core, f *Function, offset, limit int64) ([]R, error) {
	if offset < 0 {
		return nil, IntRangeError("offset", offset, 0, math.MaxInt64)
	}
	if limit <= 0 {
		return nil, nil
	}
	return d.Window(c.CallRO(ctx, f, offset, limit))
}

// Percentile calls f, a board's standing function, for the share of the board's entries that
// rank behind the entry of id, in percent (0 for the last, 100·(n−1)/n for the first of n).
func (d *Decoding[E, I, R, W, X]) Percentile(ctx context.Context, c *Core, f *Function, id I) (float64, error) {
	pos, count, err := d.standing(ctx, c, f, id)
	if err != nil {
		return 0, err
	}
	return 100 * float64(count-1-pos) / float64(count), nil
}

// PageOf calls f, a board's standing function, for the 1-based page of pageSize entries that
// holds the entry of id; a pageSize below 1 is an error matching ErrOutOfRange.
func (d *Decoding[E, I, R, W, X]) PageOf(ctx context.Context, c *Core, f *Function, id I, pageSize int64) (int64, error) {
	if pageSize < 1 {
		return 0, IntRangeError("pageSize", pageSize, 1, math.MaxInt64)
	}
	pos, _, err := d.standing(ctx, c, f, id)
	if err != nil {
		return 0, err
	}
	return pos/pageSize + 1, nil
}

// standing reads the 0-based position of the entry of id and the number of entries, in one
// call of f.
func (d *Decoding[E, I, R, W, X]) standing(ctx context.Context, c *Core, f *Function, id I) (pos, count int64, err error) {
	if err := d.CheckID(id); err != nil {
		return 0, 0, err
	}
	v, err := c.CallRO(ctx, f, id)
	if errors.Is(err, redis.Nil) {
		return 0, 0, NotFound(IDText(id))
	}
	return Standing(v, err)
}

// idArgs checks every id and returns them as a function's arguments; the first invalid id
// refuses the call before anything is sent.
func (d *Decoding[E, I, R, W, X]) idArgs(ids []I) ([]any, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		if err := d.CheckID(id); err != nil {
			return nil, err
		}
		args[i] = id
	}
	return args, nil
}

// callIDs calls f, a read of many ids, with ids as its arguments; an invalid id fails the call
// before anything is sent.
func (d *Decoding[E, I, R, W, X]) callIDs(ctx context.Context, c *Core, f *Function, ids []I) (any, error) {
	args, err := d.idArgs(ids)
	if err != nil {
		return nil, err
	}
	return c.CallRO(ctx, f, args...)
}

// readEntries reads get_many's reply for n ids: Entries, or EntriesData on a board with data.
func (d *Decoding[E, I, R, W, X]) readEntries(v any, n int) ([]Pair, []bool, error) {
	if d.hasData() {
		return EntriesData(v, n)
	}
	return Entries(v, n)
}

// rankedEntries reads ranked_many's reply for n ids, the entries as readEntries does.
func (d *Decoding[E, I, R, W, X]) rankedEntries(v any, n int) ([]int64, []Pair, []bool, error) {
	return rankedEntries(v, n, d.readEntries)
}

// GetMany calls f, a board's get_many function, for a Result per id in the order given: the
// entry, or one whose error matches ErrNotFound.
func (d *Decoding[E, I, R, W, X]) GetMany(ctx context.Context, c *Core, f *Function, ids []I) ([]X, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	v, err := d.callIDs(ctx, c, f, ids)
	if err != nil {
		return nil, err
	}
	ps, found, err := d.readEntries(v, len(ids))
	if err != nil {
		return nil, err
	}
	out := make([]X, len(ids))
	for i, p := range ps {
		if !found[i] {
			var none W
			out[i] = d.NewResult(none, NotFound(IDText(ids[i])))
			continue
		}
		e, err := d.decode(p)
		if err != nil {
			return nil, err
		}
		var zero E
		out[i] = d.NewResult(d.NewWritten(e, zero, false, false), nil)
	}
	return out, nil
}

// RankMany calls f, a board's rank_many function, for the 1-based rank of each id in the order
// given, 0 for an id without an entry.
func (d *Decoding[E, I, R, W, X]) RankMany(ctx context.Context, c *Core, f *Function, ids []I) ([]int64, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	v, err := d.callIDs(ctx, c, f, ids)
	if err != nil {
		return nil, err
	}
	rs, err := Positions(v, len(ids))
	if err != nil {
		return nil, err
	}
	for i := range rs {
		rs[i]++ // 0-based to 1-based; a missing id's -1 becomes 0
	}
	return rs, nil
}

// RankedMany calls f, a board's ranked_many function, for the entry and 1-based rank of each
// id that has an entry, best first: an id without one is left out, an id given twice comes
// once.
func (d *Decoding[E, I, R, W, X]) RankedMany(ctx context.Context, c *Core, f *Function, ids []I) ([]R, error) {
	ids = Distinct(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	v, err := d.callIDs(ctx, c, f, ids)
	if err != nil {
		return nil, err
	}
	positions, ps, found, err := d.rankedEntries(v, len(ids))
	if err != nil {
		return nil, err
	}
	ranks := make([]int64, len(ids))
	entries := make([]E, len(ids))
	for i, p := range ps {
		if !found[i] {
			continue
		}
		if positions[i] < 0 {
			return nil, badReply("ranked_many", "a position for every id it found", v)
		}
		if entries[i], err = d.decode(p); err != nil {
			return nil, err
		}
		ranks[i] = positions[i] + 1
	}
	return d.rankedInOrder(ranks, entries), nil
}

// rankedInOrder is the entries whose rank is not 0, each with its rank, best first.
func (d *Decoding[E, I, R, W, X]) rankedInOrder(ranks []int64, entries []E) []R {
	order := make([]int, 0, len(ranks))
	for i, r := range ranks {
		if r > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(ranks[a], ranks[b]) })
	out := make([]R, len(order))
	for k, i := range order {
		out[k] = d.NewRanked(ranks[i], entries[i])
	}
	return out
}

// Distinct is ids without repeats, in the order each first comes.
func Distinct[I comparable](ids []I) []I {
	seen := make(map[I]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Cursor marks a place in a board for its After read: the score and member of the last entry
// seen. The zero Cursor is the top of the board.
type Cursor struct {
	Score  float64
	Member string
}

// Page reads limit entries from the 0-based position offset of the board, best first, with
// one ZREVRANGE (Read: the fingerprint checked in the same round trip): none for a limit of 0
// or less, a negative offset an error matching ErrOutOfRange.
func (d *Decoding[E, I, R, W, X]) Page(ctx context.Context, c *Core, offset, limit int64) ([]R, error) {
	if offset < 0 {
		return nil, IntRangeError("offset", offset, 0, math.MaxInt64)
	}
	if limit <= 0 {
		return nil, nil
	}
	stop := offset + limit - 1
	if stop < offset {
		stop = -1 // offset + limit overflows: to the end
	}
	zs, err := Read(ctx, c, func(r redis.Cmdable) *redis.ZSliceCmd {
		return r.ZRevRangeWithScores(ctx, c.Key(), offset, stop)
	})
	if err != nil {
		return nil, err
	}
	return d.RankedAt(offset, ZPairs(zs))
}

// Written is what a write of whole entries (set, best, insert) did to each of entries, from its
// function's reply: the entry its id held before (decoded as reads decode it), and after it
// the entry given when the write stored it, else the one before. A stored entry this layout
// cannot have written, which set replaces (best and insert refuse it in their function), leaves before the
// zero entry.
func (d *Decoding[E, I, R, W, X]) Written(ps []Prior, entries []E) []W {
	out := make([]W, len(ps))
	for i, p := range ps {
		var before E
		if p.Found {
			if e, err := d.decode(p.Pair); err == nil {
				before = e
			}
		}
		after := entries[i]
		if p.Found && !p.Changed {
			after = before
		}
		out[i] = d.NewWritten(after, before, p.Found, p.Changed)
	}
	return out
}

// Updated is what a field update or change list did to one entry, from its function's reply
// item: the new entry (member: its member) and the one before (prior: its member). Field
// updates neither read nor change data: both hold the zero data.
func (d *Decoding[E, I, R, W, X]) Updated(it Item, member, prior string) (W, error) {
	return d.updated(it, member, prior, nil)
}

// updated is Updated, with what the new entry takes of its change list (entry, or nil).
func (d *Decoding[E, I, R, W, X]) updated(it Item, member, prior string, entry func(*E)) (W, error) {
	var w W
	e, err := d.Decode(d.ScoreOfP(it.P), member)
	if err != nil {
		return w, err
	}
	if entry != nil {
		entry(&e)
	}
	var before E
	if it.Existed {
		if before, err = d.Decode(d.ScoreOfP(it.PriorP), prior); err != nil {
			return w, err
		}
	}
	return d.NewWritten(e, before, it.Existed, it.Changed()), nil
}

// Get reads the entry of id on a layout whose member is the bare id (no member prefix, no
// data): one ZSCORE (Read: the fingerprint checked in the same round trip), or an error
// matching ErrNotFound.
func (d *Decoding[E, I, R, W, X]) Get(ctx context.Context, c *Core, id I) (E, error) {
	var zero E
	if err := d.CheckID(id); err != nil {
		return zero, err
	}
	member := IDText(id)
	score, err := Read(ctx, c, func(r redis.Cmdable) *redis.FloatCmd { return r.ZScore(ctx, c.Key(), member) })
	if errors.Is(err, redis.Nil) {
		return zero, NotFound(member)
	}
	if err != nil {
		return zero, err
	}
	return d.Decode(score, member)
}

// GetScripted reads the entry of id with f, the layout's get function (which finds the member
// through the index, or reads the entry's data with it), or an error matching ErrNotFound.
func (d *Decoding[E, I, R, W, X]) GetScripted(ctx context.Context, c *Core, f *Function, id I) (E, error) {
	var zero E
	if err := d.CheckID(id); err != nil {
		return zero, err
	}
	v, err := c.CallRO(ctx, f, id)
	if errors.Is(err, redis.Nil) {
		return zero, NotFound(IDText(id))
	}
	if err != nil {
		return zero, err
	}
	var p Pair
	if d.hasData() {
		p, err = ScoreMemberData(v)
	} else {
		p.Score, p.Member, err = ScoreMember(v)
	}
	if err != nil {
		return zero, err
	}
	return d.decode(p)
}

// RankScripted reads the 1-based position of the entry of id with f, the layout's rank
// function (which finds the member through the index), or an error matching ErrNotFound.
func (d *Decoding[E, I, R, W, X]) RankScripted(ctx context.Context, c *Core, f *Function, id I) (int64, error) {
	pos, err := d.Position(ctx, c, f, id) // 0-based
	if err != nil {
		return 0, err
	}
	return pos + 1, nil
}

// Rank reads the 1-based position of the entry of id on a layout whose member is the bare id:
// one ZREVRANK (Read), or an error matching ErrNotFound.
func (d *Decoding[E, I, R, W, X]) Rank(ctx context.Context, c *Core, id I) (int64, error) {
	if err := d.CheckID(id); err != nil {
		return 0, err
	}
	member := IDText(id)
	r, err := Read(ctx, c, func(rc redis.Cmdable) *redis.IntCmd { return rc.ZRevRank(ctx, c.Key(), member) })
	if errors.Is(err, redis.Nil) {
		return 0, NotFound(member)
	}
	if err != nil {
		return 0, err
	}
	return r + 1, nil
}

// Remove calls f, a board's remove function, for the entries of ids, and returns how many there
// were; an invalid id refuses the call before anything is sent.
func (d *Decoding[E, I, R, W, X]) Remove(ctx context.Context, c *Core, f *Function, ids []I) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	args := c.WriteArgs(len(ids))
	for _, id := range ids {
		if err := d.CheckID(id); err != nil {
			return 0, err
		}
		args = append(args, id)
	}
	return Int(c.Write(ctx, f, args))
}

// One is the single result of a batch of one (the single form of a batch write), or the call's
// error.
func One[W any](ws []W, err error) (W, error) {
	if err != nil {
		var zero W
		return zero, err
	}
	return ws[0], nil
}

// Between calls f, a board's band function, for up to limit entries of band (whose mixed-radix
// integer P lies in [lo, hi)), best first with their ranks, skipping offset of them: none for an empty
// band or a limit of 0 or less, and a negative offset an error matching ErrOutOfRange.
func (d *Decoding[E, I, R, W, X]) Between(ctx context.Context, c *Core, f *Function, band Band[E], offset, limit int64) ([]R, error) {
	if band.err != nil {
		return nil, band.err
	}
	lo, hi := band.lo, band.hi
	if offset < 0 {
		return nil, IntRangeError("offset", offset, 0, math.MaxInt64)
	}
	if lo >= hi || limit <= 0 {
		return nil, nil
	}
	v, err := c.CallRO(ctx, f, FormatScore(d.ScoreOfP(lo)), FormatScore(d.ScoreOfP(hi)), offset, limit)
	if err != nil {
		return nil, err
	}
	ahead, ps, err := d.window(v)
	if err != nil {
		return nil, err
	}
	return d.RankedAt(ahead+offset, ps)
}

// CountBetween counts the entries of band (whose P lies in [lo, hi)), with one ZCOUNT (Read).
func (d *Decoding[E, I, R, W, X]) CountBetween(ctx context.Context, c *Core, band Band[E]) (int64, error) {
	if band.err != nil {
		return 0, band.err
	}
	return d.countP(ctx, c, band.lo, band.hi)
}

// countP counts the entries whose P lies in [lo, hi), with one ZCOUNT (Read).
func (d *Decoding[E, I, R, W, X]) countP(ctx context.Context, c *Core, lo, hi uint64) (int64, error) {
	if lo >= hi {
		return 0, nil
	}
	return Read(ctx, c, func(r redis.Cmdable) *redis.IntCmd {
		return r.ZCount(ctx, c.Key(), FormatScore(d.ScoreOfP(lo)), "("+FormatScore(d.ScoreOfP(hi)))
	})
}

// UpdateMany calls f, the layout's changes function, for n change lists (list(i): the id
// and its changes; slots: the arguments per id), in one call, and returns a Result per list:
// what it did, or the error that left its entry unchanged (an invalid id's or list's,
// unsent).
func (d *Decoding[E, I, R, W, X]) UpdateMany(ctx context.Context, c *Core, f *Function, slots, n int, list func(i int) (I, []Change[E])) ([]X, error) {
	return d.changeLists(ctx, c, f, slots, n, false, list)
}

// Update calls f, the layout's changes function, for the one change list of id (slots: the
// arguments per id), and returns what it did or the error that left its entry unchanged. It
// is a single write (Core.WriteOne): a board made WithCoalescing combines it with other
// callers' into one call of f.
func (d *Decoding[E, I, R, W, X]) Update(ctx context.Context, c *Core, f *Function, slots int, id I, changes []Change[E]) (W, error) {
	return d.First(d.changeLists(ctx, c, f, slots, 1, true, func(int) (I, []Change[E]) { return id, changes }))
}

// changeLists is UpdateMany, or Update when single.
func (d *Decoding[E, I, R, W, X]) changeLists(ctx context.Context, c *Core, f *Function, slots, n int, single bool, list func(i int) (I, []Change[E])) ([]X, error) {
	args := slices.Grow(c.UpdateArgs(0), n*slots)
	return d.items(ctx, c, f, args, n, false, single, func(i int, args []any) ([]any, I, func(*E), error) {
		id, changes := list(i)
		g, err := changeGroup(id, slots, changes)
		if err != nil {
			return nil, id, nil, err
		}
		entry := func(e *E) {
			for _, c := range changes {
				if c.entry != nil {
					c.entry(e)
				}
			}
		}
		return append(args, g...), id, entry, nil
	})
}

// TouchMany calls f, the layout's touch function, for ids in one call, and returns a Result
// per id: what it did, or the error that left its entry unchanged (an invalid id's, unsent).
func (d *Decoding[E, I, R, W, X]) TouchMany(ctx context.Context, c *Core, f *Function, ids []I) ([]X, error) {
	return d.touch(ctx, c, f, ids, false)
}

// Touch calls f, the layout's touch function, for id, and returns what it did or the error
// that left its entry unchanged. It is a single write (Core.WriteOne): a board made
// WithCoalescing combines it with other callers' into one call of f.
func (d *Decoding[E, I, R, W, X]) Touch(ctx context.Context, c *Core, f *Function, id I) (W, error) {
	return d.First(d.touch(ctx, c, f, []I{id}, true))
}

// touch is TouchMany, or Touch when single.
func (d *Decoding[E, I, R, W, X]) touch(ctx context.Context, c *Core, f *Function, ids []I, single bool) ([]X, error) {
	args := slices.Grow(c.UpdateArgs(0), len(ids))
	return d.items(ctx, c, f, args, len(ids), false, single, func(i int, args []any) ([]any, I, func(*E), error) {
		return append(args, ids[i]), ids[i], nil, nil
	})
}

// ApplyEach calls f, a field update function in its batch form, for n updates (update(i):
// the id and the value's argument, or the error that refuses the value), and returns a
// Result per update: what it did, or the error that left its entry unchanged (unsent). Where
// the layout has no member prefix, its reply holds each entry's P alone: the member is the id.
func (d *Decoding[E, I, R, W, X]) ApplyEach(ctx context.Context, c *Core, f *Function, n int, update func(i int) (I, any, error)) ([]X, error) {
	return d.items(ctx, c, f, c.UpdateArgs(n), n, !c.spec.Indexed, false, func(i int, args []any) ([]any, I, func(*E), error) {
		id, a, err := update(i)
		return append(args, id, a), id, nil, err
	})
}

// items calls f, whose reply is an item per id it was sent, over n items, with args (the
// function's head) followed by each item's arguments: item(i, args) appends them and gives
// its id (always, even when it refuses the item) and what its result entry takes of it (or
// nil), or refuses the item: its Result holds the error, an invalid id's first, and it is not
// sent. bare: the reply
// holds each entry's P alone (BareItems), its member the id sent; else it names the members
// (Items). A refused reply item keeps its own error (a periodic board's names its season:
// Core.ItemErr). single: the call is one write of f, its own batch form (Update, Touch), sent
// by Core.WriteOne.
func (d *Decoding[E, I, R, W, X]) items(ctx context.Context, c *Core, f *Function, args []any, n int, bare, single bool, item func(i int, args []any) ([]any, I, func(*E), error)) ([]X, error) {
	head := len(args)
	res := make([]X, n)
	sent := make([]int, 0, n)
	ids := make([]I, 0, n)
	entries := make([]func(*E), 0, n)
	var none W
	for i := range n {
		more, id, entry, err := item(i, args)
		if bad := d.CheckID(id); bad != nil {
			err = bad // an invalid id is reported before what else its item refuses
		}
		if err != nil {
			res[i] = d.NewResult(none, err)
			continue
		}
		args = more
		sent = append(sent, i)
		ids = append(ids, id)
		entries = append(entries, entry)
	}
	if len(sent) == 0 {
		return res, nil
	}
	var v any
	var err error
	if single {
		v, err = c.WriteOne(ctx, f, args, len(args)-head)
	} else {
		v, err = c.Write(ctx, f, args)
	}
	if err != nil {
		return nil, err
	}
	read := Items
	if bare {
		read = BareItems
	}
	items, err := read(v, len(sent))
	if err != nil {
		return nil, err
	}
	for j, it := range items {
		if it.Err != nil {
			res[sent[j]] = d.NewResult(none, c.ItemErr(it.Err))
			continue
		}
		member, prior := it.Member, it.PriorMember
		if bare {
			member = IDText(ids[j])
			prior = member
		}
		res[sent[j]] = d.NewResult(d.updated(it, member, prior, entries[j]))
	}
	return res, nil
}

// LeadRange reads, best first, up to limit entries of band, a band of the leading field (the
// package's <Lead>Between), skipping offset of them: one ZRANGE BYSCORE, or f, the layout's
// range function, where entries carry data (nil: none). None for an empty band or a limit of 0
// or less; a band built from a value out of range, and a negative offset, are an error matching
// ErrOutOfRange.
func (d *Decoding[E, I, R, W, X]) LeadRange(ctx context.Context, c *Core, f *Function, band Band[E], offset, limit int64) ([]E, error) {
	if band.err != nil {
		return nil, band.err
	}
	if offset < 0 {
		return nil, IntRangeError("offset", offset, 0, math.MaxInt64)
	}
	if band.lo >= band.hi || limit <= 0 {
		return nil, nil
	}
	lo, hi := FormatScore(d.ScoreOfP(band.lo)), "("+FormatScore(d.ScoreOfP(band.hi))
	var ps []Pair
	if f != nil {
		v, err := c.CallRO(ctx, f, lo, hi, offset, limit)
		if err != nil {
			return nil, err
		}
		if _, ps, err = WindowData(v); err != nil {
			return nil, err
		}
	} else {
		zs, err := Read(ctx, c, func(r redis.Cmdable) *redis.ZSliceCmd {
			return r.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: c.Key(), Start: hi, Stop: lo, ByScore: true, Rev: true, Offset: offset, Count: limit})
		})
		if err != nil {
			return nil, err
		}
		ps = ZPairs(zs)
	}
	out := make([]E, len(ps))
	for i, p := range ps {
		var err error
		if out[i], err = d.decode(p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// First is the outcome of a batch of one (a single field update or touch, sent as its batch
// form): the call's error, else its one Result's.
func (d *Decoding[E, I, R, W, X]) First(res []X, err error) (W, error) {
	if err != nil {
		var none W
		return none, err
	}
	return d.WrittenOf(res[0])
}

// IntegerScore is the score of P on a layout whose score is the integer P itself: a Decoding's
// ScoreOfP, and what a score prefix's place takes.
func IntegerScore(p uint64) float64 { return float64(p) }

// AroundPlace calls f, the layout's around_score function, at place (a generated Place's
// score and member): the entries around it, before ahead of it and after from it on.
func (d *Decoding[E, I, R, W, X]) AroundPlace(ctx context.Context, c *Core, f *Function, place func() (float64, string, error), before, after int64) ([]R, error) {
	score, member, err := place()
	if err != nil {
		return nil, err
	}
	return d.Window(c.CallRO(ctx, f, FormatScore(score), member, max(before, 0), max(after, 0)))
}

// Position calls f, a read function that replies a position of the entry of id (rank: 0-based;
// competition, dense: 1-based) with args after the id, or an error matching ErrNotFound.
func (d *Decoding[E, I, R, W, X]) Position(ctx context.Context, c *Core, f *Function, id I, args ...any) (int64, error) {
	if err := d.CheckID(id); err != nil {
		return 0, err
	}
	v, err := c.CallRO(ctx, f, append([]any{id}, args...)...)
	if errors.Is(err, redis.Nil) {
		return 0, NotFound(IDText(id))
	}
	return Int(v, err)
}
