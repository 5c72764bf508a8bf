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
// configuration can match. Rules lists them all, each with its category, purpose and check.
package breaking

import (
	"fmt"

	"github.com/rankgen/rankgen/generator/layout"
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
	// The fingerprints cover everything that decides the stored encoding: the ranking layout's,
	// and the stored format's, which adds the entry data (a board whose schema had no data
	// fields stores none, so the first ones break nothing).
	if old.Layout.Fingerprint != new.Layout.Fingerprint || old.Layout.HasData() && old.Layout.DataFingerprint != new.Layout.DataFingerprint {
		c.run(Wire, c.byPosition())
	}
	c.run(Source, c.byName())
	return c.out
}

type comparer struct {
	old, new Schema
	out      []Change
}

// pair is two fields the rules of scope eachField compare: at the same position (WIRE, as
// the encoding is positional) or of the same name (SOURCE). old or new is nil when the other
// schema has no such field.
type pair struct {
	pos      int // 0-based position: in both schemas (WIRE), in the old one (SOURCE)
	old, new *layout.Field
}

func (c *comparer) byPosition() []pair {
	o, n := c.old.Layout.Fields, c.new.Layout.Fields
	pairs := make([]pair, max(len(o), len(n)))
	for i := range pairs {
		pairs[i].pos = i
		if i < len(o) {
			pairs[i].old = o[i]
		}
		if i < len(n) {
			pairs[i].new = n[i]
		}
	}
	return pairs
}

func (c *comparer) byName() []pair {
	var pairs []pair
	for i, of := range c.old.Layout.Fields {
		pairs = append(pairs, pair{pos: i, old: of, new: c.new.Layout.Field(of.Name)})
	}
	return pairs
}

// run applies the rules of one category in table order: those on the whole schema, then
// those on each pair of fields (a check that returns true ends the pair: what follows from it
// is not reported again), then the fallbacks when nothing else was found.
func (c *comparer) run(cat Category, pairs []pair) {
	before := len(c.out)
	c.each(cat, wholeSchema, pair{})
	for _, p := range pairs {
		c.each(cat, eachField, p)
	}
	if len(c.out) == before {
		c.each(cat, fallback, pair{})
	}
}

// each runs the checks of one category and scope on p, until one returns true.
func (c *comparer) each(cat Category, s scope, p pair) {
	for i := range ruleTable {
		r := &ruleTable[i]
		if r.Category == cat && r.scope == s && r.check(&probe{c: c, rule: r, pair: p}) {
			return
		}
	}
}

// probe is what a rule's check sees: both layouts, the pair of fields (rules of scope
// eachField), and ways to report a change under the rule.
type probe struct {
	c    *comparer
	rule *Rule
	pair
}

func (p *probe) oldL() *layout.Layout { return p.c.old.Layout }
func (p *probe) newL() *layout.Layout { return p.c.new.Layout }

func (p *probe) add(file string, line, col int, format string, args ...any) {
	p.c.out = append(p.c.out, Change{Category: p.rule.Category, Rule: p.rule.ID, File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// atKey reports a change positioned at a key of the new schema (path: "id", "name").
func (p *probe) atKey(path []string, format string, args ...any) {
	line, col := layout.KeyPos(p.c.new.Src, path...)
	p.add(p.c.new.name(), line, col, format, args...)
}

// atField reports a change positioned at a field of the new schema.
func (p *probe) atField(f *layout.Field, format string, args ...any) {
	p.add(p.c.new.name(), f.Line, f.Col, format, args...)
}

// atOldField reports a change positioned at a field of the old schema, for what the new one
// no longer has.
func (p *probe) atOldField(f *layout.Field, format string, args ...any) {
	p.add(p.c.old.name(), f.Line, f.Col, format, args...)
}

// wire reports a change of the pair's new field, prefixed with its position and name (and
// its old name when it was renamed).
func (p *probe) wire(format string, args ...any) {
	name := p.new.Name
	if p.old.Name != p.new.Name {
		name = fmt.Sprintf("%s, was %s", p.new.Name, p.old.Name)
	}
	p.atField(p.new, "field %d (%s): %s", p.pos+1, name, fmt.Sprintf(format, args...))
}
