package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// TestREADME keeps the README's CLI examples true: its schema block parses, and the outputs
// it shows for explain, encode and decode are what the commands print.
func TestREADME(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README has no ```yaml schema block")
	}
	if _, err := layout.Parse("README.md", []byte(m[1])); err != nil {
		t.Errorf("the README's schema block does not parse:\n%v", err)
	}
	run := func(stdin string, args ...string) string {
		var stdout, stderr bytes.Buffer
		code := runIn(&env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, dir: "../.."}, args)
		if code != 0 {
			t.Fatalf("rankgen %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	indent := func(s string) string {
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		for i, l := range lines {
			if l != "" {
				lines[i] = "    " + l
			}
		}
		return strings.Join(lines, "\n") + "\n"
	}
	explain := run("", "explain", "examples/schemas/arena.yaml")
	if !strings.Contains(readme, "    $ rankgen explain examples/schemas/arena.yaml\n"+indent(explain)) {
		t.Errorf("README's explain sample is out of date; the command prints:\n%s", indent(explain))
	}
	entry := `{"PlayerID": "alice", "Points": 1234, "ReachedAt": "2026-03-01T10:00:00Z", "Paid": true}`
	encoded := run(entry+"\n", "encode", "-schema", "examples/schemas/arena.yaml")
	if !strings.Contains(readme, "    $ echo '"+entry+"' |\n        rankgen encode -schema examples/schemas/arena.yaml\n"+indent(encoded)) {
		t.Errorf("README's encode sample is out of date; the command prints:\n%s", encoded)
	}
	score := regexp.MustCompile(`"score": ([0-9.]+)`).FindStringSubmatch(encoded)[1]
	decoded := run("", "decode", "-schema", "examples/schemas/arena.yaml", score)
	if !strings.Contains(readme, "    $ rankgen decode -schema examples/schemas/arena.yaml "+score+"\n"+indent(decoded)) {
		t.Errorf("README's decode sample is out of date; the command prints:\n%s", decoded)
	}
}

// TestEveryCommandDocumented: every registered command has a section in README's CLI
// reference.
func TestEveryCommandDocumented(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range sortedCommands() {
		if !regexp.MustCompile(`(?m)^### .*\b` + regexp.QuoteMeta(c.name) + `\b`).Match(data) {
			t.Errorf("README.md has no ### section for rankgen %s", c.name)
		}
	}
}
