package breaking

import (
	"fmt"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// Entry data (data:) is stored by position, one value after another in each entry's hash field,
// so its WIRE rules compare data fields by position, and its SOURCE rules by name. A data change
// leaves the layout fingerprint as it is (data never ranks) and changes the stored-format
// fingerprint: the new code then refuses the stored data (ErrLayoutMismatch) until the board's
// data hash is rewritten (as rankgen migrate does) or deleted.

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
	for i := len(o); i < len(n); i++ {
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
