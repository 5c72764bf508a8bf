package migrate

import (
	"fmt"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Entry data is mapped as fields are: by name, renamed, defaulted or dropped as the Mapping
// says, each value converted where the conversion is exact. An entry without data stays
// without (it reads as the zero Data in either layout), so a data field's default or zero is
// only ever written into entries that have data.

// dataSource is where one new data field's value comes from: an old data field through a
// conversion, or a fixed value (a -default, or the field's Go zero).
type dataSource struct {
	from    int // index of the old data field, or -1 for the fixed value
	convert func(layout.DataValue) (layout.DataValue, error)
	value   layout.DataValue
}

// mapData sets where each new data field's value comes from.
func (p *Plan) mapData(m Mapping, bad func(string, ...any)) {
	p.data = make([]dataSource, len(p.New.Data))
	from := assign("data field", p.Old.Data, p.New.Data, m, bad)
	zero := p.New.ZeroData()
	for i, nf := range p.New.Data {
		text, hasDefault := m.Defaults[nf.Name]
		switch {
		case from[i] >= 0:
			conv, err := dataConverter(p.Old.Data[from[i]], nf)
			if err != nil {
				bad("%v", err)
			}
			p.data[i] = dataSource{from: from[i], convert: conv}
		case hasDefault && !p.Old.HasData():
			bad("-default %s: the old layout has no data, so migrated entries stay without data (and read as the zero Data); drop the default, and write data with Set", nf.Name)
		case hasDefault:
			v, err := parseData(nf, text)
			if err != nil {
				bad("-default %s", strings.TrimPrefix(err.Error(), "rankgen: "))
			}
			p.data[i] = dataSource{from: -1, value: v}
		case p.Old.HasData() && checkData(nf, zero[i]) != nil:
			bad("data field %s is new and its Go zero value is outside its range (%s): give its value in migrated entries with -default %s=VALUE", nf.Name, nf.DataRange(), nf.Name)
		default:
			p.data[i] = dataSource{from: -1, value: zero[i]}
		}
	}
}

// dataConverter returns how a value of the old data field becomes a value of the new one,
// range-checked: a string keeps its bytes (refused over the new max_bytes), other types
// convert as fields do.
func dataConverter(of, nf *layout.Field) (func(layout.DataValue) (layout.DataValue, error), error) {
	switch {
	case of.Kind == layout.String && nf.Kind == layout.String:
		return func(v layout.DataValue) (layout.DataValue, error) { return v, checkData(nf, v) }, nil
	case of.Kind == layout.String || nf.Kind == layout.String:
		return nil, fmt.Errorf("data field %s: type %s → %s has no mapping of values (a string maps only to a string): keep the type, or rename the data field and give the new one a -default", nf.Name, of.Kind, nf.Kind)
	}
	conv, err := converter(of, nf)
	if err != nil {
		return nil, fmt.Errorf("data %w", err)
	}
	return func(v layout.DataValue) (layout.DataValue, error) {
		key, err := conv(v.Key)
		if err != nil {
			return layout.DataValue{}, err
		}
		out := layout.DataValue{Key: key}
		return out, checkData(nf, out)
	}, nil
}

// checkData refuses a value outside its data field's range, or a string over its max_bytes.
func checkData(f *layout.Field, v layout.DataValue) error {
	if f.Kind == layout.String {
		if len(v.Text) > f.MaxBytes {
			return rankgenrt.DataLengthError(f.Name, len(v.Text), f.MaxBytes)
		}
		return nil
	}
	return f.Check(v.Key)
}

// parseData reads a data field's value as text: a string as it is, any other type as the
// layout reads a field's (layout.Field.Parse).
func parseData(f *layout.Field, s string) (layout.DataValue, error) {
	if f.Kind == layout.String {
		v := layout.DataValue{Text: s}
		return v, checkData(f, v)
	}
	key, err := f.Parse(s)
	return layout.DataValue{Key: key}, err
}

// checkTellable refuses a plan that changes entries between two layouts of the same stored
// format: a board it had migrated could not be told from one it had not, so a rerun would
// migrate it twice (swapping two fields of one type back, say).
func (p *Plan) checkTellable(bad func(string, ...any)) {
	if p.Old.StoreFingerprint != p.New.StoreFingerprint {
		return
	}
	moved := false // a default (from < 0) moves a value in too
	for i, s := range p.fields {
		moved = moved || s.from != i
	}
	for i, s := range p.data {
		moved = moved || s.from != i
	}
	if moved {
		bad("the old and new layouts store entries the same way (stored-format fingerprint %s), but the mapping moves values between fields: a migrated board could not be told from one not yet migrated; migrate through an intermediate schema that stores differently", p.New.StoreFingerprint)
	}
}

// MapData returns the data of the new layout that vals (data of the old one) becomes, or an
// error matching ErrMisfit that says which value does not fit.
func (p *Plan) MapData(vals []layout.DataValue) ([]layout.DataValue, error) {
	out := make([]layout.DataValue, len(p.data))
	for i, s := range p.data {
		if s.from < 0 {
			out[i] = s.value
			continue
		}
		v, err := s.convert(vals[s.from])
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrMisfit, p.New.Data[i].Name, err)
		}
		out[i] = v
	}
	return out, nil
}

// carriesData reports whether migrated entries keep data: both layouts have data fields.
func (p *Plan) carriesData() bool { return p.Old.HasData() && p.New.HasData() }

// RecodeData decodes an entry's stored data of the old layout and encodes its mapped data
// with the new. Data the old layout cannot decode is an error matching ErrMisfit too: it
// cannot be carried over.
func (p *Plan) RecodeData(stored string) (string, error) {
	vals, err := p.Old.DecodeData(stored)
	if err != nil {
		return "", fmt.Errorf("%w: data: the old layout cannot decode it: %v", ErrMisfit, err)
	}
	mapped, err := p.MapData(vals)
	if err != nil {
		return "", err
	}
	s, err := p.New.EncodeData(mapped)
	if err != nil {
		return "", fmt.Errorf("%w: data: %v", ErrMisfit, err)
	}
	return s, nil
}
