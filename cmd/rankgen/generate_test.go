package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

func runOK(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := runIn(&env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, dir: dir}, args); code != 0 {
		t.Fatalf("rankgen %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestGenerateWritesOnlyChanges checks that generate leaves files whose bytes are unchanged
// alone (their modification times stay, so go:generate does not dirty builds), rewrites a
// file edited by hand, and that check agrees before and after.
func TestGenerateWritesOnlyChanges(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/schemas/season.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "season.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	runOK(t, dir, "", "generate", "season.yaml")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var generated []string
	for _, e := range entries {
		if e.Name() == "season.yaml" {
			continue
		}
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
		generated = append(generated, e.Name())
		if err := os.Chtimes(filepath.Join(dir, e.Name()), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if !contains(generated, "season.rankgen.go") {
		t.Fatalf("generate wrote %v, want season.rankgen.go among them", generated)
	}
	runOK(t, dir, "", "check", "season.yaml")
	goFile := filepath.Join(dir, "season.rankgen.go")
	if err := os.WriteFile(goFile, []byte("// edited by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(goFile, old, old); err != nil {
		t.Fatal(err)
	}
	runOK(t, dir, "", "generate", "season.yaml")
	for _, name := range generated {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		changed := !info.ModTime().Equal(old)
		if want := name == "season.rankgen.go"; changed != want {
			t.Errorf("%s: rewritten = %v, want %v", name, changed, want)
		}
	}
	runOK(t, dir, "", "check", "season.yaml")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCodecJSONRoundTrip checks the CLI's JSON forms on random schemas (every field kind,
// both id types, member prefixes, decimal scores) and random entries, against the
// interpreted codec: entry JSON → encode → the pair the codec computes; the pair → decode →
// the same entry JSON; both through run, as a user would pipe them.
func TestCodecJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	dir := t.TempDir()
	for i := 0; i < 60; i++ {
		name := fmt.Sprintf("s%02d.yaml", i)
		src := oracle.RandomSchema(rng, fmt.Sprintf("s%02d", i))
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(name, src)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		var entries, pairs strings.Builder
		for j := 0; j < 50; j++ {
			e := randomEntry(rng, l)
			score, member, err := l.Encode(e)
			if err != nil {
				t.Fatalf("%s: encode %+v: %v", name, e, err)
			}
			js, err := decodeJSON(l, nil, score, member, true, nil)
			if err != nil {
				t.Fatalf("%s: decodeJSON: %v", name, err)
			}
			back, err := entryFromJSON(l, nil, []byte(js))
			if err != nil {
				t.Fatalf("%s: entryFromJSON(%s): %v", name, js, err)
			}
			if back.ID != e.ID || fmt.Sprint(back.Keys) != fmt.Sprint(e.Keys) {
				t.Fatalf("%s: %s reads back as %+v, want %+v", name, js, back, e)
			}
			entries.WriteString(js + "\n")
			pairs.WriteString(encodingJSON(l, score, member) + "\n")
		}
		if got := runOK(t, dir, entries.String(), "encode", "-schema", name); got != pairs.String() {
			t.Fatalf("%s: encode gave\n%s\nwant\n%s", name, got, pairs.String())
		}
		if got := runOK(t, dir, pairs.String(), "decode", "-schema", name); got != entries.String() {
			t.Fatalf("%s: decode gave\n%s\nwant\n%s", name, got, entries.String())
		}
	}
}

// randomEntry draws keys across each field's range (edges often) and a JSON-safe id.
func randomEntry(rng *rand.Rand, l *layout.Layout) layout.Entry {
	e := layout.Entry{Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.Fields {
		switch rng.IntN(4) {
		case 0:
			e.Keys[i] = f.Lo
		case 1:
			e.Keys[i] = f.Hi
		default:
			if f.Span() == ^uint64(0) { // Uint64N(Span+1) would be Uint64N(0)
				e.Keys[i] = rng.Uint64()
			} else {
				e.Keys[i] = f.Lo + rng.Uint64N(f.Span()+1)
			}
		}
	}
	if l.IDType == layout.IDUint64 {
		e.ID = fmt.Sprint(rng.Uint64() >> rng.IntN(64))
	} else {
		const chars = "abcXYZ019 :|-_\"\\<>&é€"
		r := []rune(chars)
		var b strings.Builder
		for n := 1 + rng.IntN(8); b.Len() < n; {
			b.WriteRune(r[rng.IntN(len(r))])
		}
		e.ID = b.String()
		for len(e.ID) > l.MaxBytes {
			e.ID = e.ID[:len(e.ID)-1]
		}
		for !utf8.ValidString(e.ID) {
			e.ID = e.ID[:len(e.ID)-1]
		}
		if e.ID == "" {
			e.ID = "a"
		}
	}
	return e
}
