package breaking

import (
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

// Migration is what rankgen migrate needs to be told to carry boards the old layout wrote to
// the new one. It maps fields and data fields by name, so each one the new layout lacks is
// dropped or renamed, and each new one is given a value.
type Migration struct {
	// Renames are likely renames (the same Go type): a guess that the user confirms, as a
	// rename cannot be told from a removal and an insertion.
	Renames []Rename
	// Defaults are the values to give the new fields (and the new data fields whose Go zero
	// is outside their range) in every stored entry: a value each can hold, for the user to
	// choose.
	Defaults []Default
	// Drops are the old fields and data fields the new layout lacks and that are not renamed.
	Drops []string
	// Season is the new layout's season calendar, nil when the board is not periodic: each of
	// its live boards (the current season's and the Keep finished ones) is migrated.
	Season *layout.Season
}

// Default is the value a migration gives a new field in every stored entry: Value as rankgen
// migrate reads it, and Why it is the one proposed.
type Default struct {
	Field, Value, Why string
}

// Migrate returns what rankgen migrate needs to carry boards from old to new, or nil when
// their stored boards read the same (no WIRE change).
func Migrate(old, new *layout.Layout) *Migration {
	fields := matchFields(old.Fields, new.Fields)
	if !wireChanges(old, new, fields) {
		return nil
	}
	m := &Migration{Season: new.Season}
	m.add(fields, false)
	if old.HasData() {
		// Entries of a board without data stay without, so a new data field needs a value
		// only when the old board has data, and its Go zero does not fit.
		m.add(matchFields(old.Data, new.Data), true)
	}
	return m
}

// add adds the renames, defaults and drops of one kind of values (fields, or data fields).
func (m *Migration) add(match fieldMatch, data bool) {
	m.Renames = append(m.Renames, match.renames...)
	for _, p := range match.pairs {
		_, renamed := match.renameOf(fieldName(p))
		switch {
		case renamed:
		case p.new == nil:
			m.Drops = append(m.Drops, p.old.Name)
		case p.old == nil:
			if d, ok := startValue(p.new, data); ok {
				m.Defaults = append(m.Defaults, d)
			}
		}
	}
}

func fieldName(p pair) string {
	if p.new != nil {
		return p.new.Name
	}
	return p.old.Name
}

// startValue proposes the value of a new field in migrated entries: its Go zero when the field
// can hold it, else the least value of its range. ok is false for a data field whose Go zero
// fits, which rankgen migrate writes by itself.
func startValue(f *layout.Field, data bool) (d Default, ok bool) {
	if f.Kind == layout.String {
		return Default{}, false // "" fits every string
	}
	if zero := goZero(f); zero >= f.Lo && zero <= f.Hi {
		if data {
			return Default{}, false
		}
		return Default{Field: f.Name, Value: f.Format(zero), Why: "its Go zero"}, true
	}
	return Default{Field: f.Name, Value: f.Format(f.Lo), Why: "the least value of its range"}, true
}

// goZero is the key of the field's Go zero value, as Layout.ZeroData has it for data fields:
// 0, false, the first enum value, for a time the zero time.Time (year 1), for a
// season-anchored time a zero offset.
func goZero(f *layout.Field) uint64 {
	switch {
	case f.Kind == layout.Int || f.Season:
		return layout.IntKey(0)
	case f.Kind == layout.Time:
		n, _ := layout.TimeUnits(time.Time{}, f.Unit)
		return layout.IntKey(n)
	}
	return 0
}
