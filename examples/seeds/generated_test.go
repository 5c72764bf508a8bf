package seeds_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// genPkg is one generated package seen through reflection: its Entry type, Encode, Decode and
// Compare, so that one test drives all seven against the interpreted codec.
type genPkg struct {
	schema  string
	entry   reflect.Type
	decode  func(float64, string) (any, error)
	compare func(a, b any) int
}

// genPkgs are the generated packages of the seeds (internal/testkit/exampleboards).
var genPkgs = func() []genPkg {
	var out []genPkg
	for _, ex := range seedExamples() {
		out = append(out, genPkg{ex.SchemaName(), ex.Codec.Entry(), ex.Codec.Decode, ex.Codec.Compare})
	}
	return out
}()

// toGen builds the generated Entry for an interpreted entry.
func (g genPkg) toGen(t testing.TB, l *layout.Layout, e layout.Entry) any {
	t.Helper()
	v := reflect.New(g.entry).Elem()
	v.FieldByName(l.IDName).SetString(e.ID)
	for i, f := range l.Fields {
		fv := v.FieldByName(f.Name)
		switch f.Kind {
		case layout.Uint:
			fv.SetUint(e.Keys[i])
		case layout.Bool:
			fv.SetBool(e.Keys[i] == 1)
		case layout.Time:
			fv.Set(reflect.ValueOf(f.TimeOf(e.Keys[i])))
		default:
			t.Fatalf("field kind %v not used by the seeds", f.Kind)
		}
	}
	return v.Interface()
}

// fromGen reads a generated Entry back as an interpreted entry.
func fromGen(t testing.TB, l *layout.Layout, x any) layout.Entry {
	t.Helper()
	v := reflect.ValueOf(x)
	e := layout.Entry{ID: v.FieldByName(l.IDName).String(), Keys: make([]uint64, len(l.Fields))}
	for i, f := range l.Fields {
		fv := v.FieldByName(f.Name)
		switch f.Kind {
		case layout.Uint:
			e.Keys[i] = fv.Uint()
		case layout.Bool:
			e.Keys[i] = flag(fv.Bool())
		case layout.Time:
			n, _ := layout.TimeUnits(fv.Interface().(time.Time), f.Unit)
			e.Keys[i] = layout.IntKey(n)
		}
	}
	return e
}

func encodeGen(x any) (float64, string, error) {
	return x.(interface {
		Encode() (float64, string, error)
	}).Encode()
}

// seedSeconds is a seed 002 time in milliseconds as the schemas of seconds take it: truncated,
// as the seed's ts/1000 does (Encode refuses a time finer than its unit).
func seedSeconds(ms int64) time.Time { return time.UnixMilli(ms).Truncate(time.Second) }

// The vectors through the generated packages, from typed Go values as users write
// them (seed 002's times in milliseconds truncated to seconds where the schema's unit is the
// second; Encode refuses them untruncated).
func TestGeneratedSeedVectors(t *testing.T) {
	ms := func(n int64) time.Time { return time.UnixMilli(n) }
	s := func(n int64) time.Time { return time.Unix(n, 0) }
	type vector struct {
		entry interface {
			Encode() (float64, string, error)
		}
		score  float64
		member string
	}
	vectors := []vector{
		{seed002binary.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: seedSeconds(1571819021259)}, 108201125491, "A"},
		{seed002binary.Entry{Player: "B", Points: 200, Paid: false, ReachedAt: seedSeconds(1571819021259)}, 215038436979, "B"},
		{seed002binary.Entry{Player: "C", Points: 200, Paid: true, ReachedAt: seedSeconds(1571819021259)}, 215575307891, "C"},
		{seed002binary.Entry{Player: "D", Points: 400, Paid: false, ReachedAt: seedSeconds(1571819021259)}, 429786801779, "D"},
		{seed002binary.Entry{Player: "E", Points: 200, Paid: true, ReachedAt: seedSeconds(1571810001259)}, 215575316911, "E"},
		{seed002decimal.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: seedSeconds(1571819021259)}, 100.1290072179, "A"},
		{seed002decimal.Entry{Player: "B", Points: 200, Paid: false, ReachedAt: seedSeconds(1571819021259)}, 200.0290072179, "B"},
		{seed002decimal.Entry{Player: "C", Points: 200, Paid: true, ReachedAt: seedSeconds(1571819021259)}, 200.1290072179, "C"},
		{seed002decimal.Entry{Player: "D", Points: 400, Paid: false, ReachedAt: seedSeconds(1571819021259)}, 400.0290072179, "D"},
		{seed002decimal.Entry{Player: "E", Points: 200, Paid: true, ReachedAt: seedSeconds(1571810001259)}, 200.1290081199, "E"},
		{seed002keysort.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: ms(1571819021259)}, 100, "1-8428180978740-A"},
		{seed002keysort.Entry{Player: "B", Points: 200, Paid: false, ReachedAt: ms(1571819021259)}, 200, "0-8428180978740-B"},
		{seed002keysort.Entry{Player: "E", Points: 200, Paid: true, ReachedAt: ms(1571810001259)}, 200, "1-8428189998740-E"},
		{seed000member.Entry{UserID: "user123", Primary: 9876543210, ReachedAt: s(1721059200)}, 9876543210, "1434700799:user123"},
		{seed000member.Entry{UserID: "a:b", Primary: 0, ReachedAt: s(0)}, 0, "3155759999:a:b"},
		{seed001zranking.Entry{UID: "u1", Value: 100, UpdatedAt: s(seed001End - 12345)}, 100.012345, "u1"},
		{seed001zranking.Entry{UID: "u2", Value: 1_000_000, UpdatedAt: s(seed001End - 500_000)}, 1000000.5, "u2"},
		{seed003scaling.Entry{Member: "m", Raw: 100, At: s(1700000000)}, 1000000447483647, "m"},
		{seed003scaling.Entry{Member: "m", Raw: 899, At: s(1700000000)}, 8990000447483647, "m"},
		{seed004shift.Entry{UserID: "A", Points: 100, At: s(1000)}, 431644212247, "A"},
		{seed004shift.Entry{UserID: "B", Points: 100, At: s(2000)}, 431644211247, "B"},
		{seed004shift.Entry{UserID: "C", Points: 101, At: s(3000)}, 435939177543, "C"},
	}
	for _, v := range vectors {
		score, member, err := v.entry.Encode()
		if err != nil || score != v.score || member != v.member {
			t.Errorf("%T %+v: Encode = (%v, %q, %v), want (%v, %q)", v.entry, v.entry, score, member, err, v.score, v.member)
		}
	}
	_, _, err := seed002binary.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: ms(1571819021259)}.Encode()
	var re *rankgenrt.RangeError
	if !errors.As(err, &re) || re.Unit != "seconds" || !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("Encode of a time finer than its unit (259 ms in a field of seconds): %v; want a *RangeError naming the unit", err)
	}
	// Decode gives the typed entry back (times at the schema's unit, in UTC).
	e, err := seed002binary.Decode(108201125491, "A")
	want := seed002binary.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: time.Unix(1571819021, 0).UTC()}
	if err != nil || e != want {
		t.Errorf("seed002binary.Decode = %+v %v, want %+v", e, err, want)
	}
	e0, err := seed000member.Decode(9876543210, "1434700799:user123")
	if err != nil || e0 != (seed000member.Entry{UserID: "user123", Primary: 9876543210, ReachedAt: time.Unix(1721059200, 0).UTC()}) {
		t.Errorf("seed000member.Decode = %+v %v", e0, err)
	}
	e1, err := seed001zranking.Decode(1000000.5, "u2")
	if err != nil || e1.Value != 1_000_000 || e1.UpdatedAt.Unix() != seed001End-500_000 {
		t.Errorf("seed001zranking.Decode(1000000.5) = %+v %v; zranking's score2val reads 1", e1, err)
	}
	// The traps, refused with typed errors by the generated code too.
	if _, _, err := (seed004shift.Entry{UserID: "u", Points: 100, At: s(1 << 31)}).Encode(); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("seed004shift after 2038: %v, want ErrOutOfRange", err)
	}
	if _, _, err := (seed004shift.Entry{UserID: "u", Points: 1 << 21, At: s(0)}).Encode(); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("seed004shift points 2^21: %v, want ErrOutOfRange", err)
	}
	if _, _, err := (seed003scaling.Entry{Member: "m", Raw: 900, At: s(0)}).Encode(); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("seed003scaling raw 900: %v, want ErrOutOfRange", err)
	}
	if _, err := seed000member.Decode(5, "12:user123"); !errors.Is(err, rankgenrt.ErrBadMember) {
		t.Errorf("seed000member short prefix: %v, want ErrBadMember", err)
	}
	// zranking's Lua adding 759 (at deltaTs 798898) to 13114: one ulp above 13873.798898.
	twice := seed001LuaAdd(mustScore(t, "13114.000001"), mustScore(t, "759.798898"))
	if twice == mustScore(t, "13873.798898") {
		t.Fatalf("the seed's sum %v is the decimal", twice)
	}
	if _, err := seed001zranking.Decode(twice, "u"); !errors.Is(err, rankgenrt.ErrBadScore) {
		t.Errorf("seed001zranking twice-rounded score %v: %v, want ErrBadScore", twice, err)
	}
}

// Random entries of every seed schema: generated Encode equals the interpreted codec bit for
// bit, Decode inverts it, and generated Compare equals layout.Compare.
func TestGeneratedMatchesInterpreted(t *testing.T) {
	r := rng(t)
	for _, g := range genPkgs {
		l := load(t, g.schema)
		var prev layout.Entry
		var prevGen any
		for i := 0; i < 20_000; i++ {
			e := randomEntry(r, l)
			x := g.toGen(t, l, e)
			ws, wm, err := l.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			gs, gm, err := encodeGen(x)
			if err != nil || gs != ws || gm != wm {
				t.Fatalf("%s %+v: generated Encode = (%v, %q, %v); interpreted (%v, %q)", g.schema, x, gs, gm, err, ws, wm)
			}
			back, err := g.decode(gs, gm)
			if err != nil {
				t.Fatalf("%s: Decode(%v, %q): %v", g.schema, gs, gm, err)
			}
			if got := fromGen(t, l, back); got.ID != e.ID || !slices.Equal(got.Keys, e.Keys) {
				t.Fatalf("%s: Decode(Encode(%v)) = %v", g.schema, e, got)
			}
			if i > 0 {
				if a, b := sign(g.compare(x, prevGen)), sign(l.Compare(e, prev)); a != b {
					t.Fatalf("%s: generated Compare(%v, %v) = %d, interpreted %d", g.schema, e, prev, a, b)
				}
			}
			prev, prevGen = e, x
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func mustScore(t testing.TB, s string) float64 {
	t.Helper()
	f, err := parseFloat(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestEncodeRefusesFinerThanUnit: generated Encode refuses a time finer than its field's unit
// with a *RangeError naming the unit, where it used to truncate (issue 19's case:
// 2026-03-01T00:00:00.9Z in a field of seconds scored as 00Z), and the layout's parser refuses
// the same time's text alike; the time in whole units encodes. A season-anchored offset
// (weekly, seconds) likewise.
func TestEncodeRefusesFinerThanUnit(t *testing.T) {
	whole := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		schema, field string
		encode        func(at time.Time) error
		extra         []time.Duration // finer than the unit
	}{
		{"seed002_binary", "ReachedAt", func(at time.Time) error {
			_, _, err := seed002binary.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: at}.Encode()
			return err
		}, []time.Duration{900 * time.Millisecond, time.Nanosecond, time.Second - time.Nanosecond}},
		{"seed002_keysort", "ReachedAt", func(at time.Time) error {
			_, _, err := seed002keysort.Entry{Player: "A", Points: 100, Paid: true, ReachedAt: at}.Encode()
			return err
		}, []time.Duration{time.Microsecond, time.Nanosecond, time.Millisecond - time.Nanosecond}},
	} {
		f := fieldOf(t, load(t, c.schema), c.field)
		if err := c.encode(whole); err != nil {
			t.Fatalf("%s: Encode of %s: %v", c.schema, whole, err)
		}
		for _, extra := range c.extra {
			at := whole.Add(extra)
			var re *rankgenrt.RangeError
			if err := c.encode(at); !errors.As(err, &re) || re.Unit == "" || !errors.Is(err, rankgenrt.ErrOutOfRange) {
				t.Errorf("%s: Encode of %s (%s finer than its unit %s): %v; want a *RangeError naming the unit", c.schema, at.Format(time.RFC3339Nano), extra, f.Unit, err)
			}
			if _, err := f.Parse(at.Format(time.RFC3339Nano)); !errors.As(err, &re) || re.Unit == "" {
				t.Errorf("%s: layout Parse of %s: %v; want the same refusal", c.schema, at.Format(time.RFC3339Nano), err)
			}
		}
	}
	_, _, err := weekly.Entry{PlayerID: "ann", Points: 5, ReachedAt: 36*time.Hour + 500*time.Millisecond}.Encode()
	var re *rankgenrt.RangeError
	if !errors.As(err, &re) || re.Unit != "seconds" || re.Value != "36h0m0.5s" {
		t.Errorf("weekly: Encode of an offset of 36h0m0.5s: %v; want a *RangeError naming the unit", err)
	}
	if _, _, err := (weekly.Entry{PlayerID: "ann", Points: 5, ReachedAt: 36 * time.Hour}).Encode(); err != nil {
		t.Errorf("weekly: Encode of an offset of 36h: %v", err)
	}
}

func fieldOf(t *testing.T, l *layout.Layout, name string) *layout.Field {
	t.Helper()
	for _, f := range l.Fields {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("%s has no field %s", l.File, name)
	return nil
}
