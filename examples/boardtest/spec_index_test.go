package boardtest

import (
	"errors"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestReadsOfIdsNeedTheIndex: on the quiz board (ids ordered ascending, so members carry the
// id's text reversed and an index maps ids to them), with the index deleted while the board
// holds entries, every read of an id fails with ErrNotIndexed, as the writes do, never
// ErrNotFound for an id that is on the board; the reads of places still read the entries as
// they are, and after Reindex the reads of ids find them again. The same holds through a
// ShardedBoard's shards.
func TestReadsOfIdsNeedTheIndex(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		b := quiz.NewBoard(c, redistest.Key(t, "{quiz}"))
		if _, err := b.SetMany(ctx, []quiz.Entry{{PlayerID: 7, Correct: 3, Millis: 900}, {PlayerID: 8, Correct: 5, Millis: 700}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Del(ctx, rankgenrt.IndexKey(b.Key())).Err(); err != nil {
			t.Fatal(err)
		}
		reads := map[string]func() error{
			"Get":             func() error { _, err := b.Get(ctx, 7); return err },
			"Rank":            func() error { _, err := b.Rank(ctx, 7); return err },
			"Around":          func() error { _, err := b.Around(ctx, 7, 1, 1); return err },
			"AroundFilled":    func() error { _, err := b.AroundFilled(ctx, 7, 1, 1); return err },
			"GetMany":         func() error { return resultErr(b.GetMany(ctx, 7, 8)) },
			"RankMany":        func() error { _, err := b.RankMany(ctx, 7, 8); return err },
			"RankedMany":      func() error { _, err := b.RankedMany(ctx, 7, 8); return err },
			"Percentile":      func() error { _, err := b.Percentile(ctx, 7); return err },
			"PageOf":          func() error { _, err := b.PageOf(ctx, 7, 10); return err },
			"CompetitionRank": func() error { _, err := b.CompetitionRank(ctx, 7); return err },
			"DenseRank":       func() error { _, err := b.DenseRank(ctx, 7); return err },
			"AddCorrect":      func() error { _, err := b.AddCorrect(ctx, 7, 1); return err },
		}
		for name, read := range reads {
			if err := read(); !errors.Is(err, rankgenrt.ErrNotIndexed) {
				t.Errorf("%s of an id on a board without its index: %v; want ErrNotIndexed", name, err)
			}
		}
		if top, err := b.Top(ctx, 10); err != nil || len(top) != 2 || top[0].PlayerID != 8 || top[1].PlayerID != 7 {
			t.Errorf("Top on a board without its index = %+v, %v; want 8, then 7", top, err)
		}
		if n, err := c.Exists(ctx, rankgenrt.IndexKey(b.Key())).Result(); err != nil || n != 0 {
			t.Fatalf("the refused calls wrote the index (%d, %v)", n, err)
		}
		if _, err := b.Reindex(ctx); err != nil {
			t.Fatal(err)
		}
		if e, err := b.Get(ctx, 7); err != nil || e.Correct != 3 {
			t.Fatalf("Get after Reindex = %+v, %v; want 3 correct", e, err)
		}
		if r, err := b.Rank(ctx, 7); err != nil || r != 2 {
			t.Fatalf("Rank after Reindex = %d, %v; want 2", r, err)
		}
		// A board without entries and without an index is empty, not unindexed.
		empty := quiz.NewBoard(c, redistest.Key(t, "{quiz}:empty"))
		if _, err := empty.Get(ctx, 7); !errors.Is(err, rankgenrt.ErrNotFound) {
			t.Errorf("Get on an empty board: %v; want ErrNotFound", err)
		}

		sb, err := quiz.NewShardedBoard(c, redistest.Key(t, "quizsharded"), 2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sb.SetMany(ctx, []quiz.Entry{{PlayerID: 7, Correct: 3}, {PlayerID: 8, Correct: 5}, {PlayerID: 9, Correct: 1}}); err != nil {
			t.Fatal(err)
		}
		for _, shard := range sb.Shards() {
			if err := c.Del(ctx, rankgenrt.IndexKey(shard.Key())).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := sb.Get(ctx, 7); !errors.Is(err, rankgenrt.ErrNotIndexed) {
			t.Errorf("ShardedBoard.Get without the shards' indexes: %v; want ErrNotIndexed", err)
		}
		if _, err := sb.Rank(ctx, 7); !errors.Is(err, rankgenrt.ErrNotIndexed) {
			t.Errorf("ShardedBoard.Rank without the shards' indexes: %v; want ErrNotIndexed", err)
		}
	})
}
