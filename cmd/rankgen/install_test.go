package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoTool follows the README in a fresh module: pin rankgen with "go get -tool" (a replace
// directive points at this checkout), generate with "//go:generate go tool rankgen generate
// arena.yaml" beside the schema, vet the result with a hand-written file of the same package,
// and check it. It exercises the default output directory, the tool directive, the header and
// the version report of a tool build.
func TestGoTool(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile(filepath.Join(root, "examples/schemas/arena.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/user\n\ngo 1.26.8\n\nrequire github.com/rankgen/rankgen v0.0.0\n\nreplace github.com/rankgen/rankgen => "+root+"\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("board/arena.yaml", strings.Replace(string(schema), "package: arena", "package: board", 1))
	write("board/board.go", "// Package board keeps the arena ladder.\npackage board\n\n//go:generate go tool rankgen generate arena.yaml\n\n// Top is how many entries the front page shows.\nconst Top = 10\n")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		// Offline: rankgen comes from the replace directive, its dependencies from the module
		// cache that building this package filled (scripts/test.sh runs go mod download).
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("get", "-tool", "github.com/rankgen/rankgen/cmd/rankgen")
	run("generate", "./...")
	if _, err := os.Stat(filepath.Join(dir, "board/arena.rankgen.go")); err != nil {
		t.Fatalf("go generate did not write board/arena.rankgen.go beside the schema: %v", err)
	}
	run("vet", "./...")
	run("tool", "rankgen", "check", "board/arena.yaml")
	if out := run("tool", "rankgen", "version"); !strings.HasPrefix(out, "rankgen v0.0.0 => "+root+" (go") {
		t.Errorf("version of a tool build: %q", out)
	}
}
