package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/breaking"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// schema is a small board schema: head (score, separator, id lines) and its fields.
func schema(t testing.TB, name, head, fields string) *layout.Layout {
	t.Helper()
	if !strings.Contains(head, "id:") {
		head += "\nid:\n  name: ID\n  max_bytes: 16"
	}
	src := "package: mig\n" + head + "\nfields:\n" + fields
	l, err := layout.Parse(name, []byte(src))
	if err != nil {
		t.Fatalf("%s:\n%s\n%v", name, src, err)
	}
	return l
}

// field is one field of a schema, from "Name type key: value; key: value" shorthand.
func field(name, kind string, attrs ...string) string {
	s := fmt.Sprintf("  - name: %s\n    type: %s\n", name, kind)
	for _, a := range attrs {
		s += "    " + a + "\n"
	}
	return s
}

// ruleCase migrates a board from old to new, a change that breaking reports as rule.
type ruleCase struct {
	rule     string
	old, new func(t testing.TB) *layout.Layout
	mapping  migrate.Mapping
	entries  []string // old entries: "id Field=value ..."
	want     []string // the same entries read with the new layout, fields in its order
}

func pts(bits string) string { return field("Points", "uint", "bits: "+bits, "order: desc") }

var (
	points20 = pts("20")
	paid     = field("Paid", "bool", "order: desc")
	tier     = field("Tier", "enum", "values: [bronze, silver, gold]", "order: desc")
	wins     = field("Wins", "uint", "bits: 16", "order: desc", "in: member")
	when     = field("At", "time", "unit: s", "epoch: 2026-01-01T00:00:00Z", "bits: 31", "order: asc")
)

func lay(head, fields string) func(t testing.TB) *layout.Layout {
	return func(t testing.TB) *layout.Layout { return schema(t, "x.yaml", head, fields) }
}

// ruleCases has a migration for every WIRE rule of breaking whose change has a mapping.
var ruleCases = []ruleCase{
	{rule: "SCORE", old: lay("", points20+paid), new: lay("score: decimal\ndecimal_places: 2", points20+paid),
		entries: []string{"ann Points=1000 Paid=true", "bob Points=7 Paid=false"},
		want:    []string{"ann Points=1000 Paid=true", "bob Points=7 Paid=false"}},
	{rule: "ID_TYPE", old: lay("id:\n  name: ID\n  max_bytes: 20", points20), new: lay("id:\n  name: ID\n  type: uint64", points20),
		entries: []string{"17 Points=5", "18446744073709551615 Points=6"},
		want:    []string{"17 Points=5", "18446744073709551615 Points=6"}},
	{rule: "ID_ORDER", old: lay("id:\n  name: ID\n  max_bytes: 20", points20), new: lay("id:\n  name: ID\n  max_bytes: 20\n  order: asc", points20),
		entries: []string{"a Points=5", "ab Points=5", "b Points=6"},
		want:    []string{"a Points=5", "ab Points=5", "b Points=6"}},
	{rule: "ID_ORDER", old: lay("id:\n  name: ID\n  type: uint64\n  order: asc", points20), new: lay("id:\n  name: ID\n  type: uint64", points20),
		entries: []string{"9 Points=5", "10 Points=5", "18446744073709551615 Points=6"},
		want:    []string{"9 Points=5", "10 Points=5", "18446744073709551615 Points=6"}},
	{rule: "SEPARATOR", old: lay("separator: \":\"", points20+wins), new: lay("separator: \"|\"", points20+wins),
		entries: []string{"a:b Points=3 Wins=9", "c Points=4 Wins=65535"},
		want:    []string{"a:b Points=3 Wins=9", "c Points=4 Wins=65535"}},
	{rule: "FIELD_COUNT", old: lay("", points20+paid), new: lay("", points20+paid+tier),
		mapping: migrate.Mapping{Defaults: map[string]string{"Tier": "silver"}},
		entries: []string{"ann Points=10 Paid=true", "bob Points=20 Paid=false"},
		want:    []string{"ann Points=10 Paid=true Tier=silver", "bob Points=20 Paid=false Tier=silver"}},
	{rule: "FIELD_COUNT", old: lay("", points20+tier+paid), new: lay("", points20+paid),
		mapping: migrate.Mapping{Drops: []string{"Tier"}},
		entries: []string{"ann Points=10 Tier=gold Paid=true", "bob Points=20 Tier=bronze Paid=false"},
		want:    []string{"ann Points=10 Paid=true", "bob Points=20 Paid=false"}},
	{rule: "FIELD_MOVED", old: lay("", points20+paid+tier), new: lay("", points20+tier+paid),
		entries: []string{"ann Points=10 Paid=true Tier=gold", "bob Points=20 Paid=false Tier=bronze"},
		want:    []string{"ann Points=10 Tier=gold Paid=true", "bob Points=20 Tier=bronze Paid=false"}},
	{rule: "FIELD_KIND", old: lay("", points20), new: lay("", field("Points", "int", "min: -1000", "max: 1000000", "order: desc")),
		entries: []string{"ann Points=0", "bob Points=1000000"},
		want:    []string{"ann Points=0", "bob Points=1000000"}},
	{rule: "FIELD_PLACE", old: lay("", points20+field("Wins", "uint", "bits: 16", "order: desc")), new: lay("", points20+wins),
		entries: []string{"ann Points=1 Wins=2", "bob Points=1048575 Wins=65535"},
		want:    []string{"ann Points=1 Wins=2", "bob Points=1048575 Wins=65535"}},
	{rule: "FIELD_ORDER", old: lay("", points20), new: lay("", field("Points", "uint", "bits: 20", "order: asc")),
		entries: []string{"ann Points=0", "bob Points=99"},
		want:    []string{"ann Points=0", "bob Points=99"}},
	{rule: "FIELD_RADIX", old: lay("", points20+paid), new: lay("", pts("24")+paid),
		entries: []string{"ann Points=1048575 Paid=true", "bob Points=0 Paid=false"},
		want:    []string{"ann Points=1048575 Paid=true", "bob Points=0 Paid=false"}},
	{rule: "FIELD_WEIGHT", old: lay("", points20+field("Level", "uint", "bits: 8", "order: desc")),
		new:     lay("", points20+field("Level", "uint", "bits: 10", "order: desc")),
		entries: []string{"ann Points=12345 Level=255", "bob Points=1 Level=0"},
		want:    []string{"ann Points=12345 Level=255", "bob Points=1 Level=0"}},
	{rule: "FIELD_ENUM_VALUES", old: lay("", tier), new: lay("", field("Tier", "enum", "values: [iron, bronze, silver, gold]", "order: desc")),
		entries: []string{"ann Tier=bronze", "bob Tier=gold"},
		want:    []string{"ann Tier=bronze", "bob Tier=gold"}},
	{rule: "FIELD_UNIT", old: lay("", when), new: lay("", field("At", "time", "unit: ms", "epoch: 2026-01-01T00:00:00Z", "bits: 41", "order: asc")),
		entries: []string{"ann At=2026-01-01T00:00:00Z", "bob At=2027-03-04T05:06:07Z"},
		want:    []string{"ann At=2026-01-01T00:00:00Z", "bob At=2027-03-04T05:06:07Z"}},
	{rule: "FIELD_RANGE", old: lay("", field("Points", "uint", "max: 1000", "order: desc")),
		new:     lay("", field("Points", "uint", "min: 10", "max: 1009", "order: desc")),
		entries: []string{"ann Points=10", "bob Points=1000"},
		want:    []string{"ann Points=10", "bob Points=1000"}},
	{rule: "FIELD_TEXT", old: lay("", points20+wins), new: lay("", points20+field("Wins", "uint", "digits: 6", "order: desc", "in: member")),
		entries: []string{"ann Points=1 Wins=65535", "bob Points=2 Wins=0"},
		want:    []string{"ann Points=1 Wins=65535", "bob Points=2 Wins=0"}},
	// LAYOUT fires only when no other rule explains a new fingerprint, which the rules above
	// make unreachable (breaking's own test says so); migration maps values, not rules, so a
	// change of several rules at once stands for it: every field moved, renamed, re-typed.
	{rule: "LAYOUT", old: lay("separator: \":\"", points20+wins+when),
		new: lay("score: decimal\ndecimal_places: 1\nseparator: \"/\"",
			field("Won", "int", "min: -5", "max: 70000", "order: asc")+field("At", "time", "unit: ms", "epoch: 2026-01-01T00:00:00Z", "bits: 41", "order: asc", "in: member")+pts("24")),
		mapping: migrate.Mapping{Renames: map[string]string{"Wins": "Won"}},
		entries: []string{"ann Points=5 Wins=6 At=2026-02-03T04:05:06Z"},
		want:    []string{"ann Won=6 At=2026-02-03T04:05:06Z Points=5"}},
}

func TestEveryWireRuleHasAMigration(t *testing.T) {
	for _, r := range breaking.Rules() {
		if r.Category != breaking.Wire {
			continue
		}
		covered := slices.ContainsFunc(ruleCases, func(c ruleCase) bool { return c.rule == r.ID }) ||
			slices.ContainsFunc(dataCases, func(c dataCase) bool { return c.rule == r.ID }) ||
			slices.ContainsFunc(refusals, func(c refusal) bool { return c.rule == r.ID })
		if !covered {
			t.Errorf("WIRE rule %s has no migration test (ruleCases, dataCases) nor refusal test (refusals)", r.ID)
		}
	}
}

func TestMigrateEveryWireRule(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.rule, func(t *testing.T) {
			old, new := c.old(t), c.new(t)
			if c.rule != "LAYOUT" && !reports(old, new, c.rule) {
				t.Fatalf("breaking does not report %s for this change: the case tests another rule", c.rule)
			}
			rc := redistest.Client(t)
			key := redistest.Key(t, "board")
			writeBoard(t, rc, old, key, c.entries)
			p, err := migrate.NewPlan(old, new, c.mapping)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := migrate.Run(context.Background(), rc, p, migrate.Options{Key: key, Batch: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Switched || rep.Copied != int64(len(c.entries)) || rep.Verified != int64(len(c.entries)) {
				t.Errorf("report %+v: want switched, %d copied and verified", rep, len(c.entries))
			}
			if got := readBoard(t, rc, new, key); !slices.Equal(got, sorted(c.want)) {
				t.Errorf("the new layout reads\n%q\nwant\n%q", got, sorted(c.want))
			}
			assertClaims(t, rc, key, new.Fingerprint)
		})
	}
}

// TestSuggestedMigrations: for each change of ruleCases and dataCases, the mapping
// breaking.Migrate proposes (what rankgen breaking prints as a rankgen migrate command) is one
// NewPlan accepts, and it migrates the board, with its data, on a real server.
func TestSuggestedMigrations(t *testing.T) {
	type change struct {
		name     string
		old, new func(t testing.TB) *layout.Layout
		entries  []string
	}
	var changes []change
	for _, c := range ruleCases {
		changes = append(changes, change{c.rule, c.old, c.new, c.entries})
	}
	for _, c := range dataCases {
		if c.rule != "" {
			changes = append(changes, change{c.name, c.old, c.new, c.entries})
		}
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			old, new := c.old(t), c.new(t)
			m := breaking.Migrate(old, new)
			if m == nil {
				t.Fatal("breaking.Migrate proposes nothing for a WIRE change")
			}
			p, err := migrate.NewPlan(old, new, suggested(m))
			if err != nil {
				t.Fatalf("the suggested mapping %+v: %v", m, err)
			}
			rc := redistest.Client(t)
			key := redistest.Key(t, "board")
			writeDataBoard(t, rc, old, key, c.entries)
			rep, err := migrate.Run(context.Background(), rc, p, migrate.Options{Key: key})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Switched || rep.Copied != int64(len(c.entries)) {
				t.Errorf("report %+v: want switched, %d copied", rep, len(c.entries))
			}
			if got := readBoard(t, rc, new, key); len(got) != len(c.entries) {
				t.Errorf("the new layout reads %q", got)
			}
		})
	}
}

func suggested(m *breaking.Migration) migrate.Mapping {
	out := migrate.Mapping{Renames: map[string]string{}, Defaults: map[string]string{}, Drops: m.Drops}
	for _, r := range m.Renames {
		out.Renames[r.Old] = r.New
	}
	for _, d := range m.Defaults {
		out.Defaults[d.Field] = d.Value
	}
	return out
}

// TestParseSeasonOffset: a season-anchored time is given as its offset from the season's
// start, as Field.Format writes it, since the same value goes into every season's board.
func TestParseSeasonOffset(t *testing.T) {
	l := schema(t, "w.yaml", "season: {every: week, zone: Europe/Paris}",
		field("At", "time", "unit: s", "epoch: season", "bits: 20", "order: asc"))
	f := l.Fields[0]
	for text, want := range map[string]int64{"0s": 0, "36h0m5s": 129605, f.Format(f.Hi): layout.IntOf(f.Hi)} {
		key, err := f.Parse(text)
		if err != nil || key != layout.IntKey(want) {
			t.Errorf("Parse(%q) = %d, %v; want the offset %d s", text, layout.IntOf(key), err, want)
		}
	}
	for _, text := range []string{"1970-01-01T00:00:00Z", "1.5s", "-1s", "2000h"} {
		if _, err := f.Parse(text); err == nil {
			t.Errorf("Parse(%q) accepted", text)
		}
	}
}

func reports(old, new *layout.Layout, rule string) bool {
	changes := breaking.Compare(breaking.Schema{Layout: old, Name: "old.yaml"}, breaking.Schema{Layout: new, Name: "new.yaml"})
	return slices.ContainsFunc(changes, func(c breaking.Change) bool { return c.Rule == rule })
}

// writeBoard stores entries as a generated Board of l would: the pairs, the index (prefix
// layouts) or meta key, claiming l's fingerprint.
func writeBoard(t testing.TB, c redis.UniversalClient, l *layout.Layout, key string, entries []string) {
	t.Helper()
	ctx := context.Background()
	for _, text := range entries {
		e := parseEntry(t, l, text)
		score, member, err := l.Encode(e)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		c.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
		if l.HasPrefix() {
			c.HSet(ctx, rankgenrt.IndexKey(key), e.ID, member)
		}
	}
	if l.HasPrefix() {
		c.HSet(ctx, rankgenrt.IndexKey(key), "", l.Fingerprint)
	} else {
		c.Set(ctx, rankgenrt.MetaKey(key), l.Fingerprint, 0)
	}
}

func parseEntry(t testing.TB, l *layout.Layout, text string) layout.Entry {
	t.Helper()
	parts := strings.Fields(text)
	e := layout.Entry{ID: parts[0], Keys: make([]uint64, len(l.Fields))}
	for _, kv := range parts[1:] {
		name, v, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(l.Fields, func(f *layout.Field) bool { return f.Name == name })
		if i < 0 {
			t.Fatalf("%s: no field %s", text, name)
		}
		key, err := l.Fields[i].Parse(v)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		e.Keys[i] = key
	}
	return e
}

// readBoard decodes every stored pair of key with l, as sorted "id Field=value ..." lines.
func readBoard(t testing.TB, c redis.UniversalClient, l *layout.Layout, key string) []string {
	t.Helper()
	zs, err := c.ZRangeWithScores(context.Background(), key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, z := range zs {
		e, err := l.Decode(z.Score, z.Member.(string))
		if err != nil {
			t.Fatalf("%q (score %v) does not decode with the new layout: %v", z.Member, z.Score, err)
		}
		out = append(out, entryText(l, e))
	}
	sort.Strings(out)
	return out
}

func entryText(l *layout.Layout, e layout.Entry) string {
	s := e.ID
	for i, f := range l.Fields {
		s += " " + f.Name + "=" + f.Format(e.Keys[i])
	}
	return s
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

// assertClaims checks that both side keys of the migrated board claim the new layout (or the
// one the old layout did not use is absent), so writers of any old layout are refused.
func assertClaims(t testing.TB, c redis.UniversalClient, key, fp string) {
	t.Helper()
	ctx := context.Background()
	idx, ierr := c.HGet(ctx, rankgenrt.IndexKey(key), "").Result()
	meta, merr := c.Get(ctx, rankgenrt.MetaKey(key)).Result()
	if (ierr == nil && idx != fp) || (merr == nil && meta != fp) || (ierr != nil && merr != nil) {
		t.Errorf("claims: index %q (%v), meta %q (%v); want %s", idx, ierr, meta, merr, fp)
	}
	if n := c.Exists(ctx, rankgenrt.SideKey(key, "migrate:board"), rankgenrt.SideKey(rankgenrt.SideKey(key, "migrate:board"), "migrate")).Val(); n != 0 {
		t.Errorf("%d migration keys left after the switch", n)
	}
}

// refusal is a change without a mapping: NewPlan refuses it, saying why.
type refusal struct {
	name, rule string // rule: the WIRE rule of breaking the change is ("" for none)
	old, new   func(t testing.TB) *layout.Layout
	mapping    migrate.Mapping
	want       string
}

var refusals = []refusal{
	{name: "enum to uint", rule: "FIELD_KIND", old: lay("", tier), new: lay("", field("Tier", "uint", "bits: 4", "order: desc")),
		want: "field Tier: type enum → uint has no mapping of values"},
	{name: "time to int", rule: "FIELD_KIND", old: lay("", when), new: lay("", field("At", "int", "min: 0", "max: 100", "order: desc")),
		want: "field At: type time → int has no mapping of values"},
	{name: "new field without default", rule: "FIELD_COUNT", old: lay("", points20), new: lay("", points20+paid),
		want: "field Paid is new: give its value in migrated entries with -default Paid=VALUE"},
	{name: "gone field not dropped", rule: "FIELD_COUNT", old: lay("", points20+paid), new: lay("", points20),
		want: "field Paid is gone from the new layout: pass -drop Paid to drop its values, or -rename Paid=NEW"},
	{name: "season calendar", rule: "SEASON", old: lay("season: {every: week, zone: Europe/Paris}", points20), new: lay("season: {every: week, zone: UTC}", points20),
		want: "the season calendar changes: season boards and their offsets have no mapping"},
	{name: "bad default and rename", rule: "FIELD_COUNT", old: lay("", points20), new: lay("", points20+tier),
		mapping: migrate.Mapping{Defaults: map[string]string{"Tier": "diamond"}, Renames: map[string]string{"Score": "Points"}},
		want:    "-default Tier: want one of bronze, silver, gold, not \"diamond\"; -rename Score=Points: the old layout has no field Score"},
	{name: "default finer than its unit", rule: "FIELD_COUNT", old: lay("", points20), new: lay("", points20+when),
		mapping: migrate.Mapping{Defaults: map[string]string{"At": "2026-03-01T00:00:00.9Z"}},
		want:    "-default At = 2026-03-01T00:00:00.9Z is not a whole number of seconds (the field's unit); truncate or round it first"},
	{name: "data string to uint", rule: "DATA_FORMAT", old: lay("", points20+nickData), new: lay("", points20+data(field("Nick", "uint", "bits: 8"))),
		want: "data field Nick: type string → uint has no mapping of values (a string maps only to a string)"},
	{name: "data enum to uint", rule: "DATA_FORMAT", old: lay("", points20+data(car)), new: lay("", points20+data(field("Car", "uint", "bits: 8"))),
		want: "data field Car: type enum → uint has no mapping of values"},
	{name: "new data field whose zero is out of range", rule: "DATA_COUNT", old: lay("", points20+nickData), new: lay("", points20+nickData+bonus),
		want: "data field Bonus is new and its Go zero value is outside its range (1 … 100): give its value in migrated entries with -default Bonus=VALUE"},
	{name: "bad data default", rule: "", old: lay("", points20+nickData), new: lay("", points20+nickData+car+str("Team", 2)),
		mapping: migrate.Mapping{Defaults: map[string]string{"Car": "bus", "Team": "abc"}},
		want:    "-default Car: want one of kart, formula, touring, not \"bus\"; -default Team = 3 bytes"},
	{name: "data default on a board without data", old: lay("", points20), new: lay("", points20+nickData),
		mapping: migrate.Mapping{Defaults: map[string]string{"Nick": "x"}},
		want:    "-default Nick: the old layout has no data, so migrated entries stay without data"},
	{name: "data field gone, not dropped", rule: "DATA_COUNT", old: lay("", points20+nickData+car), new: lay("", points20+nickData),
		want: "data field Car is gone from the new layout: pass -drop Car to drop its values, or -rename Car=NEW"},
	{name: "field renamed into data", rule: "FIELD_COUNT", old: lay("", points20+paid+nickData), new: lay("", points20+data(str("Nick", 8), field("Paid", "bool"))),
		mapping: migrate.Mapping{Renames: map[string]string{"Paid": "Paid"}},
		want:    "-rename Paid=Paid: one is a ranking field and the other a data field"},
	{name: "fields of one type swapped", rule: "FIELD_MOVED", old: lay("", points20+field("Level", "uint", "bits: 20", "order: desc")),
		new:  lay("", field("Level", "uint", "bits: 20", "order: desc")+points20),
		want: "the old and new layouts store entries the same way"},
	{name: "data fields swapped in the same format", old: lay("", points20+data(str("A", 8), str("B", 8))), new: lay("", points20+data(str("B", 8), str("A", 8))),
		want: "the old and new layouts store entries the same way"},
}

// nickData declares one data field, a string.
const nickData = "data:\n  - name: Nick\n    type: string\n    max_bytes: 8\n"

func TestRefuseChangesWithoutMapping(t *testing.T) {
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			old, new := c.old(t), c.new(t)
			if c.rule != "" && !reports(old, new, c.rule) {
				t.Fatalf("breaking does not report %s for this change", c.rule)
			}
			_, err := migrate.NewPlan(old, new, c.mapping)
			if !errors.Is(err, migrate.ErrNoMapping) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("NewPlan: %v\nwant ErrNoMapping saying %q", err, c.want)
			}
		})
	}
}
