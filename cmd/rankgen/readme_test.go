package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// The documents that hold what these tests check: the CLI reference (a "## <command>"
// section per command, the explain, encode and decode samples) and the schema reference.
const (
	cliDoc    = "docs/cli.md"
	schemaDoc = "docs/schema.md"
)

// readDoc returns a Markdown file of the repository.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runDoc runs rankgen in dir as a documented command line and returns its stdout.
func runDoc(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runIn(&env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, dir: dir}, args)
	if code != 0 {
		t.Fatalf("rankgen %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.String()
}

// indentDoc indents every non-empty line by four spaces, as the documents show output.
func indentDoc(s string) string { return indentLines(s, "    ") }

// TestReadmeExplain: README's schema parses, and the explain output it shows for it, as
// puzzle/puzzle.yaml, is what the command prints.
func TestReadmeExplain(t *testing.T) {
	readme := readDoc(t, "README.md")
	var schema string
	for _, f := range firstBoardFiles(t) {
		if f.name == "puzzle/puzzle.yaml" {
			schema = f.text
		}
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "puzzle"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "puzzle/puzzle.yaml"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	explain := runDoc(t, dir, "", "explain", "puzzle/puzzle.yaml")
	if !strings.Contains(readme, "    $ rankgen explain puzzle/puzzle.yaml\n"+indentDoc(explain)) {
		t.Errorf("README's explain sample is out of date; the command prints:\n%s", indentDoc(explain))
	}
}

// TestDocumentedCLISamples keeps the references' examples true: the schema reference's
// schema block parses, and the outputs the CLI reference shows for explain, encode and decode
// are what the commands print.
func TestDocumentedCLISamples(t *testing.T) {
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(readDoc(t, schemaDoc))
	if m == nil {
		t.Fatalf("%s has no ```yaml schema block", schemaDoc)
	}
	if _, err := layout.Parse(schemaDoc, []byte(m[1])); err != nil {
		t.Errorf("the schema block of %s does not parse:\n%v", schemaDoc, err)
	}
	doc := readDoc(t, cliDoc)
	explain := runDoc(t, "../..", "", "explain", "examples/schemas/arena.yaml")
	if !strings.Contains(doc, "    $ rankgen explain examples/schemas/arena.yaml\n"+indentDoc(explain)) {
		t.Errorf("%s: the explain sample is out of date; the command prints:\n%s", cliDoc, indentDoc(explain))
	}
	entry := `{"PlayerID": "alice", "Points": 1234, "ReachedAt": "2026-03-01T10:00:00Z", "Paid": true}`
	encoded := runDoc(t, "../..", entry+"\n", "encode", "-schema", "examples/schemas/arena.yaml")
	if !strings.Contains(doc, "    $ echo '"+entry+"' |\n        rankgen encode -schema examples/schemas/arena.yaml\n"+indentDoc(encoded)) {
		t.Errorf("%s: the encode sample is out of date; the command prints:\n%s", cliDoc, encoded)
	}
	score := regexp.MustCompile(`"score": ([0-9.]+)`).FindStringSubmatch(encoded)[1]
	decoded := runDoc(t, "../..", "", "decode", "-schema", "examples/schemas/arena.yaml", score)
	if !strings.Contains(doc, "    $ rankgen decode -schema examples/schemas/arena.yaml "+score+"\n"+indentDoc(decoded)) {
		t.Errorf("%s: the decode sample is out of date; the command prints:\n%s", cliDoc, decoded)
	}
}

// TestEveryCommandDocumented: every registered command has a section in the CLI reference,
// and README's guide table names it.
func TestEveryCommandDocumented(t *testing.T) {
	doc := readDoc(t, cliDoc)
	readme := readDoc(t, "README.md")
	guide := regexp.MustCompile(`(?m)^\| \[The CLI\]\(` + regexp.QuoteMeta(cliDoc) + `\) \| (.*) \|$`).FindStringSubmatch(readme)
	if guide == nil {
		t.Fatalf("README's guide table has no row for [The CLI](%s)", cliDoc)
	}
	for _, c := range sortedCommands() {
		word := regexp.QuoteMeta(c.name)
		if !regexp.MustCompile(`(?m)^## .*\b` + word + `\b`).MatchString(doc) {
			t.Errorf("%s has no ## section for rankgen %s", cliDoc, c.name)
		}
		if !regexp.MustCompile(`\b` + word + `\b`).MatchString(guide[1]) {
			t.Errorf("README's guide row for the CLI does not name rankgen %s", c.name)
		}
	}
}
