package goemit

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// seasonFamily declares what a periodic layout does across all the boards of its seasons:
// the rollups (RollupField, RollupOp, RollupSpec, Seasons.Rollup) when the layout has fields a
// rollup can combine, and Seasons.RemoveEverywhere (and RemoveEverywhereSharded on a sharded
// layout).
func (b *board) seasonFamily() {
	ops := catalog.SeasonScripts(b.l)
	op := func(name string) catalog.Op {
		return ops[slices.IndexFunc(ops, func(o catalog.Op) bool { return o.Name == name })]
	}
	rollup := len(catalog.RollupFields(b.l)) > 0
	if rollup {
		b.rollupTypes()
		b.rollup(op(catalog.RollupScript))
		b.cachedRollups()
	}
	b.removeEverywhere(rollup)
	if b.l.Sharded {
		b.removeEverywhereSharded(rollup)
	}
	b.removeFrom(op(catalog.RemoveEverywhere))
}

// rollupTypes declares RollupField and its constants (each a field's 1-based index, which the
// rollup script takes), RollupOp and its constants, and RollupSpec.
func (b *board) rollupTypes() {
	f := b.f
	fields := catalog.RollupFields(b.l)
	b.comment("RollupField is a field that Seasons.Rollup combines across seasons: an integer field (uint or int) whose values stay below 2^53 in magnitude, so the server adds them exactly.%s", rollupLeftOut(b.l))
	f.Type().Id("RollupField").Int()
	f.Line()
	f.Comment("The fields a rollup combines.")
	var consts []jen.Code
	names := jen.Dict{}
	for _, fd := range fields {
		name := "Rollup" + fd.Name
		consts = append(consts, jen.Id(name).Id("RollupField").Op("=").Lit(slices.Index(b.l.Fields, fd)+1))
		names[jen.Id(name)] = jen.Lit(fd.Name)
	}
	f.Const().Defs(consts...)
	f.Line()
	f.Comment("rollupFieldNames names each RollupField as the schema does.")
	f.Var().Id("rollupFieldNames").Op("=").Map(jen.Id("RollupField")).String().Values(names)
	f.Line()
	f.Comment("String returns the field's name in the schema.")
	f.Func().Params(jen.Id("r").Id("RollupField")).Id("String").Params().String().Block(
		jen.If(jen.List(jen.Id("name"), jen.Id("ok")).Op(":=").Id("rollupFieldNames").Index(jen.Id("r")), jen.Id("ok")).Block(jen.Return(jen.Id("name"))),
		jen.Return(jen.Lit("RollupField(").Op("+").Qual("strconv", "Itoa").Call(jen.Int().Call(jen.Id("r"))).Op("+").Lit(")")),
	)
	f.Line()
	f.Comment("RollupOp is how a rollup combines an id's values of the field: RollupSum, RollupMax or RollupMin.")
	f.Type().Id("RollupOp").Op("=").Add(rt("RollupOp"))
	f.Line()
	f.Comment("The rollup operations: the exact sum (a sum outside the field's range is refused with rankgenrt.ErrOverflow, never clamped), the largest value, the smallest.")
	f.Const().Defs(
		jen.Id("RollupSum").Op("=").Add(rt("RollupSum")),
		jen.Id("RollupMax").Op("=").Add(rt("RollupMax")),
		jen.Id("RollupMin").Op("=").Add(rt("RollupMin")),
	)
	f.Line()
	b.comment("RollupSpec says what Seasons.Rollup combines: Field by Op over the Last seasons up to Newest (the zero Season: the current one), cached for TTL.")
	f.Type().Id("RollupSpec").Struct(
		jen.Id("Field").Id("RollupField"),
		jen.Id("Op").Id("RollupOp"),
		jen.Id("Last").Int().Comment("how many seasons: Newest and the Last-1 before it, 1 to keepSeasons+1"),
		jen.Id("Newest").Id("Season").Comment("the newest season; the zero Season is the current one"),
		jen.Id("TTL").Qual("time", "Duration").Comment("how long the built rollup is reused: whole milliseconds, at least one"),
	)
	f.Line()
}

// rollup emits Seasons.Rollup, which runs op (the rollup script) over the seasons' boards.
func (b *board) rollup(op catalog.Op) {
	f := b.f
	fields := catalog.RollupFields(b.l)
	first, last := "Rollup"+fields[0].Name, "Rollup"+fields[len(fields)-1].Name
	spec := func(name string) *jen.Statement { return jen.Id("spec").Dot(name) }
	rangeErr := func(field string, value jen.Code, min, max string) jen.Code {
		return jen.Return(jen.Nil(), jen.Op("&").Add(rt("RangeError")).Values(jen.Dict{
			jen.Id("Field"): jen.Lit(field), jen.Id("Value"): value, jen.Id("Min"): jen.Lit(min), jen.Id("Max"): jen.Lit(max)}))
	}
	b.comment("Rollup returns the board of spec.Field combined by spec.Op over the last spec.Last seasons up to spec.Newest: an id's entry is its entry (with its data, on a layout with data) of the newest of those seasons that holds it, with the field replaced by the sum, the largest or the smallest of its values in the seasons that hold it (a season without the id counts for nothing). The server builds it in one script from the seasons' packed entries, exactly (a sum outside the field's range fails with rankgenrt.ErrOverflow and writes nothing), into a board of this layout under <base>:rollup:<field>:<op>:<last>:<newest ID> that expires after spec.TTL; every Rollup of the same spec until then returns that cached board without reading the seasons again, and a rebuild replaces it atomically. The returned Board reads it (Top, Page, Rank, Around, ...); once the TTL has passed its key is gone and it reads as empty, so call Rollup before each read (within the TTL, one script call that finds the cache). On a Cluster the seasons' keys must share a hash slot (a base with a hash tag, \"{lb}:weekly\"), else Rollup returns rankgenrt.ErrCrossSlot and sends nothing.")
	seasonsRecv(f).Id("Rollup").Params(ctxParam(), jen.Id("spec").Id("RollupSpec")).Params(jen.Op("*").Id("Board"), jen.Error()).Block(
		jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("rollupFieldNames").Index(spec("Field")), jen.Op("!").Id("ok")).Block(
			rangeErr("RollupSpec.Field", spec("Field").Dot("String").Call(), first, last)),
		jen.If(spec("Op").Op("<").Id("RollupSum").Op("||").Add(spec("Op")).Op(">").Id("RollupMin")).Block(
			rangeErr("RollupSpec.Op", spec("Op").Dot("String").Call(), "RollupSum", "RollupMin")),
		jen.If(spec("Last").Op("<").Lit(1).Op("||").Add(spec("Last")).Op(">").Id("keepSeasons").Op("+").Lit(1)).Block(
			jen.Return(jen.Nil(), rt("RollupLastError").Call(spec("Last"), jen.Id("keepSeasons")))),
		jen.If(spec("TTL").Op("<").Qual("time", "Millisecond").Op("||").Add(spec("TTL")).Op("%").Qual("time", "Millisecond").Op("!=").Lit(0)).Block(
			rangeErr("RollupSpec.TTL", spec("TTL").Dot("String").Call(), "1ms", "whole milliseconds")),
		jen.If(jen.Err().Op(":=").Add(rt("CheckSlots")).Call(jen.Id("ss").Dot("c"), jen.Id("ss").Dot("base")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("newest").Op(":=").Add(spec("Newest")),
		jen.If(jen.Id("newest").Dot("End").Dot("IsZero").Call()).Block(jen.Id("newest").Op("=").Id("ss").Dot("Current").Call()),
		jen.Id("key").Op(":=").Add(rt("RollupKey")).Call(jen.Id("ss").Dot("base"), spec("Field").Dot("String").Call(), spec("Op"), spec("Last"), jen.Id("newest")),
		jen.Id("keys").Op(":=").Append(append([]jen.Code{jen.Id("boardSpec").Dot("Keys").Call(jen.Id("key")).Index(jen.Empty(), jen.Lit(2)), rt("RollupsKey").Call(jen.Id("ss").Dot("base"))}, b.rollupData(jen.Id("key"))...)...),
		jen.Id("now").Op(":=").Id("ss").Dot("now").Call(),
		jen.For(jen.List(jen.Id("i"), jen.Id("s")).Op(":=").List(jen.Lit(0), jen.Id("newest")), jen.Id("i").Op("<").Add(spec("Last")), jen.List(jen.Id("i"), jen.Id("s")).Op("=").List(jen.Id("i").Op("+").Lit(1), jen.Id("calendar").Dot("Prev").Call(jen.Id("s")))).Block(append([]jen.Code{jen.If(jen.Err().Op(":=").Add(rt("CheckExpiry")).Call(jen.Id("s"), rt("ExpireAt").Call(jen.Id("expiryOf").Call(jen.Id("s"))), jen.Id("now")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err()))}, b.rollupSeasonKeys()...)...),
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(reader(op, rt("Call").Call(jen.Id("ctx"), jen.Id("ss").Dot("c"), jen.Id(op.Function()), jen.Id("keys"),
			jen.Int().Call(spec("Field")), spec("Op").Dot("String").Call(), spec("TTL").Dot("Milliseconds").Call(), rt("RollupLine").Call(jen.Id("key"), jen.Id("newest"))))), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("ss").Dot("rollupBoard").Call(jen.Id("key"), jen.Id("newest")), jen.Nil()),
	)
	f.Line()
	b.comment("rollupBoard is the board of the rollup under key, whose newest season is newest. Its writes (RemoveEverywhere's) leave the expiry the rollup script set, which is on Redis's clock, so its reads do not check it against the Seasons' clock.")
	seasonsRecv(f).Id("rollupBoard").Params(jen.Id("key").String(), jen.Id("newest").Id("Season")).Op("*").Id("Board").Block(
		jen.Id("b").Op(":=").Id("NewBoard").Call(jen.Id("ss").Dot("c"), jen.Id("key"), jen.Id("newest")),
		jen.Id("b").Dot("core").Dot("SetExpiry").Call(rt("Expiry").Values()),
		jen.Id("b").Dot("core").Dot("SetClock").Call(jen.Id("ss").Dot("now")),
		jen.Return(jen.Id("b")),
	)
	f.Line()
}

// cachedRollups emits Seasons.cachedRollups: the boards of the rollups the rollup script
// lists.
func (b *board) cachedRollups() {
	f := b.f
	b.comment("cachedRollups returns the boards of the rollups listed beside the seasons' boards: the rollup script lists each one it builds, and drops those past their expiry (Redis's clock) whenever it builds another, so a listed board may have expired and be empty.")
	seasonsRecv(f).Id("cachedRollups").Params(ctxParam()).Params(jen.Index().Op("*").Id("Board"), jen.Error()).Block(
		jen.List(jen.Id("lines"), jen.Err()).Op(":=").Id("ss").Dot("c").Dot("ZRange").Call(jen.Id("ctx"), rt("RollupsKey").Call(jen.Id("ss").Dot("base")), jen.Lit(0), jen.Lit(-1)).Dot("Result").Call(),
		errNil().Block(jen.Return(jen.Nil(), rt("ReplyError").Call(jen.Err())).Comment("a key of another type there: ErrWrongType")),
		jen.Var().Id("out").Index().Op("*").Id("Board"),
		jen.For(jen.List(jen.Id("_"), jen.Id("line")).Op(":=").Range().Id("lines")).Block(
			jen.List(jen.Id("id"), jen.Id("key"), jen.Err()).Op(":=").Add(rt("ParseRollupLine")).Call(jen.Id("line")),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("calendar").Dot("ByID").Call(jen.Id("id")),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("ss").Dot("rollupBoard").Call(jen.Id("key"), jen.Id("s"))),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	f.Line()
}

// rollupData is, on a layout with entry data, the data hash of the board under key, which the
// rollup script reads (a season's) or writes (the rollup's); nothing on a layout without.
func (b *board) rollupData(key jen.Code) []jen.Code {
	if !b.l.HasData() {
		return nil
	}
	return []jen.Code{rt("DataKey").Call(key)}
}

// rollupSeasonKeys appends to keys the keys of season s's board that the rollup script reads:
// the board, its index or meta key, and its data hash on a layout with data.
func (b *board) rollupSeasonKeys() []jen.Code {
	if !b.l.HasData() {
		own := jen.Id("boardSpec").Dot("Keys").Call(rt("SeasonKey").Call(jen.Id("ss").Dot("base"), jen.Id("s"))).Index(jen.Empty(), jen.Lit(2))
		return []jen.Code{jen.Id("keys").Op("=").Append(jen.Id("keys"), own.Op("..."))}
	}
	return []jen.Code{
		jen.Id("k").Op(":=").Add(rt("SeasonKey")).Call(jen.Id("ss").Dot("base"), jen.Id("s")),
		jen.Id("keys").Op("=").Append(jen.Append(jen.Id("keys"), jen.Id("boardSpec").Dot("Keys").Call(jen.Id("k")).Index(jen.Empty(), jen.Lit(2)).Op("...")), rt("DataKey").Call(jen.Id("k"))),
	}
}

// rollupLeftOut is the sentence of RollupField's doc that names the fields a rollup cannot
// combine and why (catalog.RollupRefusal), or "" when it can combine them all.
func rollupLeftOut(l *layout.Layout) string {
	var out []string
	for _, f := range l.Fields {
		if why := catalog.RollupRefusal(f); why != "" {
			out = append(out, f.Name+" ("+why+")")
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " Not rollup fields: " + strings.Join(out, "; ") + "."
}

// seasonsInFamily says which seasons' boards a removal everywhere reaches.
const seasonsInFamily = "every season that may hold entries (the current one, the keepSeasons before it and the next one)"

// removeEverywhere emits Seasons.RemoveEverywhere.
func (b *board) removeEverywhere(rollups bool) {
	family := "the board of " + seasonsInFamily
	body := b.familyBody(rollups, &family, []jen.Code{
		jen.Id("groups").Op("=").Append(jen.Id("groups"), jen.Index().Op("*").Id("Board").Values(jen.Id("ss").Dot("Board").Call(jen.Id("s")))),
	}, jen.Index().Op("*").Id("Board").Values(jen.Id("a")))
	b.comment("RemoveEverywhere removes ids from every board of the family: %s, and the boards also given (of this layout: all-time or regional boards you keep beside the seasons). It returns, for each id in order, how many boards held it. When one script can reach every board's keys (one server, or on a Cluster one hash slot: a base with a hash tag, \"{lb}:weekly\", and the boards given under the same tag), the removal is one script call, atomic: on an error nothing is removed. Otherwise each board removes the ids in its own script call (atomic there, not across boards), all at once, each in its own goroutine; on an error the counts say what was removed before it, and a season that expires meanwhile holds nothing. Under an idempotency key (rankgenrt.WithIdempotencyKey) a resend of the whole call, within the current season, removes nothing twice and answers the first call's counts. Removing a cheater thus takes one call; their entries written after it are not touched.", family)
	seasonsRecv(b.f).Id("RemoveEverywhere").Params(ctxParam(), jen.Id("ids").Index().Add(b.idType()), jen.Id("also").Op("...").Op("*").Id("Board")).Params(jen.Index().Int(), jen.Error()).Block(body...)
	b.f.Line()
}

// removeEverywhereSharded emits Seasons.RemoveEverywhereSharded, RemoveEverywhere over the
// seasons' sharded boards.
func (b *board) removeEverywhereSharded(rollups bool) {
	family := "every shard of the sharded board (Sharded, of shards shards) of " + seasonsInFamily
	body := b.familyBody(rollups, &family, []jen.Code{
		jen.List(jen.Id("sb"), jen.Err()).Op(":=").Id("ss").Dot("Sharded").Call(jen.Id("s"), jen.Id("shards")),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("groups").Op("=").Append(jen.Id("groups"), jen.Id("sb").Dot("shards")),
	}, jen.Id("a").Dot("shards"))
	b.comment("RemoveEverywhereSharded is RemoveEverywhere for a family of sharded boards: it removes ids from %s, and from every shard of the sharded boards also given. It returns, for each id in order, how many boards held it, a sharded board counting once. On one server the removal is one script call, atomic; on a Cluster, where each shard has a hash tag of its own, each shard removes the ids in its own script call (atomic there), all at once. Under an idempotency key a resend of the whole call, within the current season, removes nothing twice and answers the first call's counts.", family)
	seasonsRecv(b.f).Id("RemoveEverywhereSharded").Params(ctxParam(), jen.Id("shards").Int(), jen.Id("ids").Index().Add(b.idType()), jen.Id("also").Op("...").Op("*").Id("ShardedBoard")).Params(jen.Index().Int(), jen.Error()).Block(body...)
	b.f.Line()
}

// familyBody is the body of a removal everywhere: it gathers the groups of boards (a group:
// one board, or a sharded board's shards), those of each season s by perSeason, then, on a
// layout with rollups, each cached rollup (said in family), then alsoGroup of each board a of
// also, and removes ids from them all (removeFrom).
func (b *board) familyBody(rollups bool, family *string, perSeason []jen.Code, alsoGroup jen.Code) []jen.Code {
	body := []jen.Code{
		jen.Var().Id("groups").Index().Index().Op("*").Id("Board"),
		jen.For(jen.List(jen.Id("_"), jen.Id("s")).Op(":=").Range().Append(jen.Id("ss").Dot("Recent").Call(jen.Id("keepSeasons").Op("+").Lit(1)), jen.Id("ss").Dot("Next").Call(jen.Id("ss").Dot("Current").Call()))).Block(perSeason...),
	}
	if rollups {
		*family += ", every cached rollup"
		body = append(body,
			jen.List(jen.Id("cached"), jen.Err()).Op(":=").Id("ss").Dot("cachedRollups").Call(jen.Id("ctx")),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("cached")).Block(
				jen.Id("groups").Op("=").Append(jen.Id("groups"), jen.Index().Op("*").Id("Board").Values(jen.Id("r")))))
	}
	return append(body,
		jen.For(jen.List(jen.Id("_"), jen.Id("a")).Op(":=").Range().Id("also")).Block(
			jen.Id("groups").Op("=").Append(jen.Id("groups"), alsoGroup)),
		jen.Return(jen.Id("ss").Dot("removeFrom").Call(jen.Id("ctx"), jen.Id("ids"), jen.Id("groups"))))
}

// removeFrom emits Seasons.removeFrom and removeEach, which run op (remove_everywhere) for
// RemoveEverywhere: over every board at once when one script reaches their keys, else over
// each board.
func (b *board) removeFrom(op catalog.Op) {
	f := b.f
	b.comment("removeFrom removes ids from every board of groups (a group: one board, or the shards of one sharded board) and returns, per id, how many groups held it: with one script call when one script can reach every key (rankgenrt.OneScript), else with one call per board, all at once.")
	seasonsRecv(f).Id("removeFrom").Params(ctxParam(), jen.Id("ids").Index().Add(b.idType()), jen.Id("groups").Index().Index().Op("*").Id("Board")).Params(jen.Index().Int(), jen.Error()).Block(
		jen.Id("held").Op(":=").Make(jen.Index().Int(), jen.Len(jen.Id("ids"))),
		jen.If(jen.Len(jen.Id("ids")).Op("==").Lit(0)).Block(jen.Return(jen.Id("held"), jen.Nil())),
		jen.For(jen.List(jen.Id("_"), jen.Id("id")).Op(":=").Range().Id("ids")).Block(
			b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(jen.Nil(), err) })),
		jen.Var().Id("boards").Index().Op("*").Id("Board"),
		jen.Var().Id("keys").Index().String(),
		jen.For(jen.List(jen.Id("_"), jen.Id("g")).Op(":=").Range().Id("groups")).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("g")).Block(
				jen.Id("boards").Op("=").Append(jen.Id("boards"), jen.Id("b")),
				jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("b").Dot("core").Dot("ScriptKeys").Call().Op("...")))),
		jen.Var().Id("removed").Index().Index().Int(),
		jen.Var().Err().Error(),
		jen.If(rt("OneScript").Call(jen.Id("ss").Dot("c"), jen.Id("keys"))).Block(
			jen.List(jen.Id("removed"), jen.Err()).Op("=").Id("removeAll").Call(jen.Id("ctx"), jen.Id("boards"), jen.Id("keys"), jen.Id("ids")),
		).Else().Block(
			jen.List(jen.Id("removed"), jen.Err()).Op("=").Id("removeEach").Call(jen.Id("ctx"), jen.Id("boards"), jen.Id("ids")),
		),
		jen.If(jen.Id("removed").Op("==").Nil()).Block(jen.Return(jen.Id("held"), jen.Err()).Comment("the one call failed: nothing removed")),
		jen.Id("k").Op(":=").Lit(0),
		jen.For(jen.List(jen.Id("_"), jen.Id("g")).Op(":=").Range().Id("groups")).Block(
			jen.For(jen.Id("i").Op(":=").Range().Id("ids")).Block(
				jen.Id("in").Op(":=").Lit(0),
				jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("removed").Index(jen.Id("k"), jen.Id("k").Op("+").Len(jen.Id("g")))).Block(
					jen.If(jen.Len(jen.Id("r")).Op(">").Id("i")).Block(jen.Id("in").Op("=").Max(jen.Id("in"), jen.Id("r").Index(jen.Id("i"))))),
				jen.Id("held").Index(jen.Id("i")).Op("+=").Id("in"),
			),
			jen.Id("k").Op("+=").Len(jen.Id("g")),
		),
		jen.Return(jen.Id("held"), jen.Err()),
	)
	f.Line()
	b.comment("removeEach removes ids from each board in its own script call, all at once, each in its own goroutine, and returns per board, per id, 1 when the board held it (a board that failed: none); a season's board that has expired holds nothing.")
	f.Func().Id("removeEach").Params(ctxParam(), jen.Id("boards").Index().Op("*").Id("Board"), jen.Id("ids").Index().Add(b.idType())).Params(jen.Index().Index().Int(), jen.Error()).Block(
		jen.Id("removed").Op(":=").Make(jen.Index().Index().Int(), jen.Len(jen.Id("boards"))),
		jen.Id("err").Op(":=").Add(rt("Scatter")).Call(jen.Id("ctx"), rt("EveryShard").Call(jen.Len(jen.Id("boards"))), jen.Func().Params(ctxParam(), jen.Id("k").Int(), jen.Id("_").Index().Int()).Error().Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("removeAll").Call(jen.Id("ctx"), jen.Id("boards").Index(jen.Id("k"), jen.Id("k").Op("+").Lit(1)), jen.Id("boards").Index(jen.Id("k")).Dot("core").Dot("ScriptKeys").Call(), jen.Id("ids")),
			jen.If(jen.Qual("errors", "Is").Call(jen.Err(), rt("ErrSeasonExpired"))).Block(jen.Return(jen.Nil()).Comment("an expired board holds nothing")),
			errNil().Block(jen.Return(jen.Err())),
			jen.Id("removed").Index(jen.Id("k")).Op("=").Id("r").Index(jen.Lit(0)),
			jen.Return(jen.Nil()),
		)),
		jen.Return(jen.Id("removed"), jen.Id("err")),
	)
	f.Line()
	b.comment("removeAll removes ids from boards, whose keys are keys, in one call of the remove_everywhere script, under the token of the first board (which also gives the call's expiry and replicas), and returns per board, per id, 1 when the board held it.")
	f.Func().Id("removeAll").Params(ctxParam(), jen.Id("boards").Index().Op("*").Id("Board"), jen.Id("keys").Index().String(), jen.Id("ids").Index().Add(b.idType())).Params(jen.Index().Index().Int(), jen.Error()).Block(
		jen.Id("first").Op(":=").Id("boards").Index(jen.Lit(0)),
		jen.Id("args").Op(":=").Id("first").Dot("core").Dot("WriteArgs").Call(jen.Len(jen.Id("ids"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("id")).Op(":=").Range().Id("ids")).Block(
			jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("id"))),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("first").Dot("core").Dot("WriteOn").Call(jen.Id("ctx"), jen.Id(op.Function()), jen.Id("keys"), jen.Id("args")),
		jen.Return(rt(op.Reply.Reader()).Call(jen.Id("v"), jen.Err(), jen.Len(jen.Id("boards")), jen.Len(jen.Id("ids")))),
	)
	f.Line()
}
