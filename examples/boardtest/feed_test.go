package boardtest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// feedRun is a run of the ladders example at second s of the year, with score points.
func feedRun(id string, points uint32, s int, region ladders.Region) ladders.Entry {
	return ladders.Entry{PlayerID: id, Score: points, At: time.Date(2026, 3, 1, 0, 0, s, 0, time.UTC), Data: ladders.Data{Region: region}}
}

// feedModel is the model of a ladders feed's boards, by key.
type feedModel struct {
	l      *layout.Layout
	feed   *layout.Feed
	boards map[string]*boardmodel.Model
}

// asLayout is e as the interpreted codec sees it.
func (m *feedModel) asLayout(t *testing.T, e ladders.Entry) layout.Entry {
	t.Helper()
	score, member, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	le, err := m.l.Decode(score, member)
	if err != nil {
		t.Fatal(err)
	}
	if e.Data != (ladders.Data{}) { // the model reads the zero Data as none, as boards return it
		le.Data = []layout.DataValue{{Key: uint64(e.Data.Region)}}
	}
	return le
}

// submit applies e to the models of the boards keys names.
func (m *feedModel) submit(keys []string, e layout.Entry) ([]bool, error) {
	var boards []*boardmodel.Model
	for _, k := range keys {
		if m.boards[k] == nil {
			m.boards[k] = boardmodel.New(m.l)
		}
		boards = append(boards, m.boards[k])
	}
	return boardmodel.Feed(m.feed, boards, e)
}

// check compares every board the model holds with the server's.
func (m *feedModel) check(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	for key, model := range m.boards {
		got, err := ladders.NewBoard(c, key).Top(ctx, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		want := model.Sorted()
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries, model %d", key, len(got), len(want))
		}
		for i, r := range got {
			le := m.asLayout(t, r.Entry)
			if le.ID != want[i].ID || !slices.Equal(le.Keys, want[i].Keys) || !slices.Equal(le.Data, want[i].Data) {
				t.Fatalf("%s rank %d: %+v, model %+v", key, i+1, le, want[i])
			}
		}
	}
}

// TestFeedDifferential submits random runs (few players, so that they tie, improve and fall
// short; three regions; the day and the week changing) through SubmitFeed and compares each
// call's outcome on every board, and at the end every board, with the model of the feed
// (boardmodel.Feed). Some all-time totals start near the field's top, so that adds overflow:
// the whole submission is refused, on every board.
func TestFeedDifferential(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		l := parse(t, "ladders.yaml")
		m := &feedModel{l: l, feed: l.Feeds[0], boards: map[string]*boardmodel.Model{}}
		rng := newRand(t, 22)
		game := redistest.Key(t, "game")
		high := feedRun("p0", 4_294_967_000, 0, ladders.RegionEu)
		alltime := ladders.NewSubmitFeed(tg.Client, ladders.SubmitKeys{Game: game}).BoardKeys(high)[1]
		if _, err := ladders.NewBoard(tg.Client, alltime).Set(ctx, high); err != nil {
			t.Fatal(err)
		}
		if err := m.submitSet(alltime, m.asLayout(t, high)); err != nil {
			t.Fatal(err)
		}
		overflows := 0
		for i := range tg.Size(600, 150) {
			keys := ladders.SubmitKeys{Game: game, Day: fmt.Sprint("d", rng.IntN(2)), Week: fmt.Sprint("w", rng.IntN(2))}
			feed := ladders.NewSubmitFeed(tg.Client, keys)
			e := feedRun(fmt.Sprint("p", rng.IntN(6)), uint32(rng.IntN(40))*100, rng.IntN(4), ladders.Region(rng.IntN(3)))
			ranked := rng.IntN(2) == 0
			var got ladders.SubmitResult
			var err error
			if ranked {
				got, err = feed.SubmitRanked(ctx, e)
			} else {
				got, err = feed.Submit(ctx, e)
			}
			want, werr := m.submit(feed.BoardKeys(e), m.asLayout(t, e))
			if !boardmodel.SameError(err, werr) {
				t.Fatalf("step %d %+v: error %v, model %v", i, e, err, werr)
			}
			if err != nil {
				overflows++
				continue
			}
			fed := []ladders.Fed{got.Daily, got.AllTime, got.Region, got.Week}
			for j, k := range feed.BoardKeys(e) {
				entry, ok := m.boards[k].Entries[e.PlayerID]
				if fed[j].Changed != want[j] || fed[j].Found != ok {
					t.Fatalf("step %d board %s: %+v, model changed=%v found=%v", i, k, fed[j], want[j], ok)
				}
				if ok && !slices.Equal(m.asLayout(t, fed[j].Entry).Keys, entry) {
					t.Fatalf("step %d board %s: entry %+v, model %v", i, k, fed[j].Entry, entry)
				}
				if rank, err := m.boards[k].Rank(e.PlayerID); ranked && ok && (err != nil || fed[j].Rank != rank) {
					t.Fatalf("step %d board %s: rank %d, model %d (%v)", i, k, fed[j].Rank, rank, err)
				}
			}
		}
		if overflows == 0 {
			t.Fatal("no submission overflowed the all-time total: the refusal went untested")
		}
		m.check(t, tg.Client)
	})
}

// submitSet stores e on the model of key, as Board.Set does on the server.
func (m *feedModel) submitSet(key string, e layout.Entry) error {
	if m.boards[key] == nil {
		m.boards[key] = boardmodel.New(m.l)
	}
	_, err := m.boards[key].Set(e)
	return err
}

// TestFeedTwoDevices is the scenario: 200 players, each on two devices that submit
// runs at once, and an all-time total fed from the day's Best improvements. By hand (Get the
// day's entry, Best, then AddScore of the gain) two devices read the same entry and both add
// their gain; through the feed every all-time total equals the day's best (the gains add up
// to it): 0 wrong.
func TestFeedTwoDevices(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		players := tg.Size(200, 50)
		c := tg.WithPoolSize(t, 2*players)
		byHand := twoDevices(t, players, func(run ladders.Entry, keys ladders.SubmitKeys) error {
			bk := ladders.NewSubmitFeed(c, keys).BoardKeys(run)
			day, total := ladders.NewBoard(c, bk[0]), ladders.NewBoard(c, bk[1])
			old, err := day.Get(ctx, run.PlayerID)
			if err != nil && !errors.Is(err, rankgenrt.ErrNotFound) {
				return err
			}
			kept, err := day.Best(ctx, run)
			if err != nil || !kept.Changed {
				return err
			}
			_, err = total.AddScore(ctx, run.PlayerID, int64(run.Score)-int64(old.Score))
			return err
		}, c, redistest.Key(t, "hand"))
		fed := twoDevices(t, players, func(run ladders.Entry, keys ladders.SubmitKeys) error {
			_, err := ladders.NewSubmitFeed(c, keys).Submit(ctx, run)
			return err
		}, c, redistest.Key(t, "feed"))
		t.Logf("%d players, two devices each: wrong all-time totals by hand %d, through the feed %d", players, byHand, fed)
		if fed != 0 {
			t.Fatalf("%d of %d all-time totals are wrong through the feed", fed, players)
		}
	})
}

// twoDevices runs submit for every player from two goroutines at once (20 runs each, scores
// rising and falling) and returns how many players' all-time total differs from their day's
// best.
func twoDevices(t *testing.T, players int, submit func(ladders.Entry, ladders.SubmitKeys) error, c redis.UniversalClient, game string) int {
	t.Helper()
	keys := ladders.SubmitKeys{Game: game, Day: "d", Week: "w"}
	var wg sync.WaitGroup
	errs := make(chan error, 2*players)
	for p := range players {
		for device := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					run := feedRun(fmt.Sprint("player-", p), uint32(100+(i*37+device*11)%90*10), i, ladders.RegionEu)
					if err := submit(run, keys); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	feed := ladders.NewSubmitFeed(c, keys)
	wrong := 0
	for p := range players {
		bk := feed.BoardKeys(feedRun(fmt.Sprint("player-", p), 0, 0, ladders.RegionEu))
		day, err := ladders.NewBoard(c, bk[0]).Get(ctx, fmt.Sprint("player-", p))
		if err != nil {
			t.Fatal(err)
		}
		total, err := ladders.NewBoard(c, bk[1]).Get(ctx, fmt.Sprint("player-", p))
		if err != nil {
			t.Fatal(err)
		}
		if total.Score != day.Score {
			wrong++
		}
	}
	return wrong
}

// TestFeedOnce: a submission resent under its idempotency key is answered with its first reply
// and adds nothing again; the same key on a Board's write names another operation.
func TestFeedOnce(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		feed := ladders.NewSubmitFeed(tg.Client, ladders.SubmitKeys{Game: redistest.Key(t, "g"), Day: "d", Week: "w"})
		kctx := rankgenrt.WithIdempotencyKey(ctx, "run-1")
		run := feedRun("ana", 500, 1, ladders.RegionUs)
		first, err := feed.SubmitRanked(kctx, run)
		if err != nil {
			t.Fatal(err)
		}
		again, err := feed.SubmitRanked(kctx, run)
		if err != nil {
			t.Fatal(err)
		}
		if again != first || first.AllTime.Entry.Score != 500 || first.AllTime.Rank != 1 {
			t.Fatalf("resend answered %+v, first %+v", again, first)
		}
		total, err := ladders.NewBoard(tg.Client, feed.BoardKeys(run)[1]).Get(ctx, "ana")
		if err != nil || total.Score != 500 {
			t.Fatalf("all-time total %d (%v) after a resend, want 500", total.Score, err)
		}
		_, err = ladders.NewBoard(tg.Client, feed.BoardKeys(run)[0]).Best(kctx, run)
		if !errors.Is(err, rankgenrt.ErrTokenReused) {
			t.Fatalf("the feed's key reused by Best: %v, want ErrTokenReused", err)
		}
	})
}

// TestFeedRefusals: a key set that would span hash slots (an empty key part empties the tag)
// is refused before anything is sent; a board of another layout among the feed's boards
// refuses the whole submission, and the boards before it stay empty.
func TestFeedRefusals(t *testing.T) {
	t.Parallel()
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		run := feedRun("ana", 500, 1, ladders.RegionAsia)
		_, err := ladders.NewSubmitFeed(tg.Client, ladders.SubmitKeys{Day: "d", Week: "w"}).Submit(ctx, run)
		if !errors.Is(err, rankgenrt.ErrBadKey) {
			t.Fatalf("empty hash tag: %v, want ErrBadKey", err)
		}
		feed := ladders.NewSubmitFeed(tg.Client, ladders.SubmitKeys{Game: redistest.Key(t, "g"), Day: "d", Week: "w"})
		keys := feed.BoardKeys(run)
		// The week's board is another layout's: its index records another fingerprint.
		if err := tg.Client.HSet(ctx, ladders.NewBoard(tg.Client, keys[3]).Keys()[1], "", "another-layout").Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := feed.Submit(ctx, run); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
			t.Fatalf("week board of another layout: %v, want ErrLayoutMismatch", err)
		}
		for _, k := range keys[:3] {
			if n, err := tg.Client.Exists(ctx, ladders.NewBoard(tg.Client, k).Keys()...).Result(); err != nil || n != 0 {
				t.Fatalf("%s written by a refused submission (%d keys, %v)", k, n, err)
			}
		}
	})
}
