package boardtest

import (
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestShardedBatchResendOnce: a sharded batch resent under its token applies every shard's part
// exactly once, whether the first send reached every shard, or only some (here: shard 0's part
// alone went through, as when the other shards' calls failed): the resend applies the missing
// parts and leaves the applied one as it was. On one server and on the cluster.
func TestShardedBatchResendOnce(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		for _, partial := range []bool{false, true} {
			name := "whole"
			if partial {
				name = "partial"
			}
			b, err := seed002decimal.NewShardedBoard(tg.Client, redistest.Key(t, "resend-"+name), 4)
			if err != nil {
				t.Fatal(err)
			}
			var batch, shard0 []seed002decimal.Update[int64]
			for i := 1; i <= 40; i++ {
				u := seed002decimal.Update[int64]{Player: strconv.Itoa(i), Value: int64(i)}
				batch = append(batch, u)
				if rankgenrt.ShardOf(u.Player, 4) == 0 {
					shard0 = append(shard0, u)
				}
			}
			sent := rankgenrt.WithIdempotencyKey(ctx, "batch-"+name)
			if partial {
				if _, err := b.Shards()[0].AddPointsMany(sent, shard0); err != nil { // shard 0's part, under the batch's token
					t.Fatal(err)
				}
			} else if _, err := b.AddPointsMany(sent, batch); err != nil {
				t.Fatal(err)
			}
			res, err := b.AddPointsMany(sent, batch) // the resend
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if r.Err != nil || int64(r.Entry.Points) != batch[i].Value {
					t.Errorf("%s: player %s after the resend: %+v; want %d points", name, batch[i].Player, r, batch[i].Value)
				}
			}
			for _, u := range batch {
				if e, err := b.Get(ctx, u.Player); err != nil || int64(e.Points) != u.Value {
					t.Errorf("%s: player %s holds %+v, %v; want %d points: each part applied once", name, u.Player, e, err, u.Value)
				}
			}
		}
	})
}
