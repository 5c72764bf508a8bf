package breaking

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/*.txtar")

// TestGolden compares the schema pairs of testdata/*.txtar (old.yaml, new.yaml; the archive
// comment says what changed) with their expected changes (want, one per line).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := map[string][]byte{}
			for _, f := range a.Files {
				src[f.Name] = f.Data
			}
			var b strings.Builder
			for _, c := range goldenChanges(t, src, true) {
				b.WriteString(c.String() + "\n")
			}
			got := b.String()
			if *update {
				for i := range a.Files {
					if a.Files[i].Name == "want" {
						a.Files[i].Data = []byte(got)
					}
				}
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(src["want"]); got != want {
				t.Errorf("changes:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func parse(t *testing.T, name string, src []byte) Schema {
	t.Helper()
	l, err := layout.Parse(name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Schema{Layout: l, Src: src}
}

// TestWireIffFingerprint: on pairs of random schemas, and on each schema beside itself, there
// is a WIRE change exactly when the layout fingerprints differ or a field moves among fields
// that store the same way (names are not in the fingerprint), and it is never the LAYOUT
// fallback (a specific rule names every difference the fingerprint sees).
func TestWireIffFingerprint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	schemas := make([]Schema, 60)
	for i := range schemas {
		src := oracle.RandomSchema(rng, "p")
		schemas[i] = parse(t, "s.yaml", src)
	}
	for i, a := range schemas {
		for _, b := range []Schema{schemas[i], schemas[(i+1)%len(schemas)], schemas[(i+7)%len(schemas)]} {
			wire := 0
			for _, c := range Compare(a, b) {
				if c.Category == Wire {
					wire++
					if c.Rule == "LAYOUT" {
						t.Errorf("fallback rule for\n%s\nvs\n%s", a.Layout.Canonical, b.Layout.Canonical)
					}
				}
			}
			moved := len(matchFields(a.Layout.Fields, b.Layout.Fields).moved) > 0
			if differ := a.Layout.Fingerprint != b.Layout.Fingerprint || moved; differ != (wire > 0) {
				t.Errorf("fingerprints differ: %v, WIRE changes: %d\n%s\nvs\n%s", differ, wire, a.Layout.Canonical, b.Layout.Canonical)
			}
		}
	}
}

// goldenChanges compares the golden's two versions: old.yaml and new.yaml, or, for a package of
// boards, old/game.yaml and new/game.yaml with their boards' schemas beside them; with the
// compatible changes first when compatible is set.
func goldenChanges(t *testing.T, src map[string][]byte, compatible bool) []Change {
	if _, ok := src["old/game.yaml"]; ok {
		old, new := goldenPackage(t, "old", src), goldenPackage(t, "new", src)
		out := CompareBoards(old, new)
		if compatible {
			out = append(CompatibleBoardChanges(old, new), out...)
		}
		return out
	}
	old := parse(t, "old.yaml", src["old.yaml"])
	new := parse(t, "new.yaml", src["new.yaml"])
	if compatible {
		return append(CompatibleChanges(old, new), Compare(old, new)...)
	}
	return Compare(old, new)
}

// goldenPackage is version dir of a golden's package of boards.
func goldenPackage(t *testing.T, dir string, src map[string][]byte) Package {
	t.Helper()
	file := dir + "/game.yaml"
	p, err := layout.ParseBoards(file, src[file], func(path string) ([]byte, error) {
		if s, ok := src[path]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("%s: not in the golden", path)
	})
	if err != nil {
		t.Fatal(err)
	}
	pkg := Package{Boards: p, Src: src[file], Name: file, Schemas: map[string]Schema{}}
	for _, b := range p.Boards {
		path := dir + "/" + b.Schema
		pkg.Schemas[b.Name] = Schema{Layout: b.Layout, Src: src[path], Name: path}
	}
	return pkg
}

// TestMigrate: what Migrate proposes for rankgen migrate on golden pairs: nothing without a
// WIRE change; a drop for a removed field, a value the field can hold for an inserted one (its
// Go zero, else the least of its range), a rename for a likely one.
func TestMigrate(t *testing.T) {
	for golden, want := range map[string]string{
		"unchanged_docs":    "<nil>",
		"rename_field":      "<nil>",
		"remove_last_field": "renames [] defaults [] drops [Paid] periodic false",
		"insert_field":      "renames [] defaults [{HintsUsed 0 its Go zero}] drops [] periodic false",
		"rename_and_narrow": "renames [{Paid Premium}] defaults [] drops [] periodic false",
		"swap_fields":       "renames [] defaults [] drops [] periodic false",
		"data_removed":      "renames [] defaults [] drops [Car] periodic false",
		"season_zone":       "renames [] defaults [] drops [] periodic true",
	} {
		old, new := goldenPair(t, golden)
		m := Migrate(old.Layout, new.Layout)
		got := "<nil>"
		if m != nil {
			got = fmt.Sprintf("renames %v defaults %v drops %v periodic %v", m.Renames, m.Defaults, m.Drops, m.Season != nil)
		}
		if got != want {
			t.Errorf("%s: %s, want %s", golden, got, want)
		}
	}
	head := "package: p\nid:\n  name: ID\n  max_bytes: 8\nfields:\n  - name: Points\n    type: uint\n    bits: 8\n    order: desc\n"
	points := parse(t, "p.yaml", []byte(head)).Layout
	at := parse(t, "t.yaml", []byte(head+"  - name: At\n    type: time\n    unit: s\n    epoch: 2026-01-01T00:00:00Z\n    bits: 20\n    order: asc\n")).Layout
	if got, want := fmt.Sprint(Migrate(points, at).Defaults), "[{At 2026-01-01T00:00:00Z the least value of its range}]"; got != want {
		t.Errorf("a new time field: default %s, want %s (its Go zero, year 1, is out of range)", got, want)
	}
}

func goldenPair(t *testing.T, name string) (old, new Schema) {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	src := map[string][]byte{}
	for _, f := range a.Files {
		src[f.Name] = f.Data
	}
	return parse(t, "old.yaml", src["old.yaml"]), parse(t, "new.yaml", src["new.yaml"])
}
