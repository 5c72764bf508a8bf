package boardtest

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v2"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestRollingDeployAppendedData: a board filled by code of schema v1 is written and read by code
// of v1 and of v2 (which appends the data field Car) together, as during a rolling deploy, then
// by v2 alone. Nothing is refused, and nothing is lost: every acknowledged write is on the board,
// a Car that v2 set survives v1's later writes of the same entry's data, and an entry v2 never
// wrote reads Car as its zero. 10,000 entries; RANKGEN_LONG=1 fills 100,000.
func TestRollingDeployAppendedData(t *testing.T) {
	n := 10_000
	if os.Getenv("RANKGEN_LONG") == "1" {
		n = 100_000
	}
	c := redistest.Client(t)
	key := redistest.Key(t, "compat")
	b1, b2 := v1.NewBoard(c, key), v2.NewBoard(c, key)
	id := func(i int) string { return fmt.Sprintf("p%06d", i) }

	// want is each entry as the test last wrote it, in v2's terms (Car: kart when v2 never set it).
	want := make([]v2.Entry, n)
	fill := make([]v1.Entry, 0, 1000)
	for i := range n {
		want[i] = v2.Entry{PlayerID: id(i), Points: uint32(i), Data: v2.Data{Nick: "n" + id(i), Level: uint8(i)}}
		fill = append(fill, v1.Entry{PlayerID: id(i), Points: uint32(i), Data: v1.Data{Nick: "n" + id(i), Level: uint8(i)}})
		if len(fill) == cap(fill) || i == n-1 {
			if _, err := b1.SetMany(ctx, fill); err != nil {
				t.Fatalf("filling with v1: %v", err)
			}
			fill = fill[:0]
		}
	}

	// The deploy: four writers, each owning the ids i ≡ g (mod 4) among every fifth id, run both
	// versions' code on them in turn while the others do the same: v2 sets Car, then v1 replaces
	// the data it knows and adds points, and each reads back what the other version wrote.
	var (
		mu      sync.Mutex
		refused []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(refused) < 10 {
			refused = append(refused, fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 5 * g; i < n; i += 20 {
				w := &want[i]
				car := v2.Car(1 + i%2)
				if _, err := b2.Set(ctx, v2.Entry{PlayerID: w.PlayerID, Points: w.Points + 1, Data: v2.Data{Nick: "v2", Level: 2, Car: car}}); err != nil {
					fail("v2 Set %s: %v", w.PlayerID, err)
					continue
				}
				if got, err := b1.Get(ctx, w.PlayerID); err != nil || got.Points != w.Points+1 || got.Data != (v1.Data{Nick: "v2", Level: 2}) {
					fail("v1 Get %s after v2's Set: %+v, %v", w.PlayerID, got, err)
				}
				if _, err := b1.Update(ctx, w.PlayerID, v1.AddPoints(2), v1.SetData(v1.Data{Nick: "v1", Level: 1})); err != nil {
					fail("v1 Update %s: %v", w.PlayerID, err)
					continue
				}
				if _, err := b1.AddPoints(ctx, w.PlayerID, 3); err != nil {
					fail("v1 AddPoints %s: %v", w.PlayerID, err)
					continue
				}
				if _, err := b1.Set(ctx, v1.Entry{PlayerID: w.PlayerID, Points: w.Points + 10, Data: v1.Data{Nick: "v1set", Level: 7}}); err != nil {
					fail("v1 Set %s: %v", w.PlayerID, err)
					continue
				}
				w.Points, w.Data = w.Points+10, v2.Data{Nick: "v1set", Level: 7, Car: car}
				if got, err := b2.Get(ctx, w.PlayerID); err != nil || got != *w {
					fail("v2 Get %s after v1's writes: %+v, %v; want %+v", w.PlayerID, got, err, *w)
				}
				// An id only v1 rewrites, beside it: no Car to keep, and v2 reads its zero.
				o := &want[i+1]
				if _, err := b1.Update(ctx, o.PlayerID, v1.AddPoints(1), v1.SetData(v1.Data{Nick: "v1only", Level: 9})); err != nil {
					fail("v1 Update %s: %v", o.PlayerID, err)
					continue
				}
				o.Points, o.Data = o.Points+1, v2.Data{Nick: "v1only", Level: 9}
				if _, err := b2.AddPoints(ctx, o.PlayerID, 1); err != nil {
					fail("v2 AddPoints %s: %v", o.PlayerID, err)
					continue
				}
				o.Points++
			}
		}()
	}
	wg.Wait()
	if len(refused) > 0 {
		t.Fatalf("during the deploy, writes or reads failed (first %d):\n%s", len(refused), strings.Join(refused, "\n"))
	}

	// v2 alone: it updates entries v1 wrote last, and its change lists keep the data.
	for i := 2; i < n; i += 5 {
		if _, err := b2.Update(ctx, id(i), v2.AddPoints(1), v2.SetData(v2.Data{Nick: "v2late", Level: 3, Car: v2.CarTouring})); err != nil {
			t.Fatalf("v2 Update %s: %v", id(i), err)
		}
		want[i].Points, want[i].Data = want[i].Points+1, v2.Data{Nick: "v2late", Level: 3, Car: v2.CarTouring}
	}

	// Nothing lost: every entry as last written, read by v2 (and its first fields by v1).
	ids := make([]string, n)
	for i := range n {
		ids[i] = id(i)
	}
	for at := 0; at < n; at += 1000 {
		got2, err := b2.GetMany(ctx, ids[at:min(at+1000, n)]...)
		if err != nil {
			t.Fatal(err)
		}
		got1, err := b1.GetMany(ctx, ids[at:min(at+1000, n)]...)
		if err != nil {
			t.Fatal(err)
		}
		for j := range got2 {
			w := want[at+j]
			if got2[j].Err != nil || got2[j].Entry != w {
				t.Fatalf("v2 reads %s as %+v (%v); want %+v", w.PlayerID, got2[j].Entry, got2[j].Err, w)
			}
			if e := got1[j].Entry; got1[j].Err != nil || e.Points != w.Points || e.Data != (v1.Data{Nick: w.Data.Nick, Level: w.Data.Level}) {
				t.Fatalf("v1 reads %s as %+v (%v); want %+v", w.PlayerID, e, got1[j].Err, w)
			}
		}
	}
	stored, err := c.HGet(ctx, rankgenrt.DataKey(key), "").Result()
	if err != nil || rankgenrt.DataFormatLast(stored) != v2.DataFingerprint {
		t.Errorf("the data hash records format %q (%v); want v2's, ending %s", stored, err, v2.DataFingerprint)
	}
}
