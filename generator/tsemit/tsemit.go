// Package tsemit renders a layout's TypeScript module (<stem>.rankgen.ts): the Entry and Data
// types, a layout table, and the codec (encode, decode, compare, encodeData, decodeData) that
// interprets the table exactly as generator/layout's interpreted codec does, with BigInt where a
// value can pass 2^53; then a Board of reads (top, page, around, rank, get, getMany) that calls
// the board's library functions by name (FCALL_RO over ioredis), loads the library where the
// server lacks it, checks the layout fingerprint, and throws typed errors. The module is
// text/template output (module.ts.tmpl); like every generated file it is deterministic.
package tsemit

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

//go:embed module.ts.tmpl
var moduleText string

var tmpl = template.Must(template.New("module").Parse(moduleText))

// Library is what the module needs of the board's Lua library (made by generator/luaemit,
// which this package does not import): its name and whole text, which the module loads where a
// server lacks it.
type Library struct {
	Name   string
	Source string
}

// File is the module's file name: <stem>.rankgen.ts.
func File(l *layout.Layout) string { return l.Stem() + ".rankgen.ts" }

// maxSafe is Number.MAX_SAFE_INTEGER: a value beyond it is a bigint in TypeScript.
const maxSafe = 1<<53 - 1

// Generate renders the TypeScript module of l, whose library is lib.
func Generate(l *layout.Layout, lib Library) ([]byte, error) {
	v, err := newView(l, lib)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// PropName is the TypeScript property of a schema name: its leading capitals lower-cased, the
// last of them kept when a lower-case letter follows ("RaceTime" → "raceTime", "PlayerID" →
// "playerID", "URLPath" → "urlPath", "ID" → "id").
func PropName(name string) string {
	r := []rune(name)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n--
	}
	for i := 0; i < n; i++ {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// Props maps the layout's id and field names to their properties in the TypeScript Entry, and
// its data fields' names to theirs in Data: PropName of each, except where two names would
// meet ("ID" and "Id") or a name would take the entry's data property: those keep the
// schema's spelling, which is unique.
func Props(l *layout.Layout) (entry, data map[string]string) {
	names := []string{l.IDName}
	for _, f := range l.Fields {
		names = append(names, f.Name)
	}
	var dataNames []string
	for _, f := range l.Data {
		dataNames = append(dataNames, f.Name)
	}
	return props(names, "data"), props(dataNames, "")
}

func props(names []string, reserved string) map[string]string {
	count := map[string]int{}
	for _, n := range names {
		count[PropName(n)]++
	}
	out := map[string]string{}
	for _, n := range names {
		p := PropName(n)
		if count[p] > 1 || p == reserved {
			p = n
		}
		out[n] = p
	}
	return out
}

type view struct {
	Header, Schema, Package, Doc  string
	Fingerprint, StoreFingerprint string
	DataFingerprint               string
	LibraryName, LibrarySource    string
	ScoreKind                     string
	DecimalPow10                  string
	ScoreRadix, ScoreRadixF       string
	NumScore, PrefixLen           int
	Separator                     string
	IDName, IDProp, IDType        string
	IDUint, IDAsc                 bool
	IDMaxBytes                    int
	Indexed, HasData              bool
	Fields, Data                  []fieldView
	Enums                         []enumView
	FnGet, FnRank, FnPage         bool
	Periodic                      bool
	SeasonFields                  []string
	IDDoc                         string
	ClientClock                   bool
	Updates                       []updateView
	// Previous: for a layout that replaces another (previous: in its schema) and has writes,
	// how its Board reads and writes a board still in that layout (previous.go); nil otherwise.
	Previous *previousView
}

// updateView is one field update the TypeScript Board performs: its method, library function,
// field (an index into FIELDS) and kind.
type updateView struct {
	Method, Fn, Kind, Arg, Type, Doc string
	Field                            int
	Previous                         *updateRoute // with a previous layout: how it runs there
}

type fieldView struct {
	Name, Prop, Kind, Type, Doc, Range string
	Big                                bool
	Lo, Hi, Weight, Radix              string
	Desc, Hex, Season                  bool
	Offset, Width, MaxBytes            int
	Values                             string // a JSON array of the enum's values
	Unit                               string
}

type enumView struct{ Name, Union string }

func newView(l *layout.Layout, lib Library) (*view, error) {
	src, err := jsString(lib.Source)
	if err != nil {
		return nil, err
	}
	sep, err := jsString(l.Separator)
	if err != nil {
		return nil, err
	}
	entryProps, dataProps := Props(l)
	v := &view{
		Header: layout.Header(l.File), Schema: l.File, Package: l.Package, Doc: comment(l.Doc),
		Fingerprint: l.Fingerprint, StoreFingerprint: l.StoreFingerprint, DataFingerprint: l.DataFingerprint,
		LibraryName: lib.Name, LibrarySource: src,
		ScoreKind: l.Score.String(), NumScore: l.NumScore, PrefixLen: l.PrefixLen, Separator: sep,
		ScoreRadix:  strconv.FormatUint(l.ScoreRadix, 10) + "n",
		ScoreRadixF: strconv.FormatFloat(float64(l.ScoreRadix), 'g', -1, 64),
		IDName:      l.IDName, IDProp: entryProps[l.IDName], IDUint: l.IDType == layout.IDUint64, IDAsc: l.IDOrder == layout.Asc,
		IDMaxBytes: l.MaxIDBytes(), Indexed: l.HasPrefix(), HasData: l.HasData(), Periodic: l.Season != nil,
	}
	v.DecimalPow10 = strconv.FormatFloat(l.Pow10(), 'g', -1, 64)
	v.IDType, v.IDDoc = "string", fmt.Sprintf("1 to %d bytes of UTF-8 text", l.MaxBytes)
	if v.IDUint {
		v.IDType, v.IDDoc = "bigint", "a uint64 (0 … 18446744073709551615)"
	}
	for _, f := range l.Fields {
		fv, enum := newField(f)
		fv.Prop = entryProps[f.Name]
		v.Fields = append(v.Fields, fv)
		if enum != nil {
			v.Enums = append(v.Enums, *enum)
		}
		if f.Season {
			v.SeasonFields = append(v.SeasonFields, fv.Prop)
		}
	}
	for _, f := range l.Data {
		fv, enum := newField(f)
		fv.Prop = dataProps[f.Name]
		v.Data = append(v.Data, fv)
		if enum != nil {
			v.Enums = append(v.Enums, *enum)
		}
	}
	v.ClientClock = slices.ContainsFunc(l.Fields, func(f *layout.Field) bool { return f.Stamp == layout.StampClient })
	for _, op := range catalog.Ops(l) {
		// Updates of season-anchored fields need the season's bounds, and those of member fields
		// too wide for doubles send their values as text: both are the Go package's for now.
		if op.Kind == catalog.Update && !op.Batch && !op.Field.Season && !wide(op.Field) {
			v.Updates = append(v.Updates, newUpdate(l, op))
		}
		switch op.Kind {
		case catalog.Get:
			v.FnGet = op.Scripted()
		case catalog.Rank:
			v.FnRank = op.Scripted()
		case catalog.Page:
			v.FnPage = op.Scripted()
		}
	}
	newPrevious(v, l)
	return v, nil
}

// wide reports a member field whose digits reach 2^53, whose updates the scripts take as text.
func wide(f *layout.Field) bool { return f.Place == layout.InMember && f.Span() >= 1<<53 }

// newUpdate is a single field update's method: addLaps(id, delta), setLaps(id, v), ….
func newUpdate(l *layout.Layout, op catalog.Op) updateView {
	i := slices.Index(l.Fields, op.Field)
	fv, _ := newField(op.Field)
	u := updateView{Method: PropName(op.Methods[0]), Fn: op.Name, Kind: string(op.Update), Field: i, Arg: "v", Type: fv.Type}
	switch op.Update {
	case layout.OpAdd:
		u.Arg, u.Type = "delta", "number | bigint"
		u.Doc = fmt.Sprintf("adds delta (a whole number, negative to subtract) to the %s of the entry of id", op.Field.Name)
	case layout.OpMax:
		u.Doc = fmt.Sprintf("sets the %s of the entry of id to the larger of v and its current one", op.Field.Name)
	case layout.OpMin:
		u.Doc = fmt.Sprintf("sets the %s of the entry of id to the smaller of v and its current one", op.Field.Name)
	default:
		u.Doc = fmt.Sprintf("sets the %s of the entry of id to v", op.Field.Name)
	}
	return u
}

// newField is a field's row in the layout table and its TypeScript type (and the enum's type
// alias, for an enum).
func newField(f *layout.Field) (fieldView, *enumView) {
	fv := fieldView{
		Name: f.Name, Prop: PropName(f.Name), Kind: f.Kind.String(), Doc: comment(f.Doc),
		Lo: strconv.FormatUint(f.Lo, 10) + "n", Hi: strconv.FormatUint(f.Hi, 10) + "n",
		Weight: strconv.FormatUint(f.Weight, 10) + "n",
		Radix:  new(big.Int).Add(new(big.Int).SetUint64(f.MaxDigit), big.NewInt(1)).String() + "n",
		Desc:   f.Order == layout.Desc, Hex: f.Hex, Season: f.Season,
		Offset: f.Offset, Width: f.TextWidth, MaxBytes: f.MaxBytes, Values: "[]", Unit: f.Unit.String(),
	}
	var enum *enumView
	switch f.Kind {
	case layout.Uint:
		fv.Big = f.Hi > maxSafe
		fv.Type, fv.Range = "number", fmt.Sprintf("%d … %d", f.Lo, f.Hi)
	case layout.Int, layout.Time:
		fv.Big = f.MinInt() < -maxSafe || f.MaxInt() > maxSafe
		fv.Type, fv.Range = "number", fmt.Sprintf("%d … %d", f.MinInt(), f.MaxInt())
		if f.Kind == layout.Time {
			from := "the Unix epoch"
			if f.Season {
				from = "the season's start"
			}
			fv.Range = fmt.Sprintf("whole %s since %s, %d … %d (%s … %s)", unitWords(f.Unit), from, f.MinInt(), f.MaxInt(), f.Format(f.Lo), f.Format(f.Hi))
		}
	case layout.Bool:
		fv.Type, fv.Range = "boolean", "false or true"
	case layout.Enum:
		vals, _ := json.Marshal(f.Values)
		fv.Values = string(vals)
		quoted := make([]string, len(f.Values))
		for i, s := range f.Values {
			quoted[i] = strconv.Quote(s)
		}
		enum = &enumView{Name: f.Name, Union: strings.Join(quoted, " | ")}
		fv.Type, fv.Range = f.Name, "one of "+strings.Join(f.Values, ", ")
	case layout.String:
		fv.Type, fv.Range = "string", fmt.Sprintf("at most %d bytes of UTF-8 text", f.MaxBytes)
	}
	if fv.Big {
		fv.Type = "bigint"
	}
	fv.Range = strings.ToUpper(fv.Range[:1]) + fv.Range[1:]
	return fv, enum
}

func unitWords(u layout.Unit) string {
	return [...]string{"seconds", "milliseconds", "microseconds"}[u]
}

// comment makes text safe inside a /* */ or // comment: no "*/", one line.
func comment(s string) string {
	s = strings.ReplaceAll(s, "*/", "* /")
	return strings.Join(strings.Fields(s), " ")
}

// jsString is s as a JavaScript string literal (JSON, which JavaScript reads the same; HTML
// characters left as they are).
func jsString(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
