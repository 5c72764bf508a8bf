package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

// goBlock is one ```go block of a Markdown file.
type goBlock struct {
	file string // the Markdown file, relative to the repository
	line int    // the line of its opening fence
	text string
}

// goBlocks returns every ```go block of a Markdown file of the repository.
func goBlocks(t *testing.T, file string) []goBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []goBlock
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		indent, ok := strings.CutSuffix(lines[i], "```go")
		if !ok || strings.TrimSpace(indent) != "" {
			continue
		}
		start := i
		var body []string
		for i++; i < len(lines) && lines[i] != indent+"```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		blocks = append(blocks, goBlock{file: file, line: start + 1, text: strings.Join(body, "\n") + "\n"})
	}
	return blocks
}

// docFiles lists docs/*.md.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		out = append(out, filepath.ToSlash(strings.TrimPrefix(f, "../../")))
	}
	sort.Strings(out)
	return out
}

// snippetImports are the packages a fragment may name; the harness imports those it uses.
var snippetImports = map[string]string{
	"context":   "context",
	"errors":    "errors",
	"fmt":       "fmt",
	"time":      "time",
	"testing":   "testing",
	"redis":     "github.com/redis/go-redis/v9",
	"rankgenrt": "github.com/rankgen/rankgen/runtime",
	"migrate":   "github.com/rankgen/rankgen/migrate",
	"layout":    "github.com/rankgen/rankgen/generator/layout",
	"redistest": "github.com/rankgen/rankgen/internal/testkit/redistest",
	"arena":     "github.com/rankgen/rankgen/examples/generated/arena",
	"game":      "github.com/rankgen/rankgen/examples/generated/game",
	"ladders":   "github.com/rankgen/rankgen/examples/generated/ladders",
	"laps":      "github.com/rankgen/rankgen/examples/generated/laps",
	"racing":    "github.com/rankgen/rankgen/examples/generated/racing",
	"weekly":    "github.com/rankgen/rankgen/examples/generated/weekly",
}

// importsOf returns the import block of the snippetImports a fragment's text names.
func importsOf(text string) string {
	var names []string
	for name := range snippetImports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(text) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("import (\n")
	for _, name := range names {
		fmt.Fprintf(&b, "\t%s %q\n", name, snippetImports[name])
	}
	b.WriteString(")\n")
	return b.String()
}

// TestDocsSnippets compiles and runs every Go snippet of docs/*.md against a private
// redis-server, and holds README.md's to the quick start that TestInstallFirstBoard runs.
//
// The harness, for a block of docs/*.md:
//   - a whole test file (it starts with "package" and declares a Test function) is
//     compiled and run with go test -short in a package of its own;
//   - any other block is a fragment: the statements of a function
//     func(ctx context.Context, rdb redis.UniversalClient) error, to which the harness adds
//     the closing "return nil" and the imports of the packages the fragment names
//     (snippetImports); a fmt.Println line that ends in a comment must print exactly the
//     comment's text (checkPrints). The fragments run in order, each on a database of this
//     test's private server, emptied first (a server has 16), and an error one returns fails
//     the test with the block's file and line.
//
// The programs live in the module through an overlay (go build -overlay), so they import
// the example packages and internal/testkit like the module's own tests, and nothing is
// written into the repository.
func TestDocsSnippets(t *testing.T) {
	goTool, root := goAndRoot(t, "builds and runs programs with the go command")

	// README.md's blocks are the quick start's files, which TestInstallFirstBoard writes
	// into a fresh module and runs: every one must be among them.
	placed := map[string]bool{}
	for _, f := range firstBoardFiles(t) {
		placed[f.text] = true
	}
	for _, b := range goBlocks(t, "README.md") {
		if !placed[b.text] {
			t.Errorf("README.md:%d: a Go block that is not a file of the quick start, which TestInstallFirstBoard runs", b.line)
		}
	}

	tmp := t.TempDir()
	overlay := map[string]string{}
	add := func(virtual, text string) {
		real := filepath.Join(tmp, strings.ReplaceAll(virtual, "/", "_"))
		if err := os.WriteFile(real, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay[filepath.Join(root, virtual)] = real
	}
	var fragments, calls strings.Builder
	var tests []string
	n := 0
	for _, file := range docFiles(t) {
		for _, b := range goBlocks(t, file) {
			n++
			where := fmt.Sprintf("%s:%d", b.file, b.line)
			if strings.HasPrefix(b.text, "package ") && strings.Contains(b.text, "\nfunc Test") {
				dir := fmt.Sprintf("docs/snippets/test%d", n)
				add(dir+"/snippet_test.go", "// "+where+"\n"+b.text)
				tests = append(tests, "./"+dir)
				continue
			}
			fmt.Fprintf(&fragments, "\n// %s\nfunc snippet%d(ctx context.Context, rdb redis.UniversalClient) error {\n%s\treturn nil\n}\n", where, n, indentLines(checkPrints(b.text), "\t"))
			fmt.Fprintf(&calls, "\trun(%q, snippet%d)\n", where, n)
		}
	}
	if n == 0 {
		t.Fatal("docs/*.md hold no Go blocks")
	}
	program := "// The harness of TestDocsSnippets: the fragments of docs/*.md, each run against the\n" +
		"// server at -addr on a database of its own. Written by cmd/rankgen/docs_test.go.\n" +
		"package main\n\n" +
		importsOf(fragments.String()+" context. fmt. redis. ") +
		"\n" + `
func main() {
	addr, failed := os.Args[1], false
	ctx := context.Background()
	db := 0
	run := func(where string, snippet func(context.Context, redis.UniversalClient) error) {
		// A database of its own, emptied first: a server has 16.
		rdb := redis.NewClient(&redis.Options{Addr: addr, DB: db % 16})
		defer rdb.Close()
		db++
		if err := rdb.FlushDB(ctx).Err(); err != nil {
			fmt.Printf("%s: %v\n", where, err)
			failed = true
			return
		}
		if err := snippet(ctx, rdb); err != nil {
			fmt.Printf("%s: %v\n", where, err)
			failed = true
		}
	}
` + calls.String() + `	if failed {
		os.Exit(1)
	}
}
` + fragments.String()
	program = strings.Replace(program, "import (\n", "import (\n\t\"os\"\n", 1)
	add("docs/snippets/main.go", program)

	overlayFile := filepath.Join(tmp, "overlay.json")
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlayFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := redistest.Start(t)
	goCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, numbered(out, program))
		}
	}
	goCmd("run", "-overlay", overlayFile, "./docs/snippets", srv.Addr)
	// A test binary runs in its package's directory, which exists only in the overlay: build
	// it, and run it in a directory of its own.
	for i, pkg := range tests {
		bin := filepath.Join(tmp, fmt.Sprintf("snippet%d.test", i))
		goCmd("test", "-c", "-vet=off", "-o", bin, "-overlay", overlayFile, pkg)
		cmd := exec.Command(bin, "-test.short", "-test.count=1")
		cmd.Dir = t.TempDir()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", pkg, err, out)
		}
	}
}

// printWant is a line of a fragment that prints, with what the document says it prints.
var printWant = regexp.MustCompile(`(?m)^(\s*)fmt\.Println\((.*)\) // (.*)$`)

// checkPrints turns each fmt.Println of a fragment that ends in a comment into a check that
// it prints exactly the comment's text: the output a document shows is what the code prints.
func checkPrints(text string) string {
	return printWant.ReplaceAllStringFunc(text, func(line string) string {
		m := printWant.FindStringSubmatch(line)
		return fmt.Sprintf("%sif got, want := fmt.Sprintln(%s), %q; got != want {\n%s\treturn fmt.Errorf(\"prints %%q, the document says %%q\", got, want)\n%s}",
			m[1], m[2], m[3]+"\n", m[1], m[1])
	})
}

// goAndRoot returns the go command and the repository's root for a test that builds with the
// go command, which -short leaves out (why says what it builds).
func goAndRoot(t *testing.T, why string) (goTool, root string) {
	t.Helper()
	if testing.Short() {
		t.Skip(why)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command")
	}
	root, err = filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return goTool, root
}

// indentLines puts prefix before every non-empty line of text.
func indentLines(text, prefix string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// numbered returns the go command's output and, when it names lines of the harness program,
// the program with line numbers, so that a compile error can be traced to its block.
func numbered(out []byte, program string) string {
	if !strings.Contains(string(out), "main.go:") {
		return string(out)
	}
	var b strings.Builder
	b.Write(out)
	b.WriteString("\nthe harness program:\n")
	for i, l := range strings.Split(program, "\n") {
		fmt.Fprintf(&b, "%4d %s\n", i+1, l)
	}
	return b.String()
}
