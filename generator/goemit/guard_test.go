package goemit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestDeterministicRandom generates code for random schemas twice, from two separate parses,
// and compares the bytes (100 schemas; 20 under -short).
func TestDeterministicRandom(t *testing.T) {
	n := 100
	if testing.Short() {
		n = 20
	}
	rng := rand.New(rand.NewPCG(31, 41))
	for i := range n {
		src := oracle.RandomSchema(rng, fmt.Sprintf("p%d", i))
		a, err := Generate(parse(t, "r", src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		b, err := Generate(parse(t, "r", src))
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("two Generate runs differ (err %v)\n%s\n%s", err, src, firstDiff(a, b))
		}
	}
}

// TestGuardsFailToCompile proves the compile-time guards work: a generated file paired with a
// runtime version outside [MinVersion, MaxVersion], or whose enum constants were edited, does
// not compile (the spirit of stringer's TestConstValueChange and protobuf's EnforceVersion).
func TestGuardsFailToCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet on edited packages; skipped with -short")
	}
	var enumGolden golden
	for _, g := range readGoldens(t) {
		if g.stem == "enum" {
			enumGolden = g
		}
	}
	if enumGolden.want == nil {
		t.Fatal("no enum golden")
	}
	l := parse(t, "enum", enumGolden.schema)
	src := string(enumGolden.want)
	// asVersion rewrites the file as if generated for runtime contract version n.
	asVersion := func(n int) []string {
		v := fmt.Sprint(rankgenrt.Version)
		return []string{
			"EnforceVersion(" + v + " - rankgenrt.MinVersion)", fmt.Sprintf("EnforceVersion(%d - rankgenrt.MinVersion)", n),
			"EnforceVersion(rankgenrt.MaxVersion - " + v + ")", fmt.Sprintf("EnforceVersion(rankgenrt.MaxVersion - %d)", n),
		}
	}
	oldest := asVersion(rankgenrt.MinVersion) // the oldest contract still supported
	cases := []struct {
		name     string
		edits    []string // old, new, old, new, …
		compiles bool
	}{
		{"intact", nil, true},
		{"generated for the oldest runtime contract supported", oldest, true},
		{"generated for a newer runtime", asVersion(rankgenrt.MaxVersion + 1), false},
		{"generated for an older runtime", asVersion(rankgenrt.MinVersion - 1), false},
		{"enum value inserted", []string{"\tDivisionAmateur\n", "\tDivisionSemiPro\n\tDivisionAmateur\n"}, false},
	}
	dir := tempModule(t)
	for i, c := range cases {
		edited := src
		for j := 0; j < len(c.edits); j += 2 {
			if !strings.Contains(edited, c.edits[j]) {
				t.Fatalf("%s: %q not in the generated enum package", c.name, c.edits[j])
			}
			edited = strings.Replace(edited, c.edits[j], c.edits[j+1], 1)
		}
		pkgDir := filepath.Join(dir, fmt.Sprintf("case%d", i))
		write(t, filepath.Join(pkgDir, l.GoFile()), []byte(edited))
		lib, err := luaemit.Render(l)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(pkgDir, lib.File), []byte(lib.Part))
		out, err := goCmd(t, dir, "vet", "./"+filepath.Base(pkgDir))
		switch {
		case c.compiles && err != nil:
			t.Fatalf("%s: the package does not compile: %v\n%s", c.name, err, out)
		case !c.compiles && err == nil:
			t.Errorf("%s: still compiles", c.name)
		case !c.compiles && !strings.Contains(out, "overflows") && !strings.Contains(out, "invalid argument: index"):
			t.Errorf("%s: fails for another reason than the guard:\n%s", c.name, out)
		}
	}
}
