package luaemit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"math/rand/v2"

	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestGolden renders the library of every example schema and compares it with the one
// committed in examples/generated/<package> (go generate ./examples/... writes it; rankgen
// check guards it too, but builds the command, so this is the quick check of the emitter).
// The library's name carries the hash of its exact text, so any byte that changes here gives
// servers a new library to load: review such diffs.
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
		lib, err := Render(l)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("..", "..", "examples", "generated", l.Package)
		committed, err := filepath.Glob(filepath.Join(dir, "*.lua"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, lib.File))
		if err != nil || !bytes.Equal([]byte(lib.Part), want) {
			t.Errorf("%s: %s differs from the one in %s (run go generate ./examples/... and review the diff)", name, lib.File, dir)
		}
		for _, c := range committed {
			if filepath.Base(c) != lib.File {
				t.Errorf("%s: %s is no longer rendered (run go generate ./examples/...)", name, c)
			}
		}
	}
}

// TestLibraryShape checks what the library must carry: its name first, then the name the
// head's register reads, and the part starting with the generated header; one function per scripted operation, in catalogue order, named <library>_<op> and
// flagged as the operation needs (no-writes for reads, allow-oom for the ones that only
// delete); keys only through KEYS, no 14-digit number formatting, no bit library; a
// deterministic text, whose hash is in its name.
func TestLibraryShape(t *testing.T) {
	for _, path := range mustGlob(t) {
		src, _ := os.ReadFile(path)
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Render(l)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Render(l)
		if a.Source != b.Source || a.Name != b.Name {
			t.Fatalf("%s: not deterministic", a.File)
		}
		if a.File != l.LuaFile() || !strings.HasPrefix(a.Name, l.Stem()+"_") || len(a.Name) != len(l.Stem())+13 {
			t.Fatalf("%s: misnamed %s", a.File, a.Name)
		}
		lines := strings.SplitN(a.Source, "\n", 3)
		if lines[0] != "#!lua name="+a.Name || lines[1] != "local LIBRARY = '"+a.Name+"'" {
			t.Fatalf("%s: head %q", a.File, lines[:2])
		}
		if first, _, _ := strings.Cut(a.Part, "\n"); first != "-- "+layout.Header(l.File) || !strings.HasSuffix(a.Source, "\n"+a.Part) {
			t.Fatalf("%s: the part starts %q, or does not end the library", a.File, first)
		}
		ops := append(catalog.Scripts(l), catalog.SeasonScripts(l)...)
		for _, f := range catalog.Feeds(l) { // a feed's function follows the operations', a write
			ops = append(ops, catalog.Op{Name: f.Name})
		}
		if len(ops) != len(a.Functions) {
			t.Fatalf("%s: %d functions for %d scripted operations and feeds", l.File, len(a.Functions), len(ops))
		}
		registered := regexp.MustCompile(`(?m)^register\('(\w+)', \{([^}]*)\}`).FindAllStringSubmatch(a.Part, -1)
		if len(registered) != len(ops) {
			t.Fatalf("%s: %d functions registered for %d operations", a.File, len(registered), len(ops))
		}
		for i, fn := range a.Functions {
			op := ops[i]
			want := ""
			if op.ReadOnly {
				want = "'no-writes'"
			} else if op.OnlyDeletes {
				want = "'allow-oom'" // they only delete: a full server still runs them
			}
			if fn.Op != op.Name || fn.Name != a.Name+"_"+op.Name || fn.ReadOnly != op.ReadOnly ||
				registered[i][1] != op.Name || registered[i][2] != want {
				t.Fatalf("%s: function %d is %+v registered as %q; want %s flagged {%s}", a.File, i, fn, registered[i][1:], op.Name, want)
			}
		}
		for _, banned := range []string{"tostring", "bit.", "cjson", "{double", "redis.call('KEYS'"} {
			if strings.Contains(a.Source, banned) {
				t.Errorf("%s uses %s", a.File, banned)
			}
		}
		if strings.Contains(a.Part, a.Name) {
			t.Errorf("%s: the part names the library %s: its registrations must not hard-code the hash", a.File, a.Name)
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

// TestEntriesRules checks that the whole-entry writes' one body (catalog.BodyEntries) has a
// branch for the rule each of their callbacks passes it (catalog.Body.EntriesRule), so that a
// write added to the catalogue with a rule of its own cannot run another write's rule, or none.
func TestEntriesRules(t *testing.T) {
	for _, path := range mustGlob(t) {
		src, _ := os.ReadFile(path)
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		lib, err := Render(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range catalog.Scripts(l) {
			rule := op.Body.EntriesRule()
			if op.Template == "entries" && rule == "" {
				t.Errorf("%s: %s renders the whole-entry writes' template with no rule: give its row a Body whose EntriesRule names one", l.File, op.Name)
			}
			if rule == "" {
				continue
			}
			if call := fmt.Sprintf("entries, '%s')", rule); !strings.Contains(lib.Source, call) {
				t.Errorf("%s: %s's callback does not pass its rule (%s)", l.File, op.Name, call)
			}
			if branch := fmt.Sprintf("rule == '%s' then", rule); !strings.Contains(lib.Source, branch) {
				t.Errorf("%s: %s: the entries body has no branch for its rule %q (%s in templates/write.lua.tmpl)", l.File, op.Name, rule, branch)
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

// TestRandomSchemas renders the library of random valid schemas: every one renders, except
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
		_, err = Render(l)
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

// TestHeadWriteArgs: the runtime's Lua head reads every write's first arguments at fixed
// positions (open_write: the token and its window; done and a season's guard: the expiry), as
// the catalogue places them (catalog.WriteArgs); a catalogue that moves them fails here.
func TestHeadWriteArgs(t *testing.T) {
	head := rankgenrt.ComposeLibrary("x", "")
	a := catalog.Args{Head: catalog.WriteArgs()}
	for name, read := range map[string]string{
		catalog.ArgMode:   "argv[%d] == 'pxat'",
		catalog.ArgMS:     "local ms = argv[%d]",
		catalog.ArgToken:  "local token = argv[%d]",
		catalog.ArgWindow: "tonumber(argv[%d])",
	} {
		at, err := a.At(name)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(read, at); !strings.Contains(head, want) {
			t.Errorf("the head does not read %s as the catalogue places it: %s", name, want)
		}
	}
}
