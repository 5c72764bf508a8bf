package goemit

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
)

// TestPreviousCompiles: every example schema, as the previous schema of
// itself and of a version with every field one bit wider, generates a package (its Go file,
// the previous layout's, both libraries) that builds and vets, with the conversions both ways;
// and the same layout twice gives the same bytes.
func TestPreviousCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with go vet; skipped with -short")
	}
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "schemas", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModule(t)
	bits := regexp.MustCompile(`(?m)^(\s+bits: )(\d+)`)
	built := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		old, err := layout.Parse("old.yaml", src)
		if err != nil {
			continue
		}
		wider := bits.ReplaceAllFunc(src, func(m []byte) []byte {
			sub := bits.FindSubmatch(m)
			n, _ := strconv.Atoi(string(sub[2]))
			return []byte(fmt.Sprintf("%s%d", sub[1], min(n+1, 64)))
		})
		// Every ranking field renamed: the generated code calls the previous layout's updates
		// by that layout's names.
		renamed, renames := src, "  rename:\n"
		for _, f := range old.Fields {
			renamed = regexp.MustCompile(`name: `+f.Name+`\b`).ReplaceAll(renamed, []byte("name: "+f.Name+"Now"))
			renames += fmt.Sprintf("    %s: %sNow\n", f.Name, f.Name)
		}
		for i, next := range [][]byte{src, wider, renamed} {
			stem := fmt.Sprintf("%s%d", strings.TrimSuffix(filepath.Base(file), ".yaml"), i)
			pkg := strings.ReplaceAll(stem, "_", "")
			text := regexp.MustCompile(`(?m)^package: .*$`).ReplaceAll(next, []byte("package: "+pkg))
			text = append(text, []byte("\nprevious:\n  schema: old.yaml\n")...)
			if i == 2 {
				text = append(text, renames...)
			}
			l, err := layout.Parse(stem+".yaml", text)
			if err != nil {
				continue // one bit wider does not fit the score: the same layout covers it
			}
			if err := layout.LoadPrevious(l, stem+".yaml", func(string) ([]byte, error) { return src, nil }); err != nil {
				t.Fatalf("%s: %v", stem, err)
			}
			code, err := Generate(l)
			if err != nil {
				t.Fatalf("%s: %v", stem, err)
			}
			prev, err := GeneratePrevious(l)
			if err != nil {
				t.Fatalf("%s: the previous layout: %v", stem, err)
			}
			if again, _ := GeneratePrevious(l); string(again) != string(prev) {
				t.Errorf("%s: a second run gives other bytes", stem)
			}
			lib, err := luaemit.Render(l)
			if err != nil {
				t.Fatal(err)
			}
			prevLib, err := luaemit.Render(l.Previous.Generated(l))
			if err != nil {
				t.Fatal(err)
			}
			goFile, luaFile := PreviousFiles(l)
			write(t, filepath.Join(dir, pkg, l.GoFile()), code)
			write(t, filepath.Join(dir, pkg, lib.File), []byte(lib.Part))
			write(t, filepath.Join(dir, pkg, goFile), prev)
			write(t, filepath.Join(dir, pkg, luaFile), []byte(prevLib.Part))
			built++
		}
	}
	if built < 30 {
		t.Fatalf("only %d packages with a previous layout; want every example, three times", built)
	}
	if out, err := goCmd(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	t.Logf("%d packages with a previous layout build and vet", built)
}

// TestPreviousScoreRoutes: NewBoard passes the runtime the ranks the previous layout answers
// exactly (LeadRoutes, ScoreRoutes), and only a leading field that routes gets band and place
// constructors that carry their form in that layout.
func TestPreviousScoreRoutes(t *testing.T) {
	const old = `package: old
id: {name: ID, type: string, max_bytes: 8}
fields:
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}
`
	for _, c := range []struct {
		name, fields, routes string
		carried              bool
	}{
		{"wider", `
  - {name: Points, type: uint, bits: 30, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}`, "rankgenrt.ScoreRoutes{Lead: true, Tuple: true}", true},
		{"the second field's order turned", `
  - {name: Points, type: uint, bits: 20, order: desc}
  - {name: Tier, type: enum, values: [bronze, gold], order: asc}`, "rankgenrt.ScoreRoutes{Lead: true}", true},
		{"the leading field's order turned", `
  - {name: Points, type: uint, bits: 20, order: asc}
  - {name: Tier, type: enum, values: [bronze, gold], order: desc}`, "rankgenrt.ScoreRoutes{}", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := layout.Parse("next.yaml", []byte("package: next\nid: {name: ID, type: string, max_bytes: 8}\nfields:"+c.fields+"\nprevious:\n  schema: old.yaml\n"))
			if err != nil {
				t.Fatal(err)
			}
			if err := layout.LoadPrevious(l, "next.yaml", func(string) ([]byte, error) { return []byte(old), nil }); err != nil {
				t.Fatal(err)
			}
			code, err := Generate(l)
			if err != nil {
				t.Fatal(err)
			}
			src := string(code)
			if !strings.Contains(src, "rankgenrt.NewScoreReadsReplacing(board, "+c.routes+")") {
				t.Errorf("NewBoard does not pass %s:\n%s", c.routes, src[strings.Index(src, "func NewBoard"):][:600])
			}
			if got := strings.Contains(src, "func previousPointsBetween(") && strings.Contains(src, "func previousPointsIs("); got != c.carried {
				t.Errorf("the leading field's constructors carry its previous form: %v, want %v", got, c.carried)
			}
			if !strings.Contains(src, "func (e Entry) previousPlace()") || strings.Contains(src, "func previousTierBetween(") {
				t.Error("an Entry has no previousPlace, or a deeper field's band carries a previous form")
			}
		})
	}
}
