package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExplainOperations: explain -json lists the board's operations from the catalogue, and
// they are exactly the committed example's: every script named is a generated file, and every
// generated script is named.
func TestExplainOperations(t *testing.T) {
	for _, c := range []struct{ schema, dir string }{
		{"examples/schemas/arena.yaml", "examples/generated/arena"},
		{"examples/schemas/season.yaml", "examples/generated/season"},
	} {
		var stdout, stderr bytes.Buffer
		if code := runIn(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: "../.."}, []string{"explain", "-json", c.schema}); code != 0 {
			t.Fatalf("explain -json %s: exit %d: %s", c.schema, code, stderr.String())
		}
		var doc explainDoc
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var named []string
		for _, op := range doc.Operations {
			if len(op.Methods) == 0 {
				t.Errorf("%s: operation %s has no method", c.schema, op.Name)
			}
			if op.Script != "" {
				named = append(named, op.Script)
			}
		}
		onDisk, err := filepath.Glob(filepath.Join("../..", c.dir, "*.lua"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range onDisk {
			onDisk[i] = filepath.Base(onDisk[i])
		}
		slices.Sort(named)
		slices.Sort(onDisk)
		if !slices.Equal(named, onDisk) {
			t.Errorf("%s: explain names scripts %v, %s holds %v", c.schema, named, c.dir, onDisk)
		}
		if _, err := os.Stat(filepath.Join("../..", c.dir)); err != nil {
			t.Fatal(err)
		}
	}
}
