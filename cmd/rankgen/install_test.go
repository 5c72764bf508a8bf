package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

// quickFile is a file of README's first board: its path in the user's module and its text.
type quickFile struct{ name, text string }

// firstBoardFiles returns the files of README's "A first board in five minutes": the schema
// (README's one ```yaml block) as puzzle/puzzle.yaml, the Go block of package puzzle as
// puzzle/gen.go and the Go block of package main as main.go, as its steps name them.
func firstBoardFiles(t *testing.T) []quickFile {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	yamls := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	if len(yamls) != 1 {
		t.Fatalf("README.md has %d ```yaml blocks, want the schema alone", len(yamls))
	}
	files := []quickFile{{"puzzle/puzzle.yaml", yamls[0][1]}}
	byPackage := map[string]string{"puzzle": "puzzle/gen.go", "main": "main.go"}
	for _, b := range goBlocks(t, "README.md") {
		m := regexp.MustCompile(`(?m)^package (\w+)$`).FindStringSubmatch(b.text)
		if m == nil || byPackage[m[1]] == "" {
			t.Fatalf("README.md:%d: a Go block that is neither puzzle/gen.go nor main.go", b.line)
		}
		files = append(files, quickFile{byPackage[m[1]], b.text})
		delete(byPackage, m[1])
	}
	for pkg, name := range byPackage {
		t.Fatalf("README.md has no Go block of package %s (%s)", pkg, name)
	}
	return files
}

// installCommands returns the commands of README's ```sh block (continued lines joined).
func installCommands(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("README.md has no ```sh block of install commands")
	}
	var cmds [][]string
	for _, line := range strings.Split(strings.ReplaceAll(m[1], "\\\n", " "), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			cmds = append(cmds, f)
		}
	}
	return cmds
}

// TestInstallFirstBoard follows README.md in a fresh module beside a directory "rankgen"
// (this checkout), as a user with a local clone does: it pins rankgen with README's install
// commands, writes the first board's schema, gen.go and main.go from README, runs
// go generate, vets and checks the result, and runs main.go against a private redis-server,
// which must print what README shows.
//
// The go command sees a module proxy that refuses every request, with the checksum database
// off: what it needs comes from the replace and the module cache that building this package
// filled (scripts/test.sh runs go mod download), so the sequence is proven to ask the
// network nothing. Under the same proxy a bare "go get -tool" through the replace fails,
// which is why README does not give it for a local clone.
func TestInstallFirstBoard(t *testing.T) {
	goTool, root := goAndRoot(t, "builds a module with the go command")
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "refused: this test asks the network nothing", http.StatusForbidden)
	}))
	t.Cleanup(proxy.Close)
	srv := redistest.Start(t)

	tmp := t.TempDir()
	if err := os.Symlink(root, filepath.Join(tmp, "rankgen")); err != nil {
		t.Fatal(err)
	}
	module := func(name string) string {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	run := func(dir string, args []string) (string, error) {
		t.Helper()
		if args[0] != "go" {
			t.Fatalf("README's install commands run the go command alone, not %q", args[0])
		}
		cmd := exec.Command(goTool, args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local",
			"GOPROXY="+proxy.URL, "GOSUMDB=off", "GOPRIVATE=", "GONOPROXY=", "REDIS_URL=redis://"+srv.Addr)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(dir string, args ...string) string {
		t.Helper()
		out, err := run(dir, args)
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}

	plain := module("plain")
	must(plain, "go", "mod", "init", "example.com/plain")
	must(plain, "go", "mod", "edit", "-replace", "github.com/rankgen/rankgen=../rankgen")
	if out, err := run(plain, []string{"go", "get", "-tool", "github.com/rankgen/rankgen/cmd/rankgen"}); err == nil {
		t.Errorf("go get -tool through a bare replace now works behind a refusing proxy; README's install can say so:\n%s", out)
	}

	game := module("game")
	must(game, "go", "mod", "init", "example.com/game")
	for _, c := range installCommands(t) {
		must(game, c...)
	}
	for _, f := range firstBoardFiles(t) {
		p := filepath.Join(game, f.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must(game, "go", "generate", "./...")
	for _, name := range []string{"puzzle/puzzle.rankgen.go", "puzzle/puzzle.rankgen.lua"} {
		if _, err := os.Stat(filepath.Join(game, name)); err != nil {
			t.Errorf("go generate did not write %s beside the schema: %v", name, err)
		}
	}
	must(game, "go", "vet", "./...")
	must(game, "go", "tool", "rankgen", "check", "puzzle/puzzle.yaml")
	if out := must(game, "go", "tool", "rankgen", "version"); !strings.HasPrefix(out, "rankgen v0.0.0-00010101000000-000000000000 => ../rankgen (go") {
		t.Errorf("version of a tool pinned from a local clone: %q", out)
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`go run .` against a fresh Redis prints\n\n((?:       .*\n)+)").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md does not show what go run . prints")
	}
	want := strings.ReplaceAll(string(m[1]), "       ", "")
	// A run across midnight UTC writes into two days, and the top ten of the new one differs:
	// run once more, on one day.
	for day := time.Now().UTC().Day(); ; day = time.Now().UTC().Day() {
		got := must(game, "go", "run", ".")
		if got == want {
			break
		}
		if time.Now().UTC().Day() == day {
			t.Fatalf("go run . prints\n%s\nREADME.md shows\n%s", got, want)
		}
		if err := srv.Client(t).FlushAll(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
	}
}
