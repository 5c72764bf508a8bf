package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

// TestLayoutJSONDocumented: docs/layout-json.md, the contract other emitters read, names every
// key that explain -json writes for any example schema (a periodic one with its season) and
// every reply shape an operation has.
func TestLayoutJSONDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/layout-json.md")
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := filepath.Glob("../../examples/schemas/*.yaml")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	keys, replies := map[string]bool{}, map[string]bool{}
	for _, path := range schemas {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		d, err := layoutJSON(l)
		if err != nil {
			t.Fatal(err)
		}
		if l.Season != nil {
			d.Season = seasonJSON(l, l.Season.Calendar.At(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)))
		}
		if d.Format != explainFormat {
			t.Fatalf("format %d, want %d", d.Format, explainFormat)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		collectKeys(v, keys)
		for _, op := range d.Operations {
			if op.Reply != "" {
				replies[op.Reply] = true
			}
		}
	}
	for _, set := range []map[string]bool{keys, replies} {
		names := make([]string, 0, len(set))
		for k := range set {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if !strings.Contains(string(doc), "`"+k+"`") {
				t.Errorf("docs/layout-json.md does not describe %q, which explain -json writes", k)
			}
		}
	}
	if len(keys) < 40 {
		t.Fatalf("only %d keys found: %v", len(keys), keys)
	}
}

// collectKeys adds the keys of every object in v to keys.
func collectKeys(v any, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			keys[k] = true
			collectKeys(x, keys)
		}
	case []any:
		for _, x := range v {
			collectKeys(x, keys)
		}
	}
}
