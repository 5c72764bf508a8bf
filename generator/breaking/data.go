package breaking

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// Entry data (data:) is stored by position, one value after another in each entry's hash field,
// so its WIRE rules compare data fields by position, and its SOURCE rules by name. A data change
// leaves the layout fingerprint as it is (data never ranks) and changes the stored-format
// fingerprint: the new code then refuses the stored data (ErrLayoutMismatch) until the board's
// data hash is rewritten (as rankgen migrate does) or deleted. Data fields appended at the end
// are the exception: the old format's fingerprint is in the new one's chain, and code of both
// versions shares the data (CompatibleChanges says so; no rule reports them).

const dataRefused = "the new code refuses the stored data (ErrLayoutMismatch) until the data hash is rewritten (rankgen migrate maps it) or deleted"

func checkDataCount(p *probe) bool {
	o, n := p.oldL().Data, p.newL().Data
	refused := dataRefused
	if len(n) == 0 {
		refused = "the new code neither reads nor deletes the stored data: delete the board's data hash (rankgen migrate -drop does)"
	}
	for i := len(n); i < len(o); i++ {
		p.atOldField(o[i], "data field %d (%s) is gone: stored data holds %d values, the new code reads %d; %s", i+1, o[i].Name, len(o), len(n), refused)
	}
	appended := len(o) > 0 && slices.Contains(p.newL().DataChain, p.oldL().DataFingerprint)
	for i := len(o); i < len(n) && !dataAppended(p.oldL(), p.newL()); i++ {
		if appended {
			if _, needsValue := startValue(n[i], true); !needsValue {
				continue
			}
			p.atField(n[i], "data field %d (%s) is new and its Go zero is outside its range: entries written without it would read as a value it cannot hold; give it a value in every entry with rankgen migrate -default %s=VALUE", i+1, n[i].Name, n[i].Name)
			continue
		}
		p.atField(n[i], "data field %d (%s) is new: stored data holds %d values, the new code reads %d; %s", i+1, n[i].Name, len(o), len(n), dataRefused)
	}
	return false
}

func checkDataFormat(p *probe) bool {
	o, n := p.oldL().Data, p.newL().Data
	for i := range min(len(o), len(n)) {
		if was, is := dataFormat(o[i]), dataFormat(n[i]); was != is {
			p.atField(n[i], "data field %d (%s): %s → %s: its stored values mean others; %s", i+1, n[i].Name, was, is, dataRefused)
		}
	}
	return false
}

// dataFormat describes what decides a data field's stored values.
func dataFormat(f *layout.Field) string {
	switch f.Kind {
	case layout.String:
		return fmt.Sprintf("string of at most %d bytes", f.MaxBytes)
	case layout.Enum:
		return "enum [" + strings.Join(f.Values, ", ") + "]"
	case layout.Time:
		return fmt.Sprintf("time in %s, %s", f.Unit, f.Range())
	}
	return f.Kind.String() + " " + f.Range()
}

func checkDataRemoved(p *probe) bool {
	for _, of := range p.oldL().Data {
		if dataField(p.newL(), of.Name) == nil {
			p.atOldField(of, "data field %s is gone: Data.%s no longer exists", of.Name, of.Name)
		}
	}
	return false
}

func checkDataGoType(p *probe) bool {
	for _, of := range p.oldL().Data {
		if nf := dataField(p.newL(), of.Name); nf != nil && nf.GoType != of.GoType {
			p.atField(nf, "Data.%s changes type from %s to %s", of.Name, of.GoType, nf.GoType)
		}
	}
	return false
}

func dataField(l *layout.Layout, name string) *layout.Field {
	for _, f := range l.Data {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// dataAppended reports whether new's data fields are old's with more appended at the end (or the
// same), each of the new ones taking its Go zero: old's data format is in new's chain, so that
// code of both versions shares a board's data (the older keeps the fields it does not know, the
// newer reads them as their zero where absent). A new field whose zero is outside its range (a
// time, a min above 0) needs its value written by a migration.
func dataAppended(old, new *layout.Layout) bool {
	if !old.HasData() {
		return true
	}
	if !slices.Contains(new.DataChain, old.DataFingerprint) {
		return false
	}
	for _, f := range new.Data[len(old.Data):] {
		if _, needed := startValue(f, true); needed {
			return false
		}
	}
	return true
}

// dataAppendedRule is the one compatible change there is: Compatible reports it, not Compare.
var dataAppendedRule = &Rule{ID: "DATA_APPENDED", Category: Compatible,
	Purpose: "data fields are appended at the end: code of both versions shares the stored data"}

// CompatibleChanges returns the changes from old to new that stored boards and code of both versions
// take as they are, each saying why: data fields appended at the end. Changes that break
// (Compare) are not among them.
func CompatibleChanges(old, new Schema) []Change {
	o, n := old.Layout, new.Layout
	if !o.HasData() || len(n.Data) <= len(o.Data) || !dataAppended(o, n) {
		return nil
	}
	c := &comparer{old: old, new: new}
	p := &probe{c: c, rule: dataAppendedRule}
	for i := len(o.Data); i < len(n.Data); i++ {
		p.atField(n.Data[i], "data field %d (%s) appended: no migration; code of both versions reads and writes the same board, older code keeps its value, newer code reads entries written without it as %s",
			i+1, n.Data[i].Name, zeroWords(n.Data[i]))
	}
	return c.out
}

// zeroWords says what a data field's zero value is.
func zeroWords(f *layout.Field) string {
	switch f.Kind {
	case layout.String:
		return `""`
	case layout.Bool:
		return "false"
	case layout.Enum:
		return f.Values[0]
	}
	return "0"
}
