package breaking

import (
	"flag"
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
			old := parse(t, "old.yaml", src["old.yaml"])
			new := parse(t, "new.yaml", src["new.yaml"])
			var b strings.Builder
			for _, c := range Compare(old, new) {
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
// is a WIRE change exactly when the layout fingerprints differ, and it is never the LAYOUT
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
			if differ := a.Layout.Fingerprint != b.Layout.Fingerprint; differ != (wire > 0) {
				t.Errorf("fingerprints differ: %v, WIRE changes: %d\n%s\nvs\n%s", differ, wire, a.Layout.Canonical, b.Layout.Canonical)
			}
		}
	}
}
