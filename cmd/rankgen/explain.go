package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/picture"
)

func init() {
	register(&command{
		name:  "explain",
		args:  "schema.yaml",
		short: "print a schema's layout: fields, weights, capacity, time ranges",
		long: `Explain prints the layout a schema produces, the same table that heads the generated Go
file: for each field its Go type, place (score or member), width, weight in the score or
bytes in the member, order and range; then the score's capacity and headroom (bits used of
the 53 a float64 holds exactly, or of the decimal bound), the member's shape, for each time
field the dates its range covers ("31 bits of s from 2026-01-01 last until 2094-01-19"), and
the layout fingerprint.

A time field whose range has ended, or ends within a year, is reported on stderr as a warning
with the date; with -strict it is an error (exit 1, nothing printed).

With -json it prints the layout as one JSON document instead (format 2; keys are stable and
only ever added): the contract clients of other languages are generated from, documented in
docs/layout-json.md. Values that can exceed 2^53 (ranges, radices) are strings.

For a periodic layout (a season: block), -season S (a season id, the season's start in Unix
seconds; or an RFC 3339 time in the season) also prints that season: its start and end in
the calendar's zone and in UTC, its length (a Paris week lasts 167, 168 or 169 hours), its
board's key (<key>:<id>), when writes set that board to expire (the end of the keep-th season
after it), and the ids of the seasons before and after it; with -json, as the object
"season". An id that starts no season is an error naming the ids around it.

With -svg FILE it also writes the layout as a picture to FILE, an SVG document: the score as
a bar of bits (each field with its width, weight and order, and the headroom left), the
member's bytes, the data fields and the fingerprints, for a pull request to show; -svg -
writes the picture to stdout instead of the text.

A package file (a boards: key) explains each of its boards in turn; -board NAME explains one,
as -json, -svg and -season need (its functions are the package library's, named
<library>_<board>_<op>).

Exit status: 0 on success, 1 on schema errors (and, with -strict, time ranges ending within
a year; and a -season that names no season), 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			asJSON := fs.Bool("json", false, "print the layout as a JSON document")
			strict := fs.Bool("strict", false, "treat a time range that has ended or ends within a year as an error")
			var sf seasonFlag
			sf.register(fs, "also print that season (bounds, length, key, expiry, neighbours)")
			svg := fs.String("svg", "", "also write the layout as an SVG picture to `FILE` (- for stdout, instead of the text)")
			var bf boardFlag
			bf.register(fs)
			return func(e *env, args []string) int {
				if len(args) != 1 {
					return usageFail(e, commands["explain"], "explain takes exactly one schema")
				}
				if *svg == "-" && *asJSON {
					return usageFail(e, commands["explain"], "-svg - writes the picture to stdout instead of the text; give -json or -svg -, not both")
				}
				if p, all, ok := explainAllBoards(e, args[0], bf, *asJSON || *svg != "" || sf.given()); p != nil || !ok {
					if !ok {
						return exitFail
					}
					for i, s := range all {
						if i > 0 {
							fmt.Fprintln(e.stdout)
						}
						fmt.Fprintf(e.stdout, "board %s of package %s (%s), %sBoard from %s:\n\n", s.board, p.Package, p.File, (&layout.Board{Name: s.board}).GoName(), s.path)
						if !timeLint(e, s.path, s.l, *strict) {
							return exitFail
						}
						fmt.Fprint(e.stdout, explainText(s.l))
					}
					fmt.Fprint(e.stdout, submissionsText(p))
					return exitOK
				}
				s, p, msg, ok := bf.pick(e, "explain", args[0])
				if msg != "" {
					return usageFail(e, commands["explain"], msg)
				}
				if !ok {
					return exitFail
				}
				l := s.l
				season, err := sf.resolve(l)
				if err != nil {
					e.errorf("explain", "%s", err)
					return exitFail
				}
				if !timeLint(e, args[0], l, *strict) {
					return exitFail
				}
				if *svg != "" {
					if *svg == "-" {
						e.stdout.Write(picture.SVG(l))
						return exitOK
					}
					if err := os.WriteFile(e.path(*svg), picture.SVG(l), 0o644); err != nil {
						e.errorf("explain", "%v", err)
						return exitFail
					}
				}
				if *asJSON {
					doc, err := layoutJSONOf(l, p, s.board)
					if err != nil {
						printError(e, "explain", err)
						return exitFail
					}
					if season != nil {
						doc.Season = seasonJSON(l, *season)
					}
					enc := json.NewEncoder(e.stdout)
					enc.SetEscapeHTML(false)
					enc.SetIndent("", "  ")
					if err := enc.Encode(doc); err != nil {
						e.errorf("explain", "%v", err)
						return exitFail
					}
					return exitOK
				}
				fmt.Fprint(e.stdout, explainText(l))
				if season != nil {
					fmt.Fprint(e.stdout, seasonText(l, *season, sf.text))
				}
				return exitOK
			}
		},
	})
}

func explainText(l *layout.Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: package %s\n", l.File, l.Package)
	if l.Doc != "" {
		fmt.Fprintf(&b, "%s\n", l.Doc)
	}
	switch l.IDType {
	case layout.IDUint64:
		if l.IDOrder == layout.Asc {
			fmt.Fprintf(&b, "id: %s (uint64, written as 20 digits reversed: 9 - each digit)\n", l.IDName)
		} else {
			fmt.Fprintf(&b, "id: %s (uint64, written in decimal)\n", l.IDName)
		}
	default:
		fmt.Fprintf(&b, "id: %s (string, 1 to %d bytes)\n", l.IDName, l.MaxBytes)
	}
	b.WriteString("\n")
	// The member's length goes with the other capacity lines, before the fingerprint.
	table := l.Table()
	if i := strings.LastIndex(table, "\nfingerprint: "); i >= 0 {
		table = table[:i+1] + memberLength(l) + tiesRule(l) + typedScores(l) + table[i+1:]
	} else {
		table += memberLength(l) + tiesRule(l) + typedScores(l)
	}
	b.WriteString(table)
	if s := l.SuggestBits62(); s != "" {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// typedScores says how a bits62 layout's scores are shown and typed, with examples.
func typedScores(l *layout.Layout) string {
	if l.Score != layout.ScoreBits62 {
		return ""
	}
	return fmt.Sprintf("scores as typed: P, not the double's digits (a digit or an exponent typed wrong is another entry): rankgen serve, encode and decode show and take p:N (on a JSON line \"p\": N), from p:0 (the lowest score) to p:%d (the highest); decode refuses a decimal that is not exactly its double\n", l.ScoreRadix-1)
}

// listpackValue is Redis's default zset-max-listpack-value (zset-max-ziplist-value before
// 7.0): a sorted set with a longer member leaves the compact listpack encoding.
const listpackValue = 64

// memberLength states the longest member the layout writes, and whether it can exceed what
// Redis keeps in its compact encoding for small sets.
func memberLength(l *layout.Layout) string {
	idMax := l.MaxIDTextBytes()
	n := l.PrefixLen + idMax
	s := fmt.Sprintf("member length: at most %d bytes", n)
	if l.PrefixLen > 0 {
		s += fmt.Sprintf(" (%d-byte prefix + id of up to %d)", l.PrefixLen, idMax)
	}
	if n > listpackValue {
		s += fmt.Sprintf("; members over %d bytes move small boards out of Redis's compact listpack encoding (zset-max-listpack-value)", listpackValue)
	}
	return s + "\n"
}

// tiesRule states how entries equal on every field are ordered: by the id's bytes, larger
// first, for that is how Redis reads equal scores in reverse. Users read "then by id" as
// ascending, so explain says it in so many words.
func tiesRule(l *layout.Layout) string {
	switch {
	case l.IDOrder == layout.Asc && l.IDType == layout.IDUint64:
		return "ties: entries equal on every field rank by the id ascending (1, then 9, then 10): the member holds its digits reversed (id order: asc)\n"
	case l.IDOrder == layout.Asc:
		return "ties: entries equal on every field rank by the id's bytes ascending (\"a\" before \"ab\" before \"b\"): the member holds them reversed (id order: asc)\n"
	case l.IDType == layout.IDUint64:
		return "ties: entries equal on every field rank by the id's decimal text, larger bytes first (9, then 10, then 1), not ascending (id order: asc ranks them ascending)\n"
	}
	return "ties: entries equal on every field rank by the id's bytes, larger first (\"b\" before \"ab\" before \"a\"), not ascending (id order: asc ranks them ascending)\n"
}

// explainDoc is the -json document. Field order is the output order; keep it stable and
// only add keys.
type explainDoc struct {
	Format      int        `json:"format"`
	Schema      string     `json:"schema"`
	Package     string     `json:"package"`
	Doc         string     `json:"doc,omitempty"`
	Fingerprint string     `json:"fingerprint"`
	ID          idDoc      `json:"id"`
	Score       scoreDoc   `json:"score"`
	Member      memberDoc  `json:"member"`
	Fields      []fieldDoc `json:"fields"`
	Files       []string   `json:"files"`
	Canonical   []string   `json:"canonical"`
	Operations  []opDoc    `json:"operations"`
	// A layout with data fields: the fingerprint of everything stored (layout and data), and
	// the data fields.
	StoreFingerprint string    `json:"store_fingerprint,omitempty"`
	DataFingerprint  string    `json:"data_fingerprint,omitempty"`
	Data             []dataDoc `json:"data,omitempty"`
	// The season -season names, on a periodic layout.
	Season *seasonDoc `json:"season,omitempty"`
	// Format 2: what a client of another language needs beside (docs/layout-json.md).
	Library    string   `json:"library"`         // the Lua library's name on the server: <stem>_<hash>
	Board      string   `json:"board,omitempty"` // a board of a package of boards: its name, which its functions' names carry
	ScriptKeys []string `json:"script_keys"`     // the keys every library function takes: "board", then side keys' suffixes
}

// explainFormat is the -json document's format: 2 added what clients of other languages read
// (docs/layout-json.md).
const explainFormat = 2

// dataDoc is one data field: stored beside the entry, never ranked.
type dataDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	GoType   string `json:"go_type"`
	Values   string `json:"values"`
	MaxBytes int    `json:"max_bytes,omitempty"`
	Order    string `json:"order"` // how ties rank: desc (the default) or asc
	// Format 2: the range as keys (absent for a string), a time's unit, an enum's values.
	Lo         string   `json:"lo,omitempty"`
	Hi         string   `json:"hi,omitempty"`
	Unit       string   `json:"unit,omitempty"`
	EnumValues []string `json:"enum_values,omitempty"`
}

// opDoc is one board operation of the catalogue: what the generated Board can do, and which
// script (if any) does it.
type opDoc struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Script   string   `json:"script,omitempty"` // the Lua library file and the operation's function in it; absent when one Redis command does it
	ReadOnly bool     `json:"read_only"`
	Batch    bool     `json:"batch"`
	Field    string   `json:"field,omitempty"`
	Update   string   `json:"update,omitempty"`
	Methods  []string `json:"methods"`
	// Format 2: the library function, its arguments (ARGV in order: head, then each repeated
	// per item) and its reply's shape; absent when one Redis command does it.
	Function string   `json:"function,omitempty"`
	Args     *argsDoc `json:"args,omitempty"`
	Reply    string   `json:"reply,omitempty"`
}

// argsDoc is an operation's ARGV: the head once, then each once per item (a batch's entries).
type argsDoc struct {
	Head []string `json:"head"`
	Each []string `json:"each,omitempty"`
}

// operationsJSON lists the layout's board operations, in the catalogue's order.
func operationsJSON(l *layout.Layout, library string) []opDoc {
	var out []opDoc
	for _, op := range catalog.Ops(l) {
		d := opDoc{Name: op.Name, Kind: string(op.Kind), ReadOnly: op.ReadOnly, Batch: op.Batch, Methods: op.Methods}
		if op.Scripted() {
			d.Script = l.LuaFile() + ":" + op.Name
			d.Function, d.Reply = library+"_"+op.Name, string(op.Reply)
			d.Args = &argsDoc{Head: append([]string{}, op.Args.Head...), Each: op.Args.Each}
		}
		if op.Field != nil {
			d.Field, d.Update = op.Field.Name, string(op.Update)
		}
		out = append(out, d)
	}
	return out
}

type idDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	MaxBytes int    `json:"max_bytes,omitempty"`
	Order    string `json:"order"` // how ties rank: desc (the default) or asc
}

type scoreDoc struct {
	Kind          string  `json:"kind"`
	DecimalPlaces int     `json:"decimal_places,omitempty"`
	Fields        int     `json:"fields"`
	Radix         uint64  `json:"radix"`
	Limit         uint64  `json:"limit"`
	BitsUsed      float64 `json:"bits_used"`
	BitsLeft      float64 `json:"bits_left"`
}

type memberDoc struct {
	Separator   string `json:"separator"`
	PrefixBytes int    `json:"prefix_bytes"`
	MaxBytes    int    `json:"max_bytes"`
	Pattern     string `json:"pattern"`
	Index       bool   `json:"index"`
}

type fieldDoc struct {
	Name      string   `json:"name"`
	Doc       string   `json:"doc,omitempty"`
	Type      string   `json:"type"`
	GoType    string   `json:"go_type"`
	Order     string   `json:"order"`
	Place     string   `json:"place"`
	WidthKind string   `json:"width_kind"`
	Width     int      `json:"width,omitempty"`
	Radix     string   `json:"radix"`
	Min       string   `json:"min"`
	Max       string   `json:"max"`
	Values    []string `json:"values,omitempty"`
	Unit      string   `json:"unit,omitempty"`
	Lifetime  string   `json:"lifetime,omitempty"`
	Weight    uint64   `json:"weight,omitempty"`
	Offset    *int     `json:"offset,omitempty"`
	Bytes     int      `json:"bytes,omitempty"`
	Encoding  string   `json:"encoding,omitempty"`
	Updates   []string `json:"updates,omitempty"`
	Overflow  string   `json:"overflow,omitempty"`
	Stamp     string   `json:"stamp,omitempty"`
	// Format 2: the range as keys, as the codec reads them (docs/layout-json.md), and whether a
	// time counts from its season's start.
	Lo             string `json:"lo"`
	Hi             string `json:"hi"`
	SeasonAnchored bool   `json:"season_anchored,omitempty"`
}

// submissionsText says what each submission of a package writes, one line each.
func submissionsText(p *layout.Boards) string {
	var b strings.Builder
	for _, sub := range p.Submissions {
		var steps []string
		for _, st := range sub.Steps {
			steps = append(steps, fmt.Sprintf("%s (%s on board %s)", st.Name, st.Write, st.Board.Name))
		}
		fmt.Fprintf(&b, "\nsubmission %s (%s.Submit): %s, in one call, all or nothing\n", sub.Name, sub.GoName(), strings.Join(steps, ", "))
	}
	return b.String()
}

// explainAllBoards: explain given a package file and no -board, in text, explains every
// board (p non-nil); -json, -svg and -season take one board. ok is false after a problem.
func explainAllBoards(e *env, arg string, bf boardFlag, oneOnly bool) (p *layout.Boards, all []boardSchema, ok bool) {
	if bf.name != "" || oneOnly {
		return nil, nil, true
	}
	src, err := os.ReadFile(e.path(arg))
	if err != nil || !layout.IsBoards(src) {
		return nil, nil, true
	}
	all, p, ok = schemasOf(e, "explain", arg)
	return p, all, ok
}

// layoutJSONOf is layoutJSON of a schema alone (p nil) or of board of package p, whose
// functions are in the package's library.
func layoutJSONOf(l *layout.Layout, p *layout.Boards, board string) (explainDoc, error) {
	if p == nil {
		return layoutJSON(l)
	}
	library, err := generator.BoardsLibraryName(p)
	if err != nil {
		return explainDoc{}, err
	}
	d, err := layoutJSONIn(l, library, library+"_"+board)
	if err != nil {
		return explainDoc{}, err
	}
	d.Board = board
	d.Package = p.Package
	lua := p.Stem() + ".rankgen.lua"
	d.Files = []string{board + ".rankgen.go", lua}
	for i := range d.Operations {
		if d.Operations[i].Script != "" {
			d.Operations[i].Script = lua + ":" + board + "_" + d.Operations[i].Name
		}
	}
	return d, nil
}

func layoutJSON(l *layout.Layout) (explainDoc, error) {
	library, err := generator.LibraryName(l)
	if err != nil {
		return explainDoc{}, err
	}
	return layoutJSONIn(l, library, library)
}

// layoutJSONIn is the document of layout l whose functions are in library, named <prefix>_<op>.
func layoutJSONIn(l *layout.Layout, library, prefix string) (explainDoc, error) {
	d := explainDoc{
		Format:      explainFormat,
		Schema:      l.File,
		Package:     l.Package,
		Doc:         l.Doc,
		Fingerprint: l.Fingerprint,
		ID:          idDoc{Name: l.IDName, Type: l.IDType.String(), Order: l.IDOrder.String()},
		Score: scoreDoc{
			Kind:          l.Score.String(),
			DecimalPlaces: l.DecimalPlaces,
			Fields:        l.NumScore,
			Radix:         l.ScoreRadix,
			Limit:         l.ScoreLimit,
			BitsUsed:      round2(l.ScoreBits()),
			BitsLeft:      round2(log2(l.ScoreLimit) - l.ScoreBits()),
		},
		Member: memberDoc{
			Separator:   l.Separator,
			PrefixBytes: l.PrefixLen,
			MaxBytes:    l.MaxMemberBytes(),
			Pattern:     l.MemberPattern(),
			Index:       l.HasPrefix(),
		},
		Fields:     []fieldDoc{},
		Files:      []string{l.GoFile(), l.LuaFile()},
		Canonical:  strings.Split(strings.TrimSuffix(l.Canonical, "\n"), "\n"),
		Operations: operationsJSON(l, prefix),
		Library:    library,
		ScriptKeys: scriptKeys(l),
	}
	if l.IDType == layout.IDString {
		d.ID.MaxBytes = l.MaxBytes
	}
	for _, f := range l.Fields {
		fd := fieldDoc{
			Name:      f.Name,
			Doc:       f.Doc,
			Type:      f.Kind.String(),
			GoType:    f.GoType,
			Order:     f.Order.String(),
			Place:     f.Place.String(),
			WidthKind: [...]string{"bits", "digits", "range"}[f.RadixKind],
			Width:     f.Width,
			Radix:     new(big.Int).Add(new(big.Int).SetUint64(f.MaxDigit), big.NewInt(1)).String(),
			Min:       f.Format(f.Lo),
			Max:       f.Format(f.Hi),
			Values:    f.Values,
			Lo:        strconv.FormatUint(f.Lo, 10),
			Hi:        strconv.FormatUint(f.Hi, 10),
		}
		fd.SeasonAnchored = f.Season
		if f.Kind == layout.Time {
			fd.Unit = f.Unit.String()
			fd.Lifetime = f.Lifetime()
		}
		if f.Place == layout.InScore {
			fd.Weight = f.Weight
		} else {
			off := f.Offset
			fd.Offset = &off
			fd.Bytes = f.TextWidth
			fd.Encoding = "decimal"
			if f.Hex {
				fd.Encoding = "hex"
			}
		}
		for _, op := range f.Updates {
			fd.Updates = append(fd.Updates, string(op))
		}
		if len(f.Updates) > 0 {
			fd.Overflow = f.Overflow.String()
		}
		if f.Stamp != layout.StampNone {
			fd.Stamp = f.Stamp.String()
		}
		d.Fields = append(d.Fields, fd)
	}
	addDataJSON(&d, l)
	return d, nil
}

// scriptKeys are the keys every library function of l takes, in order: the board's key, then
// the suffixes of its side keys (rankgenrt.SideKey), as rankgenrt.Spec.Keys lists them.
func scriptKeys(l *layout.Layout) []string {
	side := "meta"
	if l.HasPrefix() {
		side = "idx"
	}
	keys := []string{"board", side, "ack", "migrate:fence"}
	if l.HasData() {
		keys = append(keys, "data")
	}
	return keys
}

// addDataJSON adds the data fields and the stored-format fingerprint of a layout that has them.
func addDataJSON(d *explainDoc, l *layout.Layout) {
	if !l.HasData() {
		return
	}
	d.StoreFingerprint, d.DataFingerprint = l.StoreFingerprint, l.DataFingerprint
	for _, f := range l.Data {
		dd := dataDoc{Name: f.Name, Type: f.Kind.String(), GoType: f.GoType, Values: f.DataRange(), MaxBytes: f.MaxBytes, EnumValues: f.Values}
		if f.Kind != layout.String {
			dd.Lo, dd.Hi = strconv.FormatUint(f.Lo, 10), strconv.FormatUint(f.Hi, 10)
		}
		if f.Kind == layout.Time {
			dd.Unit = f.Unit.String()
		}
		d.Data = append(d.Data, dd)
	}
}

// log2 of a capacity (at most 2^53, so float64(x) is exact).
func log2(x uint64) float64 { return math.Log2(float64(x)) }

func round2(x float64) float64 { return math.Round(x*100) / 100 }
