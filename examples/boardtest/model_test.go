package boardtest

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// model is the board in memory, built on the interpreted codec: the reference the generated
// Board is compared with. It holds entries as layout keys, by id.
type model struct {
	l       *layout.Layout
	entries map[string][]uint64
}

func newModel(l *layout.Layout) *model {
	return &model{l: l, entries: map[string][]uint64{}}
}

// zero is the entry an update starts from when the id has none: each field's zero value (0,
// false, the first enum value; for a time, the Unix epoch), or its lowest-ranking value when
// zero is outside its range.
func (m *model) zero() []uint64 {
	keys := make([]uint64, len(m.l.Fields))
	for i, f := range m.l.Fields {
		var zero uint64 // uint, bool, enum: the key of the zero value is 0
		if f.Signed() {
			zero = layout.IntKey(0)
		}
		if f.Check(zero) != nil {
			zero = f.Key(0) // digit 0 ranks last
		}
		keys[i] = zero
	}
	return keys
}

// set stores an entry; an invalid one is refused with the interpreted codec's error.
func (m *model) set(e layout.Entry) error {
	if _, _, err := m.l.Encode(e); err != nil {
		return err
	}
	m.entries[e.ID] = slices.Clone(e.Keys)
	return nil
}

// best stores e when the id has no entry or e ranks strictly before it.
func (m *model) best(e layout.Entry) (bool, error) {
	if _, _, err := m.l.Encode(e); err != nil {
		return false, err
	}
	if old, ok := m.entries[e.ID]; ok && m.l.Compare(e, layout.Entry{ID: e.ID, Keys: old}) >= 0 {
		return false, nil
	}
	m.entries[e.ID] = slices.Clone(e.Keys)
	return true, nil
}

// fieldOp is one field update: Kind is add (Delta) or set/max/min (Key).
type fieldOp struct {
	Field int // index in Fields
	Kind  layout.Op
	Delta int64
	Key   uint64
}

func (o fieldOp) String(l *layout.Layout) string {
	f := l.Fields[o.Field]
	if o.Kind == layout.OpAdd {
		return fmt.Sprintf("add %s %+d", f.Name, o.Delta)
	}
	return fmt.Sprintf("%s %s %s", o.Kind, f.Name, f.Format(o.Key))
}

// stamper gives the value a stamped field takes; the test reads it from the board's reply and
// checks it against the clock, since the model cannot know the instant the board saw.
type stamper func(field int) (uint64, error)

// update applies a field update and returns the new entry. On error the entry is unchanged.
func (m *model) update(id string, o fieldOp, stamp stamper) (layout.Entry, error) {
	if err := m.l.CheckID(id); err != nil {
		return layout.Entry{}, err
	}
	f := m.l.Fields[o.Field]
	old, exists := m.entries[id]
	if !exists {
		old = m.zero()
	}
	cur := old[o.Field]
	var next uint64
	switch o.Kind {
	case layout.OpAdd:
		v := new(big.Int).Add(m.value(f, cur), big.NewInt(o.Delta))
		lo, hi := m.value(f, f.Lo), m.value(f, f.Hi)
		switch {
		case v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0:
			next = m.key(f, v)
		case f.Overflow == layout.OverflowSaturate && v.Cmp(lo) < 0:
			next = f.Lo
		case f.Overflow == layout.OverflowSaturate:
			next = f.Hi
		default:
			return layout.Entry{}, rankgenrt.ErrOverflow
		}
	default:
		if err := f.Check(o.Key); err != nil {
			return layout.Entry{}, err
		}
		switch o.Kind {
		case layout.OpSet:
			next = o.Key
		case layout.OpMax: // keys order like values, signed ones included
			next = max(cur, o.Key)
		case layout.OpMin:
			next = min(cur, o.Key)
		}
	}
	keys := slices.Clone(old)
	keys[o.Field] = next
	if next != cur || !exists {
		for i, g := range m.l.Fields { // every stamped field but the one the update sets
			if g.Stamp != layout.StampNone && i != o.Field {
				v, err := stamp(i)
				if err != nil {
					return layout.Entry{}, err
				}
				keys[i] = v
			}
		}
	}
	m.entries[id] = keys
	return layout.Entry{ID: id, Keys: keys}, nil
}

// value is the number a key stands for (signed for int and time fields).
func (m *model) value(f *layout.Field, key uint64) *big.Int {
	if f.Signed() {
		return big.NewInt(layout.IntOf(key))
	}
	return new(big.Int).SetUint64(key)
}

// key is the key of a value known to be in range.
func (m *model) key(f *layout.Field, v *big.Int) uint64 {
	if f.Signed() {
		return layout.IntKey(v.Int64())
	}
	return v.Uint64()
}

// remove deletes ids and returns how many had entries.
func (m *model) remove(ids ...string) (int64, error) {
	for _, id := range ids {
		if err := m.l.CheckID(id); err != nil {
			return 0, err
		}
	}
	var n int64
	for _, id := range ids {
		if _, ok := m.entries[id]; ok {
			delete(m.entries, id)
			n++
		}
	}
	return n, nil
}

// sorted returns the entries in board order.
func (m *model) sorted() []layout.Entry {
	out := make([]layout.Entry, 0, len(m.entries))
	for id, keys := range m.entries {
		out = append(out, layout.Entry{ID: id, Keys: keys})
	}
	slices.SortFunc(out, m.l.Compare)
	return out
}

// trim keeps the first keep entries and returns how many it removed.
func (m *model) trim(keep int64) (int64, error) {
	if keep < 0 {
		return 0, rankgenrt.ErrOutOfRange
	}
	all := m.sorted()
	if int64(len(all)) <= keep {
		return 0, nil
	}
	for _, e := range all[keep:] {
		delete(m.entries, e.ID)
	}
	return int64(len(all)) - keep, nil
}

// rank is the 1-based position of id, or ErrNotFound.
func (m *model) rank(id string) (int64, error) {
	if _, ok := m.entries[id]; !ok {
		return 0, rankgenrt.ErrNotFound
	}
	for i, e := range m.sorted() {
		if e.ID == id {
			return int64(i + 1), nil
		}
	}
	panic("unreachable")
}

// sameError reports whether the board's error and the model's are both nil or match the same
// sentinel.
func sameError(got, want error) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	for _, s := range []error{rankgenrt.ErrOutOfRange, rankgenrt.ErrOverflow, rankgenrt.ErrNotFound,
		rankgenrt.ErrLayoutMismatch, rankgenrt.ErrBadScore, rankgenrt.ErrBadMember} {
		if errors.Is(want, s) {
			return errors.Is(got, s)
		}
	}
	return false
}

// stampWindow checks a stamped value read from the board: the instant it stands for, truncated
// to the field's unit, lies between before and after (truncated likewise).
func stampWindow(f *layout.Field, key uint64, before, after time.Time) error {
	lo, _ := layout.TimeUnits(before, f.Unit)
	hi, _ := layout.TimeUnits(after, f.Unit)
	got := layout.IntOf(key)
	if got < lo || got > hi {
		return fmt.Errorf("stamp %s = %s, not within [%s, %s]", f.Name, f.Format(key),
			before.UTC().Format(time.RFC3339Nano), after.UTC().Format(time.RFC3339Nano))
	}
	return nil
}
