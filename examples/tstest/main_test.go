package tstest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"math/rand/v2"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// clients is the npm project of the committed TypeScript examples: its node_modules holds the
// pinned compiler and Redis client, and test/harness.ts runs the modules for these tests.
var clients = filepath.Join("..", "clients", "ts")

// examples are every example board, the periodic ones included.
func examples() []exampleboards.Example {
	return append(exampleboards.All(), exampleboards.Periodic()...)
}

var built struct {
	once sync.Once
	dir  string
	err  string
}

// buildModules generates the TypeScript module of every example into a directory of its own,
// compiles them with the harness (tsc, pinned in the clients' package-lock.json) and returns
// the directory of the compiled JavaScript. It fails the test, saying how to install them,
// when Node or the npm packages are missing: nothing is skipped.
func buildModules(t *testing.T) string {
	t.Helper()
	built.once.Do(func() { built.dir, built.err = build(t) })
	if built.err != "" {
		t.Fatal(built.err)
	}
	return built.dir
}

func build(t *testing.T) (string, string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", "node is not installed: run scripts/test.sh, which installs Debian's nodejs and the npm packages of examples/clients/ts"
	}
	modules, err := filepath.Abs(filepath.Join(clients, "node_modules"))
	if err != nil {
		return "", err.Error()
	}
	tsc := filepath.Join(modules, "typescript", "bin", "tsc")
	for _, need := range []string{tsc, filepath.Join(modules, "ioredis")} {
		if _, err := os.Stat(need); err != nil {
			return "", need + " is missing: run scripts/test.sh (or npm ci in examples/clients/ts)"
		}
	}
	dir, err := os.MkdirTemp("", "rankgen-tstest-")
	if err != nil {
		return "", err.Error()
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return "", err.Error()
	}
	harness, err := os.ReadFile(filepath.Join(clients, "test", "harness.ts"))
	if err != nil {
		return "", err.Error()
	}
	files := map[string][]byte{"harness.ts": harness}
	for _, l := range extraLayouts(t) {
		f, err := generator.TypeScript(l)
		if err != nil {
			return "", err.Error()
		}
		files[f.Name] = f.Data
	}
	// A board of a package gets its schema's own module (rankgen generate -ts on the package
	// file writes the same), named after the example: boards of two packages may share a stem.
	for _, ex := range examples() {
		f, err := generator.TypeScript(ex.Layout(t))
		if err != nil {
			return "", err.Error()
		}
		files[moduleName(ex)+".ts"] = f.Data
	}
	snippets, err := docSnippets()
	if err != nil {
		return "", err.Error()
	}
	for i, snippet := range snippets {
		files[fmt.Sprintf("doc_typescript_%d.ts", i+1)] = []byte(snippet)
	}
	config := map[string]any{"compilerOptions": map[string]any{
		"target": "ES2022", "module": "commonjs", "moduleResolution": "node", "lib": []string{"ES2022"},
		"types": []string{"node"}, "strict": true, "esModuleInterop": true, "outDir": "dist", "rootDir": ".",
	}, "include": []string{"*.ts"}}
	files["tsconfig.json"], _ = json.Marshal(config)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return "", err.Error()
		}
	}
	cmd := exec.Command(node, tsc, "-p", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "tsc: " + err.Error() + "\n" + string(out)
	}
	return filepath.Join(dir, "dist"), ""
}

// randomSchemas is how many random schemas (half of them bits62) the codec vectors cover
// besides the examples.
const randomSchemas = 8

// extraLayouts are the layouts the codec vectors cover besides the examples: the edge schemas
// of the Go emitter's goldens (full-width int64 and uint64 member fields, microseconds, a
// multi-byte separator and none, enums in the member, names that meet when lower-cased) and
// random schemas, the same on every run (random1.yaml, …).
func extraLayouts(t *testing.T) []*layout.Layout {
	var out []*layout.Layout
	goldens, err := filepath.Glob(filepath.Join("..", "..", "generator", "goemit", "testdata", "*.txtar"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no edge schemas in generator/goemit/testdata: %v", err)
	}
	for _, path := range goldens {
		ar, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(ar), "-- schema.yaml --\n")
		if !ok {
			t.Fatalf("%s has no schema.yaml", path)
		}
		src, _, _ := strings.Cut(rest, "\n-- ")
		name := strings.TrimSuffix(filepath.Base(path), ".txtar") + ".yaml"
		l, err := layout.Parse(name, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, l)
	}
	for i := 1; i <= randomSchemas; i++ {
		rng := rand.New(rand.NewPCG(20261128, uint64(i)))
		pkg := fmt.Sprintf("random%d", i)
		src := oracle.RandomSchema(rng, pkg)
		if i%2 == 0 {
			src = oracle.RandomBits62Schema(rng, pkg)
		}
		l, err := layout.Parse(pkg+".yaml", src)
		if err != nil {
			t.Fatalf("random schema %d: %v\n%s", i, err, src)
		}
		out = append(out, l)
	}
	return out
}

// docSnippets are the ```ts blocks of docs/typescript.md: compiled with the modules (they
// import ./racing.rankgen), so that the guide's code stays true.
func docSnippets() ([]string, error) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "typescript.md"))
	if err != nil {
		return nil, err
	}
	var out []string
	var cur []string
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		switch {
		case !in && line == "```ts":
			in, cur = true, nil
		case in && line == "```":
			in = false
			out = append(out, strings.Join(cur, "\n")+"\n")
		case in:
			cur = append(cur, line)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("docs/typescript.md has no ```ts block")
	}
	return out, nil
}

// runHarness runs the harness in mode on input and decodes what it printed into out.
func runHarness(t *testing.T, dist, mode string, input, out any) {
	t.Helper()
	in, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(file, in, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dist, "harness.js"), mode, file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node harness %s: %v\n%s", mode, err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("harness output: %v\n%.500s", err, stdout)
	}
}

// modulePath is the compiled module of the example in dist.
func modulePath(dist string, ex exampleboards.Example) string {
	return filepath.Join(dist, moduleName(ex)+".js")
}

// moduleName is the example's module without its extension: <stem>.rankgen, or for a board of
// a package <example>.rankgen.
func moduleName(ex exampleboards.Example) string {
	if ex.BoardName != "" {
		return ex.Name + ".rankgen"
	}
	return ex.SchemaName() + ".rankgen"
}
