package boardtest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// dailySchema is the daily board (internal/season): signed rollup fields, one in the member
// spanning ±2^52, and entry data.
const dailySchema = "internal/season/daily/daily.yaml"

// wildVolume is a Volume of trader p in the i-th newest of seven days: three near +2^52, then
// three near -2^52, odd, so the running sum passes 2^53 (where doubles step by 2) before it
// comes back into range: a rollup that added in doubles would be off by one.
func wildVolume(i int, rng *rand.Rand) int64 {
	v := int64(1)<<52 - 1 - 2*rng.Int64N(500)
	switch {
	case i < 3:
		return v
	case i < 6:
		return -v
	}
	return rng.Int64N(1000)
}

// fillDays writes random entries, with random data, of traders t00..t39 to the boards of
// days (each trader in about two days of three; the wild ones, every day, with wildVolume)
// and returns each day's model. Profits and trade counts stay small unless huge is set, when a
// few reach the ends of their ranges (their sums overflow).
func fillDays(t *testing.T, l *layout.Layout, ss *daily.Seasons, days []daily.Season, rng *rand.Rand, huge bool) []*boardmodel.Model {
	t.Helper()
	models := make([]*boardmodel.Model, len(days))
	for i, s := range days {
		models[i] = boardmodel.For(boardmodel.NewBoard(l, ss.Board(s)))
		var es []daily.Entry
		for p := range 40 {
			wild := p%8 == 0
			if !wild && rng.IntN(3) == 0 {
				continue
			}
			profit, trades := rng.Int64N(20001)-10000, rng.Uint64N(300)
			if huge && rng.IntN(10) == 0 {
				profit, trades = []int64{-1e9, 1e9}[rng.IntN(2)]+rng.Int64N(3)-1, l.Fields[1].Hi-rng.Uint64N(3)
				profit = max(-1e9, min(1e9, profit))
			}
			volume := rng.Int64N(2e12) - 1e12
			if wild {
				volume = wildVolume(i, rng)
			}
			e := layout.Entry{ID: fmt.Sprintf("t%02d", p), Keys: []uint64{layout.IntKey(profit), trades, layout.IntKey(volume)}, Data: oracle.RandomData(l, rng)}
			if _, err := models[i].Set(e); err != nil {
				t.Fatal(err)
			}
			var g daily.Entry
			oracle.ToGenerated(l, e, &g)
			es = append(es, g)
		}
		if _, err := ss.Board(s).SetMany(ctx, es); err != nil {
			t.Fatal(err)
		}
	}
	return models
}

// TestSeasonRollupSignedData: Seasons.Rollup of each field of the daily board (int Profit in
// the score, uint Trades, int Volume in the member, ascending) by sum, max and min over the
// last 1 to 7 days agrees with the model (boardmodel.Rollup) on one server and on the cluster:
// the rollup board's stored scores, members and data hash equal, byte for byte, what the
// interpreted codec and the generated Encode make of the model's entries; Top, Page, Rank and
// Around return its entries with the data of the newest day that holds each trader; a sum
// outside the field's range (Volume's wild traders over 3 to 5 days, huge profits) fails with
// ErrOverflow and writes nothing, and one that passes 2^53 on its way back into range is exact.
func TestSeasonRollupSignedData(t *testing.T) {
	l := parse(t, dailySchema)
	fields := []daily.RollupField{daily.RollupProfit, daily.RollupTrades, daily.RollupVolume}
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		now := time.Date(2027, 3, 10, 12, 0, 0, 0, time.UTC) // coming days: their boards do not expire during the test
		overflows, built := map[daily.RollupField]int{}, map[daily.RollupField]int{}
		for round := range 3 {
			rng := rand.New(rand.NewPCG(uint64(round), 7))
			base := "{" + redistest.Key(t, fmt.Sprint("daily", round)) + "}:daily"
			ss := daily.NewSeasons(tg.Client, base, daily.WithClock(func() time.Time { return now }))
			days := ss.Recent(7)
			models := fillDays(t, l, ss, days, rng, round == 2)
			for _, field := range fields {
				for _, op := range []daily.RollupOp{daily.RollupSum, daily.RollupMax, daily.RollupMin} {
					for _, last := range []int{1, 3, 6, 7} {
						what := fmt.Sprintf("round %d: %v of %v over the last %d days", round, op, field, last)
						got, err := ss.Rollup(ctx, daily.RollupSpec{Field: field, Op: op, Last: last, TTL: time.Minute})
						want, werr := boardmodel.Rollup(models[:last], int(field)-1, op)
						if !boardmodel.SameError(err, werr) {
							t.Fatalf("%s: %v; want %v", what, err, werr)
						}
						key := rankgenrt.RollupKey(base, field.String(), op, last, days[0])
						if err != nil {
							overflows[field]++
							if n, xerr := tg.Client.Exists(ctx, key, rankgenrt.DataKey(key)).Result(); xerr != nil || n != 0 {
								t.Errorf("%s: a refused rollup left %d keys (%v)", what, n, xerr)
							}
							continue
						}
						built[field]++
						compareStored(t, what, tg, l, key, want)
						compareReads(t, what, boardmodel.NewBoard(l, got), want, rng)
					}
				}
			}
		}
		for _, field := range fields {
			if overflows[field] == 0 && field != daily.RollupTrades || built[field] == 0 {
				t.Errorf("%v: %d rollups built, %d overflowed; the rounds should draw both", field, built[field], overflows[field])
			}
		}
	})
}

// compareStored compares the rollup board under key as stored (every score and member, every
// data field) with what the interpreted codec, and the generated Encode, make of want's
// entries.
func compareStored(t *testing.T, what string, tg redistest.Target, l *layout.Layout, key string, want *boardmodel.Model) {
	t.Helper()
	stored, err := tg.Client.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	data, err := tg.Client.HGetAll(ctx, rankgenrt.DataKey(key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	delete(data, "") // the data format's fingerprint
	scores := map[string]float64{}
	for _, z := range stored {
		scores[z.Member.(string)] = z.Score
	}
	if len(stored) != len(want.Entries) || len(data) != len(want.Data) {
		t.Fatalf("%s: %d entries and %d data stored; want %d and %d", what, len(stored), len(data), len(want.Entries), len(want.Data))
	}
	for _, e := range want.Sorted() {
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		var g daily.Entry
		oracle.ToGenerated(l, e, &g)
		gs, gm, err := g.Encode()
		if err != nil || gs != score || gm != member {
			t.Fatalf("%s: %s: the generated Encode gives %v %q (%v); the interpreted codec %v %q", what, e.ID, gs, gm, err, score, member)
		}
		if got, ok := scores[member]; !ok || got != score {
			t.Fatalf("%s: %s: stored score of %q = %v (found %v); want %v", what, e.ID, member, got, ok, score)
		}
		text, err := l.EncodeData(want.Data[e.ID])
		if err != nil {
			t.Fatal(err)
		}
		if data[e.ID] != text {
			t.Fatalf("%s: %s: stored data %q; want %q", what, e.ID, data[e.ID], text)
		}
	}
}
