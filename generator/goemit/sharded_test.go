package goemit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
)

// TestShardedMethods checks that the ShardedBoard generated for every golden layout (periodic
// ones and those with data fields included; each as if its schema said sharded: true) declares each Board method of the operations it merges
// (ShardedMethods), with the Board method's exact signature, so that a ShardedBoard can
// replace a Board in code that uses them, and that it lacks no exported Board method but those
// it documents as read from its shards (PerShardMethods), so that an operation added to Board
// cannot be silently missing.
func TestShardedMethods(t *testing.T) {
	for _, g := range readGoldens(t) {
		l := parse(t, g.stem, g.schema)
		l.Sharded = true
		src, err := Generate(l)
		if err != nil {
			t.Fatal(err)
		}
		board, sharded := signatures(t, src, "Board"), signatures(t, src, "ShardedBoard")
		maps.Copy(board, runtimeBoardMethods(l)) // the methods Board has of rankgenrt.Board
		inRuntime := runtimeShardedMethods(l)
		for _, op := range catalog.Ops(l) {
			for _, m := range op.Methods {
				switch {
				case op.Go.InRuntime() && op.Sharding != catalog.ShardPerShard && inRuntime[m] == "":
					t.Errorf("%s: operation %s: rankgenrt.ShardedBoard lacks method %s", g.stem, op.Name, m)
				case op.Go.InRuntime() && sharded[m] != "":
					t.Errorf("%s: operation %s: the generated ShardedBoard declares %s, which rankgenrt.ShardedBoard has", g.stem, op.Name, m)
				}
			}
		}
		for m, sig := range inRuntime {
			if sharded[m] != "" {
				t.Errorf("%s: the generated ShardedBoard declares %s, which rankgenrt.ShardedBoard has", g.stem, m)
			}
			sharded[m] = sig
		}
		names := ShardedMethods(catalog.Ops(l))
		if len(names) == 0 {
			t.Fatalf("%s: no sharded methods", g.stem)
		}
		perShard := PerShardMethods(catalog.Ops(l))
		for m := range board {
			if ast.IsExported(m) && sharded[m] == "" && !slices.Contains(perShard, m) {
				t.Errorf("%s: ShardedBoard lacks Board.%s: merge it (shardedEmitters) or give its catalogue row Sharding: catalog.ShardPerShard", g.stem, m)
			}
		}
		for _, m := range names {
			switch {
			case sharded[m] == "":
				t.Errorf("%s: the generated ShardedBoard lacks method %s", g.stem, m)
			case sharded[m] != board[m]:
				t.Errorf("%s: ShardedBoard.%s%s; Board.%s%s", g.stem, m, sharded[m], m, board[m])
			}
		}
	}
}

// TestShardedOptIn: ShardedBoard (and a periodic layout's Seasons.Sharded) is generated only
// when the schema says sharded: true, and nothing else in the file depends on it.
func TestShardedOptIn(t *testing.T) {
	for _, g := range readGoldens(t) {
		l := parse(t, g.stem, g.schema)
		for _, on := range []bool{false, true} {
			l.Sharded = on
			src, err := Generate(l)
			if err != nil {
				t.Fatal(err)
			}
			has := strings.Contains(string(src), "\ntype ShardedBoard struct")
			seasons := len(signatures(t, src, "Seasons")) > 0
			shardedSeasons := signatures(t, src, "Seasons")["Sharded"] != ""
			if has != on || seasons && shardedSeasons != on {
				t.Errorf("%s with sharded: %v: ShardedBoard generated %v, Seasons.Sharded %v", g.stem, on, has, shardedSeasons)
			}
			if on {
				continue
			}
			without := string(src)
			l.Sharded = true
			with, err := Generate(l)
			if err != nil {
				t.Fatal(err)
			}
			if len(without) >= len(with) {
				t.Errorf("%s: the file without ShardedBoard is not smaller (%d vs %d bytes)", g.stem, len(without), len(with))
			}
			l.Sharded = false
		}
	}
}

// signatures are the methods declared on *recv in a generated file, each with its parameter
// and result types.
func signatures(t *testing.T, src []byte, recv string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	list := func(fl *ast.FieldList) string {
		var parts []string
		if fl != nil {
			for _, p := range fl.List {
				for range max(1, len(p.Names)) {
					parts = append(parts, types.ExprString(p.Type))
				}
			}
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == recv {
				out[fd.Name.Name] = list(fd.Type.Params) + " " + list(fd.Type.Results)
			}
		}
	}
	return out
}
