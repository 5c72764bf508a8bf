package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// helpers emits the unexported methods and functions the ShardedBoard's methods share.
func (s *sharded) helpers() {
	s.routing()
	s.readAll()
	s.ranges()
	s.afterAll()
	s.ahead()
	s.small()
}

// sumOver is "return rankgenrt.SumShards(ctx, len(s.shards), func(ctx, i) (int64, error) {
// return call })": call is the count of shard i (s.shards[i]).
func sumOver(call jen.Code) jen.Code {
	return jen.Return(rt("SumShards").Call(ctx(), jen.Len(sDot("shards")), jen.Func().Params(ctxParam(), id("i").Int()).Params(jen.Int64(), jen.Error()).Block(jen.Return(call))))
}

// routing emits shard, batch and gatherBatch.
func (s *sharded) routing() {
	f := s.f
	f.Comment("shard returns the shard that holds id.")
	sRecv(f).Id("shard").Params(id("id").Add(s.idType())).Op("*").Id("Board").Block(
		jen.Return(sDot("shards").Index(rt("ShardOf").Call(s.idText(id("id")), jen.Len(sDot("shards"))))))
	f.Line()
	s.comment("batch gives a batch write's context its one write token (the caller's idempotency key, if any): every shard's script of the batch runs under it, so that resending the batch under it applies each part once.")
	sRecv(f).Id("batch").Params(ctxParam()).Params(jen.Qual("context", "Context"), jen.Error()).Block(
		jen.List(id("token"), jen.Err()).Op(":=").Add(sDot("tokens").Dot("Next").Call(ctx())),
		retErr(ctx()),
		jen.Return(rt("WithIdempotencyKey").Call(ctx(), id("token")), jen.Nil()),
	)
	f.Line()
	f.Line()
	s.comment("gatherBatch sends a batch write's items to their shards under the batch's one token (batch) and returns call's results in the order of items (rankgenrt.Gather).")
	f.Func().Id("gatherBatch").Types(jen.List(id("T"), id("R")).Any()).Params(
		ctxParam(), id("s").Op("*").Id("ShardedBoard"), id("items").Index().Id("T"), id("idOf").Func().Params(id("T")).String(),
		id("call").Func().Params(jen.Op("*").Id("Board"), jen.Qual("context", "Context"), jen.Index().Id("T")).Params(jen.Index().Id("R"), jen.Error()),
	).Params(jen.Index().Id("R"), jen.Error()).Block(
		jen.List(ctx(), jen.Err()).Op(":=").Add(sDot("batch").Call(ctx())),
		retErr(jen.Nil()),
		jen.Return(rt("Gather").Call(ctx(), sDot("shards"), id("items"), id("idOf"), id("call"))),
	)
	f.Line()
}

// readAll emits readAll: one plain command per shard, pipelined, with the fingerprint check.
func (s *sharded) readAll() {
	s.comment(`readAll sends one read command to every shard, which cmd queues on a pipeline for the shard's sorted set key, in one round trip per node (the nodes at once), and returns the commands in shard order. As Board.read does, a shard not yet seen to record Fingerprint has it read in the same pipeline: another layout's board is an error matching ErrLayoutMismatch.`)
	sRecv(s.f).Id("readAll").Params(ctxParam(), id("cmd").Func().Params(rd("Cmdable"), jen.Int(), jen.String()).Add(rd("Cmder"))).Params(jen.Index().Add(rd("Cmder")), jen.Error()).Block(
		s.expiredCheck(jen.Nil()),
		id("pipe").Op(":=").Add(sDot("c").Dot("Pipeline").Call()),
		id("fps").Op(":=").Make(jen.Index().Op("*").Add(rd("StringCmd")), jen.Len(sDot("shards"))),
		id("cmds").Op(":=").Make(jen.Index().Add(rd("Cmder")), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("b")).Op(":=").Range().Add(sDot("shards"))).Block(
			id("fps").Index(id("i")).Op("=").Id("b").Dot("core").Dot("QueueFingerprint").Call(ctx(), id("pipe")),
			id("cmds").Index(id("i")).Op("=").Id("cmd").Call(id("pipe"), id("i"), id("b").Dot("core").Dot("Key").Call()),
		),
		jen.List(jen.Id("_"), jen.Id("_")).Op("=").Id("pipe").Dot("Exec").Call(ctx()).Comment("each command keeps its own reply and error"),
		jen.For(jen.List(id("i"), id("b")).Op(":=").Range().Add(sDot("shards"))).Block(
			rt("TypeError").Call(id("cmds").Index(id("i"))),
			jen.If(jen.Err().Op(":=").Id("b").Dot("core").Dot("CheckFingerprint").Call(id("fps").Index(id("i"))), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		),
		jen.Return(id("cmds"), jen.Nil()),
	)
	s.f.Line()
}

// ranges emits heads and ranges: entries by position of every shard, decoded.
func (s *sharded) ranges() {
	f := s.f
	s.comment("heads reads enough of every shard's first entries that the first n of their merge are the board's first n (every entry when n is math.MaxInt64): its share of n and a margin, and on the rare shard that may hold more of them, up to n in a second round (rankgenrt.Heads).")
	sRecv(f).Id("heads").Params(ctxParam(), id("n").Int64()).Params(jen.Index().Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(rt("Heads").Call(jen.Len(sDot("shards")), id("n"), id("compareRanked"), jen.Func().Params(id("bounds").Func().Params(jen.Int()).Params(jen.Int64(), jen.Int64())).Params(jen.Index().Index().Id("Ranked"), jen.Error()).Block(
			jen.Return(sDot("ranges").Call(ctx(), id("bounds"))))),
		))
	f.Line()
	if s.l.HasData() {
		s.dataRanges()
		s.plainRanges("bareRanges", "bareRanges reads, from every shard i, its entries at the 0-based positions bounds(i), best first, without their data (Trim only compares them), in one pipelined round.")
		return
	}
	s.plainRanges("ranges", "ranges reads, from every shard i, its entries at the 0-based positions bounds(i), best first, in one pipelined round.")
}

// plainRanges emits name: every shard's entries by position, with one ZREVRANGE each.
func (s *sharded) plainRanges(name, doc string) {
	f := s.f
	s.comment("%s", doc)
	sRecv(f).Id(name).Params(ctxParam(), id("bounds").Func().Params(jen.Int()).Params(jen.Int64(), jen.Int64())).Params(jen.Index().Index().Id("Ranked"), jen.Error()).Block(
		jen.List(id("cmds"), jen.Err()).Op(":=").Add(sDot("readAll").Call(ctx(), jen.Func().Params(id("c").Add(rd("Cmdable")), id("i").Int(), id("key").String()).Add(rd("Cmder")).Block(
			jen.List(id("start"), id("stop")).Op(":=").Id("bounds").Call(id("i")),
			jen.Return(id("c").Dot("ZRevRangeWithScores").Call(ctx(), id("key"), id("start"), id("stop"))),
		))),
		retErr(jen.Nil()),
		id("lists").Op(":=").Make(jen.Index().Index().Id("Ranked"), jen.Len(id("cmds"))),
		jen.For(jen.List(id("i"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.List(id("zs"), jen.Err()).Op(":=").Id("cmd").Assert(jen.Op("*").Add(rd("ZSliceCmd"))).Dot("Result").Call(),
			retErr(jen.Nil()),
			jen.If(jen.List(id("lists").Index(id("i")), jen.Err()).Op("=").Id("decoding").Dot("RankedAt").Call(jen.Lit(0), rt("ZPairs").Call(id("zs"))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())),
		),
		jen.Return(id("lists"), jen.Nil()),
	)
	f.Line()
}

// afterAll emits queueAfter and afterAll: the after script from one cursor on every shard.
func (s *sharded) afterAll() {
	f := s.f
	after := s.op(catalog.After)
	s.comment("queueAfter queues on pipe the after script of every shard from cur with limit: each call answers how many of its shard's entries rank at or before cur, and up to limit entries after it.")
	sRecv(f).Id("queueAfter").Params(ctxParam(), id("pipe").Op("*").Add(rt("Pipe")), id("cur").Id("Cursor"), id("limit").Int64()).Index().Op("*").Add(rd("Cmd")).Block(
		id("cmds").Op(":=").Make(jen.Index().Op("*").Add(rd("Cmd")), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("b")).Op(":=").Range().Add(sDot("shards"))).Block(
			id("cmds").Index(id("i")).Op("=").Id("pipe").Dot("CallRO").Call(ctx(), id(after.Function()), id("b").Dot("core").Dot("ScriptKeys").Call(), rt("FormatScore").Call(id("cur").Dot("Score")), id("cur").Dot("Member"), id("limit")),
		),
		jen.Return(id("cmds")),
	)
	f.Line()
	s.comment("afterAll runs the after script of every shard from cur, in one pipelined round: per shard, how many of its entries rank at or before cur, and up to limit entries after it.")
	sRecv(f).Id("afterAll").Params(ctxParam(), id("cur").Id("Cursor"), id("limit").Int64()).Params(id("starts").Index().Int64(), id("pages").Index().Index().Id("Ranked"), jen.Err().Error()).Block(
		s.expiredCheck(jen.Nil(), jen.Nil()),
		id("pipe").Op(":=").Add(rt("NewPipe")).Call(sDot("c")),
		id("windows").Op(":=").Add(sDot("queueAfter").Call(ctx(), id("pipe"), id("cur"), id("limit"))),
		id("pipe").Dot("Exec").Call(ctx()),
		id("starts").Op(",").Id("pages").Op("=").Make(jen.Index().Int64(), jen.Len(sDot("shards"))).Op(",").Make(jen.Index().Index().Id("Ranked"), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("w")).Op(":=").Range().Id("windows")).Block(
			jen.List(id("v"), jen.Err()).Op(":=").Id("w").Dot("Result").Call(),
			retErr(jen.Nil(), jen.Nil()),
			jen.List(id("start"), id("ps"), jen.Err()).Op(":=").Add(reader(after, id("v"))),
			retErr(jen.Nil(), jen.Nil()),
			id("starts").Index(id("i")).Op("=").Id("start"),
			jen.If(jen.List(id("pages").Index(id("i")), jen.Err()).Op("=").Id("decoding").Dot("RankedAt").Call(jen.Lit(0), id("ps")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Nil(), jen.Err())),
		),
		jen.Return(id("starts"), id("pages"), jen.Nil()),
	)
	f.Line()
}

// ahead emits ahead: every shard's count of the entries ahead of a cursor, with plain commands
// (ZCOUNT and the run of equal scores, rankgenrt.TieRun and TiesAhead), pipelined.
func (s *sharded) ahead() {
	f := s.f
	s.comment("ahead counts, on every shard, the entries that rank ahead of cur — greater scores (ZCOUNT), and equal scores with greater members (the run of equal scores, best first) — and, when sized, adds up the shards' sizes (ZCARD), in one pipelined round; only a run of more than rankgenrt.TieBand equal scores ahead takes more.")
	sRecv(f).Id("ahead").Params(ctxParam(), id("cur").Id("Cursor"), id("sized").Bool()).Params(id("counts").Index().Int64(), id("total").Int64(), jen.Err().Error()).Block(
		id("score").Op(":=").Add(rt("FormatScore")).Call(id("cur").Dot("Score")),
		id("greater").Op(",").Id("sizes").Op(":=").Make(jen.Index().Op("*").Add(rd("IntCmd")), jen.Len(sDot("shards"))).Op(",").Make(jen.Index().Op("*").Add(rd("IntCmd")), jen.Len(sDot("shards"))),
		jen.List(id("runs"), jen.Err()).Op(":=").Add(sDot("readAll").Call(ctx(), jen.Func().Params(id("c").Add(rd("Cmdable")), id("i").Int(), id("key").String()).Add(rd("Cmder")).Block(
			id("greater").Index(id("i")).Op("=").Id("c").Dot("ZCount").Call(ctx(), id("key"), jen.Lit("(").Op("+").Id("score"), jen.Lit("+inf")),
			jen.If(id("sized")).Block(id("sizes").Index(id("i")).Op("=").Id("c").Dot("ZCard").Call(ctx(), id("key"))),
			jen.Return(rt("TieRun").Call(ctx(), id("c"), id("key"), id("score"), jen.Lit(0))),
		))),
		retErr(jen.Nil(), jen.Lit(0)),
		id("counts").Op("=").Make(jen.Index().Int64(), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("run")).Op(":=").Range().Id("runs")).Block(
			jen.List(id("band"), jen.Err()).Op(":=").Id("run").Assert(jen.Op("*").Add(rd("StringSliceCmd"))).Dot("Result").Call(),
			retErr(jen.Nil(), jen.Lit(0)),
			jen.List(id("n"), jen.Err()).Op(":=").Id("greater").Index(id("i")).Dot("Result").Call(),
			retErr(jen.Nil(), jen.Lit(0)),
			jen.List(id("ties"), jen.Err()).Op(":=").Add(rt("TiesAhead").Call(ctx(), sDot("c"), sDot("shards").Index(id("i")).Dot("core").Dot("Key").Call(), id("score"), id("cur").Dot("Member"), id("band"))),
			retErr(jen.Nil(), jen.Lit(0)),
			id("counts").Index(id("i")).Op("=").Id("n").Op("+").Id("ties"),
			jen.If(id("sized")).Block(
				jen.List(id("size"), jen.Err()).Op(":=").Id("sizes").Index(id("i")).Dot("Result").Call(),
				retErr(jen.Nil(), jen.Lit(0)),
				id("total").Op("+=").Id("size"),
			),
		),
		jen.Return(id("counts"), id("total"), jen.Nil()),
	)
	f.Line()
}

// small emits encodable (validEntries), cursorOf, compareRanked and renumber.
func (s *sharded) small() {
	f := s.f
	s.validEntries()
	f.Comment("cursorOf is the cursor of e: its stored score and member.")
	f.Func().Id("cursorOf").Params(id("e").Id("Entry")).Params(jen.Id("Cursor"), jen.Error()).Block(
		jen.List(id("score"), id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(),
		jen.Return(jen.Id("Cursor").Values(jen.Dict{jen.Id("Score"): id("score"), jen.Id("Member"): id("member")}), jen.Err()),
	)
	f.Line()
	f.Comment("compareRanked orders ranked entries as the board does.")
	f.Func().Id("compareRanked").Params(jen.List(id("a"), id("b")).Id("Ranked")).Int().Block(
		jen.Return(jen.Id("Compare").Call(id("a").Dot("Entry"), id("b").Dot("Entry"))))
	f.Line()
	f.Comment("renumber gives merged entries their ranks: start is the 0-based position of the first.")
	f.Func().Id("renumber").Params(id("rs").Index().Id("Ranked"), id("start").Int64()).Index().Id("Ranked").Block(
		jen.For(id("i").Op(":=").Range().Id("rs")).Block(id("rs").Index(id("i")).Dot("Rank").Op("=").Id("start").Op("+").Int64().Call(id("i")).Op("+").Lit(1)),
		jen.Return(id("rs")),
	)
	f.Line()
}
