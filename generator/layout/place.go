package layout

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Placement and capacity: which fields go into the score and which into the member, the
// weights, the member offsets and how much the score holds exactly.

// place decides which fields go into the score and which into the member, and computes the
// weights, member offsets and the score's capacity.
func (v *validator) place(raw *rawSchema, l *Layout) {
	limit := scoreLimit(l)
	l.ScoreLimit = limit.Uint64()
	product := big.NewInt(1)
	spilled := -1 // index of the first member field
	var overflowAt *rawField
	for i, f := range l.Fields {
		r := new(big.Int).SetUint64(f.MaxDigit)
		r.Add(r, big.NewInt(1))
		in := raw.Fields[i].In
		switch {
		case in.Value == "member":
			f.Place = InMember
		case in.Value == "score" && spilled >= 0:
			why := "which is in the member"
			if raw.Fields[spilled].In.Value != "member" {
				why = "which went to the member because the score was full"
			}
			v.errAt(in, "field %q is placed in the score but comes after %q, %s; member fields come after all score fields: move %q up, or place it in the member",
				f.Name, l.Fields[spilled].Name, why, f.Name)
			f.Place = InMember
		case in.Value == "score":
			f.Place = InScore
			if next := new(big.Int).Mul(product, r); next.Cmp(limit) > 0 && overflowAt == nil {
				overflowAt = &raw.Fields[i]
			}
		case spilled >= 0:
			f.Place = InMember
		default: // in the score while it fits; the leading field must fit
			if new(big.Int).Mul(product, r).Cmp(limit) <= 0 && (l.Score != ScoreBits62 || f.MaxDigit < MaxBits62Radix || i == 0) {
				f.Place = InScore
			} else if i == 0 {
				f.Place = InScore
				overflowAt = &raw.Fields[i]
			} else {
				f.Place = InMember
			}
		}
		if f.Place == InScore {
			product.Mul(product, r)
		} else if spilled < 0 {
			spilled = i
		}
	}
	if overflowAt != nil {
		v.scoreOverflow(l, overflowAt, product, limit)
		return
	}
	if spilled < 0 {
		spilled = len(l.Fields)
	}
	l.NumScore = spilled
	l.ScoreRadix = product.Uint64()
	if l.Score == ScoreBits62 {
		v.bits62Radices(raw, l)
	}
	weigh(l)
	memberText(l)
}

// bits62Radices refuses a score field wider than the scripts' exact division allows (default
// placement sends such a field to the member unless it leads).
func (v *validator) bits62Radices(raw *rawSchema, l *Layout) {
	for i, f := range l.ScoreFields() {
		if f.MaxDigit >= MaxBits62Radix {
			at := raw.Fields[i]
			v.errorf(at.Line, at.Col, "field %q needs %.1f bits, but a bits62 score holds at most 45 bits per field (its scripts divide P by each radix exactly, 8 bits at a time, in doubles exact to 53 bits); narrow it, split it into two fields, or use score: integer",
				f.Name, log2u(f.MaxDigit)+bitsOfOne(f.MaxDigit))
		}
	}
}

// FitsBits62 reports whether every field of the layout would fit a bits62 score: the
// suggestion for an integer layout that spills into the member.
func (l *Layout) FitsBits62() bool {
	product := big.NewInt(1)
	for _, f := range l.Fields {
		if f.MaxDigit >= MaxBits62Radix {
			return false
		}
		product.Mul(product, new(big.Int).SetUint64(f.MaxDigit+1))
	}
	return product.Cmp(big.NewInt(MaxBits62)) <= 0
}

// SuggestBits62 is the advice for a layout whose fields spill into the member although all of
// them would fit a bits62 score, or "".
func (l *Layout) SuggestBits62() string {
	if l.Score != ScoreInteger || !l.HasMemberFields() || !l.FitsBits62() {
		return ""
	}
	return "suggestion: every field fits \"score: bits62\" (62 bits in the score's bit pattern): no member prefix, no id index, fewer commands per update"
}

// weigh gives each score field its weight: the product of the radices after it.
func weigh(l *Layout) {
	w := uint64(1)
	for i := l.NumScore - 1; i >= 0; i-- {
		l.Fields[i].Weight = w
		w *= l.Fields[i].MaxDigit + 1
	}
}

// memberText gives each member field its text width and offset in the member prefix: bits
// fields as hex, others as zero-padded decimal, each followed by the separator.
func memberText(l *Layout) {
	off := 0
	for _, f := range l.MemberFields() {
		f.Offset = off
		switch f.RadixKind {
		case RadixBits:
			f.Hex, f.TextWidth = true, (f.Width+3)/4
		case RadixDigits:
			f.TextWidth = f.Width
		default:
			f.TextWidth = len(strconv.FormatUint(f.MaxDigit, 10))
		}
		off += f.TextWidth + len(l.Separator)
	}
	l.PrefixLen = off
}

// scoreLimit is the number of distinct P the score holds exactly: 2^53 for integer scores.
// For decimal scores, P / 10^w stays injective (and decodable) while the spacing of doubles
// around the largest score is below 10^-w: with X < 2^(E+1), ulp(X) = 2^(E−52) < 10^−w.
func scoreLimit(l *Layout) *big.Int {
	if l.Score == ScoreBits62 {
		return big.NewInt(MaxBits62)
	}
	limit := big.NewInt(MaxScore)
	if l.Score != ScoreDecimal {
		return limit
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(l.DecimalPlaces)), nil)
	// Largest E with 10^w · 2^(E−52) < 1, i.e. 10^w < 2^(52−E).
	e := 52
	for ; e > -1100; e-- {
		if 52-e >= 0 && pow.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(52-e))) < 0 {
			break
		}
	}
	// X < 2^(E+1)  ⇔  P < 2^(E+1) · 10^w.
	var cap *big.Int
	if e+1 >= 0 {
		cap = new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), uint(e+1)), pow)
	} else {
		cap = new(big.Int).Div(pow, new(big.Int).Lsh(big.NewInt(1), uint(-(e+1))))
	}
	if cap.Cmp(limit) < 0 {
		return cap
	}
	return limit
}

func (v *validator) scoreOverflow(l *Layout, at *rawField, product, limit *big.Int) {
	var parts []string
	for _, f := range l.Fields {
		if f.Place == InScore {
			parts = append(parts, fmt.Sprintf("%s %.1f", f.Name, log2u(f.MaxDigit)+bitsOfOne(f.MaxDigit)))
		}
	}
	need, has := bigLog2(product), bigLog2(limit)
	holds := fmt.Sprintf("a float64 score holds %.1f bits exactly (2^53)", has)
	switch l.Score {
	case ScoreBits62:
		holds = fmt.Sprintf("a bits62 score holds %.1f bits (2^62 bit patterns)", has)
	case ScoreDecimal:
		holds = fmt.Sprintf("with decimal_places: %d the score stays exact only below %s, %.1f bits", l.DecimalPlaces, limit, has)
	}
	v.errorf(at.Line, at.Col, "the score needs %.1f bits (%s; the radices multiply to %s, above %s) but %s; narrow a field (%sfewer bits or digits, or a tighter min/max), or move the last fields to the member with \"in: member\"",
		need, strings.Join(parts, " + "), product, limit, holds, narrowHint(l, product, limit))
}

// narrowHint names the widest the leading score field could be with the others unchanged, when
// it is a uint (the usual "points" field): "Raw to max: 899, " or "Points to bits: 21, ".
func narrowHint(l *Layout, product, limit *big.Int) string {
	var f *Field
	for _, g := range l.Fields {
		if g.Place == InScore {
			f = g
			break
		}
	}
	if f == nil || f.Kind != Uint {
		return ""
	}
	r := new(big.Int).SetUint64(f.MaxDigit)
	r.Add(r, big.NewInt(1))
	rest := new(big.Int).Div(product, r)
	fit := new(big.Int).Div(limit, rest) // the largest radix the field may have
	if fit.Cmp(big.NewInt(2)) < 0 {
		return ""
	}
	if f.RadixKind == RadixBits {
		return fmt.Sprintf("e.g. %s to bits: %d, ", f.Name, fit.BitLen()-1)
	}
	return fmt.Sprintf("e.g. %s to max: %s, ", f.Name, new(big.Int).Add(new(big.Int).SetUint64(f.Lo), new(big.Int).Sub(fit, big.NewInt(1))))
}

// bitsOfOne corrects log2(R−1) to log2(R) for the per-field breakdown.
func bitsOfOne(maxDigit uint64) float64 {
	if maxDigit == math.MaxUint64 {
		return 0
	}
	return log2u(maxDigit+1) - log2u(maxDigit)
}

func bigLog2(x *big.Int) float64 {
	if x.Sign() <= 0 {
		return 0
	}
	n := x.BitLen()
	if n <= 53 {
		return math.Log2(float64(x.Uint64()))
	}
	top := new(big.Int).Rsh(x, uint(n-53)).Uint64()
	return math.Log2(float64(top)) + float64(n-53)
}
