package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
		onDisk, err := filepath.Glob(filepath.Join("../..", c.dir, "*.rankgen.lua"))
		if err != nil || len(onDisk) != 1 {
			t.Fatalf("%s: libraries %v, %v; want one", c.dir, onDisk, err)
		}
		lib, err := os.ReadFile(onDisk[0])
		if err != nil {
			t.Fatal(err)
		}
		registered := regexp.MustCompile(`(?m)^register\('(\w+)'`).FindAllStringSubmatch(string(lib), -1)
		var functions []string
		for _, m := range registered {
			functions = append(functions, filepath.Base(onDisk[0])+":"+m[1])
		}
		slices.Sort(named)
		slices.Sort(functions)
		if !slices.Equal(named, functions) {
			t.Errorf("%s: explain names functions %v, %s holds %v", c.schema, named, onDisk[0], functions)
		}
		if _, err := os.Stat(filepath.Join("../..", c.dir)); err != nil {
			t.Fatal(err)
		}
	}
}
