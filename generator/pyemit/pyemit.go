// Package pyemit writes a layout's Python client: one module, <stem>_rankgen.py, for redis-py.
// It holds the entry type (data fields included), the codec (Encode, Decode, Compare and the
// data's, equal bit for bit to the Go package's), the layout fingerprint check and the board's
// reads, which call the board's library functions by name (FCALL_RO) and load the library,
// whose whole text the module carries, where a server lacks it.
//
// The module is rendered from one embedded text/template (module.py.tmpl): the layout's
// constants as tables, then code that is the same for every layout. It never knows about the
// Go or Lua emitters: the caller (package generator) gives it the composed library's name and
// text.
package pyemit

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

//go:embed module.py.tmpl
var moduleText string

var tmpl = template.Must(template.New("module").Funcs(template.FuncMap{"doc": docText}).Parse(moduleText))

// docText is text for a docstring ("""…"""): a schema's doc may hold quotes and backslashes.
func docText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// File is the Python module's file name for the layout: the schema's stem, with every byte
// that a Python module name cannot hold as "_", then "_rankgen.py" (racing.yaml →
// racing_rankgen.py), so that it imports as racing_rankgen.
func File(l *layout.Layout) string {
	stem := unsafeName.ReplaceAllString(l.Stem(), "_")
	if stem == "" || stem[0] >= '0' && stem[0] <= '9' {
		stem = "_" + stem
	}
	return stem + "_rankgen.py"
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]`)

// Library is what the module needs of the board's Lua library: its name on the server and its
// whole text, as the Go runtime composes it (the same bytes, so that Go and Python code of a
// layout load and call one library).
type Library struct {
	Name   string
	Source string
}

// Generate renders the layout's Python module.
func Generate(l *layout.Layout, lib Library) ([]byte, error) {
	v, err := newView(l, lib)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// view is what the template reads.
type view struct {
	Header, Schema, Package, Doc  string
	Fingerprint, StoreFingerprint string
	DataChain                     []string
	LibraryName                   string
	LibraryLines                  []string // Python string literals, one per line of the library

	Score         string // integer, decimal or bits62
	DecimalPlaces int
	ScoreRadix    string
	PrefixLen     int
	Separator     string // a Python bytes literal

	IDName, IDAttr string
	IDUint         bool
	IDMaxBytes     int
	IDAsc          bool
	IDType         string // the Python type of an id

	Fields []*fieldView
	Data   []*fieldView

	Indexed      bool // the side key is the index (a member prefix), else the meta key
	Seasonal     bool
	Times        bool // a time field (or data field) counted from the Unix epoch: the datetime helpers
	GetScripted  bool // get is a library function (else ZSCORE)
	RankScripted bool // rank is a library function (else ZREVRANK)
	PageScripted bool // page is a library function (else ZREVRANGE)

	// Writes: the layout's Python board writes (a layout without a season: periodic boards'
	// writes need their season's calendar, expiry and clock, which Go's runtime holds).
	Writes      bool
	ClientClock bool // field updates send the client's clock (a field stamped by it)
	Updates     []*updateView

	// Previous: for a layout that replaces another (previous: in its schema) and has writes,
	// how its Board reads and writes a board still in that layout (previous.go); nil otherwise.
	Previous *previousView
}

// updateView is one field update: its method, its library function (and its batch form's,
// op + "_many") and how its value goes to the script.
type updateView struct {
	Method, Op, Field, Attr, Kind string
	FieldIndex                    int
	Wide                          bool         // a member field too wide for doubles: values as text
	Previous                      *updateRoute // with a previous layout: how it runs there
}

// fieldView is one field (or data field) as the module's tables and classes write it.
type fieldView struct {
	Name, Attr, Doc string
	Kind            string // uint, int, bool, enum, time, string
	PyType          string
	Default         string // the Python literal of the Go zero value
	Lo, Hi          string // keys, as layout.Field has them
	Desc            bool
	InScore         bool
	Weight, Radix   string
	TextWidth       int
	Offset          int
	Hex             bool
	Values          string // a Python tuple of the enum's values, else "()"
	Unit            string
	Season          bool
	MaxBytes        int
	Range           string // the values in words, for the docs
}

func newView(l *layout.Layout, lib Library) (*view, error) {
	switch l.Score {
	case layout.ScoreInteger, layout.ScoreDecimal, layout.ScoreBits62:
	default: // a new score mode needs its score_of and p_of in module.py.tmpl
		return nil, fmt.Errorf("the Python module has no codec for score: %s", l.Score)
	}
	ops := catalog.Ops(l)
	v := &view{
		Header:           layout.Header(l.File),
		Schema:           l.File,
		Package:          l.Package,
		Doc:              l.Doc,
		Fingerprint:      l.Fingerprint,
		StoreFingerprint: l.StoreFingerprint,
		DataChain:        l.DataChain,
		LibraryName:      lib.Name,
		LibraryLines:     pyLines(lib.Source),
		Score:            l.Score.String(),
		DecimalPlaces:    l.DecimalPlaces,
		ScoreRadix:       strconv.FormatUint(l.ScoreRadix, 10),
		PrefixLen:        l.PrefixLen,
		Separator:        pyBytes(l.Separator),
		IDName:           l.IDName,
		IDUint:           l.IDType == layout.IDUint64,
		IDMaxBytes:       l.MaxIDBytes(),
		IDAsc:            l.IDOrder == layout.Asc,
		Indexed:          l.HasPrefix(),
		Seasonal:         l.Season != nil,
		GetScripted:      catalog.OpOf(ops, catalog.Get).Scripted(),
		RankScripted:     catalog.OpOf(ops, catalog.Rank).Scripted(),
		PageScripted:     catalog.OpOf(ops, catalog.Page).Scripted(),
	}
	if v.Writes = l.Season == nil; v.Writes {
		for _, f := range l.Fields {
			v.ClientClock = v.ClientClock || f.Stamp == layout.StampClient
		}
		for _, op := range ops {
			if op.Kind != catalog.Update || op.Batch {
				continue
			}
			v.Updates = append(v.Updates, &updateView{
				Method: snake(op.Methods[0]), Op: op.Name, Field: op.Field.Name, Kind: string(op.Update),
				FieldIndex: slices.Index(l.Fields, op.Field),
				Wide:       op.Field.Place == layout.InMember && op.Field.Span() >= 1<<53,
			})
		}
	}
	for _, f := range append(slices.Clone(l.Fields), l.Data...) {
		v.Times = v.Times || f.Kind == layout.Time && !f.Season
	}
	v.IDType = "str"
	if v.IDUint {
		v.IDType = "int"
	}
	taken := map[string]string{}
	var err error
	if v.IDAttr, err = attr(l.IDName, taken); err != nil {
		return nil, err
	}
	for _, f := range l.Fields {
		fv, err := newField(f, taken)
		if err != nil {
			return nil, err
		}
		v.Fields = append(v.Fields, fv)
	}
	if l.HasData() {
		if _, err := attr("Data", taken); err != nil {
			return nil, err
		}
		dataTaken := map[string]string{}
		for _, f := range l.Data {
			fv, err := newField(f, dataTaken)
			if err != nil {
				return nil, err
			}
			v.Data = append(v.Data, fv)
		}
	}
	if err := newPrevious(v, l); err != nil {
		return nil, err
	}
	return v, nil
}

func newField(f *layout.Field, taken map[string]string) (*fieldView, error) {
	a, err := attr(f.Name, taken)
	if err != nil {
		return nil, err
	}
	fv := &fieldView{
		Name: f.Name, Attr: a, Doc: f.Doc, Kind: f.Kind.String(),
		Lo: strconv.FormatUint(f.Lo, 10), Hi: strconv.FormatUint(f.Hi, 10),
		Desc: f.Order == layout.Desc, InScore: f.Place == layout.InScore,
		Weight: strconv.FormatUint(f.Weight, 10), Radix: radixText(f.MaxDigit),
		TextWidth: f.TextWidth, Offset: f.Offset, Hex: f.Hex, Values: "()",
		Unit: f.Unit.String(), Season: f.Season, MaxBytes: f.MaxBytes,
	}
	switch f.Kind {
	case layout.Uint:
		fv.PyType, fv.Default, fv.Range = "int", "0", f.Range()
	case layout.Int:
		fv.PyType, fv.Default, fv.Range = "int", "0", f.Range()
	case layout.Bool:
		fv.PyType, fv.Default, fv.Range = "bool", "False", "False or True"
	case layout.Enum:
		quoted := make([]string, len(f.Values))
		for i, s := range f.Values {
			quoted[i] = pyString(s)
		}
		fv.PyType, fv.Default = "str", quoted[0]
		fv.Values = "(" + strings.Join(quoted, ", ") + ",)"
		fv.Range = "one of " + strings.Join(f.Values, ", ")
	case layout.Time:
		fv.PyType = "int"
		if f.Season {
			fv.Default = "0"
			fv.Range = fmt.Sprintf("%s from the season's start, %d to %d", unitWords(f.Unit), f.MinInt(), f.MaxInt())
		} else {
			n, _ := layout.TimeUnits(time.Time{}, f.Unit) // Go's zero time.Time, as its zero Entry holds
			fv.Default = strconv.FormatInt(n, 10)
			fv.Range = fmt.Sprintf("%s since 1970-01-01T00:00:00Z, %d (%s) to %d (%s)", unitWords(f.Unit),
				f.MinInt(), f.Format(f.Lo), f.MaxInt(), f.Format(f.Hi))
		}
	case layout.String:
		fv.PyType, fv.Default, fv.Range = "str", `""`, fmt.Sprintf("UTF-8 text of at most %d bytes", f.MaxBytes)
	default: // a new kind needs its Python type here and its keys in module.py.tmpl's _key_of
		return nil, fmt.Errorf("the Python module has no type for %s's kind %s", f.Name, f.Kind)
	}
	return fv, nil
}

func unitWords(u layout.Unit) string {
	return map[layout.Unit]string{layout.Second: "seconds", layout.Milli: "milliseconds", layout.Micro: "microseconds"}[u]
}

// radixText writes a field's radix, R = MaxDigit + 1, which is 2^64 for a bits: 64 field.
func radixText(maxDigit uint64) string {
	if maxDigit == ^uint64(0) {
		return "18446744073709551616"
	}
	return strconv.FormatUint(maxDigit+1, 10)
}

// pyKeywords are Python's keywords and the soft keywords an attribute had better not take.
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
	"match": true, "case": true, "type": true,
}

// attr is the Python attribute of a schema name: snake case ("RaceTime" → race_time, "PlayerID"
// → player_id), with "_" after a keyword. Two names with one attribute are an error naming both.
func attr(name string, taken map[string]string) (string, error) {
	a := snake(name)
	if pyKeywords[a] {
		a += "_"
	}
	if other, ok := taken[a]; ok {
		return "", fmt.Errorf("the names %s and %s are both %s in Python; rename one", other, name, a)
	}
	taken[a] = name
	return a, nil
}

// snake writes a CamelCase name in snake case: an underscore before an upper-case letter that
// follows a lower-case letter or digit, or that starts a word after an acronym ("HTTPServer" →
// http_server).
func snake(name string) string {
	var b strings.Builder
	r := []rune(name)
	for i, c := range r {
		upper := c >= 'A' && c <= 'Z'
		if upper && i > 0 {
			prev := r[i-1]
			lowerPrev := prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9'
			acronymEnd := prev >= 'A' && prev <= 'Z' && i+1 < len(r) && r[i+1] >= 'a' && r[i+1] <= 'z'
			if lowerPrev || acronymEnd {
				b.WriteByte('_')
			}
		}
		if upper {
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// pyString is a Python str literal of s (ASCII escapes; other characters as they are, in the
// module's UTF-8).
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		case c == 0x2028 || c == 0x2029 || c == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyBytes is a Python bytes literal of s, every byte outside printable ASCII escaped.
func pyBytes(s string) string {
	var b strings.Builder
	b.WriteString(`b"`)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyLines splits text into Python str literals, one per line, each keeping its newline, so that
// their concatenation is text.
func pyLines(text string) []string {
	var out []string
	for text != "" {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		text = text[len(line):]
		out = append(out, pyString(line))
	}
	return out
}

// Snake is the Python name of a schema or Go name: snake case ("RaceTime" → race_time,
// "AddLaps" → add_laps), as the module's attributes and methods are named (keywords aside).
func Snake(name string) string { return snake(name) }
