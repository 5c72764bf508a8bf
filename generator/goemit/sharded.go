package goemit

import (
	"slices"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// emitSharded adds the ShardedBoard to the file: one leaderboard over several Boards (its
// shards), each under its own hash tag. Its methods are thin: a write goes to the shard of its
// id (a batch to every shard it touches, at once), and a read asks every shard in one pipeline
// and merges the answers with runtime's layout-free machinery (rankgenrt.MergeSorted, Shares,
// Scatter, Pipe) and the layout's Compare.
func emitSharded(f *jen.File, c *codec) {
	s := &sharded{board: &board{l: c.l, f: f, c: c}, ops: catalog.Ops(c.l)}
	s.shardedType()
	s.constructor()
	s.seasons()
	for _, op := range s.ops {
		if op.Sharding != catalog.ShardPerShard {
			shardedEmitters[op.Kind](s, op)
		}
	}
	s.reshard()
	s.helpers()
	if slices.ContainsFunc(s.ops, func(op catalog.Op) bool { return op.Sharding == catalog.ShardWindows }) {
		s.windows()
	}
}

// shardedEmitters emits the ShardedBoard methods of each kind of operation the ShardedBoard
// performs (Op.Sharding): every kind but those read from the shards themselves
// (catalog.ShardPerShard; the type's comment says so). TestShardedEmitters fails on a kind
// that has an emitter it should not, or lacks one.
var shardedEmitters = map[catalog.Kind]func(*sharded, catalog.Op){
	catalog.Set:         (*sharded).set,
	catalog.Best:        (*sharded).best,
	catalog.Remove:      (*sharded).remove,
	catalog.Trim:        (*sharded).trim,
	catalog.Update:      (*sharded).update,
	catalog.Get:         (*sharded).get,
	catalog.Rank:        (*sharded).rank,
	catalog.Page:        (*sharded).page,
	catalog.Around:      (*sharded).around,
	catalog.After:       (*sharded).after,
	catalog.Count:       (*sharded).count,
	catalog.GetMany:     (*sharded).getMany,
	catalog.RankMany:    (*sharded).rankMany,
	catalog.Standing:    (*sharded).standing,
	catalog.CountRange:  (*sharded).countRange,
	catalog.Changes:     (*sharded).changes,
	catalog.Touch:       (*sharded).touch,
	catalog.CountBand:   (*sharded).countBand,
	catalog.Band:        (*sharded).band,
	catalog.AroundScore: (*sharded).aroundScore,
	catalog.Bottom:      (*sharded).bottom,
	catalog.Competition: (*sharded).competition,
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
func (s *sharded) op(k catalog.Kind) catalog.Op { return catalog.OpOf(s.ops, k) }

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
	s.f.Type().Id("ShardedBoard").Struct(
		jen.Id("c").Qual(redisPath, "UniversalClient"),
		jen.Id("shards").Index().Op("*").Id("Board").Comment("shard i holds the ids that rankgenrt.ShardOf maps to i"),
		jen.Id("tokens").Op("*").Add(rt("Tokens")).Comment("one per batch write, shared by its shards' scripts"),
	)
	s.f.Line()
}

// constructor declares NewShardedBoard and Shards, Keys, Load.
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
		id("s").Op(":=").Op("&").Id("ShardedBoard").Values(jen.Dict{
			id("c"):      id("c"),
			id("shards"): jen.Make(jen.Index().Op("*").Id("Board"), jen.Len(id("keys"))),
			id("tokens"): rt("NewTokens").Call(),
		}),
		jen.For(jen.List(id("i"), id("k")).Op(":=").Range().Id("keys")).Block(
			sDot("shards").Index(id("i")).Op("=").Id("NewBoard").Call(append(boardArgs, id("opts").Op("..."))...),
		),
		jen.Return(id("s"), jen.Nil()),
	)
	f.Line()
	s.comment("Shards returns the shards, in order: shard i holds the ids that rankgenrt.ShardOf maps to i. Each is a whole Board, for the reads a ShardedBoard does not merge.")
	sRecv(f).Id("Shards").Params().Index().Op("*").Id("Board").Block(
		jen.Return(jen.Append(jen.Index().Op("*").Id("Board").Values(), sDot("shards").Op("..."))))
	f.Line()
	f.Comment("Keys returns every key of every shard, shard by shard.")
	sRecv(f).Id("Keys").Params().Index().String().Block(
		jen.Var().Id("keys").Index().String(),
		jen.For(jen.List(jen.Id("_"), id("b")).Op(":=").Range().Add(sDot("shards"))).Block(
			id("keys").Op("=").Append(id("keys"), id("b").Dot("core").Dot("ScriptKeys").Call().Op("...")),
		),
		jen.Return(id("keys")),
	)
	f.Line()
	s.comment("Load caches the board's scripts on the server (on every master of a Cluster), as Board.Load does: the shards share them.")
	sRecv(f).Id("Load").Params(ctxParam()).Error().Block(
		jen.Return(jen.Id("library").Dot("Load").Call(ctx(), sDot("c"))))
	f.Line()
}

// set emits Set and SetMany.
func (s *sharded) set(op catalog.Op) {
	s.f.Comment("Set applies Board.Set on the shard of e's id.")
	s.writeOne(op)
	s.comment(`SetMany stores many entries with one script call per shard that holds some of them, all at once, and returns a Written per entry in the order of entries; each shard's part is atomic, and for an id given twice the last entry wins. It validates every entry first and writes nothing when one is invalid. When a shard's call fails, the other shards' parts stand; a failure with ErrUncertain carries the batch's token: resend the whole batch under it (rankgenrt.WithIdempotencyKey) and every shard's part is applied exactly once, each answering with its first reply.`)
	s.writeMany(op)
}

// writeOne emits op.Methods[0](ctx, e) on the shard of e's id.
func (s *sharded) writeOne(op catalog.Op) {
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("e").Id("Entry")).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(shardOf(id("e").Dot(s.l.IDName)).Dot(op.Methods[0]).Call(ctx(), id("e"))))
	s.f.Line()
}

// writeMany emits op.Methods[1](ctx, entries): each shard's part through the Board's method.
func (s *sharded) writeMany(op catalog.Op) {
	sRecv(s.f).Id(op.Methods[1]).Params(ctxParam(), id("entries").Index().Id("Entry")).Params(jen.Index().Id("Written"), jen.Error()).Block(
		jen.If(jen.Err().Op(":=").Add(s.encodable()).Call(id("entries")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(ctx(), jen.Err()).Op(":=").Add(sDot("batch").Call(ctx())),
		retErr(jen.Nil()),
		jen.Return(id("gatherBatch").Call(ctx(), id("s"), id("entries"), s.idOfItem(jen.Id("Entry")), jen.Parens(jen.Op("*").Id("Board")).Dot(op.Methods[1]))),
	)
	s.f.Line()
}

// idAt is func(i int) string { return <items>[i].<id> as text } (or <items>[i] when field is "-").
func (s *sharded) idAt(items, field string) jen.Code {
	v := id(items).Index(id("i"))
	if field != "-" {
		v = v.Dot(s.l.IDName)
	}
	return jen.Func().Params(id("i").Int()).String().Block(jen.Return(s.idText(v)))
}

// shardCall is func(ctx context.Context, b *Board, at []int) error { body }: a shard's part of
// rankgenrt.ScatterItems.
func (s *sharded) shardCall(body ...jen.Code) jen.Code {
	return jen.Func().Params(ctxParam(), id("b").Op("*").Id("Board"), id("at").Index().Int()).Error().Block(body...)
}

// best emits Best and BestMany.
func (s *sharded) best(op catalog.Op) {
	s.f.Comment("Best applies Board.Best on the shard of e's id.")
	s.writeOne(op)
	s.comment("BestMany applies Board.BestMany with one script call per shard that holds some of the entries, all at once, and returns a Written per entry in the order of entries. It validates every entry first and writes nothing when one is invalid; a failed shard's call is resent as SetMany's is.")
	s.writeMany(op)
}

// idOfItem is func(x <typ>) string { return <x.<id> as text> }.
func (s *sharded) idOfItem(typ jen.Code) jen.Code {
	return jen.Func().Params(id("x").Add(typ)).String().Block(jen.Return(s.idText(id("x").Dot(s.l.IDName))))
}

// checkIDs refuses an invalid id among ids before anything is sent (string ids only).
func (s *sharded) checkIDs(ret ...jen.Code) jen.Code {
	if s.l.IDType == layout.IDUint64 {
		return jen.Null()
	}
	return jen.For(jen.List(jen.Id("_"), id("id")).Op(":=").Range().Id("ids")).Block(s.checkIDReturn(ret...))
}

// remove emits Remove.
func (s *sharded) remove(op catalog.Op) {
	f := s.f
	invalid := ""
	if s.l.IDType == layout.IDString {
		invalid = " An invalid id fails the call before anything is sent."
	}
	s.comment("Remove deletes the entries of the given ids, with one script call per shard that holds some of them, all at once, and returns how many there were.%s", invalid)
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("ids").Op("...").Add(s.idType())).Params(jen.Int64(), jen.Error()).Block(
		s.checkIDs(jen.Lit(0)),
		jen.List(ctx(), jen.Err()).Op(":=").Add(sDot("batch").Call(ctx())),
		retErr(jen.Lit(0)),
		jen.Var().Id("removed").Qual("sync/atomic", "Int64"),
		jen.Err().Op("=").Add(rt("ScatterItems").Call(ctx(), sDot("shards"), jen.Len(id("ids")), s.idAt("ids", "-"), s.shardCall(
			jen.List(id("n"), jen.Err()).Op(":=").Id("b").Dot(op.Methods[0]).Call(ctx(), rt("Pick").Call(id("ids"), id("at")).Op("...")),
			id("removed").Dot("Add").Call(id("n")),
			jen.Return(jen.Err()),
		))),
		jen.Return(id("removed").Dot("Load").Call(), jen.Err()),
	)
	f.Line()
}

// trim emits Trim: the global cut, then one trim per shard.
func (s *sharded) trim(op catalog.Op) {
	f := s.f
	s.comment(`Trim keeps the board's first keep entries, across all shards, removes all below them and returns how many it removed. It reads the first keep entries of every shard (one pipelined round, as Page does) to learn how many of each shard's entries are among the board's first keep, then trims every shard to its share with one script each, all at once. Each shard's trim is atomic; a write that lands between the two rounds may move the cut by that write, and the board never keeps more than keep entries.`)
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("keep").Int64()).Params(jen.Int64(), jen.Error()).Block(
		jen.If(id("keep").Op("<").Lit(0)).Block(jen.Return(jen.Lit(0), rt("IntRangeError").Call(jen.Lit("keep"), id("keep"), jen.Lit(0), jen.Qual("math", "MaxInt64")))),
		id("shares").Op(":=").Make(jen.Index().Int64(), jen.Len(sDot("shards"))),
		jen.If(id("keep").Op(">").Lit(0)).Block(
			jen.List(id("heads"), jen.Err()).Op(":=").Add(s.trimHeads()),
			retErr(jen.Lit(0)),
			id("shares").Op("=").Add(rt("Shares")).Call(id("heads"), id("keep"), id("compareRanked")),
		),
		jen.List(ctx(), jen.Err()).Op(":=").Add(sDot("batch").Call(ctx())),
		retErr(jen.Lit(0)),
		sumOver(sDot("shards").Index(id("i")).Dot(op.Methods[0]).Call(ctx(), id("shares").Index(id("i")))),
	)
	f.Line()
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
		jen.Return(id("gatherBatch").Call(ctx(), id("s"), id("updates"), s.idOfItem(jen.Id("Update").Types(valueType(op.Field, u))), jen.Parens(jen.Op("*").Id("Board")).Dot(name))),
	)
	f.Line()
}

// get emits Get.
func (s *sharded) get(op catalog.Op) {
	s.f.Comment("Get returns the entry of id from its shard, or an error matching ErrNotFound.")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Id("Entry"), jen.Error()).Block(
		jen.Return(shardOf(id("id")).Dot(op.Methods[0]).Call(ctx(), id("id"))))
	s.f.Line()
}

// rank emits Rank.
func (s *sharded) rank(op catalog.Op) {
	s.comment("Rank returns the 1-based position of the entry of id among all shards, or an error matching ErrNotFound: the entry from its shard, then, in one pipelined round, how many entries of every shard rank ahead of it: greater scores (ZCOUNT, O(log n)) and equal scores with greater members (the run of equal scores).")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.List(id("pos"), jen.Id("_"), jen.Err()).Op(":=").Add(sDot("standing").Call(ctx(), id("id"), jen.False())),
		retErr(jen.Lit(0)),
		jen.Return(id("pos").Op("+").Lit(1), jen.Nil()),
	)
	s.f.Line()
}

// page emits Top and Page.
func (s *sharded) page(op catalog.Op) {
	f := s.f
	f.Comment("Top returns the first n entries of the board, best first.")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("n").Int64()).Params(ranked(), jen.Error()).Block(
		jen.Return(sDot("Page").Call(ctx(), jen.Lit(0), id("n"))))
	f.Line()
	s.comment("Page returns limit entries from the 0-based position offset, best first. Every shard reads its first offset + limit entries, in one pipelined round, and they are merged by Compare: the cost grows with offset, so page deep boards with After.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), jen.List(id("offset"), id("limit")).Int64()).Params(ranked(), jen.Error()).Block(
		refuseNegativeOffset(),
		jen.If(id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		id("n").Op(":=").Id("offset").Op("+").Id("limit"),
		jen.If(id("n").Op("<").Id("offset")).Block(id("n").Op("=").Qual("math", "MaxInt64").Comment("offset + limit overflows: to the end")),
		jen.List(id("heads"), jen.Err()).Op(":=").Add(sDot("heads").Call(ctx(), id("n"))),
		retErr(jen.Nil()),
		id("merged").Op(":=").Add(rt("MergeSorted")).Call(id("heads"), id("n"), id("compareRanked")),
		jen.Return(id("renumber").Call(id("merged").Index(jen.Min(id("offset"), jen.Int64().Call(jen.Len(id("merged")))).Op(":")), id("offset")), jen.Nil()),
	)
	f.Line()
}

// around emits Around and AroundFilled.
func (s *sharded) around(op catalog.Op) {
	f := s.f
	s.comment("Around returns the entry of id with up to before entries ahead of it and after entries behind it, as Board.Around does, or an error matching ErrNotFound. It takes three rounds: the entry, its position (as Rank), then the window's part of every shard, pipelined.")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType()), jen.List(id("before"), id("after")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.Return(sDot("around").Call(ctx(), id("id"), id("before"), id("after"), jen.False())))
	f.Line()
	s.comment("AroundFilled is Around with the window kept whole at the ends of the board, as Board.AroundFilled does.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), id("id").Add(s.idType()), jen.List(id("before"), id("after")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.Return(sDot("around").Call(ctx(), id("id"), id("before"), id("after"), jen.True())))
	f.Line()
	s.comment("around reads the window around the entry of id, at position r. Of the entries ahead of it in the window, a shard holds at most r-start, the last of those it has ahead of the entry; of those behind, at most stop-r, the first after them: each shard reads that range, and the merge holds the window.")
	sRecv(f).Id("around").Params(ctxParam(), id("id").Add(s.idType()), jen.List(id("before"), id("after")).Int64(), id("fill").Bool()).Params(ranked(), jen.Error()).Block(
		jen.List(id("e"), jen.Err()).Op(":=").Add(shardOf(id("id")).Dot("Get").Call(ctx(), id("id"))),
		retErr(jen.Nil()),
		jen.List(id("cur"), jen.Err()).Op(":=").Id("cursorOf").Call(id("e")),
		retErr(jen.Nil()),
		jen.List(id("ahead"), id("count"), jen.Err()).Op(":=").Add(sDot("ahead").Call(ctx(), id("cur"), jen.True())),
		retErr(jen.Nil()),
		id("r").Op(":=").Add(rt("Sum")).Call(id("ahead")).Comment("the entry's 0-based position"),
		jen.List(id("start"), id("stop")).Op(":=").Add(rt("AroundBounds")).Call(id("r"), jen.Max(id("before"), jen.Lit(0)), jen.Max(id("after"), jen.Lit(0)), id("count"), id("fill")),
		jen.List(id("parts"), jen.Err()).Op(":=").Add(sDot("ranges").Call(ctx(), jen.Func().Params(id("i").Int()).Params(jen.Int64(), jen.Int64()).Block(
			jen.Return(jen.Max(jen.Lit(0), id("ahead").Index(id("i")).Op("-").Parens(id("r").Op("-").Id("start"))), id("ahead").Index(id("i")).Op("+").Parens(id("stop").Op("-").Id("r"))),
		))),
		retErr(jen.Nil()),
		id("merged").Op(":=").Add(rt("MergeSorted")).Call(id("parts"), jen.Lit(-1), id("compareRanked")),
		id("k").Op(":=").Qual("slices", "IndexFunc").Call(id("merged"), jen.Func().Params(id("x").Id("Ranked")).Bool().Block(
			jen.Return(jen.Id("Compare").Call(id("x").Dot("Entry"), id("e")).Op("==").Lit(0)))),
		jen.If(id("k").Op("<").Lit(0)).Block(jen.Return(jen.Nil(), rt("NotFound").Call(s.idText(id("id")))).Comment("removed between the rounds")),
		id("lo").Op(":=").Max(jen.Lit(0), id("k").Op("-").Int().Call(id("r").Op("-").Id("start"))),
		id("hi").Op(":=").Min(jen.Len(id("merged")), id("k").Op("+").Int().Call(id("stop").Op("-").Id("r")).Op("+").Lit(1)),
		jen.Return(id("renumber").Call(id("merged").Index(id("lo").Op(":").Id("hi")), id("r").Op("-").Int64().Call(id("k").Op("-").Id("lo"))), jen.Nil()),
	)
	f.Line()
}

// after emits After.
func (s *sharded) after(op catalog.Op) {
	s.comment("After returns up to limit entries that rank after the cursor, best first, and the cursor of the last one (the same cursor when there are none), as Board.After does: every shard's after script runs from the cursor, in one pipelined round, and the pages merge by Compare; an entry's rank is its shard-summed position. A cursor whose score is NaN is refused (ErrBadScore) before anything is sent.")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("cur").Id("Cursor"), id("limit").Int64()).Params(ranked(), jen.Id("Cursor"), jen.Error()).Block(
		jen.If(jen.Qual("math", "IsNaN").Call(id("cur").Dot("Score"))).Block(
			jen.Return(jen.Nil(), id("cur"), rt("BadScore").Call(id("cur").Dot("Score"), jen.Lit("a cursor's score is a number, never NaN")))),
		jen.List(id("starts"), id("pages"), jen.Err()).Op(":=").Add(sDot("afterAll").Call(ctx(), id("cur"), id("limit"))),
		retErr(jen.Nil(), id("cur")),
		id("page").Op(":=").Id("renumber").Call(rt("MergeSorted").Call(id("pages"), id("limit"), id("compareRanked")), rt("Sum").Call(id("starts"))),
		jen.If(jen.Len(id("page")).Op("==").Lit(0)).Block(jen.Return(id("page"), id("cur"), jen.Nil())),
		jen.List(id("next"), jen.Err()).Op(":=").Id("cursorOf").Call(id("page").Index(jen.Len(id("page")).Op("-").Lit(1)).Dot("Entry")),
		retErr(jen.Nil(), id("cur")),
		jen.Return(id("page"), id("next"), jen.Nil()),
	)
	s.f.Line()
}

// count emits Count.
func (s *sharded) count(op catalog.Op) {
	s.f.Comment("Count returns the number of entries of all shards, read in one pipelined round.")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam()).Params(jen.Int64(), jen.Error()).Block(
		jen.List(id("cmds"), jen.Err()).Op(":=").Add(sDot("readAll").Call(ctx(), jen.Func().Params(id("c").Add(rd("Cmdable")), jen.Id("_").Int(), id("key").String()).Add(rd("Cmder")).Block(
			jen.Return(id("c").Dot("ZCard").Call(ctx(), id("key"))),
		))),
		retErr(jen.Lit(0)),
		jen.Var().Id("n").Int64(),
		jen.For(jen.List(jen.Id("_"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.List(id("k"), jen.Err()).Op(":=").Id("cmd").Assert(jen.Op("*").Add(rd("IntCmd"))).Dot("Result").Call(),
			retErr(jen.Lit(0)),
			id("n").Op("+=").Id("k"),
		),
		jen.Return(id("n"), jen.Nil()),
	)
	s.f.Line()
}

// getMany emits GetMany.
func (s *sharded) getMany(op catalog.Op) {
	invalid := ""
	if s.l.IDType == layout.IDString {
		invalid = " An invalid id fails the whole call before anything is sent."
	}
	s.comment("GetMany returns a Result per id in the order given, as Board.GetMany does, with one script call per shard that holds some of the ids, all at once.%s", invalid)
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("ids").Op("...").Add(s.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(
		s.checkIDs(jen.Nil()),
		jen.Return(rt("Gather").Call(ctx(), sDot("shards"), id("ids"), jen.Func().Params(id("id").Add(s.idType())).String().Block(jen.Return(s.idText(id("id")))),
			jen.Func().Params(id("b").Op("*").Id("Board"), ctxParam(), id("ids").Index().Add(s.idType())).Params(jen.Index().Id("Result"), jen.Error()).Block(
				jen.Return(id("b").Dot(op.Methods[0]).Call(ctx(), id("ids").Op("..."))),
			))),
	)
	s.f.Line()
}

// rankMany emits RankMany.
func (s *sharded) rankMany(op catalog.Op) {
	s.comment("RankMany returns the 1-based rank of each id in the order given, 0 for an id without an entry, in two rounds: the entries (GetMany), then one pipelined round in which every shard counts the entries ahead of each of them (ids × shards after-script calls).")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("ids").Op("...").Add(s.idType())).Params(jen.Index().Int64(), jen.Error()).Block(
		jen.List(id("found"), jen.Err()).Op(":=").Add(sDot("GetMany").Call(ctx(), id("ids").Op("..."))),
		retErr(jen.Nil()),
		id("pipe").Op(":=").Add(rt("NewPipe")).Call(sDot("c")),
		id("calls").Op(":=").Make(jen.Index().Index().Op("*").Add(rd("Cmd")), jen.Len(id("found"))),
		jen.For(jen.List(id("i"), id("r")).Op(":=").Range().Id("found")).Block(
			jen.If(id("r").Dot("Err").Op("!=").Nil()).Block(jen.Continue().Comment("no entry: rank 0")),
			jen.List(id("cur"), jen.Err()).Op(":=").Id("cursorOf").Call(id("r").Dot("Entry")),
			retErr(jen.Nil()),
			id("calls").Index(id("i")).Op("=").Add(sDot("queueAfter").Call(ctx(), id("pipe"), id("cur"), jen.Lit(0))),
		),
		id("pipe").Dot("Exec").Call(ctx()),
		id("ranks").Op(":=").Make(jen.Index().Int64(), jen.Len(id("ids"))),
		jen.For(jen.List(id("i"), id("cmds")).Op(":=").Range().Id("calls")).Block(
			jen.For(jen.List(jen.Id("_"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
				jen.List(id("v"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
				retErr(jen.Nil()),
				jen.List(id("start"), jen.Id("_"), jen.Err()).Op(":=").Add(reader(s.op(catalog.After), id("v"))),
				retErr(jen.Nil()),
				id("ranks").Index(id("i")).Op("+=").Id("start").Comment("the entry's own shard counts it: the sum is 1-based"),
			),
		),
		jen.Return(id("ranks"), jen.Nil()),
	)
	s.f.Line()
}

// standing emits Percentile, PageOf and standing.
func (s *sharded) standing(op catalog.Op) {
	f := s.f
	s.comment("Percentile returns the share of the board's entries that rank behind the entry of id, in percent, as Board.Percentile does, or an error matching ErrNotFound. Its position and the board's size are read in the same pipelined round.")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Float64(), jen.Error()).Block(
		jen.List(id("pos"), id("count"), jen.Err()).Op(":=").Add(sDot("standing").Call(ctx(), id("id"), jen.True())),
		retErr(jen.Lit(0)),
		jen.Return(jen.Lit(100).Op("*").Float64().Call(id("count").Op("-").Lit(1).Op("-").Id("pos")).Op("/").Float64().Call(id("count")), jen.Nil()),
	)
	f.Line()
	s.comment("PageOf returns the 1-based page of pageSize entries that holds the entry of id (Page(ctx, (page-1)*pageSize, pageSize) returns it), or an error matching ErrNotFound; a pageSize below 1 is an error matching ErrOutOfRange.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), id("id").Add(s.idType()), id("pageSize").Int64()).Params(jen.Int64(), jen.Error()).Block(
		jen.If(id("pageSize").Op("<").Lit(1)).Block(jen.Return(jen.Lit(0), rt("IntRangeError").Call(jen.Lit("pageSize"), id("pageSize"), jen.Lit(1), jen.Qual("math", "MaxInt64")))),
		jen.List(id("pos"), jen.Id("_"), jen.Err()).Op(":=").Add(sDot("standing").Call(ctx(), id("id"), jen.False())),
		retErr(jen.Lit(0)),
		jen.Return(id("pos").Op("/").Id("pageSize").Op("+").Lit(1), jen.Nil()),
	)
	f.Line()
	s.comment("standing reads the 0-based position of the entry of id among all shards and, when sized, the number of entries: the entry from its shard, then every shard's count of the entries ahead of it, and its size, in one pipelined round (ahead).")
	sRecv(f).Id("standing").Params(ctxParam(), id("id").Add(s.idType()), id("sized").Bool()).Params(jen.List(id("pos"), id("count")).Int64(), jen.Err().Error()).Block(
		jen.List(id("e"), jen.Err()).Op(":=").Add(shardOf(id("id")).Dot("Get").Call(ctx(), id("id"))),
		retErr(jen.Lit(0), jen.Lit(0)),
		jen.List(id("cur"), jen.Err()).Op(":=").Id("cursorOf").Call(id("e")),
		retErr(jen.Lit(0), jen.Lit(0)),
		jen.List(id("ahead"), id("count"), jen.Err()).Op(":=").Add(sDot("ahead").Call(ctx(), id("cur"), id("sized"))),
		retErr(jen.Lit(0), jen.Lit(0)),
		jen.Return(rt("Sum").Call(id("ahead")), id("count"), jen.Nil()),
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
// rankgenrt.Reshard.
func (s *sharded) reshard() {
	f := s.f
	s.comment("ReshardProgress is how far Reshard got: the source shard it copies and the cursor of the last entry it copied from that shard. The zero value is the start.")
	f.Type().Id("ReshardProgress").Op("=").Add(rt("ReshardProgress")).Types(jen.Id("Cursor"))
	f.Line()
	s.comment(`Reshard copies every entry of s into dst — the same board under another shard count (NewShardedBoard with the same key and another count names other keys) or another key — shard by shard, in keyset pages (Board.After) of pageSize entries, each stored in dst with one SetMany, and reports its progress after every page. Storing a page twice leaves dst as storing it once (SetMany replaces an id's entry), so a Reshard that stopped is resumed by calling it again from the last progress it returned or reported (or from the zero value): no entry is lost or doubled. At the end it checks that dst holds as many entries as s: a difference is an error matching ErrReshardDrift. Its limit: s must not be written during the copy (stop the writers, Reshard, then move readers and writers to dst and delete s's keys, Keys); a write to an entry already copied would be missing from dst.%s`, s.reshardDocExtra())
	sRecv(f).Id("Reshard").Params(ctxParam(), id("dst").Op("*").Id("ShardedBoard"), id("from").Id("ReshardProgress"), id("pageSize").Int64(), id("progress").Func().Params(jen.Id("ReshardProgress"))).Params(jen.Id("ReshardProgress"), jen.Error()).Block(
		jen.Return(rt("Reshard").Call(ctx(), jen.Len(sDot("shards")), id("from"), id("pageSize"), sDot("entriesAfter"), jen.Func().Params(ctxParam(), id("entries").Index().Id("Entry")).Error().Block(
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("dst").Dot("SetMany").Call(ctx(), id("entries")),
			jen.Return(jen.Err())), id("progress"), sDot("Count"), id("dst").Dot("Count"))),
	)
	f.Line()
	f.Comment("entriesAfter reads shard i's entries after cur, up to n, and the cursor of the last (Board.After).")
	sRecv(f).Id("entriesAfter").Params(ctxParam(), id("i").Int(), id("cur").Id("Cursor"), id("n").Int64()).Params(jen.Index().Id("Entry"), jen.Id("Cursor"), jen.Error()).Block(
		jen.List(id("page"), id("next"), jen.Err()).Op(":=").Add(sDot("shards").Index(id("i")).Dot("After").Call(ctx(), id("cur"), id("n"))),
		id("entries").Op(":=").Make(jen.Index().Id("Entry"), jen.Len(id("page"))),
		jen.For(jen.List(id("j"), id("r")).Op(":=").Range().Id("page")).Block(id("entries").Index(id("j")).Op("=").Id("r").Dot("Entry")),
		jen.Return(id("entries"), id("next"), jen.Err()),
	)
	f.Line()
}

// Change lists, the band reads, pages from the end and competition ranks: the ShardedBoard
// methods that route or merge like the reads above, with a twist each.

// changes emits Update and UpdateMany: a change list goes to the shard of its id.
func (s *sharded) changes(op catalog.Op) {
	f := s.f
	f.Comment("Update applies Board.Update on the shard of id: one atomic script call.")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType()), id("changes").Op("...").Id("Change")).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(shardOf(id("id")).Dot(op.Methods[0]).Call(ctx(), id("id"), id("changes").Op("..."))))
	f.Line()
	s.comment("UpdateMany applies Board.UpdateMany with one script call per shard that holds some of the lists, all at once, each shard's part atomic and in order; the Results are in the order of lists. A failed shard's call is resent as SetMany's is.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), id("lists").Index().Id("Changes")).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Return(id("gatherBatch").Call(ctx(), id("s"), id("lists"), s.idOfItem(jen.Id("Changes")), jen.Parens(jen.Op("*").Id("Board")).Dot(op.Methods[1]))),
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
		jen.Return(id("gatherBatch").Call(ctx(), id("s"), id("ids"), jen.Func().Params(id("x").Add(s.idType())).String().Block(jen.Return(s.idText(id("x")))),
			jen.Parens(jen.Op("*").Id("Board")).Dot(op.Methods[1]))),
	)
	f.Line()
}

// countBand emits CountBetween: the shards' counts added up.
func (s *sharded) countBand(op catalog.Op) {
	s.comment("CountBetween returns the number of entries in the band: Board.CountBetween on every shard (one ZCOUNT each, O(log n)), all at once, added up.")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("band").Id("Band")).Params(jen.Int64(), jen.Error()).Block(
		sumOver(sDot("shards").Index(id("i")).Dot(op.Methods[0]).Call(ctx(), id("band"))),
	)
	s.f.Line()
}

// band emits Between: every shard's band script from 0 to offset + limit, merged.
func (s *sharded) band(op catalog.Op) {
	s.comment("Between returns, best first with their ranks, up to limit entries of the band, skipping offset of them, as Board.Between does. Every shard runs the band script in one pipelined round: it counts its entries ahead of the band (their sum is the band's first position) and reads its first offset + limit entries of the band, which merge by Compare. The cost grows with offset: O(shards × (log n + offset + limit)).")
	sRecv(s.f).Id(op.Methods[0]).Params(ctxParam(), id("band").Id("Band"), jen.List(id("offset"), id("limit")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.If(id("band").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), id("band").Dot("err"))),
		refuseNegativeOffset(),
		jen.If(id("band").Dot("lo").Op(">=").Id("band").Dot("hi").Op("||").Id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		id("n").Op(":=").Id("offset").Op("+").Id("limit"),
		jen.If(id("n").Op("<").Id("offset")).Block(id("n").Op("=").Qual("math", "MaxInt64").Comment("offset + limit overflows: to the end")),
		jen.List(id("ahead"), id("parts"), jen.Err()).Op(":=").Add(sDot("windows").Call(ctx(), id(op.Function()),
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
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("at").Id("Place"), jen.List(id("before"), id("after")).Int64()).Params(ranked(), jen.Error()).Block(
		jen.If(id("at").Op("==").Nil()).Block(jen.Return(sDot("shards").Index(jen.Lit(0)).Dot(op.Methods[0]).Call(ctx(), id("at"), id("before"), id("after"))).Comment("its error, nothing sent")),
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
		jen.List(id("starts"), id("parts"), jen.Err()).Op(":=").Add(sDot("windows").Call(ctx(), id(op.Function()), rt("FormatScore").Call(id("score")), id("member"), id("before"), id("after"))),
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
			id("cmds").Index(id("i")).Op("=").Id("pipe").Dot("CallRO").Call(ctx(), id("script"), id("b").Dot("core").Dot("ScriptKeys").Call(), id("args").Op("...")),
		),
		id("pipe").Dot("Exec").Call(ctx()),
		id("counts").Op(",").Id("parts").Op("=").Make(jen.Index().Int64(), jen.Len(sDot("shards"))).Op(",").Make(jen.Index().Index().Id("Ranked"), jen.Len(sDot("shards"))),
		jen.For(jen.List(id("i"), id("cmd")).Op(":=").Range().Id("cmds")).Block(
			jen.List(id("v"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
			retErr(jen.Nil(), jen.Nil()),
			jen.List(id("n"), id("ps"), jen.Err()).Op(":=").Add(rt("Window").Call(id("v"))),
			retErr(jen.Nil(), jen.Nil()),
			id("counts").Index(id("i")).Op("=").Id("n"),
			jen.If(jen.List(id("parts").Index(id("i")), jen.Err()).Op("=").Id("decoding").Dot("RankedAt").Call(jen.Lit(0), id("ps")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Nil(), jen.Err())),
		),
		jen.Return(id("counts"), id("parts"), jen.Nil()),
	)
	s.f.Line()
}

// bottom emits Bottom and PageFromEnd: every shard's last entries and size, merged.
func (s *sharded) bottom(op catalog.Op) {
	f := s.f
	f.Comment("Bottom returns the last n entries, best first (the board's last entry last).")
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("n").Int64()).Params(ranked(), jen.Error()).Block(
		jen.Return(sDot("PageFromEnd").Call(ctx(), jen.Lit(0), id("n"))))
	f.Line()
	s.comment("PageFromEnd returns up to limit entries that end offset entries before the end of the board, best first, with their ranks, as Board.PageFromEnd does. Every shard reads its last offset + limit entries and its size in one pipelined round; the board's last offset + limit entries are the last of their merge by Compare. The cost grows with offset, as Page's does.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), jen.List(id("offset"), id("limit")).Int64()).Params(ranked(), jen.Error()).Block(
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
			jen.If(jen.List(id("lists").Index(id("i")), jen.Err()).Op("=").Id("decoding").Dot("RankedAt").Call(jen.Lit(0), rt("ZPairs").Call(id("zs"))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Lit(0), jen.Err())),
		),
		jen.Return(id("lists"), id("count"), jen.Nil()),
	)
	f.Line()
}

// competition emits CompetitionRank, CompetitionRankTuple, competition and tiedPlace.
func (s *sharded) competition(op catalog.Op) {
	f := s.f
	lead := s.l.Fields[0].Name
	s.comment("CompetitionRank returns 1 + the number of entries of all shards with a better %s than the entry of id, as Board.CompetitionRank does, or an error matching ErrNotFound: the entry from its shard, then every shard's count of the entries better on %s (one ZCOUNT each), pipelined, added up.", lead, lead)
	sRecv(f).Id(op.Methods[0]).Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(sDot("competition").Call(ctx(), id("id"), jen.Lit(1))))
	f.Line()
	s.comment("CompetitionRankTuple is CompetitionRank on the whole score, as Board.CompetitionRankTuple is: 1 + the number of entries of all shards whose score fields rank before the entry of id.")
	sRecv(f).Id(op.Methods[1]).Params(ctxParam(), id("id").Add(s.idType())).Params(jen.Int64(), jen.Error()).Block(
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
