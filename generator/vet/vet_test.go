package vet

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the findings sections of testdata/*.txtar")

// testNow is the date every golden is vetted on, so that time findings do not age.
var testNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// TestRuleTable: every rule has a unique upper-case ID, a severity, a one-line purpose and
// fix, and a check.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`).MatchString(r.ID) {
			t.Errorf("rule ID %q is not UPPER_SNAKE", r.ID)
		}
		if seen[r.ID] {
			t.Errorf("rule %s is registered twice", r.ID)
		}
		seen[r.ID] = true
		if r.Severity != Warning && r.Severity != Error {
			t.Errorf("rule %s has severity %q", r.ID, r.Severity)
		}
		for what, s := range map[string]string{"purpose": r.Purpose, "fix": r.Fix} {
			if s == "" || strings.ContainsAny(s, "\n|") {
				t.Errorf("rule %s: %s %q is not one line (no |, it goes into a table)", r.ID, what, s)
			}
		}
		if r.check == nil {
			t.Errorf("rule %s has no check", r.ID)
		}
	}
}

// TestGoldens vets the schema of each testdata/*.txtar on testNow (with -years from a
// "years" file, else the default) and compares the findings, one per line. Every rule fires
// in some golden, and a golden named after a rule (time_ended.txtar) shows that rule.
func TestGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no testdata/*.txtar")
	}
	fired := map[string]bool{}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src, want, opts := map[string][]byte{}, "", Options{Now: testNow}
			for _, f := range a.Files {
				src[f.Name] = f.Data
			}
			want = string(src["findings"])
			if y := strings.TrimSpace(string(src["years"])); y != "" {
				if _, err := fmt.Sscan(y, &opts.Years); err != nil {
					t.Fatalf("years %q: %v", y, err)
				}
			}
			l, err := layout.Parse("schema.yaml", src["schema.yaml"])
			if err != nil {
				t.Fatalf("schema.yaml does not parse: %v", err)
			}
			var got strings.Builder
			for _, f := range Check(Schema{Layout: l, Src: src["schema.yaml"]}, opts) {
				fired[f.Rule] = true
				got.WriteString(f.String() + "\n")
			}
			if base := strings.ToUpper(strings.TrimSuffix(filepath.Base(file), ".txtar")); ruleIDs()[base] && !strings.Contains(got.String(), " "+base+": ") {
				t.Errorf("the golden named after %s does not show it", base)
			}
			if *update {
				writeFindings(t, file, a, got.String())
				return
			}
			if got.String() != want {
				t.Errorf("findings differ (go test ./generator/vet -update rewrites them):\ngot:\n%swant:\n%s", got.String(), want)
			}
		})
	}
	for id := range ruleIDs() {
		if !fired[id] {
			t.Errorf("rule %s fires in no golden in testdata: add a schema that shows it", id)
		}
	}
}

func ruleIDs() map[string]bool {
	ids := map[string]bool{}
	for _, r := range Rules() {
		ids[r.ID] = true
	}
	return ids
}

func writeFindings(t *testing.T, file string, a *txtar.Archive, findings string) {
	t.Helper()
	var kept []txtar.File
	for _, f := range a.Files {
		if f.Name != "findings" {
			kept = append(kept, f)
		}
	}
	a.Files = append(kept, txtar.File{Name: "findings", Data: []byte(findings)})
	if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExamplesQuiet: the product's own example boards raise no finding but those their
// golden list names (the seeds copy hand-made schemes as they are, risks included).
func TestExamplesQuiet(t *testing.T) {
	for _, name := range []string{"arena.yaml", "racing.yaml"} {
		src, err := os.ReadFile(filepath.Join("../../examples/schemas", name))
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		if fs := Check(Schema{Layout: l, Src: src}, Options{Now: testNow}); len(fs) > 0 {
			t.Errorf("%s: %v", name, fs)
		}
	}
}

// TestTimeRanges: generate and explain run the time rules alone.
func TestTimeRanges(t *testing.T) {
	src := []byte("package: p\nid: {name: ID, type: uint64}\nfields:\n  - name: At\n    type: time\n    unit: s\n    epoch: 2026-01-01T00:00:00Z\n    bits: 17\n    order: asc\n  - name: N\n    type: uint\n    bits: 60\n    order: desc\n    in: member\n")
	l, err := layout.Parse("p.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	fs := TimeRanges(Schema{Layout: l, Src: src}, Options{Now: testNow, Years: 1})
	if len(fs) != 1 || fs[0].Rule != "TIME_ENDED" || fs[0].Line != 4 {
		t.Errorf("TimeRanges = %v, want one TIME_ENDED at line 4", fs)
	}
}

// TestRulesDocumented: the CLI reference's vet section (docs/cli.md) lists every rule, and
// only those, in a table row "| `ID` | severity | purpose | fix |" with the registered values.
func TestRulesDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "\n## vet\n")
	if start < 0 {
		t.Fatal("docs/cli.md has no \"## vet\" section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[1:], "\n#"); end >= 0 {
		section = section[:end+1]
	}
	rows := map[string][3]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z0-9_]+)` \\| (\\w+) \\| (.*) \\| (.*) \\|$").FindAllStringSubmatch(section, -1) {
		rows[m[1]] = [3]string{m[2], m[3], m[4]}
	}
	var want strings.Builder
	for _, r := range Rules() {
		row := [3]string{string(r.Severity), r.Purpose, r.Fix}
		want.WriteString("| `" + r.ID + "` | " + strings.Join(row[:], " | ") + " |\n")
		if got, ok := rows[r.ID]; !ok || got != row {
			t.Errorf("docs/cli.md's vet table: rule %s is missing or differs (%q)", r.ID, got)
		}
		delete(rows, r.ID)
	}
	for id := range rows {
		t.Errorf("docs/cli.md's vet table lists %s, which is not a registered rule", id)
	}
	if t.Failed() {
		t.Logf("the rows, in order:\n%s", want.String())
	}
}
