package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// boardType declares type Board.
func (b *board) boardType() {
	f, l := b.f, b.l
	side, adopt := "meta key (the layout fingerprint)", ""
	if l.HasPrefix() {
		side = "index (a hash id → member, which also records the layout fingerprint)"
		adopt = " Entries written by other code, without an index, are refused (ErrNotIndexed) until Reindex adopts them."
	}
	b.comment("%s", wrap(fmt.Sprintf(`Board is a leaderboard of Entry values in a Redis sorted set, read best first. Its key is
given to NewBoard; its %s is a second key in the same hash slot, so the board works on
Redis Cluster. Every write is one atomic script that refuses another layout's board
(ErrLayoutMismatch) and leaves the board unchanged on any error, and every read refuses it in
its one round trip.%s A Board is safe for concurrent use; create it
once per key and reuse it.%s`, side, adopt, dataDoc(l))))
	b.comment("Its methods that are the same on every layout are those of the embedded rankgenrt.Board%s.", b.scoreReadsDoc())
	fields := []jen.Code{jen.Op("*").Add(b.runtimeBoard())}
	if b.l.NumScore > 0 {
		fields = append(fields, jen.Op("*").Add(b.runtimeScoreReads()))
	}
	fields = append(fields,
		jen.Id("core").Op("*").Add(rt("Core")).Comment("the board's machinery: client, keys, writes, the fingerprint check"),
	)
	fields = append(fields, b.seasonFields()...)
	if pr := b.l.Previous; pr != nil && pr.Layout != nil {
		fields = append(fields, jen.Id("previous").Op("*").Id(prevName("Board")).Comment("the board in the layout this one replaces, until a migration switches it"))
	}
	f.Type().Id("Board").Struct(fields...)
	f.Line()
}

// runtimeBoard is rankgenrt.Board over this package's types, which Board embeds.
func (b *board) runtimeBoard() *jen.Statement {
	return rt("Board").Types(jen.Id("Entry"), b.idType(), jen.Id("Ranked"), jen.Id("Written"), jen.Id("Result"))
}

// scoreReadsDoc names the embedded rankgenrt.ScoreReads, on a layout with score fields.
func (b *board) scoreReadsDoc() string {
	if b.l.NumScore == 0 {
		return ""
	}
	return " and ScoreReads"
}

// runtimeScoreReads is rankgenrt.ScoreReads over this package's types, which Board embeds on a
// layout with score fields.
func (b *board) runtimeScoreReads() *jen.Statement {
	return rt("ScoreReads").Types(jen.Id("Entry"), b.idType(), jen.Id("Ranked"), jen.Id("Written"), jen.Id("Result"))
}

// options declares Option and its constructors, the runtime's (rankgenrt.Core holds what
// they set).
func (b *board) options() {
	if b.c.inPackage != nil {
		return // the package file declares them for every board
	}
	b.optionDecls("Option configures a Board.", fmt.Sprintf("WithCoalescing sends concurrent single writes (%s) as batches, each caller told its own result (rankgenrt.WithCoalescing).", b.coalescedWrites()))
	if pr := b.l.Previous; pr != nil && pr.Layout != nil {
		b.comment("WithNewLayoutFirst makes a board this code finds in neither layout (a new key) start in this layout rather than the one it replaces (%s); set it once no code of that layout writes any more (rankgenrt.WithNewLayoutFirst).", pr.Schema)
		b.f.Func().Id("WithNewLayoutFirst").Params().Id("Option").Block(jen.Return(rt("WithNewLayoutFirst").Call()))
		b.f.Line()
	}
}

// optionDecls declares Option (its doc given) and its constructors, WithCoalescing's doc given.
func (b *board) optionDecls(optionDoc, coalescingDoc string) {
	f := b.f
	f.Comment(optionDoc)
	f.Type().Id("Option").Op("=").Add(rt("Option"))
	f.Line()
	b.comment("WithTTL makes the board's keys expire d after every write (rankgenrt.WithTTL).")
	f.Func().Id("WithTTL").Params(jen.Id("d").Qual("time", "Duration")).Id("Option").Block(jen.Return(rt("WithTTL").Call(jen.Id("d"))))
	f.Line()
	b.comment("WithExpireAt makes the board's keys expire at t (rankgenrt.WithExpireAt).")
	f.Func().Id("WithExpireAt").Params(jen.Id("t").Qual("time", "Time")).Id("Option").Block(jen.Return(rt("WithExpireAt").Call(jen.Id("t"))))
	f.Line()
	b.comment("WithDedupWindow sets how long each write's token is remembered (rankgenrt.WithDedupWindow).")
	f.Func().Id("WithDedupWindow").Params(jen.Id("d").Qual("time", "Duration")).Id("Option").Block(jen.Return(rt("WithDedupWindow").Call(jen.Id("d"))))
	f.Line()
	b.withReplicas()
	b.comment("%s", coalescingDoc)
	b.f.Func().Id("WithCoalescing").Params(jen.Id("cfg").Add(rt("Coalescing"))).Id("Option").Block(jen.Return(rt("WithCoalescing").Call(jen.Id("cfg"))))
	b.f.Line()
}

// coalescedWrites names the single writes WithCoalescing combines: every one with a batch form.
func (b *board) coalescedWrites() string {
	writes := []string{"Set", "Best", "Insert"}
	if ups := catalog.FieldUpdates(b.l); len(ups) > 0 {
		writes = append(writes, catalog.UpdateMethod(ups[0].Update, ups[0].Field)+", …", "Update")
	}
	if len(catalog.Stamped(b.l)) > 0 {
		writes = append(writes, "Touch")
	}
	return strings.Join(writes, ", ")
}

// withReplicas declares WithReplicas, the option that makes every write wait for replicas.
func (b *board) withReplicas() {
	b.comment("WithReplicas makes every write wait for n replicas, at most timeout (rankgenrt.WithReplicas).")
	b.f.Func().Id("WithReplicas").Params(jen.Id("n").Int(), jen.Id("timeout").Qual("time", "Duration")).Id("Option").Block(jen.Return(rt("WithReplicas").Call(jen.Id("n"), jen.Id("timeout"))))
	b.f.Line()
}

// constructor declares NewBoard.
func (b *board) constructor() {
	f, l := b.f, b.l
	doc, params := "NewBoard returns the board stored under key.", []jen.Code{jen.Id("c").Qual(redisPath, "UniversalClient"), jen.Id("key").String()}
	dict := jen.Dict{jen.Id("core"): jen.Id("core")}
	newCore := rt("NewCore").Call(jen.Id("c"), jen.Id("key"), jen.Id("boardSpec"), jen.Id("opts").Op("..."))
	if l.Season != nil {
		doc, params, newCore = b.seasonConstructor(dict, params)
	}
	newBoard := rt("NewBoard").Call(jen.Id("core"), jen.Id("decoding"))
	scoreReads := rt("NewScoreReads").Call(jen.Id("core"), jen.Id("decoding"))
	body := []jen.Code{jen.Id("core").Op(":=").Add(newCore)}
	if pr := l.Previous; pr != nil && pr.Layout != nil {
		doc += fmt.Sprintf(" Until a migration switches the board to this layout, it reads and writes the board in the layout this one replaces (%s), as that layout's code does; then in this one (rankgenrt.NewBoardReplacing).", pr.Schema)
		args := []jen.Code{jen.Id("c"), jen.Id("key")}
		if l.Season != nil {
			args = append(args, jen.Id("s"))
		}
		body = append(body, jen.Id("previous").Op(":=").Id(prevName("NewBoard")).Call(append(args, jen.Id("opts").Op("..."))...))
		newBoard = rt("NewBoardReplacing").Call(jen.Id("core"), jen.Id("decoding"), rt("NewBoard").Call(jen.Id("previous").Dot("core"), jen.Id("decodingViaPrevious")))
		dict[jen.Id("previous")] = jen.Id("previous")
		if l.NumScore > 0 { // the score reads route as the board's methods do
			body = append(body, jen.Id("board").Op(":=").Add(newBoard))
			newBoard = jen.Id("board")
			scoreReads = rt("NewScoreReadsReplacing").Call(jen.Id("board"), scoreRoutes(l))
		}
	}
	if l.NumScore > 0 {
		dict[jen.Id("ScoreReads")] = scoreReads
	}
	dict[jen.Id("Board")] = newBoard
	b.comment("%s", doc)
	f.Func().Id("NewBoard").Params(append(params, jen.Id("opts").Op("...").Id("Option"))...).Op("*").Id("Board").Block(
		append(body, jen.Return(jen.Op("&").Id("Board").Values(dict)))...,
	)
	f.Line()
}

// scoreRoutes is the rankgenrt.ScoreRoutes of a layout that replaces another: which ranks a
// board still in that layout answers exactly.
func scoreRoutes(l *layout.Layout) jen.Code {
	var routes []jen.Code // on one line: {Lead: true, Tuple: true}
	if _, ok := l.Previous.LeadRoutes(l); ok {
		routes = append(routes, jen.Id("Lead").Op(":").True())
	}
	if l.Previous.ScoreRoutes(l) {
		routes = append(routes, jen.Id("Tuple").Op(":").True())
	}
	return rt("ScoreRoutes").Values(routes...)
}

// resultTypes declares the types the methods take and return beside Entry.
func (b *board) resultTypes() {
	f, l := b.f, b.l
	f.Comment("Ranked is an entry with its 1-based rank on the board.")
	f.Type().Id("Ranked").Struct(jen.Id("Rank").Int64(), jen.Id("Entry"))
	f.Line()
	if b.c.inPackage == nil { // a package of boards declares it once
		b.comment("Cursor marks a place in the board for After: the last entry seen (zero: the top).")
		f.Type().Id("Cursor").Op("=").Add(rt("Cursor"))
		f.Line()
	}
	b.comment("Update is one update of a batch (the <Op><Field>Many methods): the id, and the delta or value. A batch is one script call, atomic, in order; each update succeeds or fails on its own (its Result). An id without an entry starts from the zero entry: 0, false, the first enum value, or the Unix epoch (a field's lowest-ranking value when that is outside its range).")
	f.Type().Id("Update").Types(jen.Id("V").Any()).Struct(jen.Id(l.IDName).Add(b.idType()), jen.Id("Value").Id("V"))
	f.Line()
	b.comment("Written is what a write did to one entry, read in the write's own script: the entry after the write (embedded: w.%s is its field), the entry its id held before (Existed false: none, and Before is the zero Entry), and whether the write changed the stored entry (for Best: whether it replaced it). A new personal best is Changed && Existed, its exact gain the difference of Entry and Before.%s", l.Fields[0].Name, writtenDataDoc(l))
	f.Type().Id("Written").Struct(jen.Id("Entry"), jen.Id("Before").Id("Entry"), jen.Id("Existed").Bool(), jen.Id("Changed").Bool())
	f.Line()
	b.comment("%s", resultDoc(l))
	f.Type().Id("Result").Struct(jen.Id("Written"), jen.Id("Err").Error())
	f.Line()
	b.decoding()
}

// field is "name: value", a keyed field of a composite literal written on one line.
func field(name, value string) jen.Code { return jen.Id(name).Op(":").Id(value) }

// decoding declares decoding, how what the runtime holds for every layout
// (rankgenrt.Decoding) makes this package's types of the entries it reads.
func (b *board) decoding() {
	f, l := b.f, b.l
	e := func(name string) *jen.Statement { return jen.Id(name).Id("Entry") }
	fields := jen.Dict{
		jen.Id("Decode"):   jen.Id("Decode"),
		jen.Id("ScoreOfP"): b.scoreOfPFunc(),
		jen.Id("NewRanked"): jen.Func().Params(jen.Id("rank").Int64(), e("e")).Id("Ranked").Block(
			jen.Return(jen.Id("Ranked").Values(field("Rank", "rank"), field("Entry", "e")))),
		jen.Id("NewWritten"): jen.Func().Params(jen.List(jen.Id("e"), jen.Id("before")).Id("Entry"), jen.List(jen.Id("existed"), jen.Id("changed")).Bool()).Id("Written").Block(
			jen.Return(jen.Id("Written").Values(field("Entry", "e"), field("Before", "before"), field("Existed", "existed"), field("Changed", "changed")))),
		jen.Id("NewResult"): jen.Func().Params(jen.Id("w").Id("Written"), jen.Err().Error()).Id("Result").Block(
			jen.Return(jen.Id("Result").Values(field("Written", "w"), field("Err", "err")))),
	}
	fields[jen.Id("EntryArgs")] = b.entryArgsFunc()
	if len(catalog.FieldUpdates(l)) > 0 || len(catalog.Stamped(l)) > 0 { // decoding.First, for the single field updates and Touch
		fields[jen.Id("WrittenOf")] = jen.Func().Params(jen.Id("x").Id("Result")).Params(jen.Id("Written"), jen.Error()).Block(
			jen.Return(jen.Id("x").Dot("Written"), jen.Id("x").Dot("Err")))
	}
	if l.HasData() {
		fields[jen.Id("DecodeData")] = jen.Func().Params(jen.Id("e").Op("*").Id("Entry"), jen.Id("data").String()).Params(jen.Err().Error()).Block(
			jen.List(jen.Id("e").Dot("Data"), jen.Err()).Op("=").Id("DecodeData").Call(jen.Id("data")),
			jen.Return(),
		)
	}
	if l.Sharded { // what the runtime's ShardedBoard routes and merges by
		fields[jen.Id("IDOf")] = jen.Func().Params(e("e")).Add(b.idType()).Block(jen.Return(jen.Id("e").Dot(l.IDName)))
		fields[jen.Id("Encode")] = jen.Id("Entry").Dot("Encode")
		fields[jen.Id("Compare")] = jen.Id("Compare")
		fields[jen.Id("EntryOf")] = jen.Func().Params(jen.Id("r").Id("Ranked")).Id("Entry").Block(jen.Return(jen.Id("r").Dot("Entry")))
		fields[jen.Id("ResultOf")] = jen.Func().Params(jen.Id("x").Id("Result")).Params(jen.Id("Entry"), jen.Error()).Block(jen.Return(jen.Id("x").Dot("Entry"), jen.Id("x").Dot("Err")))
		if l.NumScore > 0 {
			fields[jen.Id("TiedPlace")] = jen.Id("tiedPlace")
		}
	}
	if l.IDType != layout.IDUint64 {
		fields[jen.Id("IDName")] = jen.Lit(l.IDName)
		fields[jen.Id("IDMaxBytes")] = b.c.idMaxBytes()
	}
	f.Comment("decoding is how the board's reads and writes make this package's types of the entries they read.")
	f.Var().Id("decoding").Op("=").Op("&").Add(rt("Decoding")).Types(jen.Id("Entry"), b.idType(), jen.Id("Ranked"), jen.Id("Written"), jen.Id("Result")).Values(fields)
	f.Line()
}

// writtenDataDoc is what Written says of entry data on a layout with data fields.
func writtenDataDoc(l *layout.Layout) string {
	if !l.HasData() {
		return ""
	}
	return " After Set and Best, Before carries the data stored with it and Entry the data stored (or kept); field updates neither read nor change data, so there both hold the zero Data."
}

// resultDoc is Result's doc: which methods return one per item, and what each holds,
// named from the catalogue (on a layout with data, what its Entry.Data is, which differs
// by method).
func resultDoc(l *layout.Layout) string {
	var gets, lists, updates []string
	var touches string
	for _, op := range catalog.Ops(l) {
		switch {
		case op.Name == rankgenrt.OpGetMany:
			gets = append(gets, op.Methods...)
		case op.Go == catalog.GoChangeList:
			lists = append(lists, op.Methods[len(op.Methods)-1])
		case op.Go == catalog.GoFieldUpdate && op.Batch:
			updates = append(updates, op.Methods...)
		case op.Go == catalog.GoTouch:
			touches = op.Methods[1]
		}
	}
	doc := "Result is the outcome of one item of a batch: what it did (Written; Entry is the entry), or the error of that item alone."
	data := ""
	if l.HasData() {
		data = ", with its Data"
	}
	for _, m := range gets {
		doc += fmt.Sprintf(" %s gives one per id: the stored entry%s (Entry alone), or an Err matching ErrNotFound.", m, data)
	}
	for _, m := range lists {
		doc += fmt.Sprintf(" %s gives one per change list: the new entry and the one before, or the error that left it unchanged.", m)
		if l.HasData() {
			doc += " Its Entry.Data is the data the list set (SetData), else the zero Data."
		}
	}
	if len(updates) > 0 {
		doc += fmt.Sprintf(" %s give one per update: the new entry and the one before, or the error that left it unchanged.", strings.Join(updates, ", "))
		if l.HasData() {
			doc += " Field updates neither read nor change an entry's data, so their Entry.Data is the zero Data (Get returns the stored data)."
		}
	}
	if touches != "" {
		doc += fmt.Sprintf(" %s gives one per id: the touched entry and the one before, or the error that left it unchanged.", touches)
		if l.HasData() {
			doc += " A touch leaves the data as it is: its Entry.Data is the zero Data."
		}
	}
	return doc
}

// dataDoc is what Board's doc says of the entry data, for a layout with data fields.
func dataDoc(l *layout.Layout) string {
	if !l.HasData() {
		return ""
	}
	return ` Each entry's Data lives in a hash beside the set (a fifth key of the same slot, which
records the data format's fingerprint DataFingerprint); the scripts write, delete and expire it
with the entries and read it with them.`
}
