package goemit

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// The layout a schema replaces (previous:) is generated into the package beside it, every
// name starting with previousPrefix (PreviousEntry, PreviousBoard); the schema's own Board
// reads and writes a board in that layout until a migration switches it
// (rankgenrt.NewBoardReplacing), converting entries both ways.
const previousPrefix = "Previous"

// PreviousFiles names the files of the previous layout: its Go file and its Lua library.
func PreviousFiles(l *layout.Layout) (goFile, luaFile string) {
	return l.Stem() + ".previous.rankgen.go", l.Stem() + ".previous.rankgen.lua"
}

// GeneratePrevious renders the Go file of the layout l replaces (l.Previous.Layout): what
// Generate renders for it, in l's package, with every package-level name prefixed and its
// library read from PreviousFiles' Lua file.
func GeneratePrevious(l *layout.Layout) ([]byte, error) {
	src, err := renderPrevious(l, l.File, "", nil)
	if err != nil {
		return nil, err
	}
	_, luaFile := PreviousFiles(l)
	src = bytes.Replace(src, []byte("//go:embed "+l.Previous.Generated(l).LuaFile()+"\n"), []byte("//go:embed "+luaFile+"\n"), 1)
	out, _, err := prefixNames(src, previousPrefix)
	return out, err
}

// GeneratePreviousIn is GeneratePrevious for board b of package p, whose layout replaces the
// one of prev (b.Previous()): its functions are prev's part of the package's library, and what
// the package file declares for every board is left out. Its names start with Previous; the
// board's name goes before them (GenerateBoards).
func GeneratePreviousIn(p *layout.Boards, b, prev *layout.Board) ([]byte, error) {
	src, err := renderPrevious(b.Layout, p.File, b.GoName(), prev)
	if err != nil {
		return nil, err
	}
	out, _, err := prefixNames(src, previousPrefix)
	return out, err
}

// renderPrevious renders the previous layout's file of l, before its names are prefixed, headed
// as generated from file; in a package of boards, as the board prev of the board whose names
// start with board (prev nil: l's own package).
func renderPrevious(l *layout.Layout, file, board string, prev *layout.Board) ([]byte, error) {
	pl := l.Previous.Generated(l)
	if _, err := baseNames(pl); err != nil {
		return nil, err
	}
	f := jen.NewFile(l.Package)
	var doc strings.Builder
	names := board + previousPrefix
	doc.WriteString(wrap(fmt.Sprintf("The layout %s replaces (previous: %s): its names start with %s (%sEntry, %sBoard). %sBoard reads and writes a board in this layout until a migration switches the board to %s's.",
		l.File, l.Previous.Schema, names, names, names, board, l.File)) + "\n\nLayout:\n\n")
	for _, line := range strings.Split(strings.TrimRight(pl.Table(), "\n"), "\n") {
		doc.WriteString("\t" + strings.TrimRight(line, " ") + "\n")
	}
	f.HeaderComment("// " + layout.Header(file) + "\n\n" + strings.ReplaceAll(lineComment(strings.TrimSuffix(doc.String(), "\n")), "// \t", "//\t"))
	return render(f, pl, prev, previousBounds(l)...)
}

// previous declares, in the file of a layout that names its previous schema, the conversions
// of entries between the two layouts and the decoding of the board's view in the previous
// layout.
func (b *board) previous() {
	pr := b.l.Previous
	if pr == nil || pr.Layout == nil {
		return
	}
	f, l, old := b.f, b.l, pr.Layout
	b.comment("toPrevious is e in the layout this one replaces (%s), or an error matching rankgenrt.ErrNotInPreviousLayout where that layout cannot hold it exactly.", pr.Schema)
	body := []jen.Code{jen.Id("p").Op(":=").Id(prevName("Entry")).Values(jen.Dict{jen.Id(old.IDName): jen.Id("e").Dot(l.IDName)})}
	body = append(body, convertFields(old.Fields, l.Fields, pr.PreviousFields, pr.Fields, pr.DefaultKeys, "p", "e", jen.Id(prevName("Entry")).Values())...)
	switch {
	case old.HasData() && l.HasData():
		body = append(body, jen.Var().Err().Error(), jen.If(jen.List(jen.Id("p").Dot("Data"), jen.Err()).Op("=").Id("e").Dot("Data").Dot("toPrevious").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id(prevName("Entry")).Values(), jen.Err())))
	case old.HasData(): // this layout dropped the data: the previous layout's holds its zero
		body = append(body, convertFields(old.Data, nil, pr.PreviousData, nil, nil, "p.Data", "e", jen.Id(prevName("Entry")).Values())...)
	case l.HasData(): // the previous layout has no data: it holds this layout's defaults only
		body = append(body, convertFields(nil, l.Data, nil, pr.Data, pr.DefaultDataKeys, "p", "e.Data", jen.Id(prevName("Entry")).Values())...)
	}
	f.Func().Params(jen.Id("e").Id("Entry")).Id("toPrevious").Params().Params(jen.Id(prevName("Entry")), jen.Error()).Block(append(body, jen.Return(jen.Id("p"), jen.Nil()))...)
	f.Line()
	b.comment("fromPrevious is an entry of the layout this one replaces (%s) in this one, as rankgen migrate maps it.", pr.Schema)
	body = []jen.Code{jen.Id("e").Op(":=").Id("Entry").Values(jen.Dict{jen.Id(l.IDName): jen.Id("p").Dot(old.IDName)})}
	body = append(body, mapFields(l.Fields, old.Fields, pr.Fields, pr.DefaultKeys, "e", "p")...)
	if l.HasData() && old.HasData() {
		body = append(body, jen.Id("e").Dot("Data").Op("=").Id("fromPreviousData").Call(jen.Id("p").Dot("Data")))
	} else if l.HasData() {
		body = append(body, mapFields(l.Data, nil, pr.Data, pr.DefaultDataKeys, "e.Data", "p")...)
	}
	f.Func().Id("fromPrevious").Params(jen.Id("p").Id(prevName("Entry"))).Id("Entry").Block(append(body, jen.Return(jen.Id("e")))...)
	f.Line()
	b.previousData()
	b.viaPrevious()
}

// previousData declares the data's conversions, where either layout has data.
func (b *board) previousData() {
	pr, l := b.l.Previous, b.l
	old := pr.Layout
	if l.HasData() && old.HasData() {
		b.comment("toPrevious is d in the data of the layout this one replaces, or an error matching rankgenrt.ErrNotInPreviousLayout where that layout cannot hold it exactly.")
		body := []jen.Code{jen.Var().Id("p").Id(prevName(layout.DataTypeName))}
		body = append(body, convertFields(old.Data, l.Data, pr.PreviousData, pr.Data, pr.DefaultDataKeys, "p", "d", jen.Id(prevName(layout.DataTypeName)).Values())...)
		f := b.f
		f.Func().Params(jen.Id("d").Id(layout.DataTypeName)).Id("toPrevious").Params().Params(jen.Id(prevName(layout.DataTypeName)), jen.Error()).Block(append(body, jen.Return(jen.Id("p"), jen.Nil()))...)
		f.Line()
		b.comment("fromPreviousData is data of the layout this one replaces in this one, as rankgen migrate maps it.")
		body = []jen.Code{jen.Var().Id("d").Id(layout.DataTypeName)}
		body = append(body, mapFields(l.Data, old.Data, pr.Data, pr.DefaultDataKeys, "d", "p")...)
		f.Func().Id("fromPreviousData").Params(jen.Id("p").Id(prevName(layout.DataTypeName))).Id(layout.DataTypeName).Block(append(body, jen.Return(jen.Id("d")))...)
		f.Line()
	}
}

// viaPrevious declares the decoding of the board's view in the previous layout: this layout's
// entries, read and written as the previous layout's.
func (b *board) viaPrevious() {
	l, old := b.l, b.l.Previous.Layout
	fp := jen.Id(prevName("Fingerprint"))
	dict := jen.Dict{
		jen.Id("Decode"): jen.Func().Params(jen.Id("score").Float64(), jen.Id("member").String()).Params(jen.Id("Entry"), jen.Error()).Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id(prevName("Decode")).Call(jen.Id("score"), jen.Id("member")),
			jen.Return(jen.Id("fromPrevious").Call(jen.Id("p")), jen.Err())),
		jen.Id("Encode"): jen.Func().Params(jen.Id("e").Id("Entry")).Params(jen.Float64(), jen.String(), jen.Error()).Block(
			jen.If(jen.List(jen.Id("_"), jen.Id("_"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Lit(0), jen.Lit(""), jen.Err())), // what this layout refuses, it refuses as itself
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("e").Dot("toPrevious").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), jen.Lit(""), jen.Err())),
			jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("p").Dot("Encode").Call(),
			jen.Return(jen.Id("score"), jen.Id("member"), rt("NotInPrevious").Call(fp, jen.Err()))),
		jen.Id("EntryArgs"): jen.Func().Params(jen.Id("season").Op("*").Add(rt("Season")), jen.Id("e").Id("Entry"), jen.Id("args").Index().Any()).Params(jen.Index().Any(), jen.Error()).Block(
			jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("decoding").Dot("EntryArgs").Call(jen.Id("season"), jen.Id("e"), jen.Nil()), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())), // what this layout refuses, it refuses as itself
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("e").Dot("toPrevious").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("args"), jen.Err()).Op("=").Id(prevName("decoding")).Dot("EntryArgs").Call(jen.Id("season"), jen.Id("p"), jen.Id("args")),
			jen.Return(jen.Id("args"), rt("NotInPrevious").Call(fp, jen.Err()))),
		jen.Id("ScoreOfP"): jen.Id(prevName("decoding")).Dot("ScoreOfP"), // the previous layout's bands and updates are its P
	}
	if l.Sharded && l.NumScore > 0 { // a ShardedBoard's competition ranks, on shards in the previous layout
		dict[jen.Id("TiedPlace")] = jen.Id("previousTiedPlace")
	}
	// The previous layout's replies carry data where it has data, whatever this layout has.
	switch {
	case old.HasData() && l.HasData():
		dict[jen.Id("DecodeData")] = jen.Func().Params(jen.Id("e").Op("*").Id("Entry"), jen.Id("data").String()).Error().Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id(prevName("DecodeData")).Call(jen.Id("data")),
			jen.Id("e").Dot("Data").Op("=").Id("fromPreviousData").Call(jen.Id("p")),
			jen.Return(jen.Err()))
	case old.HasData():
		dict[jen.Id("DecodeData")] = jen.Func().Params(jen.Id("_").Op("*").Id("Entry"), jen.Id("data").String()).Error().Block(
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Id(prevName("DecodeData")).Call(jen.Id("data")),
			jen.Return(jen.Err()))
	}
	b.comment("decodingViaPrevious is how the board's view in the layout this one replaces reads and writes this layout's entries: each converted from and to a %sEntry.", previousPrefix)
	b.f.Var().Id("decodingViaPrevious").Op("=").Id("decoding").Dot("Via").Call(rt("Via").Types(jen.Id("Entry")).Values(dict))
	b.f.Line()
}

// convertFields assigns each field of the previous layout (to, in variable dst) from this
// one's (from, in src): converted where it has a source, its zero where this layout dropped
// it; and refuses a value the previous layout cannot hold: a field it lacks holding another
// value than its default, a number its type cannot hold (its range is Encode's to check).
func convertFields(to, from []*layout.Field, source, back []int, defaults []uint64, dst, src string, zero jen.Code) []jen.Code {
	var out []jen.Code
	fail := func(f *layout.Field, why string) jen.Code {
		return jen.Return(zero, rt("NotInPreviousValue").Call(jen.Id(prevName("Fingerprint")), jen.Lit(f.Name), jen.Id(src).Dot(f.Name), jen.Lit(why)))
	}
	for i, nf := range from {
		if back[i] >= 0 {
			continue
		}
		def := goValue(nf, defaults[i])
		differs := jen.Id(src).Dot(nf.Name).Op("!=").Add(def)
		if nf.Kind == layout.Time {
			differs = jen.Op("!").Id(src).Dot(nf.Name).Dot("Equal").Call(def)
		}
		out = append(out, jen.If(differs).Block(fail(nf, fmt.Sprintf("the previous layout lacks %s: it holds only its default, %s", nf.Name, nf.Format(defaults[i])))))
	}
	for j, of := range to {
		target := jen.Id(dst).Dot(of.Name)
		if source[j] < 0 {
			out = append(out, target.Op("=").Add(goValue(of, zeroKey(of))))
			continue
		}
		nf := from[source[j]]
		out = append(out, convertValue(of, nf, jen.Id(src).Dot(nf.Name), target, func(why string) jen.Code { return fail(nf, why) })...)
	}
	return out
}

// convertValue assigns v, a value of this layout's field nf, to target, of the previous
// layout's field of, converted; fail(why) returns where the previous field cannot hold it (its
// range is Encode's to check, or the script's).
func convertValue(of, nf *layout.Field, v, target *jen.Statement, fail func(why string) jen.Code) []jen.Code {
	switch {
	case of.Kind == layout.Enum:
		var cases []jen.Code
		for _, name := range nf.Values {
			if !slices.Contains(of.Values, name) {
				continue
			}
			cases = append(cases, jen.Case(jen.Id(layout.EnumConst(nf, name))).Block(target.Clone().Op("=").Id(prevName(layout.EnumConst(of, name)))))
		}
		cases = append(cases, jen.Default().Block(fail("the previous layout's "+of.Name+" has no such value")))
		return []jen.Code{jen.Switch(v).Block(cases...)}
	case of.GoType == nf.GoType: // the range is Encode's to check
		return []jen.Code{target.Op("=").Add(v)}
	case of.Kind == layout.Bool:
		return []jen.Code{jen.Switch(v).Block(
			jen.Case(jen.Lit(0)).Block(target.Clone().Op("=").False()),
			jen.Case(jen.Lit(1)).Block(target.Clone().Op("=").True()),
			jen.Default().Block(fail("the previous layout's "+of.Name+" is a bool: 0 or 1")))}
	case nf.Kind == layout.Bool:
		return []jen.Code{jen.If(v).Block(target.Clone().Op("=").Lit(1))}
	}
	return []jen.Code{jen.If(jen.List(jen.Id("x"), jen.Id("ok")).Op(":=").Add(rt("ConvertInt").Types(jen.Id(of.GoType), jen.Id(nf.GoType))).Call(v), jen.Id("ok")).Block(
		target.Clone().Op("=").Id("x"),
	).Else().Block(fail("the previous layout's " + of.Name + " cannot hold it (a " + of.GoType + ")"))}
}

// mapFields assigns each field of this layout (to, in dst) from the previous one's (from, in
// src), as rankgen migrate maps them: converted, or its default where the previous layout
// lacks it. Every previous value converts (LoadPrevious checked the types); a number is only
// widened or narrowed within what the previous layout's range holds.
func mapFields(to, from []*layout.Field, source []int, defaults []uint64, dst, src string) []jen.Code {
	var out []jen.Code
	for i, nf := range to {
		target := jen.Id(dst).Dot(nf.Name)
		if source[i] < 0 {
			out = append(out, target.Op("=").Add(goValue(nf, defaults[i])))
			continue
		}
		of := from[source[i]]
		v := jen.Id(src).Dot(of.Name)
		switch {
		case nf.Kind == layout.Enum:
			var cases []jen.Code
			for _, name := range of.Values {
				cases = append(cases, jen.Case(jen.Id(prevName(layout.EnumConst(of, name)))).Block(target.Clone().Op("=").Id(layout.EnumConst(nf, name))))
			}
			out = append(out, jen.Switch(v).Block(cases...))
		case nf.GoType == of.GoType:
			out = append(out, target.Op("=").Add(v))
		case nf.Kind == layout.Bool:
			out = append(out, target.Op("=").Add(v).Op("!=").Lit(0))
		case of.Kind == layout.Bool:
			out = append(out, jen.If(v).Block(target.Clone().Op("=").Lit(1)))
		default:
			out = append(out, target.Op("=").Id(nf.GoType).Call(v))
		}
	}
	return out
}

// zeroKey is the key of a field's Go zero value where its range holds it, else of its
// lowest-ranking value: what an entry starts from (layout.Field.ZeroDigit).
func zeroKey(f *layout.Field) uint64 { return f.Key(f.ZeroDigit()) }

// goValue is the Go expression of a field's value key.
func goValue(f *layout.Field, key uint64) jen.Code {
	switch f.Kind {
	case layout.Bool:
		return jen.Lit(key == 1)
	case layout.Enum:
		return jen.Id(layout.EnumConst(f, f.Values[key]))
	case layout.Int:
		return jen.Id(f.GoType).Call(inum(layout.IntOf(key)))
	case layout.Time:
		t := f.TimeOf(key)
		return jen.Qual("time", "Unix").Call(inum(t.Unix()), inum(int64(t.Nanosecond()))).Dot("UTC").Call()
	case layout.String:
		return jen.Lit("")
	}
	return jen.Id(f.GoType).Call(unum(key))
}

func prevName(name string) string { return prefixedName(previousPrefix, name) }

// routedUpdate is the body of a field update method (call, on this layout's board) where the
// schema names its previous one and the update behaves alike in both (UpdateRoutes): the
// update of the layout the key holds (rankgenrt.Route), the previous one's through the
// package's PreviousBoard, its values converted and its results read back.
func (b *board) routedUpdate(op catalog.Op, call *jen.Statement, many bool) jen.Code {
	pr := b.l.Previous
	if pr == nil || pr.Layout == nil {
		return call
	}
	result := jen.Id("Written")
	if many {
		result = jen.Index().Id("Result")
	}
	of, ok := pr.UpdateRoutes(b.l, op.Field, op.Update)
	var prevOp catalog.Op // the previous layout's own update of the field, named as it names the field
	if ok {
		prevOp, ok = catalog.UpdateOf(pr.Layout, of, op.Update, many)
	}
	if !ok { // refused as the previous layout's, not as another layout's board: it switches
		zero := jen.Code(jen.Id("Written").Values())
		if many {
			zero = jen.Nil()
		}
		return rt("Route").Call(jen.Id("b").Dot("Board"),
			jen.Func().Params().Params(result, jen.Error()).Block(jen.Return(call)),
			jen.Func().Params().Params(result.Clone(), jen.Error()).Block(jen.Return(zero, rt("NotInPreviousValue").Call(
				jen.Id(prevName("Fingerprint")), jen.Lit(op.Field.Name), jen.Lit(op.Methods[0]), jen.Lit("the previous layout has no such update, or applies it otherwise (another range, stamps or zero entry)")))))
	}
	prev := b.previousUpdate(op, of, prevOp.Methods[0])
	switch {
	case many && op.Update == layout.OpAdd:
		prev = b.previousAddBatch(op, of, prevOp.Methods[0])
	case many:
		prev = b.previousValueBatch(op, of, prevOp.Methods[0])
	}
	b.routed++
	if op.Update != layout.OpAdd {
		b.previousValues[op.Field] = of
	}
	return rt("Route").Call(jen.Id("b").Dot("Board"),
		jen.Func().Params().Params(result, jen.Error()).Block(jen.Return(call)),
		jen.Func().Params().Params(result.Clone(), jen.Error()).Block(prev...))
}

// previousUpdate is a single update through the PreviousBoard: a value this layout refuses is
// refused as it would be, before it is converted; an add's overflow is reported as this layout
// sees it (addRefusal).
func (b *board) previousUpdate(op catalog.Op, of *layout.Field, name string) []jen.Code {
	arg := updateArg(op.Update)
	if op.Update == layout.OpAdd {
		return []jen.Code{
			jen.List(jen.Id("w"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(name).Call(jen.Id("ctx"), jen.Id("id"), jen.Id(arg)),
			jen.Return(jen.Id("writtenOfPrevious").Call(jen.Id("w")), b.addRefusal(of, op.Field, jen.Err(), jen.Id(arg))),
		}
	}
	return []jen.Code{
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(b.updateValue(op.Field, op.Update)).Call(jen.Id(arg)), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Id("Written").Values(), jen.Err())),
		jen.List(jen.Id("pv"), jen.Err()).Op(":=").Id(previousValueFunc(op.Field)).Call(jen.Id(arg)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("Written").Values(), jen.Err())),
		jen.List(jen.Id("w"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(name).Call(jen.Id("ctx"), jen.Id("id"), jen.Id("pv")),
		jen.Return(jen.Id("writtenOfPrevious").Call(jen.Id("w")), jen.Id("refusedByPrevious").Call(jen.Err())),
	}
}

// previousAddBatch is an add batch through the PreviousBoard, each item's overflow reported as
// this layout sees it (addRefusal).
func (b *board) previousAddBatch(op catalog.Op, of *layout.Field, name string) []jen.Code {
	update := jen.Id(prevName("Update")).Types(jen.Int64())
	return []jen.Code{
		jen.Id("batch").Op(":=").Make(jen.Index().Add(update), jen.Lit(0), jen.Len(jen.Id("updates"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("u")).Op(":=").Range().Id("updates")).Block(
			jen.Id("batch").Op("=").Append(jen.Id("batch"), update.Clone().Values(jen.Dict{
				jen.Id(b.l.Previous.Layout.IDName): jen.Id("u").Dot(b.l.IDName), jen.Id("Value"): jen.Id("u").Dot("Value")}))),
		jen.List(jen.Id("rs"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(name).Call(jen.Id("ctx"), jen.Id("batch")),
		jen.Id("out").Op(":=").Id("resultsOfPrevious").Call(jen.Id("rs")),
		jen.For(jen.Id("i").Op(":=").Range().Id("out")).Block(
			jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("=").Add(b.addRefusal(of, op.Field, jen.Id("rs").Index(jen.Id("i")).Dot("Err"), jen.Id("updates").Index(jen.Id("i")).Dot("Value")))),
		jen.Return(jen.Id("out"), jen.Id("refusedByPrevious").Call(jen.Err())),
	}
}

// previousValueBatch is a set, max or min batch through the PreviousBoard: a value this layout
// refuses is its item's error, unsent, as in this layout's own batch; the others are converted
// (one the previous layout cannot hold refuses the call) and sent, their results put back in
// place.
func (b *board) previousValueBatch(op catalog.Op, of *layout.Field, name string) []jen.Code {
	update := jen.Id(prevName("Update")).Types(prevType(of))
	return []jen.Code{
		jen.Id("out").Op(":=").Make(jen.Index().Id("Result"), jen.Len(jen.Id("updates"))),
		jen.Id("batch").Op(":=").Make(jen.Index().Add(update), jen.Lit(0), jen.Len(jen.Id("updates"))),
		jen.Var().Id("sent").Index().Int(),
		jen.For(jen.List(jen.Id("i"), jen.Id("u")).Op(":=").Range().Id("updates")).Block(
			jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(b.updateValue(op.Field, op.Update)).Call(jen.Id("u").Dot("Value")), jen.Err().Op("!=").Nil()).Block(
				jen.Id("out").Index(jen.Id("i")).Dot("Err").Op("=").Err(),
				jen.Continue()),
			jen.List(jen.Id("pv"), jen.Err()).Op(":=").Id(previousValueFunc(op.Field)).Call(jen.Id("u").Dot("Value")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("batch").Op("=").Append(jen.Id("batch"), update.Clone().Values(jen.Dict{
				jen.Id(b.l.Previous.Layout.IDName): jen.Id("u").Dot(b.l.IDName), jen.Id("Value"): jen.Id("pv")})),
			jen.Id("sent").Op("=").Append(jen.Id("sent"), jen.Id("i")),
		),
		jen.List(jen.Id("rs"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(name).Call(jen.Id("ctx"), jen.Id("batch")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("refusedByPrevious").Call(jen.Err()))),
		jen.For(jen.List(jen.Id("k"), jen.Id("r")).Op(":=").Range().Id("resultsOfPrevious").Call(jen.Id("rs"))).Block(
			jen.Id("out").Index(jen.Id("sent").Index(jen.Id("k"))).Op("=").Id("r")),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

func previousValueFunc(f *layout.Field) string { return lowerCamel(f.Name) + "ToPrevious" }

// previousHelpers declares what the routed updates share: the conversions of their values
// (one per field whose set, max or min routes), and of the previous layout's results.
func (b *board) previousHelpers() {
	pr := b.l.Previous
	if pr == nil || pr.Layout == nil {
		return
	}
	f := b.f
	for _, nf := range b.l.Fields {
		of, ok := b.previousValues[nf]
		if !ok {
			continue
		}
		b.comment("%s is a value of %s in the layout this one replaces, or an error matching rankgenrt.ErrNotInPreviousLayout where that layout cannot hold it.", previousValueFunc(nf), nf.Name)
		body := []jen.Code{jen.Var().Id("p").Add(prevType(of))}
		body = append(body, convertValue(of, nf, jen.Id("v"), jen.Id("p"), func(why string) jen.Code {
			return jen.Return(jen.Id("p"), rt("NotInPreviousValue").Call(jen.Id(prevName("Fingerprint")), jen.Lit(nf.Name), jen.Id("v"), jen.Lit(why)))
		})...)
		f.Func().Id(previousValueFunc(nf)).Params(jen.Id("v").Add(goType(nf))).Params(prevType(of), jen.Error()).Block(append(body, jen.Return(jen.Id("p"), jen.Nil()))...)
		f.Line()
	}
	for _, u := range b.previousChanges {
		b.comment("%s is %s(v) in the layout this one replaces, or why that layout cannot hold v.", previousChangeFunc(u), u.Method())
		f.Func().Id(previousChangeFunc(u)).Params(jen.Id("v").Add(valueType(u.Field, u.Update))).Params(jen.Id(prevName("Change")), jen.Error()).Block(
			jen.List(jen.Id("pv"), jen.Err()).Op(":=").Id(previousValueFunc(u.Field)).Call(jen.Id("v")),
			jen.Return(jen.Id(prevName(catalog.UpdateMethod(u.Update, b.previousValues[u.Field]))).Call(jen.Id("pv")), jen.Err()))
		f.Line()
	}
	if b.l.HasData() && pr.Layout.HasData() && b.routed > 0 {
		b.comment("previousSetData is SetData(d) in the layout this one replaces, or why that layout cannot hold d.")
		f.Func().Id("previousSetData").Params(jen.Id("d").Id(layout.DataTypeName)).Params(jen.Id(prevName("Change")), jen.Error()).Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("d").Dot("toPrevious").Call(),
			jen.Return(jen.Id(prevName(layout.DataChangeName)).Call(jen.Id("p")), jen.Err()))
		f.Line()
	}
	if b.routed == 0 {
		return
	}
	b.comment("writtenOfPrevious is what a write of the layout this one replaces did, in this layout's terms.")
	f.Func().Id("writtenOfPrevious").Params(jen.Id("w").Id(prevName("Written"))).Id("Written").Block(
		jen.Id("r").Op(":=").Id("Written").Values(jen.Dict{jen.Id("Entry"): jen.Id("fromPrevious").Call(jen.Id("w").Dot(prevName("Entry"))), jen.Id("Existed"): jen.Id("w").Dot("Existed"), jen.Id("Changed"): jen.Id("w").Dot("Changed")}),
		jen.If(jen.Id("w").Dot("Existed")).Block(jen.Id("r").Dot("Before").Op("=").Id("fromPrevious").Call(jen.Id("w").Dot("Before"))),
		jen.Return(jen.Id("r")),
	)
	f.Line()
	if b.previousEntries {
		b.comment("entriesOfPrevious are entries of the layout this one replaces, in this layout's terms.")
		f.Func().Id("entriesOfPrevious").Params(jen.Id("es").Index().Id(prevName("Entry"))).Index().Id("Entry").Block(
			jen.If(jen.Id("es").Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Id("out").Op(":=").Make(jen.Index().Id("Entry"), jen.Len(jen.Id("es"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("es")).Block(jen.Id("out").Index(jen.Id("i")).Op("=").Id("fromPrevious").Call(jen.Id("e"))),
			jen.Return(jen.Id("out")),
		)
		f.Line()
	}
	b.comment("resultsOfPrevious is what a batch of the layout this one replaces did, in this layout's terms.")
	f.Func().Id("resultsOfPrevious").Params(jen.Id("rs").Index().Id(prevName("Result"))).Index().Id("Result").Block(
		jen.If(jen.Id("rs").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Id("out").Op(":=").Make(jen.Index().Id("Result"), jen.Len(jen.Id("rs"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("r")).Op(":=").Range().Id("rs")).Block(
			jen.Id("out").Index(jen.Id("i")).Op("=").Id("Result").Values(jen.Dict{jen.Id("Written"): jen.Id("writtenOfPrevious").Call(jen.Id("r").Dot(prevName("Written"))), jen.Id("Err"): jen.Id("refusedByPrevious").Call(jen.Id("r").Dot("Err"))}),
		),
		jen.Return(jen.Id("out")),
	)
	f.Line()
	b.comment("refusedByPrevious is a refusal by the layout this one replaces, in this layout's terms: a value that layout's range cannot hold is one it cannot hold (rankgenrt.ErrNotInPreviousLayout).")
	f.Func().Id("refusedByPrevious").Params(jen.Err().Error()).Error().Block(jen.Return(rt("OnPrevious").Call(jen.Id(prevName("Fingerprint")), jen.Err())))
	f.Line()
}

// prevType is the Go type of a field of the previous layout, as its file names it.
func prevType(of *layout.Field) jen.Code {
	if of.Kind == layout.Enum {
		return jen.Id(prevName(of.GoType))
	}
	return goType(of)
}

// previousChange is the return of a change constructor (change): where the update routes to
// the previous layout (UpdateRoutes), the change carries the previous layout's same change,
// or why that layout cannot hold its value (rankgenrt.Change.WithPrevious).
func (b *board) previousChange(u catalog.FieldUpdate, change *jen.Statement) jen.Code {
	pr := b.l.Previous
	if pr == nil || pr.Layout == nil {
		return change
	}
	of, ok := pr.UpdateRoutes(b.l, u.Field, u.Update)
	if !ok {
		return change
	}
	arg := updateArg(u.Update)
	if u.Update == layout.OpAdd {
		return change.Dot("WithPrevious").Call(jen.Id(prevName(catalog.UpdateMethod(u.Update, of))).Call(jen.Id(arg)), jen.Nil())
	}
	b.previousValues[u.Field] = of
	b.previousChanges = append(b.previousChanges, u)
	b.routed++
	return change.Dot("WithPrevious").Call(jen.Id(previousChangeFunc(u)).Call(jen.Id(arg)))
}

// previousChangeFunc names the helper that makes a set, max or min change in the previous
// layout: previousSetPoints.
func previousChangeFunc(u catalog.FieldUpdate) string { return "previous" + u.Method() }

// previousDataChange is SetData's return: where the previous layout has data too, the change
// carries that layout's SetData of d, or why it cannot hold d.
func (b *board) previousDataChange(change *jen.Statement) jen.Code {
	pr := b.l.Previous
	if pr == nil || pr.Layout == nil || !pr.Layout.HasData() {
		return change
	}
	return change.Dot("WithPrevious").Call(jen.Id("previousSetData").Call(jen.Id("d")))
}

// routedList is the body of Update or UpdateMany (call, on this layout's board) where the
// schema names its previous one: on a board in the previous layout, the same lists of the
// changes each carries for that layout (rankgenrt.ChangesIn), through the PreviousBoard.
func (b *board) routedList(call *jen.Statement, many bool) jen.Code {
	pr := b.l.Previous
	if pr == nil || pr.Layout == nil {
		return call
	}
	b.routed++
	in := func(changes jen.Code) jen.Code {
		return rt("ChangesIn").Types(jen.Id(prevName("Entry")), jen.Id("Entry")).Call(jen.Id(prevName("Fingerprint")), changes)
	}
	if !many {
		return rt("Route").Call(jen.Id("b").Dot("Board"),
			jen.Func().Params().Params(jen.Id("Written"), jen.Error()).Block(jen.Return(call)),
			jen.Func().Params().Params(jen.Id("Written"), jen.Error()).Block(
				jen.List(jen.Id("changes"), jen.Err()).Op(":=").Add(in(jen.Id("changes"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("Written").Values(), jen.Err())),
				jen.List(jen.Id("w"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot("Update").Call(jen.Id("ctx"), jen.Id("id"), jen.Id("changes").Op("...")),
				jen.Return(jen.Id("writtenOfPrevious").Call(jen.Id("w")), jen.Id("refusedByPrevious").Call(jen.Err()))))
	}
	return rt("Route").Call(jen.Id("b").Dot("Board"),
		jen.Func().Params().Params(jen.Index().Id("Result"), jen.Error()).Block(jen.Return(call)),
		jen.Func().Params().Params(jen.Index().Id("Result"), jen.Error()).Block(
			jen.Id("batch").Op(":=").Make(jen.Index().Id(prevName("Changes")), jen.Lit(0), jen.Len(jen.Id("lists"))),
			jen.For(jen.List(jen.Id("_"), jen.Id("list")).Op(":=").Range().Id("lists")).Block(
				jen.List(jen.Id("changes"), jen.Err()).Op(":=").Add(in(jen.Id("list").Dot("Apply"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("batch").Op("=").Append(jen.Id("batch"), jen.Id(prevName("Changes")).Values(jen.Dict{
					jen.Id(pr.Layout.IDName): jen.Id("list").Dot(b.l.IDName), jen.Id("Apply"): jen.Id("changes")})),
			),
			jen.List(jen.Id("rs"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot("UpdateMany").Call(jen.Id("ctx"), jen.Id("batch")),
			jen.Return(jen.Id("resultsOfPrevious").Call(jen.Id("rs")), jen.Id("refusedByPrevious").Call(jen.Err()))))
}

// routedTouch is the body of Touch or TouchMany (call, on this layout's board; ids, its
// argument) where the previous layout touches alike (TouchRoutes): on a board in that layout,
// its own method through the PreviousBoard.
func (b *board) routedTouch(method string, call *jen.Statement, ids jen.Code, many bool) jen.Code {
	pr := b.l.Previous
	if pr == nil || !pr.TouchRoutes(b.l) {
		return call
	}
	b.routed++
	result, read := jen.Id("Written"), "writtenOfPrevious"
	if many {
		result, read = jen.Index().Id("Result"), "resultsOfPrevious"
	}
	return rt("Route").Call(jen.Id("b").Dot("Board"),
		jen.Func().Params().Params(result, jen.Error()).Block(jen.Return(call)),
		jen.Func().Params().Params(result.Clone(), jen.Error()).Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(method).Call(jen.Id("ctx"), ids),
			jen.Return(jen.Id(read).Call(jen.Id("r")), jen.Id("refusedByPrevious").Call(jen.Err()))))
}

// routedLead is the body of Range<Lead> (entries) or Count<Lead>Between (call, on this
// layout's board) where the previous layout reads the same band (LeadRoutes): on a board in
// that layout, its own method over the bounds clamped to its field's range, which holds every
// value it stores (an empty intersection reads nothing), after this layout's range check.
func (b *board) routedLead(op catalog.Op, call *jen.Statement, entries bool) jen.Code {
	pr := b.l.Previous
	if pr == nil {
		return call
	}
	of, ok := pr.LeadRoutes(b.l)
	if !ok {
		return call
	}
	// The previous layout's own read of its leading field, named as it names the field.
	olds := catalog.Ops(pr.Layout)
	i := slices.IndexFunc(olds, func(o catalog.Op) bool { return o.Kind == op.Kind })
	if i < 0 {
		return call
	}
	method := olds[i].Methods[0]
	lead := b.l.Fields[0]
	bounds := previousBounds(b.l)
	bound := func(name string) jen.Code { return jen.Id(of.GoType).Call(jen.Id(prevName(name))) }
	result, empty, args := jen.Int64(), jen.Lit(0), []jen.Code{jen.Id("ctx"), jen.Id("lo"), jen.Id("hi")}
	read := []jen.Code{
		jen.List(jen.Id("n"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(method).Call(args...),
		jen.Return(jen.Id("n"), jen.Id("refusedByPrevious").Call(jen.Err())),
	}
	if entries {
		b.previousEntries = true
		result, empty = jen.Index().Id("Entry"), jen.Nil()
		args = append(args, jen.Id("offset"), jen.Id("limit"))
		read = []jen.Code{
			jen.List(jen.Id("es"), jen.Err()).Op(":=").Id("b").Dot("previous").Dot(method).Call(args...),
			jen.Return(jen.Id("entriesOfPrevious").Call(jen.Id("es")), jen.Id("refusedByPrevious").Call(jen.Err())),
		}
	}
	b.routed++
	prev := append([]jen.Code{
		jen.If(jen.Err().Op(":=").Id(lead.Name+"Between").Call(jen.Id("lo"), jen.Id("hi")).Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(empty, jen.Err())),
		jen.List(jen.Id("lo"), jen.Id("hi"), jen.Id("ok")).Op(":=").Add(rt("ClampRange")).Call(jen.Id("lo"), jen.Id("hi"), bound(bounds[0]), bound(bounds[1])),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Return(empty, jen.Nil())),
	}, read...)
	return rt("Route").Call(jen.Id("b").Dot("Board"),
		jen.Func().Params().Params(result, jen.Error()).Block(jen.Return(call)),
		jen.Func().Params().Params(result.Clone(), jen.Error()).Block(prev...))
}

// previousBounds names the previous layout's constants of its leading field's range, which
// the routed range reads clamp to (its file declares them for them), where they route.
func previousBounds(l *layout.Layout) []string {
	of, ok := l.Previous.LeadRoutes(l)
	if !ok {
		return nil
	}
	bases, err := baseNames(l.Previous.Layout)
	if err != nil {
		return nil
	}
	return []string{bases[of] + "Min", bases[of] + "Max"}
}

// addRefusal is an add's refusal by the previous layout (err; delta, the add), as this layout
// sees it: an overflow past an edge both layouts share is this layout's too (ErrOverflow as
// it is); past an edge only the previous layout has, one the previous layout cannot hold
// (rankgenrt.ErrNotInPreviousLayout).
func (b *board) addRefusal(of, nf *layout.Field, err, delta jen.Code) jen.Code {
	return rt("OnPreviousAdd").Call(jen.Id(prevName("Fingerprint")), err, delta, jen.Lit(of.Lo == nf.Lo), jen.Lit(of.Hi == nf.Hi))
}
