package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
)

// The library functions of a periodic layout that work across its seasons' boards (the
// generator's catalogue names its season scripts with these constants).
const (
	OpRollup           = "rollup"
	OpRemoveEverywhere = "remove_everywhere"
)

// SeasonsSpec is what Seasons needs of a periodic layout's generated package: its calendar,
// how many finished seasons it keeps, its boards' Spec, and how its Board and SeasonResult
// are made and read. B is the package's *Board, I its id type, R its Ranked and SR its
// SeasonResult.
type SeasonsSpec[B any, I ID, R, SR any] struct {
	Calendar *Calendar
	Keep     int   // how many finished seasons stay readable (the package's keepSeasons)
	Board    *Spec // the boards' Spec (the package's boardSpec)
	Rollups  bool  // the layout has fields a rollup combines: RemoveEverywhere reaches the cached rollups

	NewBoard  func(c redis.UniversalClient, key string, s Season, opts ...Option) B // the package's NewBoard
	Core      func(b B) *Core                                                       // the board's machinery
	CheckID   func(id I) error                                                      // the package's Decoding.CheckID
	RankedAt  func(start int64, ps []Pair) ([]R, error)                             // the package's Decoding.RankedAt
	NewResult func(s Season, r R, err error) SR                                     // the package's SeasonResult
	// Standing reads an id's entry and rank on a season's board through the board itself, for
	// a season whose board holds the layout the package's replaces (History); nil without one.
	Standing func(ctx context.Context, b B, id I) (R, error)
	// Previous is the machinery of b's view in the layout the package's replaces, and
	// PreviousBoard that layout's Spec (nil without one): RemoveEverywhere and Rollup reach the
	// boards still in that layout through them.
	Previous      func(b B) *Core
	PreviousBoard *Spec
	// PreviousRollups maps a field Rollup combines (its number, as Rollup takes it) to the same
	// field's in the previous layout, where that layout's rollup combines the same values: a
	// rollup of seasons all still in that layout is built in it.
	PreviousRollups map[int]int
}

// Seasons is what a periodic layout's generated Seasons is on every layout: the calendar, a
// clock, and the boards of its seasons stored under a base key: season s's board is
// <base>:<s.ID>, with its side keys in the same hash slot (give base a hash tag, "{lb}:weekly",
// to keep every season in one slot). A generated Seasons embeds it, so its methods are the
// generated Seasons' too, with the package's Board, id and SeasonResult types; the generated
// file adds what its layout makes its own (the rollup of its fields, its sharded boards). It
// is safe for concurrent use.
type Seasons[B any, I ID, R, SR any] struct {
	c    redis.UniversalClient
	base string
	now  func() time.Time
	spec *SeasonsSpec[B, I, R, SR]
}

// NewSeasons returns the seasons of the board of spec's layout stored under base, on the
// clock time.Now.
func NewSeasons[B any, I ID, R, SR any](c redis.UniversalClient, base string, spec *SeasonsSpec[B, I, R, SR]) *Seasons[B, I, R, SR] {
	return &Seasons[B, I, R, SR]{c: c, base: base, now: time.Now, spec: spec}
}

// SetSeasonsClock makes ss read now instead of time.Now (the generated WithClock).
func SetSeasonsClock[B any, I ID, R, SR any](ss *Seasons[B, I, R, SR], now func() time.Time) {
	ss.now = now
}

// Expiry is when the board of season s expires when keep finished seasons stay readable: at
// the end of the keep-th season after it.
func (c *Calendar) Expiry(s Season, keep int) time.Time {
	for i := 0; i < keep; i++ {
		s = c.Next(s)
	}
	return s.End
}

// At returns the season that contains t: exact across daylight saving, month lengths and leap
// years.
func (ss *Seasons[B, I, R, SR]) At(t time.Time) Season { return ss.spec.Calendar.At(t) }

// Current returns the season that contains now (the Seasons' clock).
func (ss *Seasons[B, I, R, SR]) Current() Season { return ss.spec.Calendar.At(ss.now()) }

// Previous returns the season n before the current one: Previous(1) is the last that ended.
func (ss *Seasons[B, I, R, SR]) Previous(n int) Season {
	s := ss.Current()
	for i := 0; i < n; i++ {
		s = ss.spec.Calendar.Prev(s)
	}
	return s
}

// Next returns the season after s.
func (ss *Seasons[B, I, R, SR]) Next(s Season) Season { return ss.spec.Calendar.Next(s) }

// Prev returns the season before s.
func (ss *Seasons[B, I, R, SR]) Prev(s Season) Season { return ss.spec.Calendar.Prev(s) }

// ByID returns the season whose ID is id, or an error when id starts no season.
func (ss *Seasons[B, I, R, SR]) ByID(id int64) (Season, error) { return ss.spec.Calendar.ByID(id) }

// Recent returns the current season and the n-1 before it, newest first: Recent(keepSeasons+1)
// lists every season whose board may still exist.
func (ss *Seasons[B, I, R, SR]) Recent(n int) []Season {
	if n <= 0 {
		return nil
	}
	out := make([]Season, 1, n)
	out[0] = ss.Current()
	for len(out) < n {
		out = append(out, ss.spec.Calendar.Prev(out[len(out)-1]))
	}
	return out
}

// Board returns the board of season s, under <base>:<s.ID>, with the Seasons' clock; opts apply
// after the season's expiry (see NewBoard).
func (ss *Seasons[B, I, R, SR]) Board(s Season, opts ...Option) B {
	b := ss.spec.NewBoard(ss.c, SeasonKey(ss.base, s), s, opts...)
	for _, core := range ss.cores(b) {
		core.SetClock(ss.now)
	}
	return b
}

// Existing returns the seasons, newest first, whose boards still exist: the current one and the
// keepSeasons before it (older ones have expired), checked with one EXISTS each in one pipeline.
func (ss *Seasons[B, I, R, SR]) Existing(ctx context.Context) ([]Season, error) {
	return ss.existing(ctx, func(s Season) ([]string, error) {
		return []string{SeasonKey(ss.base, s)}, nil
	})
}

// ExistingSharded is the generated Seasons.ExistingSharded: the seasons, newest first, of which
// one shard of the sharded board of shards shards still exists, checked with one EXISTS a shard
// key in one pipeline.
func ExistingSharded[B any, I ID, R, SR any](ctx context.Context, ss *Seasons[B, I, R, SR], shards int) ([]Season, error) {
	return ss.existing(ctx, func(s Season) ([]string, error) {
		return ShardKeys(SeasonKey(ss.base, s), shards)
	})
}

// existing returns, newest first, those of the current season and the keepSeasons before it for
// which one of keys(s) exists: one EXISTS a key, all in one pipeline.
func (ss *Seasons[B, I, R, SR]) existing(ctx context.Context, keys func(Season) ([]string, error)) ([]Season, error) {
	cands := ss.Recent(ss.spec.Keep + 1)
	cmds := make([][]*redis.IntCmd, len(cands))
	pipe := ss.c.Pipeline()
	for i, s := range cands {
		ks, err := keys(s)
		if err != nil {
			return nil, err
		}
		for _, k := range ks {
			cmds[i] = append(cmds[i], pipe.Exists(ctx, k))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	var out []Season
	for i, s := range cands {
		if slices.ContainsFunc(cmds[i], func(c *redis.IntCmd) bool {
			return c.Val() == 1
		}) {
			out = append(out, s)
		}
	}
	return out, nil
}

// ShardedSeason is the generated Seasons.Sharded: the sharded board that open builds under the
// key of season s's Board (the package's NewShardedBoard), its shards (shards of it) on the
// Seasons' clock.
func ShardedSeason[B any, I ID, R, SR, SB any](ss *Seasons[B, I, R, SR], s Season, open func(c redis.UniversalClient, key string) (SB, error), shards func(SB) []B) (SB, error) {
	sb, err := open(ss.c, SeasonKey(ss.base, s))
	if err != nil {
		return sb, err
	}
	for _, b := range shards(sb) {
		for _, core := range ss.cores(b) {
			core.SetClock(ss.now)
		}
	}
	return sb, nil
}

// Live runs write on the board of the current season (the Seasons' clock; opts as for Board). A
// stamp is read by the write's script — Redis's clock for server stamps — and near a season's
// end, or with this machine's clock off Redis's, it can fall in another season: that board
// refuses the write (ErrSeasonClosed, nothing written), and Live runs write once more on the
// board of the season the script's clock read, so the write lands where its stamp belongs. Any
// other outcome is write's own: a refused season-anchored value (it has no clock), and a write
// whose client and server stamps read different seasons (no board can hold it). A batch write
// should return its first result's error for this to apply.
//
// A season's board binds its write tokens to its season (InSeason), so the Token of an
// UncertainError names the board that may have applied the write. Under an idempotency key
// bound to a season — such a Token resent, or a key of your own bound with InSeason — Live runs
// write on that season's board and no other, even after the season ended: a write applied there
// gets its first reply, and one never applied is refused by a closed season's board
// (ErrSeasonClosed, nothing written) where the layout stamps its entries. The write is thus
// applied once in all seasons together. A key bound to none is bound to the season Live runs
// write on.
func (ss *Seasons[B, I, R, SR]) Live(ctx context.Context, write func(ctx context.Context, b B) error, opts ...Option) error {
	if key, ok := IdempotencyKey(ctx); ok {
		if id, bound := KeySeason(key); bound {
			if s, err := ss.spec.Calendar.ByID(id); err == nil {
				// A resend: only the board of the season its token names may have applied the write.
				return write(ctx, ss.Board(s, opts...))
			}
		}
	}
	s := ss.Current()
	err := write(ctx, ss.Board(s, opts...))
	at, ok := SeasonClock(err)
	if !ok || s.Contains(at) {
		return err
	}
	return write(ctx, ss.Board(ss.spec.Calendar.At(at), opts...))
}

// expiry is the expiry of season s's board.
func (ss *Seasons[B, I, R, SR]) expiry(s Season) Expiry {
	return ExpireAt(ss.spec.Calendar.Expiry(s, ss.spec.Keep))
}

// History returns the entry and rank of id on the board of each season given, in that order
// (Recent(keepSeasons+1) for this season and every one before it whose board may still exist).
// The reads go in one pipeline: one round trip on a single server, one per node in parallel on
// a Cluster (a base with a hash tag keeps every season on one node). Each season's read is
// exact on its own; an error other than a missing entry fails the call.
func (ss *Seasons[B, I, R, SR]) History(ctx context.Context, id I, seasons ...Season) ([]SR, error) {
	if err := ss.spec.CheckID(id); err != nil {
		return nil, err
	}
	around := ss.spec.Board.Library.Function(OpAround)
	pipe := NewPipe(ss.c)
	cmds := make([]*redis.Cmd, len(seasons))
	errs := make([]error, len(seasons))
	rs := make([]R, len(seasons))
	now := ss.now()
	for i, s := range seasons {
		errs[i] = CheckExpiry(s, ss.expiry(s), now)
		if errs[i] == nil {
			cmds[i] = pipe.CallRO(ctx, around, ss.spec.Board.Keys(SeasonKey(ss.base, s)), id, 0, 0, "0")
		}
	}
	pipe.Exec(ctx)
	for i, cmd := range cmds {
		if cmd == nil {
			continue // the season expired
		}
		v, err := cmd.Result()
		if errors.Is(err, redis.Nil) {
			errs[i] = NotFound(IDText(id))
			continue
		}
		if errors.Is(err, ErrLayoutMismatch) && ss.spec.Standing != nil {
			// A season not yet migrated to this layout: its board reads it in the one it holds.
			if rs[i], err = ss.spec.Standing(ctx, ss.Board(seasons[i]), id); err == nil || errors.Is(err, ErrNotFound) {
				errs[i] = err
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		start, ps, err := Window(v)
		if err != nil {
			return nil, err
		}
		ranked, err := ss.spec.RankedAt(start, ps)
		if err != nil {
			return nil, err
		}
		if len(ranked) == 0 {
			errs[i] = NotFound(IDText(id))
			continue // the script answers nil for a missing id; an empty window is read the same
		}
		rs[i] = ranked[0]
	}
	out := make([]SR, len(seasons))
	for i, s := range seasons {
		out[i] = ss.spec.NewResult(s, rs[i], errs[i])
	}
	return out, nil
}

// Rollup is the generated Seasons.Rollup once the package has checked spec.Field: it combines
// the field, the layout's field-th (1-based) called name, by op over the last seasons up to
// newest (the zero Season: the current one), cached for ttl.
func Rollup[B any, I ID, R, SR any](ctx context.Context, ss *Seasons[B, I, R, SR], field int, name string, op RollupOp, last int, newest Season, ttl time.Duration) (B, error) {
	var none B
	if op < RollupSum || op > RollupMin {
		return none, &RangeError{Field: "RollupSpec.Op", Value: op.String(), Min: "RollupSum", Max: "RollupMin"}
	}
	if last < 1 || last > ss.spec.Keep+1 {
		return none, RollupLastError(last, ss.spec.Keep)
	}
	if ttl < time.Millisecond || ttl%time.Millisecond != 0 {
		return none, &RangeError{Field: "RollupSpec.TTL", Value: ttl.String(), Min: "1ms", Max: "whole milliseconds"}
	}
	if err := CheckSlots(ss.c, ss.base); err != nil {
		return none, err
	}
	if newest.End.IsZero() {
		newest = ss.Current()
	}
	key := RollupKey(ss.base, name, op, last, newest)
	now := ss.now()
	for i, s := 0, newest; i < last; i, s = i+1, ss.spec.Calendar.Prev(s) {
		if err := CheckExpiry(s, ss.expiry(s), now); err != nil {
			return none, err
		}
	}
	err := ss.rollup(ctx, ss.spec.Board, field, op, last, newest, ttl, key)
	if errors.Is(err, ErrLayoutMismatch) && ss.spec.PreviousBoard != nil {
		err = ss.previousRollup(ctx, field, op, last, newest, ttl, key)
	}
	if err != nil {
		return none, err
	}
	return ss.rollupBoard(key, newest), nil
}

// rollup runs the rollup script of spec's layout: the field-th field combined by op over the
// last seasons up to newest, into key.
func (ss *Seasons[B, I, R, SR]) rollup(ctx context.Context, spec *Spec, field int, op RollupOp, last int, newest Season, ttl time.Duration, key string) error {
	keys := append(spec.Keys(key)[:2], RollupsKey(ss.base))
	if spec.Data {
		keys = append(keys, DataKey(key))
	}
	for i, s := 0, newest; i < last; i, s = i+1, ss.spec.Calendar.Prev(s) {
		k := SeasonKey(ss.base, s)
		keys = append(keys, spec.Keys(k)[:2]...)
		if spec.Data {
			keys = append(keys, DataKey(k))
		}
	}
	_, err := Int(Call(ctx, ss.c, spec.Library.Function(OpRollup), keys, field, op.String(), ttl.Milliseconds(), RollupLine(key, newest)))
	return err
}

// previousRollup builds the rollup in the layout the package's replaces, for seasons whose
// boards all still hold it; the rollup's board reads it in that layout, as every board does. A
// sum that layout's field cannot hold is ErrNotInPreviousLayout; seasons of both layouts (a
// migration moving them one by one) are ErrMigrating: the rollup is built once all are moved.
func (ss *Seasons[B, I, R, SR]) previousRollup(ctx context.Context, field int, op RollupOp, last int, newest Season, ttl time.Duration, key string) error {
	previous, ok := ss.spec.PreviousRollups[field]
	if !ok {
		return NotInPreviousValue(ss.spec.PreviousBoard.Fingerprint, "RollupSpec.Field", field, "the previous layout's rollup does not combine this field alike")
	}
	err := ss.rollup(ctx, ss.spec.PreviousBoard, previous, op, last, newest, ttl, key)
	if errors.Is(err, ErrLayoutMismatch) {
		return fmt.Errorf("rankgen: the seasons' boards hold two layouts while a migration moves them; build the rollup again once it has moved them all: %w", ErrMigrating)
	}
	return OnPrevious(ss.spec.PreviousBoard.Fingerprint, err)
}

// rollupBoard is the board of the rollup under key, whose newest season is newest. Its writes
// (RemoveEverywhere's) leave the expiry the rollup script set, which is on Redis's clock, so its
// reads do not check it against the Seasons' clock.
func (ss *Seasons[B, I, R, SR]) rollupBoard(key string, newest Season) B {
	b := ss.spec.NewBoard(ss.c, key, newest)
	for _, core := range ss.cores(b) {
		core.SetExpiry(Expiry{})
		core.SetClock(ss.now)
	}
	return b
}

// cores is b's machinery: its own and, where the layout replaces another, its view's in that one.
func (ss *Seasons[B, I, R, SR]) cores(b B) []*Core {
	if ss.spec.Previous == nil {
		return []*Core{ss.spec.Core(b)}
	}
	return []*Core{ss.spec.Core(b), ss.spec.Previous(b)}
}

// cachedRollups returns the boards of the rollups listed beside the seasons' boards: the rollup
// script lists each one it builds, and drops those past their expiry (Redis's clock) whenever it
// builds another, so a listed board may have expired and be empty.
func (ss *Seasons[B, I, R, SR]) cachedRollups(ctx context.Context) ([]B, error) {
	lines, err := ss.c.ZRange(ctx, RollupsKey(ss.base), 0, -1).Result()
	if err != nil {
		return nil, ReplyError(err) // a key of another type there: ErrWrongType
	}
	var out []B
	for _, line := range lines {
		id, key, err := ParseRollupLine(line)
		if err != nil {
			return nil, err
		}
		s, err := ss.spec.Calendar.ByID(id)
		if err != nil {
			return nil, err
		}
		out = append(out, ss.rollupBoard(key, s))
	}
	return out, nil
}

// RemoveEverywhere removes ids from every board of the family: the board of every season that
// may hold entries (the current one, the keepSeasons before it and the next one), every cached
// rollup (on a layout with rollups), and the boards also given (of this layout: all-time or
// regional boards you keep beside the seasons). It returns, for each id in order, how many
// boards held it. When one script can reach every board's keys (one server, or on a Cluster one
// hash slot: a base with a hash tag, "{lb}:weekly", and the boards given under the same tag),
// the removal is one script call, atomic: on an error nothing is removed. Otherwise each board
// removes the ids in its own script call (atomic there, not across boards), all at once, each in
// its own goroutine; on an error the counts say what was removed before it, and a season that
// expires meanwhile holds nothing. Under an idempotency key (WithIdempotencyKey) a resend of the
// whole call, within the current season, removes nothing twice and answers the first call's
// counts. Removing a cheater thus takes one call; their entries written after it are not
// touched.
func (ss *Seasons[B, I, R, SR]) RemoveEverywhere(ctx context.Context, ids []I, also ...B) ([]int, error) {
	groups := make([][]B, len(also))
	for i, a := range also {
		groups[i] = []B{a}
	}
	return ss.removeFamily(ctx, ids, func(s Season) ([]B, error) {
		return []B{ss.Board(s)}, nil
	}, groups)
}

// RemoveEverywhereSharded is the generated Seasons.RemoveEverywhereSharded: RemoveEverywhere
// over the sharded boards of the seasons (sharded(s), whose shards are shards of it) and the
// sharded boards also given, a sharded board counting once.
func RemoveEverywhereSharded[B any, I ID, R, SR, SB any](ctx context.Context, ss *Seasons[B, I, R, SR], ids []I, sharded func(Season) (SB, error), shards func(SB) []B, also []SB) ([]int, error) {
	groups := make([][]B, len(also))
	for i, a := range also {
		groups[i] = shards(a)
	}
	return ss.removeFamily(ctx, ids, func(s Season) ([]B, error) {
		sb, err := sharded(s)
		if err != nil {
			return nil, err
		}
		return shards(sb), nil
	}, groups)
}

// removeFamily removes ids from the groups of boards of the family (a group: one board, or a
// sharded board's shards): those of each season that may hold entries by season, then, on a
// layout with rollups, each cached rollup, then also.
func (ss *Seasons[B, I, R, SR]) removeFamily(ctx context.Context, ids []I, season func(Season) ([]B, error), also [][]B) ([]int, error) {
	groups, err := ss.holding(ctx, season)
	if err != nil {
		return nil, err
	}
	return ss.removeFrom(ctx, ids, append(groups, also...))
}

// holding is the groups of boards of the family that may hold entries (a group: one board, or a
// sharded board's shards): those of each such season by season, then, on a layout with
// rollups, each cached rollup.
func (ss *Seasons[B, I, R, SR]) holding(ctx context.Context, season func(Season) ([]B, error)) ([][]B, error) {
	var groups [][]B
	for _, s := range append(ss.Recent(ss.spec.Keep+1), ss.Next(ss.Current())) {
		g, err := season(s)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	if ss.spec.Rollups {
		cached, err := ss.cachedRollups(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range cached {
			groups = append(groups, []B{r})
		}
	}
	return groups, nil
}

// Holding returns the boards of the family that may hold entries, which RemoveEverywhere
// removes from: the current season's, the keepSeasons before it, the next one's and, on a
// layout with rollups, each cached rollup. A package's Removal removes from them with boards of
// other layouts.
func (ss *Seasons[B, I, R, SR]) Holding(ctx context.Context) ([]B, error) {
	groups, err := ss.holding(ctx, func(s Season) ([]B, error) { return []B{ss.Board(s)}, nil })
	var out []B
	for _, g := range groups {
		out = append(out, g...)
	}
	return out, err
}

// removeFrom removes ids from every board of groups (a group: one board, or the shards of one
// sharded board) and returns, per id, how many groups held it: with one script call when one
// script can reach every key (OneScript), else with one call per board, all at once.
func (ss *Seasons[B, I, R, SR]) removeFrom(ctx context.Context, ids []I, groups [][]B) ([]int, error) {
	held := make([]int, len(ids))
	if len(ids) == 0 {
		return held, nil
	}
	for _, id := range ids {
		if err := ss.spec.CheckID(id); err != nil {
			return nil, err
		}
	}
	var boards []removing
	for _, g := range groups {
		for _, b := range g {
			r := removing{core: ss.spec.Core(b)}
			if ss.spec.Previous != nil {
				r.previous = ss.spec.Previous(b)
			}
			boards = append(boards, r)
		}
	}
	removed, err := removeEverywhere(ctx, ss.c, boards, ids)
	if removed == nil {
		return held, err // the one call failed: nothing removed
	}
	k := 0
	for _, g := range groups {
		for i := range ids {
			in := 0
			for _, r := range removed[k : k+len(g)] {
				if len(r) > i {
					in = max(in, r[i])
				}
			}
			held[i] += in
		}
		k += len(g)
	}
	return held, err
}

// removing is a board as a removal reaches it: its machinery and, where the layout replaces
// another, its view in that layout (nil without one).
type removing struct{ core, previous *Core }

// removeEverywhere removes ids from boards and returns, per board, per id, 1 when the board held
// it: with one script call when one script can reach every key (OneScript), else with one call
// per board, all at once. Where the layout replaces another, boards still holding that layout
// are reached in it: all of them by that layout's one call, or, holding both (a migration moving
// them one by one), each by its own call in the layout it holds.
func removeEverywhere[I ID](ctx context.Context, c redis.UniversalClient, boards []removing, ids []I) ([][]int, error) {
	cores := make([]*Core, len(boards))
	for k, b := range boards {
		cores[k] = b.core
	}
	if !OneScript(c, scriptKeys(cores)) {
		return removeEach(ctx, boards, ids)
	}
	removed, err := removeAll(ctx, cores, ids)
	if boards[0].previous == nil || !inOtherLayout(err) {
		return removed, err
	}
	for k, b := range boards {
		cores[k] = b.previous
	}
	if removed, err = removeAll(ctx, cores, ids); !inOtherLayout(err) {
		return removed, err
	}
	return removeEach(ctx, boards, ids)
}

// inOtherLayout says whether err refuses a call, which wrote nothing, because a board holds
// another layout or the call's token was recorded by another layout's call.
func inOtherLayout(err error) bool {
	var te *TokenReusedError
	return errors.Is(err, ErrLayoutMismatch) || errors.As(err, &te) && te.Why == ReusedByLayout
}

// scriptKeys is the keys of the boards of cores, in order.
func scriptKeys(cores []*Core) []string {
	var keys []string
	for _, c := range cores {
		keys = append(keys, c.ScriptKeys()...)
	}
	return keys
}

// removeEach removes ids from each board in its own script call, in the layout it holds, all
// at once, each in its own goroutine, and returns per board, per id, 1 when the board held it (a
// board that failed: none); a season's board that has expired holds nothing.
func removeEach[I ID](ctx context.Context, boards []removing, ids []I) ([][]int, error) {
	removed := make([][]int, len(boards))
	err := Scatter(ctx, EveryShard(len(boards)), func(ctx context.Context, k int, _ []int) error {
		r, err := removeAll(ctx, []*Core{boards[k].core}, ids)
		if p := boards[k].previous; p != nil && inOtherLayout(err) {
			r, err = removeAll(ctx, []*Core{p}, ids)
		}
		if errors.Is(err, ErrSeasonExpired) {
			return nil // an expired board holds nothing
		}
		if err != nil {
			return err
		}
		removed[k] = r[0]
		return nil
	})
	return removed, err
}

// removeAll removes ids from the boards of cores in one call of their layout's
// remove_everywhere script, under the token of the first board (which also gives the call's
// expiry and replicas), and returns per board, per id, 1 when the board held it.
func removeAll[I ID](ctx context.Context, cores []*Core, ids []I) ([][]int, error) {
	first := cores[0]
	args := first.WriteArgs(len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	v, err := first.WriteOn(ctx, first.spec.Library.Function(OpRemoveEverywhere), scriptKeys(cores), args)
	return Removals(v, err, len(cores), len(ids))
}
