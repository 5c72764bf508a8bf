package breaking

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"golang.org/x/tools/txtar"
)

// TestRuleTable: every rule has a unique upper-case ID, a category, a one-line purpose and a
// check, and a field rule's scope matches what its category pairs by.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if !regexp.MustCompile(`^[A-Z][A-Z_]*[A-Z]$`).MatchString(r.ID) {
			t.Errorf("rule ID %q is not UPPER_SNAKE", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("rule %s is registered twice", r.ID)
		}
		seen[r.ID] = true
		if r.Category != Wire && r.Category != Source {
			t.Errorf("rule %s has category %q", r.ID, r.Category)
		}
		if r.Purpose == "" || strings.ContainsAny(r.Purpose, "\n|") {
			t.Errorf("rule %s: purpose %q is not one line (no |, it goes into a table)", r.ID, r.Purpose)
		}
		if r.check == nil {
			t.Errorf("rule %s has no check", r.ID)
		}
	}
}

// TestEmittedRulesRegistered proves that the comparer emits only registered rules: the
// package builds a Change in exactly one place, from the rule whose check runs, and every
// change on the golden pairs and on random schema pairs names a registered rule of its
// category. Every rule but the LAYOUT fallback is emitted by some golden pair.
func TestEmittedRulesRegistered(t *testing.T) {
	changeLiterals(t)
	registered := map[string]Category{}
	for _, r := range Rules() {
		registered[r.ID] = r.Category
	}
	emitted := map[string]bool{}
	check := func(cs []Change) {
		for _, c := range cs {
			cat, ok := registered[c.Rule]
			if !ok || cat != c.Category {
				t.Errorf("emitted %s %s, registered: %v (%q)", c.Category, c.Rule, ok, cat)
			}
			emitted[c.Rule] = true
		}
	}
	files, _ := filepath.Glob("testdata/*.txtar")
	for _, file := range files {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		src := map[string][]byte{}
		for _, f := range a.Files {
			src[f.Name] = f.Data
		}
		check(goldenChanges(t, src, false))
	}
	for _, r := range Rules() {
		if !emitted[r.ID] && r.scope != fallback {
			t.Errorf("rule %s is emitted by no golden in testdata: add a pair that shows it", r.ID)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 40 {
		a := parse(t, "a.yaml", oracle.RandomSchema(rng, "p"))
		b := parse(t, "b.yaml", oracle.RandomSchema(rng, "q"))
		check(Compare(a, b))
	}
}

// changeLiterals checks that the package's code builds a Change in one place only (probe.add)
// and takes its rule from the registered rule being checked, never from a literal.
func changeLiterals(t *testing.T) {
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	var sites []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, isIdent := lit.Type.(*ast.Ident); !isIdent || id.Name != "Change" {
				return true
			}
			sites = append(sites, fset.Position(lit.Pos()).String())
			for _, e := range lit.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if ok && kv.Key.(*ast.Ident).Name == "Rule" && render(fset, kv.Value) != "p.rule.ID" {
					t.Errorf("%s: a Change takes its rule from %s, not from the rule being checked", fset.Position(kv.Pos()), render(fset, kv.Value))
				}
			}
			return true
		})
	}
	if len(sites) != 1 {
		t.Errorf("Change is built in %d places (%v), want 1 (probe.add)", len(sites), sites)
	}
}

func render(fset *token.FileSet, e ast.Expr) string {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return render(fset, e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return fset.Position(e.Pos()).String()
}

// TestRulesDocumented: the CLI reference's breaking section (docs/cli.md) lists every rule,
// and only those, in a table row "| `ID` | CATEGORY | purpose |" with the registered category
// and purpose.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "\n## breaking\n")
	if start < 0 {
		t.Fatal("docs/cli.md has no \"## breaking\" section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[1:], "\n#"); end >= 0 {
		section = section[:end+1]
	}
	rows := map[string][2]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| (\\w+) \\| (.*) \\|$").FindAllStringSubmatch(section, -1) {
		rows[m[1]] = [2]string{m[2], m[3]}
	}
	var want strings.Builder
	for _, r := range Rules() {
		want.WriteString("| `" + r.ID + "` | " + string(r.Category) + " | " + r.Purpose + " |\n")
		if got, ok := rows[r.ID]; !ok || got != [2]string{string(r.Category), r.Purpose} {
			t.Errorf("docs/cli.md's breaking table: rule %s is missing or differs (%q)", r.ID, got)
		}
		delete(rows, r.ID)
	}
	for id := range rows {
		t.Errorf("docs/cli.md's breaking table lists %s, which is not a registered rule", id)
	}
	if t.Failed() {
		t.Logf("the rows, in order:\n%s", want.String())
	}
}
