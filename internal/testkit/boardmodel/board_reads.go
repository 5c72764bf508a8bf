package boardmodel

import (
	"reflect"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// ranked reads a generated []Ranked.
func (b *Board) ranked(v reflect.Value) []Ranked {
	rs := make([]Ranked, v.Len())
	for i := range rs {
		r := v.Index(i)
		rs[i] = Ranked{Rank: r.FieldByName("Rank").Int(), Entry: b.FromEntry(Embedded(r, "Entry"))}
	}
	return rs
}

// rankedCall calls a read that returns ([]Ranked, error).
func (b *Board) rankedCall(name string, args ...any) ([]Ranked, error) {
	out := b.Call(name, args...)
	if err := ErrOf(out[1]); err != nil {
		return nil, err
	}
	return b.ranked(out[0]), nil
}

func (b *Board) ids(ids []string) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = ID(b.Layout, id)
	}
	return args
}

// GetMany calls GetMany: a Result per id.
func (b *Board) GetMany(ids ...string) ([]Result, error) {
	return b.results(b.Call("GetMany", b.ids(ids)...))
}

// RankMany calls RankMany.
func (b *Board) RankMany(ids ...string) ([]int64, error) {
	out := b.Call("RankMany", b.ids(ids)...)
	rs, _ := out[0].Interface().([]int64)
	return rs, ErrOf(out[1])
}

// RankedMany calls RankedMany.
func (b *Board) RankedMany(ids ...string) ([]Ranked, error) {
	return b.rankedCall("RankedMany", b.ids(ids)...)
}

// Around calls Around.
func (b *Board) Around(id string, before, after int64) ([]Ranked, error) {
	return b.rankedCall("Around", ID(b.Layout, id), before, after)
}

// AroundFilled calls AroundFilled.
func (b *Board) AroundFilled(id string, before, after int64) ([]Ranked, error) {
	return b.rankedCall("AroundFilled", ID(b.Layout, id), before, after)
}

// PageFromEnd calls PageFromEnd.
func (b *Board) PageFromEnd(offset, limit int64) ([]Ranked, error) {
	return b.rankedCall("PageFromEnd", offset, limit)
}

// Int calls a read by id that returns (int64, error): DenseRank, CompetitionRank, ….
func (b *Board) Int(name, id string) (int64, error) {
	out := b.Call(name, ID(b.Layout, id))
	return out[0].Int(), ErrOf(out[1])
}

// Percentile calls Percentile.
func (b *Board) Percentile(id string) (float64, error) {
	out := b.Call("Percentile", ID(b.Layout, id))
	return out[0].Float(), ErrOf(out[1])
}

// PageOf calls PageOf.
func (b *Board) PageOf(id string, size int64) (int64, error) {
	out := b.Call("PageOf", ID(b.Layout, id), size)
	return out[0].Int(), ErrOf(out[1])
}

// WithBands gives the board the generated package's constructors of the leading score field,
// <Lead>Between and <Lead>Is, which BandValue and the places of AroundScore start from (package functions are
// out of reflection's reach).
func (b *Board) WithBands(between, is any) *Board {
	b.between, b.is = reflect.ValueOf(between), reflect.ValueOf(is)
	return b
}

// prefix calls <F0>Is(keys[0]).<F1>Is(keys[1])… and returns the last Prefix value.
func (b *Board) prefix(keys []uint64) reflect.Value {
	v := b.is.Call([]reflect.Value{b.FieldValue(0, keys[0])})[0]
	for i := 1; i < len(keys); i++ {
		v = v.MethodByName(b.Layout.Fields[i].Name + "Is").Call([]reflect.Value{b.FieldValue(i, keys[i])})[0]
	}
	return v
}

// BandValue builds the generated Band of s through the generated constructors:
// <F0>Is(eq0)….<Fk>Between(lo, hi).
func (b *Board) BandValue(s BandSpec) reflect.Value {
	k := len(s.Eq)
	args := []reflect.Value{b.FieldValue(k, s.Lo), b.FieldValue(k, s.Hi)}
	if k == 0 {
		return b.between.Call(args)[0]
	}
	return b.prefix(s.Eq).MethodByName(b.Layout.Fields[k].Name + "Between").Call(args)[0]
}

// Between calls Between on the band s.
func (b *Board) Between(s BandSpec, offset, limit int64) ([]Ranked, error) {
	return b.rankedCall("Between", b.BandValue(s), offset, limit)
}

// CountBetween calls CountBetween on the band s.
func (b *Board) CountBetween(s BandSpec) (int64, error) {
	out := b.Call("CountBetween", b.BandValue(s))
	return out[0].Int(), ErrOf(out[1])
}

// AroundScore calls AroundScore at the Prefix of the leading keys given.
func (b *Board) AroundScore(prefix []uint64, before, after int64) ([]Ranked, error) {
	return b.rankedCall("AroundScore", b.prefix(prefix), before, after)
}

// AroundEntry calls AroundScore at the place of a whole entry.
func (b *Board) AroundEntry(e layout.Entry, before, after int64) ([]Ranked, error) {
	return b.rankedCall("AroundScore", b.Entry(e), before, after)
}

// Page calls Page.
func (b *Board) Page(offset, limit int64) ([]Ranked, error) {
	return b.rankedCall("Page", offset, limit)
}

// After calls After from the cursor (score, member): the page, without the next cursor.
func (b *Board) After(score float64, member string, limit int64) ([]Ranked, error) {
	cur := reflect.New(b.V.MethodByName("After").Type().In(1)).Elem()
	cur.FieldByName("Score").SetFloat(score)
	cur.FieldByName("Member").SetString(member)
	out := b.Call("After", cur, limit)
	if err := ErrOf(out[2]); err != nil {
		return nil, err
	}
	return b.ranked(out[0]), nil
}

// Range calls Range<Lead>, named by its catalogue row, with the leading field's keys lo and hi.
func (b *Board) Range(lo, hi uint64, offset, limit int64) ([]layout.Entry, error) {
	out := b.Call(b.method(catalog.Range), b.FieldValue(0, lo), b.FieldValue(0, hi), offset, limit)
	if err := ErrOf(out[1]); err != nil {
		return nil, err
	}
	es := make([]layout.Entry, out[0].Len())
	for i := range es {
		es[i] = b.FromEntry(out[0].Index(i))
	}
	return es, nil
}

// CountRange calls Count<Lead>Between, named by its catalogue row.
func (b *Board) CountRange(lo, hi uint64) (int64, error) {
	out := b.Call(b.method(catalog.CountRange), b.FieldValue(0, lo), b.FieldValue(0, hi))
	return out[0].Int(), ErrOf(out[1])
}

// method is the first generated method of the layout's operation of kind k.
func (b *Board) method(k catalog.Kind) string {
	return catalog.OpOf(catalog.Ops(b.Layout), k).Methods[0]
}
