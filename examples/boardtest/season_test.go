package boardtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// TestSeasonBoardsFresh: the committed season packages (blitz, daily), and the two versions of
// the compat board (v1, v2), are what their schemas generate now.
func TestSeasonBoardsFresh(t *testing.T) {
	for _, dir := range []string{"season/blitz", "season/daily", "compat/v1", "compat/v2"} {
		name, dir := filepath.Base(dir), filepath.Join("internal", dir)
		src, err := os.ReadFile(filepath.Join(dir, name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		files, err := generator.Generate(name+".yaml", src)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			path := filepath.Join(dir, f.Name)
			if *update {
				if err := os.WriteFile(path, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, f.Data) {
				t.Errorf("%s is stale (run go test ./examples/boardtest -run SeasonBoardsFresh -update)", path)
			}
		}
	}
}

// serverNow is the server's clock.
func serverNow(t *testing.T, c redis.UniversalClient) time.Time {
	t.Helper()
	now, err := c.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// TestSeasonServerStampsAtBoundary writes, across a season boundary of the 2-second blitz
// board, to the boards of the ending and the next season in turn. Redis's clock decides: each
// write lands on the board whose season holds the server's time, the other refuses it with
// ErrSeasonClosed, and no write is ever refused by both (nor stored with a wrapped time).
func TestSeasonServerStampsAtBoundary(t *testing.T) {
	c := redistest.Client(t)
	// A busy machine may wake the loop after the boundary it aimed at: try the next ones, each
	// on boards of their own.
	var old, next *blitz.Board
	var landed, refused [2]int
	for try := 0; try < 5 && (landed[0] == 0 || landed[1] == 0 || refused[0] == 0 || refused[1] == 0); try++ {
		ss := blitz.NewSeasons(c, fmt.Sprintf("{%s}", redistest.Key(t, fmt.Sprint("edge", try))), blitz.WithClock(func() time.Time { return serverNow(t, c) }))
		s := ss.Current()
		if s.End.Sub(serverNow(t, c)) < 500*time.Millisecond { // too close to the end: take the next
			s = ss.Next(s)
		}
		time.Sleep(time.Until(s.End.Add(-150 * time.Millisecond)))
		old, next = ss.Board(s), ss.Board(ss.Next(s))
		landed, refused = straddle(t, c, old, next, s.End.Add(150*time.Millisecond))
	}
	if landed[0] == 0 || landed[1] == 0 || refused[0] == 0 || refused[1] == 0 {
		t.Fatalf("landed %v, refused %v: 5 tries did not straddle a boundary", landed, refused)
	}
	for i, b := range []*blitz.Board{old, next} {
		e, err := b.Get(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		if int(e.Points) != landed[i] || e.At < 0 || e.At >= 2*time.Second {
			t.Errorf("board %d: %+v after %d writes", i, e, landed[i])
		}
	}
	// The last write to the old season was stamped within its last 150 ms or so.
	if e, _ := old.Get(ctx, "p"); e.At < 1700*time.Millisecond {
		t.Errorf("the old season's last stamp %v is far from its end", e.At)
	}
}

// straddle writes to the boards of an ending season and the next one in turn until Redis's
// clock reads until, and counts the writes each board took and refused. A write refused by
// both fails the test.
func straddle(t *testing.T, c redis.UniversalClient, old, next *blitz.Board, until time.Time) (landed, refused [2]int) {
	t.Helper()
	for serverNow(t, c).Before(until) {
		var errs [2]error
		for i, b := range []*blitz.Board{old, next} {
			_, errs[i] = b.AddPoints(ctx, "p", 1)
			switch {
			case errs[i] == nil:
				landed[i]++
			case errors.Is(errs[i], rankgenrt.ErrSeasonClosed):
				refused[i]++
			default:
				t.Fatalf("board %d: %v", i, errs[i])
			}
		}
		if errs[0] != nil && errs[1] != nil {
			t.Fatalf("a write was refused by both seasons: %v; %v", errs[0], errs[1])
		}
		time.Sleep(10 * time.Millisecond)
	}
	return landed, refused
}

// TestSeasonExpiry: a season's board (sorted set and index) expires by itself at the end of
// the season after it (keep: 1), set by the write's own script; Existing follows.
func TestSeasonExpiry(t *testing.T) {
	c := redistest.Client(t)
	ss := blitz.NewSeasons(c, "{blitz}:exp", blitz.WithClock(func() time.Time { return serverNow(t, c) }))
	s := ss.Current()
	b := ss.Board(s)
	if _, err := b.AddPoints(ctx, "p", 5); err != nil {
		if !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Fatal(err)
		}
		s = ss.Current() // the season ended between the two calls: write in the new one
		b = ss.Board(s)
		if _, err := b.AddPoints(ctx, "p", 5); err != nil {
			t.Fatal(err)
		}
	}
	want := ss.Next(s).End.UnixMilli()
	for _, key := range b.Keys()[:2] {
		if at, err := c.Do(ctx, "PEXPIRETIME", key).Int64(); err != nil || at != want {
			t.Errorf("%s expires at %d (%v); want %d, the end of the next season", key, at, err, want)
		}
	}
	if got, err := ss.Existing(ctx); err != nil || len(got) == 0 || got[len(got)-1] != s {
		t.Errorf("Existing = %v, %v; want it to end with %v", got, err, s)
	}
	time.Sleep(time.Until(time.UnixMilli(want).Add(100 * time.Millisecond)))
	if n, err := c.Exists(ctx, b.Keys()[:2]...).Result(); err != nil || n != 0 {
		t.Errorf("%d keys of the expired season remain (%v)", n, err)
	}
	for _, e := range mustExisting(t, ss) {
		if e == s {
			t.Errorf("Existing still lists the expired %v", s)
		}
	}
}

func mustExisting(t *testing.T, ss *blitz.Seasons) []blitz.Season {
	t.Helper()
	got, err := ss.Existing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWeeklySeasons drives the weekly example with an injected clock in a coming week when the
// clocks go back in Paris (169 hours; a past week's boards would expire at once), and the real
// week for server stamps.
func TestWeeklySeasons(t *testing.T) {
	c := redistest.Client(t)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2027, 10, 31, 12, 0, 0, 0, paris)
	ss := weekly.NewSeasons(c, "{wk}:ladder", weekly.WithClock(func() time.Time { return now }))
	s := ss.Current()
	if !s.Start.Equal(time.Date(2027, 10, 25, 0, 0, 0, 0, paris)) || s.Len() != 169*time.Hour {
		t.Fatalf("current week %v lasts %v", s, s.Len())
	}
	b := ss.Board(s)
	if b.Key() != "{wk}:ladder:"+strconv.FormatInt(s.ID, 10) || b.Season() != s {
		t.Fatalf("key %s, season %v", b.Key(), b.Season())
	}
	// The last second of the long week is in it; one more, or one before, is not.
	if _, err := b.Set(ctx, weekly.Entry{PlayerID: "late", Points: 3, ReachedAt: 169*time.Hour - time.Second}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{169 * time.Hour, -time.Second} {
		_, err := b.SetMany(ctx, []weekly.Entry{{PlayerID: "ok", Points: 1}, {PlayerID: "bad", ReachedAt: d}})
		if !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("ReachedAt %v: %v; want ErrSeasonClosed", d, err)
		}
		if _, err := b.BestMany(ctx, []weekly.Entry{{PlayerID: "bad", ReachedAt: d}}); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("Best, ReachedAt %v: %v; want ErrSeasonClosed", d, err)
		}
	}
	if n, _ := c.ZCard(ctx, b.Key()).Result(); n != 1 { // "late" alone
		t.Errorf("a refused batch wrote: %d entries", n)
	}
	// Redis's clock is in an earlier week than this board's: its stamped updates are refused.
	if _, err := b.AddPoints(ctx, "late", 1); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("AddPoints on another week: %v; want ErrSeasonClosed", err)
	}
	if res, err := b.AddPointsMany(ctx, []weekly.Update[int64]{{PlayerID: "late", Value: 1}}); err != nil || !errors.Is(res[0].Err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("AddPointsMany on another week: %v, %v; want ErrSeasonClosed", res, err)
	}
	if e, err := b.Get(ctx, "late"); err != nil || e.Points != 3 {
		t.Errorf("a refused update changed the entry: %+v, %v", e, err)
	}
	// The board expires when the fourth week after it ends.
	want := s
	for range 4 {
		want = ss.Next(want)
	}
	if at, err := c.Do(ctx, "PEXPIRETIME", b.Key()).Int64(); err != nil || at != want.End.UnixMilli() {
		t.Errorf("expires at %d (%v); want %d", at, err, want.End.UnixMilli())
	}
	weeklyHistory(t, c, ss)
	weeklyServerStamps(t, c)
}

// weeklyHistory: Top of last week, a player's rank in each of the last weeks (one round trip
// a week), and the weeks whose boards exist.
func weeklyHistory(t *testing.T, c redis.UniversalClient, ss *weekly.Seasons) {
	for i, pts := range map[int]uint32{1: 10, 3: 30} {
		b := ss.Board(ss.Previous(i))
		if _, err := b.SetMany(ctx, []weekly.Entry{{PlayerID: "ann", Points: pts}, {PlayerID: "bob", Points: pts + 1}}); err != nil {
			t.Fatal(err)
		}
	}
	top, err := ss.Board(ss.Previous(1)).Top(ctx, 10)
	if err != nil || len(top) != 2 || top[0].PlayerID != "bob" || top[1].Points != 10 {
		t.Errorf("Top of last week: %+v, %v", top, err)
	}
	hist, err := ss.History(ctx, "ann", ss.Recent(5)[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	var ranks []int64
	for i, h := range hist {
		if h.Season != ss.Previous(i+1) || (h.Err == nil) != (h.Rank > 0) || (h.Err != nil && !errors.Is(h.Err, rankgenrt.ErrNotFound)) {
			t.Errorf("History[%d] = %+v", i, h)
		}
		ranks = append(ranks, h.Rank)
	}
	if ranks[0] != 2 || ranks[1] != 0 || ranks[2] != 2 || ranks[3] != 0 || hist[2].Points != 30 {
		t.Errorf("ann's ranks over the last 4 weeks: %v (%+v)", ranks, hist)
	}
	got, err := ss.Existing(ctx)
	want := []weekly.Season{ss.Current(), ss.Previous(1), ss.Previous(3)}
	if err != nil || len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Existing = %v, %v; want %v", got, err, want)
	}
}

// weeklyServerStamps: on the real current week, a server-stamped update stores the offset of
// Redis's clock from the week's start.
func weeklyServerStamps(t *testing.T, c redis.UniversalClient) {
	ss := weekly.NewSeasons(c, "{wk}:live")
	before := serverNow(t, c)
	s := ss.At(before)
	e, err := ss.Board(s).AddPoints(ctx, "now", 7)
	after := serverNow(t, c)
	if errors.Is(err, rankgenrt.ErrSeasonClosed) && !s.Contains(after) {
		return // the week ended during the call (a rare race with Monday 00:00 Paris): refusing is right
	}
	if err != nil {
		t.Fatal(err)
	}
	at := s.Start.Add(e.ReachedAt)
	if at.Before(before.Truncate(time.Second)) || at.After(after) {
		t.Errorf("stamp %v (offset %v) outside [%v, %v]", at, e.ReachedAt, before, after)
	}
}

// TestSeasonClientStamps: a client stamp is checked by the script against the board's season
// (the Seasons' clock, injected here, is the client's), and an update's season-anchored value
// in Go before sending.
func TestSeasonClientStamps(t *testing.T) {
	c := redistest.Client(t)
	now := serverNow(t, c)
	ss := blitz.NewSeasons(c, "{blitz}:client", blitz.WithClock(func() time.Time { return now }))
	s := ss.At(now.Add(time.Hour)) // a future season: Redis's clock is outside it too
	b := ss.Board(s)
	if _, err := b.AddPoints(ctx, "p", 1); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Errorf("stamps outside the season: %v; want ErrSeasonClosed", err)
	}
	for _, v := range []time.Duration{2 * time.Second, -time.Millisecond} {
		if _, err := b.MinBest(ctx, "p", v); !errors.Is(err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("MinBest(%v): %v; want ErrSeasonClosed", v, err)
		}
		res, err := b.MinBestMany(ctx, []blitz.Update[time.Duration]{{ID: "p", Value: v}})
		if err != nil || !errors.Is(res[0].Err, rankgenrt.ErrSeasonClosed) {
			t.Errorf("MinBestMany(%v): %v, %v; want ErrSeasonClosed", v, res, err)
		}
	}
	if n, _ := c.Exists(ctx, b.Keys()[:2]...).Result(); n != 0 {
		t.Errorf("refused writes created %d keys", n)
	}
	// In its season, with the client's clock 700 ms into it, the stamp is exactly that offset.
	cur := ss.At(serverNow(t, c))
	now = cur.Start.Add(700 * time.Millisecond)
	e, err := ss.Board(cur).AddPoints(ctx, "q", 2)
	if errors.Is(err, rankgenrt.ErrSeasonClosed) {
		t.Skip("the season ended during the call (Redis's clock stamps At)")
	}
	if err != nil || e.Best != 700*time.Millisecond || e.Points != 2 {
		t.Errorf("AddPoints in season: %+v, %v; want Best 700ms", e, err)
	}
}

// TestPeriodicCodecsAgree: the generated codec of every periodic example (and blitz) and the
// interpreted one agree bit for bit on random entries, season-anchored offsets included, and
// Decode inverts Encode.
func TestPeriodicCodecsAgree(t *testing.T) {
	exs := append(exampleboards.Periodic(), exampleboards.Example{Name: "blitz", Schema: "internal/season/blitz/blitz.yaml",
		Codec: exampleboards.CodecOf(blitz.Entry.Encode, blitz.Decode, blitz.Compare)})
	rng := newRand(t, 11)
	for _, ex := range exs {
		l := parse(t, ex.Schema)
		for i := 0; i < 2000; i++ {
			e := layout.Entry{ID: "p" + strconv.Itoa(rng.IntN(1000)), Keys: make([]uint64, len(l.Fields))}
			for j, f := range l.Fields {
				e.Keys[j] = f.Key(randomDigit(rng, f.Span()))
			}
			score, member, err := l.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			g := reflect.New(ex.Codec.Entry())
			oracle.ToGenerated(l, e, g.Interface())
			gs, gm, err := ex.Codec.Encode(g.Elem().Interface())
			if err != nil || gs != score || gm != member {
				t.Fatalf("%s: %+v: generated (%v, %q, %v), interpreted (%v, %q)", ex.Name, e, gs, gm, err, score, member)
			}
			back, err := ex.Codec.Decode(score, member)
			if err != nil || !reflect.DeepEqual(back, g.Elem().Interface()) {
				t.Fatalf("%s: Decode(%v, %q) = %+v, %v; want %+v", ex.Name, score, member, back, err, g.Elem().Interface())
			}
		}
	}
}
