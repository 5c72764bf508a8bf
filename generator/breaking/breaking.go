// Package breaking compares two versions of a schema and reports the changes that break what
// the old one built, in two categories:
//
//   - WIRE: boards the old layout wrote no longer decode or order the same. The encoding is
//     positional (field i of the tuple is digit i of the score or text i of the member), so
//     these rules compare fields by position, and a rename alone is not one. Whenever the
//     layout fingerprint changes there is at least one, and the new code refuses the old
//     boards (ErrLayoutMismatch) until they are migrated or moved to a new key.
//   - SOURCE: Go code written against the old generated package no longer compiles or means
//     the same: a package, type, field, method or constant is gone or changed. These rules
//     compare fields by name.
//
// Every change has a stable rule ID (FIELD_RADIX, UPDATE_REMOVED, …) that scripts and CI
// configuration can match.
package breaking

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
	"gopkg.in/yaml.v3"
)

// Category says what a change breaks.
type Category string

const (
	Wire   Category = "WIRE"   // stored boards
	Source Category = "SOURCE" // Go code using the generated package
)

// Change is one breaking change, positioned in the new schema (or in the old one for what the
// new one no longer has).
type Change struct {
	Category Category `json:"category"`
	Rule     string   `json:"rule"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Message  string   `json:"message"`
}

func (c Change) String() string {
	return fmt.Sprintf("%s:%d:%d: %s %s: %s", c.File, c.Line, c.Col, c.Category, c.Rule, c.Message)
}

// Schema is one version of a schema: its layout, its source (which positions the changes of
// top-level keys) and the name to report positions under (Layout.File when empty).
type Schema struct {
	Layout *layout.Layout
	Src    []byte
	Name   string
}

func (s Schema) name() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Layout.File
}

// Compare returns the breaking changes from old to new: WIRE changes first, then SOURCE, each
// in schema order.
func Compare(old, new Schema) []Change {
	c := &comparer{old: old, new: new}
	c.wire()
	c.source()
	return c.out
}

type comparer struct {
	old, new Schema
	out      []Change
}

func (c *comparer) add(cat Category, rule string, file string, line, col int, format string, args ...any) {
	c.out = append(c.out, Change{Category: cat, Rule: rule, File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// atKey adds a change positioned at a top-level key of the new schema (path: "id", "name").
func (c *comparer) atKey(cat Category, rule string, path []string, format string, args ...any) {
	line, col := keyPos(c.new.Src, path...)
	c.add(cat, rule, c.new.name(), line, col, format, args...)
}

func (c *comparer) atField(cat Category, rule string, f *layout.Field, format string, args ...any) {
	c.add(cat, rule, c.new.name(), f.Line, f.Col, format, args...)
}

func (c *comparer) atOldField(cat Category, rule string, f *layout.Field, format string, args ...any) {
	c.add(cat, rule, c.old.name(), f.Line, f.Col, format, args...)
}

func (c *comparer) wire() {
	o, n := c.old.Layout, c.new.Layout
	if o.Fingerprint == n.Fingerprint {
		return // the fingerprint covers everything that decides the stored encoding
	}
	before := len(c.out)
	if o.Score != n.Score || o.DecimalPlaces != n.DecimalPlaces {
		c.atKey(Wire, "SCORE", []string{"score"}, "the score changes from %s to %s: every stored score reads as another number", scoreText(o), scoreText(n))
	}
	if o.IDType != n.IDType {
		c.atKey(Wire, "ID_TYPE", []string{"id", "type"}, "the id changes from %s to %s: %s", o.IDType, n.IDType,
			map[layout.IDType]string{
				layout.IDUint64: "stored ids that are not canonical decimals no longer decode",
				layout.IDString: "stored ids still read, as text, but the old code cannot read ids the new one writes",
			}[n.IDType])
	}
	if o.HasPrefix() && n.HasPrefix() && o.Separator != n.Separator {
		c.atKey(Wire, "SEPARATOR", []string{"separator"}, "the member separator changes from %q to %q: stored members no longer split into fields", o.Separator, n.Separator)
	}
	for i := range max(len(o.Fields), len(n.Fields)) {
		switch {
		case i >= len(n.Fields):
			f := o.Fields[i]
			c.atOldField(Wire, "FIELD_COUNT", f, "field %d (%s) is gone: the tuple has %d fields, not %d, and every stored entry carries its digit", i+1, f.Name, len(n.Fields), len(o.Fields))
		case i >= len(o.Fields):
			f := n.Fields[i]
			c.atField(Wire, "FIELD_COUNT", f, "field %d (%s) is new: the tuple has %d fields, not %d, and no stored entry carries its digit", i+1, f.Name, len(n.Fields), len(o.Fields))
		default:
			c.field(i, o.Fields[i], n.Fields[i])
		}
	}
	if len(c.out) == before {
		// Unreachable while the rules above cover the canonical layout; kept so that a rule
		// missing for a future schema key still fails CI.
		c.atKey(Wire, "LAYOUT", nil, "the layout fingerprint changes from %s to %s", o.Fingerprint, n.Fingerprint)
	}
}

// field compares the field at position i of both layouts.
func (c *comparer) field(i int, o, n *layout.Field) {
	name := n.Name
	if o.Name != n.Name {
		name = fmt.Sprintf("%s, was %s", n.Name, o.Name)
	}
	at := func(rule, format string, args ...any) {
		c.atField(Wire, rule, n, "field %d (%s): %s", i+1, name, fmt.Sprintf(format, args...))
	}
	if o.Kind != n.Kind {
		at("FIELD_KIND", "type %s → %s: its stored digits mean other values", o.Kind, n.Kind)
		return // the rest follows from the kind
	}
	if o.Place != n.Place {
		at("FIELD_PLACE", "moves from the %s to the %s: stored entries hold it where the new code does not read it", o.Place, n.Place)
	}
	if o.Order != n.Order {
		at("FIELD_ORDER", "order %s → %s: every stored digit is mirrored, so stored entries rank backwards on it", o.Order, n.Order)
	}
	inScore := o.Place == layout.InScore && n.Place == layout.InScore
	if o.MaxDigit != n.MaxDigit {
		radix := fmt.Sprintf("radix %s → %s", radixText(o), radixText(n))
		switch {
		case inScore && i == 0 && o.Weight == n.Weight:
			at("FIELD_RADIX", "%s: it leads the score with the same weight, so stored digits keep their values; only what it can hold changes", radix)
		case inScore && i == 0:
			at("FIELD_RADIX", "%s: stored scores give it other digits", radix)
		case inScore:
			at("FIELD_RADIX", "%s: stored scores give it other digits, and every field before it another weight", radix)
		default:
			at("FIELD_RADIX", "%s: its stored digits are read against another radix", radix)
		}
	}
	if inScore && o.Weight != n.Weight {
		at("FIELD_WEIGHT", "weight %d → %d (a field after it changed width or place): stored scores give it other values", o.Weight, n.Weight)
	}
	switch {
	case o.Kind == layout.Enum && !slices.Equal(o.Values, n.Values):
		at("FIELD_ENUM_VALUES", "values [%s] → [%s]: stored digits name other values", strings.Join(o.Values, " "), strings.Join(n.Values, " "))
	case o.Kind == layout.Time && o.Unit != n.Unit:
		at("FIELD_UNIT", "unit %s → %s: stored digits count other units", o.Unit, n.Unit)
	case o.Lo != n.Lo || o.Hi != n.Hi:
		// A digit is the offset of a value from the range's low end (desc) or high end (asc).
		end, moved := "low", o.Lo != n.Lo
		if n.Order == layout.Asc {
			end, moved = "high", o.Hi != n.Hi
		}
		rng := fmt.Sprintf("range %s … %s → %s … %s", o.Format(o.Lo), o.Format(o.Hi), n.Format(n.Lo), n.Format(n.Hi))
		switch {
		case moved:
			at("FIELD_RANGE", "%s: a stored digit is an offset from the range's %s end, which moves", rng, end)
		case o.MaxDigit == n.MaxDigit: // with a new radix, the range only follows the width
			at("FIELD_RANGE", "%s: stored digits keep their values (the %s end stays), but values outside the new range no longer decode", rng, end)
		}
	}
	if o.Place == layout.InMember && n.Place == layout.InMember && (o.TextWidth != n.TextWidth || o.Hex != n.Hex) {
		at("FIELD_TEXT", "member text %s → %s: stored members no longer split into fields", textShape(o), textShape(n))
	}
}

func (c *comparer) source() {
	o, n := c.old.Layout, c.new.Layout
	if o.Package != n.Package {
		c.atKey(Source, "PACKAGE", []string{"package"}, "package %s → %s: imports of the generated package break", o.Package, n.Package)
	}
	if o.IDName != n.IDName {
		c.atKey(Source, "ID_NAME", []string{"id", "name"}, "Entry.%s is now Entry.%s (and Update.%s)", o.IDName, n.IDName, n.IDName)
	}
	if o.IDType != n.IDType {
		c.atKey(Source, "ID_GO_TYPE", []string{"id", "type"}, "ids are %s, not %s, in Entry, Update and every method taking an id", goID(n), goID(o))
	}
	for _, of := range o.Fields {
		nf := n.Field(of.Name)
		if nf == nil {
			c.atOldField(Source, "FIELD_REMOVED", of, "field %s is gone: Entry.%s and its methods no longer exist", of.Name, of.Name)
			continue
		}
		if of.GoType != nf.GoType {
			c.atField(Source, "FIELD_GO_TYPE", nf, "Entry.%s is %s, not %s", nf.Name, nf.GoType, of.GoType)
		}
		for _, op := range of.Updates {
			if !slices.Contains(nf.Updates, op) {
				m := methodName(op, nf.Name)
				c.atField(Source, "UPDATE_REMOVED", nf, "update %s of %s is gone: Board.%s and Board.%sMany no longer exist", op, nf.Name, m, m)
			}
		}
		if of.Kind == layout.Enum && nf.Kind == layout.Enum {
			for _, v := range of.Values {
				if !slices.Contains(nf.Values, v) {
					c.atField(Source, "ENUM_VALUE_REMOVED", nf, "enum value %s of %s is gone, and with it its constant", v, nf.Name)
				}
			}
		}
	}
}

func scoreText(l *layout.Layout) string {
	if l.Score == layout.ScoreDecimal {
		return fmt.Sprintf("decimal with %d places", l.DecimalPlaces)
	}
	return "integer"
}

func radixText(f *layout.Field) string {
	switch {
	case f.MaxDigit == ^uint64(0):
		return "2^64"
	case f.RadixKind == layout.RadixBits:
		return fmt.Sprintf("%d (bits %d)", f.MaxDigit+1, f.Width)
	case f.RadixKind == layout.RadixDigits:
		return fmt.Sprintf("%d (digits %d)", f.MaxDigit+1, f.Width)
	}
	return fmt.Sprint(f.MaxDigit + 1)
}

func textShape(f *layout.Field) string {
	if f.Hex {
		return fmt.Sprintf("%d hex characters", f.TextWidth)
	}
	return fmt.Sprintf("%d decimal digits", f.TextWidth)
}

func goID(l *layout.Layout) string {
	if l.IDType == layout.IDUint64 {
		return "uint64"
	}
	return "string"
}

// methodName is the Board method of an update: Add<F>, Max<F>, Min<F> or Set<F>.
func methodName(op layout.Op, field string) string {
	return strings.ToUpper(string(op[:1])) + string(op[1:]) + field
}

// keyPos finds a key of the schema's YAML by its path of mapping keys ("id", "type"): the line
// and column of the deepest key present, or 1:1.
func keyPos(src []byte, path ...string) (line, col int) {
	line, col = 1, 1
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return
	}
	node := doc.Content[0]
	for _, key := range path {
		if node.Kind != yaml.MappingNode {
			return
		}
		var next *yaml.Node
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == key {
				line, col = node.Content[i].Line, node.Content[i].Column
				next = node.Content[i+1]
				break
			}
		}
		if next == nil {
			return
		}
		node = next
	}
	return
}
