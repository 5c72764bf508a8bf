package vet

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

// Rule is one kind of risk: a stable ID, its severity, what it detects and the usual fix in
// one line each, and the check that detects it (its findings give the fix for the schema at
// hand).
type Rule struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Purpose  string   `json:"purpose"`
	Fix      string   `json:"fix"`
	// timeRange marks the rules generate and explain run on their own.
	timeRange bool
	check     func(p *probe)
}

// Rules returns every rule, in the order Check reports them.
func Rules() []Rule { return slices.Clone(ruleTable) }

// listpackValue is Redis's default zset-max-listpack-value (zset-max-ziplist-value before
// 7.0): a sorted set with a longer member leaves the compact listpack encoding.
const listpackValue = 64

// bits62 is the capacity a 62-bit score mode keeps in the score.
const bits62 = 62

var ruleTable = []Rule{
	{"TIME_ENDED", Error, "a time field's range has ended: every write of a current time fails", "widen the field or move its epoch forward (a WIRE change: migrate or use a new key)", true, checkTimeEnded},
	{"TIME_ENDS_SOON", Warning, "a time field's range ends within the horizon (-years): writes fail after that date", "widen the field now, while its boards are young", true, checkTimeEndsSoon},
	{"ADD_HEADROOM", Warning, "an add field sits in a score with under 1 bit left: the counter cannot widen without a WIRE change", "leave a bit free: narrow a later score field, or move the last fields to the member (in: member)", false, checkAddHeadroom},
	{"MEMBER_LONG", Warning, "the longest member exceeds 64 bytes: small boards leave Redis's compact listpack encoding", "shorten the id (max_bytes) or the member prefix, or raise zset-max-listpack-value", false, checkMemberLong},
	{"DECIMAL_BOUND", Warning, "a decimal score uses all but under 1 bit of its exactness bound", "use fewer decimal_places (a higher bound), or narrow a score field", false, checkDecimalBound},
	{"FITS_62_BITS", Warning, "fields spill into the member, but all of them fit in 62 bits", "score: bits62 keeps every field in the score: no member prefix, no id index", false, checkFits62},
	{"DATA_ZERO", Warning, "a data field's range leaves out its Go zero value: Set and Best refuse an entry whose Data is zero", "include the zero in the range (min: 0), or give every entry its data", false, checkDataZero},
}

// horizonTarget is how long a suggested time range should last from now.
func (p *probe) horizonTarget() time.Time {
	return p.opts.Now.AddDate(max(30, 2*p.opts.Years), 0, 0)
}

func checkTimeEnded(p *probe) {
	for _, f := range p.l().Fields {
		// A season-anchored field never ends: its range is an offset within each season.
		if end := f.TimeOf(f.Hi); f.Kind == layout.Time && !f.Season && end.Before(p.opts.Now) {
			p.atField(f, widenTime(f, p.horizonTarget()), "%s's range ended at %s (%s): every write of a current time fails",
				f.Name, end.Format(time.RFC3339), f.Lifetime())
		}
	}
}

func checkTimeEndsSoon(p *probe) {
	horizon := p.opts.Now.AddDate(p.opts.Years, 0, 0)
	for _, f := range p.l().Fields {
		end := f.TimeOf(f.Hi)
		if f.Kind == layout.Time && !f.Season && !end.Before(p.opts.Now) && end.Before(horizon) {
			p.atField(f, widenTime(f, p.horizonTarget()), "%s's range ends at %s, within %d years (%s): writes of later times will fail",
				f.Name, end.Format(time.RFC3339), p.opts.Years, f.Lifetime())
		}
	}
}

// widenTime says how to declare f so that its range lasts until target (a WIRE change).
func widenTime(f *layout.Field, target time.Time) string {
	units, ok := layout.TimeUnits(target, f.Unit)
	if !ok || layout.IntKey(units) <= f.Lo {
		return "move the epoch (min) forward (a WIRE change: migrate or use a new key)"
	}
	span := layout.IntKey(units) - f.Lo
	var decl string
	switch f.RadixKind {
	case layout.RadixBits:
		decl = fmt.Sprintf("bits: %d", bits.Len64(span))
	case layout.RadixDigits:
		decl = fmt.Sprintf("digits: %d", len(strconv.FormatUint(span, 10)))
	default:
		decl = "max: " + target.Format(time.RFC3339)
	}
	return fmt.Sprintf("%s lasts through %d; or move the epoch (min) forward (either is a WIRE change: migrate or use a new key)", decl, target.Year())
}

func checkAddHeadroom(p *probe) {
	l := p.l()
	left := log2(l.ScoreLimit) - l.ScoreBits()
	if left >= 1 {
		return
	}
	for _, f := range l.ScoreFields() {
		if slices.Contains(f.Updates, layout.OpAdd) {
			p.atField(f, "leave a bit free now: narrow a score field after "+f.Name+", or move the last fields to the member (in: member)",
				"%s takes add, and the score has %.2f bits left: %s cannot widen by one bit without a WIRE change", f.Name, left, f.Name)
		}
	}
}

func checkMemberLong(p *probe) {
	l := p.l()
	n := l.MaxMemberBytes()
	if n <= listpackValue {
		return
	}
	what := fmt.Sprintf("members reach %d bytes", n)
	if l.PrefixLen > 0 {
		what += fmt.Sprintf(" (%d-byte prefix + id of up to %d)", l.PrefixLen, l.MaxIDTextBytes())
	}
	msg := what + ", over 64: a board holding one such member leaves Redis's compact listpack encoding however small it is (zset-max-listpack-value)"
	fix := "shorten the member prefix (narrower member fields), or raise zset-max-listpack-value on the server"
	fits := listpackValue - l.PrefixLen // the longest id that keeps members within 64 bytes
	if l.IDOrder == layout.Asc {        // the reversed text: up to 2·max_bytes + 1 bytes
		fits = (fits - 1) / 2
	}
	if l.IDType == layout.IDString && fits >= 1 {
		fix = fmt.Sprintf("max_bytes: %d keeps members within 64 bytes; or %s", fits, fix)
		p.atKey([]string{"id", "max_bytes"}, fix, "%s", msg)
		return
	}
	p.atField(l.MemberFields()[0], fix, "%s", msg)
}

func checkDecimalBound(p *probe) {
	l := p.l()
	if l.Score != layout.ScoreDecimal {
		return
	}
	if left := log2(l.ScoreLimit) - l.ScoreBits(); left < 1 {
		p.atKey([]string{"score"}, "use fewer decimal_places (each one fewer raises the bound), or narrow a score field",
			"the score uses %.2f of the %.2f bits that decimal_places: %d keeps exact (%.2f left): a score field cannot widen without a WIRE change",
			l.ScoreBits(), log2(l.ScoreLimit), l.DecimalPlaces, left)
	}
}

func checkFits62(p *probe) {
	l := p.l()
	if !l.HasMemberFields() || l.Score != layout.ScoreInteger || !l.FitsBits62() {
		return // layout.FitsBits62 is the one rule of what a bits62 score holds
	}
	total := big.NewInt(1)
	for _, f := range l.Fields {
		total.Mul(total, new(big.Int).Add(new(big.Int).SetUint64(f.MaxDigit), big.NewInt(1)))
	}
	first := l.MemberFields()[0]
	p.atField(first, "score: bits62 keeps every field in the score: no member prefix, no id index, shorter members",
		"%s and the fields after it spill into the member, but all fields need %.2f bits, which fit in %d", first.Name, bigLog2(total), bits62)
}

// log2 of a capacity (at most 2^53, so float64(x) is exact).
func log2(x uint64) float64 { return math.Log2(float64(x)) }

func bigLog2(x *big.Int) float64 {
	f, _ := new(big.Float).SetInt(x).Float64()
	return math.Log2(f)
}

// checkDataZero finds the data fields whose range leaves out their Go zero value (a time's zero
// is year 1, before any epoch): Set and Best of an entry whose Data is the zero value are then
// refused with ErrOutOfRange, though an entry a field update creates reads as the zero Data.
func checkDataZero(p *probe) {
	l := p.l()
	zero := l.ZeroData()
	for i, f := range l.Data {
		if f.Kind == layout.String || (zero[i].Key >= f.Lo && zero[i].Key <= f.Hi) {
			continue
		}
		fix := "give every entry its data (Set and Best refuse the zero Data), or include the zero in the range (min: 0)"
		if f.Kind == layout.Time {
			fix = "give every entry its data (Set and Best refuse the zero Data); a time's zero (0001-01-01) lies before any epoch"
		}
		p.atField(f, fix, "%s's range (%s) leaves out its Go zero value %s: an entry's zero Data is invalid, so every Set and Best must give the entry its data",
			f.Name, f.DataRange(), f.Format(zero[i].Key))
	}
}
