package boardtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v3"
	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
)

// TestTypeScriptRoutesToPrevious: v3's TypeScript Board, on a board v1's code filled, reads and
// writes it in v1's layout as v3's Go Board does (every call's reply or refusal compared), and
// in v3's own once the migration has switched it; the two boards end equal, byte for byte.
func TestTypeScriptRoutesToPrevious(t *testing.T) {
	script := typeScriptClient(t, v3Layout(t), "previous.ts")
	c := redistest.Client(t)
	goKey, tsKey := redistest.Key(t, "go"), redistest.Key(t, "ts")
	fillV1(t, c, goKey, tsKey)
	host, port, err := splitAddr(c.Options().Addr)
	if err != nil {
		t.Fatal(err)
	}
	run := func(calls []clientCall) {
		t.Helper()
		out := runClient(t, map[string]any{"host": host, "port": port, "key": tsKey, "calls": calls}, "node", script)
		compareResults(t, v3.NewBoard(c, goKey), calls, out)
	}
	run([]clientCall{
		{"get", "p1"}, {"top", 10}, {"rank", "p2"}, {"get_many", []string{"p3", "nobody"}}, {"around", "p2", 1, 1},
		{"set", entryCall("p4", 250, "kart", "n4", 4)},
		{"set", entryCall("p5", 1<<31, "kart", "big", 1)}, // past v1's 30 bits
		{"set", entryCall("p5", 50, "rally", "rally", 1)}, // a class v1 lacks
		{"set", entryCall("p5", 1<<41, "rally", "", 1)},   // past v3's 40 bits too
		{"add_points", "p3", 5}, {"add_points", "p3", 1 << 30}, {"add_points", "p3", -1000},
		{"set_points", "p6", 77}, {"set_points", "p6", 1 << 31},
		{"get", "nobody"}, {"top", 10},
	})
	plan := previousPlan(t, "internal/compat/v3/v3.yaml")
	for _, key := range []string{goKey, tsKey} {
		if _, err := migrate.Run(ctx, c, plan, migrate.Options{Key: key}); err != nil {
			t.Fatal(err)
		}
	}
	run([]clientCall{
		{"set", entryCall("p5", 1<<31, "rally", "big", 1)}, {"add_points", "p3", 1 << 30},
		{"get", "p5"}, {"top", 10}, {"rank", "p3"},
	})
	if g, ts := dumpBoard(t, c, goKey), dumpBoard(t, c, tsKey); g != ts {
		t.Fatalf("the boards differ:\nGo         %s\nTypeScript %s", g, ts)
	}
}

// typeScriptClient compiles the TypeScript modules of l (its own and its previous layout's,
// which it imports) and the driver testdata/<driver> with the clients' pinned tsc, and returns
// the driver's JavaScript.
func typeScriptClient(t *testing.T, l *layout.Layout, driver string) string {
	t.Helper()
	modules, err := filepath.Abs(filepath.Join("..", "clients", "ts", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	tsc := filepath.Join(modules, "typescript", "bin", "tsc")
	for _, need := range []string{tsc, filepath.Join(modules, "ioredis")} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%s is missing: run scripts/test.sh (or npm ci in examples/clients/ts)", need)
		}
	}
	own, err := generator.TypeScript(l)
	if err != nil {
		t.Fatal(err)
	}
	prev, ok, err := generator.TypeScriptPrevious(l)
	if err != nil || !ok {
		t.Fatalf("%s's previous TypeScript module: %v, %v", l.File, ok, err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", driver))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := `{"compilerOptions": {"target": "ES2022", "module": "commonjs", "moduleResolution": "node", "lib": ["ES2022"],
	  "types": ["node"], "strict": true, "esModuleInterop": true, "outDir": "dist", "rootDir": "."}, "include": ["*.ts"]}`
	for name, data := range map[string][]byte{own.Name: own.Data, prev.Name: prev.Data, driver: src, "tsconfig.json": []byte(config)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", tsc, "-p", dir).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	return filepath.Join(dir, "dist", strings.TrimSuffix(driver, ".ts")+".js")
}

func splitAddr(addr string) (string, int, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(port)
	return host, n, err
}
