package layout

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Previous is the schema a layout replaces (previous: in its schema), so that code generated for
// it can write a board that still holds the previous layout in that layout until a migration
// switches the board, and in its own after: a rolling deploy of a layout change then refuses
// nothing. The mapping between the two is migrate's (rankgen migrate -rename, -default, -drop),
// given once here; rankgen migrate takes it from here when no flag gives one.
type Previous struct {
	Schema string  // the previous schema's path, as written (relative to this schema's directory)
	Layout *Layout // the previous layout, once LoadPrevious has read it

	Renames  map[string]string // previous field name → this layout's
	Defaults map[string]string // a field of this layout the previous lacks → its value (text) in a previous entry
	Drops    []string          // fields of the previous layout this one lacks

	// Fields and Data say, for each field and data field of this layout, the previous one its
	// value comes from (an index of Layout.Fields or Layout.Data), or -1 for a default, whose
	// key is in DefaultKeys; PreviousFields and PreviousData say the reverse, -1 for a dropped
	// field (a previous entry written by this code holds its zero there).
	Fields, Data                 []int
	DefaultKeys, DefaultDataKeys []uint64
	PreviousFields, PreviousData []int

	at scalar // where previous: is, for diagnostics
}

type rawPrevious struct {
	Set, Bad bool
	At       scalar
	Schema   scalar
	Renames  map[string]scalar // old → new
	Defaults map[string]scalar
	Drops    []scalar
}

var previousKeys = []string{"schema", "rename", "default", "drop"}

// previous reads the previous: block.
func (p *parser) previous(k, v *yaml.Node) rawPrevious {
	r := rawPrevious{Set: true, At: scalar{Line: k.Line, Col: k.Column, Set: true}}
	misspelt, ok := p.mapping(v, "previous", previousKeys, func(key string, _, v *yaml.Node) {
		switch key {
		case "schema":
			r.Schema = p.scalar(v, "previous schema")
		case "rename":
			r.Renames = p.scalarMap(v, "previous rename")
		case "default":
			r.Defaults = p.scalarMap(v, "previous default")
		case "drop":
			r.Drops, _ = p.list(v, "previous drop")
		}
	})
	r.Bad = !ok
	markBad(misspelt, map[string]*scalar{"schema": &r.Schema})
	return r
}

// scalarMap reads a mapping of names to single values.
func (p *parser) scalarMap(v *yaml.Node, where string) map[string]scalar {
	m := map[string]scalar{}
	v = deref(v)
	if v.Kind != yaml.MappingNode {
		p.errorf(v.Line, v.Column, "%s must be a mapping of field names to values, not a %s", where, kindName(v))
		return m
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := deref(v.Content[i])
		if _, dup := m[k.Value]; dup {
			p.errorf(k.Line, k.Column, "%s names %s twice; keep one", where, k.Value)
			continue
		}
		m[k.Value] = p.scalar(v.Content[i+1], where+" "+k.Value)
	}
	return m
}

// previousBlock checks what the previous: block says on its own; LoadPrevious reads the schema
// it names and checks the mapping.
func (v *validator) previousBlock(raw rawPrevious, l *Layout) {
	if !raw.Set || raw.Bad {
		return
	}
	if !raw.Schema.Set {
		if !raw.Schema.Bad {
			v.errAt(raw.At, "previous needs the schema this one replaces: previous: {schema: board.v1.yaml}")
		}
		return
	}
	pr := &Previous{Schema: raw.Schema.Value, Renames: map[string]string{}, Defaults: map[string]string{}, at: raw.Schema}
	for old, s := range raw.Renames {
		if s.Set {
			pr.Renames[old] = s.Value
		}
	}
	for name, s := range raw.Defaults {
		if s.Set {
			pr.Defaults[name] = s.Value
		}
	}
	for _, s := range raw.Drops {
		if s.Set {
			pr.Drops = append(pr.Drops, s.Value)
		}
	}
	l.Previous = pr
}

// LoadPrevious reads and checks the schema l replaces (l.Previous, when the schema names one),
// given this schema's path (file) and how to read a path joined to its directory. Problems are
// Diagnostics at the previous: block: a schema that does not parse, a mapping that names no
// field, a field neither mapped nor dropped, a type with no mapping of values.
func LoadPrevious(l *Layout, file string, read func(path string) ([]byte, error)) error {
	pr := l.Previous
	if pr == nil || pr.Layout != nil {
		return nil
	}
	p := &parser{file: file}
	at := pr.at
	at.Line, at.Col = max(at.Line, 1), max(at.Col, 1)
	prevPath := path.Join(path.Dir(strings.ReplaceAll(file, `\`, "/")), pr.Schema)
	text, err := read(prevPath)
	if err != nil {
		p.errAt(at, "previous: cannot read the schema %s: %v", pr.Schema, err)
		return p.diags
	}
	old, err := Parse(prevPath, text)
	if err != nil {
		if ds, ok := err.(Diagnostics); ok {
			return ds
		}
		p.errAt(at, "previous: %v", err)
		return p.diags
	}
	bad := func(format string, args ...any) { p.errAt(at, "previous: "+format, args...) }
	switch {
	case old.IDType != l.IDType:
		bad("the id's type changes from %s to %s; code writing both layouts needs one id type (migrate to a new key instead)", old.IDType, l.IDType)
	case (old.Season == nil) != (l.Season == nil):
		bad("one of the layouts has a season and the other not; code writing both needs the same season (start the new layout on a new base key instead)")
	case old.Season != nil && old.Season.Canonical() != l.Season.Canonical():
		bad("the season changes; code writing both layouts needs the same season (start the new layout on a new base key instead)")
	}
	pr.checkNames(old, l, bad)
	pr.Fields, pr.PreviousFields, pr.DefaultKeys = pr.assign(old.Fields, l.Fields, old, bad)
	pr.Data, pr.PreviousData, pr.DefaultDataKeys = pr.assign(old.Data, l.Data, old, bad)
	if len(p.diags) > 0 {
		return p.diags.sorted()
	}
	pr.Layout = old
	return nil
}

// Generated is the previous layout as l's package generates it beside l (its Go file and
// library): in l's package, without a previous schema of its own, a ShardedBoard or feeds (a
// sharded board's shards are Boards; feeds are l's to declare). Nil before LoadPrevious.
func (pr *Previous) Generated(l *Layout) *Layout {
	if pr == nil || pr.Layout == nil {
		return nil
	}
	g := *pr.Layout
	g.Package, g.Previous, g.Sharded, g.Feeds = l.Package, nil, false, nil
	return &g
}

// checkNames refuses a rename, default or drop that names no field.
func (pr *Previous) checkNames(old, l *Layout, bad func(string, ...any)) {
	for _, from := range slices.Sorted(maps.Keys(pr.Renames)) {
		to := pr.Renames[from]
		of, nf := old.field(from), l.field(to)
		switch {
		case of == nil:
			bad("rename %s: %s has no field %s", from, pr.Schema, from)
		case nf == nil:
			bad("rename %s: %s: this schema has no field %s", from, to, to)
		case old.isData(from) != l.isData(to):
			bad("rename %s: %s: one is a ranking field and the other a data field; ranking fields map to ranking fields, data fields to data fields", from, to)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pr.Defaults)) {
		if l.field(name) == nil {
			bad("default %s: this schema has no field %s", name, name)
		}
	}
	for _, name := range pr.Drops {
		if old.field(name) == nil {
			bad("drop %s: %s has no field %s", name, pr.Schema, name)
		}
	}
}

// assign maps one kind of fields (ranking or data) both ways: for each new field, the old
// field its value comes from or -1 (a default, whose key it returns); for each old field, the
// new field that feeds it, or -1 (dropped).
func (pr *Previous) assign(old, new []*Field, oldL *Layout, bad func(string, ...any)) (from, to []int, defaults []uint64) {
	from, to, defaults = make([]int, len(new)), make([]int, len(old)), make([]uint64, len(new))
	for i := range to {
		to[i] = -1
	}
	for i, nf := range new {
		from[i] = -1
		for j, of := range old {
			name := of.Name
			if r, ok := pr.Renames[of.Name]; ok {
				name = r
			}
			if name == nf.Name {
				from[i], to[j] = j, i
			}
		}
		text, hasDefault := pr.Defaults[nf.Name]
		switch {
		case from[i] >= 0 && hasDefault:
			bad("default %s: %s has the field %s; a default is for a field it lacks", nf.Name, pr.Schema, nf.Name)
		case from[i] >= 0:
			if why := convertible(old[from[i]], nf); why != "" {
				bad("field %s: %s", nf.Name, why)
			}
		case hasDefault:
			key, err := nf.Parse(text)
			if err != nil {
				bad("default %s: %s", nf.Name, strings.TrimPrefix(err.Error(), "rankgen: "))
			}
			defaults[i] = key
		default:
			bad("field %s is new: give its value in the previous layout's entries with default: {%s: VALUE}", nf.Name, nf.Name)
		}
	}
	for j, of := range old {
		if to[j] < 0 && !slices.Contains(pr.Drops, of.Name) {
			bad("%s's field %s is in no field of this schema: rename it (rename: {%s: NEW}) or drop it (drop: [%s])", pr.Schema, of.Name, of.Name, of.Name)
		}
	}
	return from, to, defaults
}

// convertible says why an old field's values cannot be written as the new field's and back ("":
// they can): numbers (uint, int, bool) convert into each other, enums by value name, times by
// instant; a value the other cannot hold is refused when it is written.
func convertible(of, nf *Field) string {
	numeric := func(k Kind) bool { return k == Uint || k == Int || k == Bool }
	switch {
	case numeric(of.Kind) && numeric(nf.Kind), of.Kind == nf.Kind && of.Kind != Enum:
		return ""
	case of.Kind == Enum && nf.Kind == Enum:
		for _, v := range of.Values {
			if !slices.Contains(nf.Values, v) {
				return fmt.Sprintf("the previous enum's value %s is not among this one's [%s]; keep every value (enums map by value name)", v, strings.Join(nf.Values, " "))
			}
		}
		return ""
	}
	return fmt.Sprintf("type %s → %s has no mapping of values (uint, int and bool convert into each other, enums by value name, times by instant); keep the type, or rename the field and give the new one a default", of.Kind, nf.Kind)
}

// Conversion is how a value of a field becomes one of the field it maps to in the other layout
// (Previous' mapping, either way), for code that converts entries between the two: as it is
// (Same), a number that must be 0 or 1 as a bool (ToBool), a bool as 0 or 1 (FromBool), or a
// time counted in another unit (Scale: times N, divided by D, which must leave no remainder).
type Conversion struct {
	How  ConversionKind
	N, D int64
}

// ConversionKind is the kind of a Conversion.
type ConversionKind int

// The kinds of conversion.
const (
	Same ConversionKind = iota
	ToBool
	FromBool
	Scale
)

// TimesAlike says whether every time field of l and the one it maps to in the previous layout
// count from the same epoch kind (both from the season's start, or both from the Unix epoch),
// so that a client converting entries between the two only scales units (ConversionOf).
func (pr *Previous) TimesAlike(l *Layout) bool {
	alike := func(fields, olds []*Field, from []int) bool {
		for i, f := range fields {
			if j := from[i]; j >= 0 && f.Kind == Time && olds[j].Kind == Time && olds[j].Season != f.Season {
				return false
			}
		}
		return true
	}
	return alike(l.Fields, pr.Layout.Fields, pr.Fields) && alike(l.Data, pr.Layout.Data, pr.Data)
}

// ConversionOf is how a value of field from becomes one of field to (a pair convertible allows).
func ConversionOf(from, to *Field) Conversion {
	switch {
	case from.Kind == Time && to.Kind == Time:
		n, d := unitNanos(from.Unit), unitNanos(to.Unit)
		g := gcd(n, d)
		if n, d = n/g, d/g; n != d {
			return Conversion{How: Scale, N: n, D: d}
		}
	case to.Kind == Bool && from.Kind != Bool:
		return Conversion{How: ToBool, N: 1, D: 1}
	case from.Kind == Bool && to.Kind != Bool:
		return Conversion{How: FromBool, N: 1, D: 1}
	}
	return Conversion{How: Same, N: 1, D: 1}
}

func unitNanos(u Unit) int64 {
	return map[Unit]int64{Second: 1e9, Milli: 1e6, Micro: 1e3}[u]
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// field is the ranking or data field named name, or nil.
func (l *Layout) field(name string) *Field {
	for _, f := range append(slices.Clip(l.Fields), l.Data...) {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (l *Layout) isData(name string) bool {
	return slices.ContainsFunc(l.Data, func(f *Field) bool { return f.Name == name })
}

// UpdateRoutes says whether code of l applies update op of its field f to a board that holds
// the previous layout with the previous layout's same update of the field f comes from (which
// it returns), getting exactly the result l's update would or a refusal: the previous field
// has the update; an add's result is clamped at the same edges (the same range) or refused
// there (overflow: error); and the two layouts stamp the same fields alike. A value the
// previous field cannot hold is refused when the update is made (ErrNotInPreviousLayout).
func (pr *Previous) UpdateRoutes(l *Layout, f *Field, op Op) (*Field, bool) {
	i := slices.Index(l.Fields, f)
	if pr.Layout == nil || i < 0 || pr.Fields[i] < 0 || !pr.stampsAlike(l) {
		return nil, false
	}
	of := pr.Layout.Fields[pr.Fields[i]]
	if !slices.Contains(of.Updates, op) {
		return nil, false
	}
	if op == OpAdd && of.Overflow != OverflowError && (of.Lo != f.Lo || of.Hi != f.Hi || of.Overflow != f.Overflow) {
		return nil, false
	}
	return of, pr.zerosAlike(l)
}

// zerosAlike: an update of an id without an entry starts from the same entry in both layouts
// (layout.Field.ZeroDigit): each field's zero is the previous field's, or its default where the
// previous layout lacks it.
func (pr *Previous) zerosAlike(l *Layout) bool {
	for i, f := range l.Fields {
		zero := f.Key(f.ZeroDigit())
		if pr.Fields[i] < 0 {
			if pr.DefaultKeys[i] != zero {
				return false
			}
			continue
		}
		of := pr.Layout.Fields[pr.Fields[i]]
		if of.Format(of.Key(of.ZeroDigit())) != f.Format(zero) {
			return false
		}
	}
	return true
}

// LeadRoutes says whether code of l reads a range of its leading field on a board in the
// previous layout with that layout's same read, getting the same entries in the same order:
// the previous layout's leading field is the one l's comes from, an integer leading the score
// in the same order (the read's bounds clamped to its range, which holds every value it stores).
func (pr *Previous) LeadRoutes(l *Layout) (*Field, bool) {
	if pr.Layout == nil || l.NumScore == 0 || pr.Layout.NumScore == 0 || pr.Fields[0] != 0 {
		return nil, false
	}
	of, nf := pr.Layout.Fields[0], l.Fields[0]
	integer := func(f *Field) bool { return f.Kind == Uint || f.Kind == Int }
	return of, integer(of) && integer(nf) && of.Order == nf.Order && !of.Season && !nf.Season
}

// ScoreRoutes says whether code of l ranks an entry by all its score fields on a board in the
// previous layout with that layout's same read (CompetitionRankTuple), getting the same rank:
// the two layouts' score fields correspond one to one and in order, each an integer or an
// enum in both, in the same order, an enum's values in the same order in both (none of them
// season-anchored), so that the entries ahead of any entry are the same in both.
func (pr *Previous) ScoreRoutes(l *Layout) bool {
	if pr.Layout == nil || l.NumScore == 0 || pr.Layout.NumScore != l.NumScore {
		return false
	}
	integer := func(f *Field) bool { return f.Kind == Uint || f.Kind == Int }
	for i, nf := range l.Fields[:l.NumScore] {
		if pr.Fields[i] != i {
			return false
		}
		of := pr.Layout.Fields[i]
		switch {
		case of.Order != nf.Order || of.Season || nf.Season:
			return false
		case of.Kind == Enum && nf.Kind == Enum:
			if !valuesInOrder(of.Values, nf.Values) {
				return false
			}
		case !integer(of) || !integer(nf):
			return false
		}
	}
	return true
}

// valuesInOrder says whether every value of old is one of new's, in the same order.
func valuesInOrder(old, new []string) bool {
	last := -1
	for _, v := range old {
		i := slices.Index(new, v)
		if i <= last {
			return false
		}
		last = i
	}
	return true
}

// TouchRoutes says whether code of l touches an entry on a board in the previous layout with
// that layout's touch: both stamp the same fields alike and start a missing id alike.
func (pr *Previous) TouchRoutes(l *Layout) bool {
	return pr.Layout != nil && pr.stampsAlike(l) && pr.zerosAlike(l)
}

// stampsAlike: every field either layout stamps on an update is one of both, stamped by the
// same clock in the same unit.
func (pr *Previous) stampsAlike(l *Layout) bool {
	stamped := 0
	for i, f := range l.Fields {
		if f.Stamp == StampNone {
			continue
		}
		stamped++
		if pr.Fields[i] < 0 {
			return false
		}
		if of := pr.Layout.Fields[pr.Fields[i]]; of.Stamp != f.Stamp || of.Unit != f.Unit {
			return false
		}
	}
	for _, of := range pr.Layout.Fields {
		if of.Stamp != StampNone {
			stamped--
		}
	}
	return stamped == 0
}
