package goemit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
)

// TestCatalogueMethods checks that every kind of catalogue operation has an emitter and that
// the code generated for every golden layout declares each Board method its operations name.
func TestCatalogueMethods(t *testing.T) {
	for _, k := range catalog.Kinds {
		if emitters[k] == nil {
			t.Errorf("no emitter for operations of kind %s", k)
		}
	}
	for _, g := range readGoldens(t) {
		l := parse(t, g.stem, g.schema)
		src, err := Generate(l)
		if err != nil {
			t.Fatal(err)
		}
		methods := boardMethods(t, src)
		for _, op := range catalog.Ops(l) {
			for _, m := range op.Methods {
				if !methods[m] {
					t.Errorf("%s: operation %s: the generated Board lacks method %s", g.stem, op.Name, m)
				}
			}
		}
	}
}

// TestShardedEmitters checks the ShardedBoard's table against the catalogue's rows: an emitter
// for every kind of operation the golden layouts have that a ShardedBoard performs, none for a
// kind read from the shards (catalog.ShardPerShard), and the goldens together have every kind,
// so that no kind escapes these checks.
func TestShardedEmitters(t *testing.T) {
	var seen []catalog.Kind
	for _, g := range readGoldens(t) {
		for _, op := range catalog.Ops(parse(t, g.stem, g.schema)) {
			seen = append(seen, op.Kind)
			if has := shardedEmitters[op.Kind] != nil; has != (op.Sharding != catalog.ShardPerShard) {
				t.Errorf("%s: operation %s (Sharding %d) has a ShardedBoard emitter: %v", g.stem, op.Name, op.Sharding, has)
			}
		}
	}
	for _, k := range catalog.Kinds {
		if !slices.Contains(seen, k) {
			t.Errorf("no golden layout has an operation of kind %s: add a schema to testdata that has one", k)
		}
	}
}

// boardMethods are the methods declared on *Board in a generated file.
func boardMethods(t *testing.T, src []byte) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil {
			continue
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "Board" {
				out[fd.Name.Name] = true
			}
		}
	}
	return out
}
