package layout

import (
	"fmt"
	"strings"
)

// ChangeName is the Go function generated for a field update in a change list (Board.Update):
// the update, then the field (add on Points → AddPoints), as the field update's method.
func ChangeName(f *Field, op Op) string {
	k := string(op)
	return strings.ToUpper(k[:1]) + k[1:] + f.Name
}

// changeNames checks that no change constructor is the name of an enum type, and records the
// constructors in taken, so that enum constants are checked against them too.
func (v *validator) changeNames(l *Layout, taken map[string]string) {
	for _, f := range l.Fields {
		if v.misnamed[f] {
			continue
		}
		for _, op := range f.Updates {
			c := ChangeName(f, op)
			if what, clash := taken[c]; clash {
				v.errorf(f.Line, f.Col, "field %q: update %s becomes the Go function %s, which is already %s; rename the field", f.Name, op, c, what)
				continue
			}
			taken[c] = fmt.Sprintf("the change %s of field %q", c, f.Name)
		}
	}
}
