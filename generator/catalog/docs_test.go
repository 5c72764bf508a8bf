package catalog

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// boardAPIDoc is the document, from the repository's root, that holds the Board API table: the
// table whose header's first cell is "method", one row per group of methods, named in
// backticks in the row's first cell.
const boardAPIDoc = "docs/board-api.md"

// documentedMethods reads the Board API table: every name in backticks in its rows' first
// cells, cut at its parameters ("Update(id, changes...)" is Update).
func documentedMethods(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", boardAPIDoc))
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`([A-Za-z<>]+)[^`]*`")
	out := map[string]bool{}
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 3 || cells[0] != "" { // not a table row
			in = false
			continue
		}
		first := strings.TrimSpace(cells[1])
		if first == "method" {
			in = true
		}
		if !in {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(first, -1) {
			out[m[1]] = true
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no Board API table (a table whose first column is headed \"method\")", boardAPIDoc)
	}
	return out
}

// generic is a method's name as the Board API table writes it: the layout's field names, from
// the longest, as <F> (AddPointsMany is Add<F>Many, RangeBestLap is Range<F>).
func generic(l *layout.Layout, method string) string {
	fields := slices.Clone(l.Fields)
	slices.SortStableFunc(fields, func(a, b *layout.Field) int { return len(b.Name) - len(a.Name) })
	for _, f := range fields {
		if strings.Contains(method, f.Name) {
			return strings.Replace(method, f.Name, "<F>", 1)
		}
	}
	return method
}

// TestBoardAPIDocumented checks that the Board API table lists every method of every example's
// catalogue, so that a new operation's methods are documented.
func TestBoardAPIDocumented(t *testing.T) {
	documented := documentedMethods(t)
	for _, l := range examples(t) {
		for _, op := range Ops(l) {
			for _, m := range op.Methods {
				if !documented[m] && !documented[generic(l, m)] {
					t.Errorf("%s: %s's method %s (%s) is not in the Board API table of %s", l.File, op.Name, m, generic(l, m), boardAPIDoc)
				}
			}
		}
	}
}
