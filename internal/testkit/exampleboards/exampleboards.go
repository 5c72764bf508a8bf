// Package exampleboards lists the generated example packages (examples/generated) in one
// place, for the tests that run every example: each entry names the package and its schema,
// and carries its codec with the Entry type erased and its functions as values. A new example
// is added here once; TestEveryGeneratedPackageListed fails until it is.
package exampleboards

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/examples/generated/game"
	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/pits"
	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/examples/generated/tournament"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Example is one generated package.
type Example struct {
	Name   string // package name: its directory under examples/generated; <package>_<board> for a board of a package of boards
	Schema string // its schema's file name under examples/schemas
	// Board: a board of a package of boards (examples/generated/<Package>): its name there.
	Package, BoardName string
	Fingerprint        string // the package's Fingerprint constant
	Codec              Codec  // Encode, Decode and Compare, the Entry type erased

	// The package's functions, for tests that call them through reflection.
	NewBoard     any // func(redis.UniversalClient, string, ...Option) *Board; periodic: (…, string, Season, ...Option)
	Decode       any // func(float64, string) (Entry, error)
	WithTTL      any // func(time.Duration) Option
	WithExpireAt any // func(time.Time) Option

	// SeasonAt maps an instant to its season (the package's Seasons.At) for a periodic
	// package, whose NewBoard takes the board's season; nil for the others.
	SeasonAt func(time.Time) rankgenrt.Season
}

// All returns every example, in a fixed order.
func All() []Example {
	return []Example{
		{Name: "arena", Schema: "arena.yaml", Fingerprint: arena.Fingerprint, Codec: CodecOf(arena.Entry.Encode, arena.Decode, arena.Compare),
			NewBoard: arena.NewBoard, Decode: arena.Decode, WithTTL: arena.WithTTL, WithExpireAt: arena.WithExpireAt},
		{Name: "duel", Schema: "duel.yaml", Fingerprint: duel.Fingerprint, Codec: CodecOf(duel.Entry.Encode, duel.Decode, duel.Compare),
			NewBoard: duel.NewBoard, Decode: duel.Decode, WithTTL: duel.WithTTL, WithExpireAt: duel.WithExpireAt},
		{Name: "duelint", Schema: "duel_integer.yaml", Fingerprint: duelint.Fingerprint, Codec: CodecOf(duelint.Entry.Encode, duelint.Decode, duelint.Compare),
			NewBoard: duelint.NewBoard, Decode: duelint.Decode, WithTTL: duelint.WithTTL, WithExpireAt: duelint.WithExpireAt},
		{Name: "ladders", Schema: "ladders.yaml", Fingerprint: ladders.Fingerprint, Codec: CodecOf(ladders.Entry.Encode, ladders.Decode, ladders.Compare),
			NewBoard: ladders.NewBoard, Decode: ladders.Decode, WithTTL: ladders.WithTTL, WithExpireAt: ladders.WithExpireAt},
		{Name: "laps", Schema: "laps.yaml", Fingerprint: laps.Fingerprint, Codec: CodecOf(laps.Entry.Encode, laps.Decode, laps.Compare),
			NewBoard: laps.NewBoard, Decode: laps.Decode, WithTTL: laps.WithTTL, WithExpireAt: laps.WithExpireAt},
		{Name: "pits", Schema: "pits.yaml", Fingerprint: pits.Fingerprint, Codec: CodecOf(pits.Entry.Encode, pits.Decode, pits.Compare),
			NewBoard: pits.NewBoard, Decode: pits.Decode, WithTTL: pits.WithTTL, WithExpireAt: pits.WithExpireAt},
		{Name: "quiz", Schema: "quiz.yaml", Fingerprint: quiz.Fingerprint, Codec: CodecOf(quiz.Entry.Encode, quiz.Decode, quiz.Compare),
			NewBoard: quiz.NewBoard, Decode: quiz.Decode, WithTTL: quiz.WithTTL, WithExpireAt: quiz.WithExpireAt},
		{Name: "racing", Schema: "racing.yaml", Fingerprint: racing.Fingerprint, Codec: CodecOf(racing.Entry.Encode, racing.Decode, racing.Compare),
			NewBoard: racing.NewBoard, Decode: racing.Decode, WithTTL: racing.WithTTL, WithExpireAt: racing.WithExpireAt},
		{Name: "season", Schema: "season.yaml", Fingerprint: season.Fingerprint, Codec: CodecOf(season.Entry.Encode, season.Decode, season.Compare),
			NewBoard: season.NewBoard, Decode: season.Decode, WithTTL: season.WithTTL, WithExpireAt: season.WithExpireAt},
		{Name: "seed000member", Schema: "seed000_member.yaml", Fingerprint: seed000member.Fingerprint, Codec: CodecOf(seed000member.Entry.Encode, seed000member.Decode, seed000member.Compare),
			NewBoard: seed000member.NewBoard, Decode: seed000member.Decode, WithTTL: seed000member.WithTTL, WithExpireAt: seed000member.WithExpireAt},
		{Name: "seed001zranking", Schema: "seed001_zranking.yaml", Fingerprint: seed001zranking.Fingerprint, Codec: CodecOf(seed001zranking.Entry.Encode, seed001zranking.Decode, seed001zranking.Compare),
			NewBoard: seed001zranking.NewBoard, Decode: seed001zranking.Decode, WithTTL: seed001zranking.WithTTL, WithExpireAt: seed001zranking.WithExpireAt},
		{Name: "seed002binary", Schema: "seed002_binary.yaml", Fingerprint: seed002binary.Fingerprint, Codec: CodecOf(seed002binary.Entry.Encode, seed002binary.Decode, seed002binary.Compare),
			NewBoard: seed002binary.NewBoard, Decode: seed002binary.Decode, WithTTL: seed002binary.WithTTL, WithExpireAt: seed002binary.WithExpireAt},
		{Name: "seed002decimal", Schema: "seed002_decimal.yaml", Fingerprint: seed002decimal.Fingerprint, Codec: CodecOf(seed002decimal.Entry.Encode, seed002decimal.Decode, seed002decimal.Compare),
			NewBoard: seed002decimal.NewBoard, Decode: seed002decimal.Decode, WithTTL: seed002decimal.WithTTL, WithExpireAt: seed002decimal.WithExpireAt},
		{Name: "seed002keysort", Schema: "seed002_keysort.yaml", Fingerprint: seed002keysort.Fingerprint, Codec: CodecOf(seed002keysort.Entry.Encode, seed002keysort.Decode, seed002keysort.Compare),
			NewBoard: seed002keysort.NewBoard, Decode: seed002keysort.Decode, WithTTL: seed002keysort.WithTTL, WithExpireAt: seed002keysort.WithExpireAt},
		{Name: "seed003scaling", Schema: "seed003_scaling.yaml", Fingerprint: seed003scaling.Fingerprint, Codec: CodecOf(seed003scaling.Entry.Encode, seed003scaling.Decode, seed003scaling.Compare),
			NewBoard: seed003scaling.NewBoard, Decode: seed003scaling.Decode, WithTTL: seed003scaling.WithTTL, WithExpireAt: seed003scaling.WithExpireAt},
		{Name: "seed004shift", Schema: "seed004_shift.yaml", Fingerprint: seed004shift.Fingerprint, Codec: CodecOf(seed004shift.Entry.Encode, seed004shift.Decode, seed004shift.Compare),
			NewBoard: seed004shift.NewBoard, Decode: seed004shift.Decode, WithTTL: seed004shift.WithTTL, WithExpireAt: seed004shift.WithExpireAt},
		{Name: "game_track", Package: "game", BoardName: "track", Schema: "game/track.yaml", Fingerprint: game.TrackFingerprint, Codec: CodecOf(game.TrackEntry.Encode, game.TrackDecode, game.TrackCompare),
			NewBoard: game.NewTrackBoard, Decode: game.TrackDecode, WithTTL: game.WithTTL, WithExpireAt: game.WithExpireAt},
		{Name: "game_alltime", Package: "game", BoardName: "alltime", Schema: "game/alltime.yaml", Fingerprint: game.AlltimeFingerprint, Codec: CodecOf(game.AlltimeEntry.Encode, game.AlltimeDecode, game.AlltimeCompare),
			NewBoard: game.NewAlltimeBoard, Decode: game.AlltimeDecode, WithTTL: game.WithTTL, WithExpireAt: game.WithExpireAt},
	}
}

// Periodic returns the examples whose boards are periodic (a season: block). Their codec is
// like any other's; their NewBoard takes the board's season, which Board fills in (BoardIn
// takes it). They are listed apart from All because not every suite drives them yet (the
// sharded boards); those that do iterate both lists.
func Periodic() []Example {
	return []Example{
		{Name: "weekly", Schema: "weekly.yaml", Fingerprint: weekly.Fingerprint, Codec: CodecOf(weekly.Entry.Encode, weekly.Decode, weekly.Compare),
			NewBoard: weekly.NewBoard, Decode: weekly.Decode, WithTTL: weekly.WithTTL, WithExpireAt: weekly.WithExpireAt,
			SeasonAt: weekly.NewSeasons(nil, "").At},
		{Name: "tournament", Schema: "tournament.yaml", Fingerprint: tournament.Fingerprint, Codec: CodecOf(tournament.Entry.Encode, tournament.Decode, tournament.Compare),
			NewBoard: tournament.NewBoard, Decode: tournament.Decode, WithTTL: tournament.WithTTL, WithExpireAt: tournament.WithExpireAt,
			SeasonAt: tokyo.At},
		{Name: "game_weekly", Package: "game", BoardName: "weekly", Schema: "game/weekly.yaml", Fingerprint: game.WeeklyFingerprint, Codec: CodecOf(game.WeeklyEntry.Encode, game.WeeklyDecode, game.WeeklyCompare),
			NewBoard: game.NewWeeklyBoard, Decode: game.WeeklyDecode, WithTTL: game.WithTTL, WithExpireAt: game.WithExpireAt,
			SeasonAt: weeklyParis.At},
		{Name: "game_daily", Package: "game", BoardName: "daily", Schema: "game/daily.yaml", Fingerprint: game.DailyFingerprint, Codec: CodecOf(game.DailyEntry.Encode, game.DailyDecode, game.DailyCompare),
			NewBoard: game.NewDailyBoard, Decode: game.DailyDecode, WithTTL: game.WithTTL, WithExpireAt: game.WithExpireAt,
			SeasonAt: game.NewDailySeasons(nil, "").At},
	}
}

// weeklyParis is the game's weekly tournaments in one of their zones.
var weeklyParis = func() *game.WeeklySeasons {
	ss, err := game.NewWeeklySeasons(nil, "", game.WeeklyZoneEuropeParis)
	if err != nil {
		panic(err) // the zone is the schema's: only a regenerated package without it gets here
	}
	return ss
}()

// Dir is the example's package directory under examples/generated.
func (ex Example) Dir() string {
	if ex.Package != "" {
		return ex.Package
	}
	return ex.Name
}

// GoName is what the example's package-level names start with: its board's Go name in a
// package of boards ("Track"), else nothing.
func (ex Example) GoName() string {
	if ex.BoardName == "" {
		return ""
	}
	return (&layout.Board{Name: ex.BoardName}).GoName()
}

// tokyo is the tournament's seasons in one of its zones, for the suites that drive one board.
var tokyo = func() *tournament.Seasons {
	ss, err := tournament.NewSeasons(nil, "", tournament.ZoneAsiaTokyo)
	if err != nil {
		panic(err) // the zone is the schema's: only a regenerated package without it gets here
	}
	return ss
}()

// Seed reports whether the example reproduces a hand-made scheme (see examples/seeds).
func (ex Example) Seed() bool { return strings.HasPrefix(ex.Name, "seed") }

// SchemaName is the schema's file name without .yaml ("seed000_member").
func (ex Example) SchemaName() string { return strings.TrimSuffix(ex.Schema, ".yaml") }

// Layout parses the example's schema (named by its file name, as rankgen generate names it).
func (ex Example) Layout(tb testing.TB) *layout.Layout {
	tb.Helper()
	src, err := os.ReadFile(SchemaPath(ex.Schema))
	if err != nil {
		tb.Fatal(err)
	}
	l, err := layout.Parse(ex.Schema, src)
	if err != nil {
		tb.Fatalf("%s: %v", ex.Schema, err)
	}
	return l
}

// Board calls the package's NewBoard with c, key and options made by WithTTL or WithExpireAt,
// and returns the *Board. A periodic package's board holds the season of the present instant
// (the local clock, which is the test servers' clock); tests that must not see that season
// end during their run choose the season themselves (BoardIn).
func (ex Example) Board(c redis.UniversalClient, key string, opts ...any) any {
	if ex.SeasonAt != nil {
		return ex.BoardIn(c, key, ex.SeasonAt(time.Now()), opts...)
	}
	return ex.newBoard([]reflect.Value{reflect.ValueOf(c), reflect.ValueOf(key)}, opts)
}

// BoardIn returns a periodic package's *Board of season s under key (NewBoard(c, key, s,
// opts...)).
func (ex Example) BoardIn(c redis.UniversalClient, key string, s rankgenrt.Season, opts ...any) any {
	if ex.SeasonAt == nil {
		panic("exampleboards: " + ex.Name + " is not periodic")
	}
	return ex.newBoard([]reflect.Value{reflect.ValueOf(c), reflect.ValueOf(key), reflect.ValueOf(s)}, opts)
}

// LiveSeason returns the season of a periodic package (seasonAt: its Seasons.At) that holds
// Redis's clock now and for at least margin more: the season of a board whose stamped writes
// must all succeed during a test that has no model of the season's end. Within margin of a
// season's end (Sunday 23:58 in Paris for a weekly board and a margin of 2 minutes) it waits
// for the next season to start rather than let the end refuse the test's writes: at most
// margin, once a season. When the test ends, Redis's clock must still be inside the season,
// which shows that the run did not outlast the margin.
func LiveSeason(tb testing.TB, c redis.UniversalClient, seasonAt func(time.Time) rankgenrt.Season, margin time.Duration) rankgenrt.Season {
	tb.Helper()
	now := serverNow(tb, c)
	s := seasonAt(now)
	if s.End.Sub(now) < margin {
		tb.Logf("%v ends in %v: waiting for the next season", s, s.End.Sub(now))
		time.Sleep(s.End.Sub(now) + 10*time.Millisecond)
		s = seasonAt(serverNow(tb, c))
	}
	if s.Len() < 2*margin {
		tb.Fatalf("seasons of %v are too short for a margin of %v", s.Len(), margin)
	}
	tb.Cleanup(func() {
		if now, err := c.Time(context.Background()).Result(); err == nil && !s.Contains(now) {
			tb.Errorf("the run outlasted its season %v (now %v): raise the margin", s, now)
		}
	})
	return s
}

// serverNow is Redis's clock.
func serverNow(tb testing.TB, c redis.UniversalClient) time.Time {
	tb.Helper()
	now, err := c.Time(context.Background()).Result()
	if err != nil {
		tb.Fatal(err)
	}
	return now
}

func (ex Example) newBoard(args []reflect.Value, opts []any) any {
	for _, o := range opts {
		args = append(args, reflect.ValueOf(o))
	}
	return reflect.ValueOf(ex.NewBoard).Call(args)[0].Interface()
}

// Named returns the examples with the given names (periodic ones included), in that order; an
// unknown name fails the test.
func Named(tb testing.TB, names ...string) []Example {
	tb.Helper()
	all := append(All(), Periodic()...)
	out := make([]Example, 0, len(names))
	for _, name := range names {
		i := 0
		for i < len(all) && all[i].Name != name {
			i++
		}
		if i == len(all) {
			tb.Fatalf("exampleboards: no example %q", name)
		}
		out = append(out, all[i])
	}
	return out
}

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// SchemaPath is the path of examples/schemas/<file>.
func SchemaPath(file string) string { return filepath.Join(Root(), "examples", "schemas", file) }

// Codec is a generated package's codec with its Entry type erased: entries travel as any,
// each holding the package's Entry.
type Codec interface {
	Encode(e any) (float64, string, error)
	Decode(score float64, member string) (any, error)
	Compare(a, b any) int
	Entry() reflect.Type // the package's Entry type
}

// CodecOf erases the Entry type of a package's Entry.Encode, Decode and Compare.
func CodecOf[E any](encode func(E) (float64, string, error), decode func(float64, string) (E, error), compare func(a, b E) int) Codec {
	return codec[E]{encode, decode, compare}
}

type codec[E any] struct {
	encode  func(E) (float64, string, error)
	decode  func(float64, string) (E, error)
	compare func(a, b E) int
}

func (c codec[E]) Encode(e any) (float64, string, error) { return c.encode(e.(E)) }

func (c codec[E]) Decode(score float64, member string) (any, error) {
	e, err := c.decode(score, member)
	return e, err
}

func (c codec[E]) Compare(a, b any) int { return c.compare(a.(E), b.(E)) }

func (c codec[E]) Entry() reflect.Type { return reflect.TypeFor[E]() }
