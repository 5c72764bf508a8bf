package layout

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Range describes the field's range in its own words.
func (f *Field) Range() string {
	switch f.Kind {
	case Bool:
		return "false … true"
	case Enum:
		return strings.Join(f.Values, " < ")
	}
	return f.Format(f.Lo) + " … " + f.Format(f.Hi)
}

// WidthText is how the field's radix was declared, e.g. "bits 32", "digits 13", "range 900".
func (f *Field) WidthText() string {
	switch f.RadixKind {
	case RadixBits:
		return fmt.Sprintf("bits %d", f.Width)
	case RadixDigits:
		return fmt.Sprintf("digits %d", f.Width)
	}
	return "radix " + strconv.FormatUint(f.MaxDigit+1, 10)
}

// OrderText says in words what ranks first.
func (f *Field) OrderText() string {
	switch {
	case f.Kind == Time && f.Order == Asc:
		return "asc (earlier first)"
	case f.Kind == Time:
		return "desc (later first)"
	case f.Order == Asc:
		return "asc (lower first)"
	}
	return "desc (higher first)"
}

// Slot is where the field lives: its weight in the score or its bytes in the member.
func (f *Field) Slot() string {
	if f.Place == InScore {
		return "×" + strconv.FormatUint(f.Weight, 10)
	}
	enc := "dec"
	if f.Hex {
		enc = "hex"
	}
	return fmt.Sprintf("bytes %d–%d %s", f.Offset, f.Offset+f.TextWidth-1, enc)
}

// Lifetime describes a time field's range in dates: "36 bits of ms from 2026-01-01 last until
// 2028-03-06".
func (f *Field) Lifetime() string {
	if f.Season {
		return f.seasonLifetime()
	}
	from, until := f.TimeOf(f.Lo), f.TimeOf(f.Hi)
	day := func(t time.Time) string {
		if t.Year() < 0 || t.Year() > 9999 {
			return strconv.Itoa(t.Year()) + " (year)"
		}
		return t.Format("2006-01-02")
	}
	if f.RadixKind == RadixRange {
		return fmt.Sprintf("%d %s from %s last until %s", f.MaxDigit+1, f.Unit, day(from), day(until))
	}
	w := strings.Fields(f.WidthText()) // "bits 36" → "36 bits"
	return fmt.Sprintf("%s %s of %s from %s last until %s", w[1], w[0], f.Unit, day(from), day(until))
}

// MemberPattern shows the member's shape, e.g. "<ReachedAt:9 hex>:<PlayerID>".
func (l *Layout) MemberPattern() string {
	var b strings.Builder
	for _, f := range l.MemberFields() {
		enc := "dec"
		if f.Hex {
			enc = "hex"
		}
		fmt.Fprintf(&b, "<%s:%d %s>%s", f.Name, f.TextWidth, enc, l.Separator)
	}
	if l.IDOrder == Asc {
		fmt.Fprintf(&b, "<%s reversed>", l.IDName)
	} else {
		fmt.Fprintf(&b, "<%s>", l.IDName)
	}
	return b.String()
}

// Table is the layout as a reviewer reads it: one row per field, then capacity and headroom.
// It heads the generated Go file, so every layout change shows in a PR diff.
func (l *Layout) Table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "field\ttype\tplace\twidth\tweight / bytes\torder\trange")
	for _, f := range l.Fields {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.GoType, f.Place, f.WidthText(), f.Slot(), f.OrderText(), f.Range())
	}
	tw.Flush()
	fmt.Fprintln(&b)
	switch l.Score {
	case ScoreBits62:
		fmt.Fprintf(&b, "score: bits62, the double whose bit pattern is P < %d; %.2f of 62 bits used (%.2f left)\n", l.ScoreRadix, l.ScoreBits(), 62-l.ScoreBits())
		fmt.Fprintln(&b, "bits62: redis-cli shows such scores as tiny or odd numbers (e.g. 4.9e-324); only rankgen decodes them. Never run ZINCRBY or weighted ZUNIONSTORE/ZINTERSTORE on this board: arithmetic on these doubles corrupts entries")
	case ScoreDecimal:
		fmt.Fprintf(&b, "score: decimal, P / 10^%d; P < %d uses %.2f bits of the %.2f this keeps exact (%.2f left)\n",
			l.DecimalPlaces, l.ScoreRadix, l.ScoreBits(), log2u(l.ScoreLimit), log2u(l.ScoreLimit)-l.ScoreBits())
	default:
		fmt.Fprintf(&b, "score: integer P < %d, %.2f of 53 bits used (%.2f left)\n", l.ScoreRadix, l.ScoreBits(), 53-l.ScoreBits())
	}
	if !l.HasMemberFields() && l.HasPrefix() {
		fmt.Fprintf(&b, "member: %s, the id's text reversed so that ties rank by id ascending; an id → member index is kept beside the set\n", l.MemberPattern())
	} else if l.HasPrefix() {
		fmt.Fprintf(&b, "member: %s, %d-byte prefix; an id → member index is kept beside the set\n", l.MemberPattern(), l.PrefixLen)
	} else {
		fmt.Fprintf(&b, "member: the %s itself (%s)\n", l.IDName, l.IDType)
	}
	if l.Season != nil && l.Season.Regions != nil {
		fmt.Fprintf(&b, "season: %s; one board per zone and season under <key>:<zone>:<season id> (its start in Unix seconds)\n", l.Season.Describe())
	} else if l.Season != nil {
		fmt.Fprintf(&b, "season: %s; one board per season under <key>:<season id> (its start in Unix seconds)\n", l.Season.Describe())
	}
	for _, f := range l.Fields {
		if f.Kind == Time {
			fmt.Fprintf(&b, "%s: %s\n", f.Name, f.Lifetime())
		}
	}
	fmt.Fprintf(&b, "fingerprint: %s\n", l.Fingerprint)
	if l.HasData() {
		b.WriteString(l.dataTable())
	}
	return b.String()
}

// dataTable lists the data fields and the stored format's fingerprint, which covers them.
func (l *Layout) dataTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ndata (stored beside each entry in one hash, returned with it, never ranked):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "data\ttype\tvalues")
	for _, f := range l.Data {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, f.GoType, f.DataRange())
	}
	tw.Flush()
	fmt.Fprintf(&b, "stored-format fingerprint (layout and data): %s\n", l.StoreFingerprint)
	fmt.Fprintf(&b, "data fingerprint (recorded in the data hash): %s\n", l.DataFingerprint)
	return b.String()
}
