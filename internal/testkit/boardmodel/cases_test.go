package boardmodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// TestCases checks that the model has the method every operation of every example names
// (catalog.Op.Model; the examples have every kind: generator/catalog's TestKinds).
func TestCases(t *testing.T) {
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
				t.Errorf("%s: operation %s: the model has no method %q (its row's Model)", l.File, op.Name, op.Model)
			}
		}
	}
}
