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

// ErrNoMapping: the two layouts cannot be mapped as asked (a field's kind changes in a way no
// value conversion covers, a new field has no default, an old one is neither mapped nor
// dropped, a rename or default names no field). Nothing is read or written.
var ErrNoMapping = errors.New("rankgen migrate: no mapping")

// ErrMisfit: stored values that do not fit the new layout (a narrowed range, a removed enum
// value, a coarser time unit, an id of another type). Nothing is written.
var ErrMisfit = errors.New("rankgen migrate: stored values do not fit the new layout")

// NoMappingError lists every problem of a mapping, sorted. It matches ErrNoMapping.
type NoMappingError struct {
	Problems []string
}

func (e *NoMappingError) Error() string {
	return ErrNoMapping.Error() + ": " + strings.Join(e.Problems, "; ")
}

func (e *NoMappingError) Unwrap() error { return ErrNoMapping }

// Mapping says how the fields of the old layout become those of the new one. Fields are
// mapped by name; everything else is explicit.
type Mapping struct {
	Renames  map[string]string // old field name → new field name
	Defaults map[string]string // new field name → its value (as text) in every migrated entry
	Drops    []string          // old fields the new layout lacks, whose values are dropped
}

// Plan is a checked mapping between two layouts: for each field of the new layout, where its
// value comes from.
type Plan struct {
	Old, New *layout.Layout
	fields   []source // by new field
	id       string   // identifies the plan in a migration's progress record
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
	p := &Plan{Old: old, New: new, fields: make([]source, len(new.Fields))}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	checkSeason(old, new, bad)
	target := p.targets(m, bad)
	used := map[int]bool{}
	for i, nf := range new.Fields {
		oi, fromOld := target[nf.Name]
		text, hasDefault := m.Defaults[nf.Name]
		switch {
		case fromOld && hasDefault:
			bad("-default %s: field %s is mapped from the old field %s; a default is only for a new field", nf.Name, nf.Name, old.Fields[oi].Name)
		case fromOld:
			used[oi] = true
			conv, err := converter(old.Fields[oi], nf)
			if err != nil {
				bad("%v", err)
			}
			p.fields[i] = source{from: oi, convert: conv}
		case hasDefault:
			key, err := ParseValue(nf, text)
			if err != nil {
				bad("-default %s=%s: %s", nf.Name, text, strings.TrimPrefix(err.Error(), "rankgen: "))
			}
			p.fields[i] = source{from: -1, def: key}
		default:
			bad("field %s is new: give its value in migrated entries with -default %s=VALUE", nf.Name, nf.Name)
		}
	}
	for name := range m.Defaults {
		if fieldIndex(new, name) < 0 {
			bad("-default %s: the new layout has no field %s", name, name)
		}
	}
	for i, of := range old.Fields {
		dropped := slices.Contains(m.Drops, of.Name)
		switch {
		case used[i] && dropped:
			bad("-drop %s: field %s is mapped to the new layout; drop it or map it, not both", of.Name, of.Name)
		case !used[i] && !dropped:
			bad("field %s is gone from the new layout: pass -drop %s to drop its values, or -rename %s=NEW", of.Name, of.Name, of.Name)
		}
	}
	for _, name := range m.Drops {
		if fieldIndex(old, name) < 0 {
			bad("-drop %s: the old layout has no field %s", name, name)
		}
	}
	if old.HasData() && new.HasData() && old.DataFingerprint != new.DataFingerprint {
		// The data hash is keyed by id and outlives the switch; its values are another format's.
		bad("the data fields change (data fingerprint %s → %s): migrate rewrites the sorted set and its index, not the data hash; delete the board's data hash (rankgenrt.DataKey) or write the data anew with Set", old.DataFingerprint, new.DataFingerprint)
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, &NoMappingError{Problems: problems}
	}
	p.id = planID(old, new, m)
	return p, nil
}

// targets maps each new field name to the old field that feeds it: the renamed one, or the
// old field of the same name that is not renamed away.
func (p *Plan) targets(m Mapping, bad func(string, ...any)) map[string]int {
	target := map[string]int{}
	renamedTo := map[string]string{}
	for from, to := range m.Renames {
		oi := fieldIndex(p.Old, from)
		switch {
		case oi < 0:
			bad("-rename %s=%s: the old layout has no field %s", from, to, from)
		case fieldIndex(p.New, to) < 0:
			bad("-rename %s=%s: the new layout has no field %s", from, to, to)
		case renamedTo[to] != "":
			bad("-rename: fields %s and %s both become %s", renamedTo[to], from, to)
		default:
			renamedTo[to] = from
			target[to] = oi
		}
	}
	for oi, of := range p.Old.Fields {
		if _, renamed := m.Renames[of.Name]; renamed {
			continue
		}
		if _, taken := target[of.Name]; !taken && fieldIndex(p.New, of.Name) >= 0 {
			target[of.Name] = oi
		}
	}
	return target
}

func fieldIndex(l *layout.Layout, name string) int {
	return slices.IndexFunc(l.Fields, func(f *layout.Field) bool { return f.Name == name })
}

// planID is a digest of the two fingerprints and the mapping, so that a rerun resumes only a
// migration of the same plan.
func planID(old, new *layout.Layout, m Mapping) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s>%s\n", old.Fingerprint, new.Fingerprint)
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

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Map returns the entry of the new layout that e (decoded with the old one) becomes, or an
// error matching ErrMisfit that says which value does not fit.
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
	return out, nil
}

// Recode decodes a stored pair of the old layout and encodes its mapped entry with the new.
func (p *Plan) Recode(score float64, member string) (id string, newScore float64, newMember string, err error) {
	e, err := p.Old.Decode(score, member)
	if err != nil {
		return "", 0, "", err
	}
	m, err := p.Map(e)
	if err != nil {
		return e.ID, 0, "", err
	}
	newScore, newMember, err = p.New.Encode(m)
	if err != nil {
		return e.ID, 0, "", fmt.Errorf("%w: %v", ErrMisfit, err)
	}
	return e.ID, newScore, newMember, nil
}
