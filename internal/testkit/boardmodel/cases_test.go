package boardmodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// TestCases checks that the model has a case for every kind of catalogue operation, and so
// for every operation of every example.
func TestCases(t *testing.T) {
	for _, k := range catalog.Kinds {
		if !HasCase(catalog.Op{Kind: k}) {
			t.Errorf("the model has no case for operations of kind %s (Cases[%q] = %q)", k, k, Cases[k])
		}
	}
	paths, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "schemas", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(filepath.Base(p), src)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range catalog.Ops(l) {
			if !HasCase(op) {
				t.Errorf("%s: operation %s has no model case", l.File, op.Name)
			}
		}
	}
}
