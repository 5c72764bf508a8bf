package luaemit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// TestPackageLoads: the library of a package of boards (every example and 16 random layouts,
// each part in its own block) loads on a real server as one library, registers every board's
// functions under <library>_<board>_<op>, and each board's reads run under its own layout: a
// board's get refuses another board's key by its fingerprint.
func TestPackageLoads(t *testing.T) {
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	schemas, err := filepath.Glob("../../examples/schemas/*.yaml")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	var parts []BoardPart
	add := func(name string, l *layout.Layout) {
		lib, err := RenderBoard(l, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		parts = append(parts, BoardPart{Board: name, Schema: l.File, Lib: lib})
	}
	for _, s := range schemas {
		stem := strings.TrimSuffix(filepath.Base(s), ".yaml")
		add(stem, parse(t, stem+".yaml", readFile(t, s)))
	}
	rng := rand.New(rand.NewPCG(29, 11))
	for i := 0; i < 16; {
		name := fmt.Sprintf("random%d", i)
		l := parse(t, name+".yaml", oracle.RandomSchema(rng, name))
		if _, err := Render(l); err != nil {
			continue // refused alone, refused in a package
		}
		add(name, l)
		i++
	}
	lib, err := Package("all.yaml", "all", parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FunctionLoadReplace(ctx, lib.Source).Err(); err != nil {
		t.Fatalf("loading a package of %d boards: %v", len(parts), err)
	}
	listed, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: lib.Name}).Result()
	if err != nil || len(listed) != 1 {
		t.Fatalf("FUNCTION LIST: %v, %d libraries", err, len(listed))
	}
	have := map[string]bool{}
	for _, f := range listed[0].Functions {
		have[f.Name] = true
	}
	if len(lib.Functions) != len(have) {
		t.Errorf("the library registers %d functions; Functions lists %d", len(have), len(lib.Functions))
	}
	for _, f := range lib.Functions {
		if !have[f.Name] {
			t.Errorf("%s is not registered", f.Name)
		}
	}
	// A board's call runs under its own layout, whatever part registered last: on a board
	// whose meta key holds racing's fingerprint, racing's around reads and arena's refuses it.
	keys := []string{"{pkg}:board", "{pkg}:board:meta", "{pkg}:board:ack", "{pkg}:board:fence"}
	if err := c.Set(ctx, keys[1], parse(t, "racing.yaml", readFile(t, "../../examples/schemas/racing.yaml")).Fingerprint, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.FCallRo(ctx, lib.Name+"_racing_around", keys, "7", 1, 1).Err(); err != nil && err != redis.Nil { // nil: no entry for the id
		t.Errorf("racing's around on a racing board: %v", err)
	}
	if err := c.FCallRo(ctx, lib.Name+"_arena_around", keys, "7", 1, 1).Err(); err == nil || !strings.Contains(err.Error(), "RANKGEN_LAYOUT_MISMATCH") {
		t.Errorf("arena's around on a racing board: %v; want RANKGEN_LAYOUT_MISMATCH", err)
	}
	t.Logf("%d boards, %d functions, %d bytes in one library", len(parts), len(have), len(lib.Source))
}
