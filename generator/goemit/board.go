package goemit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// emitBoard adds the Redis board (type Board over redis.UniversalClient) to the file: the
// scripts (embedded from the .lua files generator/luaemit writes beside the Go file), the
// Board type with its options, then one method group per operation of the catalogue, in its
// order (writes, field updates, reads), then the helpers they share. Every method is one
// round trip.
func emitBoard(f *jen.File, c *codec) {
	l := c.l
	b := &board{l: l, f: f, c: c, previousValues: map[*layout.Field]*layout.Field{}}
	ops := catalog.Ops(l)
	b.scripts(catalog.Scripts(l))
	b.boardType()
	b.options()
	b.constructor()
	b.resultTypes()
	b.previous()
	if b.l.NumScore > 0 {
		b.bandTypes()
	}
	for _, op := range ops {
		if !op.Go.InRuntime() {
			emitters[op.Go](b, op)
		}
	}
	b.reindex()
	b.previousHelpers()
	b.helpers()
	b.seasons()
	emitFeeds(b)
}

// emitters emits the Board methods (op.Methods) of each form of operation the catalogue's
// rows name (catalog.Op.Go) that no runtime type holds.
var emitters = map[catalog.GoPart]func(*board, catalog.Op){
	catalog.GoFieldUpdate: (*board).update,
	catalog.GoChangeList:  (*board).changes,
	catalog.GoTouch:       (*board).touch,
	catalog.GoLeadRange:   (*board).rangeLead,
	catalog.GoLeadCount:   (*board).countRange,
	catalog.GoAroundScore: (*board).aroundScore,
}

type board struct {
	l *layout.Layout
	f *jen.File
	c *codec // the codec's constants and range checks, which the board's methods share

	// Where the schema names its previous one: how many methods route to it, and the previous
	// field of each field whose value a routed update converts.
	routed          int
	previousValues  map[*layout.Field]*layout.Field
	previousChanges []catalog.FieldUpdate // the set, max and min changes that route
	previousEntries bool                  // a routed read returns the previous layout's entries
}

func rt(name string) *jen.Statement { return jen.Qual(runtimePath, name) }
func ctxParam() jen.Code            { return jen.Id("ctx").Qual("context", "Context") }
func errNil() *jen.Statement        { return jen.If(jen.Err().Op("!=").Nil()) }

// comment writes doc text as // lines (one jennifer comment per paragraph line).
func (b *board) comment(format string, args ...any) {
	b.f.Comment(lineComment(wrap(fmt.Sprintf(format, args...))))
}

func (b *board) idType() jen.Code {
	if b.l.IDType == layout.IDUint64 {
		return jen.Uint64()
	}
	return jen.String()
}

// idText is the id as the member's text.
func (b *board) idText(id jen.Code) jen.Code {
	if b.l.IDType == layout.IDUint64 {
		return jen.Qual("strconv", "FormatUint").Call(id, jen.Lit(10))
	}
	return id
}

// scripts declares the embedded library, Library(), and the function of every scripted
// operation the file's own methods call: the runtime's (catalog.Op.Go) find theirs by name.
func (b *board) scripts(ops []catalog.Op) {
	f, l := b.f, b.l
	var vars []jen.Code
	if pb := b.c.inPackage; pb != nil {
		// The package's library holds every board's part; this board's functions are its view.
		vars = append(vars, jen.Id("library").Op("=").Id(packageLibrary).Dot("Board").Call(jen.Lit(pb.Name)))
	} else {
		f.Anon("embed")
		f.Line()
		b.comment("luaLibrary is this layout's part of its Lua library, behind the runtime's shared head.")
		f.Comment("//go:embed " + l.LuaFile())
		f.Var().Id("luaLibrary").String()
		f.Line()
		vars = append(vars, jen.Id("library").Op("=").Add(rt("NewLayoutLibrary")).Call(jen.Lit(l.Stem()), jen.Id("luaLibrary")))
	}
	for _, op := range ops {
		if !op.Go.InRuntime() {
			vars = append(vars, jen.Id(op.Function()).Op("=").Id("library").Dot("Function").Call(jen.Lit(op.Name)))
		}
	}
	f.Var().Defs(vars...)
	f.Line()
	b.comment("boardSpec is what the board's machinery (rankgenrt.Core) needs of this layout.")
	dict := jen.Dict{jen.Id("Library"): jen.Id("library"), jen.Id("Fingerprint"): jen.Id("Fingerprint")}
	if l.HasPrefix() {
		dict[jen.Id("Indexed")] = jen.True()
	}
	if l.HasData() {
		dict[jen.Id("Data")] = jen.True()
	}
	if catalog.EntriesTakeSeason(l) {
		dict[jen.Id("SeasonBounds")] = jen.True()
	}
	if slices.ContainsFunc(l.Fields, func(fd *layout.Field) bool { return fd.Stamp == layout.StampClient }) {
		dict[jen.Id("ClientClock")] = jen.True()
	}
	if l.NumScore > 0 {
		dict[jen.Id("ScoreFields")] = b.c.konst("scoreFields")
	}
	f.Var().Id("boardSpec").Op("=").Op("&").Add(rt("Spec")).Values(dict)
	f.Line()
	b.comment("Library returns the board's Lua library, for calling its functions in your own pipelines (after Board.Load).")
	f.Func().Id("Library").Params().Op("*").Add(rt("Library")).Block(jen.Return(jen.Id("library")))
	f.Line()
}

func recvDecl(f *jen.File) *jen.Statement {
	return f.Func().Params(jen.Id("b").Op("*").Id("Board"))
}

// wrap breaks a paragraph into lines of at most 96 columns.
func wrap(s string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > 96 {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
