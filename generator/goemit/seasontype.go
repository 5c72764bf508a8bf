package goemit

import (
	"fmt"
	"time"

	"github.com/dave/jennifer/jen"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// seasons emits what a periodic layout adds to the package: its calendar, the Season type,
// the Seasons type (the calendar, an injectable clock and the boards of each season under a
// base key), its reads across seasons, and Board.Season.
func (b *board) seasons() {
	if b.l.Season == nil {
		return
	}
	b.calendar()
	b.seasonsType()
	b.seasonsCalendarMethods()
	b.seasonsBoards()
	b.seasonsLive()
	b.seasonReads()
	b.seasonFamily()
}

// calendar declares the calendar, keepSeasons, Season and expiryOf.
func (b *board) calendar() {
	f, s := b.f, b.l.Season
	if s.Spec().Period != rankgenrt.Fixed {
		f.Anon("time/tzdata") // the zone is found on machines without a zoneinfo database
	}
	b.comment("calendar maps instants to the board's seasons: %s. The generator checked its spec, and the zone database is embedded (time/tzdata).", s.Describe())
	f.Var().Id("calendar").Op("=").Add(rt("MustCalendar")).Call(rt("CalendarSpec").Values(b.calendarSpec()))
	f.Line()
	f.Comment("keepSeasons is how many finished seasons stay readable; older boards expire by themselves.")
	f.Const().Id("keepSeasons").Op("=").Lit(s.Keep)
	f.Line()
	b.comment("Season is one season of the board: the instants from Start (included) to End (excluded). Its ID is Start in Unix seconds, which ends the keys of its board.")
	f.Type().Id("Season").Op("=").Add(rt("Season"))
	f.Line()
	b.comment("expiryOf is when the board of season s expires: at the end of the %s season after it.", ordinal(s.Keep))
	f.Func().Id("expiryOf").Params(jen.Id("s").Id("Season")).Qual("time", "Time").Block(
		jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Id("keepSeasons"), jen.Id("i").Op("++")).Block(
			jen.Id("s").Op("=").Id("calendar").Dot("Next").Call(jen.Id("s"))),
		jen.Return(jen.Id("s").Dot("End")),
	)
	f.Line()
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
	d[jen.Id("Zone")] = jen.Lit(spec.Zone)
	return d
}

// seasonsType declares Seasons, its options and NewSeasons.
func (b *board) seasonsType() {
	f := b.f
	b.comment("Seasons is the board's calendar and the boards of its seasons, stored under a base key: season s's board is <base>:<s.ID>, with its side keys in the same hash slot (give base a hash tag, \"{lb}:weekly\", to keep every season in one slot). It is safe for concurrent use.")
	f.Type().Id("Seasons").Struct(
		jen.Id("c").Qual(redisPath, "UniversalClient"),
		jen.Id("base").String(),
		jen.Id("now").Func().Params().Qual("time", "Time"),
	)
	f.Line()
	f.Comment("SeasonsOption configures Seasons.")
	f.Type().Id("SeasonsOption").Func().Params(jen.Op("*").Id("Seasons"))
	f.Line()
	b.comment("WithClock makes Seasons read now instead of time.Now: Current and Previous, and the client stamps of its boards. Redis's clock still decides server stamps.")
	f.Func().Id("WithClock").Params(jen.Id("now").Func().Params().Qual("time", "Time")).Id("SeasonsOption").Block(
		jen.Return(jen.Func().Params(jen.Id("s").Op("*").Id("Seasons")).Block(jen.Id("s").Dot("now").Op("=").Id("now"))))
	f.Line()
	f.Comment("NewSeasons returns the seasons of the board stored under base.")
	f.Func().Id("NewSeasons").Params(jen.Id("c").Qual(redisPath, "UniversalClient"), jen.Id("base").String(), jen.Id("opts").Op("...").Id("SeasonsOption")).Op("*").Id("Seasons").Block(
		jen.Id("s").Op(":=").Op("&").Id("Seasons").Values(jen.Dict{jen.Id("c"): jen.Id("c"), jen.Id("base"): jen.Id("base"), jen.Id("now"): jen.Qual("time", "Now")}),
		jen.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("opts")).Block(jen.Id("o").Call(jen.Id("s"))),
		jen.Return(jen.Id("s")),
	)
	f.Line()
}

func seasonsRecv(f *jen.File) *jen.Statement {
	return f.Func().Params(jen.Id("ss").Op("*").Id("Seasons"))
}

// seasonsCalendarMethods declares At, Current, Previous, Next, Prev and ByID.
func (b *board) seasonsCalendarMethods() {
	f, s := b.f, jen.Id("Season")
	cal := func(m string, args ...jen.Code) jen.Code { return jen.Return(jen.Id("calendar").Dot(m).Call(args...)) }
	b.comment("At returns the season that contains t: exact across daylight saving, month lengths and leap years.")
	seasonsRecv(f).Id("At").Params(jen.Id("t").Qual("time", "Time")).Add(s).Block(cal("At", jen.Id("t")))
	f.Line()
	f.Comment("Current returns the season that contains now (the Seasons' clock).")
	seasonsRecv(f).Id("Current").Params().Add(s).Block(cal("At", jen.Id("ss").Dot("now").Call()))
	f.Line()
	f.Comment("Previous returns the season n before the current one: Previous(1) is the last that ended.")
	seasonsRecv(f).Id("Previous").Params(jen.Id("n").Int()).Add(s).Block(
		jen.Id("s").Op(":=").Id("ss").Dot("Current").Call(),
		jen.For(jen.Id("i").Op(":=").Lit(0), jen.Id("i").Op("<").Id("n"), jen.Id("i").Op("++")).Block(jen.Id("s").Op("=").Id("calendar").Dot("Prev").Call(jen.Id("s"))),
		jen.Return(jen.Id("s")))
	f.Line()
	f.Comment("Next returns the season after s.")
	seasonsRecv(f).Id("Next").Params(jen.Id("s").Add(s)).Add(s).Block(cal("Next", jen.Id("s")))
	f.Line()
	f.Comment("Prev returns the season before s.")
	seasonsRecv(f).Id("Prev").Params(jen.Id("s").Add(s)).Add(s).Block(cal("Prev", jen.Id("s")))
	f.Line()
	f.Comment("ByID returns the season whose ID is id, or an error when id starts no season.")
	seasonsRecv(f).Id("ByID").Params(jen.Id("id").Int64()).Params(s, jen.Error()).Block(cal("ByID", jen.Id("id")))
	f.Line()
}

// seasonsBoards declares Seasons.Board, Seasons.Existing (and what it shares with
// ExistingSharded) and Board.Season.
func (b *board) seasonsBoards() {
	f := b.f
	b.comment("Board returns the board of season s, under <base>:<s.ID>, with the Seasons' clock; opts apply after the season's expiry (see NewBoard).")
	seasonsRecv(f).Id("Board").Params(jen.Id("s").Id("Season"), jen.Id("opts").Op("...").Id("Option")).Op("*").Id("Board").Block(
		jen.Id("b").Op(":=").Id("NewBoard").Call(jen.Id("ss").Dot("c"), rt("SeasonKey").Call(jen.Id("ss").Dot("base"), jen.Id("s")), jen.Id("s"), jen.Id("opts").Op("...")),
		jen.Id("b").Dot("core").Dot("SetClock").Call(jen.Id("ss").Dot("now")),
		jen.Return(jen.Id("b")),
	)
	f.Line()
	b.comment("Existing returns the seasons, newest first, whose boards still exist: the current one and the keepSeasons before it (older ones have expired), checked with one EXISTS each in one pipeline.")
	seasonsRecv(f).Id("Existing").Params(ctxParam()).Params(jen.Index().Id("Season"), jen.Error()).Block(
		jen.Return(jen.Id("ss").Dot("existing").Call(jen.Id("ctx"), jen.Func().Params(jen.Id("s").Id("Season")).Params(jen.Index().String(), jen.Error()).Block(
			jen.Return(jen.Index().String().Values(rt("SeasonKey").Call(jen.Id("ss").Dot("base"), jen.Id("s"))), jen.Nil())))))
	f.Line()
	b.comment("existing returns, newest first, those of the current season and the keepSeasons before it for which one of keys(s) exists: one EXISTS a key, all in one pipeline.")
	seasonsRecv(f).Id("existing").Params(ctxParam(), jen.Id("keys").Func().Params(jen.Id("Season")).Params(jen.Index().String(), jen.Error())).Params(jen.Index().Id("Season"), jen.Error()).Block(
		jen.Id("cands").Op(":=").Id("ss").Dot("Recent").Call(jen.Id("keepSeasons").Op("+").Lit(1)),
		jen.Id("cmds").Op(":=").Make(jen.Index().Index().Op("*").Qual(redisPath, "IntCmd"), jen.Len(jen.Id("cands"))),
		jen.Id("pipe").Op(":=").Id("ss").Dot("c").Dot("Pipeline").Call(),
		jen.For(jen.List(jen.Id("i"), jen.Id("s")).Op(":=").Range().Id("cands")).Block(
			jen.List(jen.Id("ks"), jen.Err()).Op(":=").Id("keys").Call(jen.Id("s")),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("ks")).Block(
				jen.Id("cmds").Index(jen.Id("i")).Op("=").Append(jen.Id("cmds").Index(jen.Id("i")), jen.Id("pipe").Dot("Exists").Call(jen.Id("ctx"), jen.Id("k")))),
		),
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("pipe").Dot("Exec").Call(jen.Id("ctx")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Var().Id("out").Index().Id("Season"),
		jen.For(jen.List(jen.Id("i"), jen.Id("s")).Op(":=").Range().Id("cands")).Block(
			jen.If(jen.Qual("slices", "ContainsFunc").Call(jen.Id("cmds").Index(jen.Id("i")), jen.Func().Params(jen.Id("c").Op("*").Qual(redisPath, "IntCmd")).Bool().Block(
				jen.Return(jen.Id("c").Dot("Val").Call().Op("==").Lit(1))))).Block(
				jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("s")))),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	f.Line()
	f.Comment("Season returns the season the board holds.")
	recvDecl(f).Id("Season").Params().Id("Season").Block(jen.Return(jen.Id("b").Dot("season")))
	f.Line()
}

// seasonsLive declares Seasons.Live: a write on the current season's board that lands on the
// season the script's clock reads, when this machine's clock and Redis's disagree about it,
// and a resend under a season's token on the board of that season alone.
func (b *board) seasonsLive() {
	f := b.f
	b.comment("Live runs write on the board of the current season (the Seasons' clock; opts as for Board). A stamp is read by the write's script — Redis's clock for server stamps — and near a season's end, or with this machine's clock off Redis's, it can fall in another season: that board refuses the write (ErrSeasonClosed, nothing written), and Live runs write once more on the board of the season the script's clock read, so the write lands where its stamp belongs. Any other outcome is write's own: a refused season-anchored value (it has no clock), and a write whose client and server stamps read different seasons (no board can hold it). A batch write should return its first result's error for this to apply.\n\nA season's board binds its write tokens to its season (rankgenrt.InSeason), so the Token of an UncertainError names the board that may have applied the write. Under an idempotency key bound to a season — such a Token resent, or a key of your own bound with rankgenrt.InSeason — Live runs write on that season's board and no other, even after the season ended: a write applied there gets its first reply, and one never applied is refused by a closed season's board (ErrSeasonClosed, nothing written) where the layout stamps its entries. The write is thus applied once in all seasons together. A key bound to none is bound to the season Live runs write on.")
	seasonsRecv(f).Id("Live").Params(ctxParam(), jen.Id("write").Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("b").Op("*").Id("Board")).Error(), jen.Id("opts").Op("...").Id("Option")).Error().Block(
		jen.If(jen.List(jen.Id("key"), jen.Id("ok")).Op(":=").Add(rt("IdempotencyKey")).Call(jen.Id("ctx")), jen.Id("ok")).Block(
			jen.If(jen.List(jen.Id("id"), jen.Id("bound")).Op(":=").Add(rt("KeySeason")).Call(jen.Id("key")), jen.Id("bound")).Block(
				jen.If(jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("calendar").Dot("ByID").Call(jen.Id("id")), jen.Err().Op("==").Nil()).Block(
					jen.Comment("A resend: only the board of the season its token names may have applied the write."),
					jen.Return(jen.Id("write").Call(jen.Id("ctx"), jen.Id("ss").Dot("Board").Call(jen.Id("s"), jen.Id("opts").Op("...")))),
				),
			),
		),
		jen.Id("s").Op(":=").Id("ss").Dot("Current").Call(),
		jen.Err().Op(":=").Id("write").Call(jen.Id("ctx"), jen.Id("ss").Dot("Board").Call(jen.Id("s"), jen.Id("opts").Op("..."))),
		jen.List(jen.Id("at"), jen.Id("ok")).Op(":=").Add(rt("SeasonClock")).Call(jen.Err()),
		jen.If(jen.Op("!").Id("ok").Op("||").Id("s").Dot("Contains").Call(jen.Id("at"))).Block(jen.Return(jen.Err())),
		jen.Return(jen.Id("write").Call(jen.Id("ctx"), jen.Id("ss").Dot("Board").Call(jen.Id("calendar").Dot("At").Call(jen.Id("at")), jen.Id("opts").Op("...")))),
	)
	f.Line()
}
