package boardtest

import (
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/racing"
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
			b, err := racing.NewShardedBoard(tg.Client, redistest.Key(t, "resend-"+name), 4)
			if err != nil {
				t.Fatal(err)
			}
			var batch, shard0 []racing.Update[int64]
			for car := uint64(1); car <= 40; car++ {
				u := racing.Update[int64]{Car: car, Value: int64(car)}
				batch = append(batch, u)
				if rankgenrt.ShardOf(strconv.FormatUint(car, 10), 4) == 0 {
					shard0 = append(shard0, u)
				}
			}
			sent := rankgenrt.WithIdempotencyKey(ctx, "batch-"+name)
			if partial {
				if _, err := b.Shards()[0].AddLapsMany(sent, shard0); err != nil { // shard 0's part, under the batch's token
					t.Fatal(err)
				}
			} else if _, err := b.AddLapsMany(sent, batch); err != nil {
				t.Fatal(err)
			}
			res, err := b.AddLapsMany(sent, batch) // the resend
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if r.Err != nil || r.Entry.Laps != uint16(batch[i].Value) {
					t.Errorf("%s: car %d after the resend: %+v; want %d laps", name, batch[i].Car, r, batch[i].Value)
				}
			}
			for _, u := range batch {
				if e, err := b.Get(ctx, u.Car); err != nil || int64(e.Laps) != u.Value {
					t.Errorf("%s: car %d holds %+v, %v; want %d laps: each part applied once", name, u.Car, e, err, u.Value)
				}
			}
		}
	})
}
