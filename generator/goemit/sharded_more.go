package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// The ShardedBoard methods of the operations merged after the first sharded board: change
// lists, the band reads, pages from the end and competition ranks.

// changes emits Update and UpdateMany: a change list goes to the shard of its id.
func (s *sharded) changes(catalog.Op) {
	f := s.f
	f.Comment("Update applies Board.Update on the shard of id: one atomic script call.")
	sRecv(f).Id("Update").Params(ctxParam(), id("id").Add(s.idType()), id("changes").Op("...").Id("Change")).Params(jen.Id("Entry"), jen.Error()).Block(
		jen.Return(shardOf(id("id")).Dot("Update").Call(ctx(), id("id"), id("changes").Op("..."))))
	f.Line()
	s.comment("UpdateMany applies Board.UpdateMany with one script call per shard that holds some of the lists, all at once, each shard's part atomic and in order; the Results are in the order of lists. A failed shard's call is resent as SetMany's is.")
	sRecv(f).Id("UpdateMany").Params(ctxParam(), id("lists").Index().Id("Changes")).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.List(ctx(), jen.Err()).Op(":=").Add(sDot("batch").Call(ctx())),
		retErr(jen.Nil()),
		jen.Return(id("gather").Call(ctx(), id("s"), id("lists"), s.idOfItem(jen.Id("Changes")), jen.Parens(jen.Op("*").Id("Board")).Dot("UpdateMany"))),
	)
	f.Line()
}

// countBand emits CountBetween: the shards' counts added up.
func (s *sharded) countBand(catalog.Op) {
	s.comment("CountBetween returns the number of entries in the band: Board.CountBetween on every shard (one ZCOUNT each, O(log n)), all at once, added up.")
	sRecv(s.f).Id("CountBetween").Params(ctxParam(), id("band").Id("Band")).Params(jen.Int64(), jen.Error()).Block(
		sumOver(sDot("shards").Index(id("i")).Dot("CountBetween").Call(ctx(), id("band"))),
	)
	s.f.Line()
}

// band emits Between: every shard's band script from 0 to offset + limit, merged.
func (s *sharded) band(op catalog.Op) {
	s.comment("Between returns, best first with their ranks, up to limit entries of the band, skipping offset of them, as Board.Between does. Every shard runs the band script in one pipelined round: it counts its entries ahead of the band (their sum is the band's first position) and reads its first offset + limit entries of the band, which merge by Compare. The cost grows with offset: O(shards × (log n + offset + limit)).")
	sRecv(s.f).Id("Between").Params(ctxParam(), id("band").Id("Band"), jen.List(id("offset"), id("limit")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.If(id("band").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), id("band").Dot("err"))),
		refuseNegativeOffset(),
		jen.If(id("band").Dot("lo").Op(">=").Id("band").Dot("hi").Op("||").Id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		id("n").Op(":=").Id("offset").Op("+").Id("limit"),
		jen.If(id("n").Op("<").Id("offset")).Block(id("n").Op("=").Qual("math", "MaxInt64").Comment("offset + limit overflows: to the end")),
		jen.List(id("ahead"), id("parts"), jen.Err()).Op(":=").Add(sDot("windows").Call(ctx(), id(op.Script()),
			rt("FormatScore").Call(id("scoreOfP").Call(id("band").Dot("lo"))), rt("FormatScore").Call(id("scoreOfP").Call(id("band").Dot("hi"))), jen.Lit(0), id("n"))),
		retErr(jen.Nil()),
		id("merged").Op(":=").Add(rt("MergeSorted")).Call(id("parts"), id("n"), id("compareRanked")),
		jen.Return(id("renumber").Call(id("merged").Index(jen.Min(id("offset"), jen.Int64().Call(jen.Len(id("merged")))).Op(":")), rt("Sum").Call(id("ahead")).Op("+").Id("offset")), jen.Nil()),
	)
	s.f.Line()
}

// aroundScore emits AroundScore and placeWindow.
func (s *sharded) aroundScore(op catalog.Op) {
	f := s.f
	s.comment("AroundScore returns, best first with their ranks, up to before entries that rank ahead of the place and up to after entries from it on, as Board.AroundScore does. Every shard runs the around_score script at the place in one pipelined round: of the window, a shard holds at most its last before entries ahead of the place and its first after from it, which is what it reads; the merge by Compare holds the window, and the shards' positions of the place add up to its position. A nil place is refused as Board.AroundScore refuses it.")
	sRecv(f).Id("AroundScore").Params(ctxParam(), id("at").Id("Place"), jen.List(id("before"), id("after")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.If(id("at").Op("==").Nil()).Block(jen.Return(sDot("shards").Index(jen.Lit(0)).Dot("AroundScore").Call(ctx(), id("at"), id("before"), id("after"))).Comment("its error, nothing sent")),
		jen.List(id("score"), id("member"), jen.Err()).Op(":=").Id("at").Dot("place").Call(),
		retErr(jen.Nil()),
		jen.List(id("pos"), id("ahead"), id("merged"), jen.Err()).Op(":=").Add(sDot("placeWindow").Call(ctx(), id("score"), id("member"), jen.Max(id("before"), jen.Lit(0)), jen.Max(id("after"), jen.Lit(0)))),
		retErr(jen.Nil()),
		id("take").Op(":=").Int().Call(jen.Min(jen.Max(id("before"), jen.Lit(0)), id("pos"))).Comment("entries ahead of the place in the window"),
		id("hi").Op(":=").Id("ahead").Op("+").Int().Call(jen.Min(jen.Max(id("after"), jen.Lit(0)), jen.Int64().Call(jen.Len(id("merged")).Op("-").Id("ahead")))),
		jen.Return(id("renumber").Call(id("merged").Index(id("ahead").Op("-").Id("take").Op(":").Id("hi")), id("pos").Op("-").Int64().Call(id("take"))), jen.Nil()),
	)
	f.Line()
	s.comment("placeWindow runs the %s script of every shard at the place (score, member) with before and after, in one pipelined round, and returns the place's 0-based position among all shards, the merged entries the shards read, and how many of them, a prefix, rank ahead of the place: greater scores, and equal scores with greater members (Redis's order of equal scores: their bytes; the member '' is the place before every entry of its score).", op.Name)
	sRecv(f).Id("placeWindow").Params(ctxParam(), id("score").Float64(), id("member").String(), jen.List(id("before"), id("after")).Int64()).Params(id("pos").Int64(), id("ahead").Int(), id("merged").Index().Id("Ranked"), jen.Err().Error()).Block(
		jen.List(id("starts"), id("parts"), jen.Err()).Op(":=").Add(sDot("windows").Call(ctx(), id(op.Script()), rt("FormatScore").Call(id("score")), id("member"), id("before"), id("after"))),
		retErr(jen.Lit(0), jen.Lit(0), jen.Nil()),
		id("pos").Op("=").Add(rt("Sum")).Call(id("starts")),
		jen.For(jen.List(jen.Id("_"), id("part")).Op(":=").Range().Id("parts")).Block(
			jen.For(jen.List(jen.Id("_"), id("r")).Op(":=").Range().Id("part")).Block(
				jen.List(id("cur"), jen.Err()).Op(":=").Id("cursorOf").Call(id("r").Dot("Entry")),
				retErr(jen.Lit(0), jen.Lit(0), jen.Nil()),
				jen.If(id("cur").Dot("Score").Op(">").Id("score").Op("||").Id("cur").Dot("Score").Op("==").Id("score").Op("&&").Id("cur").Dot("Member").Op(">").Id("member")).Block(
					id("pos").Op("++").Comment("a shard's start is its position of the place less the entries it read ahead of it"),
					id("ahead").Op("++"),
				),
			),
		),
		jen.Return(id("pos"), id("ahead"), rt("MergeSorted").Call(id("parts"), jen.Lit(-1), id("compareRanked")), jen.Nil()),
	)
	f.Line()
}

// windows emits windows: one read-only script that answers a window ({start, pairs}) run on
// every shard with the same arguments, pipelined.
func (s *sharded) windows() {
	if s.l.HasData() {
		s.dataWindows()
		return
	}
	s.comment("windows runs script, which answers {a count, entries}, on every shard with args, in one pipelined round, and returns each shard's count and entries.")
	sRecv(s.f).Id("windows").Params(ctxParam(), id("script").Op("*").Add(rt("Function")), id("args").Op("...").Any()).Params(id("counts").Index().Int64(), id("parts").Index().Index().Id("Ranked"), jen.Err().Error()).Block(
		s.expiredCheck(jen.Nil(), jen.Nil()),
		id("pipe").Op(":=").Add(rt("NewPipe")).Call(sDot("c")),
		id("cmds").Op(":=").Make(jen.Index().Op("*").Add(rd("Cmd")), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("b")).Op(":=").Range().Add(sDot("shards"))).Block(
			id("cmds").Index(id("i")).Op("=").Id("pipe").Dot("RunRO").Call(ctx(), id("script"), id("b").Dot("keys"), id("args").Op("...")),
		),
		id("pipe").Dot("Exec").Call(ctx()),
		id("counts").Op(",").Id("parts").Op("=").Make(jen.Index().Int64(), jen.Len(sDot("shards"))).Op(",").Make(jen.Index().Index().Id("Ranked"), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.List(id("v"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
			retErr(jen.Nil(), jen.Nil()),
			jen.List(id("n"), id("ps"), jen.Err()).Op(":=").Add(rt("Window").Call(id("v"))),
			retErr(jen.Nil(), jen.Nil()),
			id("counts").Index(id("i")).Op("=").Id("n"),
			jen.If(jen.List(id("parts").Index(id("i")), jen.Err()).Op("=").Id("rankedPairs").Call(jen.Lit(0), id("ps")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Nil(), jen.Err())),
		),
		jen.Return(id("counts"), id("parts"), jen.Nil()),
	)
	s.f.Line()
}

// bottom emits Bottom and PageFromEnd: every shard's last entries and size, merged.
func (s *sharded) bottom(catalog.Op) {
	f := s.f
	f.Comment("Bottom returns the last n entries, best first (the board's last entry last).")
	sRecv(f).Id("Bottom").Params(ctxParam(), id("n").Int64()).Params(ranked(), jen.Error()).Block(
		jen.Return(sDot("PageFromEnd").Call(ctx(), jen.Lit(0), id("n"))))
	f.Line()
	s.comment("PageFromEnd returns up to limit entries that end offset entries before the end of the board, best first, with their ranks, as Board.PageFromEnd does. Every shard reads its last offset + limit entries and its size in one pipelined round; the board's last offset + limit entries are the last of their merge by Compare. The cost grows with offset, as Page's does.")
	sRecv(f).Id("PageFromEnd").Params(ctxParam(), jen.List(id("offset"), id("limit")).Int64()).Params(ranked(), jen.Error()).Block(
		refuseNegativeOffset(),
		jen.If(id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		id("n").Op(":=").Id("offset").Op("+").Id("limit"),
		jen.If(id("n").Op("<").Id("offset")).Block(id("n").Op("=").Qual("math", "MaxInt64").Comment("offset + limit overflows: to the start")),
		jen.List(id("tails"), id("count"), jen.Err()).Op(":=").Add(sDot("tails").Call(ctx(), id("n"))),
		retErr(jen.Nil()),
		id("merged").Op(":=").Add(rt("MergeSorted")).Call(id("tails"), jen.Lit(-1), id("compareRanked")),
		id("from").Op(":=").Int64().Call(jen.Len(id("merged"))).Op("-").Min(id("n"), jen.Int64().Call(jen.Len(id("merged")))),
		id("to").Op(":=").Max(id("from"), jen.Int64().Call(jen.Len(id("merged"))).Op("-").Id("offset")),
		jen.Return(id("renumber").Call(id("merged").Index(id("from").Op(":").Id("to")), id("count").Op("-").Int64().Call(jen.Len(id("merged"))).Op("+").Id("from")), jen.Nil()),
	)
	f.Line()
	if s.l.HasData() {
		s.dataTails()
		return
	}
	s.comment("tails reads the last n entries of every shard, best first, and adds up the shards' sizes, in one pipelined round.")
	sRecv(f).Id("tails").Params(ctxParam(), id("n").Int64()).Params(id("lists").Index().Index().Id("Ranked"), id("count").Int64(), jen.Err().Error()).Block(
		id("sizes").Op(":=").Make(jen.Index().Op("*").Add(rd("IntCmd")), jen.Len(sDot("shards"))),
		jen.List(id("cmds"), jen.Err()).Op(":=").Add(sDot("readAll").Call(ctx(), jen.Func().Params(id("c").Add(rd("Cmdable")), id("i").Int(), id("key").String()).Add(rd("Cmder")).Block(
			id("sizes").Index(id("i")).Op("=").Id("c").Dot("ZCard").Call(ctx(), id("key")),
			jen.Return(id("c").Dot("ZRevRangeWithScores").Call(ctx(), id("key"), jen.Op("-").Id("n"), jen.Lit(-1))),
		))),
		retErr(jen.Nil(), jen.Lit(0)),
		id("lists").Op("=").Make(jen.Index().Index().Id("Ranked"), jen.Len(id("cmds"))),
		jen.For(jen.List(id("i"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.List(id("size"), jen.Err()).Op(":=").Id("sizes").Index(id("i")).Dot("Result").Call(),
			retErr(jen.Nil(), jen.Lit(0)),
			id("count").Op("+=").Id("size"),
			jen.List(id("zs"), jen.Err()).Op(":=").Id("cmd").Assert(jen.Op("*").Add(rd("ZSliceCmd"))).Dot("Result").Call(),
			retErr(jen.Nil(), jen.Lit(0)),
			jen.If(jen.List(id("lists").Index(id("i")), jen.Err()).Op("=").Id("rankedPairs").Call(jen.Lit(0), rt("ZPairs").Call(id("zs"))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Lit(0), jen.Err())),
		),
		jen.Return(id("lists"), id("count"), jen.Nil()),
	)
	f.Line()
}

// competition emits CompetitionRank, CompetitionRankTuple, competition and tiedPlace.
func (s *sharded) competition(catalog.Op) {
	f := s.f
	lead := s.l.Fields[0].Name
	s.comment("CompetitionRank returns 1 + the number of entries of all shards with a better %s than the entry of id, as Board.CompetitionRank does, or an error matching ErrNotFound: the entry from its shard, then every shard's count of the entries better on %s (one ZCOUNT each), pipelined, added up.", lead, lead)
	sRecv(f).Id("CompetitionRank").Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(sDot("competition").Call(ctx(), id("id"), jen.Lit(1))))
	f.Line()
	s.comment("CompetitionRankTuple is CompetitionRank on the whole score, as Board.CompetitionRankTuple is: 1 + the number of entries of all shards whose score fields rank before the entry of id.")
	sRecv(f).Id("CompetitionRankTuple").Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(sDot("competition").Call(ctx(), id("id"), id("scoreFields"))))
	f.Line()
	s.comment("competition counts, on every shard, the entries ahead of the place before every entry equal to the entry of id on its first tied score fields (tiedPlace), and adds 1.")
	sRecv(f).Id("competition").Params(ctxParam(), id("id").Add(s.idType()), id("tied").Int()).Params(jen.Int64(), jen.Error()).Block(
		jen.List(id("e"), jen.Err()).Op(":=").Add(shardOf(id("id")).Dot("Get").Call(ctx(), id("id"))),
		retErr(jen.Lit(0)),
		jen.List(id("score"), id("member"), jen.Err()).Op(":=").Id("tiedPlace").Call(id("e"), id("tied")).Dot("place").Call(),
		retErr(jen.Lit(0)),
		jen.List(id("pos"), jen.Id("_"), jen.Id("_"), jen.Err()).Op(":=").Add(sDot("placeWindow").Call(ctx(), id("score"), id("member"), jen.Lit(0), jen.Lit(0))),
		retErr(jen.Lit(0)),
		jen.Return(id("pos").Op("+").Lit(1), jen.Nil()),
	)
	f.Line()
	s.tiedPlace()
}

// tiedPlace emits tiedPlace: the prefix of an entry's first tied score fields.
func (s *sharded) tiedPlace() {
	prefix := jen.Id(s.l.Fields[0].Name + "Is").Call(id("e").Dot(s.l.Fields[0].Name))
	var cases []jen.Code
	for k := 1; k <= s.l.NumScore; k++ {
		if k > 1 {
			fd := s.l.Fields[k-1]
			prefix = jen.Add(prefix).Dot(fd.Name + "Is").Call(id("e").Dot(fd.Name))
		}
		c := jen.Case(jen.Lit(k))
		if k == s.l.NumScore {
			c = jen.Default()
		}
		cases = append(cases, c.Block(jen.Return(jen.Add(prefix))))
	}
	s.f.Comment("tiedPlace is the place before every entry whose first tied score fields equal e's.")
	s.f.Func().Id("tiedPlace").Params(id("e").Id("Entry"), id("tied").Int()).Id("Place").Block(jen.Switch(id("tied")).Block(cases...))
	s.f.Line()
}
