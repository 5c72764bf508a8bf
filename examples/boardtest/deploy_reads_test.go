package boardtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v3"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// v1Max is the largest Points v1's layout holds (30 bits); v3's holds 40.
const v1Max = 1<<30 - 1

// TestRoutedScoreReads: the score reads of v3's code (Between, CountBetween, CompetitionRank,
// DenseRank, CompetitionRankTuple, AroundScore) on a board in v1's layout, between random
// writes of v1's code, answer exactly what v1's own code answers on that board (bands and
// places past v1's range read as their part within it), or are refused with
// ErrNotInPreviousLayout where v1's layout has no exact form of the read (a band or place of
// Class, an Entry's place, the rank by all score fields). After the migration to v3's layout,
// the same Board answers those too.
func TestRoutedScoreReads(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		for seed := range uint64(3) {
			t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { routedScoreReads(t, tg.Client, seed) })
		}
	})
}

func routedScoreReads(t *testing.T, c redis.UniversalClient, seed uint64) {
	key := redistest.Key(t, "reads")
	old, routed := v1.NewBoard(c, key), v3.NewBoard(c, key)
	rng := rand.New(rand.NewPCG(11, seed))
	points := func() uint64 { // v1's values, its edge, and past its range (v3's own range ends at 2^40)
		switch rng.IntN(8) {
		case 0:
			return v1Max + 1 + uint64(rng.IntN(1<<20))
		case 1:
			return v1Max - uint64(rng.IntN(3))
		case 2:
			return 1<<40 + uint64(rng.IntN(3)) // past v3's range too: its own refusal
		}
		return uint64(rng.IntN(40))
	}
	id := func() string { return fmt.Sprintf("p%d", rng.IntN(16)) } // some never written: ErrNotFound
	// A board in v1's layout (a key that holds nothing answers alike in both).
	for i := range 8 {
		if _, err := old.Set(ctx, v1.Entry{PlayerID: fmt.Sprint("p", i), Points: uint32(rng.IntN(40))}); err != nil {
			t.Fatal(err)
		}
	}
	var answered, refused int
	for step := range 500 {
		switch rng.IntN(4) { // the board changes under the reads, by v1's code
		case 0:
			if _, err := old.Set(ctx, v1.Entry{PlayerID: id(), Points: uint32(min(points(), v1Max)), Data: v1.Data{Nick: "n", Level: uint8(rng.IntN(3))}}); err != nil {
				t.Fatal(err)
			}
		case 1:
			if _, err := old.Remove(ctx, id()); err != nil {
				t.Fatal(err)
			}
		}
		all, err := old.Top(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		var gotErr, wantErr error
		what := ""
		switch rng.IntN(9) {
		case 0:
			lo, hi, offset, limit := points(), points(), int64(rng.IntN(4)), int64(rng.IntN(6))
			what = fmt.Sprintf("Between(PointsBetween(%d, %d), %d, %d)", lo, hi, offset, limit)
			got, gotErr = ranked(routed.Between(ctx, v3.PointsBetween(lo, hi), offset, limit))
			want, wantErr = v1Band(lo, hi, func(b v1.Band) (any, error) { return rankedOfV1(old.Between(ctx, b, offset, limit)) }, []v3.Ranked(nil))
			if wantErr == nil && !reflect.DeepEqual(want, inBand(all, lo, hi, offset, limit)) {
				t.Fatalf("step %d: %s: v1's code answers %+v; its Top has %+v", step, what, want, inBand(all, lo, hi, offset, limit))
			}
		case 1:
			lo, hi := points(), points()
			what = fmt.Sprintf("CountBetween(PointsBetween(%d, %d))", lo, hi)
			got, gotErr = routed.CountBetween(ctx, v3.PointsBetween(lo, hi))
			want, wantErr = v1Band(lo, hi, func(b v1.Band) (any, error) { return old.CountBetween(ctx, b) }, int64(0))
			if wantErr == nil && want != int64(len(inBand(all, lo, hi, 0, 100))) {
				t.Fatalf("step %d: %s: v1's code counts %v; its Top has %d", step, what, want, len(inBand(all, lo, hi, 0, 100)))
			}
		case 2:
			who := id()
			what = "CompetitionRank(" + who + ")"
			got, gotErr = routed.CompetitionRank(ctx, who)
			want, wantErr = old.CompetitionRank(ctx, who)
		case 3:
			who := id()
			what = "DenseRank(" + who + ")"
			got, gotErr = routed.DenseRank(ctx, who)
			want, wantErr = old.DenseRank(ctx, who)
		case 4:
			v, before, after := points(), int64(rng.IntN(4)), int64(rng.IntN(4))
			what = fmt.Sprintf("AroundScore(PointsIs(%d), %d, %d)", v, before, after)
			got, gotErr = ranked(routed.AroundScore(ctx, v3.PointsIs(v), before, after))
			switch {
			case v >= 1<<40:
				want, wantErr = []v3.Ranked(nil), rankgenrt.ErrOutOfRange
			default: // past v1's range, v1's place before its highest value is the top, as v's is
				want, wantErr = rankedOfV1(old.AroundScore(ctx, v1.PointsIs(uint32(min(v, v1Max))), before, after))
				if oracle := around(all, v, before, after); wantErr == nil && !reflect.DeepEqual(want, oracle) {
					t.Fatalf("step %d: %s: v1's code answers %+v; its Top has %+v", step, what, want, oracle)
				}
			}
		case 5: // a band of Class: v1's layout has none exactly, but for an empty one
			v, lo, hi := points()%(v1Max+1), v3.Class(rng.IntN(3)), v3.Class(rng.IntN(3))
			what = fmt.Sprintf("CountBetween(PointsIs(%d).ClassBetween(%v, %v))", v, lo, hi)
			got, gotErr = routed.CountBetween(ctx, v3.PointsIs(v).ClassBetween(lo, hi))
			want, wantErr = int64(0), rankgenrt.ErrNotInPreviousLayout
			if lo > hi {
				wantErr = nil // empty in every layout
			}
		case 6:
			v, lo, hi := points()%(v1Max+1), v3.Class(rng.IntN(3)), v3.Class(rng.IntN(3))
			what = fmt.Sprintf("Between(PointsIs(%d).ClassBetween(%v, %v))", v, lo, hi)
			got, gotErr = ranked(routed.Between(ctx, v3.PointsIs(v).ClassBetween(lo, hi), 0, 10))
			want, wantErr = []v3.Ranked(nil), rankgenrt.ErrNotInPreviousLayout
			if lo > hi {
				wantErr = nil
			}
		case 7:
			who := id()
			what = "CompetitionRankTuple(" + who + ")"
			got, gotErr = routed.CompetitionRankTuple(ctx, who)
			want, wantErr = int64(0), rankgenrt.ErrNotInPreviousLayout
		case 8:
			at := v3.Place(v3.PointsIs(points() % (v1Max + 1)).ClassIs(v3.ClassKart))
			if rng.IntN(2) == 0 {
				at = v3.Entry{PlayerID: id(), Points: points() % (v1Max + 1)}
			}
			what = fmt.Sprintf("AroundScore(%+v, 2, 2)", at)
			got, gotErr = ranked(routed.AroundScore(ctx, at, 2, 2))
			want, wantErr = []v3.Ranked(nil), rankgenrt.ErrNotInPreviousLayout
		}
		if errKind(gotErr) != errKind(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: %s on v1's layout: v3's code %+v, %v; v1's %+v, %v", step, what, got, gotErr, want, wantErr)
		}
		if errors.Is(gotErr, rankgenrt.ErrNotInPreviousLayout) {
			refused++
		} else {
			answered++
		}
	}
	if answered < 200 || refused < 50 {
		t.Fatalf("%d reads answered, %d refused: the run did not drive both", answered, refused)
	}
	t.Logf("%d reads answered as v1's code answers them, %d refused", answered, refused)

	// After the switch, what v1's layout could not answer is answered by the same Board.
	migrateToV3(t, c, key)
	all, err := routed.Top(ctx, 100)
	if err != nil || len(all) == 0 {
		t.Fatalf("the migrated board: %+v, %v", all, err)
	}
	first := all[0]
	if n, err := routed.CountBetween(ctx, v3.PointsIs(first.Points).ClassBetween(v3.ClassKart, v3.ClassTouring)); err != nil || n < 1 {
		t.Errorf("after the switch, the entries of Points %d, any Class: %d, %v", first.Points, n, err)
	}
	if r, err := routed.CompetitionRankTuple(ctx, first.PlayerID); err != nil || r != 1 {
		t.Errorf("after the switch, the best entry's rank by all score fields: %d, %v", r, err)
	}
	if rs, err := routed.AroundScore(ctx, first.Entry, 0, 1); err != nil || len(rs) != 1 || rs[0].PlayerID != first.PlayerID {
		t.Errorf("after the switch, around the best entry: %+v, %v", rs, err)
	}
}

// TestRoutedRefusedReadKeepsKeysOld: a read v1's layout cannot answer, on a key that holds
// nothing yet, is answered in v3's (empty) and does not make the Board start the key in v3's
// layout: its next write still makes a board v1's code writes.
func TestRoutedRefusedReadKeepsKeysOld(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		routed := v3.NewBoard(tg.Client, redistest.Key(t, "fresh"))
		if n, err := routed.CountBetween(ctx, v3.PointsIs(1).ClassBetween(v3.ClassKart, v3.ClassRally)); err != nil || n != 0 {
			t.Fatalf("a band of Class on an empty key: %d, %v", n, err)
		}
		if _, err := routed.CompetitionRankTuple(ctx, "nobody"); !errors.Is(err, rankgenrt.ErrNotFound) {
			t.Fatalf("the rank by all score fields of an id on an empty key: %v", err)
		}
		if _, err := routed.Set(ctx, v3.Entry{PlayerID: "a", Points: 5}); err != nil {
			t.Fatal(err)
		}
		if _, err := v1.NewBoard(tg.Client, routed.Key()).Set(ctx, v1.Entry{PlayerID: "b", Points: 6}); err != nil {
			t.Fatalf("v1's code on the board v3's code started: %v", err)
		}
	})
}

// TestShardedRoutedScoreReads: a ShardedBoard of v3's code over shards in v1's layout reads a
// band of Points (bounds past v1's range included) as the whole board's entries in it, with
// their ranks, and counts it; CompetitionRank and AroundScore of a place of Points answer as
// the whole board's entries say; a band of Class, CompetitionRankTuple and an Entry's place
// are refused with ErrNotInPreviousLayout until the shards are migrated, and answered after.
func TestShardedRoutedScoreReads(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		const n, shards = 200, 4
		key := redistest.Key(t, "sharded-reads")
		keys, err := rankgenrt.ShardKeys(key, shards)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		var all []v3.Entry
		for i := range n {
			id := fmt.Sprintf("p%03d", i)
			e := v1.Entry{PlayerID: id, Points: uint32(rng.IntN(60))}
			if i%20 == 0 {
				e.Points = v1Max - uint32(rng.IntN(2))
			}
			if _, err := v1.NewBoard(tg.Client, keys[rankgenrt.ShardOf(id, shards)]).Set(ctx, e); err != nil {
				t.Fatal(err)
			}
			all = append(all, v3.Entry{PlayerID: id, Points: uint64(e.Points), Class: v3.ClassKart})
		}
		slices.SortFunc(all, v3.Compare)
		s3, err := v3.NewShardedBoard(tg.Client, key, shards)
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			lo, hi := uint64(rng.IntN(70)), uint64(rng.IntN(70))
			if rng.IntN(4) == 0 {
				hi = v1Max + 1 + uint64(rng.IntN(1<<20))
			}
			offset, limit := int64(rng.IntN(5)), int64(rng.IntN(15))
			var want []v3.Ranked
			for k, e := range all {
				if lo <= e.Points && e.Points <= hi {
					want = append(want, v3.Ranked{Rank: int64(k + 1), Entry: e})
				}
			}
			count := int64(len(want))
			want = want[min(offset, int64(len(want))):]
			want, _ = ranked(want[:min(limit, int64(len(want)))], nil)
			got, err := ranked(s3.Between(ctx, v3.PointsBetween(lo, hi), offset, limit))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Between(PointsBetween(%d, %d), %d, %d) on v1's shards: %+v, %v; want %+v", lo, hi, offset, limit, got, err, want)
			}
			if got, err := s3.CountBetween(ctx, v3.PointsBetween(lo, hi)); err != nil || got != count {
				t.Fatalf("CountBetween(PointsBetween(%d, %d)) on v1's shards: %d, %v; want %d", lo, hi, got, err, count)
			}
		}
		var whole []v1.Ranked // the board, best first, as v1's code reads it
		for k, e := range all {
			whole = append(whole, v1.Ranked{Rank: int64(k + 1), Entry: v1.Entry{PlayerID: e.PlayerID, Points: uint32(e.Points)}})
		}
		for range 40 {
			e, v := all[rng.IntN(n)], uint64(rng.IntN(70))
			if rng.IntN(4) == 0 {
				v = v1Max + 1 + uint64(rng.IntN(1<<20))
			}
			better := 0
			for better < n && all[better].Points > e.Points {
				better++
			}
			if r, err := s3.CompetitionRank(ctx, e.PlayerID); err != nil || r != int64(better+1) {
				t.Fatalf("CompetitionRank(%s) on v1's shards (Points %d): %d, %v; want %d", e.PlayerID, e.Points, r, err, better+1)
			}
			before, after := int64(rng.IntN(5)), int64(rng.IntN(5))
			want, _ := ranked(around(whole, v, before, after), nil)
			if got, err := ranked(s3.AroundScore(ctx, v3.PointsIs(v), before, after)); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("AroundScore(PointsIs(%d), %d, %d) on v1's shards: %+v, %v; want %+v", v, before, after, got, err, want)
			}
		}
		classes := v3.PointsIs(all[0].Points).ClassBetween(v3.ClassKart, v3.ClassRally)
		if _, err := s3.Between(ctx, classes, 0, 10); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
			t.Errorf("a band of Class on v1's shards: %v", err)
		}
		if _, err := s3.CompetitionRankTuple(ctx, all[0].PlayerID); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
			t.Errorf("CompetitionRankTuple on v1's shards: %v", err)
		}
		if _, err := s3.AroundScore(ctx, all[0], 1, 1); !errors.Is(err, rankgenrt.ErrNotInPreviousLayout) {
			t.Errorf("AroundScore of an Entry on v1's shards: %v", err)
		}
		for _, k := range keys {
			migrateToV3(t, tg.Client, k)
		}
		if got, err := s3.Between(ctx, classes, 0, 10); err != nil || len(got) == 0 || got[0].Entry != all[0] {
			t.Errorf("a band of Class after the switch: %+v, %v; want %+v first", got, err, all[0])
		}
		if r, err := s3.CompetitionRankTuple(ctx, all[0].PlayerID); err != nil || r != 1 {
			t.Errorf("CompetitionRankTuple of the best entry after the switch: %d, %v", r, err)
		}
		if rs, err := s3.AroundScore(ctx, all[0], 0, 1); err != nil || len(rs) != 1 || rs[0].Entry != all[0] {
			t.Errorf("AroundScore of the best entry after the switch: %+v, %v", rs, err)
		}
	})
}

// ranked is a read's entries with an empty answer as nil, so that answers compare whatever
// slice each read makes of nothing.
func ranked(rs []v3.Ranked, err error) ([]v3.Ranked, error) {
	if len(rs) == 0 {
		return nil, err
	}
	return rs, err
}

// rankedOfV1 is v1's ranked entries as v3's code reads them (Class: kart, v1's default).
func rankedOfV1(rs []v1.Ranked, err error) ([]v3.Ranked, error) {
	var out []v3.Ranked
	for _, r := range rs {
		out = append(out, v3.Ranked{Rank: r.Rank, Entry: v3.Entry{PlayerID: r.PlayerID, Points: uint64(r.Points), Class: v3.ClassKart,
			Data: v3.Data{Nick: r.Data.Nick, Level: r.Data.Level}}})
	}
	return out, err
}

// v1Band is read's answer for v1's band of the values of [lo, hi] that v1's layout holds:
// empty where it holds none of them, v3's range error where v3 refuses a bound.
func v1Band(lo, hi uint64, read func(v1.Band) (any, error), empty any) (any, error) {
	if lo >= 1<<40 || hi >= 1<<40 {
		return empty, rankgenrt.ErrOutOfRange
	}
	if lo > hi || lo > v1Max {
		return empty, nil
	}
	return read(v1.PointsBetween(uint32(lo), uint32(min(hi, v1Max))))
}

// inBand is the page of all (a whole board, best first) whose Points lie in [lo, hi], with
// their ranks: the oracle of Between.
func inBand(all []v1.Ranked, lo, hi uint64, offset, limit int64) []v3.Ranked {
	var in []v1.Ranked
	for _, r := range all {
		if lo <= uint64(r.Points) && uint64(r.Points) <= hi {
			in = append(in, r)
		}
	}
	in = in[min(offset, int64(len(in))):]
	out, _ := rankedOfV1(in[:min(limit, int64(len(in)))], nil)
	return out
}

// around is the oracle of AroundScore(PointsIs(v)) on all (a whole board, best first): up to
// before entries with more Points than v, then up to after from there on.
func around(all []v1.Ranked, v uint64, before, after int64) []v3.Ranked {
	k := int64(0)
	for k < int64(len(all)) && uint64(all[k].Points) > v {
		k++
	}
	out, _ := rankedOfV1(all[max(0, k-before):min(int64(len(all)), k+after)], nil)
	return out
}
