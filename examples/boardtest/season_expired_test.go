package boardtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// A season's board past its retention (keep seasons after its end) is refused: a write by its
// own script, on Redis's clock, before anything (its token's record included) is written; a
// read on the board's clock, rather than answering an empty board.

// expiredWrite is one write method of a season board, and the script it runs.
type expiredWrite struct {
	script string
	call   func(ctx context.Context) error
}

// blitzWrites are the write methods of a blitz board, single and batch.
func blitzWrites(b *blitz.Board) []expiredWrite {
	e := blitz.Entry{ID: "p", Points: 3, At: time.Second, Best: time.Second}
	return []expiredWrite{
		{"set", func(ctx context.Context) error { _, err := b.Set(ctx, e); return err }},
		{"set", func(ctx context.Context) error { _, err := b.SetMany(ctx, []blitz.Entry{e, {ID: "q"}}); return err }},
		{"best", func(ctx context.Context) error { _, err := b.Best(ctx, e); return err }},
		{"best", func(ctx context.Context) error { _, err := b.BestMany(ctx, []blitz.Entry{e}); return err }},
		{"insert", func(ctx context.Context) error { _, err := b.Insert(ctx, e); return err }},
		{"insert", func(ctx context.Context) error { _, err := b.InsertMany(ctx, []blitz.Entry{e, {ID: "q"}}); return err }},
		{"remove", func(ctx context.Context) error { _, err := b.Remove(ctx, "p", "q"); return err }},
		{"trim", func(ctx context.Context) error { _, err := b.Trim(ctx, 0); return err }},
		{"add_points", func(ctx context.Context) error { _, err := b.AddPoints(ctx, "p", 1); return err }},
		{"add_points_many", func(ctx context.Context) error {
			_, err := b.AddPointsMany(ctx, []blitz.Update[int64]{{ID: "p", Value: 1}, {ID: "q", Value: 2}})
			return err
		}},
		{"min_best", func(ctx context.Context) error { _, err := b.MinBest(ctx, "p", time.Second); return err }},
		{"min_best_many", func(ctx context.Context) error {
			_, err := b.MinBestMany(ctx, []blitz.Update[time.Duration]{{ID: "p", Value: time.Second}})
			return err
		}},
		{"changes", func(ctx context.Context) error { _, err := b.Update(ctx, "p", blitz.AddPoints(1)); return err }},
		{"changes", func(ctx context.Context) error {
			_, err := b.UpdateMany(ctx, []blitz.Changes{{ID: "p", Apply: []blitz.Change{blitz.AddPoints(1), blitz.MinBest(time.Second)}}})
			return err
		}},
		{"touch", func(ctx context.Context) error { _, err := b.Touch(ctx, "p"); return err }},
		{"touch", func(ctx context.Context) error { _, err := b.TouchMany(ctx, []string{"p", "q"}); return err }},
	}
}

// weeklyWrites are the write methods of a weekly board, or of its sharded board (both have
// them), single and batch.
func weeklyWrites(b interface {
	Set(context.Context, weekly.Entry) (weekly.Written, error)
	SetMany(context.Context, []weekly.Entry) ([]weekly.Written, error)
	Best(context.Context, weekly.Entry) (weekly.Written, error)
	BestMany(context.Context, []weekly.Entry) ([]weekly.Written, error)
	Insert(context.Context, weekly.Entry) (weekly.Written, error)
	InsertMany(context.Context, []weekly.Entry) ([]weekly.Written, error)
	Remove(context.Context, ...string) (int64, error)
	Trim(context.Context, int64) (int64, error)
	AddPoints(context.Context, string, int64) (weekly.Written, error)
	AddPointsMany(context.Context, []weekly.Update[int64]) ([]weekly.Result, error)
	MaxPoints(context.Context, string, uint32) (weekly.Written, error)
	MaxPointsMany(context.Context, []weekly.Update[uint32]) ([]weekly.Result, error)
	SetPoints(context.Context, string, uint32) (weekly.Written, error)
	SetPointsMany(context.Context, []weekly.Update[uint32]) ([]weekly.Result, error)
	SetPaid(context.Context, string, bool) (weekly.Written, error)
	SetPaidMany(context.Context, []weekly.Update[bool]) ([]weekly.Result, error)
	Update(context.Context, string, ...weekly.Change) (weekly.Written, error)
	UpdateMany(context.Context, []weekly.Changes) ([]weekly.Result, error)
	Touch(context.Context, string) (weekly.Written, error)
	TouchMany(context.Context, []string) ([]weekly.Result, error)
}) []expiredWrite {
	e := weekly.Entry{PlayerID: "p", Points: 3, ReachedAt: time.Hour}
	return []expiredWrite{
		{"set", func(ctx context.Context) error { _, err := b.Set(ctx, e); return err }},
		{"set", func(ctx context.Context) error {
			_, err := b.SetMany(ctx, []weekly.Entry{e, {PlayerID: "q"}})
			return err
		}},
		{"best", func(ctx context.Context) error { _, err := b.Best(ctx, e); return err }},
		{"best", func(ctx context.Context) error { _, err := b.BestMany(ctx, []weekly.Entry{e}); return err }},
		{"insert", func(ctx context.Context) error { _, err := b.Insert(ctx, e); return err }},
		{"insert", func(ctx context.Context) error {
			_, err := b.InsertMany(ctx, []weekly.Entry{e, {PlayerID: "q"}})
			return err
		}},
		{"remove", func(ctx context.Context) error { _, err := b.Remove(ctx, "p", "q"); return err }},
		{"trim", func(ctx context.Context) error { _, err := b.Trim(ctx, 0); return err }},
		{"add_points", func(ctx context.Context) error { _, err := b.AddPoints(ctx, "p", 1); return err }},
		{"add_points_many", func(ctx context.Context) error {
			_, err := b.AddPointsMany(ctx, []weekly.Update[int64]{{PlayerID: "p", Value: 1}, {PlayerID: "q", Value: 2}})
			return err
		}},
		{"max_points", func(ctx context.Context) error { _, err := b.MaxPoints(ctx, "p", 9); return err }},
		{"max_points_many", func(ctx context.Context) error {
			_, err := b.MaxPointsMany(ctx, []weekly.Update[uint32]{{PlayerID: "p", Value: 9}})
			return err
		}},
		{"set_points", func(ctx context.Context) error { _, err := b.SetPoints(ctx, "p", 9); return err }},
		{"set_points_many", func(ctx context.Context) error {
			_, err := b.SetPointsMany(ctx, []weekly.Update[uint32]{{PlayerID: "p", Value: 9}})
			return err
		}},
		{"set_paid", func(ctx context.Context) error { _, err := b.SetPaid(ctx, "p", true); return err }},
		{"set_paid_many", func(ctx context.Context) error {
			_, err := b.SetPaidMany(ctx, []weekly.Update[bool]{{PlayerID: "p", Value: true}})
			return err
		}},
		{"changes", func(ctx context.Context) error { _, err := b.Update(ctx, "p", weekly.AddPoints(1)); return err }},
		{"changes", func(ctx context.Context) error {
			_, err := b.UpdateMany(ctx, []weekly.Changes{{PlayerID: "p", Apply: []weekly.Change{weekly.SetPaid(true), weekly.AddPoints(2)}}})
			return err
		}},
		{"touch", func(ctx context.Context) error { _, err := b.Touch(ctx, "p"); return err }},
		{"touch", func(ctx context.Context) error { _, err := b.TouchMany(ctx, []string{"p", "q"}); return err }},
	}
}

// checkEveryWriteScript fails unless writes run every write script of the package in dir (the
// scripts not flagged no-writes).
func checkEveryWriteScript(t *testing.T, schema, dir, pkg string, writes []expiredWrite) {
	t.Helper()
	acrossSeasons := seasonScriptNames(parse(t, schema), false)
	src, err := os.ReadFile(filepath.Join(dir, pkg+".rankgen.lua"))
	if err != nil {
		t.Fatal(err)
	}
	// The registrations are the part's; the library they name is the one the runtime composes.
	lib := rankgenrt.NewLayoutLibrary(pkg, string(src))
	if !strings.HasPrefix(lib.Source, "#!lua name="+lib.Name+"\n") {
		t.Fatalf("%s: the composed library does not name itself %s on its first line", pkg, lib.Name)
	}
	registered := regexp.MustCompile(`(?m)^register\('(\w+)', \{([^}]*)\}`)
	fns := registered.FindAllSubmatch(src, -1)
	if len(fns) == 0 {
		t.Fatalf("%s: no functions registered", pkg)
	}
	for _, fn := range fns {
		if strings.Contains(string(fn[2]), "no-writes") || acrossSeasons[string(fn[1])] {
			continue // across seasons: the rollup writes its own cached board; remove_everywhere is checked against the current season, its first board
		}
		if op := string(fn[1]); !slices.ContainsFunc(writes, func(w expiredWrite) bool { return w.script == op }) {
			t.Errorf("write function %s is not in the table", op)
		}
	}
}

// checkExpiredRefusal fails unless err is the *SeasonExpiredError of season s expiring at expiry,
// and not ErrUncertain (a refusal is no lost reply).
func checkExpiredRefusal(t *testing.T, what string, err error, s rankgenrt.Season, expiry time.Time) {
	t.Helper()
	var se *rankgenrt.SeasonExpiredError
	if !errors.Is(err, rankgenrt.ErrSeasonExpired) || !errors.As(err, &se) {
		t.Errorf("%s: %v; want ErrSeasonExpired", what, err)
		return
	}
	if errors.Is(err, rankgenrt.ErrUncertain) {
		t.Errorf("%s: %v matches ErrUncertain; want a definite refusal", what, err)
	}
	if se.Season != s || !se.Expiry.Equal(expiry) || se.Now.Before(expiry) {
		t.Errorf("%s: %+v; want season %v, expiry %v, now after it", what, se, s, expiry)
	}
	if msg := err.Error(); !strings.Contains(msg, s.String()) || !strings.Contains(msg, expiry.UTC().Format(rankgenrt.TimeFormat)) {
		t.Errorf("%s: %q names neither the season nor its expiry", what, msg)
	}
}

// keysUnder lists the keys that start with base.
func keysUnder(t *testing.T, c redis.UniversalClient, base string) []string {
	t.Helper()
	var keys []string
	scan := func(ctx context.Context, c *redis.Client) error {
		found, err := c.Keys(ctx, base+"*").Result()
		keys = append(keys, found...)
		return err
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, scan)
	} else {
		err = scan(ctx, c.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestSeasonExpiredWrites: every write method of the blitz and weekly boards, single and batch,
// on the board of a season past its retention, is refused with a *SeasonExpiredError naming
// the season and its expiry, and no key is created (no board, index or token record).
func TestSeasonExpiredWrites(t *testing.T) {
	c := redistest.Client(t)
	t.Run("blitz", func(t *testing.T) {
		base := redistest.Key(t, "{blitz}")
		ss := blitz.NewSeasons(c, base)
		// Kept one season: expired when Previous(1) started. Both are read together, before the
		// writes: a 2-second season may end while they run, and Previous(1) would move on.
		old, expired := ss.Previous(3), ss.Previous(1).Start
		b := ss.Board(old)
		writes := blitzWrites(b)
		checkEveryWriteScript(t, filepath.Join("internal", "season", "blitz", "blitz.yaml"), filepath.Join("internal", "season", "blitz"), "blitz", writes)
		for _, w := range writes {
			checkExpiredRefusal(t, w.script, w.call(ctx), old, expired)
		}
		if keys := keysUnder(t, c, base); len(keys) > 0 {
			t.Errorf("refused writes left keys %v", keys)
		}
	})
	t.Run("weekly", func(t *testing.T) {
		base := redistest.Key(t, "{weekly}")
		ss := weekly.NewSeasons(c, base)
		old, expired := ss.Previous(5), ss.Current().Start // kept four weeks: expired when this week started
		b := ss.Board(old)
		writes := weeklyWrites(b)
		checkEveryWriteScript(t, "weekly.yaml", filepath.Join("..", "generated", "weekly"), "weekly", writes)
		for _, w := range writes {
			checkExpiredRefusal(t, w.script, w.call(ctx), old, expired)
		}
		if keys := keysUnder(t, c, base); len(keys) > 0 {
			t.Errorf("refused writes left keys %v", keys)
		}
		// The last week kept is written as ever.
		kept := ss.Board(ss.Previous(4))
		if _, err := kept.Set(ctx, weekly.Entry{PlayerID: "p", Points: 1}); err != nil {
			t.Errorf("a write to the oldest week kept: %v", err)
		}
	})
}

// TestShardedSeasonExpired: the sharded weekly board of an expired week refuses every write on
// every shard, creating no key, and its merged reads say the week expired.
func TestShardedSeasonExpired(t *testing.T) {
	for _, tg := range shardTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			base := redistest.Key(t, "weekly")
			ss := weekly.NewSeasons(tg.c, base)
			old := ss.Previous(5)
			b, err := ss.Sharded(old, tg.shards)
			if err != nil {
				t.Fatal(err)
			}
			expiry := ss.Current().Start
			for _, w := range weeklyWrites(b) {
				checkExpiredRefusal(t, "sharded "+w.script, w.call(ctx), old, expiry)
			}
			if keys := keysUnder(t, tg.c, base); len(keys) > 0 {
				t.Errorf("refused writes left keys %v", keys)
			}
			for _, r := range weeklyReads(b) {
				checkExpiredRefusal(t, "sharded "+r.name, r.call(ctx), old, expiry)
			}
		})
	}
}

// expiredRead is one read method of a season board.
type expiredRead struct {
	name string
	call func(ctx context.Context) error
}

// weeklyReads are read methods of a weekly board or of its sharded board: by id, by position,
// by cursor, by score, and counts (plain commands and scripts alike).
func weeklyReads(b interface {
	Get(context.Context, string) (weekly.Entry, error)
	Rank(context.Context, string) (int64, error)
	Page(context.Context, int64, int64) ([]weekly.Ranked, error)
	Around(context.Context, string, int64, int64) ([]weekly.Ranked, error)
	After(context.Context, weekly.Cursor, int64) ([]weekly.Ranked, weekly.Cursor, error)
	Count(context.Context) (int64, error)
	GetMany(context.Context, ...string) ([]weekly.Result, error)
	RankMany(context.Context, ...string) ([]int64, error)
	PageFromEnd(context.Context, int64, int64) ([]weekly.Ranked, error)
	Percentile(context.Context, string) (float64, error)
	CountPointsBetween(context.Context, uint32, uint32) (int64, error)
	CompetitionRank(context.Context, string) (int64, error)
}) []expiredRead {
	return []expiredRead{
		{"Get", func(ctx context.Context) error { _, err := b.Get(ctx, "p"); return err }},
		{"Rank", func(ctx context.Context) error { _, err := b.Rank(ctx, "p"); return err }},
		{"Page", func(ctx context.Context) error { _, err := b.Page(ctx, 0, 10); return err }},
		{"Around", func(ctx context.Context) error { _, err := b.Around(ctx, "p", 1, 1); return err }},
		{"After", func(ctx context.Context) error { _, _, err := b.After(ctx, weekly.Cursor{}, 10); return err }},
		{"Count", func(ctx context.Context) error { _, err := b.Count(ctx); return err }},
		{"GetMany", func(ctx context.Context) error { _, err := b.GetMany(ctx, "p", "q"); return err }},
		{"RankMany", func(ctx context.Context) error { _, err := b.RankMany(ctx, "p", "q"); return err }},
		{"PageFromEnd", func(ctx context.Context) error { _, err := b.PageFromEnd(ctx, 0, 10); return err }},
		{"Percentile", func(ctx context.Context) error { _, err := b.Percentile(ctx, "p"); return err }},
		{"CountPointsBetween", func(ctx context.Context) error { _, err := b.CountPointsBetween(ctx, 0, 10); return err }},
		{"CompetitionRank", func(ctx context.Context) error { _, err := b.CompetitionRank(ctx, "p"); return err }},
	}
}

// TestSeasonExpiredReads: the reads of a weekly board whose week is past its retention say it
// expired; those of a kept week whose board does not exist answer an empty board.
func TestSeasonExpiredReads(t *testing.T) {
	c := redistest.Client(t)
	ss := weekly.NewSeasons(c, redistest.Key(t, "{weekly}"))
	old, kept := ss.Board(ss.Previous(5)), ss.Board(ss.Previous(4))
	for _, r := range weeklyReads(old) {
		checkExpiredRefusal(t, r.name, r.call(ctx), old.Season(), ss.Current().Start)
	}
	if _, err := kept.Get(ctx, "p"); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Errorf("Get on a kept week without a board: %v; want ErrNotFound", err)
	}
	if n, err := kept.Count(ctx); n != 0 || err != nil {
		t.Errorf("Count on a kept week without a board: %d, %v; want 0", n, err)
	}
	if page, err := kept.Page(ctx, 0, 10); len(page) != 0 || err != nil {
		t.Errorf("Page on a kept week without a board: %v, %v; want none", page, err)
	}
}

// TestSeasonExpiresOnRedisClock: a blitz board written in its season refuses writes once its
// expiry passes on Redis's clock, its keys gone, and its reads then say it expired rather than
// answering an empty board.
func TestSeasonExpiresOnRedisClock(t *testing.T) {
	c := redistest.Client(t)
	base := redistest.Key(t, "{blitz}")
	ss := blitz.NewSeasons(c, base, blitz.WithClock(func() time.Time { return serverNow(t, c) }))
	s := ss.Current()
	b := ss.Board(s)
	if _, err := b.AddPoints(ctx, "p", 1); errors.Is(err, rankgenrt.ErrSeasonClosed) {
		s = ss.Current() // the season ended between the two calls
		b = ss.Board(s)
		_, err = b.AddPoints(ctx, "p", 1)
		if err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
	expiry := ss.Next(s).End
	if e, err := b.Get(ctx, "p"); err != nil || e.Points != 1 {
		t.Fatalf("Get before the expiry: %+v, %v", e, err)
	}
	time.Sleep(time.Until(expiry.Add(50 * time.Millisecond)))
	for serverNow(t, c).Before(expiry) {
		time.Sleep(10 * time.Millisecond)
	}
	checkExpiredRefusal(t, "Remove", func() error { _, err := b.Remove(ctx, "p"); return err }(), s, expiry)
	checkExpiredRefusal(t, "Set", func() error { _, err := b.Set(ctx, blitz.Entry{ID: "p"}); return err }(), s, expiry)
	for _, k := range keysUnder(t, c, rankgenrt.SeasonKey(base, s)) {
		if !strings.Contains(k, ":ack") { // the first write's token record expires with its dedup window
			t.Errorf("%s remains after the expiry", k)
		}
	}
	_, err := b.Get(ctx, "p")
	checkExpiredRefusal(t, "Get", err, s, expiry)
	_, err = b.Count(ctx)
	checkExpiredRefusal(t, "Count", err, s, expiry)
}

// TestLiveExpiredSeason: Seasons.Live whose clock reads a season past its retention gets the
// refusal, and does not run the write again on another season's board (it moves only writes
// refused for a stamp outside the season); the same under a token bound to an expired season.
func TestLiveExpiredSeason(t *testing.T) {
	c := redistest.Client(t)
	base := redistest.Key(t, "{blitz}")
	behind := blitz.NewSeasons(c, base, blitz.WithClock(func() time.Time { return time.Now().Add(-10 * time.Second) }))
	old := behind.Current()
	err := behind.Live(ctx, func(ctx context.Context, b *blitz.Board) error {
		_, err := b.AddPoints(ctx, "p", 1)
		return err
	})
	checkExpiredRefusal(t, "Live", err, old, behind.Next(old).End)

	bound := rankgenrt.WithIdempotencyKey(ctx, rankgenrt.InSeason("mine", old.ID))
	err = blitz.NewSeasons(c, base).Live(bound, func(ctx context.Context, b *blitz.Board) error {
		_, err := b.Set(ctx, blitz.Entry{ID: "p", Points: 2})
		return err
	})
	checkExpiredRefusal(t, "Live under a key bound to an expired season", err, old, behind.Next(old).End)
	if keys := keysUnder(t, c, base); len(keys) > 0 {
		t.Errorf("Live left keys %v", keys)
	}
}

// seasonScriptNames names the scripts a periodic layout runs across its seasons' boards
// (catalog.SeasonScripts); tokenless: only those that take no write token (the rollup, whose
// arguments do not start with the write arguments, catalog.WriteArgs).
func seasonScriptNames(l *layout.Layout, tokenless bool) map[string]bool {
	names := map[string]bool{}
	write := catalog.WriteArgs()
	for _, op := range catalog.SeasonScripts(l) {
		if !tokenless || !slices.Equal(op.Args.Head[:min(len(write), len(op.Args.Head))], write) {
			names[op.Name] = true
		}
	}
	return names
}
