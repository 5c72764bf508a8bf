package luaemit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// data is what the templates see.
type data struct {
	found                        *found // a read of one id's entry: how its callback finds it (Finds)
	Shared                       bool   // a field update's body, shared by the updates like it (its title and apply function are not in it)
	File, Title, Op, Fingerprint string
	Board                        string // a board of a package of boards: its name, which use_layout declares
	Header                       string // the generated-code marker, layout.Header
	Usage                        []string
	WriteDocs                    []string     // the head: the usage lines of the arguments every write function takes first, said once
	Args                         catalog.Args // the script's arguments: templates render their ARGV positions
	ReadOnly                     bool         // flags=no-writes
	Scores                       bool         // lookup also reads scores

	Prefix     bool
	PrefixLen  int
	IDAsc      bool   // ties rank by id ascending: members hold the id's text reversed (id_text, id_of)
	IDUint     bool   // uint64 ids
	ZeroPrefix string // Lua literal: the member prefix of the zero entry
	ZeroP      string // P of the zero entry

	Decimal       bool
	DecimalPlaces int
	Bits62        bool   // P is the score's bit pattern, carried as a table of score digits
	Weights       string // not Bits62: Lua table of the score fields' weights, most significant first
	Pow           string
	ScoreRadix    string
	ScoreCheck    string // Lua conditions on p that every digit of a score field is in its range
	PrefixPattern string // Lua literal: an anchored pattern of the member prefix's shape
	MemberChecks  []memberCheck
	WideMember    bool   // a member field too wide for doubles: checked by byte comparison
	Separator     string // as a Lua literal

	Plan bits62Plan // Bits62: how the scripts split P exactly

	// Field updates.
	Kind       string // add, max, min or set
	Target     *field
	Touched    []*field // fields the script reads or writes: the target, then the stamps
	Stamps     []*field
	Stamped    bool // the layout has stamped fields: a field update's shared body applies u.stamps
	Saturate   bool
	KeepLarger bool // max/min: keep the larger digit
	BestOf     bool // max/min: an id's first write takes the submitted value (apply's fresh)

	Fn string // the Lua function that applies the update: apply, or add_points in a changes script

	// Change lists (the changes script).
	Changes    []*data // one per field update: Fn, Kind, Target, Saturate, KeepLarger, BestOf and Slot
	Slot       int     // a change's argument: ARGV[at + Slot], where ARGV[at] is the id
	WideTarget bool    // some change's field is too wide for doubles (compared as text)

	Lead *field // competition

	Clock *data // the head: the call's season and the stamps' clocks (every stamped field), defined once

	Feed   *feedView // a feed's function: its boards
	Stride int       // a feed's function, remove_everywhere: the keys each board passes

	Season          bool   // a periodic layout: update scripts take the season's bounds (Unix µs)
	Data            bool   // the layout has data fields: KEYS[5] is the data hash
	DataFingerprint string // the data format's fingerprint
	DataChain       string // its chain (layout.DataChain, comma-separated), which the data hash records
	DataFields      int    // how many data fields

	// Season guards (season.go).
	SeasonBounds  bool     // the script reads the season's bounds (season_from, season_until)
	SeasonOffsets bool     // it checks season-anchored offsets against the season's length (offset_closed)
	SeasonFields  []*field // set, best: the season-anchored fields each entry is checked on
	SeasonInScore bool     // set, best: some SeasonFields are score fields, read from P

	Rollups []rollupField // the rollup: the fields it can combine (catalog.RollupFields)
}

// rollupField is what the rollup script knows of a field it combines: its accessors' index
// and its range as values (signed for an int field), below 2^53 in magnitude.
type rollupField struct {
	Index  int
	Name   string
	Lo, Hi string
	Asc    bool
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
	Digit    int // Bits62 score field: its position in the table of score digits (1-based)
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
	Ranged             bool   // the head: an update's apply function is made from F.range_<Index> (madeApply)
	Stamp              string // its stamp's functions' suffix, the field's name in snake case: stamp_<Stamp>, stamp_digit_<Stamp>
	Server             bool   // Redis's clock, else the client's
	Div                string // Unix microseconds per unit
	UnitName           string
	MinUnits, MaxUnits string
	Named              []int // changes script: the slots of the field's own updates; stamped when all are ''
	Season             bool  // epoch: season: the stamp is the offset from the season's start
}

// newData is what every template sees of the layout.
func newData(l *layout.Layout) *data {
	d := &data{
		File:            l.File,
		Header:          layout.Header(l.File),
		Fingerprint:     l.Fingerprint,
		Prefix:          l.HasPrefix(),
		PrefixLen:       l.PrefixLen,
		IDAsc:           l.IDOrder == layout.Asc,
		IDUint:          l.IDType == layout.IDUint64,
		Decimal:         l.Score == layout.ScoreDecimal,
		DecimalPlaces:   l.DecimalPlaces,
		ScoreRadix:      num(l.ScoreRadix),
		Separator:       luaString(l.Separator),
		Season:          l.Season != nil,
		Data:            l.HasData(),
		DataFingerprint: l.DataFingerprint,
		DataChain:       strings.Join(l.DataChain, ","),
		DataFields:      len(l.Data),
	}
	if d.Decimal {
		d.Pow = "1" + strings.Repeat("0", l.DecimalPlaces)
	}
	d.ZeroP, d.ZeroPrefix = zeroEntry(l)
	d.ScoreCheck = scoreCheck(l)
	if l.Score == layout.ScoreBits62 {
		d.Bits62 = true
		d.ZeroP = bits62Zero(l)
		d.Plan = planBits62(l)
	} else {
		d.Weights = scoreWeights(l)
	}
	d.PrefixPattern, d.MemberChecks, d.WideMember = memberShape(l)
	return d
}

// IDText is the Lua expression of the id expression id's text in a member: the id itself, or
// with ties ascending its reversed text.
func (d *data) IDText(id string) string {
	if d.IDAsc {
		return "id_text(" + id + ")"
	}
	return id
}

// PReply is the Lua expression of P (the Lua expression p) in a write's reply: P itself, an
// integer reply, exact below 2^53 and never formatted; a bits62 layout's P, a table of score
// digits, as its decimal text.
func (d *data) PReply(p string) string {
	if d.Bits62 {
		return "p_text(" + p + ")"
	}
	return p
}

// IDTextOf is the Lua expression of the id's text in the member expression m: what follows
// the prefix.
func (d *data) IDTextOf(m string) string {
	if d.PrefixLen == 0 {
		return m
	}
	return fmt.Sprintf("string.sub(%s, %d + 1)", m, d.PrefixLen)
}

// IDOf is the Lua expression of the id in the member expression m: its text, or with ties
// ascending that text read back (” for a text no id has, as a member too short for the
// prefix gives ”).
func (d *data) IDOf(m string) string {
	if d.IDAsc {
		return "(id_of(" + m + ") or '')"
	}
	return d.IDTextOf(m)
}

// ZeroMember is the Lua expression of the member of the entry an update of the missing id
// (a Lua expression) starts from: the zero entry's prefix, then the id's text.
func (d *data) ZeroMember(id string) string {
	if d.PrefixLen == 0 {
		return d.IDText(id)
	}
	return d.ZeroPrefix + " .. " + d.IDText(id)
}

// zeroEntry is the P and the member prefix (a Lua literal) of the entry an update of a
// missing id starts from.
func zeroEntry(l *layout.Layout) (p, prefix string) {
	var zp uint64
	for _, f := range l.ScoreFields() {
		zp += f.ZeroDigit() * f.Weight
	}
	var b strings.Builder
	for _, f := range l.MemberFields() {
		b.WriteString(digitText(f, f.ZeroDigit()))
		b.WriteString(l.Separator)
	}
	return num(zp), luaString(b.String())
}

// bits62Zero writes the zero entry's score digits as a Lua table: a bits62 script carries P as
// its score digits and packs them into the pattern only to write a score.
func bits62Zero(l *layout.Layout) string {
	var z []string
	for _, f := range l.ScoreFields() {
		z = append(z, num(f.ZeroDigit()))
	}
	return "{" + strings.Join(z, ", ") + "}"
}

// scoreCheck is the Lua conditions on p that every digit of a score field is in its range. A
// score whose P has a digit beyond its field's range (possible only where the radix is wider
// than the range) was not written by this layout: p_of refuses it, so no script ever carries
// such a digit along unseen into a write.
func scoreCheck(l *layout.Layout) string {
	var check string
	for _, f := range l.ScoreFields() {
		switch {
		case f.MaxDigit == f.Span():
		case f.Weight == 1:
			check += fmt.Sprintf(" and p %% %d <= %d", f.MaxDigit+1, f.Span())
		default:
			check += fmt.Sprintf(" and floor(p / %d) %% %d <= %d", f.Weight, f.MaxDigit+1, f.Span())
		}
	}
	return check
}

// memberShape is what member_of checks of a member prefix: an anchored Lua pattern of its
// shape, the range checks of fields narrower than their text, and whether one of those is
// too wide for doubles.
func memberShape(l *layout.Layout) (pattern string, checks []memberCheck, wide bool) {
	pattern = "^"
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
			c.Wide, c.SpanText, wide = true, digitText(f, f.Span()), true
		}
		checks = append(checks, c)
	}
	return luaString(pattern), checks, wide
}

// newField is what the templates see of field f. Its Index is its place in the layout (from
// 1), the same in every function of the library: get_<Index> and put_<Index> are defined once.
func newField(l *layout.Layout, f *layout.Field) *field {
	g := &field{
		Name:    f.Name,
		Index:   slices.Index(l.Fields, f) + 1,
		InScore: f.Place == layout.InScore,
		Span:    num(f.Span()),
		Asc:     f.Order == layout.Asc,
		Min:     strings.ReplaceAll(f.Format(f.Lo), " ", "_"),
		Max:     strings.ReplaceAll(f.Format(f.Hi), " ", "_"),
	}
	if f.Season {
		seasonOffset(g, f)
	}
	if g.InScore {
		g.Weight, g.Radix = num(f.Weight), num(f.MaxDigit+1)
		for i, h := range l.Fields {
			if h == f {
				g.Digit = i + 1
			}
		}
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

// updateData is what a field update's template sees: update1 for the single form, update for
// the batch loop.
func updateData(l *layout.Layout, op catalog.Op) (*data, error) {
	f, u := op.Field, op.Update
	if err := exactUpdate(f, u); err != nil {
		return nil, err
	}
	d := newData(l)
	d.Scores = true
	setApply(d, f, u, newField(l, f), "apply")
	d.Touched = []*field{d.Target}
	if err := addStamps(l, f, d); err != nil {
		return nil, err
	}
	if op.Batch && !d.Prefix {
		// The batch loop reads and writes the target's digit inline.
		d.Touched = d.Touched[1:]
	}
	return d, nil
}

// setApply sets in d what the apply function of update u of field f needs: its name fn, the
// update, the field (target) and its rules.
func setApply(d *data, f *layout.Field, u layout.Op, target *field, fn string) {
	d.Fn, d.Kind, d.Target = fn, string(u), target
	d.Saturate = f.Overflow == layout.OverflowSaturate
	larger := u == layout.OpMax
	if f.Order == layout.Asc {
		larger = !larger
	}
	d.KeepLarger = larger
	d.BestOf = u == layout.OpMax || u == layout.OpMin
}

// addStamps adds to d the stamped fields an update of f sets when it changes the entry (a
// touch, f nil: all of them).
func addStamps(l *layout.Layout, f *layout.Field, d *data) error {
	for _, s := range l.Fields {
		if s.Stamp == layout.StampNone || s == f {
			continue
		}
		g := newField(l, s)
		if err := setStamp(g, s); err != nil {
			return err
		}
		d.Touched = append(d.Touched, g)
		d.Stamps = append(d.Stamps, g)
	}
	return nil
}

// exactUpdate refuses an update of a score field whose digits reach 2^53.
func exactUpdate(f *layout.Field, u layout.Op) error {
	if f.Span() >= exact && f.Place == layout.InScore {
		return fmt.Errorf("luaemit: field %s: update %s needs exact arithmetic on its digits, but its range holds %s values, beyond Lua's exact 2^53; narrow it", f.Name, u, strconv.FormatUint(f.Span(), 10)+"+1")
	}
	return nil
}

// setStamp sets in g, the accessors of the stamped field s, what its stamp needs: the clock,
// the unit and the range in units.
func setStamp(g *field, s *layout.Field) error {
	if !s.StampExact() { // the schema refuses such a stamp (layout): this guards the arithmetic below
		return fmt.Errorf("luaemit: field %s: stamping needs its range within ±2^53 units", s.Name)
	}
	g.Server = s.Stamp == layout.StampServer
	g.Stamp = strings.TrimPrefix(catalog.UpdateName(layout.OpSet, s), string(layout.OpSet)+"_") // the field's name in snake case
	g.Div = map[layout.Unit]string{layout.Second: "1000000", layout.Milli: "1000", layout.Micro: "1"}[s.Unit]
	g.UnitName = s.Unit.String()
	g.MinUnits, g.MaxUnits = strconv.FormatInt(s.MinInt(), 10), strconv.FormatInt(s.MaxInt(), 10)
	g.Season = s.Season
	return nil
}

// scoreWeights is the Lua table of the score fields' weights (each below 2^53, exact).
func scoreWeights(l *layout.Layout) string {
	ws := make([]string, l.NumScore)
	for i, f := range l.Fields[:l.NumScore] {
		ws[i] = strconv.FormatUint(f.Weight, 10)
	}
	return "{" + strings.Join(ws, ", ") + "}"
}

// FnDecl declares the apply function Fn: a local function, or one of the library's table F.
func (d *data) FnDecl() string {
	if strings.HasPrefix(d.Fn, "F.") {
		return "function " + d.Fn
	}
	return "local function " + d.Fn
}

// accessorKinds says which kinds of field accessors a library's fields take, so that its head
// defines the function that makes each kind once, and only those it uses.
type accessorKinds struct {
	Score, Bits62, Wide, Member bool
}

// Accessors is the kinds of accessors of d's fields (Touched).
func (d *data) Accessors() accessorKinds {
	var k accessorKinds
	for _, f := range d.Touched {
		switch {
		case f.InScore && d.Bits62:
			k.Bits62 = true
		case f.InScore:
			k.Score = true
		case f.Wide:
			k.Wide = true
		default:
			k.Member = true
		}
	}
	return k
}

// found says how a read of one id's entry finds it: the command (ZSCORE or ZREVRANK) and the
// name its body gives to what that command returns.
type found struct {
	V, Cmd string
}

// Finds declares that d's function reads the entry of its id with cmd into v: its callback is
// the head's found, which looks the entry up (and answers an id without one, or refuses another
// layout's board) before the body runs. It renders nothing.
func (d *data) Finds(v, cmd string) string {
	d.found = &found{V: v, Cmd: cmd}
	return ""
}
