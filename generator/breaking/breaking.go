// Package breaking compares two versions of a schema and reports the changes that break what
// the old one built, in two categories:
//
//   - WIRE: boards the old layout wrote no longer decode or order the same. Fields are matched
//     by name, as rankgen migrate maps them: a field inserted, removed or moved to another
//     position is one change each (the encoding is positional, so every stored digit after it
//     moves too), and a field of both versions is compared with itself. Whenever the layout
//     fingerprint changes there is at least one, and the new code refuses the old boards
//     (ErrLayoutMismatch) until they are migrated or moved to a new key; a move between
//     fields that store the same way leaves the fingerprint as it is and is one too.
//   - SOURCE: Go code written against the old generated package no longer compiles or means
//     the same: a package, type, field, method or constant is gone or changed. These rules
//     compare fields by name.
//
// Every change has a stable rule ID (FIELD_RADIX, UPDATE_REMOVED, …) that scripts and CI
// configuration can match. Rules lists them all, each with its category, purpose and check.
// Migration says what rankgen migrate needs to be told to carry stored boards across.
package breaking

import (
	"fmt"
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
)

// Category says what a change breaks.
type Category string

const (
	Wire   Category = "WIRE"   // stored boards
	Source Category = "SOURCE" // Go code using the generated package
	// Compatible changes break nothing (CompatibleChanges): stored boards and code of both
	// versions take them as they are.
	Compatible Category = "COMPATIBLE"
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
	c := &comparer{old: old, new: new, match: matchFields(old.Layout.Fields, new.Layout.Fields)}
	if wireChanges(old.Layout, new.Layout, c.match) {
		c.run(Wire, c.match.pairs)
	}
	c.run(Source, c.byName())
	return c.out
}

// wireChanges reports whether boards the old layout wrote read differently with the new one.
// The fingerprints cover everything that decides the stored encoding: the ranking layout's,
// and the stored format's, which adds the entry data (a board whose schema had no data fields
// stores none, so the first ones break nothing, and data fields appended at the end break
// nothing either: code of both versions shares the data, see CompatibleChanges). Names are in neither, so fields that store
// the same way and trade places leave both as they are, and their stored values swap.
func wireChanges(old, new *layout.Layout, m fieldMatch) bool {
	return old.Fingerprint != new.Fingerprint ||
		old.HasData() && !dataAppended(old, new) ||
		len(m.moved) > 0
}

type comparer struct {
	old, new       Schema
	oldPkg, newPkg *Package // CompareBoards: the two versions of a package of boards
	match          fieldMatch
	out            []Change
}

// pair is two fields the rules of scope eachField compare, of the same name: old or new is nil
// when the other schema has no such field.
type pair struct {
	oldPos, newPos int // 0-based positions in each schema; -1 in the one without the field
	old, new       *layout.Field
}

// fieldMatch is the fields of two versions matched by name, as rankgen migrate maps them.
type fieldMatch struct {
	// pairs is each new field, in order, with the old field of its name (nil when it is
	// inserted), then each old field the new version lacks, in order.
	pairs []pair
	// moved holds the fields of both versions that changed places among the fields of both:
	// those outside a longest run of them in the same order in each.
	moved map[string]bool
	// renames pairs, in old order, fields the new version lacks with inserted fields of the
	// same Go type: each may be a rename, which names alone cannot tell from a removal and an
	// insertion.
	renames []Rename
}

// Rename is a field that may have been renamed: Old is gone from the new version, New is
// inserted in it, with the same Go type.
type Rename struct{ Old, New string }

func matchFields(old, new []*layout.Field) fieldMatch {
	m := fieldMatch{moved: map[string]bool{}}
	var oldCommon, newCommon []string
	for _, of := range old {
		if index(new, of.Name) >= 0 {
			oldCommon = append(oldCommon, of.Name)
		}
	}
	for j, nf := range new {
		i := index(old, nf.Name)
		p := pair{oldPos: i, newPos: j, new: nf}
		if i >= 0 {
			p.old = old[i]
			newCommon = append(newCommon, nf.Name)
		}
		m.pairs = append(m.pairs, p)
	}
	for i, of := range old {
		if index(new, of.Name) < 0 {
			m.pairs = append(m.pairs, pair{oldPos: i, newPos: -1, old: of})
		}
	}
	kept := longestCommonRun(oldCommon, newCommon)
	for _, name := range newCommon {
		if !kept[name] {
			m.moved[name] = true
		}
	}
	taken := map[string]bool{}
	for _, gone := range m.pairs {
		if gone.new != nil {
			continue
		}
		for _, in := range m.pairs {
			if in.old == nil && !taken[in.new.Name] && in.new.GoType == gone.old.GoType && slices.Equal(in.new.Values, gone.old.Values) {
				taken[in.new.Name] = true
				m.renames = append(m.renames, Rename{Old: gone.old.Name, New: in.new.Name})
				break
			}
		}
	}
	return m
}

// longestCommonRun returns the names of a longest subsequence common to a and b (which hold
// the same names): the fields that keep their order; the others moved.
func longestCommonRun(a, b []string) map[string]bool {
	n := len(a)
	// lcs[i][j] is the length of a longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, n+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	kept := map[string]bool{}
	for i, j := 0, 0; i < n && j < n; {
		switch {
		case a[i] == b[j]:
			kept[a[i]] = true
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return kept
}

func index(fields []*layout.Field, name string) int {
	return slices.IndexFunc(fields, func(f *layout.Field) bool { return f.Name == name })
}

// rearranged reports whether a field is inserted, removed or moved.
func (m fieldMatch) rearranged() bool {
	if len(m.moved) > 0 {
		return true
	}
	for _, p := range m.pairs {
		if p.old == nil || p.new == nil {
			return true
		}
	}
	return false
}

// renameOf returns the likely rename that involves the field name (as its old or new name).
func (m fieldMatch) renameOf(name string) (Rename, bool) {
	for _, r := range m.renames {
		if r.Old == name || r.New == name {
			return r, true
		}
	}
	return Rename{}, false
}

// byName pairs each old field with the new field of its name, in old order, for the SOURCE
// rules: what Go code used is what they check.
func (c *comparer) byName() []pair {
	var pairs []pair
	for i, of := range c.old.Layout.Fields {
		j := index(c.new.Layout.Fields, of.Name)
		p := pair{oldPos: i, newPos: j, old: of}
		if j >= 0 {
			p.new = c.new.Layout.Fields[j]
		}
		pairs = append(pairs, p)
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

// wire reports a change of the pair's field, prefixed with its position and name.
func (p *probe) wire(format string, args ...any) {
	p.atField(p.new, "field %d (%s): %s", p.newPos+1, p.new.Name, fmt.Sprintf(format, args...))
}
