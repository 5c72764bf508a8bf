package boardmodel

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Changes applies a change list to id as the generated Update does, and returns what it did. The list is checked in its
// order first, as the generated code checks it before sending anything: the id, then each
// change's value (set, max and min values in range) and that it changes a field not changed
// before (else ErrBadChange). The updates then apply in catalogue order (catalog.FieldUpdates),
// all or none: the first failure in that order (an add that overflows, a season-anchored value
// outside the board's season, which the script checks as it applies the change; then a stamp
// out of range or outside the season) leaves the entry as it was. Changes of distinct fields
// do not depend on their order; a min or max of an id without an entry takes the value. The entry is written when it is new or a field
// moves, and then every stamped field the list does not change takes its value from stamp.
// A SetData (OpData) in the list replaces the entry's data when the list applies, even when no
// field moves, and is returned in the entry; without it the entry's Data is nil (the generated
// Update does not read the stored data).
func (m *Model) Changes(id string, us []Update, stamp Stamper) (Written, error) {
	if err := m.checkChanges(id, us); err != nil {
		return Written{}, err
	}
	us, data := splitData(us)
	old, exists := m.Entries[id]
	if !exists {
		old = Zero(m.Layout)
	}
	keys, changed := slices.Clone(old), !exists
	named := map[int]bool{}
	for _, u := range m.catalogueOrder(us) {
		next, err := m.next(keys, exists, u)
		if err != nil {
			return Written{}, err
		}
		changed = changed || next != keys[u.Field]
		keys[u.Field], named[u.Field] = next, true
	}
	if changed {
		if err := m.stampAll(keys, stamp, func(i int) bool { return named[i] }); err != nil {
			return Written{}, err
		}
	}
	w := m.beforeUpdate(id)
	w.Changed = changed // the fields moved or the entry is new; a SetData alone does not count
	m.Entries[id] = keys
	if data == nil {
		w.Entry = layout.Entry{ID: id, Keys: keys}
		return w, nil
	}
	m.Data[id] = data
	w.Entry = layout.Entry{ID: id, Keys: keys, Data: m.dataOf(id)}
	return w, nil
}

// splitData takes a list's SetData out of it: the field updates, and the data (nil: none).
func splitData(us []Update) ([]Update, []layout.DataValue) {
	var fields []Update
	var data []layout.DataValue
	for _, u := range us {
		if u.Op == OpData {
			data = slices.Clone(u.Data)
		} else {
			fields = append(fields, u)
		}
	}
	return fields, data
}

// checkChanges checks a change list as the generated code does before sending it.
func (m *Model) checkChanges(id string, us []Update) error {
	if err := m.Layout.CheckID(id); err != nil {
		return err
	}
	for j, u := range us {
		if u.Op == OpData {
			if err := m.checkData(us[:j], u); err != nil {
				return err
			}
			continue
		}
		f := m.Layout.Fields[u.Field]
		if u.Op != layout.OpAdd {
			if err := f.Check(u.Key); err != nil {
				return err
			}
		}
		for _, prev := range us[:j] {
			if prev.Op != OpData && prev.Field == u.Field {
				return rankgenrt.FieldTwiceError(f.Name)
			}
		}
	}
	return nil
}

// checkData checks a SetData as the generated SetData and changeGroup do: its data, then that
// no earlier change of the list (prev) set the data.
func (m *Model) checkData(prev []Update, u Update) error {
	if _, err := m.Layout.EncodeData(u.Data); err != nil {
		return err
	}
	for _, p := range prev {
		if p.Op == OpData {
			return rankgenrt.FieldTwiceError(layout.DataTypeName)
		}
	}
	return nil
}

// catalogueOrder sorts a list's updates as the changes script applies them: by field, then
// by the field's declaration of the update.
func (m *Model) catalogueOrder(us []Update) []Update {
	out := slices.Clone(us)
	slices.SortStableFunc(out, func(a, b Update) int {
		if a.Field != b.Field {
			return a.Field - b.Field
		}
		ups := m.Layout.Fields[a.Field].Updates
		return slices.Index(ups, a.Op) - slices.Index(ups, b.Op)
	})
	return out
}

// UseChanges gives b the generated package's change constructors (AddPoints, …), which
// reflection cannot find by name, in catalogue order (catalog.FieldUpdates), then SetData on a
// layout with data fields. It fails when one is missing, extra or out of place.
func (b *Board) UseChanges(fns []any) error {
	ups := catalog.FieldUpdates(b.Layout)
	if b.Layout.HasData() && len(fns) == len(ups)+1 {
		v := reflect.ValueOf(fns[len(ups)])
		if name := runtime.FuncForPC(v.Pointer()).Name(); !namedFor(name, layout.DataChangeName) {
			return fmt.Errorf("boardmodel: the last change constructor is %s; want %s", name, layout.DataChangeName)
		}
		b.setData, fns = v, fns[:len(ups)]
	}
	if len(fns) != len(ups) {
		return fmt.Errorf("boardmodel: %d change constructors for %d field updates", len(fns), len(ups))
	}
	b.changes = map[changeKey]reflect.Value{}
	for i, fn := range fns {
		v := reflect.ValueOf(fn)
		name := runtime.FuncForPC(v.Pointer()).Name()
		if !namedFor(name, ups[i].Method()) {
			return fmt.Errorf("boardmodel: change constructor %d is %s; want %s", i, name, ups[i].Method())
		}
		b.changes[b.changeKey(ups[i].Field, ups[i].Update)] = v
	}
	return nil
}

// namedFor reports whether the function of full name (package path, then its name) is the
// change constructor method names: named so, or in a package of boards with the board's name
// before it (TrackSetData).
func namedFor(name, method string) bool {
	base := name[strings.LastIndex(name, ".")+1:]
	prefix, ok := strings.CutSuffix(base, method)
	return ok && (prefix == "" || prefix[0] >= 'A' && prefix[0] <= 'Z')
}

// changeKey names a change constructor: the field's index and the update.
type changeKey struct {
	field int
	op    layout.Op
}

func (b *Board) changeKey(f *layout.Field, op layout.Op) changeKey {
	return changeKey{field: slices.Index(b.Layout.Fields, f), op: op}
}

// change is u as the generated Change, made by its constructor.
func (b *Board) change(u Update) reflect.Value {
	if u.Op == OpData {
		if !b.setData.IsValid() {
			panic("boardmodel: no SetData constructor; call UseChanges")
		}
		e := b.Entry(layout.Entry{ID: "0", Keys: Zero(b.Layout), Data: u.Data})
		return b.setData.Call([]reflect.Value{e.FieldByName(layout.DataTypeName)})[0]
	}
	fn, ok := b.changes[changeKey{field: u.Field, op: u.Op}]
	if !ok {
		panic("boardmodel: no change constructor for " + b.Method(u) + "; call UseChanges")
	}
	return fn.Call([]reflect.Value{b.arg(u)})[0]
}

// changeList is us as a []Change.
func (b *Board) changeList(us []Update) reflect.Value {
	t := reflect.SliceOf(b.V.MethodByName("Update").Type().In(2).Elem())
	s := reflect.MakeSlice(t, len(us), len(us))
	for i, u := range us {
		s.Index(i).Set(b.change(u))
	}
	return s
}

// Changes applies a change list to id through Update and returns what it did.
func (b *Board) Changes(id string, us []Update) (Written, error) {
	args := []any{ID(b.Layout, id)}
	for _, u := range us {
		args = append(args, b.change(u))
	}
	out := b.Call("Update", args...)
	return b.written(out[0]), ErrOf(out[1])
}

// ChangesMany applies a change list to each id through one UpdateMany call.
func (b *Board) ChangesMany(ids []string, lists [][]Update) ([]Result, error) {
	s := reflect.MakeSlice(b.V.MethodByName("UpdateMany").Type().In(1), len(ids), len(ids))
	for i, id := range ids {
		v := s.Index(i)
		v.FieldByName(b.Layout.IDName).Set(ID(b.Layout, id))
		v.FieldByName("Apply").Set(b.changeList(lists[i]))
	}
	return b.results(b.Call("UpdateMany", s))
}

// Touch applies a touch to id as the generated Touch does, and returns what it did: every
// stamped field takes its value from stamp, the other fields stay as they are; an id without
// an entry gets the zero entry, stamped. It changes the entry when the id had none or a stamp
// moved; a stamp refused (out of its range or the season) leaves the entry as it was.
func (m *Model) Touch(id string, stamp Stamper) (Written, error) {
	if err := m.Layout.CheckID(id); err != nil {
		return Written{}, err
	}
	old, exists := m.Entries[id]
	if !exists {
		old = Zero(m.Layout)
	}
	keys := slices.Clone(old)
	if err := m.stampAll(keys, stamp, func(int) bool { return false }); err != nil {
		return Written{}, err
	}
	w := m.beforeUpdate(id)
	w.Changed = !exists || !slices.Equal(keys, old)
	m.Entries[id] = keys
	// A touch leaves the data as it is and does not read it: its result has none.
	w.Entry = layout.Entry{ID: id, Keys: keys}
	return w, nil
}

// Touch touches id through Touch and returns what it did.
func (b *Board) Touch(id string) (Written, error) {
	out := b.Call("Touch", ID(b.Layout, id))
	return b.written(out[0]), ErrOf(out[1])
}

// TouchMany touches ids through one TouchMany call.
func (b *Board) TouchMany(ids []string) ([]Result, error) {
	s := reflect.MakeSlice(b.V.MethodByName("TouchMany").Type().In(1), len(ids), len(ids))
	for i, id := range ids {
		s.Index(i).Set(ID(b.Layout, id))
	}
	return b.results(b.Call("TouchMany", s))
}
