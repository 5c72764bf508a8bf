package goemit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/rankgen/rankgen/generator/catalog"
)

// TestCatalogueMethods checks that the methods of every operation of every golden layout are
// either a runtime type's (catalog.Op.Go: rankgenrt.Board, ScoreReads), which the generated
// Board embeds, or declared by the generated file, through the emitter of its Go part.
func TestCatalogueMethods(t *testing.T) {
	for _, g := range readGoldens(t) {
		l := parse(t, g.stem, g.schema)
		src, err := Generate(l)
		if err != nil {
			t.Fatal(err)
		}
		methods, inRuntime := boardMethods(t, src), runtimeBoardMethods(l)
		for _, op := range catalog.Ops(l) {
			if op.Go.InRuntime() == (emitters[op.Go] != nil) {
				t.Errorf("operation %s: Go part %d in the runtime %v, and an emitter: %v (exactly one of them holds its methods)", op.Name, op.Go, op.Go.InRuntime(), emitters[op.Go] != nil)
			}
			for _, m := range op.Methods {
				switch {
				case op.Go.InRuntime() && inRuntime[m] == "":
					t.Errorf("%s: operation %s: rankgenrt.Board lacks method %s", g.stem, op.Name, m)
				case op.Go.InRuntime() && methods[m]:
					t.Errorf("%s: operation %s: the generated Board declares %s, which rankgenrt.Board has", g.stem, op.Name, m)
				case !op.Go.InRuntime() && !methods[m]:
					t.Errorf("%s: operation %s: the generated Board lacks method %s", g.stem, op.Name, m)
				}
			}
		}
	}
}

// TestShardedEmitters checks the ShardedBoard's table against the catalogue's rows: an emitter
// for every kind of operation the golden layouts have that a ShardedBoard performs and
// no runtime type holds (catalog.Op.Go), none for a kind the runtime holds
// or read from the shards (catalog.ShardPerShard), and the goldens together have every kind, so
// that no kind escapes these checks.
func TestShardedEmitters(t *testing.T) {
	var seen []catalog.Kind
	for _, g := range readGoldens(t) {
		for _, op := range catalog.Ops(parse(t, g.stem, g.schema)) {
			seen = append(seen, op.Kind)
			if has := shardedEmitters[op.Go] != nil; has != (op.Sharding != catalog.ShardPerShard && !op.Go.InRuntime()) {
				t.Errorf("%s: operation %s (Sharding %d, Go part %d) has a ShardedBoard emitter: %v", g.stem, op.Name, op.Sharding, op.Go, has)
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
		if !ok {
			continue
		}
		if recv, ok := recvType(fd); ok && recv == "Board" {
			out[fd.Name.Name] = true
		}
	}
	return out
}

// TestResultDocNamesItsMethods: the doc of the generated Result names every Board method
// that returns one per item, as what Result holds (the entry data above all) differs by
// method.
func TestResultDocNamesItsMethods(t *testing.T) {
	for _, g := range readGoldens(t) {
		src, err := Generate(parse(t, g.stem, g.schema))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		doc := ""
		var returning []string
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if ts, ok := d.Specs[0].(*ast.TypeSpec); ok && ts.Name.Name == "Result" {
					doc = d.Doc.Text()
				}
			case *ast.FuncDecl:
				recv, ok := recvType(d)
				if !ok || recv != "Board" || d.Type.Results == nil {
					continue
				}
				for _, r := range d.Type.Results.List {
					if arr, ok := r.Type.(*ast.ArrayType); ok {
						if id, ok := arr.Elt.(*ast.Ident); ok && id.Name == "Result" {
							returning = append(returning, d.Name.Name)
						}
					}
				}
			}
		}
		for m, sig := range runtimeBoardMethods(parse(t, g.stem, g.schema)) {
			if strings.Contains(sig, "[]Result") {
				returning = append(returning, m)
			}
		}
		if len(returning) == 0 {
			t.Fatalf("%s: no Board method returns []Result", g.stem)
		}
		words := map[string]bool{}
		for _, w := range strings.FieldsFunc(doc, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			words[w] = true
		}
		for _, m := range returning {
			if !words[m] {
				t.Errorf("%s: Result's doc does not say what %s returns in it:\n%s", g.stem, m, doc)
			}
		}
	}
}

// recvType is the type name of a method's pointer receiver.
func recvType(fd *ast.FuncDecl) (string, bool) {
	if fd.Recv == nil {
		return "", false
	}
	star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return "", false
	}
	id, ok := star.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}
