// Package migrate re-encodes a live board from one layout to another: each stored entry is
// decoded with the old layout's interpreted codec, its fields mapped by name to the new
// layout (renamed, defaulted, dropped or converted as the Plan says), and encoded with the new
// one. Run copies a board in batches into a key of the same hash slot, verifies the copy and
// switches it in with one script; the CLI's "rankgen migrate" is a thin wrapper around it.
package migrate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// ErrNoMapping: the two layouts cannot be mapped as asked (a field's or data field's kind
// changes in a way no value conversion covers, a new field has no default, an old one is
// neither mapped nor dropped, a rename or default names no field). Nothing is read or written.
var ErrNoMapping = errors.New("rankgen migrate: no mapping")

// ErrMisfit: stored values that do not fit the new layout (a narrowed range, a removed enum
// value, a coarser time unit, an id of another type, a data string over a shorter
// max_bytes). Nothing is written.
var ErrMisfit = errors.New("rankgen migrate: stored values do not fit the new layout")

// NoMappingError lists every problem of a mapping, sorted. It matches ErrNoMapping.
type NoMappingError struct {
	Problems []string
}

func (e *NoMappingError) Error() string {
	return ErrNoMapping.Error() + ": " + strings.Join(e.Problems, "; ")
}

func (e *NoMappingError) Unwrap() error { return ErrNoMapping }

// Mapping says how the fields and data fields of the old layout become those of the new one.
// They are mapped by name (names are unique across fields and data in a schema); everything
// else is explicit.
type Mapping struct {
	Renames  map[string]string // old field name → new field name
	Defaults map[string]string // new field name → its value (as text) in every migrated entry
	Drops    []string          // old fields the new layout lacks, whose values are dropped
}

// Plan is a checked mapping between two layouts: for each field and data field of the new
// layout, where its value comes from.
type Plan struct {
	Old, New *layout.Layout
	fields   []source     // by new field
	data     []dataSource // by new data field
	id       string       // identifies the plan in a migration's progress record
}

// source is where one new field's value comes from: an old field through a conversion, or a
// default key.
type source struct {
	from    int // index of the old field, or -1 for a default
	convert func(key uint64) (uint64, error)
	def     uint64
}

// NewPlan checks that m maps old onto new and returns the plan. Every problem is reported at
// once, in an error matching ErrNoMapping.
func NewPlan(old, new *layout.Layout, m Mapping) (*Plan, error) {
	p := &Plan{Old: old, New: new}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	checkSeason(old, new, bad)
	checkNames(old, new, m, bad)
	p.mapFields(m, bad)
	p.mapData(m, bad)
	p.checkTellable(bad)
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &NoMappingError{Problems: problems}
	}
	p.id = planID(old, new, m)
	return p, nil
}

// mapFields sets where each new ranking field's value comes from.
func (p *Plan) mapFields(m Mapping, bad func(string, ...any)) {
	p.fields = make([]source, len(p.New.Fields))
	from := assign("field", p.Old.Fields, p.New.Fields, m, bad)
	for i, nf := range p.New.Fields {
		text, hasDefault := m.Defaults[nf.Name]
		switch {
		case from[i] >= 0:
			conv, err := converter(p.Old.Fields[from[i]], nf)
			if err != nil {
				bad("%v", err)
			}
			p.fields[i] = source{from: from[i], convert: conv}
		case hasDefault:
			key, err := nf.Parse(text)
			if err != nil {
				bad("-default %s", strings.TrimPrefix(err.Error(), "rankgen: "))
			}
			p.fields[i] = source{from: -1, def: key}
		default:
			bad("field %s is new: give its value in migrated entries with -default %s=VALUE", nf.Name, nf.Name)
		}
	}
}

// checkNames refuses a rename, default or drop that names nothing, and a rename between a
// ranking field and a data field.
func checkNames(old, new *layout.Layout, m Mapping, bad func(string, ...any)) {
	for from, to := range m.Renames {
		of, nf := anyField(old, from), anyField(new, to)
		switch {
		case of == nil:
			bad("-rename %s=%s: the old layout has no field %s", from, to, from)
		case nf == nil:
			bad("-rename %s=%s: the new layout has no field %s", from, to, to)
		case isData(old, from) != isData(new, to):
			bad("-rename %s=%s: one is a ranking field and the other a data field; ranking fields map to ranking fields, data fields to data fields", from, to)
		}
	}
	for name := range m.Defaults {
		if anyField(new, name) == nil {
			bad("-default %s: the new layout has no field %s", name, name)
		}
	}
	for _, name := range m.Drops {
		if anyField(old, name) == nil {
			bad("-drop %s: the old layout has no field %s", name, name)
		}
	}
}

// assign maps one kind of values (ranking fields, or data fields: noun) of the old layout
// onto the new one: for each new field, the index of the old field that feeds it, or -1. It
// reports a default for a mapped field, and an old field neither mapped nor dropped.
func assign(noun string, old, new []*layout.Field, m Mapping, bad func(string, ...any)) []int {
	target := targets(old, new, m, bad)
	from := make([]int, len(new))
	used := map[int]bool{}
	for i, nf := range new {
		oi, fromOld := target[nf.Name]
		from[i] = -1
		if !fromOld {
			continue
		}
		if _, hasDefault := m.Defaults[nf.Name]; hasDefault {
			bad("-default %s: %s %s is mapped from the old %s %s; a default is only for a new %s", nf.Name, noun, nf.Name, noun, old[oi].Name, noun)
			continue
		}
		used[oi] = true
		from[i] = oi
	}
	for i, of := range old {
		dropped := slices.Contains(m.Drops, of.Name)
		switch {
		case used[i] && dropped:
			bad("-drop %s: %s %s is mapped to the new layout; drop it or map it, not both", of.Name, noun, of.Name)
		case !used[i] && !dropped:
			bad("%s %s is gone from the new layout: pass -drop %s to drop its values, or -rename %s=NEW", noun, of.Name, of.Name, of.Name)
		}
	}
	return from
}

// targets maps each new field name to the old field that feeds it: the renamed one, or the
// old field of the same name that is not renamed away. Renames into the other kind of
// values are checkNames' to report.
func targets(old, new []*layout.Field, m Mapping, bad func(string, ...any)) map[string]int {
	target := map[string]int{}
	renamedTo := map[string]string{}
	for _, from := range sortedKeys(m.Renames) {
		to := m.Renames[from]
		oi, ni := index(old, from), index(new, to)
		switch {
		case oi < 0 || ni < 0:
		case renamedTo[to] != "":
			bad("-rename: fields %s and %s both become %s", renamedTo[to], from, to)
		default:
			renamedTo[to] = from
			target[to] = oi
		}
	}
	for oi, of := range old {
		if _, renamed := m.Renames[of.Name]; renamed {
			continue
		}
		if _, taken := target[of.Name]; !taken && index(new, of.Name) >= 0 {
			target[of.Name] = oi
		}
	}
	return target
}

func index(fields []*layout.Field, name string) int {
	return slices.IndexFunc(fields, func(f *layout.Field) bool { return f.Name == name })
}

// anyField is the field or data field of l with the given name, or nil.
func anyField(l *layout.Layout, name string) *layout.Field {
	if i := index(l.Fields, name); i >= 0 {
		return l.Fields[i]
	}
	if i := index(l.Data, name); i >= 0 {
		return l.Data[i]
	}
	return nil
}

func isData(l *layout.Layout, name string) bool { return index(l.Data, name) >= 0 }

// planID is a digest of the two fingerprints and the mapping, so that a rerun resumes only a
// migration of the same plan.
func planID(old, new *layout.Layout, m Mapping) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s>%s\n", old.Fingerprint, new.Fingerprint)
	if old.HasData() || new.HasData() {
		// Data fingerprints leave out names, which the mapping goes by.
		fmt.Fprintf(&b, "data %s %q>%s %q\n", old.DataFingerprint, names(old.Data), new.DataFingerprint, names(new.Data))
	}
	for _, k := range sortedKeys(m.Renames) {
		fmt.Fprintf(&b, "rename %q=%q\n", k, m.Renames[k])
	}
	for _, k := range sortedKeys(m.Defaults) {
		fmt.Fprintf(&b, "default %q=%q\n", k, m.Defaults[k])
	}
	drops := slices.Sorted(slices.Values(m.Drops))
	fmt.Fprintf(&b, "drop %q\n", drops)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

func names(fields []*layout.Field) []string {
	var out []string
	for _, f := range fields {
		out = append(out, f.Name)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Map returns the entry of the new layout that e (decoded with the old one) becomes, or an
// error matching ErrMisfit that says which value does not fit. Its data is mapped when it has
// some and the new layout has data fields; an entry without data stays without.
func (p *Plan) Map(e layout.Entry) (layout.Entry, error) {
	if err := p.New.CheckID(e.ID); err != nil {
		return layout.Entry{}, fmt.Errorf("%w: id: %v", ErrMisfit, err)
	}
	out := layout.Entry{ID: e.ID, Keys: make([]uint64, len(p.New.Fields))}
	for i, s := range p.fields {
		if s.from < 0 {
			out.Keys[i] = s.def
			continue
		}
		key, err := s.convert(e.Keys[s.from])
		if err == nil {
			err = p.New.Fields[i].Check(key)
		}
		if err != nil {
			return layout.Entry{}, fmt.Errorf("%w: %s: %v", ErrMisfit, p.New.Fields[i].Name, err)
		}
		out.Keys[i] = key
	}
	if e.Data != nil && p.New.HasData() {
		data, err := p.MapData(e.Data)
		if err != nil {
			return layout.Entry{}, err
		}
		out.Data = data
	}
	return out, nil
}

// Recode decodes a stored pair of the old layout and encodes its mapped entry with the new.
func (p *Plan) Recode(score float64, member string) (id string, newScore float64, newMember string, err error) {
	id, m, err := p.mapStored(score, member)
	if err != nil {
		return id, 0, "", err
	}
	newScore, newMember, err = p.encode(m)
	return id, newScore, newMember, err
}

// mapStored decodes a stored pair of the old layout and maps its entry.
func (p *Plan) mapStored(score float64, member string) (id string, m layout.Entry, err error) {
	e, err := p.Old.Decode(score, member)
	if err != nil {
		return "", m, err
	}
	m, err = p.Map(e)
	return e.ID, m, err
}

func (p *Plan) encode(e layout.Entry) (float64, string, error) {
	score, member, err := p.New.Encode(e)
	if err != nil {
		return 0, "", fmt.Errorf("%w: %v", ErrMisfit, err)
	}
	return score, member, nil
}

// rival is what a mapped entry e claims against the entry KEY2 holds for its id under -merge
// best: e with every field the mapping defaults at its lowest-ranking value. A default is no
// value the old board knew, so e takes KEY2's place only when it ranks first on the fields it
// has: KEY's copy of a dual write (the same submission, the default in place of its real
// value) loses to KEY2's copy, ties included, while an earlier entry of KEY that no write to
// KEY2 beat, on those fields, still wins. That holds only while every defaulted field ranks
// after every field mapped from the old layout (defaultAhead); without defaults, rival is e.
func (p *Plan) rival(e layout.Entry) layout.Entry {
	e.Keys = slices.Clone(e.Keys)
	for i, s := range p.fields {
		if s.from < 0 {
			e.Keys[i] = p.New.Fields[i].Key(0)
		}
	}
	return e
}

// defaultsRanking reports whether the mapping gives a ranking field of the new layout a default.
func (p *Plan) defaultsRanking() bool {
	return slices.ContainsFunc(p.fields, func(s source) bool { return s.from < 0 })
}

// defaultAhead is the index of the first new field the mapping defaults that ranks ahead of a
// field mapped from the old layout (mappedAfter), or -1 when every default ranks after them.
func (p *Plan) defaultAhead() int {
	for i, s := range p.fields {
		if s.from < 0 && p.mappedAfter(i) >= 0 {
			return i
		}
	}
	return -1
}

// mappedAfter is the index of the first field after field i mapped from the old layout, or -1.
func (p *Plan) mappedAfter(i int) int {
	for j := i + 1; j < len(p.fields); j++ {
		if p.fields[j].from >= 0 {
			return j
		}
	}
	return -1
}

// PreviousPlan is the plan from the layout l replaces (previous: in its schema, read by
// layout.LoadPrevious) to l, with the mapping the schema gives: the one its code reads the
// previous layout's entries by until the switch.
func PreviousPlan(l *layout.Layout) (*Plan, error) {
	pr := l.Previous
	if pr == nil || pr.Layout == nil {
		return nil, fmt.Errorf("rankgen: %s names no previous schema (previous: {schema: …})", l.File)
	}
	return NewPlan(pr.Layout, l, Mapping{Renames: pr.Renames, Defaults: pr.Defaults, Drops: pr.Drops})
}
