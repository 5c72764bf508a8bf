package boardtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Reshard moves entry data with the entries: interrupted after two pages and resumed from its
// progress, it copies every entry of the laps example with its Data once, to the shard of its
// id, where that shard's own reads (its data hash) return it; a source written during the copy
// is reported (ErrReshardDrift).
func TestReshardData(t *testing.T) {
	for _, tg := range shardTargets(t) {
		t.Run(tg.name, func(t *testing.T) {
			key := redistest.Key(t, "laps")
			src, err := laps.NewShardedBoard(tg.c, key, 3)
			if err != nil {
				t.Fatal(err)
			}
			dst, err := laps.NewShardedBoard(tg.c, key, tg.shards)
			if err != nil {
				t.Fatal(err)
			}
			var es []laps.Entry
			for i := range 150 {
				es = append(es, laps.Entry{Driver: fmt.Sprintf("d%03d", i), BestLap: uint32(60000 + i*37%900), Laps: uint32(i % 11),
					Data: laps.Data{Name: fmt.Sprintf("Driver %d", i), Car: laps.Car(i % 4)}})
			}
			if _, err := src.SetMany(ctx, es); err != nil {
				t.Fatal(err)
			}
			stop, cancel := context.WithCancel(ctx)
			pages := 0
			at, err := src.Reshard(stop, dst, laps.ReshardProgress{}, 16, func(laps.ReshardProgress) {
				if pages++; pages == 2 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) || at.Copied != 32 {
				t.Fatalf("interrupted Reshard: %+v, %v; want 32 copied and context.Canceled", at, err)
			}
			if at, err = src.Reshard(ctx, dst, at, 16, nil); err != nil || at.Copied != 150 {
				t.Fatalf("resumed Reshard: %+v, %v", at, err)
			}
			want, _ := src.Top(ctx, 1000)
			got, err := dst.Top(ctx, 1000)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("resharded Top: %v (%d entries), want the source's %d with their data", err, len(got), len(want))
			}
			checkDataPlacement(t, dst, es, tg.shards)
			dst2, _ := laps.NewShardedBoard(tg.c, redistest.Key(t, "laps2"), 2)
			once := false
			_, err = src.Reshard(ctx, dst2, laps.ReshardProgress{}, 64, func(at laps.ReshardProgress) {
				if !once {
					once = true
					if n, err := src.Remove(ctx, at.After.Member); n != 1 || err != nil {
						t.Errorf("Remove(%q) = %d, %v", at.After.Member, n, err)
					}
				}
			})
			if !errors.Is(err, rankgenrt.ErrReshardDrift) {
				t.Errorf("Reshard of a source written during the copy: %v, want ErrReshardDrift", err)
			}
		})
	}
}

// checkDataPlacement checks that each entry of es, with its data, is on its id's shard of dst
// and on no other.
func checkDataPlacement(t *testing.T, dst *laps.ShardedBoard, es []laps.Entry, shards int) {
	t.Helper()
	for i, shard := range dst.Shards() {
		for _, e := range es {
			got, err := shard.Get(ctx, e.Driver)
			switch home := rankgenrt.ShardOf(e.Driver, shards); {
			case home != i && !errors.Is(err, rankgenrt.ErrNotFound):
				t.Errorf("shard %d holds %q (%v, %v); its shard is %d", i, e.Driver, got, err, home)
			case home == i && (err != nil || got != e):
				t.Errorf("shard %d: Get(%q) = %+v, %v; want %+v", i, e.Driver, got, err, e)
			}
		}
	}
}
