package goemit

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// seasonFamily declares what a periodic layout makes its own across the boards of its
// seasons: the rollups (RollupField, RollupOp, RollupSpec, Seasons.Rollup) when the layout has
// fields a rollup can combine, and RemoveEverywhereSharded on a sharded layout (rankgenrt.Seasons
// holds RemoveEverywhere).
func (b *board) seasonFamily() {
	if len(catalog.RollupFields(b.l)) > 0 {
		b.rollupTypes()
		b.rollup()
	}
	if b.l.Sharded {
		b.removeEverywhereSharded()
	}
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

// rollup emits Seasons.Rollup: the check of the field, which the layout names, and the
// runtime's rankgenrt.Rollup.
func (b *board) rollup() {
	f := b.f
	fields := catalog.RollupFields(b.l)
	first, last := "Rollup"+fields[0].Name, "Rollup"+fields[len(fields)-1].Name
	spec := func(name string) *jen.Statement { return jen.Id("spec").Dot(name) }
	b.comment("Rollup returns the board of spec.Field combined by spec.Op over the last spec.Last seasons up to spec.Newest: an id's entry is its entry (with its data, on a layout with data) of the newest of those seasons that holds it, with the field replaced by the sum, the largest or the smallest of its values in the seasons that hold it (a season without the id counts for nothing). The server builds it in one script from the seasons' packed entries, exactly (a sum outside the field's range fails with rankgenrt.ErrOverflow and writes nothing), into a board of this layout under <base>:rollup:<field>:<op>:<last>:<newest ID> that expires after spec.TTL; every Rollup of the same spec until then returns that cached board without reading the seasons again, and a rebuild replaces it atomically. The returned Board reads it (Top, Page, Rank, Around, ...); once the TTL has passed its key is gone and it reads as empty, so call Rollup before each read (within the TTL, one script call that finds the cache). On a Cluster the seasons' keys must share a hash slot (a base with a hash tag, \"{lb}:weekly\"), else Rollup returns rankgenrt.ErrCrossSlot and sends nothing.")
	seasonsRecv(f).Id("Rollup").Params(ctxParam(), jen.Id("spec").Id("RollupSpec")).Params(jen.Op("*").Id("Board"), jen.Error()).Block(
		jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("rollupFieldNames").Index(spec("Field")), jen.Op("!").Id("ok")).Block(
			jen.Return(jen.Nil(), jen.Op("&").Add(rt("RangeError")).Values(jen.Dict{
				jen.Id("Field"): jen.Lit("RollupSpec.Field"), jen.Id("Value"): spec("Field").Dot("String").Call(), jen.Id("Min"): jen.Lit(first), jen.Id("Max"): jen.Lit(last)}))),
		jen.Return(rt("Rollup").Call(jen.Id("ctx"), jen.Id("ss").Dot("Seasons"), jen.Int().Call(spec("Field")), spec("Field").Dot("String").Call(), spec("Op"), spec("Last"), spec("Newest"), spec("TTL"))),
	)
	f.Line()
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

// removeEverywhereSharded emits Seasons.RemoveEverywhereSharded, RemoveEverywhere over the
// seasons' sharded boards (rankgenrt.RemoveEverywhereSharded).
func (b *board) removeEverywhereSharded() {
	family := "every shard of the sharded board (Sharded, of shards shards) of every season that may hold entries (the current one, the keepSeasons before it and the next one)"
	if len(catalog.RollupFields(b.l)) > 0 {
		family += ", every cached rollup"
	}
	shards := jen.Func().Params(jen.Id("sb").Op("*").Id("ShardedBoard")).Index().Op("*").Id("Board").Block(jen.Return(jen.Id("sb").Dot("shards")))
	b.comment("RemoveEverywhereSharded is RemoveEverywhere for a family of sharded boards: it removes ids from %s, and from every shard of the sharded boards also given. It returns, for each id in order, how many boards held it, a sharded board counting once. On one server the removal is one script call, atomic; on a Cluster, where each shard has a hash tag of its own, each shard removes the ids in its own script call (atomic there), all at once. Under an idempotency key a resend of the whole call, within the current season, removes nothing twice and answers the first call's counts.", family)
	seasonsRecv(b.f).Id("RemoveEverywhereSharded").Params(ctxParam(), jen.Id("shards").Int(), jen.Id("ids").Index().Add(b.idType()), jen.Id("also").Op("...").Op("*").Id("ShardedBoard")).Params(jen.Index().Int(), jen.Error()).Block(
		jen.Return(rt("RemoveEverywhereSharded").Call(jen.Id("ctx"), jen.Id("ss").Dot("Seasons"), jen.Id("ids"),
			jen.Func().Params(jen.Id("s").Id("Season")).Params(jen.Op("*").Id("ShardedBoard"), jen.Error()).Block(jen.Return(jen.Id("ss").Dot("Sharded").Call(jen.Id("s"), jen.Id("shards")))),
			shards, jen.Id("also"))),
	)
	b.f.Line()
}
