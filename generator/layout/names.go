package layout

import (
	"fmt"
	"go/token"
	"strings"
	"unicode"
)

// ReservedNames are package-level or method names of the generated code; fields, the id and
// enum constants must not take them.
var ReservedNames = []string{
	"Entry", "Encode", "Decode", "Compare", "Fingerprint", "Layout", "Board", "NewBoard",
	"Option", "String", "Ranked", "Cursor", "Scripts",
	"Band", "Place",
	"Change", "Changes", "Apply",
	"ShardedBoard", "NewShardedBoard", "ReshardProgress",
}

// bandSuffixes end the names of the band API generated for a score field F: the functions or
// methods FBetween and FIs, and the type FPrefix.
var bandSuffixes = []string{"Between", "Is", "Prefix"}

// goName checks that s is an exported Go identifier that clashes with nothing generated.
func (v *validator) goName(s scalar, what string) bool {
	name := s.Value
	switch {
	case v.tooLong(s, what):
	case token.IsKeyword(name):
		v.errAt(s, "%s %q is a Go keyword; use an exported name like %q", what, name, exported(name))
	case !token.IsIdentifier(name):
		v.errAt(s, "%s %q is not a Go identifier; use letters, digits and _ , starting with an upper-case letter", what, name)
	case !token.IsExported(name):
		v.errAt(s, "%s %q is unexported; start it with an upper-case letter: %q", what, name, exported(name))
	case contains(ReservedNames, name) || v.season != nil && (contains(SeasonNames, name) || v.season.zoneConst(name)):
		v.errAt(s, "%s %q clashes with a name rankgen generates; pick another (e.g. %q)", what, name, name+"Value")
	default:
		return true
	}
	return false
}

func exported(s string) string {
	if s == "" {
		return "Name"
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	out := string(r)
	if !token.IsIdentifier(out) {
		return "Name"
	}
	return out
}

// EnumConst is the Go constant generated for an enum value: the field name, then the value in
// CamelCase (Tier, "gold" → TierGold).
func EnumConst(f *Field, value string) string {
	var b strings.Builder
	b.WriteString(f.Name)
	up := true
	for _, r := range value {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// enumNames checks that enum types and constants clash with no other package-level name.
func (v *validator) enumNames(l *Layout) {
	taken := map[string]string{}
	for _, r := range ReservedNames {
		taken[r] = "a name rankgen generates"
	}
	all := append(append([]*Field{}, l.Fields...), l.Data...)
	for _, f := range all {
		if f.Kind == Enum && !v.misnamed[f] {
			taken[f.Name] = fmt.Sprintf("the enum type of field %q", f.Name)
		}
	}
	// Any field may be placed in the score, so every field's band names are kept free.
	for _, f := range l.Fields {
		for _, suffix := range bandSuffixes {
			name := f.Name + suffix
			if what, clash := taken[name]; clash && !v.misnamed[f] {
				v.errorf(f.Line, f.Col, "field %q: its band API name %s is already %s; rename one of them", f.Name, name, what)
				continue
			}
			taken[name] = fmt.Sprintf("the band API name %s of field %q", name, f.Name)
		}
	}
	v.changeNames(l, taken)
	for _, f := range all {
		if f.Kind != Enum || v.misnamed[f] {
			continue
		}
		for _, val := range f.Values {
			c := EnumConst(f, val)
			if what, clash := taken[c]; clash {
				v.errorf(f.Line, f.Col, "field %q: enum value %q becomes the Go constant %s, which is already %s; rename the value", f.Name, val, c, what)
				continue
			}
			taken[c] = fmt.Sprintf("the constant for %q of field %q", val, f.Name)
		}
	}
}
