// Package luaemit renders a layout's Lua scripts from the templates in templates/: one
// script per board operation, each with the layout's constants (radices, weights, widths,
// member offsets, 10^w for decimal scores, the fingerprint) written into its text.
//
// The scripts do the digit arithmetic of the Go codec on Lua's doubles, which is exact
// below 2^53 (math.floor and %, never the 32-bit bit library); they take every key as KEYS
// and every id and value as ARGV, and declare their keys with a #!lua shebang so that an
// undeclared key fails loudly on Redis Cluster.
package luaemit

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/template"
	"unicode"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/templates"
)

// Script is one generated Lua script.
type Script struct {
	Op     string // the operation: "set", "add_points", …
	File   string // its file name, l.LuaFile(Op)
	Source string // its text
}

var tmpl = template.Must(templates.Parse(nil))

// exact is 2^53: the Lua side keeps every number it computes below it.
const exact = 1 << 53

// Op names of the scripts that every layout has, and of the ones that depend on it.
const (
	OpSet         = "set"
	OpBest        = "best"
	OpRemove      = "remove"
	OpTrim        = "trim"
	OpGet         = "get"  // member prefix only: id → member through the index
	OpRank        = "rank" // member prefix only
	OpAround      = "around"
	OpAfter       = "after"
	OpCompetition = "competition" // when the leading field is in the score
)

// UpdateOp names the script of one field update, e.g. "add_points" for add on Points; the
// script of its batch form is named UpdateOp(…) + ManySuffix. The two do the same arithmetic;
// the single one is straight-line code, a third cheaper than the batch loop for one update.
func UpdateOp(op layout.Op, f *layout.Field) string { return string(op) + "_" + snake(f.Name) }

// ManySuffix ends the op name of a batch update script.
const ManySuffix = "_many"

// Scripts renders every script of the layout, in a fixed order: set, best, remove, trim, the
// field updates in field order, then the reads.
func Scripts(l *layout.Layout) ([]Script, error) {
	var out []Script
	add := func(op, tmplName string, d *data) error {
		d.Op = op
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, tmplName, d); err != nil {
			return fmt.Errorf("luaemit: %s: %w", op, err)
		}
		out = append(out, Script{Op: op, File: l.LuaFile(op), Source: tidy(b.String())})
		return nil
	}
	base := func(title string, readOnly, scores bool, usage ...string) *data {
		d := newData(l)
		d.Title, d.ReadOnly, d.Scores, d.Usage = title, readOnly, scores, usage
		return d
	}
	writeUsage := "ARGV[1], ARGV[2]: expiry mode ('', 'px' or 'pxat') and its milliseconds, applied to both keys."
	deleting := func(d *data) *data { d.AllowOOM = true; return d }
	steps := []struct {
		op, tmpl string
		d        *data
	}{
		{OpSet, "set", base("set: upsert whole entries.", false, false, writeUsage,
			"ARGV[3..]: score, member pairs (encoded by the Go codec). Returns the number of pairs.")},
		{OpBest, "best", base("best: keep, per id, whichever of the current and the given entry ranks first (whole tuple).", false, true, writeUsage,
			"ARGV[3..]: score, member pairs. Returns 1 (kept the given entry) or 0 for each pair.")},
		{OpRemove, "remove", deleting(base("remove: delete entries by id.", false, false, writeUsage,
			"ARGV[3..]: ids. Returns how many entries were removed."))},
		{OpTrim, "trim", deleting(base("trim: keep the first ARGV[3] entries, drop the rest.", false, false, writeUsage,
			"ARGV[3]: how many entries to keep. Returns how many were removed."))},
	}
	for _, s := range steps {
		if err := add(s.op, s.tmpl, s.d); err != nil {
			return nil, err
		}
	}
	for _, f := range l.Fields {
		for _, op := range f.Updates {
			d, err := updateData(l, f, op)
			if err != nil {
				return nil, err
			}
			one := *d
			one.Usage = []string{d.Usage[0],
				"ARGV[3]: the client's clock in Unix microseconds (client stamps); ARGV[4], ARGV[5]: the id and " + d.arg + ".",
				"A missing id starts from the zero entry. Returns " + replyOne(l) + "."}
			if err := add(UpdateOp(op, f), "update1", &one); err != nil {
				return nil, err
			}
			d.Title += " (batch)"
			if !d.Prefix {
				// The batch loop reads and writes the target's digit inline.
				d.Touched = d.Touched[1:]
			}
			if err := add(UpdateOp(op, f)+ManySuffix, "update", d); err != nil {
				return nil, err
			}
		}
	}
	if l.HasPrefix() {
		if err := add(OpGet, "get", base("get: an entry's score and member by id.", true, false,
			"ARGV[1]: the id. Returns {score, member}, or nil when the id has no entry.")); err != nil {
			return nil, err
		}
		if err := add(OpRank, "rank", base("rank: an entry's 0-based position, best first, by id.", true, false,
			"ARGV[1]: the id. Returns the position, or nil when the id has no entry.")); err != nil {
			return nil, err
		}
	}
	if err := add(OpAround, "around", base("around: the entries around an id, best first.", true, false,
		"ARGV[1]: the id; ARGV[2], ARGV[3]: how many entries before and after it.",
		"Returns {position of the first entry, {member, score, ...}}, or nil when the id has no entry.")); err != nil {
		return nil, err
	}
	if err := add(OpAfter, "after", base("after: a keyset page, the entries that rank after a cursor (score, member).", true, false,
		"ARGV[1], ARGV[2]: the cursor's score and member (member '' = from the top); ARGV[3]: the page size.",
		"Returns {position of the first entry, {member, score, ...}}.")); err != nil {
		return nil, err
	}
	if l.NumScore > 0 {
		d := base("competition: 1 + the number of entries ahead on "+l.Fields[0].Name+" (equal "+l.Fields[0].Name+" share a rank).", true, false,
			"ARGV[1]: the id. Returns the rank, or nil when the id has no entry.")
		d.Lead = newField(l, l.Fields[0], 0)
		if err := add(OpCompetition, "competition", d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tidy drops trailing spaces and runs of blank lines that template actions leave behind.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	blank := false
	for _, line := range lines {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// data is what the templates see.
type data struct {
	File, Title, Op, Fingerprint string
	Usage                        []string
	ReadOnly                     bool // flags=no-writes
	AllowOOM                     bool // flags=allow-oom: the script only deletes
	Scores                       bool // lookup also reads scores

	Prefix     bool
	PrefixLen  int
	ZeroPrefix string // Lua literal: the member prefix of the zero entry
	ZeroP      string // P of the zero entry

	Decimal       bool
	DecimalPlaces int
	Pow           string
	ScoreRadix    string
	ScoreCheck    string // Lua conditions on p that every digit of a score field is in its range
	PrefixPattern string // Lua literal: an anchored pattern of the member prefix's shape
	MemberChecks  []memberCheck
	WideMember    bool   // a member field too wide for doubles: checked by byte comparison
	Separator     string // as a Lua literal

	// Field updates.
	Kind        string // add, max, min or set
	Target      *field
	Touched     []*field // fields the script reads or writes: the target, then the stamps
	Stamps      []*field
	ServerClock bool // some stamp reads Redis's TIME
	ClientClock bool // some stamp reads the client's clock (ARGV[3])
	Saturate    bool
	KeepLarger  bool // max/min: keep the larger digit

	Lead *field // competition

	arg string // what an update's argument is, in words
}

// memberCheck is the range check member_of makes of one member field's text, for a field whose
// range is narrower than its text can write (the text's shape is checked by PrefixPattern).
type memberCheck struct {
	Off, End int // 1-based first and last byte of the text
	Base     int
	Span     string
	Wide     bool   // beyond exact doubles: compared as text with SpanText
	SpanText string // Wide: the text of the largest digit
}

type field struct {
	Name     string
	Index    int
	InScore  bool
	Weight   string
	Radix    string
	Span     string
	Asc      bool
	Min, Max string // the range, formatted for messages

	Off, End int // member: 1-based first and last byte of the text
	Width    int
	Hex      bool
	Format   string
	Wide     bool   // member field whose digits reach 2^53: handled as text
	SpanText string // Wide: the text of the largest digit

	// Wide add: the text splits into a high part (HiWidth characters) and a low limb of
	// base LimbBase (2^32 in hex, 10^9 in decimal), each exact in a double.
	HiWidth        int
	LimbBase       string
	SpanHi, SpanLo string
	LimbFormat     string

	// Stamps.
	Server             bool   // Redis's clock, else the client's
	Div                string // Unix microseconds per unit
	UnitName           string
	MinUnits, MaxUnits string
}

func num(v uint64) string { return strconv.FormatUint(v, 10) }

func newData(l *layout.Layout) *data {
	d := &data{
		File:          l.File,
		Fingerprint:   l.Fingerprint,
		Prefix:        l.HasPrefix(),
		PrefixLen:     l.PrefixLen,
		Decimal:       l.Score == layout.ScoreDecimal,
		DecimalPlaces: l.DecimalPlaces,
		ScoreRadix:    num(l.ScoreRadix),
	}
	if d.Decimal {
		d.Pow = "1" + strings.Repeat("0", l.DecimalPlaces)
	}
	var p uint64
	for _, f := range l.ScoreFields() {
		p += ZeroDigit(f) * f.Weight
	}
	d.ZeroP = num(p)
	// A score whose P has a digit beyond its field's range (possible only where the radix is
	// wider than the range) was not written by this layout: p_of refuses it, so no script ever
	// carries such a digit along unseen into a write.
	for _, f := range l.ScoreFields() {
		switch {
		case f.MaxDigit == f.Span():
		case f.Weight == 1:
			d.ScoreCheck += fmt.Sprintf(" and p %% %d <= %d", f.MaxDigit+1, f.Span())
		default:
			d.ScoreCheck += fmt.Sprintf(" and floor(p / %d) %% %d <= %d", f.Weight, f.MaxDigit+1, f.Span())
		}
	}
	d.Separator = luaString(l.Separator)
	pattern := "^"
	for _, f := range l.MemberFields() {
		// Fixed-width digits of the field's class (lower-case hex or decimal: tonumber alone
		// would take upper case and spaces), then the separator.
		class := "[0-9]"
		if f.Hex {
			class = "[0-9a-f]"
		}
		pattern += strings.Repeat(class, f.TextWidth) + patternEscape(l.Separator)
		if f.Span() >= maxText(f) {
			continue // every text of the class is in range
		}
		c := memberCheck{Off: f.Offset + 1, End: f.Offset + f.TextWidth, Base: 10, Span: num(f.Span())}
		if f.Hex {
			c.Base = 16
		}
		if f.Span() >= exact {
			c.Wide, c.SpanText, d.WideMember = true, digitText(f, f.Span()), true
		}
		d.MemberChecks = append(d.MemberChecks, c)
	}
	d.PrefixPattern = luaString(pattern)
	var prefix strings.Builder
	for _, f := range l.MemberFields() {
		prefix.WriteString(digitText(f, ZeroDigit(f)))
		prefix.WriteString(l.Separator)
	}
	d.ZeroPrefix = luaString(prefix.String())
	return d
}

// ZeroDigit is the digit a field takes in the entry that an update of a missing id starts
// from: the field's Go zero value (0, false, the first enum value, for time the Unix epoch)
// when it lies in the field's range, else the field's lowest-ranking value (digit 0).
func ZeroDigit(f *layout.Field) uint64 {
	var key uint64
	if f.Signed() {
		key = layout.IntKey(0)
	}
	if key < f.Lo || key > f.Hi {
		return 0
	}
	return f.Digit(key)
}

func digitText(f *layout.Field, d uint64) string {
	base := 10
	if f.Hex {
		base = 16
	}
	s := strconv.FormatUint(d, base)
	return strings.Repeat("0", f.TextWidth-len(s)) + s
}

func newField(l *layout.Layout, f *layout.Field, index int) *field {
	g := &field{
		Name:    f.Name,
		Index:   index,
		InScore: f.Place == layout.InScore,
		Span:    num(f.Span()),
		Asc:     f.Order == layout.Asc,
		Min:     strings.ReplaceAll(f.Format(f.Lo), " ", "_"),
		Max:     strings.ReplaceAll(f.Format(f.Hi), " ", "_"),
	}
	if g.InScore {
		g.Weight, g.Radix = num(f.Weight), num(f.MaxDigit+1)
	} else {
		g.Off, g.Width, g.Hex = f.Offset+1, f.TextWidth, f.Hex
		g.End = f.Offset + f.TextWidth
		verb := "d"
		if f.Hex {
			verb = "x"
		}
		g.Format = "%0" + strconv.Itoa(f.TextWidth) + verb
		if f.Span() >= exact {
			g.Wide, g.SpanText = true, digitText(f, f.Span())
			base, k, verb := uint64(1e9), 9, "d"
			if f.Hex {
				base, k, verb = 1<<32, 8, "x"
			}
			g.HiWidth, g.LimbBase = f.TextWidth-k, num(base)
			g.SpanHi, g.SpanLo = num(f.Span()/base), num(f.Span()%base)
			g.LimbFormat = fmt.Sprintf("%%0%d%s%%0%d%s", f.TextWidth-k, verb, k, verb)
		}
	}
	return g
}

func updateData(l *layout.Layout, f *layout.Field, op layout.Op) (*data, error) {
	if f.Span() >= exact && f.Place == layout.InScore {
		return nil, fmt.Errorf("luaemit: field %s: update %s needs exact arithmetic on its digits, but its range holds %s values, beyond Lua's exact 2^53; narrow it", f.Name, op, strconv.FormatUint(f.Span(), 10)+"+1")
	}
	d := newData(l)
	d.Scores = true
	d.Title = fmt.Sprintf("%s %s: %s", op, f.Name, map[layout.Op]string{
		layout.OpAdd: "add a signed delta to " + f.Name,
		layout.OpMax: "keep the larger of the current and the given " + f.Name,
		layout.OpMin: "keep the smaller of the current and the given " + f.Name,
		layout.OpSet: "set " + f.Name,
	}[op])
	arg := "the digit of the new value"
	if op == layout.OpAdd {
		arg = "the signed delta"
	}
	d.arg = arg
	d.Usage = []string{
		"ARGV[1], ARGV[2]: expiry mode ('', 'px' or 'pxat') and its milliseconds, applied to both keys.",
		"ARGV[3]: the client's clock in Unix microseconds (client stamps); ARGV[4..]: id, " + arg + " pairs.",
		"A missing id starts from the zero entry. Returns, per pair, " + replyMany(l) + ".",
	}
	d.Kind = string(op)
	d.Target = newField(l, f, 1)
	d.Touched = []*field{d.Target}
	d.Saturate = f.Overflow == layout.OverflowSaturate
	larger := op == layout.OpMax
	if f.Order == layout.Asc {
		larger = !larger
	}
	d.KeepLarger = larger
	for _, s := range l.Fields {
		if s.Stamp == layout.StampNone || s == f {
			continue
		}
		if s.Span() >= exact || absInt(s.MinInt()) >= exact || absInt(s.MaxInt()) >= exact {
			return nil, fmt.Errorf("luaemit: field %s: stamping needs its range within ±2^53 units", s.Name)
		}
		g := newField(l, s, len(d.Touched)+1)
		g.Div = map[layout.Unit]string{layout.Second: "1000000", layout.Milli: "1000", layout.Micro: "1"}[s.Unit]
		g.UnitName = s.Unit.String()
		g.MinUnits, g.MaxUnits = strconv.FormatInt(s.MinInt(), 10), strconv.FormatInt(s.MaxInt(), 10)
		d.Touched = append(d.Touched, g)
		d.Stamps = append(d.Stamps, g)
		if s.Stamp == layout.StampServer {
			d.ServerClock, g.Server = true, true
		} else {
			d.ClientClock = true
		}
	}
	return d, nil
}

// replyOne and replyMany describe a field update's reply: the new P, or the error text, and
// with a member prefix the new member beside it (else the member is the id the caller sent).
func replyOne(l *layout.Layout) string {
	if l.HasPrefix() {
		return "{P, member}, or {error text, ''}"
	}
	return "{P}, or {error text}"
}

func replyMany(l *layout.Layout) string {
	if l.HasPrefix() {
		return "P and member, or error text and ''"
	}
	return "P, or error text"
}

func absInt(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// maxText is the largest digit a member field's fixed-width text can write.
func maxText(f *layout.Field) uint64 {
	base := uint64(10)
	if f.Hex {
		base = 16
	}
	m := uint64(1)
	for range f.TextWidth {
		if m > math.MaxUint64/base {
			return math.MaxUint64
		}
		m *= base
	}
	return m - 1
}

// patternEscape writes s as a Lua pattern that matches it literally: "%" before every
// punctuation byte, and %z for NUL, which Lua 5.1 patterns cannot hold.
func patternEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0:
			b.WriteString("%z")
		case c < 0x80 && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			b.WriteByte('%')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// luaString quotes s as a Lua string literal, byte for byte.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// snake turns a Go name into lower_snake_case: ReachedAt → reached_at, HTTPCode → http_code.
func snake(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
