package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

func examples(t *testing.T) []*layout.Layout {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "examples", "schemas", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example schemas: %v", err)
	}
	var out []*layout.Layout
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(filepath.Base(p), src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return out
}

// runtimeFuncs are the exported functions of package runtime, which the generated code calls.
func runtimeFuncs(t *testing.T) map[string]bool {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "runtime", "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no runtime sources: %v", err)
	}
	funcs := map[string]bool{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				funcs[fd.Name.Name] = true
			}
		}
	}
	return funcs
}

// TestOps checks every example's catalogue: names unique, kinds known, every scripted
// operation with a reply that a function of package runtime reads and arguments that
// name each position once, every operation with Board methods.
func TestOps(t *testing.T) {
	readers := runtimeFuncs(t)
	for _, l := range examples(t) {
		seen := map[string]bool{}
		for _, op := range Ops(l) {
			if seen[op.Name] {
				t.Errorf("%s: two operations named %s", l.File, op.Name)
			}
			seen[op.Name] = true
			if !slices.Contains(Kinds, op.Kind) {
				t.Errorf("%s: %s has kind %q, not in Kinds", l.File, op.Name, op.Kind)
			}
			if len(op.Methods) == 0 {
				t.Errorf("%s: %s has no Board method", l.File, op.Name)
			}
			if (op.Kind == Update) != (op.Field != nil) {
				t.Errorf("%s: %s: a field is given exactly to updates", l.File, op.Name)
			}
			if !op.Scripted() {
				if op.Reply != ReplyNone || op.Args.Fixed()+op.Args.Stride() > 0 {
					t.Errorf("%s: %s has no script but a reply or arguments", l.File, op.Name)
				}
				continue
			}
			if op.Title == "" || len(op.Usage) == 0 {
				t.Errorf("%s: %s has no title or usage for its script (doc.go)", l.File, op.Name)
			}
			if r := op.Reply.Reader(); !readers[r] {
				t.Errorf("%s: %s replies %q, read by rankgenrt.%s, which package runtime lacks", l.File, op.Name, op.Reply, r)
			}
			names := slices.Concat(op.Args.Head, op.Args.Each)
			slices.Sort(names)
			if len(slices.Compact(names)) != op.Args.Fixed()+op.Args.Stride() {
				t.Errorf("%s: %s names an argument twice: %v", l.File, op.Name, op.Args)
			}
			if op.Batch != (op.Args.Stride() > 0) && op.Kind != Trim {
				t.Errorf("%s: %s: batch operations, and only they, repeat an argument group", l.File, op.Name)
			}
		}
	}
}

// TestArgs pins the positions the scripts and the Go side share.
func TestArgs(t *testing.T) {
	a := UpdateArgs()
	for _, c := range []struct {
		name string
		f    func(string) (int, error)
		arg  string
		want int
	}{
		{"At", a.At, ArgToken, 3},
		{"At", a.At, ArgWindow, 4},
		{"At", a.At, ArgClock, 5},
		{"First", a.First, ArgID, 6},
		{"First", a.First, ArgValue, 7},
		{"Base", a.Base, ArgID, 4},
		{"Base", a.Base, ArgValue, 5},
		{"Index", a.Index, ArgID, 5},
	} {
		if got, err := c.f(c.arg); err != nil || got != c.want {
			t.Errorf("%s(%s) = %d, %v; want %d", c.name, c.arg, got, err, c.want)
		}
	}
	if _, err := a.At(ArgID); err == nil {
		t.Error("At(id) of the batch layout: want an error, id is repeated")
	}
	if _, err := a.First(ArgKeep); err == nil {
		t.Error("First(keep): want an error")
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"Points": "points", "ReachedAt": "reached_at", "HTTPCode": "http_code", "UserID": "user_id", "Level2Up": "level2_up"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Camel("add_reached_at_many"); got != "AddReachedAtMany" {
		t.Errorf("Camel = %q", got)
	}
}
