package luaemit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"math/rand/v2"

	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

// TestGolden renders the scripts of every example schema and compares them with the ones
// committed in examples/generated/<package> (go generate ./examples/... writes them; rankgen
// check guards them too, but builds the command, so this is the quick check of the emitter).
// go-redis runs scripts by the SHA-1 of their exact text, so any byte that changes there
// changes what servers cache: review such diffs.
func TestGolden(t *testing.T) {
	schemas, err := filepath.Glob(filepath.Join("..", "..", "examples", "schemas", "*.yaml"))
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, path := range schemas {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		l, err := layout.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		scripts, err := Scripts(l)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("..", "..", "examples", "generated", l.Package)
		committed, err := filepath.Glob(filepath.Join(dir, "*.lua"))
		if err != nil {
			t.Fatal(err)
		}
		rendered := map[string]bool{}
		for _, s := range scripts {
			rendered[s.File] = true
			want, err := os.ReadFile(filepath.Join(dir, s.File))
			if err != nil || !bytes.Equal([]byte(s.Source), want) {
				t.Errorf("%s: %s differs from the one in %s (run go generate ./examples/... and review the diff)", name, s.File, dir)
			}
		}
		for _, c := range committed {
			if !rendered[filepath.Base(c)] {
				t.Errorf("%s: %s is no longer rendered (run go generate ./examples/...)", name, c)
			}
		}
	}
}

// TestScriptShape checks what every script must carry: the shebang first (read-only ones
// flagged no-writes), the generated header, keys only through KEYS, no 14-digit number
// formatting, no bit library, and a deterministic order and text.
func TestScriptShape(t *testing.T) {
	for _, path := range mustGlob(t) {
		src, _ := os.ReadFile(path)
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Scripts(l)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Scripts(l)
		seen := map[string]bool{}
		ops := catalog.Scripts(l)
		if len(ops) != len(a) {
			t.Fatalf("%s: %d scripts for %d scripted operations", l.File, len(a), len(ops))
		}
		for i, s := range a {
			if s != b[i] {
				t.Fatalf("%s: not deterministic", s.File)
			}
			if seen[s.File] || s.File != l.LuaFile(s.Op) {
				t.Fatalf("%s: duplicate or misnamed", s.File)
			}
			seen[s.File] = true
			lines := strings.SplitN(s.Source, "\n", 3)
			if s.Op != ops[i].Name {
				t.Fatalf("%s: script %d is %s, the catalogue's is %s", l.File, i, s.Op, ops[i].Name)
			}
			ro := ops[i].ReadOnly
			wantShebang := "#!lua"
			if ro {
				wantShebang += " flags=no-writes"
			} else if ops[i].OnlyDeletes {
				wantShebang += " flags=allow-oom" // they only delete: a full server still runs them
			}
			if lines[0] != wantShebang || lines[1] != "-- "+layout.Header(l.File) {
				t.Fatalf("%s: header %q", s.File, lines[:2])
			}
			for _, banned := range []string{"tostring", "bit.", "cjson", "{double", "redis.call('KEYS'"} {
				if strings.Contains(s.Source, banned) {
					t.Errorf("%s uses %s", s.File, banned)
				}
			}
		}
	}
}

func mustGlob(t *testing.T) []string {
	schemas, err := filepath.Glob(filepath.Join("..", "..", "examples", "schemas", "*.yaml"))
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	return schemas
}

// TestCatalogueTemplates checks that every scripted operation of every example names a
// template that exists.
func TestCatalogueTemplates(t *testing.T) {
	for _, path := range mustGlob(t) {
		src, _ := os.ReadFile(path)
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range catalog.Scripts(l) {
			if tmpl.Lookup(op.Template) == nil {
				t.Errorf("%s: operation %s names template %q, which templates/ lacks", l.File, op.Name, op.Template)
			}
		}
	}
}

// TestPositions checks how the catalogue's doc text becomes ARGV positions: arguments and the
// repeated group are rendered, Lua tables are left alone, an argument the script lacks is an
// error.
func TestPositions(t *testing.T) {
	a := catalog.UpdateArgs()
	got, err := positions("{mode}, {clock}; {each}: pairs. Returns {P, member} or {P}.", a)
	if want := "ARGV[1], ARGV[5]; ARGV[6..]: pairs. Returns {P, member} or {P}."; err != nil || got != want {
		t.Errorf("positions = %q, %v; want %q", got, err, want)
	}
	if _, err := positions("{keep}: how many", a); err == nil {
		t.Error("positions of an argument the script lacks: want an error")
	}
}

func TestLuaString(t *testing.T) {
	if got, want := luaString("a'\\\x00\xff|"), `'a\'\\\000\255|'`; got != want {
		t.Errorf("luaString = %s, want %s", got, want)
	}
}

// TestRandomSchemas renders the scripts of random valid schemas: every one renders, except
// for the documented refusals (an update or stamp on a field too wide for exact Lua
// arithmetic, or client and server stamps mixed).
func TestRandomSchemas(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	refused := 0
	reasons := map[string]int{}
	for i := 0; i < 500; i++ {
		src := oracle.RandomSchema(rng, "p")
		l, err := layout.Parse("r.yaml", src)
		if err != nil {
			t.Fatalf("random schema %d does not parse: %v\n%s", i, err, src)
		}
		_, err = Scripts(l)
		if err != nil {
			if !strings.Contains(err.Error(), "2^53") && !strings.Contains(err.Error(), "pick one") {
				t.Fatalf("schema %d: %v\n%s", i, err, src)
			}
			refused++
			reasons[err.Error()[strings.Index(err.Error(), ":")+1:][:40]]++
		}
	}
	t.Logf("%d of 500 random schemas refused: %v", refused, reasons)
}
