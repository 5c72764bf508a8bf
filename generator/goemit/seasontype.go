package goemit

import (
	"fmt"
	"slices"
	"time"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// seasons emits what a periodic layout adds to the package: its calendar, the Season type,
// the Seasons type (rankgenrt.Seasons, which holds the calendar, an injectable clock, the boards
// of each season under a base key and the reads across seasons, embedded), its SeasonResult,
// what its layout makes its own across seasons (rollups, sharded seasons), and Board.Season.
func (b *board) seasons() {
	if b.l.Season == nil {
		return
	}
	b.calendar()
	b.seasonResult()
	b.seasonsType()
	f := b.f
	f.Comment("Season returns the season the board holds.")
	recvDecl(f).Id("Season").Params().Id("Season").Block(jen.Return(jen.Id("b").Dot("season")))
	f.Line()
	b.seasonFamily()
}

// calendar declares the calendar, keepSeasons and Season.
func (b *board) calendar() {
	f, s := b.f, b.l.Season
	if s.Spec().Period != rankgenrt.Fixed {
		f.Anon("time/tzdata") // the zone is found on machines without a zoneinfo database
	}
	calendar := "calendar"
	if s.Regions != nil {
		calendar = "regions"
		b.regions()
	} else {
		b.comment("calendar maps instants to the board's seasons: %s. The generator checked its spec, and the zone database is embedded (time/tzdata).", s.Describe())
		f.Var().Id("calendar").Op("=").Add(rt("MustCalendar")).Call(rt("CalendarSpec").Values(b.calendarSpec()))
	}
	f.Line()
	b.comment("keepSeasons is how many finished seasons stay readable; older boards expire by themselves (the board of season s at the end of the %s season after it: %s.Expiry).", ordinal(s.Keep), calendar)
	f.Const().Id("keepSeasons").Op("=").Lit(s.Keep)
	f.Line()
	b.comment("Season is one season of the board: the instants from Start (included) to End (excluded). Its ID is Start in Unix seconds, which ends the keys of its board.")
	f.Type().Id("Season").Op("=").Add(rt("Season"))
	f.Line()
}

// regions declares a regional layout's calendars, one per zone, and the zones' constants.
func (b *board) regions() {
	f, s := b.f, b.l.Season
	zones := s.Regions.Zones()
	b.comment("The zones the board's seasons run in (the schema's zones), for NewSeasons: each zone's seasons are boards of their own, under <base>:<zone>.")
	consts := make([]jen.Code, len(zones))
	args := []jen.Code{rt("CalendarSpec").Values(b.calendarSpec())}
	for i, z := range zones {
		consts[i] = jen.Id(layout.ZoneConst(z)).Op("=").Lit(z)
		args = append(args, jen.Id(layout.ZoneConst(z)))
	}
	f.Const().Defs(consts...)
	f.Line()
	b.comment("regions maps instants to the board's seasons in each zone: %s. The generator checked every zone's widths, and the zone database is embedded (time/tzdata).", s.Describe())
	f.Var().Id("regions").Op("=").Add(rt("MustRegions")).Call(args...)
}

func ordinal(n int) string {
	switch {
	case n == 0:
		return "0th (its own end)"
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	}
	return fmt.Sprintf("%d%s", n, map[int]string{1: "st", 2: "nd", 3: "rd"}[n%10]+map[bool]string{true: "th", false: ""}[n%10 == 0 || n%10 > 3])
}

// calendarSpec is the spec's literal, naming only what the period uses.
func (b *board) calendarSpec() jen.Dict {
	spec := b.l.Season.Spec()
	d := jen.Dict{jen.Id("Period"): rt(map[rankgenrt.Period]string{rankgenrt.Daily: "Daily", rankgenrt.Weekly: "Weekly", rankgenrt.Monthly: "Monthly", rankgenrt.Yearly: "Yearly", rankgenrt.Fixed: "Fixed"}[spec.Period])}
	if spec.Period == rankgenrt.Fixed {
		d[jen.Id("Every")] = inum(int64(spec.Every/time.Second)).Op("*").Qual("time", "Second")
		d[jen.Id("Origin")] = jen.Qual("time", "Unix").Call(inum(spec.Origin.Unix()), jen.Lit(0))
		return d
	}
	switch spec.Period {
	case rankgenrt.Weekly:
		d[jen.Id("Weekday")] = jen.Qual("time", spec.Weekday.String())
	case rankgenrt.Monthly:
		d[jen.Id("Day")] = jen.Lit(spec.Day)
	case rankgenrt.Yearly:
		d[jen.Id("Month")], d[jen.Id("Day")] = jen.Qual("time", spec.Month.String()), jen.Lit(spec.Day)
	}
	if spec.Hour != 0 {
		d[jen.Id("Hour")] = jen.Lit(spec.Hour)
	}
	if spec.Minute != 0 {
		d[jen.Id("Minute")] = jen.Lit(spec.Minute)
	}
	if b.l.Season.Regions == nil {
		d[jen.Id("Zone")] = jen.Lit(spec.Zone)
	}
	return d
}

// seasonsType declares Seasons (an embedded rankgenrt.Seasons), what the runtime needs of the
// layout for it (seasonsSpec), its options and NewSeasons.
func (b *board) seasonsType() {
	f := b.f
	seasonsT := rt("Seasons").Types(jen.Op("*").Id("Board"), b.idType(), jen.Id("Ranked"), jen.Id("SeasonResult"))
	keys := "season s's board is <base>:<s.ID>"
	if b.l.Season.Regions != nil {
		keys = "in one zone: season s's board is <base>:<zone>:<s.ID>"
	}
	b.comment("Seasons is the board's calendar and the boards of its seasons, stored under a base key: %s, with its side keys in the same hash slot (give base a hash tag, \"{lb}:weekly\", to keep every season in one slot). It is safe for concurrent use.\nIts calendar, boards and reads across seasons (Current, Board, Live, Recent, History, RemoveEverywhere, …) are the methods of the embedded rankgenrt.Seasons, which are the same on every periodic layout; this file declares those its layout makes its own.", keys)
	f.Type().Id("Seasons").Struct(jen.Op("*").Add(seasonsT))
	f.Line()
	b.comment("seasonsSpec is what the seasons' machinery (rankgenrt.Seasons) needs of this layout.")
	dict := jen.Dict{
		jen.Id("Keep"):     jen.Id("keepSeasons"),
		jen.Id("Board"):    jen.Id("boardSpec"),
		jen.Id("NewBoard"): jen.Id("NewBoard"),
		jen.Id("Core"): jen.Func().Params(jen.Id("b").Op("*").Id("Board")).Op("*").Add(rt("Core")).Block(
			jen.Return(jen.Id("b").Dot("core"))),
		jen.Id("CheckID"):  jen.Id("decoding").Dot("CheckID"),
		jen.Id("RankedAt"): jen.Id("decoding").Dot("RankedAt"),
		jen.Id("NewResult"): jen.Func().Params(jen.Id("s").Id("Season"), jen.Id("r").Id("Ranked"), jen.Err().Error()).Id("SeasonResult").Block(
			jen.Return(jen.Id("SeasonResult").Values(jen.Dict{jen.Id("Season"): jen.Id("s"), jen.Id("Ranked"): jen.Id("r"), jen.Id("Err"): jen.Err()}))),
	}
	if b.l.Season.Regions == nil { // a regional layout's Seasons take their zone's calendar
		dict[jen.Id("Calendar")] = jen.Id("calendar")
	}
	if len(catalog.RollupFields(b.l)) > 0 {
		dict[jen.Id("Rollups")] = jen.True()
	}
	if pr := b.l.Previous; pr != nil && pr.Layout != nil {
		// A season's board still in the layout this one replaces reads an id through its Board.
		dict[jen.Id("Standing")] = jen.Func().Params(ctxParam(), jen.Id("b").Op("*").Id("Board"), jen.Id("id").Add(b.idType())).Params(jen.Id("Ranked"), jen.Error()).Block(
			jen.List(jen.Id("rs"), jen.Err()).Op(":=").Id("b").Dot("Around").Call(jen.Id("ctx"), jen.Id("id"), jen.Lit(0), jen.Lit(0)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("Ranked").Values(), jen.Err())),
			jen.Return(jen.Id("rs").Index(jen.Lit(0)), jen.Nil()))
		// RemoveEverywhere and Rollup reach a season's board still in that layout through its view.
		dict[jen.Id("Previous")] = jen.Func().Params(jen.Id("b").Op("*").Id("Board")).Op("*").Add(rt("Core")).Block(
			jen.Return(jen.Id("b").Dot("previous").Dot("core")))
		dict[jen.Id("PreviousBoard")] = jen.Id("previousBoardSpec")
		if routes := previousRollups(b.l); len(routes) > 0 {
			d := jen.Dict{}
			for field, previous := range routes {
				d[jen.Lit(field)] = jen.Lit(previous)
			}
			dict[jen.Id("PreviousRollups")] = jen.Map(jen.Int()).Int().Values(d)
		}
	}
	f.Var().Id("seasonsSpec").Op("=").Op("&").Add(rt("SeasonsSpec").Types(jen.Op("*").Id("Board"), b.idType(), jen.Id("Ranked"), jen.Id("SeasonResult"))).Values(dict)
	f.Line()
	f.Comment("SeasonsOption configures Seasons.")
	f.Type().Id("SeasonsOption").Func().Params(jen.Op("*").Id("Seasons"))
	f.Line()
	b.comment("WithClock makes Seasons read now instead of time.Now: Current and Previous, and the client stamps of its boards. Redis's clock still decides server stamps.")
	f.Func().Id("WithClock").Params(jen.Id("now").Func().Params().Qual("time", "Time")).Id("SeasonsOption").Block(
		jen.Return(jen.Func().Params(jen.Id("s").Op("*").Id("Seasons")).Block(rt("SetSeasonsClock").Call(jen.Id("s").Dot("Seasons"), jen.Id("now")))))
	f.Line()
	if b.l.Season.Regions != nil {
		b.regionSeasons()
		return
	}
	f.Comment("NewSeasons returns the seasons of the board stored under base.")
	f.Func().Id("NewSeasons").Params(jen.Id("c").Qual(redisPath, "UniversalClient"), jen.Id("base").String(), jen.Id("opts").Op("...").Id("SeasonsOption")).Op("*").Id("Seasons").Block(
		jen.Id("s").Op(":=").Op("&").Id("Seasons").Values(rt("NewSeasons").Call(jen.Id("c"), jen.Id("base"), jen.Id("seasonsSpec"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("opts")).Block(jen.Id("o").Call(jen.Id("s"))),
		jen.Return(jen.Id("s")),
	)
	f.Line()
}

// regionSeasons declares a regional layout's NewSeasons, which takes the zone.
func (b *board) regionSeasons() {
	f := b.f
	b.comment("NewSeasons returns the seasons, in zone, of the board stored under base: their boards are under <base>:<zone>, so that regions never share a board, and their seasons start on zone's wall clock. zone is one of the schema's zones (ZoneEuropeParis, …); another is an error matching rankgenrt.ErrUnknownZone.")
	f.Func().Id("NewSeasons").Params(jen.Id("c").Qual(redisPath, "UniversalClient"), jen.List(jen.Id("base"), jen.Id("zone")).String(), jen.Id("opts").Op("...").Id("SeasonsOption")).Params(jen.Op("*").Id("Seasons"), jen.Error()).Block(
		jen.List(jen.Id("ss"), jen.Err()).Op(":=").Add(rt("NewRegionSeasons")).Call(jen.Id("c"), jen.Id("base"), jen.Id("zone"), jen.Id("regions"), jen.Id("seasonsSpec")),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("s").Op(":=").Op("&").Id("Seasons").Values(jen.Id("ss")),
		jen.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("opts")).Block(jen.Id("o").Call(jen.Id("s"))),
		jen.Return(jen.Id("s"), jen.Nil()),
	)
	f.Line()
}

func seasonsRecv(f *jen.File) *jen.Statement {
	return f.Func().Params(jen.Id("ss").Op("*").Id("Seasons"))
}

// seasonResult declares SeasonResult, what Seasons.History returns per season.
func (b *board) seasonResult() {
	b.comment("SeasonResult is an id's standing on one season's board (Seasons.History): its entry with its 1-based rank, or an Err matching ErrNotFound when the id has no entry that season, or rankgenrt.ErrSeasonExpired when the season's board has expired (the Seasons' clock, as a Board's reads).")
	b.f.Type().Id("SeasonResult").Struct(
		jen.Id("Season").Id("Season"),
		jen.Id("Ranked"),
		jen.Id("Err").Error(),
	)
	b.f.Line()
}

// previousRollups maps each field a rollup of l combines (its number, 1-based) to the same
// field's in the layout l replaces, where that layout's rollup combines the same values: an
// integer field both roll up, whose values convert as they are.
func previousRollups(l *layout.Layout) map[int]int {
	pr := l.Previous
	out := map[int]int{}
	old := catalog.RollupFields(pr.Layout)
	for _, f := range catalog.RollupFields(l) {
		i := slices.Index(l.Fields, f)
		if j := pr.Fields[i]; j >= 0 && slices.Contains(old, pr.Layout.Fields[j]) {
			out[i+1] = j + 1
		}
	}
	return out
}
