package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
)

// directive is one "//go:generate … rankgen generate -o DIR [-py DIR] [-ts DIR] SCHEMA" line of gen.go.
type directive struct {
	line    string
	out     string
	clients []string // the flags of the other languages' clients (-py DIR, -ts DIR), as written
	schema  string
}

var directiveRE = regexp.MustCompile(`^//go:generate go run github\.com/rankgen/rankgen/cmd/rankgen generate -o (\S+)((?: -(?:py|ts) \S+)*) (\S+)$`)

func directives(t *testing.T) []directive {
	t.Helper()
	src, err := os.ReadFile("gen.go")
	if err != nil {
		t.Fatal(err)
	}
	var ds []directive
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "//go:generate") {
			continue
		}
		m := directiveRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("gen.go: directive %q is not of the form %s", line, directiveRE)
		}
		ds = append(ds, directive{line: line, out: m[1], clients: strings.Fields(m[2]), schema: m[3]})
	}
	return ds
}

// TestDirectives checks that gen.go has exactly one directive per schema in schemas/, and that
// each writes into generated/<the schema's package>.
func TestDirectives(t *testing.T) {
	schemas, err := filepath.Glob("schemas/*.yaml")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	// A package of boards is one directive for its package file (schemas/<package>/<package>.yaml).
	packages, err := filepath.Glob("schemas/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range packages {
		if src, err := os.ReadFile(s); err == nil && layout.IsBoards(src) {
			schemas = append(schemas, s)
		}
	}
	bySchema := map[string]directive{}
	for _, d := range directives(t) {
		if _, dup := bySchema[d.schema]; dup {
			t.Errorf("gen.go: %s has two directives", d.schema)
		}
		bySchema[d.schema] = d
	}
	for _, s := range schemas {
		d, ok := bySchema[s]
		if !ok {
			pkg := "<package>"
			if src, err := os.ReadFile(s); err == nil {
				if l, err := layout.Parse(s, src); err == nil {
					pkg = l.Package
				}
			}
			t.Errorf("gen.go has no directive for %s; add:\n//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/%s %s", s, pkg, s)
			continue
		}
		delete(bySchema, s)
		src, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		pkg := ""
		if layout.IsBoards(src) {
			p, err := layout.ParseBoards(s, src, os.ReadFile)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			pkg = p.Package
		} else {
			l, err := layout.Parse(s, src)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			pkg = l.Package
		}
		if want := "generated/" + pkg; d.out != want {
			t.Errorf("gen.go writes %s into %s; use -o %s (one directory per package)", s, d.out, want)
		}
		for i := 0; i+1 < len(d.clients); i += 2 {
			if d.clients[i] == "-ts" && d.clients[i+1] != "clients/ts" {
				t.Errorf("gen.go writes the TypeScript module of %s into %s; use -ts clients/ts", s, d.clients[i+1])
			}
		}
	}
	for s := range bySchema {
		t.Errorf("gen.go has a directive for %s, which does not exist", s)
	}
}

// TestGeneratedUpToDate runs "rankgen check" for every directive: the committed packages in
// generated/ must be exactly what "go generate ./examples/..." writes.
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the rankgen command; scripts/test.sh also runs rankgen check")
	}
	bin := filepath.Join(t.TempDir(), "rankgen")
	build := exec.Command("go", "build", "-o", bin, "github.com/rankgen/rankgen/cmd/rankgen")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, d := range directives(t) {
		// Read the files here too: go test caches results by the files a test opens (and by
		// its imports, generator among them), not by what a child process reads.
		entries, err := os.ReadDir(d.out)
		if err != nil {
			t.Errorf("%s: %v; run go generate ./examples/...", d.out, err)
			continue
		}
		if _, err := os.ReadFile(d.schema); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(d.out, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(e.Name(), "_test.go") && !generator.IsGenerated(data, filepath.Base(d.schema)) {
				t.Errorf("%s/%s is not generated from %s; generated/<package>/ holds only generated files and tests", d.out, e.Name(), d.schema)
			}
		}
		cmd := exec.Command(bin, append(append([]string{"check", "-o", d.out}, d.clients...), d.schema)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s is stale (%v); run go generate ./examples/... and commit:\n%s", d.out, err, out)
		}
	}
}
