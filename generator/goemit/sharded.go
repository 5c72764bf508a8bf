package goemit

import (
	"slices"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// emitSharded adds the ShardedBoard to the file: one leaderboard over several Boards (its
// shards), each under its own hash tag. It embeds rankgenrt.ShardedBoard, which holds the
// methods that are the same on every layout (catalog.Op.Go) and the merges behind them;
// the file declares the rest, thin methods: a write goes to the shard of its id (a batch to
// every shard it touches, at once), and a read asks every shard in one pipeline and merges the
// answers with runtime's machinery (rankgenrt.ShardWindows, ShardAroundScore, MergeSorted,
// SumShards) and the layout's Compare.
func emitSharded(f *jen.File, c *codec) {
	s := &sharded{board: &board{l: c.l, f: f, c: c}, ops: catalog.Ops(c.l)}
	s.shardedType()
	s.constructor()
	s.seasons()
	for _, op := range s.ops {
		if op.Sharding != catalog.ShardPerShard && !op.Go.InRuntime() {
			shardedEmitters[op.Go](s, op)
		}
	}
	if s.l.NumScore > 0 {
		s.tiedPlace()
	}
	s.reshard()
	s.helpers()
}

// shardedEmitters emits the ShardedBoard methods of each form of operation (catalog.Op.Go)
// the ShardedBoard performs (Op.Sharding) that no runtime type holds: every other form but
// those read from the shards themselves (catalog.ShardPerShard; the type's comment says so).
// TestShardedEmitters fails on a form that has an emitter it should not, or lacks one.
var shardedEmitters = map[catalog.GoPart]func(*sharded, catalog.Op){
	catalog.GoFieldUpdate: (*sharded).update,
	catalog.GoChangeList:  (*sharded).changes,
	catalog.GoTouch:       (*sharded).touch,
	catalog.GoLeadCount:   (*sharded).countRange,
	catalog.GoAroundScore: (*sharded).aroundScore,
}

// shardedWithout are the Board methods outside the catalogue that a ShardedBoard lacks: Key
// (a ShardedBoard has a key per shard: Keys) and Reindex (it adopts one sorted set written by
// other code: run it on each shard, Shards).
var shardedWithout = []string{"Key", "Reindex"}

// PerShardMethods lists the Board methods a ShardedBoard leaves to its shards: those of the
// operations among ops it does not merge (catalog.ShardPerShard: Range<Lead> pages a band of
// the leading field by offset without ranks, which Between serves merged, and DenseRank counts
// the distinct leading values ahead, a union across shards, not a sum), and shardedWithout.
func PerShardMethods(ops []catalog.Op) []string {
	out := slices.Clone(shardedWithout)
	for _, op := range ops {
		if op.Sharding == catalog.ShardPerShard {
			out = append(out, op.Methods...)
		}
	}
	return out
}

// ShardedMethods lists the catalogued Board methods a ShardedBoard also has.
func ShardedMethods(ops []catalog.Op) []string {
	var out []string
	for _, op := range ops {
		if op.Sharding != catalog.ShardPerShard {
			out = append(out, op.Methods...)
		}
	}
	return out
}

type sharded struct {
	*board
	ops []catalog.Op // the layout's operations
}

// op is the layout's operation of kind k (its first, for the kinds a layout has twice).

func sRecv(f *jen.File) *jen.Statement {
	return f.Func().Params(jen.Id("s").Op("*").Id("ShardedBoard"))
}

// Short names for the generated code's identifiers.
func id(name string) *jen.Statement   { return jen.Id(name) }
func sDot(name string) *jen.Statement { return jen.Id("s").Dot(name) }
func ctx() *jen.Statement             { return jen.Id("ctx") }
func ranked() *jen.Statement          { return jen.Index().Id("Ranked") }
func retErr(ret ...jen.Code) jen.Code {
	return errNil().Block(jen.Return(append(ret, jen.Err())...))
}

// shardOf is s.shard(<id>): the Board that holds the id.
func shardOf(idExpr jen.Code) *jen.Statement { return sDot("shard").Call(idExpr) }

// shardedType declares ShardedBoard.
func (s *sharded) shardedType() {
	idText := "the id's text"
	if s.l.IDType == layout.IDUint64 {
		idText = "the id's decimal text"
	}
	s.comment(`ShardedBoard is one leaderboard of Entry values spread over several sorted sets, its shards, so that it outgrows one Redis node: each shard is a Board under its own hash tag, and on Redis Cluster the shards spread over the masters (rankgenrt.ShardKeys). An id always lives on the same shard — rankgenrt.ShardOf: FNV-1a 64 of %s, modulo the number of shards — so every write is one atomic script on one shard, in one round trip, and a batch is one script per shard it touches, all sent at once. Reads ask every shard in one pipeline (one round trip per node, the nodes at once) and merge the answers by Compare, or add them up, so ranks, pages and counts are exactly those of one Board holding the same entries. A read that needs an entry first (Rank, Around, RankMany, Percentile, PageOf, CompetitionRank) takes one more round, and Around one more again; such a read is not a snapshot: a write that lands between its rounds may shift its answer by that write. Offset reads (Page, Between, PageFromEnd) read offset + limit entries of every shard. The ranges of the leading field by offset (Range…) and DenseRank, whose distinct values ahead are a union across shards, not a sum, are not merged: read them from the shards (Shards), as Reindex.%s A ShardedBoard is safe for concurrent use.`, idText, s.typeDocExtra())
	s.comment("Its reads and whole-entry writes (Get, Top, Around, Set, Best, …) are the methods of the embedded rankgenrt.ShardedBoard, which are the same on every layout; this file declares those its layout makes its own.")
	fields := []jen.Code{jen.Op("*").Add(s.runtimeSharded())}
	if s.l.NumScore > 0 {
		fields = append(fields, jen.Op("*").Add(rt("ShardedScoreReads").Types(jen.Id("Entry"), s.idType(), jen.Id("Ranked"), jen.Id("Written"), jen.Id("Result"))))
	}
	s.f.Type().Id("ShardedBoard").Struct(append(fields,
		jen.Id("shards").Index().Op("*").Id("Board").Comment("shard i holds the ids that rankgenrt.ShardOf maps to i"))...,
	)
	s.f.Line()
}

// runtimeSharded is rankgenrt.ShardedBoard over this package's types, which ShardedBoard embeds.
func (s *sharded) runtimeSharded() *jen.Statement {
	return rt("ShardedBoard").Types(jen.Id("Entry"), s.idType(), jen.Id("Ranked"), jen.Id("Written"), jen.Id("Result"))
}

// constructor declares NewShardedBoard and Shards.
func (s *sharded) constructor() {
	f := s.f
	params := []jen.Code{jen.Id("c").Qual(redisPath, "UniversalClient"), id("key").String()}
	boardArgs := []jen.Code{id("c"), id("k")}
	doc := `NewShardedBoard returns the board stored under key in shards sorted sets, named by rankgenrt.ShardKeys ("key{key:shards:i:n}"); the options apply to every shard.`
	if s.l.Season != nil {
		params, boardArgs = append(params, id("season").Id("Season")), append(boardArgs, id("season"))
		doc = s.seasonConstructorDoc()
	}
	params = append(params, id("shards").Int(), id("opts").Op("...").Id("Option"))
	s.comment("%s%s", doc, ` A shard count outside [1, rankgenrt.MaxShards] is an error matching ErrOutOfRange, a key holding a brace one matching ErrBadKey. Every process must use the same count: changing it is a migration (Reshard).`)
	f.Func().Id("NewShardedBoard").Params(params...).Params(jen.Op("*").Id("ShardedBoard"), jen.Error()).Block(
		jen.List(id("keys"), jen.Err()).Op(":=").Add(rt("ShardKeys")).Call(id("key"), id("shards")),
		retErr(jen.Nil()),
		id("s").Op(":=").Op("&").Id("ShardedBoard").Values(jen.Dict{id("shards"): jen.Make(jen.Index().Op("*").Id("Board"), jen.Len(id("keys")))}),
		id("boards").Op(":=").Make(jen.Index().Op("*").Add(s.runtimeBoard()), jen.Len(id("keys"))),
		jen.For(jen.List(id("i"), id("k")).Op(":=").Range().Id("keys")).Block(
			sDot("shards").Index(id("i")).Op("=").Id("NewBoard").Call(append(boardArgs, id("opts").Op("..."))...),
			id("boards").Index(id("i")).Op("=").Add(sDot("shards")).Index(id("i")).Dot("Board"),
		),
		sDot("ShardedBoard").Op("=").Add(rt("NewShardedBoard")).Call(id("c"), id("boards")),
		s.scoreReads(),
		jen.Return(id("s"), jen.Nil()),
	)
	f.Line()
	s.comment("Shards returns the shards, in order: shard i holds the ids that rankgenrt.ShardOf maps to i. Each is a whole Board, for the reads a ShardedBoard does not merge.")
	sRecv(f).Id("Shards").Params().Index().Op("*").Id("Board").Block(
		jen.Return(jen.Append(jen.Index().Op("*").Id("Board").Values(), sDot("shards").Op("..."))))
	f.Line()
}

// scoreReads sets, on a layout with score fields, the embedded rankgenrt.ShardedScoreReads over
// the shards' own.
func (s *sharded) scoreReads() jen.Code {
	if s.l.NumScore == 0 {
		return jen.Null()
	}
	return jen.Id("reads").Op(":=").Make(jen.Index().Op("*").Add(rt("ScoreReads").Types(jen.Id("Entry"), s.idType(), jen.Id("Ranked"), jen.Id("Written"), jen.Id("Result"))), jen.Len(id("keys"))).Line().
		For(jen.List(id("i"), id("shard")).Op(":=").Range().Add(sDot("shards"))).Block(id("reads").Index(id("i")).Op("=").Id("shard").Dot("ScoreReads")).Line().
		Add(sDot("ShardedScoreReads")).Op("=").Add(rt("NewShardedScoreReads")).Call(sDot("ShardedBoard"), id("reads"))
}

// idOfItem is func(x <typ>) string { return <x.<id> as text> }.
func (s *sharded) idOfItem(typ jen.Code) jen.Code {
	return jen.Func().Params(id("x").Add(typ)).String().Block(jen.Return(s.idText(id("x").Dot(s.l.IDName))))
}

// update emits a field update on the id's shard, or its batch form over the shards.
func (s *sharded) update(op catalog.Op) {
	f, name, u := s.f, op.Methods[0], op.Update
	arg := updateArg(u)
	if !op.Batch {
		s.comment("%s applies Board.%s on the shard of id.", name, name)
		sRecv(f).Id(name).Params(ctxParam(), id("id").Add(s.idType()), id(arg).Add(valueType(op.Field, u))).Params(jen.Id("Written"), jen.Error()).Block(
			jen.Return(shardOf(id("id")).Dot(name).Call(ctx(), id("id"), id(arg))))
		f.Line()
		return
	}
	s.comment("%s applies Board.%s with one script call per shard that holds some of the updates, all at once, each shard's part atomic and in order; the Results are in the order of updates. A failed shard's call is resent as SetMany's is.", name, name)
	typ := jen.Id("Update").Types(valueType(op.Field, u))
	sRecv(f).Id(name).Params(ctxParam(), id("updates").Index().Add(typ)).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(rt("GatherBatch").Call(ctx(), sDot("ShardedBoard"), sDot("shards"), id("updates"), s.idOfItem(jen.Id("Update").Types(valueType(op.Field, u))), jen.Parens(jen.Op("*").Id("Board")).Dot(name))),
	)
	f.Line()
}

// countRange emits Count<Lead>Between: the shards' counts added up.
func (s *sharded) countRange(op catalog.Op) {
	name := op.Methods[0]
	lead := s.l.Fields[0]
	s.comment("%s returns the number of entries whose %s lies in [lo, hi]: Board.%s on every shard, all at once, added up.", name, lead.Name, name)
	sRecv(s.f).Id(name).Params(ctxParam(), jen.List(id("lo"), id("hi")).Add(goType(lead))).Params(jen.Int64(), jen.Error()).Block(
		sumOver(sDot("shards").Index(id("i")).Dot(name).Call(ctx(), id("lo"), id("hi"))),
	)
	s.f.Line()
}

// reshard emits ReshardProgress and Reshard, the migration to another shard count, over
// rankgenrt.ReshardShards.
func (s *sharded) reshard() {
	f := s.f
	s.comment("ReshardProgress is how far Reshard got: the source shard it copies and the cursor of the last entry it copied from that shard. The zero value is the start.")
	f.Type().Id("ReshardProgress").Op("=").Add(rt("ReshardProgress")).Types(jen.Id("Cursor"))
	f.Line()
	s.comment(`Reshard copies every entry of s into dst — the same board under another shard count (NewShardedBoard with the same key and another count names other keys) or another key — shard by shard, in keyset pages (Board.After) of pageSize entries, each stored in dst with one SetMany, and reports its progress after every page. Storing a page twice leaves dst as storing it once (SetMany replaces an id's entry), so a Reshard that stopped is resumed by calling it again from the last progress it returned or reported (or from the zero value): no entry is lost or doubled. At the end it checks that dst holds as many entries as s: a difference is an error matching ErrReshardDrift. Its limit: s must not be written during the copy (stop the writers, Reshard, then move readers and writers to dst and delete s's keys, Keys); a write to an entry already copied would be missing from dst.%s`, s.reshardDocExtra())
	sRecv(f).Id("Reshard").Params(ctxParam(), id("dst").Op("*").Id("ShardedBoard"), id("from").Id("ReshardProgress"), id("pageSize").Int64(), id("progress").Func().Params(jen.Id("ReshardProgress"))).Params(jen.Id("ReshardProgress"), jen.Error()).Block(
		jen.Return(rt("ReshardShards").Call(ctx(), sDot("ShardedBoard"), id("dst").Dot("ShardedBoard"), id("from"), id("pageSize"), id("progress"))),
	)
	f.Line()
}

// Change lists, the band reads and competition ranks: the ShardedBoard methods that route or
// merge like rankgenrt.ShardedBoard's reads, with a twist each.

// changes emits Update and UpdateMany: a change list goes to the shard of its id.
func (s *sharded) changes(op catalog.Op) {
	f := s.f
	f.Comment("Update applies Board.Update on the shard of id: one atomic script call.")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType()), id("changes").Op("...").Id("Change")).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(shardOf(id("id")).Dot(op.Methods[0]).Call(ctx(), id("id"), id("changes").Op("..."))))
	f.Line()
	s.comment("UpdateMany applies Board.UpdateMany with one script call per shard that holds some of the lists, all at once, each shard's part atomic and in order; the Results are in the order of lists. A failed shard's call is resent as SetMany's is.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), id("lists").Index().Id("Changes")).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(rt("GatherBatch").Call(ctx(), sDot("ShardedBoard"), sDot("shards"), id("lists"), s.idOfItem(jen.Id("Changes")), jen.Parens(jen.Op("*").Id("Board")).Dot(op.Methods[1]))),
	)
	f.Line()
}

// touch emits Touch and TouchMany: an id's touch goes to its shard.
func (s *sharded) touch(op catalog.Op) {
	f := s.f
	f.Comment("Touch applies Board.Touch on the shard of id: one atomic script call.")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(shardOf(id("id")).Dot(op.Methods[0]).Call(ctx(), id("id"))))
	f.Line()
	s.comment("TouchMany applies Board.TouchMany with one script call per shard that holds some of the ids, all at once, each shard's part atomic with one clock; the Results are in the order of ids. A failed shard's call is resent as SetMany's is.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), id("ids").Index().Add(s.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(rt("GatherBatch").Call(ctx(), sDot("ShardedBoard"), sDot("shards"), id("ids"), jen.Func().Params(id("x").Add(s.idType())).String().Block(jen.Return(s.idText(id("x")))),
			jen.Parens(jen.Op("*").Id("Board")).Dot(op.Methods[1]))),
	)
	f.Line()
}

// aroundScore emits AroundScore: rankgenrt.ShardAroundScore at the place (and, where the
// schema names its previous layout, at its form there, for shards that still hold it).
func (s *sharded) aroundScore(op catalog.Op) {
	f := s.f
	doc := "AroundScore returns, best first with their ranks, up to before entries that rank ahead of the place and up to after entries from it on, as Board.AroundScore does. Every shard runs the around_score script at the place in one pipelined round: of the window, a shard holds at most its last before entries ahead of the place and its first after from it, which is what it reads; the merge by Compare holds the window, and the shards' positions of the place add up to its position. A nil place is refused as Board.AroundScore refuses it."
	previous := jen.Code(jen.Nil())
	if s.replaces() {
		doc += " On shards still in the layout this one replaces, the place's form there is read, as Board.AroundScore reads it."
		previous = id("at").Dot("previousPlace")
	}
	s.comment("%s", doc)
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("at").Id("Place"), jen.List(id("before"), id("after")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.If(id("at").Op("==").Nil()).Block(jen.Return(sDot("shards").Index(jen.Lit(0)).Dot(op.Methods[0]).Call(ctx(), id("at"), id("before"), id("after"))).Comment("its error, nothing sent")),
		jen.Return(rt("ShardAroundScore").Call(ctx(), sDot("ShardedScoreReads"), id("at").Dot("place"), previous, id("before"), id("after"))),
	)
	f.Line()
}

// tiedPlace emits tiedPlace: the prefix of an entry's first tied score fields; and, where the
// schema names its previous layout, previousTiedPlace: the same prefix's place in that layout.
func (s *sharded) tiedPlace() {
	s.f.Comment("tiedPlace is the place before every entry whose first tied score fields equal e's (the\nShardedBoard's competition ranks, rankgenrt.ShardedScoreReads).")
	s.f.Func().Id("tiedPlace").Params(id("e").Id("Entry"), id("tied").Int()).Params(jen.Float64(), jen.String(), jen.Error()).Block(s.tiedSwitch("place"))
	s.f.Line()
	if s.replaces() {
		s.comment("previousTiedPlace is tiedPlace in the layout this one replaces, or why that layout has no such place exactly (its competition ranks on shards that still hold it).")
		s.f.Func().Id("previousTiedPlace").Params(id("e").Id("Entry"), id("tied").Int()).Params(jen.Float64(), jen.String(), jen.Error()).Block(s.tiedSwitch("previousPlace"))
		s.f.Line()
	}
}

// tiedSwitch returns, by tied, method (place or previousPlace) of the prefix of e's first tied
// score fields.
func (s *sharded) tiedSwitch(method string) jen.Code {
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
		cases = append(cases, c.Block(jen.Return(jen.Add(prefix).Dot(method).Call())))
	}
	return jen.Switch(id("tied")).Block(cases...)
}
