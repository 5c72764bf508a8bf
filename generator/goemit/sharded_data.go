package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// The ShardedBoard of a layout with data fields. Its writes need nothing of their own: each
// shard is a whole Board, which keeps an entry's data in its own data hash, in the shard's
// slot. Its merged reads return every entry with its Data, as Board's do, in the same round
// trip: where a board without data reads a shard's entries by position with ZREVRANGE, each
// shard runs the script Board's own read of them runs (page, bottom), whose reply carries the
// data (rankgenrt.WindowData); the reads that already run a script per shard (after, band,
// around_score) read its reply with the same reader. Get and GetMany are the shards' own.

// dataRanges emits ranges and scriptWindows: entries by position with their data.
func (s *sharded) dataRanges() {
	f, page := s.f, s.op(catalog.Page)
	s.comment("ranges reads, from every shard i, its entries at the 0-based positions bounds(i) (a stop of -1 reads to the end), best first, with their data: every shard's %s script, in one pipelined round.", page.Name)
	sRecv(f).Id("ranges").Params(ctxParam(), id("bounds").Func().Params(jen.Int()).Params(jen.Int64(), jen.Int64())).Params(jen.Index().Index().Id("Ranked"), jen.Error()).Block(
		jen.List(jen.Id("_"), id("lists"), jen.Err()).Op(":=").Add(sDot("scriptWindows").Call(ctx(), id(page.Function()), jen.Func().Params(id("i").Int()).Index().Any().Block(
			jen.List(id("start"), id("stop")).Op(":=").Id("bounds").Call(id("i")),
			id("limit").Op(":=").Id("stop").Op("-").Id("start").Op("+").Lit(1),
			jen.If(id("stop").Op("<").Lit(0)).Block(id("limit").Op("=").Qual("math", "MaxInt64").Comment("to the end")),
			jen.Return(jen.Index().Any().Values(id("start"), id("limit"))),
		))),
		jen.Return(id("lists"), jen.Err()),
	)
	f.Line()
	s.comment("scriptWindows runs script, which answers a window of entries with their data ({a count, entries, data}), on every shard i with args(i), in one pipelined round, and returns each shard's count and entries.")
	sRecv(f).Id("scriptWindows").Params(ctxParam(), id("script").Op("*").Add(rt("Function")), id("args").Func().Params(jen.Int()).Index().Any()).Params(id("counts").Index().Int64(), id("parts").Index().Index().Id("Ranked"), jen.Err().Error()).Block(
		s.expiredCheck(jen.Nil(), jen.Nil()),
		id("pipe").Op(":=").Add(rt("NewPipe")).Call(sDot("c")),
		id("cmds").Op(":=").Make(jen.Index().Op("*").Add(rd("Cmd")), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("b")).Op(":=").Range().Add(sDot("shards"))).Block(
			id("cmds").Index(id("i")).Op("=").Id("pipe").Dot("CallRO").Call(ctx(), id("script"), id("b").Dot("core").Dot("ScriptKeys").Call(), id("args").Call(id("i")).Op("...")),
		),
		id("pipe").Dot("Exec").Call(ctx()),
		id("counts").Op(",").Id("parts").Op("=").Make(jen.Index().Int64(), jen.Len(sDot("shards"))).Op(",").Make(jen.Index().Index().Id("Ranked"), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.List(id("v"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
			retErr(jen.Nil(), jen.Nil()),
			jen.List(id("n"), id("ps"), jen.Err()).Op(":=").Add(reader(s.op(catalog.Page), id("v"))),
			retErr(jen.Nil(), jen.Nil()),
			id("counts").Index(id("i")).Op("=").Id("n"),
			jen.If(jen.List(id("parts").Index(id("i")), jen.Err()).Op("=").Id("decoding").Dot("RankedAt").Call(jen.Lit(0), id("ps")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Nil(), jen.Err())),
		),
		jen.Return(id("counts"), id("parts"), jen.Nil()),
	)
	f.Line()
}

// dataTails emits tails: every shard's last entries with their data, and its size.
func (s *sharded) dataTails() {
	bottom := s.op(catalog.Bottom)
	s.comment("tails reads the last n entries of every shard, best first, with their data, and adds up the shards' sizes: every shard's %s script, in one pipelined round. A shard's reply starts at its size less the entries it read, so the two add up to its size.", bottom.Name)
	sRecv(s.f).Id("tails").Params(ctxParam(), id("n").Int64()).Params(id("lists").Index().Index().Id("Ranked"), id("count").Int64(), jen.Err().Error()).Block(
		jen.List(id("starts"), id("lists"), jen.Err()).Op(":=").Add(sDot("scriptWindows").Call(ctx(), id(bottom.Function()), jen.Func().Params(jen.Int()).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(jen.Lit(0), id("n"))),
		))),
		retErr(jen.Nil(), jen.Lit(0)),
		jen.For(jen.List(id("i"), id("start")).Op(":=").Range().Id("starts")).Block(
			id("count").Op("+=").Id("start").Op("+").Int64().Call(jen.Len(id("lists").Index(id("i")))),
		),
		jen.Return(id("lists"), id("count"), jen.Nil()),
	)
	s.f.Line()
}

// dataWindows emits windows on a board with data: scriptWindows with the same arguments for
// every shard.
func (s *sharded) dataWindows() {
	s.comment("windows runs script, which answers {a count, entries, data}, on every shard with args, in one pipelined round, and returns each shard's count and entries with their data.")
	sRecv(s.f).Id("windows").Params(ctxParam(), id("script").Op("*").Add(rt("Function")), id("args").Op("...").Any()).Params(id("counts").Index().Int64(), id("parts").Index().Index().Id("Ranked"), jen.Err().Error()).Block(
		jen.Return(sDot("scriptWindows").Call(ctx(), id("script"), jen.Func().Params(jen.Int()).Index().Any().Block(jen.Return(id("args"))))),
	)
	s.f.Line()
}

// encodable is the function that validates a batch's entries before any shard writes:
// encodable, or on a periodic layout with season-anchored fields s.encodable, which needs the
// board's season.
func (s *sharded) encodable() *jen.Statement {
	if catalog.EntriesTakeSeason(s.l) {
		return sDot("encodable")
	}
	return jen.Id("encodable")
}

// validEntries emits encodable: every check Board's batch writes make of an entry before they
// send anything — the season of its season-anchored fields, its encoding, its data — so that a
// batch with one invalid entry writes nothing on any shard, as on a Board.
func (s *sharded) validEntries() {
	checks := []jen.Code{
		s.seasonCheck(jen.Id("b").Dot("season"), id("e")),
		jen.If(jen.List(jen.Id("_"), jen.Id("_"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	refused := []string{"that Encode refuses"}
	if s.l.HasData() {
		checks = append(checks, jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("e").Dot("Data").Dot("Encode").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		refused = append(refused, "whose Data is invalid")
	}
	var body []jen.Code
	if catalog.EntriesTakeSeason(s.l) {
		refused = append([]string{"whose season-anchored fields lie outside the board's season"}, refused...)
		body = append(body, id("b").Op(":=").Add(sDot("shards")).Index(jen.Lit(0)).Comment("every shard holds the board's season"))
	}
	body = append(body,
		jen.For(jen.List(jen.Id("_"), id("e")).Op(":=").Range().Id("entries")).Block(checks...),
		jen.Return(jen.Nil()),
	)
	s.f.Comment("encodable reports the first entry " + orList(refused) + ".")
	decl := s.f.Func()
	if catalog.EntriesTakeSeason(s.l) {
		decl = decl.Params(id("s").Op("*").Id("ShardedBoard"))
	}
	decl.Id("encodable").Params(id("entries").Index().Id("Entry")).Error().Block(body...)
	s.f.Line()
}

// typeDocExtra is what ShardedBoard's doc adds on a layout with data fields or a periodic one.
func (s *sharded) typeDocExtra() string {
	var doc string
	if s.l.HasData() {
		doc += " Each entry's Data lives on its shard, in the shard's data hash, and every merged read returns it with the entry, in the same round trip, as Board's reads do."
	}
	if s.l.Season != nil {
		doc += " It holds one season, as a Board does (Seasons.Sharded): every shard is the season's Board, so each shard's writes set the season's expiry and refuse times outside it."
	}
	return doc
}

// reshardDocExtra is what Reshard's doc adds on a layout with data fields or a periodic one.
func (s *sharded) reshardDocExtra() string {
	var doc string
	if s.l.HasData() {
		doc += " Each entry is copied with its Data (the source's After reads it, dst's SetMany stores it on the entry's new shard)."
	}
	if s.l.Season != nil {
		doc += " dst must hold the same season: its SetMany refuses season-anchored values outside its own season."
	}
	return doc
}

// trimHeads is Trim's read of every shard's first keep entries: s.heads(ctx, keep), or on a
// board with data the same positions without their data, which Trim does not return.
func (s *sharded) trimHeads() jen.Code {
	if !s.l.HasData() {
		return sDot("heads").Call(ctx(), id("keep"))
	}
	return sDot("bareRanges").Call(ctx(), jen.Func().Params(jen.Int()).Params(jen.Int64(), jen.Int64()).Block(jen.Return(jen.Lit(0), id("keep").Op("-").Lit(1))))
}
