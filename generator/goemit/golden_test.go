package goemit

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the generated sections of testdata/*.txtar")

// The goldens are of two kinds. Every example schema (examples/schemas) is compared with its
// committed package in examples/generated, which go generate ./examples/... writes and
// rankgen check guards: the examples are their own goldens, kept once. Schemas at the edges
// that no example covers are archives in testdata: "-- schema.yaml --" (the input; the
// archive's name is the schema's stem) and "-- <stem>.rankgen.go --" (the expected output,
// which -update rewrites). A schema an example or a committed test board already covers gets
// no golden: those packages are compiled, kept fresh and driven against the board model on
// real servers (examples/boardtest), which proves more than a golden (enums in the score and
// the member: duel, season, r32, b02; a uint64 id after a member prefix: b01).

type golden struct {
	path    string // where the expected output lives
	stem    string
	schema  []byte
	want    []byte // the committed output
	example bool   // an example schema, its output in examples/generated
}

func readGoldens(t *testing.T) []golden {
	t.Helper()
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden archives: %v", err)
	}
	var out []golden
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		g := golden{path: p, stem: strings.TrimSuffix(filepath.Base(p), ".txtar")}
		g.schema = section(ar, "schema.yaml")
		g.want = section(ar, g.stem+".rankgen.go")
		out = append(out, g)
	}
	return append(out, exampleGoldens(t)...)
}

// exampleGoldens are the example schemas, each with the Go file committed in
// examples/generated/<package> (examples.TestDirectives keeps one directory per package).
func exampleGoldens(t *testing.T) []golden {
	t.Helper()
	root := repoRoot(t)
	schemas, err := filepath.Glob(filepath.Join(root, "examples", "schemas", "*.yaml"))
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	var out []golden
	for _, s := range schemas {
		stem := strings.TrimSuffix(filepath.Base(s), ".yaml")
		src, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		l := parse(t, stem, src)
		path := filepath.Join(root, "examples", "generated", l.Package, l.GoFile())
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v; run go generate ./examples/...", err)
		}
		out = append(out, golden{path: path, stem: stem, schema: src, want: want, example: true})
	}
	return out
}

func section(ar *txtar.Archive, name string) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func setSection(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

func parse(t testing.TB, stem string, src []byte) *layout.Layout {
	t.Helper()
	l, err := layout.Parse(stem+".yaml", src)
	if err != nil {
		t.Fatalf("%s.yaml: %v", stem, err)
	}
	return l
}

// TestGolden compares Generate's output with the archives, and checks that a second run gives
// the same bytes.
func TestGolden(t *testing.T) {
	for _, g := range readGoldens(t) {
		t.Run(g.stem, func(t *testing.T) {
			l := parse(t, g.stem, g.schema)
			got, err := Generate(l)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Generate(parse(t, g.stem, g.schema))
			if err != nil || !bytes.Equal(got, again) {
				t.Fatalf("a second Generate gave different output (err %v)", err)
			}
			if !bytes.HasPrefix(got, []byte("// "+layout.Header(g.stem+".yaml")+"\n")) {
				t.Errorf("header: %q", got[:min(len(got), 80)])
			}
			if *update && !g.example {
				ar, err := txtar.ParseFile(g.path)
				if err != nil {
					t.Fatal(err)
				}
				setSection(ar, "schema.yaml", g.schema)
				setSection(ar, l.GoFile(), got)
				if err := os.WriteFile(g.path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !bytes.Equal(got, g.want) {
				fix := "go test ./generator/goemit -update"
				if g.example {
					fix = "go generate ./examples/..."
				}
				t.Errorf("%s differs from %s; if the change is intended, run %s\n%s",
					l.GoFile(), g.path, fix, firstDiff(g.want, got))
			}
		})
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(same lines, different bytes)"
}

// TestGeneratedCompiles writes every edge golden output, and the same layout's output with
// sharded: true, with the Lua library its board embeds, into a module that requires this
// checkout, and runs go vet on it (the examples' packages are part of this module, built and
// vetted with it).
func TestGeneratedCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with go vet; skipped with -short")
	}
	dir := tempModule(t)
	for _, g := range readGoldens(t) {
		if g.example {
			continue
		}
		l := parse(t, g.stem, g.schema)
		// The golden as committed, and the same layout with its ShardedBoard (sharded: true).
		l.Sharded = true
		sharded, err := Generate(l)
		if err != nil {
			t.Fatal(err)
		}
		lib, err := luaemit.Render(l)
		if err != nil {
			t.Fatal(err)
		}
		for pkgDir, code := range map[string][]byte{g.stem: g.want, g.stem + "_sharded": sharded} {
			write(t, filepath.Join(dir, pkgDir, l.GoFile()), code)
			write(t, filepath.Join(dir, pkgDir, lib.File), []byte(lib.Part))
		}
	}
	if out, err := goCmd(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("go vet on the generated packages: %v\n%s", err, out)
	}
	// Where staticcheck is installed (not required: CI may lack it), point at it to run it too.
	if sc := os.Getenv("RANKGEN_STATICCHECK"); sc != "" {
		cmd := exec.Command(sc, "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("staticcheck on the generated packages: %v\n%s", err, out)
		}
	}
}
