package boardtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
	"gopkg.in/yaml.v3"
)

// The season guards of the write scripts, called directly with an out-of-season offset: what
// the generated Board refuses in Go before sending (Season.CheckOffset) the script refuses too,
// for any caller, atomically and before writing anything.

// rawScript is one generated function of a season board, called by hand.
type rawScript struct {
	l      *layout.Layout
	op     catalog.Op
	script *rankgenrt.Function
}

// run calls the function with FCALL (its library loaded first), its error replies untyped.
func (r rawScript) run(ctx context.Context, c redis.UniversalClient, key string, args ...any) *redis.Cmd {
	if err := r.script.Lib.Load(ctx, c); err != nil {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(err)
		return cmd
	}
	keys := scriptKeys(r.l, key)
	if at := slices.Index(r.op.Args.Head, catalog.ArgToken); at >= 0 {
		keys = rankgenrt.WriteKeys(keys, fmt.Sprint(args[at])) // a write records its token under its own key
	}
	return c.FCall(ctx, r.script.Name, keys, args...)
}

// loadScript reads the committed library of the layout in schema, which lies in dir, for the
// function of operation name.
func loadScript(t *testing.T, schema, dir, name string) rawScript {
	t.Helper()
	l := parse(t, schema)
	for _, op := range catalog.Scripts(l) {
		if op.Name == name {
			src, err := os.ReadFile(filepath.Join(dir, l.LuaFile()))
			if err != nil {
				t.Fatal(err)
			}
			return rawScript{l: l, op: op, script: rankgenrt.NewLayoutLibrary(l.Stem(), string(src)).Function(name)}
		}
	}
	t.Fatalf("%s has no script %s", schema, name)
	return rawScript{}
}

// entryScripts names the scripts of schema that write whole entries and take the season's
// bounds for them (catalog.SeasonEntries: set, best, insert), from its catalogue, so that a
// write added there is checked here too.
func entryScripts(t *testing.T, schema string) []string {
	t.Helper()
	var names []string
	for _, op := range catalog.Scripts(parse(t, schema)) {
		if op.Season == catalog.SeasonEntries {
			names = append(names, op.Name)
		}
	}
	if len(names) < 3 {
		t.Fatalf("%s: whole-entry writes %v; want set, best and insert at least", schema, names)
	}
	return names
}

// tokens numbers the calls' tokens: a token used twice gets the first call's reply.
var tokens atomic.Int64

// args builds the script's ARGV: the named head arguments (the write arguments default to a
// 'px' expiry of 1000 ms, which would change the keys' expiry if the call wrote, a new token and
// a dedup window of 60 s, which would record it), then the repeated groups.
func (r rawScript) args(t testing.TB, head map[string]any, groups ...[]any) []any {
	t.Helper()
	defaults := map[string]any{catalog.ArgMode: "px", catalog.ArgMS: "1000", catalog.ArgToken: "guard-" + strconv.FormatInt(tokens.Add(1), 10),
		catalog.ArgWindow: "60", catalog.ArgClock: ""}
	var out []any
	for _, name := range r.op.Args.Head {
		v, ok := head[name]
		if !ok {
			if v, ok = defaults[name]; !ok {
				t.Fatalf("%s: no value for argument %s", r.op.Name, name)
			}
		}
		out = append(out, v)
	}
	for _, g := range groups {
		if len(g) != r.op.Args.Stride() {
			t.Fatalf("%s: a group of %d arguments; the script takes %v", r.op.Name, len(g), r.op.Args.Each)
		}
		out = append(out, g...)
	}
	return out
}

// bounds are the head arguments of a season's bounds.
func bounds(from, until time.Time) map[string]any {
	return map[string]any{catalog.ArgFrom: from.UnixMicro(), catalog.ArgUntil: until.UnixMicro()}
}

// boardState is everything a write could change: the board's keys (Keys) and its ack keys
// (withAcks: every recorded token), and the expiry times of them all.
func boardState(t *testing.T, c redis.UniversalClient, keys []string) map[string]any {
	t.Helper()
	out := withAcks(t, c, keys)
	for _, k := range append(keys, ackKeys(t, c, keys[0])...) {
		at, err := c.Do(ctx, "PEXPIRETIME", k).Int64()
		if err != nil {
			t.Fatal(err)
		}
		out["expiry "+k] = at
	}
	return out
}

// wantClosed fails unless err, a script's error reply or the text of a batch item's error,
// matches ErrSeasonClosed and names field.
func wantClosed(t *testing.T, what string, err error, field string) {
	t.Helper()
	typed := rankgenrt.ReplyError(err)
	var se *rankgenrt.SeasonError
	if !errors.Is(typed, rankgenrt.ErrSeasonClosed) || !errors.As(typed, &se) || se.Field != field {
		t.Errorf("%s: %v; want ErrSeasonClosed naming %s", what, typed, field)
	}
}

// itemErr is the error of the first item of an update script's reply ({text, ”}).
func itemErr(t *testing.T, v any, err error) error {
	t.Helper()
	if err != nil {
		t.Fatalf("the script failed as a whole: %v; want a per-item error", err)
	}
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		t.Fatalf("reply %v", v)
	}
	text, _ := items[0].(string)
	typed, ok := rankgenrt.ParseReply(text)
	if !ok {
		t.Fatalf("item %q is not an error", text)
	}
	return typed
}

// TestWeeklyScriptSeasonGuard: the weekly whole-entry writes' scripts (set, best, insert),
// called directly, refuse an entry whose ReachedAt lies at or past the end of the board's week (the 169-hour week when the
// clocks go back in Paris, and a 168-hour one): the whole batch, before anything is written,
// with no token recorded and the keys' expiry unchanged. The last second of the week is stored.
func TestWeeklyScriptSeasonGuard(t *testing.T) {
	c := redistest.Client(t)
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2027, 10, 31, 12, 0, 0, 0, paris)
	ss := weekly.NewSeasons(c, redistest.Key(t, "{wk}"), weekly.WithClock(func() time.Time { return now }))
	long := ss.Current()
	short := ss.Next(long)
	if long.Len() != 169*time.Hour || short.Len() != 168*time.Hour {
		t.Fatalf("weeks of %v and %v", long.Len(), short.Len())
	}
	dir := filepath.Join("..", "generated", "weekly")
	for _, name := range entryScripts(t, "weekly.yaml") {
		r := loadScript(t, "weekly.yaml", dir, name)
		for _, s := range []weekly.Season{long, short} {
			b := ss.Board(s)
			if _, err := b.Set(ctx, weekly.Entry{PlayerID: "kept", Points: 9, ReachedAt: time.Hour}); err != nil {
				t.Fatal(err)
			}
			before := boardState(t, c, b.Keys())
			for _, at := range []time.Duration{s.Len(), s.Len() + time.Hour, 1<<20*time.Second - time.Second} {
				ok := encodeWeekly(t, weekly.Entry{PlayerID: "ok", Points: 1})
				bad := encodeWeekly(t, weekly.Entry{PlayerID: "kept", Points: 99, ReachedAt: at})
				_, err := r.run(ctx, c, b.Key(), r.args(t, bounds(s.Start, s.End), ok, bad)...).Result()
				wantClosed(t, name+" ReachedAt "+at.String()+" in "+s.String(), err, "ReachedAt")
			}
			if after := boardState(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
				t.Errorf("%s on %v: a refused call changed the board: %v → %v", name, s, before, after)
			}
			// The last second of the week is in it.
			last := encodeWeekly(t, weekly.Entry{PlayerID: "last-" + name, Points: 5, ReachedAt: s.Len() - time.Second})
			if _, err := r.run(ctx, c, b.Key(), r.args(t, bounds(s.Start, s.End), last)...).Result(); err != nil {
				t.Errorf("%s: the last second of %v: %v", name, s, err)
			}
			if e, err := b.Get(ctx, "last-"+name); err != nil || e.ReachedAt != s.Len()-time.Second {
				t.Errorf("%s: stored %+v, %v", name, e, err)
			}
		}
	}
	// 168 hours is the short week's end, and a time of the long week.
	r := loadScript(t, "weekly.yaml", dir, "set")
	e := encodeWeekly(t, weekly.Entry{PlayerID: "h168", ReachedAt: 168 * time.Hour})
	if _, err := r.run(ctx, c, ss.Board(long).Key(), r.args(t, bounds(long.Start, long.End), e)...).Result(); err != nil {
		t.Errorf("168h in the 169-hour week: %v", err)
	}
}

// encodeWeekly is the score, member pair of a weekly entry, as the set and best scripts take it.
func encodeWeekly(t *testing.T, e weekly.Entry) []any {
	t.Helper()
	score, member, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return []any{rankgenrt.FormatScore(score), member}
}

// encodeBlitz is the score, member pair of a blitz entry.
func encodeBlitz(t *testing.T, e blitz.Entry) []any {
	t.Helper()
	score, member, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return []any{rankgenrt.FormatScore(score), member}
}

// TestBlitzScriptSeasonGuard: on blitz (two-second seasons, At and Best in milliseconds in the
// member), the set, best and insert scripts refuse an entry whose At or Best lies at or past 2 s, the
// MinBest scripts (single and batch) and the change list refuse a Best of 2 s or more, each
// naming the field; nothing is written, no index entry left, no expiry changed, and the refused
// whole-entry calls record no token.
func TestBlitzScriptSeasonGuard(t *testing.T) {
	c := redistest.Client(t)
	ss := blitz.NewSeasons(c, redistest.Key(t, "{blitz}"))
	s := ss.At(serverNow(t, c).Add(time.Hour)) // a later season: its keys outlive the test
	b := ss.Board(s)
	if _, err := b.Set(ctx, blitz.Entry{ID: "kept", Points: 3, At: time.Millisecond, Best: time.Second}); err != nil {
		t.Fatal(err)
	}
	before := boardState(t, c, b.Keys())
	dir := filepath.Join("internal", "season", "blitz")
	head := bounds(s.Start, s.End)
	for _, name := range entryScripts(t, "internal/season/blitz/blitz.yaml") {
		r := loadScript(t, "internal/season/blitz/blitz.yaml", dir, name)
		for field, e := range map[string]blitz.Entry{
			"At":   {ID: "new", Points: 1, At: 2 * time.Second},
			"Best": {ID: "kept", Points: 50, Best: 2047 * time.Millisecond},
		} {
			ok := encodeBlitz(t, blitz.Entry{ID: "ok", Points: 1})
			_, err := r.run(ctx, c, b.Key(), r.args(t, head, ok, encodeBlitz(t, e))...).Result()
			wantClosed(t, name+" "+field, err, field)
		}
	}
	// Best's digit is 2047 - its offset in ms (asc): 47 is 2000 ms, the season's end. A field
	// update's refusal is one item's reply of a call that ran: it applies the expiry it is given
	// (here the board's own) and records its token (here with dedup off), as for any item's error.
	const endDigit = "47"
	update := bounds(s.Start, s.End)
	update[catalog.ArgMode], update[catalog.ArgMS], update[catalog.ArgWindow] = "pxat", before["expiry "+b.Key()], "0"
	for _, name := range []string{"min_best", "min_best_many"} {
		r := loadScript(t, "internal/season/blitz/blitz.yaml", dir, name)
		head := maps.Clone(update)
		var groups [][]any
		if r.op.Args.Stride() > 0 {
			groups = append(groups, []any{"kept", endDigit})
		} else {
			head[catalog.ArgID], head[catalog.ArgValue] = "kept", endDigit
		}
		v, err := r.run(ctx, c, b.Key(), r.args(t, head, groups...)...).Result()
		wantClosed(t, name, itemErr(t, v, err), "Best")
	}
	r := loadScript(t, "internal/season/blitz/blitz.yaml", dir, "changes")
	group := make([]any, r.op.Args.Stride()) // id, then one argument per field update, '' for none
	for i := range group {
		group[i] = ""
	}
	group[0] = "fresh"
	at, err := r.op.Args.Index("min_best")
	if err != nil {
		t.Fatal(err)
	}
	first, _ := r.op.Args.Index(catalog.ArgID)
	group[at-first] = endDigit
	v, err := r.run(ctx, c, b.Key(), r.args(t, update, group)...).Result()
	wantClosed(t, "changes", itemErr(t, v, err), "Best")
	if after := boardState(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
		t.Errorf("refused calls changed the board: %v → %v", before, after)
	}
	// 1999 ms, the season's last millisecond, is stored by set.
	set := loadScript(t, "internal/season/blitz/blitz.yaml", dir, "set")
	last := encodeBlitz(t, blitz.Entry{ID: "last", At: 1999 * time.Millisecond, Best: 1999 * time.Millisecond})
	if _, err := set.run(ctx, c, b.Key(), set.args(t, head, last)...).Result(); err != nil {
		t.Errorf("the season's last millisecond: %v", err)
	}
	if e, err := b.Get(ctx, "last"); err != nil || e.At != 1999*time.Millisecond || e.Best != 1999*time.Millisecond {
		t.Errorf("stored %+v, %v", e, err)
	}
}

// seasonVariants are periodic schemas whose season-anchored fields take every path of the set
// and best scripts' guard: score digits of an integer, a decimal and a bits62 score, member
// digits in decimal and hex, asc and desc. Each season lasts 2 s; every field is 11 bits of
// milliseconds (up to 2047 ms), with a season field named Off.
var seasonVariants = map[string]string{
	"integer desc": `{field: {order: desc}}`,
	"integer asc":  `{field: {order: asc}}`,
	"decimal":      `{score: decimal, decimal_places: 3, field: {order: desc}}`,
	"bits62":       `{score: bits62, field: {order: asc}}`,
	"member hex":   `{field: {order: asc, in: member}}`,
	"member dec":   `{field: {order: desc, in: member, digits: 4}}`,
}

// variantSchema writes the schema of a variant: Points, then Off (season-anchored), with the
// variant's score options and Off's placement, order and width.
func variantSchema(t *testing.T, spec string) string {
	t.Helper()
	var v struct {
		Score         string            `yaml:"score"`
		DecimalPlaces int               `yaml:"decimal_places"`
		Field         map[string]string `yaml:"field"`
	}
	if err := yaml.Unmarshal([]byte(spec), &v); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("package: variant\nid: {name: ID}\nseason: {every: 2s, starts: 2026-01-01T00:00:00Z, keep: 1}\n")
	if v.Score != "" {
		fmt.Fprintf(&b, "score: %s\n", v.Score)
	}
	if v.DecimalPlaces > 0 {
		fmt.Fprintf(&b, "decimal_places: %d\n", v.DecimalPlaces)
	}
	b.WriteString("fields:\n  - {name: Points, type: uint, bits: 8, order: desc}\n")
	b.WriteString("  - {name: Off, type: time, unit: ms, epoch: season")
	if v.Field["digits"] == "" {
		b.WriteString(", bits: 11")
	}
	for _, k := range []string{"order", "in", "digits"} {
		if v.Field[k] != "" {
			fmt.Fprintf(&b, ", %s: %s", k, v.Field[k])
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// TestSeasonGuardVariants: for every variant, the whole-entry writes' scripts (set, best,
// insert) store an entry whose offset is the season's last millisecond and refuse one at its end or later, up to the
// width's last value, with ErrSeasonClosed naming Off and nothing written.
func TestSeasonGuardVariants(t *testing.T) {
	c := redistest.Client(t)
	for name, spec := range seasonVariants {
		schema := variantSchema(t, spec)
		l, err := layout.Parse("variant.yaml", []byte(schema))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, schema)
		}
		lib, err := luaemit.Render(l)
		if err != nil {
			t.Fatal(err)
		}
		off := l.Field("Off")
		from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		head := bounds(from, from.Add(2*time.Second))
		for _, op := range catalog.Scripts(l) {
			if op.Season != catalog.SeasonEntries {
				continue
			}
			r := rawScript{l: l, op: op, script: scriptNamed(t, lib, op.Name)}
			key := redistest.Key(t, "{variant "+name+" "+op.Name+"}")
			keys := scriptKeys(l, key)[:2]             // the board's, which refused calls must not create
			pair := func(id string, ms uint64) []any { // keys count from each field's Lo
				score, member, err := l.Encode(layout.Entry{ID: id, Keys: []uint64{l.Field("Points").Lo + 7, off.Lo + ms}})
				if err != nil {
					t.Fatal(err)
				}
				return []any{rankgenrt.FormatScore(score), member}
			}
			for _, ms := range []uint64{2000, 2001, off.Hi - off.Lo} {
				_, err := r.run(ctx, c, key, r.args(t, head, pair("a", 1), pair("b", ms))...).Result()
				wantClosed(t, fmt.Sprintf("%s %s, %d ms", name, op.Name, ms), err, "Off")
			}
			if n, err := c.Exists(ctx, keys...).Result(); err != nil || n != 0 {
				t.Errorf("%s %s: refused calls wrote %d keys (%v)", name, op.Name, n, err)
			}
			if _, err := r.run(ctx, c, key, r.args(t, head, pair("a", 1999))...).Result(); err != nil {
				t.Errorf("%s %s: the season's last millisecond: %v", name, op.Name, err)
			}
			if n, err := c.ZCard(ctx, key).Result(); err != nil || n != 1 {
				t.Errorf("%s %s: %d entries stored (%v); want 1", name, op.Name, n, err)
			}
		}
	}
}

// scriptNamed is the library's function of operation name.
func scriptNamed(t testing.TB, lib *luaemit.Library, name string) *rankgenrt.Function {
	t.Helper()
	for _, fn := range lib.Functions {
		if fn.Op == name {
			return rankgenrt.NewLibrary(lib.Source).Function(name)
		}
	}
	t.Fatalf("no function %s", name)
	return nil
}
