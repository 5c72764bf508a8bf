package luaemit

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// feedSchema is a random schema (integer, decimal or bits62 scores; bare ids or a member
// prefix; with or without data) with a feed over three boards: best, then add of a field that
// declares add (set where none does), then set.
func feedSchema(t *testing.T, rng *rand.Rand, seed int) *layout.Layout {
	t.Helper()
	pkg := fmt.Sprintf("f%02d", seed)
	src := oracle.RandomSchema(rng, pkg)
	if seed%3 == 2 {
		src = oracle.RandomBits62Schema(rng, pkg)
	}
	// Adds that overflow refuse the whole call: the feed's boards must see some.
	src = bytes.ReplaceAll(src, []byte("overflow: saturate"), []byte("overflow: error"))
	if seed%2 == 1 {
		src = append(src, "data:\n  - {name: Note, type: string, max_bytes: 8}\n  - {name: Level, type: enum, values: [low, high]}\n"...)
	}
	l, err := layout.Parse(pkg+".yaml", src)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	second := "rule: set"
	for _, f := range l.Fields {
		if slices.Contains(f.Updates, layout.OpAdd) && f.Span() < 1<<53 {
			second = "rule: add, field: " + f.Name
			break
		}
	}
	src = append(src, fmt.Sprintf(`
feeds:
  - name: Submit
    boards:
      - {name: First, key: "{<game>}:first", rule: best}
      - {name: Second, key: "{<game>}:second", %s}
      - {name: Third, key: "{<game>}:third", rule: set}
`, second)...)
	if l, err = layout.Parse(pkg+".yaml", src); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return l
}

// TestFeedRandomBoards runs the feed function of random layouts on a real server (one and a
// cluster) and compares every call's reply and, at the end, every board with the model
// (boardmodel.Feed): the feed template's paths for each score kind, bare ids and member
// prefixes, data, and adds that overflow.
func TestFeedRandomBoards(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		seen := map[string]bool{}
		for seed := range tg.Size(12, 6) {
			rng := rand.New(rand.NewPCG(uint64(seed), 22))
			l := feedSchema(t, rng, seed)
			t.Run(l.Package, func(t *testing.T) {
				seen[fmt.Sprint("prefix ", l.HasPrefix())] = true
				seen[fmt.Sprint("data ", l.HasData())] = true
				seen[string(l.Feeds[0].Boards[1].Rule)] = true
				seen["refused"] = seen["refused"] || feedDifferential(t, tg.Client, l, rng) > 0
			})
		}
		for _, want := range []string{"prefix true", "prefix false", "data true", "data false", "add", "set", "refused"} {
			if !seen[want] {
				t.Errorf("no layout drawn with %s", want)
			}
		}
	})
}

// feedDifferential runs 60 random submissions on l's feed and returns how many were refused.
func feedDifferential(t *testing.T, c redis.UniversalClient, l *layout.Layout, rng *rand.Rand) (refused int) {
	ctx := context.Background()
	lib, err := Render(l)
	if err != nil {
		t.Fatal(err)
	}
	fn := rankgenrt.NewLibrary(lib.Source).Function("feed_submit")
	game := redistest.Key(t, "g")
	var boards []string
	var keys []string
	models := make([]*boardmodel.Model, 3)
	for i, name := range []string{"first", "second", "third"} {
		b := "{" + game + "}:" + name
		boards = append(boards, b)
		aux := rankgenrt.MetaKey(b)
		if l.HasPrefix() {
			aux = rankgenrt.IndexKey(b)
		}
		keys = append(keys, b, aux, rankgenrt.AckBase(b), rankgenrt.FenceKey(b))
		if l.HasData() {
			keys = append(keys, rankgenrt.DataKey(b))
		}
		models[i] = boardmodel.New(l)
	}
	ids := make([]string, 4)
	for i := range ids {
		ids[i] = oracle.RandomID(l, rng)
	}
	if add := l.Feeds[0].Boards[1]; add.Rule == layout.FeedAdd {
		// The second board's first ids start at the top of the field that gains: their adds
		// overflow (or come down from it).
		stride := len(keys) / 3
		for _, id := range ids[:2] {
			e := oracle.RandomEntry(l, rng)
			e.ID = id
			e.Keys[slices.Index(l.Fields, add.Field)] = add.Field.Hi
			score, member, err := l.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			args := []any{"", "", "set-" + id, "60", rankgenrt.FormatScore(score), member}
			if l.HasData() {
				args = append(args, "")
			}
			if _, err := rankgenrt.RunWrite(ctx, c, rankgenrt.NewLibrary(lib.Source).Function("set"), keys[stride:2*stride], "set-"+id, args...); err != nil {
				t.Fatal(err)
			}
			if _, err := models[1].Set(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for step := range 60 {
		e := oracle.RandomEntry(l, rng)
		e.ID = ids[rng.IntN(len(ids))]
		args := []any{"", "", fmt.Sprint("t", step), "60"}
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, rankgenrt.FormatScore(score), member)
		if l.HasData() {
			e.Data = oracle.RandomData(l, rng)
			data, err := l.EncodeData(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, data)
		}
		args = append(args, "1")
		v, err := rankgenrt.RunWrite(ctx, c, fn, keys, fmt.Sprint("t", step), args...)
		want, werr := boardmodel.Feed(l.Feeds[0], models, e)
		if !boardmodel.SameError(err, werr) {
			t.Fatalf("step %d %+v: error %v, model %v", step, e, err, werr)
		}
		if err != nil {
			refused++
			continue
		}
		got, err := rankgenrt.FeedBoards(v, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			rank, rerr := models[i].Rank(e.ID)
			if g.Changed != want[i] || g.Found != (rerr == nil) || g.Found && g.Rank != rank {
				t.Fatalf("step %d board %d: %+v, model changed=%v rank %d (%v)", step, i, g, want[i], rank, rerr)
			}
		}
	}
	for i, b := range boards {
		got, err := c.ZRevRangeWithScores(ctx, b, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		want := models[i].Sorted()
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries, model %d", b, len(got), len(want))
		}
		for j, z := range got {
			e, err := l.Decode(z.Score, z.Member.(string))
			if err != nil || e.ID != want[j].ID || !slices.Equal(e.Keys, want[j].Keys) {
				t.Fatalf("%s rank %d: %+v (%v), model %+v", b, j+1, e, err, want[j])
			}
		}
	}
	return refused
}
