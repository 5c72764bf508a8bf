package layout

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
)

// Limits of the schema language.
const (
	MaxBits          = 64
	MaxDigits        = 19        // 10^19 − 1 still fits a uint64
	MaxDecimalPlaces = 15        // beyond, the decimal bound leaves almost nothing for the integer part
	MaxSeparator     = 8         // bytes, printable ASCII
	MaxNameBytes     = 64        // the package, the id, fields and enum values
	MaxDocBytes      = 4096      // each doc, in bytes
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
	misnamed map[*Field]bool // fields whose name is refused: no enum constants are derived from it
	season   *Season         // the season block, which epoch: season fields are measured in
	// seasonRefused: the season block is given but refused (reported); its fields say no more.
	seasonRefused bool
}

func (v *validator) layout(raw *rawSchema) *Layout {
	l := &Layout{File: file0(v.file), Separator: ":", MaxBytes: DefaultMaxBytes}

	v.packageName(raw.Package, l)
	l.Doc = v.doc(raw.Doc)
	v.separator(raw.Separator, l)
	l.Sharded = v.flag(raw.Sharded, "sharded")

	scoreErrs := len(v.diags)
	v.score(raw, l)
	scoreOK := len(v.diags) == scoreErrs

	names := map[string]scalar{}
	v.id(raw.ID, l, names)
	v.season = v.seasonBlock(raw.Season)
	v.seasonRefused = raw.Season.Set && v.season == nil
	l.Season = v.season

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
	v.dataLayout(raw, l, names)
	v.enumNames(l)
	v.feeds(raw, l, names)
	v.previousBlock(raw.Previous, l)
	// Placement needs every field's radix and the score's kind; it does not need names,
	// orders or updates, so errors there do not hide the score's capacity.
	if len(l.Fields) == 0 || len(l.Fields) < len(raw.Fields) || !scoreOK {
		return nil
	}
	placeErrs := len(v.diags)
	v.place(raw, l)
	if len(v.diags) == placeErrs && l.IDType == IDString && raw.ID.MaxBytes.Set && l.MaxMemberBytes() > RedisMaxString {
		if l.IDOrder == Asc {
			// The reversed id text takes up to 2·max_bytes + 1 bytes: beyond the limit, some ids
			// could not be stored exactly, so the layout is refused rather than some ids.
			v.errAt(raw.ID.MaxBytes, "max_bytes %d with order: asc writes ids of up to %d bytes (two hex digits a byte, and an end byte), which with the %d-byte member prefix exceeds Redis's 512 MiB string limit; lower max_bytes to at most %d, or drop order: asc",
				l.MaxBytes, l.MaxIDTextBytes(), l.PrefixLen, (RedisMaxString-l.PrefixLen-1)/2)
		} else {
			v.errAt(raw.ID.MaxBytes, "max_bytes %d plus the %d-byte member prefix exceeds Redis's 512 MiB string limit; lower max_bytes to at most %d", l.MaxBytes, l.PrefixLen, RedisMaxString-l.PrefixLen)
		}
	}
	if len(v.diags) > 0 {
		return nil
	}
	l.Canonical = canonical(l)
	l.Fingerprint = fingerprint(l.Canonical)
	l.StoreCanonical = l.Canonical + dataCanonical(l)
	l.StoreFingerprint = fingerprint(l.StoreCanonical)
	if l.HasData() {
		l.DataFingerprint = fingerprint(dataCanonical(l))
		l.DataChain = dataChain(l)
	}
	return l
}

func (v *validator) packageName(s scalar, l *Layout) {
	switch {
	case !s.Set:
		if !s.Bad {
			v.errorf(1, 1, "missing package: add \"package: arena\" (the Go package name of the generated code)")
		}
	case v.tooLong(s, "package"):
	case !token.IsIdentifier(s.Value) || token.IsKeyword(s.Value) || s.Value == "_":
		v.errAt(s, "package %q is not a Go package name; use a lower-case word like \"arena\"", s.Value)
	default:
		l.Package = s.Value
	}
}

// separator goes into every member and, as a literal, into the generated Go and Lua: a few
// printable ASCII bytes.
func (v *validator) separator(s scalar, l *Layout) {
	if !s.Set {
		return
	}
	if len(s.Value) > MaxSeparator {
		v.errAt(s, "separator %q is %d bytes; keep it at most %d (\":\" is usual)", s.Value, len(s.Value), MaxSeparator)
		return
	}
	for i := 0; i < len(s.Value); i++ {
		if c := s.Value[i]; c < ' ' || c > '~' {
			v.errAt(s, "separator %q holds byte 0x%02x; use printable ASCII (\":\" is usual)", s.Value, c)
			return
		}
	}
	l.Separator = s.Value
}

// flag is a yes-or-no option: true or false, as YAML writes them.
func (v *validator) flag(s scalar, key string) bool {
	if !s.Set {
		return false
	}
	switch s.Value {
	case "true":
		return true
	case "false":
		return false
	}
	v.errAt(s, "%s must be true or false, not %q", key, s.Value)
	return false
}

// doc is a schema or field doc: it becomes a Go comment, so it is printable text (newlines and
// tabs allowed) of at most MaxDocBytes.
func (v *validator) doc(s scalar) string {
	if len(s.Value) > MaxDocBytes {
		v.errAt(s, "doc is %d bytes; keep it at most %d", len(s.Value), MaxDocBytes)
		return ""
	}
	if !utf8.ValidString(s.Value) {
		v.errAt(s, "doc is not valid UTF-8; write it as text")
		return ""
	}
	for _, r := range s.Value {
		if !unicode.IsPrint(r) && r != '\n' && r != '\t' {
			v.errAt(s, "doc holds the control character %U; use printable text (newlines and tabs are fine)", r)
			return ""
		}
	}
	return strings.TrimSpace(s.Value)
}

// tooLong reports a name over MaxNameBytes: names become Go identifiers, method names and
// file names.
func (v *validator) tooLong(s scalar, what string) bool {
	if len(s.Value) <= MaxNameBytes {
		return false
	}
	v.errAt(s, "%s %s is too long; keep names at most %d bytes", what, quote.Short(s.Value), MaxNameBytes)
	return true
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
	case "bits62":
		l.Score = ScoreBits62
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
		msg := fmt.Sprintf("unknown score kind %s; use integer (the default), decimal or bits62", quote.Short(raw.Score.Value))
		if s := suggest.Closest(raw.Score.Value, []string{"integer", "decimal", "bits62"}); s != "" {
			msg = fmt.Sprintf("unknown score kind %s; did you mean %q?", quote.Short(raw.Score.Value), s)
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
	switch raw.Order.Value {
	case "", "desc":
	case "asc":
		l.IDOrder = Asc
	default:
		v.errAt(raw.Order, "id order must be desc (ties ranked by id descending, the default) or asc (ties ranked by id ascending), not %q", raw.Order.Value)
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
