package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// data is a schema's data: list, from data field shorthands (see field).
func data(fields ...string) string { return "data:\n" + strings.Join(fields, "") }

func str(name string, maxBytes int) string {
	return field(name, "string", fmt.Sprintf("max_bytes: %d", maxBytes))
}

var (
	name8  = str("Name", 8)
	car    = field("Car", "enum", "values: [kart, formula, touring]")
	level  = field("Level", "uint", "bits: 8")
	since  = field("Since", "time", "unit: s", "epoch: 2020-01-01T00:00:00Z", "bits: 32")
	pilot  = field("Pilot", "bool")
	bonus  = field("Bonus", "int", "min: 1", "max: 100")
	closed = field("Closed", "time", "unit: s", "epoch: 2020-01-01T00:00:00Z", "bits: 32")
)

// dataCase migrates a board with data from old to new; entries are "id Field=v … | Data=v …"
// (without " | " an entry has no data), want the board read with the new layout.
type dataCase struct {
	name, rule string // rule: the WIRE rule of breaking the change is ("" for none)
	old, new   func(t testing.TB) *layout.Layout
	mapping    migrate.Mapping
	entries    []string
	want       []string
}

var dataCases = []dataCase{
	{name: "data field added, Go zero", rule: "", old: lay("", points20+data(name8)), new: lay("", points20+data(name8, car)),
		entries: []string{"ann Points=1 | Name=Ann", "bob Points=2"},
		want:    []string{"ann Points=1 | Name=Ann Car=kart", "bob Points=2"}},
	{name: "data fields added, defaults", rule: "DATA_COUNT", old: lay("", points20+data(name8)), new: lay("", points20+data(name8, car, since, bonus)),
		mapping: migrate.Mapping{Defaults: map[string]string{"Car": "touring", "Since": "2024-02-03T04:05:06Z", "Bonus": "7"}},
		entries: []string{"ann Points=1 | Name=Ann", "bob Points=2", "cy Points=3 | Name=Zoë"},
		want:    []string{"ann Points=1 | Name=Ann Car=touring Since=2024-02-03T04:05:06Z Bonus=7", "bob Points=2", "cy Points=3 | Name=Zoë Car=touring Since=2024-02-03T04:05:06Z Bonus=7"}},
	{name: "data field dropped", rule: "DATA_COUNT", old: lay("", points20+data(name8, car, level)), new: lay("", points20+data(name8, level)),
		mapping: migrate.Mapping{Drops: []string{"Car"}},
		entries: []string{"ann Points=1 | Name=Ann Car=formula Level=200", "bob Points=2"},
		want:    []string{"ann Points=1 | Name=Ann Level=200", "bob Points=2"}},
	{name: "data widened", rule: "DATA_FORMAT", old: lay("", points20+data(name8, level, car, since, pilot)),
		new: lay("", points20+data(str("Name", 64), field("Level", "int", "min: -5", "max: 100000"),
			field("Car", "enum", "values: [rally, touring, formula, kart]"), field("Since", "time", "unit: ms", "epoch: 2020-01-01T00:00:00Z", "bits: 42"),
			field("Pilot", "uint", "bits: 2"))),
		entries: []string{"ann Points=1 | Name=Annabell Level=255 Car=touring Since=2026-05-06T07:08:09Z Pilot=true", "bob Points=2 | Level=0 Car=kart Since=2020-01-01T00:00:00Z"},
		want: []string{"ann Points=1 | Name=Annabell Level=255 Car=touring Since=2026-05-06T07:08:09Z Pilot=1",
			"bob Points=2 | Name= Level=0 Car=kart Since=2020-01-01T00:00:00Z Pilot=0"}},
	{name: "data narrowed, every value fits", rule: "DATA_FORMAT", old: lay("", points20+data(str("Name", 64), since)),
		new:     lay("", points20+data(str("Name", 3), field("Since", "time", "unit: s", "epoch: 2020-01-01T00:00:00Z", "bits: 31"))),
		entries: []string{"ann Points=1 | Name=Ann Since=2025-01-01T00:00:00Z", "bob Points=2 | Name=Bo Since=2020-01-01T00:00:00Z"},
		want:    []string{"ann Points=1 | Name=Ann Since=2025-01-01T00:00:00Z", "bob Points=2 | Name=Bo Since=2020-01-01T00:00:00Z"}},
	{name: "data renamed and widened", rule: "DATA_FORMAT", old: lay("", points20+data(name8, car)), new: lay("", points20+data(car, str("Nick", 16))),
		mapping: migrate.Mapping{Renames: map[string]string{"Name": "Nick"}},
		entries: []string{"ann Points=1 | Name=Ann Car=formula", "bob Points=2 | Name=Bob"},
		want:    []string{"ann Points=1 | Car=formula Nick=Ann", "bob Points=2 | Car=kart Nick=Bob"}},
	{name: "data with the ranking", rule: "FIELD_RADIX", old: lay("", points20+wins+data(name8)), new: lay("", pts("24")+wins+data(str("Name", 9), car)),
		entries: []string{"ann Points=1048575 Wins=3 | Name=Ann", "bob Points=2 Wins=65535"},
		want:    []string{"ann Points=1048575 Wins=3 | Name=Ann Car=kart", "bob Points=2 Wins=65535"}},
	{name: "ranking only, data unchanged", rule: "FIELD_RADIX", old: lay("", points20+data(name8, car)), new: lay("", pts("21")+data(name8, car)),
		entries: []string{"ann Points=1048575 | Name=Ann Car=touring", "bob Points=2"},
		want:    []string{"ann Points=1048575 | Name=Ann Car=touring", "bob Points=2"}},
	{name: "data added to a board without", rule: "", old: lay("", points20), new: lay("", pts("21")+data(name8, closed)),
		entries: []string{"ann Points=1", "bob Points=2"},
		want:    []string{"ann Points=1", "bob Points=2"}},
	{name: "all data dropped", rule: "DATA_COUNT", old: lay("", points20+data(name8, car)), new: lay("", points20),
		mapping: migrate.Mapping{Drops: []string{"Name", "Car"}},
		entries: []string{"ann Points=1 | Name=Ann", "bob Points=2"},
		want:    []string{"ann Points=1", "bob Points=2"}},
}

func TestMigrateData(t *testing.T) {
	for _, c := range dataCases {
		t.Run(c.name, func(t *testing.T) {
			old, new := c.old(t), c.new(t)
			if c.rule != "" && !reports(old, new, c.rule) {
				t.Fatalf("breaking does not report %s for this change", c.rule)
			}
			rc := redistest.Client(t)
			key := redistest.Key(t, "board")
			writeDataBoard(t, rc, old, key, c.entries)
			p, err := migrate.NewPlan(old, new, c.mapping)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := migrate.Run(context.Background(), rc, p, migrate.Options{Key: key, Batch: 1})
			if err != nil {
				t.Fatal(err)
			}
			withData := int64(strings.Count(strings.Join(c.want, "\n"), " | "))
			if !rep.Switched || rep.Copied != int64(len(c.entries)) || rep.WithData != withData {
				t.Errorf("report %+v: want switched, %d copied, %d with data", rep, len(c.entries), withData)
			}
			if got := readDataBoard(t, rc, new, key); !slices.Equal(got, sorted(c.want)) {
				t.Errorf("the new layout reads\n%q\nwant\n%q", got, sorted(c.want))
			}
			if !new.HasData() && rc.Exists(context.Background(), rankgenrt.DataKey(key)).Val() != 0 {
				t.Errorf("the data hash is left after dropping all data")
			}
			assertClaims(t, rc, key, new.Fingerprint)
		})
	}
}

// TestDataRenameAloneIsDone: a data field renamed, its format kept, stores the same; the data
// hash keeps serving it and there is nothing to do.
func TestDataRenameAloneIsDone(t *testing.T) {
	old, new := schema(t, "old.yaml", "", points20+data(name8)), schema(t, "new.yaml", "", points20+data(str("Nick", 8)))
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	writeDataBoard(t, c, old, key, []string{"ann Points=1 | Name=Ann"})
	p, err := migrate.NewPlan(old, new, migrate.Mapping{Renames: map[string]string{"Name": "Nick"}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(context.Background(), c, p, migrate.Options{Key: key})
	if err != nil || !rep.AlreadyDone {
		t.Fatalf("Run: %+v, %v; want already done", rep, err)
	}
	if got := readDataBoard(t, c, new, key); strings.Join(got, ",") != "ann Points=1 | Nick=Ann" {
		t.Errorf("the board reads %q", got)
	}
}

func TestDataMisfitsStopBeforeAnyWrite(t *testing.T) {
	old := schema(t, "old.yaml", "", points20+data(str("Name", 16), car))
	new := schema(t, "new.yaml", "", points20+data(str("Name", 4), field("Car", "enum", "values: [kart, touring]")))
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	writeDataBoard(t, c, old, key, []string{"ann Points=1 | Name=Annabel", "bob Points=2 | Name=Bob Car=formula", "cy Points=3 | Name=Cy Car=touring", "dee Points=4"})
	c.HSet(context.Background(), rankgenrt.DataKey(key), "eve", "3:Eve1:") // the second value cut short
	// A name that is not UTF-8, written by other code: the old layout reads it, no encoder
	// writes it.
	c.HSet(context.Background(), rankgenrt.DataKey(key), "fay", "3:F\xffy1:0")
	writeBoard(t, c, old, key, []string{"eve Points=5", "fay Points=6"})
	before := keyCount(t, c)
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: key, Batch: 2})
	var mis *migrate.MisfitError
	if !errors.As(err, &mis) || mis.Count != 4 {
		t.Fatalf("Run: %v; want a *MisfitError of 4 entries", err)
	}
	msg := err.Error()
	for _, want := range []string{`"ann": Name: rankgen: Name = 7 bytes`, `"bob": Car: value formula is not among [kart touring]`, `"eve": data: the old layout cannot decode it`,
		`"fay": data: rankgen: Name = "F\xffy" is not valid UTF-8 (byte 2 starts no character)`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if after := keyCount(t, c); after != before {
		t.Errorf("%d keys before, %d after: a refused migration wrote", before, after)
	}
}

// TestOtherDataFormatRefused: a data hash that another data format wrote is refused before
// anything is written, with or without data fields in the old layout.
func TestOtherDataFormatRefused(t *testing.T) {
	for _, oldData := range []string{data(name8), ""} {
		old := schema(t, "old.yaml", "", points20+oldData)
		new := schema(t, "new.yaml", "", points20+data(str("Name", 9)))
		c := redistest.Client(t)
		key := redistest.Key(t, fmt.Sprint("board", oldData == ""))
		writeBoard(t, c, old, key, []string{"ann Points=1"})
		c.HSet(context.Background(), rankgenrt.DataKey(key), "", "0123456789abcdef", "ann", "3:Ann")
		before := keyCount(t, c)
		p, err := migrate.NewPlan(old, new, migrate.Mapping{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: key})
		if !errors.Is(err, rankgenrt.ErrLayoutMismatch) || !strings.Contains(err.Error(), "holds data of format 0123456789abcdef") {
			t.Errorf("old data %q: Run: %v; want ErrLayoutMismatch naming the data format", oldData, err)
		}
		if after := keyCount(t, c); after != before {
			t.Errorf("%d keys before, %d after: a refused migration wrote", before, after)
		}
	}
}

// TestToKeyLeavesDataAtToKey: with -to-key the migrated data is under KEY2's data hash, and
// the source's is left as it was.
func TestToKeyLeavesDataAtToKey(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	old := schema(t, "old.yaml", "", points20+data(name8))
	new := schema(t, "new.yaml", "", points20+wins+data(str("Name", 12), car))
	writeDataBoard(t, c, old, key, []string{"ann Points=1 | Name=Ann", "bob Points=2"})
	p, err := migrate.NewPlan(old, new, migrate.Mapping{Defaults: map[string]string{"Wins": "1", "Car": "formula"}})
	if err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key, ToKey: to})
		if err != nil || rep.Switched || rep.AlreadyDone != (run == 1) {
			t.Fatalf("run %d: %+v, %v", run, rep, err)
		}
	}
	if got := readDataBoard(t, c, old, key); strings.Join(got, ",") != "ann Points=1 | Name=Ann,bob Points=2" {
		t.Errorf("the source reads %q", got)
	}
	if got := readDataBoard(t, c, new, to); strings.Join(got, ",") != "ann Points=1 Wins=1 | Name=Ann Car=formula,bob Points=2 Wins=1" {
		t.Errorf("the copy reads %q", got)
	}
}

func TestDataTTLCarriesOver(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "board")
	old, new := schema(t, "old.yaml", "", points20+data(name8)), schema(t, "new.yaml", "", points20+data(name8, car))
	writeDataBoard(t, c, old, key, []string{"ann Points=1 | Name=Ann"})
	c.PExpire(ctx, key, time.Hour)
	c.PExpire(ctx, rankgenrt.DataKey(key), time.Hour)
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, c, p, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, rankgenrt.DataKey(key)).Val(); ttl < 59*time.Minute {
		t.Errorf("data hash: time to live %v after the switch; want the source's hour", ttl)
	}
	if rep, err := migrate.Run(ctx, c, p, migrate.Options{Key: key}); err != nil || !rep.AlreadyDone {
		t.Errorf("rerun: %+v, %v; want already done", rep, err)
	}
}

// TestGeneratedLapsReadsMigratedData migrates a board written by the generated laps package
// to a schema with a longer Name and a new data field and back: the laps package writes the
// first board and reads the last, every name intact.
func TestGeneratedLapsReadsMigratedData(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "{laps}")
	lapsL := exampleSchema(t, "laps.yaml", same)
	if lapsL.StoreFingerprint != laps.StoreFingerprint {
		t.Fatalf("laps.yaml's stored-format fingerprint is not the generated package's: regenerate")
	}
	wider := exampleSchema(t, "laps.yaml", func(s string) string {
		s = strings.Replace(s, "max_bytes: 32\n    doc: The driver's display name.", "max_bytes: 64", 1)
		return s + "  - name: Country\n    type: string\n    max_bytes: 2\n"
	})
	b := laps.NewBoard(c, key)
	names := map[string]laps.Data{
		"d1": {Name: "Ayrton Senna da Silva", Car: laps.CarFormula},
		"d2": {Name: "Zoë \"Ice\" Ålund", Car: laps.CarRally},
		"d3": {Name: strings.Repeat("x", 32), Car: laps.CarKart},
	}
	for id, d := range names {
		if _, err := b.Set(ctx, laps.Entry{Driver: id, BestLap: 61000, Laps: 3, Data: d}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.AddLaps(ctx, "d4", 1); err != nil { // an entry without data
		t.Fatal(err)
	}
	there, err := migrate.NewPlan(lapsL, wider, migrate.Mapping{Defaults: map[string]string{"Country": "SE"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, c, there, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "d1"); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("the laps package reads the wider data: %v; want ErrLayoutMismatch", err)
	}
	got := readDataBoard(t, c, wider, key)
	if !strings.HasSuffix(got[1], `Name=Zoë "Ice" Ålund Car=rally Country=SE`) || strings.Contains(got[3], "|") {
		t.Errorf("the wider layout reads %q", got)
	}
	back, err := migrate.NewPlan(wider, lapsL, migrate.Mapping{Drops: []string{"Country"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(ctx, c, back, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
	for id, d := range names {
		if e, err := b.Get(ctx, id); err != nil || e.Data != d {
			t.Errorf("Get(%s) = %+v, %v; want data %+v", id, e, err, d)
		}
	}
	if e, err := b.Get(ctx, "d4"); err != nil || e.Data != (laps.Data{}) || e.Laps != 1 {
		t.Errorf("Get(d4) = %+v, %v; want the zero Data", e, err)
	}
}

// writeDataBoard stores entries ("id Field=v … | Data=v …") as a generated Board of l would:
// writeBoard's pairs and side key, and the data hash with each entry's data and l's data
// fingerprint.
func writeDataBoard(t testing.TB, c redis.UniversalClient, l *layout.Layout, key string, entries []string) {
	t.Helper()
	ctx := context.Background()
	ranking := make([]string, len(entries))
	for i, text := range entries {
		r, d, has := strings.Cut(text, " | ")
		ranking[i] = r
		if !has {
			continue
		}
		s, err := l.EncodeData(parseData(t, l, d))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		id, _, _ := strings.Cut(r, " ")
		c.HSet(ctx, rankgenrt.DataKey(key), id, s, "", l.DataFingerprint)
	}
	writeBoard(t, c, l, key, ranking)
}

// parseData reads "Data=v …" into l's data values (fields not named are zero).
func parseData(t testing.TB, l *layout.Layout, text string) []layout.DataValue {
	t.Helper()
	vals := l.ZeroData()
	for _, kv := range strings.Fields(text) {
		name, v, _ := strings.Cut(kv, "=")
		i := slices.IndexFunc(l.Data, func(f *layout.Field) bool { return f.Name == name })
		switch {
		case i < 0:
			t.Fatalf("%s: no data field %s", text, name)
		case l.Data[i].Kind == layout.String:
			vals[i].Text = v
		default:
			key, err := l.Data[i].Parse(v)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			vals[i].Key = key
		}
	}
	return vals
}

// readDataBoard reads key as readBoard does, with each entry's data decoded by l
// ("id Field=v … | Data=v …"; no " | " without data). The data hash must hold data only for
// the board's ids, under l's data fingerprint.
func readDataBoard(t testing.TB, c redis.UniversalClient, l *layout.Layout, key string) []string {
	t.Helper()
	ctx := context.Background()
	zs, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := c.HGetAll(ctx, rankgenrt.DataKey(key)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if fp := stored[""]; l.HasData() && len(stored) > 0 && rankgenrt.DataFormatLast(fp) != l.DataFingerprint {
		t.Errorf("the data hash records format %q, want %s", fp, l.DataFingerprint)
	}
	var out []string
	for _, z := range zs {
		e, err := l.Decode(z.Score, z.Member.(string))
		if err != nil {
			t.Fatalf("%q (score %v) does not decode: %v", z.Member, z.Score, err)
		}
		line := entryText(l, e)
		if s, ok := stored[e.ID]; ok && l.HasData() {
			vals, err := l.DecodeData(s)
			if err != nil {
				t.Fatalf("%s: data %q: %v", e.ID, s, err)
			}
			line += " | " + dataText(l, vals)
			delete(stored, e.ID)
		}
		out = append(out, line)
	}
	delete(stored, "")
	if l.HasData() && len(stored) > 0 {
		t.Errorf("the data hash holds data of ids the board lacks: %q", stored)
	}
	sort.Strings(out)
	return out
}

func dataText(l *layout.Layout, vals []layout.DataValue) string {
	var parts []string
	for i, f := range l.Data {
		v := vals[i].Text
		if f.Kind != layout.String {
			v = f.Format(vals[i].Key)
		}
		parts = append(parts, f.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

// TestToKeyKeepsNewWritersData: data added in a dual-write window; the new code already wrote
// an entry with data at KEY2, which the copy keeps, and the entries it copies stay without.
func TestToKeyKeepsNewWritersData(t *testing.T) {
	c := redistest.Client(t)
	key, to := redistest.Key(t, "old"), redistest.Key(t, "new")
	old, new := schema(t, "old.yaml", "", points20), schema(t, "new.yaml", "", points20+data(name8))
	writeBoard(t, c, old, key, []string{"ann Points=1", "bob Points=2"})
	writeDataBoard(t, c, new, to, []string{"ann Points=1 | Name=Ann"})
	p, err := migrate.NewPlan(old, new, migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(context.Background(), c, p, migrate.Options{Key: key, ToKey: to})
	if err != nil || rep.Copied != 1 || rep.Kept != 1 || rep.Sampled != 2 {
		t.Fatalf("Run: %+v, %v; want bob copied, ann kept, both verified", rep, err)
	}
	if got := readDataBoard(t, c, new, to); strings.Join(got, ",") != "ann Points=1 | Name=Ann,bob Points=2" {
		t.Errorf("the copy reads %q", got)
	}
}

// TestDataChangedDuringMigration: data written or re-formatted under a migration (by writers
// that were not stopped) is caught, by the verification or by the switch, and the board is
// left as it was.
func TestDataChangedDuringMigration(t *testing.T) {
	old, new := schema(t, "old.yaml", "", points20+data(name8)), schema(t, "new.yaml", "", points20+data(str("Name", 9)))
	for _, change := range []struct {
		name  string
		write func(c *redis.Client, dkey string)
		want  string
	}{
		{"data added to an entry", func(c *redis.Client, dkey string) { c.HSet(context.Background(), dkey, "bob", "3:Bob") }, `id "bob" has data on only one of`},
		{"data format changed", func(c *redis.Client, dkey string) { c.HSet(context.Background(), dkey, "", "0123456789abcdef") }, "now has data of format 0123456789abcdef"},
	} {
		c := redistest.Client(t)
		key := redistest.Key(t, change.name)
		entries := []string{"ann Points=1 | Name=Ann", "bob Points=2"}
		writeDataBoard(t, c, old, key, entries)
		p, err := migrate.NewPlan(old, new, migrate.Mapping{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = migrate.Run(context.Background(), c, p, migrate.Options{Key: key, Progress: func(pr migrate.Progress) {
			if pr.Phase == "copy" {
				change.write(c, rankgenrt.DataKey(key))
			}
		}})
		if !errors.Is(err, migrate.ErrChanged) || !strings.Contains(err.Error(), change.want) {
			t.Errorf("%s: Run: %v; want ErrChanged saying %q", change.name, err, change.want)
		}
		if n := c.ZCard(context.Background(), key).Val(); n != 2 || c.Get(context.Background(), rankgenrt.MetaKey(key)).Val() != old.Fingerprint {
			t.Errorf("%s: the board has %d entries and claims %q after the refusal", change.name, n, c.Get(context.Background(), rankgenrt.MetaKey(key)).Val())
		}
	}
}
