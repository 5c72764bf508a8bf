package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// constants is the layout as named constants, each with the comment saying what it is. Only
// constants the emitted code uses are declared.
func (c *codec) constants() jen.Code {
	l := c.l
	var defs []jen.Code
	add := func(name string, value jen.Code, comment string) {
		if !c.used[name] {
			return
		}
		d := jen.Id(name).Op("=").Add(value)
		if comment != "" {
			d.Comment(comment)
		}
		defs = append(defs, d)
	}
	for _, f := range l.Fields {
		n := c.bases[f]
		c.rangeConstants(f, add)
		if f.Place == layout.InScore {
			add(n+"Weight", pow2(f.Weight), "")
			add(n+"Radix", pow2(f.Radix()), "")
		} else {
			add(n+"Off", jen.Lit(f.Offset), fmt.Sprintf("%s's text is member[%sOff:%sEnd]", f.Name, n, n))
			add(n+"End", jen.Lit(f.Offset+f.TextWidth), "")
		}
	}
	c.dataConstants(add)
	if l.Score == layout.ScoreBits62 {
		add("scoreBound", pow2(l.ScoreRadix), "the score's bit pattern P is below this")
	} else if l.Score == layout.ScoreDecimal {
		add("scoreBound", pow2(l.ScoreRadix), "P is a whole number below this")
	} else {
		add("scoreBound", pow2(l.ScoreRadix), "every score is a whole number below this")
	}
	add("scoreScale", jen.Id(fmt.Sprintf("1e%d", l.DecimalPlaces)), fmt.Sprintf("the score is P / 10^%d", l.DecimalPlaces))
	add("scoreFields", jen.Lit(l.NumScore), "fields in the score")
	add("prefixLen", jen.Lit(l.PrefixLen), "bytes of the member before the id")
	add("separator", jen.Lit(l.Separator), "")
	if l.IDType == layout.IDString {
		add(lowerCamel(l.IDName)+"MaxBytes", jen.Lit(l.MaxBytes), "the longest id accepted")
	}
	if len(defs) == 0 {
		return jen.Null()
	}
	comment := []string{"The layout as constants. A field's digit is its value minus Min (desc) or Max minus its value (asc),"}
	switch {
	case l.NumScore == 0:
		comment = append(comment, "so that a larger digit ranks first. Every field lives in the member prefix; the score is 0.")
	case l.Score == layout.ScoreDecimal:
		comment = append(comment, "so that a larger digit ranks first. The score is P / scoreScale, P = Σ digit·Weight.")
	case l.Score == layout.ScoreBits62:
		comment = append(comment, "so that a larger digit ranks first. The score is the float64 whose bit pattern is P = Σ digit·Weight,",
			"below 2^62: non-negative doubles order as their patterns.")
	default:
		comment = append(comment, "so that a larger digit ranks first. The score is P = Σ digit·Weight, a whole number below 2^53.")
	}
	if l.HasMemberFields() {
		comment = append(comment, "Member fields are fixed-width text before the id: "+l.MemberPattern()+".")
	}
	if l.IDOrder == layout.Asc {
		comment = append(comment, "Ties rank by id ascending: the member holds the id's text reversed.")
	}
	return jen.Comment(lineComment(strings.Join(comment, "\n"))).Line().Const().Defs(defs...)
}

// rangeConstants are the constants of a field's range: Min and Max, and for a time field the
// range in whole seconds.
func (c *codec) rangeConstants(f *layout.Field, add func(name string, value jen.Code, comment string)) {
	n := c.bases[f]
	switch f.Kind {
	case layout.Uint:
		add(n+"Min", unum(f.Lo), "")
		add(n+"Max", unum(f.Hi), "")
	case layout.Int:
		add(n+"Min", inum(f.MinInt()), "")
		add(n+"Max", inum(f.MaxInt()), "")
	case layout.Time:
		_, _, _, words := unitInfo(f.Unit)
		if f.Season {
			add(n+"Min", inum(f.MinInt()), fmt.Sprintf("%s, in %s from the season's start", f.Format(f.Lo), words))
			add(n+"Max", inum(f.MaxInt()), f.Format(f.Hi))
			return
		}
		add(n+"Min", inum(f.MinInt()), fmt.Sprintf("%s, in %s since the Unix epoch", f.Format(f.Lo), words))
		add(n+"Max", inum(f.MaxInt()), f.Format(f.Hi))
		lo, hi := secBounds(f)
		add(n+"SecLo", inum(lo), "the range in whole seconds")
		add(n+"SecHi", inum(hi), "")
	}
}
