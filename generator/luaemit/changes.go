package luaemit

import (
	"fmt"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// changesData is what the changes template sees: one apply function per field update (named
// by the update: add_points), one accessor per field that an update or a stamp touches, and
// the stamps, each with the slots of its own field's updates (a list that changes a stamped
// field sets it, and the stamp leaves it alone).
func changesData(l *layout.Layout, op catalog.Op) (*data, error) {
	d := newData(l)
	d.Scores = true
	fields := map[*layout.Field]*field{}
	touch := func(f *layout.Field) *field {
		if g, ok := fields[f]; ok {
			return g
		}
		g := newField(l, f)
		fields[f] = g
		d.Touched = append(d.Touched, g)
		return g
	}
	slots := map[*layout.Field][]int{}
	for _, u := range catalog.FieldUpdates(l) {
		f := u.Field
		if err := exactUpdate(f, u.Update); err != nil {
			return nil, err
		}
		c := &data{Op: u.Name()}
		setApply(c, f, u.Update, touch(f), "F.apply_"+u.Name()) // the library's, shared with the updates
		slot, err := op.Args.Index(u.Name())
		if err != nil {
			return nil, err
		}
		id, _ := op.Args.Index(catalog.ArgID)
		c.Slot = slot - id
		if c.Slot != len(d.Changes)+1 {
			return nil, fmt.Errorf("luaemit: changes: the update %s takes argument %d of a change list, not %d: the template reads them in order", u.Name(), c.Slot, len(d.Changes)+1)
		}
		slots[f] = append(slots[f], c.Slot)
		d.Changes = append(d.Changes, c)
		d.WideTarget = d.WideTarget || c.Target.Wide
	}
	for _, s := range l.Fields {
		if s.Stamp == layout.StampNone {
			continue
		}
		g := touch(s)
		if err := setStamp(g, s); err != nil {
			return nil, err
		}
		g.Named = slots[s]
		d.Stamps = append(d.Stamps, g)
	}
	return d, nil
}
