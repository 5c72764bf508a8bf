package exampleboards

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEveryGeneratedPackageListed fails when examples/generated gains a package All does not
// list, or All lists one that is gone.
func TestEveryGeneratedPackageListed(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join(Root(), "examples", "generated"))
	if err != nil {
		t.Fatal(err)
	}
	onDisk := map[string]bool{}
	for _, d := range dirs {
		if d.IsDir() {
			onDisk[d.Name()] = true
		}
	}
	listed := map[string]bool{}
	for _, ex := range append(All(), Periodic()...) {
		listed[ex.Dir()] = true
		if !onDisk[ex.Dir()] {
			t.Errorf("%s is listed but examples/generated/%s does not exist", ex.Name, ex.Dir())
		}
		if l := ex.Layout(t); l.Fingerprint != ex.Fingerprint || l.Package != ex.Dir() {
			t.Errorf("%s: schema %s has package %s, fingerprint %s; the generated package %s (regenerate examples)",
				ex.Name, ex.Schema, l.Package, l.Fingerprint, ex.Fingerprint)
		}
		if l := ex.Layout(t); (l.Season != nil) != (ex.SeasonAt != nil) {
			t.Errorf("%s: periodic layout %v, SeasonAt given %v; a periodic package is listed in Periodic with its Seasons.At",
				ex.Name, l.Season != nil, ex.SeasonAt != nil)
		}
		if ex.Codec.Entry().Name() != ex.GoName()+"Entry" {
			t.Errorf("%s: codec of %v; want the package's Entry", ex.Name, ex.Codec.Entry())
		}
	}
	for name := range onDisk {
		if !listed[name] {
			t.Errorf("examples/generated/%s is not listed in internal/testkit/exampleboards.All", name)
		}
	}
}
