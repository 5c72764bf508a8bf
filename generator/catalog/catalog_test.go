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
			rowFacts(t, l, op)
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
			if !op.ReadOnly {
				callStart(t, l, op.Name, op.Args)
			}
			if op.Batch != (op.Args.Stride() > 0) && op.Kind != Trim {
				t.Errorf("%s: %s: batch operations, and only they, repeat an argument group", l.File, op.Name)
			}
		}
	}
}

// callStart checks where the arguments of the write name start, that say what its call does
// (its token's record keeps them, to tell a resend of the call from another call): after the
// write arguments and the client's clock, which a resend of the same call may send otherwise,
// and before every other argument.
func callStart(t *testing.T, l *layout.Layout, name string, a Args) {
	t.Helper()
	from, err := a.CallStart()
	if err != nil {
		t.Errorf("%s: %s: %v", l.File, name, err)
		return
	}
	all := slices.Concat(a.Head, a.Each)
	want := WriteArgs()
	if slices.Contains(all, ArgClock) {
		want = append(want, ArgClock)
	}
	if !slices.Equal(all[:from-1], want) {
		t.Errorf("%s: %s: its call's arguments start at %d, after %v; want after %v", l.File, name, from, all[:from-1], want)
	}
}

// rowFacts checks what op's row says beyond its script: every fact set (the zero value of
// each is unset), and each consistent with the rest of the row.
func rowFacts(t *testing.T, l *layout.Layout, op Op) {
	t.Helper()
	if op.Go == goPartUnset || op.Sharding == shardingUnset || op.Data == carryUnset || op.Season == seasonUnset || op.Model == "" {
		t.Errorf("%s: %s: its row lacks Go, Sharding, Data, Season or Model", l.File, op.Name)
	}
	if (op.Body == BodyFieldUpdate) != (op.Field != nil) {
		t.Errorf("%s: %s: the field updates' body, and only it, is given a field (Body %d)", l.File, op.Name, op.Body)
	}
	if op.Body != BodyOwn && !op.Scripted() {
		t.Errorf("%s: %s: Body %d says how a script's body is made, but it has none", l.File, op.Name, op.Body)
	}
	if op.Body.SharedEntries() && (op.Template != "entries" || !slices.Equal(op.Args.Each[:2], []string{ArgScore, ArgMember})) {
		t.Errorf("%s: %s: the whole-entry writes share one body, over score, member pairs", l.File, op.Name)
	}
	if (op.Body == BodyChangeList || op.Body == BodyStamps) && op.Season != SeasonStamps {
		t.Errorf("%s: %s: a change list or touch stamps (Season: SeasonStamps)", l.File, op.Name)
	}
	if (op.Season == SeasonStamps) != slices.Contains(op.Args.Head, ArgClock) {
		t.Errorf("%s: %s: the operations that take the client's clock, and only they, stamp (Season: SeasonStamps)", l.File, op.Name)
	}
	if op.Season == SeasonEntries && !slices.Contains(op.Args.Each, ArgScore) {
		t.Errorf("%s: %s: SeasonEntries checks entries, but it takes none", l.File, op.Name)
	}
	if op.ReadOnly == (op.Data == DataWithEntries || op.Data == DataArgument) {
		t.Errorf("%s: %s: the writes, and only they, carry data with their entries (Data %d)", l.File, op.Name, op.Data)
	}
	if (op.DataDoc != "") != (op.Data == DataArgument || op.Data == DataInReply) {
		t.Errorf("%s: %s: DataDoc is the usage line of exactly DataArgument and DataInReply", l.File, op.Name)
	}
	if (op.DataForm != nil) != (op.Data == DataScripted) {
		t.Errorf("%s: %s: DataForm is given exactly with DataScripted", l.File, op.Name)
	}
	if l.HasData() {
		// Here the rows have had their data form: a reply with entries must carry their data.
		if op.Reply.WithData() != ReplyNone {
			t.Errorf("%s: %s replies %s on a board with data, which drops the entries' data", l.File, op.Name, op.Reply)
		}
		if (op.Data == DataInReply || op.Data == DataScripted) && !strings.HasSuffix(string(op.Reply), "_data") {
			t.Errorf("%s: %s carries data in its reply, but replies %q", l.File, op.Name, op.Reply)
		}
		if op.Data == DataArgument && !slices.Contains(op.Args.Each, ArgData) {
			t.Errorf("%s: %s takes each entry's data, but its Args lack %s", l.File, op.Name, ArgData)
		}
		return
	}
	if op.Data == DataInReply && op.Reply.WithData() == ReplyNone {
		t.Errorf("%s: %s carries data in its reply, but its shape %q has no data form (Reply.WithData)", l.File, op.Name, op.Reply)
	}
	if op.Data < DataArgument && op.Reply.WithData() != ReplyNone {
		t.Errorf("%s: %s replies entries (%s) but carries no data with them (Data: DataInReply)", l.File, op.Name, op.Reply)
	}
}

// TestKinds checks that the example schemas together have an operation of every kind, so that
// the catalogue tests above and the emitters' and model's tests over the examples see each.
func TestKinds(t *testing.T) {
	seen := map[Kind]bool{}
	for _, l := range examples(t) {
		for _, op := range Ops(l) {
			seen[op.Kind] = true
		}
	}
	for _, k := range Kinds {
		if !seen[k] {
			t.Errorf("no example schema has an operation of kind %s", k)
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

// TestCallStart: every write script of every example (board operations, a periodic layout's
// removal across seasons, feeds) says where its call's own arguments start; a read's arguments,
// which do not start with the write arguments, have no such place.
func TestCallStart(t *testing.T) {
	for _, l := range examples(t) {
		for _, op := range SeasonScripts(l) {
			if op.Args.Takes(ArgToken) {
				callStart(t, l, op.Name, op.Args)
			}
		}
		for _, f := range Feeds(l) {
			callStart(t, l, f.Name, f.Args)
		}
	}
	if _, err := (Args{Head: []string{ArgID}}).CallStart(); err == nil {
		t.Error("CallStart of a read's arguments: no error")
	}
}
