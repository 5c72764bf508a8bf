// Package boardmodel is the in-memory model of a generated Board, built on the interpreted
// codec (generator/layout): the reference the board tests compare every generated Board with.
// It holds entries as layout keys, by id, and applies each Board operation as the generated
// Board documents it.
package boardmodel

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Model is a board in memory: Entries maps each id to its keys, and Data each id that Set or
// Best stored data for to that data (a layout with data fields). Season is the season a
// periodic board holds (nil for a board that is not periodic; see For).
type Model struct {
	Layout  *layout.Layout
	Entries map[string][]uint64
	Data    map[string][]layout.DataValue
	Season  *rankgenrt.Season
}

// New returns an empty model of a board with layout l.
func New(l *layout.Layout) *Model {
	return &Model{Layout: l, Entries: map[string][]uint64{}, Data: map[string][]layout.DataValue{}}
}

// Zero is the entry an update starts from when the id has none: each field's Go zero value
// (0, false, the first enum value; for a time, the Unix epoch), or its lowest-ranking value
// when zero is outside its range.
func Zero(l *layout.Layout) []uint64 {
	keys := make([]uint64, len(l.Fields))
	for i, f := range l.Fields {
		keys[i] = f.Key(f.ZeroDigit())
	}
	return keys
}

// Sorted returns the entries in board order (layout.Compare: the first ranks first).
func (m *Model) Sorted() []layout.Entry {
	out := make([]layout.Entry, 0, len(m.Entries))
	for id, keys := range m.Entries {
		out = append(out, layout.Entry{ID: id, Keys: keys, Data: m.dataOf(id)})
	}
	slices.SortFunc(out, m.Layout.Compare)
	return out
}

// Written is what a write did to one entry, as the generated Written says it: the entry after
// the write, the entry its id held before (Existed false: none), and whether the write changed
// the stored entry (for Best: replaced it).
type Written struct {
	Entry   layout.Entry
	Before  layout.Entry
	Existed bool
	Changed bool
}

// Set stores an entry; an invalid one is refused with the interpreted codec's error. It
// changes the entry when the id had none, or its keys or stored data differ from e's (an entry
// that a field update created holds no data yet: storing even the zero Data changes it).
func (m *Model) Set(e layout.Entry) (Written, error) {
	if err := m.Check(e); err != nil {
		return Written{}, err
	}
	w := m.before(e.ID)
	stored, hasData := m.Data[e.ID]
	w.Changed = !w.Existed || !slices.Equal(w.Before.Keys, e.Keys) ||
		(m.Layout.HasData() && (!hasData || !slices.Equal(stored, m.given(e))))
	m.Entries[e.ID] = slices.Clone(e.Keys)
	m.storeData(e)
	w.Entry = m.entry(e.ID)
	return w, nil
}

// Best stores e when the id has no entry or e ranks strictly before it (Changed), and returns
// what it did.
func (m *Model) Best(e layout.Entry) (Written, error) {
	if err := m.Check(e); err != nil {
		return Written{}, err
	}
	w := m.before(e.ID)
	if w.Existed && m.Layout.Compare(e, w.Before) >= 0 {
		w.Entry = w.Before
		return w, nil
	}
	m.Entries[e.ID] = slices.Clone(e.Keys)
	m.storeData(e) // the data travels with the entry it was given with
	w.Changed, w.Entry = true, m.entry(e.ID)
	return w, nil
}

// Insert stores e when the id has no entry (Changed), and otherwise keeps the stored entry,
// its data included, as both Before and Entry.
func (m *Model) Insert(e layout.Entry) (Written, error) {
	if err := m.Check(e); err != nil {
		return Written{}, err
	}
	w := m.before(e.ID)
	if w.Existed {
		w.Entry = w.Before
		return w, nil
	}
	m.Entries[e.ID] = slices.Clone(e.Keys)
	m.storeData(e)
	w.Changed, w.Entry = true, m.entry(e.ID)
	return w, nil
}

// before is a write's Written before it writes: the entry of id, if any.
func (m *Model) before(id string) Written {
	_, ok := m.Entries[id]
	if !ok {
		return Written{}
	}
	return Written{Before: m.entry(id), Existed: true}
}

// entry is the entry of id, with its data, as a read returns it.
func (m *Model) entry(id string) layout.Entry {
	return layout.Entry{ID: id, Keys: slices.Clone(m.Entries[id]), Data: m.dataOf(id)}
}

// Update is one field update: Op is add (Delta) or set/max/min (Key, a layout key). In a
// change list, Op may also be OpData (SetData): Data replaces the entry's data, Field is unused.
type Update struct {
	Field int // index in Fields
	Op    layout.Op
	Delta int64
	Key   uint64
	Data  []layout.DataValue
}

// OpData is the Op of a change list's SetData.
const OpData layout.Op = "data"

// String describes u in l's terms, for test messages.
func (u Update) String(l *layout.Layout) string {
	if u.Op == OpData {
		return fmt.Sprintf("data %v", u.Data)
	}
	f := l.Fields[u.Field]
	if u.Op == layout.OpAdd {
		return fmt.Sprintf("add %s %+d", f.Name, u.Delta)
	}
	return fmt.Sprintf("%s %s %s", u.Op, f.Name, f.Format(u.Key))
}

// Next computes an update without applying it: the keys the entry of id takes (stamped fields
// left as they were), and whether the update writes (the field changes or the id had no
// entry). An add out of the field's range saturates or fails with ErrOverflow as the field
// declares; max and min keep the larger or smaller value (keys order like values, signed ones
// included), and on an id without an entry store the value submitted (the other fields start
// from Zero).
func (m *Model) Next(id string, u Update) (keys []uint64, changed bool, err error) {
	if err := m.Layout.CheckID(id); err != nil {
		return nil, false, err
	}
	old, exists := m.Entries[id]
	if !exists {
		old = Zero(m.Layout)
	}
	next, err := m.next(old, exists, u)
	if err != nil {
		return nil, false, err
	}
	keys = slices.Clone(old)
	keys[u.Field] = next
	return keys, next != old[u.Field] || !exists, nil
}

// next is the value field u.Field takes when u applies to an entry whose keys are old; exists
// says whether the id had an entry before the call (a first min or max takes the value).
func (m *Model) next(old []uint64, exists bool, u Update) (next uint64, err error) {
	f := m.Layout.Fields[u.Field]
	cur := old[u.Field]
	switch u.Op {
	case layout.OpAdd:
		v := new(big.Int).Add(Value(f, cur), big.NewInt(u.Delta))
		lo, hi := Value(f, f.Lo), Value(f, f.Hi)
		switch {
		case v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0:
			next = key(f, v)
		case f.Overflow == layout.OverflowSaturate && v.Cmp(lo) < 0:
			next = f.Lo
		case f.Overflow == layout.OverflowSaturate:
			next = f.Hi
		default:
			return 0, rankgenrt.ErrOverflow
		}
	default:
		if err := m.checkOffset(f, u.Key); err != nil {
			return 0, err
		}
		if err := f.Check(u.Key); err != nil {
			return 0, err
		}
		switch u.Op {
		case layout.OpSet:
			next = u.Key
		case layout.OpMax, layout.OpMin:
			next = u.Key // the first write of a best-of field takes the value submitted
			if exists && u.Op == layout.OpMax {
				next = max(cur, u.Key)
			} else if exists {
				next = min(cur, u.Key)
			}
		}
	}
	return next, nil
}

// Stamper gives the value a stamped field takes; a test reads it from the board's reply and
// checks it against the clock (StampWindow), since the model cannot know the instant the
// board saw.
type Stamper func(field int) (uint64, error)

// Update applies a field update and returns what it did: when the update writes, every
// stamped field but the one it sets takes its value from stamp. On error the entry is
// unchanged.
func (m *Model) Update(id string, u Update, stamp Stamper) (Written, error) {
	keys, changed, err := m.Next(id, u)
	if err != nil {
		return Written{}, err
	}
	if changed {
		if err := m.stampAll(keys, stamp, func(i int) bool { return i == u.Field }); err != nil {
			return Written{}, err
		}
	}
	w := m.beforeUpdate(id)
	m.Entries[id] = keys
	// A field update leaves the data as it is and does not read it: its result has none.
	w.Entry, w.Changed = layout.Entry{ID: id, Keys: keys}, changed
	return w, nil
}

// stampAll sets every stamped field of keys but those set says a write set itself to its
// value from stamp, in field order; the first stamp refused is the error.
func (m *Model) stampAll(keys []uint64, stamp Stamper, set func(field int) bool) error {
	for i, g := range m.Layout.Fields {
		if g.Stamp == layout.StampNone || set(i) {
			continue
		}
		v, err := stamp(i)
		if err != nil {
			return err
		}
		keys[i] = v
	}
	return nil
}

// beforeUpdate is a field update's or change list's Written before it writes: the entry of id,
// if any, without its data, which these writes do not read.
func (m *Model) beforeUpdate(id string) Written {
	old, ok := m.Entries[id]
	if !ok {
		return Written{}
	}
	return Written{Before: layout.Entry{ID: id, Keys: slices.Clone(old)}, Existed: true}
}

// Value is the number key stands for in field f (signed for int and time fields).
func Value(f *layout.Field, key uint64) *big.Int {
	if f.Signed() {
		return big.NewInt(layout.IntOf(key))
	}
	return new(big.Int).SetUint64(key)
}

// key is the key of a value known to be in range.
func key(f *layout.Field, v *big.Int) uint64 {
	if f.Signed() {
		return layout.IntKey(v.Int64())
	}
	return v.Uint64()
}

// Remove deletes ids and returns how many had entries.
func (m *Model) Remove(ids ...string) (int64, error) {
	for _, id := range ids {
		if err := m.Layout.CheckID(id); err != nil {
			return 0, err
		}
	}
	var n int64
	for _, id := range ids {
		if _, ok := m.Entries[id]; ok {
			delete(m.Entries, id)
			delete(m.Data, id)
			n++
		}
	}
	return n, nil
}

// Trim keeps the first keep entries and returns how many it removed.
func (m *Model) Trim(keep int64) (int64, error) {
	if keep < 0 {
		return 0, rankgenrt.ErrOutOfRange
	}
	all := m.Sorted()
	if int64(len(all)) <= keep {
		return 0, nil
	}
	for _, e := range all[keep:] {
		delete(m.Entries, e.ID)
		delete(m.Data, e.ID)
	}
	return int64(len(all)) - keep, nil
}

// Rank is the 1-based position of id, or ErrNotFound.
func (m *Model) Rank(id string) (int64, error) {
	if _, ok := m.Entries[id]; !ok {
		return 0, rankgenrt.ErrNotFound
	}
	for i, e := range m.Sorted() {
		if e.ID == id {
			return int64(i + 1), nil
		}
	}
	panic("boardmodel: an id in Entries is missing from Sorted")
}

// SameError reports whether the board's error and the model's are both nil or match the same
// sentinel.
func SameError(got, want error) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	for _, s := range []error{rankgenrt.ErrOutOfRange, rankgenrt.ErrOverflow, rankgenrt.ErrNotFound,
		rankgenrt.ErrLayoutMismatch, rankgenrt.ErrNotIndexed, rankgenrt.ErrBadScore, rankgenrt.ErrBadMember,
		rankgenrt.ErrBadChange, rankgenrt.ErrBadData, rankgenrt.ErrSeasonClosed} {
		if errors.Is(want, s) {
			return errors.Is(got, s)
		}
	}
	return false
}

// StampWindow checks a stamped value read from the board: the instant it stands for,
// truncated to the field's unit, lies between before and after (truncated likewise).
func StampWindow(f *layout.Field, key uint64, before, after time.Time) error {
	lo, _ := layout.TimeUnits(before, f.Unit)
	hi, _ := layout.TimeUnits(after, f.Unit)
	got := layout.IntOf(key)
	if got < lo || got > hi {
		return fmt.Errorf("stamp %s = %s, not within [%s, %s]", f.Name, f.Format(key),
			before.UTC().Format(time.RFC3339Nano), after.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

// Pair is an entry with its encoding: the (score, member) pair the board stores for it.
type Pair struct {
	Entry  layout.Entry
	Score  float64
	Member string
}

// Pairs encodes the entries in board order: what the sorted set holds, first-ranked first
// (ZREVRANGE order).
func (m *Model) Pairs() ([]Pair, error) {
	es := m.Sorted()
	ps := make([]Pair, len(es))
	for i, e := range es {
		score, member, err := m.Layout.Encode(e)
		if err != nil {
			return nil, fmt.Errorf("model entry %q: %w", e.ID, err)
		}
		ps[i] = Pair{Entry: e, Score: score, Member: member}
	}
	return ps, nil
}

// Check validates e as Set and Best do before writing: its season-anchored times against the
// season, its fields, then its data (nil data is the zero Data, which a generated Entry holds
// when none is given).
func (m *Model) Check(e layout.Entry) error {
	if err := m.checkOffsets(e.Keys); err != nil {
		return err
	}
	if _, _, err := m.Layout.Encode(e); err != nil {
		return err
	}
	if !m.Layout.HasData() {
		return nil
	}
	_, err := m.Layout.EncodeData(m.given(e))
	return err
}

// given is the data Set stores for e.
func (m *Model) given(e layout.Entry) []layout.DataValue {
	if e.Data == nil {
		return m.Layout.ZeroData()
	}
	return slices.Clone(e.Data)
}

func (m *Model) storeData(e layout.Entry) {
	if m.Layout.HasData() {
		m.Data[e.ID] = m.given(e)
	}
}

// dataOf is the data a read returns for id: what Set or Best stored, nil for none or the zero
// Data (which a generated board returns alike).
func (m *Model) dataOf(id string) []layout.DataValue {
	if d, ok := m.Data[id]; ok && !slices.Equal(d, m.Layout.ZeroData()) {
		return d
	}
	return nil
}
