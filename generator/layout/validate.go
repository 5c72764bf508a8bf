package layout

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/internal/suggest"
)

// Limits of the schema language.
const (
	MaxBits          = 64
	MaxDigits        = 19        // 10^19 − 1 still fits a uint64
	MaxDecimalPlaces = 15        // beyond, the decimal bound leaves almost nothing for the integer part
	MaxSeparator     = 8         // bytes
	DefaultMaxBytes  = 64        // string ids
	RedisMaxString   = 512 << 20 // a Redis string (and so a member) is at most 512 MiB
)

// Parse reads a schema and computes its layout. file is used in diagnostics and in the
// generated header. On failure the error is Diagnostics holding every problem found.
func Parse(file string, src []byte) (*Layout, error) {
	raw, diags := parseRaw(file, src)
	if raw == nil {
		return nil, diags.sorted()
	}
	v := &validator{parser: parser{file: file, diags: diags}}
	l := v.layout(raw)
	if len(v.diags) > 0 {
		return nil, v.diags.sorted()
	}
	return l, nil
}

type validator struct {
	parser
}

func (v *validator) layout(raw *rawSchema) *Layout {
	l := &Layout{File: file0(v.file), Separator: ":", MaxBytes: DefaultMaxBytes}

	if !raw.Package.Set {
		if !raw.Package.Bad {
			v.errorf(1, 1, "missing package: add \"package: arena\" (the Go package name of the generated code)")
		}
	} else if !token.IsIdentifier(raw.Package.Value) || token.IsKeyword(raw.Package.Value) || raw.Package.Value == "_" {
		v.errAt(raw.Package, "package %q is not a Go package name; use a lower-case word like \"arena\"", raw.Package.Value)
	} else {
		l.Package = raw.Package.Value
	}
	l.Doc = strings.TrimSpace(raw.Doc.Value)

	if raw.Separator.Set {
		if len(raw.Separator.Value) > MaxSeparator {
			v.errAt(raw.Separator, "separator %q is %d bytes; keep it at most %d (\":\" is usual)", raw.Separator.Value, len(raw.Separator.Value), MaxSeparator)
		}
		l.Separator = raw.Separator.Value
	}

	v.score(raw, l)

	names := map[string]scalar{}
	v.id(raw.ID, l, names)

	if !raw.FieldsPos.Bad && (!raw.FieldsPos.Set || len(raw.Fields) == 0) {
		at := raw.FieldsPos
		if !at.Set {
			at = scalar{Line: 1, Col: 1}
		}
		v.errAt(at, "the schema has no fields; list them under \"fields:\", most significant first")
	}
	for i := range raw.Fields {
		if f := v.field(&raw.Fields[i], names); f != nil {
			l.Fields = append(l.Fields, f)
		}
	}
	v.enumNames(l, names)
	if len(v.diags) > 0 {
		return nil
	}
	v.place(raw, l)
	if len(v.diags) > 0 {
		return nil
	}
	if l.IDType == IDString && raw.ID.MaxBytes.Set && l.PrefixLen+l.MaxBytes > RedisMaxString {
		v.errAt(raw.ID.MaxBytes, "max_bytes %d plus the %d-byte member prefix exceeds Redis's 512 MiB string limit; lower max_bytes to at most %d", l.MaxBytes, l.PrefixLen, RedisMaxString-l.PrefixLen)
		return nil
	}
	l.Canonical = canonical(l)
	l.Fingerprint = fingerprint(l.Canonical)
	return l
}

func file0(f string) string {
	if i := strings.LastIndexAny(f, `/\`); i >= 0 {
		return f[i+1:]
	}
	return f
}

func (v *validator) score(raw *rawSchema, l *Layout) {
	switch raw.Score.Value {
	case "", "integer":
	case "decimal":
		l.Score = ScoreDecimal
		if raw.DecimalPlaces.Bad {
			return
		}
		if !raw.DecimalPlaces.Set {
			v.errAt(raw.Score, "score: decimal needs decimal_places: N (how many digits of the layout go after the decimal point)")
			return
		}
		n, err := strconv.Atoi(raw.DecimalPlaces.Value)
		if err != nil || n < 1 || n > MaxDecimalPlaces {
			v.errAt(raw.DecimalPlaces, "decimal_places must be a whole number from 1 to %d, not %q", MaxDecimalPlaces, raw.DecimalPlaces.Value)
			return
		}
		l.DecimalPlaces = n
	default:
		msg := fmt.Sprintf("unknown score kind %q; use integer (the default) or decimal", raw.Score.Value)
		if s := suggest.Closest(raw.Score.Value, []string{"integer", "decimal"}); s != "" {
			msg = fmt.Sprintf("unknown score kind %q; did you mean %q?", raw.Score.Value, s)
		}
		v.errAt(raw.Score, "%s", msg)
	}
	if raw.DecimalPlaces.Set && raw.Score.Value != "decimal" {
		v.errAt(raw.DecimalPlaces, "decimal_places only applies to \"score: decimal\"; add that or remove decimal_places")
	}
}

func (v *validator) id(raw rawID, l *Layout, names map[string]scalar) {
	if raw.Bad {
		return
	}
	if !raw.Set {
		v.errorf(1, 1, "missing id: add \"id: {name: PlayerID}\" (the member id's Go field name)")
		return
	}
	if raw.Name.Bad {
		// already reported
	} else if !raw.Name.Set {
		v.errorf(raw.Line, raw.Col, "id has no name; add \"name: PlayerID\" (its Go field name)")
	} else if v.goName(raw.Name, "id name") {
		l.IDName = raw.Name.Value
		names[raw.Name.Value] = raw.Name
	}
	switch raw.Type.Value {
	case "", "string":
	case "uint64":
		l.IDType = IDUint64
		if raw.MaxBytes.Set {
			v.errAt(raw.MaxBytes, "max_bytes applies to string ids only; remove it (a uint64 id is at most 20 digits)")
		}
	default:
		v.errAt(raw.Type, "unknown id type %q; use string (the default) or uint64", raw.Type.Value)
	}
	if raw.MaxBytes.Set && l.IDType == IDString {
		n, err := strconv.ParseInt(raw.MaxBytes.Value, 10, 64)
		switch {
		case err != nil || n < 1:
			v.errAt(raw.MaxBytes, "max_bytes must be a whole number of at least 1, not %q", raw.MaxBytes.Value)
		case n > RedisMaxString:
			v.errAt(raw.MaxBytes, "max_bytes %d is beyond what Redis accepts (a member is at most 512 MiB = %d bytes); lower it", n, RedisMaxString)
		default:
			l.MaxBytes = int(n)
		}
	}
}
