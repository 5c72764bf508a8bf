package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// unitDuration is the time.Duration constant of a unit: time.Second, …
func unitDuration(u layout.Unit) jen.Code {
	return jen.Qual("time", map[layout.Unit]string{layout.Second: "Second", layout.Milli: "Millisecond", layout.Micro: "Microsecond"}[u])
}

// checkOffset declares a season-anchored field's local in units (its offset, a time.Duration
// from the season's start, counted in the unit) and refuses a negative offset, one past the
// width, and one finer than the unit. Whether it lies inside a given season is the season
// board's check.
func (c *codec) checkOffset(f *layout.Field, v value, fail func(jen.Code) jen.Code) []jen.Code {
	local := c.timeLocal(f)
	err := fail(jen.Qual(runtimePath, "OffsetRangeError").Call(jen.Lit(f.Name), v(), jen.Lit(f.Format(f.Lo)), jen.Lit(f.Format(f.Hi))))
	return []jen.Code{
		jen.Id(local).Op(":=").Int64().Call(v().Op("/").Add(unitDuration(f.Unit))),
		jen.If(v().Op("<").Lit(0).Op("||").Id(local).Op(">").Add(c.fc(f, "Max"))).Block(err),
		c.checkWholeUnits(f, v, fail),
	}
}

// seasonFields are the Board's fields of a periodic layout: its season and the season's bounds
// as the update scripts take them (its clock is the Core's).
func (b *board) seasonFields() []jen.Code {
	if b.l.Season == nil {
		return nil
	}
	return []jen.Code{
		jen.Id("season").Id("Season").Comment("the season the board holds"),
		jen.List(jen.Id("from"), jen.Id("until")).Int64().Comment("the season's bounds in Unix microseconds, for the scripts"),
	}
}

// seasonConstructor adds the season to NewBoard's parameters and to the Board it builds, with
// the season's expiry, and returns NewBoard's doc.
func (b *board) seasonConstructor(dict jen.Dict, params []jen.Code) (string, []jen.Code, *jen.Statement) {
	dict[jen.Id("season")] = jen.Id("s")
	dict[jen.Id("from")] = jen.Id("s").Dot("Start").Dot("UnixMicro").Call()
	dict[jen.Id("until")] = jen.Id("s").Dot("End").Dot("UnixMicro").Call()
	calendar := "calendar"
	if b.l.Season.Regions != nil {
		calendar = "regions" // the calendar of s's zone
	}
	core := rt("NewSeasonCore").Call(jen.Id("c"), jen.Id("key"), jen.Id("boardSpec"), jen.Id("s"), rt("ExpireAt").Call(jen.Id(calendar).Dot("Expiry").Call(jen.Id("s"), jen.Id("keepSeasons"))), jen.Id("opts").Op("..."))
	doc := "NewBoard returns the board of season s stored under key (Seasons.Board names the key after the season). Its keys expire when keepSeasons more seasons have ended after s, set by every write's own script (WithTTL or WithExpireAt replace that). Once that expiry has passed, the board refuses writes before anything is written (Redis's clock decides, in the script) and reads (the board's clock decides) with an error matching rankgenrt.ErrSeasonExpired, never acknowledging a write that would vanish or reading an empty board. Its write tokens, idempotency keys included, are bound to s (rankgenrt.InSeason), so that Seasons.Live sends their resends to this board."
	if catalog.EntriesTakeSeason(b.l) {
		doc += " Writes refuse times outside s with an error matching rankgenrt.ErrSeasonClosed: a season-anchored value outside [0, s.Len()), and a stamp whose clock (Redis's, for server stamps) reads outside s."
	}
	return doc, append(params, jen.Id("s").Id("Season")), core
}

// seasonCheck refuses, before any write, an entry whose season-anchored fields lie outside
// season, the board's; ret... precede the error in the return.
func (b *board) seasonCheck(season, e jen.Code, ret ...jen.Code) jen.Code {
	var out []jen.Code
	for _, f := range catalog.SeasonFields(b.l) {
		if len(out) > 0 {
			out = append(out, jen.Line())
		}
		out = append(out, jen.If(jen.Err().Op(":=").Add(season).Dot("CheckOffset").Call(jen.Lit(f.Name), jen.Add(e).Dot(f.Name)), jen.Err().Op("!=").Nil()).Block(
			jen.Return(append(ret, jen.Err())...)))
	}
	if len(out) == 0 {
		return jen.Null()
	}
	return jen.Add(out...)
}

// seasonValueCheck refuses, before the script runs, a new value of a season-anchored field
// outside the board's season (an update's v); nothing for other fields.
func (b *board) seasonValueCheck(fd *layout.Field, v value, fail func(jen.Code) jen.Code) []jen.Code {
	if !fd.Season {
		return nil
	}
	return []jen.Code{jen.If(jen.Err().Op(":=").Id("b").Dot("season").Dot("CheckOffset").Call(jen.Lit(fd.Name), v()), jen.Err().Op("!=").Nil()).Block(fail(jen.Err()))}
}
