package layout

import (
	"strings"
)

var allowedOps = map[Kind][]Op{
	Uint: {OpAdd, OpMax, OpMin, OpSet},
	Int:  {OpAdd, OpMax, OpMin, OpSet},
	Bool: {OpSet},
	Enum: {OpMax, OpMin, OpSet},
	Time: {OpMax, OpMin, OpSet},
}

func (v *validator) updates(raw *rawField, f *Field, label string) {
	seen := map[Op]bool{}
	for _, s := range raw.Update {
		if !s.Set {
			continue
		}
		op := Op(s.Value)
		if !containsOp(allowedOps[f.Kind], op) {
			v.errAt(s, "%s: update %q is not offered on %s field; use %s", label, s.Value, aKind(f.Kind), opList(allowedOps[f.Kind]))
			continue
		}
		if seen[op] {
			v.errAt(s, "%s: update %q is listed twice; remove one", label, s.Value)
			continue
		}
		seen[op] = true
		f.Updates = append(f.Updates, op)
	}
	switch raw.Overflow.Value {
	case "", "error":
	case "saturate":
		f.Overflow = OverflowSaturate
	default:
		v.errAt(raw.Overflow, "%s: overflow must be error (refuse the update) or saturate (clamp at the edge), not %q", label, raw.Overflow.Value)
	}
	if raw.Overflow.Set && !seen[OpAdd] {
		v.errAt(raw.Overflow, "%s: overflow only matters for update: add; add it or remove overflow", label)
	}
	switch raw.Stamp.Value {
	case "":
	case "client":
		f.Stamp = StampClient
	case "server":
		f.Stamp = StampServer
	default:
		v.errAt(raw.Stamp, "%s: stamp must be client (the app's clock) or server (Redis's TIME), not %q", label, raw.Stamp.Value)
	}
	if f.Stamp != StampNone && f.Kind == Time && !f.StampExact() {
		v.errAt(raw.Stamp, "%s: the scripts stamp in exact doubles, so the range must lie within 2^53 %s of the Unix epoch and span fewer; narrow the width, move the epoch or use a coarser unit", label, f.Unit)
	}
}

func containsOp(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

func opList(ops []Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}
