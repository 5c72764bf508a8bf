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

// A golden archive holds "-- schema.yaml --" (the input; the archive's name is the schema's
// stem) and "-- <stem>.rankgen.go --" (the expected output). An archive whose comment starts
// with "example: <path>" mirrors that example schema; -update copies it in.

type golden struct {
	path   string
	stem   string
	schema []byte
	want   []byte // the committed output
}

func readGoldens(t *testing.T) []golden {
	t.Helper()
	if *update {
		addExampleArchives(t)
	}
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
		if ex, ok := strings.CutPrefix(strings.SplitN(string(ar.Comment), "\n", 2)[0], "example: "); ok {
			src, err := os.ReadFile(filepath.Join(repoRoot(t), ex))
			if err != nil {
				t.Fatal(err)
			}
			if !*update && !bytes.Equal(section(ar, "schema.yaml"), src) {
				t.Errorf("%s: schema.yaml differs from %s; run go test ./generator/goemit -update", p, ex)
			}
			setSection(ar, "schema.yaml", src)
		}
		g.schema = section(ar, "schema.yaml")
		g.want = section(ar, g.stem+".rankgen.go")
		out = append(out, g)
	}
	return out
}

// addExampleArchives creates the archive of every example schema that has none yet.
func addExampleArchives(t *testing.T) {
	schemas, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "schemas", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schemas {
		stem := strings.TrimSuffix(filepath.Base(s), ".yaml")
		path := filepath.Join("testdata", stem+".txtar")
		if _, err := os.Stat(path); err == nil {
			continue
		}
		ar := &txtar.Archive{Comment: []byte("example: examples/schemas/" + stem + ".yaml\n")}
		src, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		setSection(ar, "schema.yaml", src)
		write(t, path, txtar.Format(ar))
	}
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
			if *update {
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
				t.Errorf("%s differs from %s; if the change is intended, run go test ./generator/goemit -update\n%s",
					l.GoFile(), g.path, firstDiff(g.want, got))
			}
		})
	}
}

// TestGoldensCoverExamples makes sure every example schema has its archive.
func TestGoldensCoverExamples(t *testing.T) {
	schemas, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "schemas", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schemas {
		stem := strings.TrimSuffix(filepath.Base(s), ".yaml")
		ar, err := txtar.ParseFile(filepath.Join("testdata", stem+".txtar"))
		if err != nil {
			t.Errorf("example %s has no golden archive testdata/%s.txtar: %v", s, stem, err)
			continue
		}
		if want := "example: examples/schemas/" + stem + ".yaml"; !strings.HasPrefix(string(ar.Comment), want) {
			t.Errorf("testdata/%s.txtar: comment should start with %q", stem, want)
		}
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

// TestGeneratedCompiles writes every golden output, with the Lua library its board embeds,
// into a module that requires this checkout, and runs go vet on it.
func TestGeneratedCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with go vet; skipped with -short")
	}
	dir := tempModule(t)
	for _, g := range readGoldens(t) {
		l := parse(t, g.stem, g.schema)
		write(t, filepath.Join(dir, g.stem, l.GoFile()), g.want)
		lib, err := luaemit.Render(l)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, g.stem, lib.File), []byte(lib.Source))
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
