package luaemit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// leanRun is how many lines a repeated run may not reach: a block of this many identical lines
// said twice in one library belongs in one local function of its head.
const leanRun = 6

// TestNoRepeatedRuns renders the library of every committed schema (the examples, and the
// boardtest's random and season boards) and fails on a run of leanRun identical non-blank lines
// (trimmed) that one library says twice: what its functions share is written once.
func TestNoRepeatedRuns(t *testing.T) {
	for _, path := range leanSchemas(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if layout.IsBoards(src) {
			continue // a package file: its boards' schemas are listed themselves
		}
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		lib, err := Render(l)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if msg := repeatedRun(lib.Source, leanRun); msg != "" {
			t.Errorf("%s (%s): %s", lib.File, path, msg)
		}
	}
}

// leanSchemas is every committed schema a library is generated from.
func leanSchemas(t *testing.T) []string {
	var out []string
	for _, pattern := range []string{
		filepath.Join("..", "..", "examples", "schemas", "*.yaml"),
		filepath.Join("..", "..", "examples", "boardtest", "internal", "*", "*", "*.yaml"),
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatal("no schemas")
	}
	return out
}

// repeatedRun describes the first run of n identical non-blank lines (trimmed) that src holds
// twice without overlap, or returns "".
func repeatedRun(src string, n int) string {
	type line struct {
		text string
		no   int // its number in src, from 1
	}
	var lines []line
	for i, s := range strings.Split(src, "\n") {
		if s = strings.TrimSpace(s); s != "" {
			lines = append(lines, line{s, i + 1})
		}
	}
	first := map[string]int{}
	for i := 0; i+n <= len(lines); i++ {
		var key strings.Builder
		for _, l := range lines[i : i+n] {
			key.WriteString(l.text)
			key.WriteByte('\n')
		}
		j, seen := first[key.String()]
		if !seen {
			first[key.String()] = i
			continue
		}
		if j+n <= i {
			return fmt.Sprintf("lines %d and %d start the same %d lines:\n%s", lines[j].no, lines[i].no, n, key.String())
		}
	}
	return ""
}

func TestRepeatedRun(t *testing.T) {
	six := "a\nb\nc\nd\ne\nf\n"
	if repeatedRun(six+"\n  x\n"+six, 6) == "" {
		t.Error("a six-line run said twice: not found")
	}
	if repeatedRun(six+"x\n"+strings.Replace(six, "f", "g", 1), 6) != "" {
		t.Error("five lines said twice: found")
	}
	if repeatedRun("a\na\na\na\na\na\na\n", 6) != "" {
		t.Error("overlapping runs: found")
	}
}
