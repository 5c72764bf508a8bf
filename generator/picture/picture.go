// Package picture draws a layout as an SVG picture: the score as a bar of bits, each score
// field a segment (its width, weight and order written in it, its share of the bar growing
// with its bits), the headroom left; the member as a bar of bytes (the field prefix, the
// separators, the id); the data fields stored beside each entry; and the fingerprints.
//
// rankgen explain -svg writes it for pull requests, and rankgen serve shows the same picture
// on its page. The output is deterministic (a golden test reads it), uses presentation
// attributes only (no <style>, no script: it renders under a strict Content-Security-Policy
// and as an <img>), and every text is XML-escaped.
package picture

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
)

// Geometry, in pixels. Text is monospace, so a label's width is its length in runes times
// charWidth (a little more than a 12px monospace glyph's advance).
const (
	margin     = 16
	barWidth   = 720 // the bars' width when the labels fit in it
	lineHeight = 15
	charWidth  = 7.4
	padding    = 6  // inside a segment, either side of its label
	maxLabel   = 44 // runes of a label before it is cut with "…"
	fontSize   = 12
)

// Fill colours of the fields' segments, in turn; the headroom and separators are grey.
var fills = []string{"#cfe2f3", "#d9ead3", "#fff2cc", "#f4cccc", "#d9d2e9", "#fce5cd"}

const (
	greyFill   = "#eeeeee"
	strokeGrey = "#666666"
)

// segment is one box of a bar: its labels (one per line, the first in bold) and the weight
// that shares out the width left over once every segment holds its labels.
type segment struct {
	lines  []string
	weight float64
	fill   string
}

// SVG returns the picture of l as a standalone SVG document.
func SVG(l *layout.Layout) []byte {
	var c canvas
	c.heading(fmt.Sprintf("%s · package %s · layout %s", cut(l.File), l.Package, l.Fingerprint))
	c.gap(6)
	c.caption(scoreCaption(l))
	c.bar(scoreSegments(l), "most significant", "least significant")
	c.caption(memberCaption(l))
	c.bar(memberSegments(l), "", "")
	if l.HasData() {
		c.caption("data, stored beside each entry in one hash (never ranked); stored format " + l.StoreFingerprint)
		c.bar(dataSegments(l), "", "")
	}
	return c.document(l)
}

// scoreCaption says what the score is and how much of it the fields use.
func scoreCaption(l *layout.Layout) string {
	used := l.ScoreBits()
	total := scoreTotalBits(l)
	switch l.Score {
	case layout.ScoreBits62:
		return fmt.Sprintf("score: bits62 (the double whose bit pattern is P), %.2f of %.0f bits used, %.2f left", used, total, total-used)
	case layout.ScoreDecimal:
		return fmt.Sprintf("score: decimal, P / 10^%d, %.2f of %.2f exact bits used, %.2f left", l.DecimalPlaces, used, total, total-used)
	}
	return fmt.Sprintf("score: integer P, %.2f of %.0f bits used, %.2f left", used, total, total-used)
}

// scoreTotalBits is the bits the score kind holds exactly.
func scoreTotalBits(l *layout.Layout) float64 {
	return math.Log2(float64(l.ScoreLimit))
}

// fieldBits is log2 of a field's radix: the bits it takes.
func fieldBits(f *layout.Field) float64 {
	if f.RadixKind == layout.RadixBits {
		return float64(f.Width)
	}
	return math.Log2(float64(f.MaxDigit) + 1)
}

// scoreSegments are the headroom (the unused most significant bits), then the score fields,
// most significant first.
func scoreSegments(l *layout.Layout) []segment {
	var segs []segment
	if left := scoreTotalBits(l) - l.ScoreBits(); left >= 0.005 {
		segs = append(segs, segment{lines: []string{"headroom", fmt.Sprintf("%.2f bits", left), "unused"}, weight: left, fill: greyFill})
	}
	for i, f := range l.ScoreFields() {
		bits := fieldBits(f)
		segs = append(segs, segment{
			lines:  []string{f.Name, bitsText(f, bits), "×" + strconv.FormatUint(f.Weight, 10), f.OrderText()},
			weight: bits,
			fill:   fills[i%len(fills)],
		})
	}
	if len(segs) == 0 {
		segs = append(segs, segment{lines: []string{"(no score fields)"}, weight: 1, fill: greyFill})
	}
	return segs
}

// bitsText is a field's width: "24 bits", or for a radix that is no power of two its bits and
// how it was declared ("9.81 bits · radix 900").
func bitsText(f *layout.Field, bits float64) string {
	if f.RadixKind == layout.RadixBits {
		return fmt.Sprintf("%d bits", f.Width)
	}
	return fmt.Sprintf("%.2f bits · %s", bits, f.WidthText())
}

// memberCaption describes the member's shape.
func memberCaption(l *layout.Layout) string {
	if !l.HasPrefix() {
		return fmt.Sprintf("member: the id %s itself (%s); the layout fingerprint is kept in the board's meta key", l.IDName, l.IDType)
	}
	if l.IDOrder == layout.Asc {
		return fmt.Sprintf("member: %d-byte prefix, then the id's text reversed (ties: smaller id first); an id → member index is kept beside the set", l.PrefixLen)
	}
	return fmt.Sprintf("member: %d-byte prefix, then the id; an id → member index is kept beside the set", l.PrefixLen)
}

// memberSegments are the member fields' texts and their separators (a byte each), then the id.
func memberSegments(l *layout.Layout) []segment {
	var segs []segment
	for i, f := range l.MemberFields() {
		enc := "decimal"
		if f.Hex {
			enc = "hex"
		}
		segs = append(segs,
			segment{
				lines:  []string{f.Name, fmt.Sprintf("%d bytes %s", f.TextWidth, enc), fmt.Sprintf("bytes %d–%d", f.Offset, f.Offset+f.TextWidth-1), f.OrderText()},
				weight: float64(f.TextWidth),
				fill:   fills[(l.NumScore+i)%len(fills)],
			},
			segment{lines: []string{strconv.Quote(l.Separator)}, weight: float64(len(l.Separator)), fill: greyFill})
	}
	id := l.IDName
	shape := fmt.Sprintf("string, 1–%d bytes", l.MaxBytes)
	if l.IDType == layout.IDUint64 {
		shape = "uint64 in decimal, 1–20 bytes"
	}
	order := "ties: larger bytes first"
	if l.IDOrder == layout.Asc {
		order = "ties: smaller id first (text reversed)"
	}
	segs = append(segs, segment{lines: []string{id, shape, order}, weight: float64(l.MaxIDTextBytes()), fill: "#ffffff"})
	return segs
}

// dataSegments are the data fields, one box each, equal shares.
func dataSegments(l *layout.Layout) []segment {
	var segs []segment
	for i, f := range l.Data {
		segs = append(segs, segment{lines: []string{f.Name, f.GoType, f.DataRange()}, weight: 1, fill: fills[i%len(fills)]})
	}
	return segs
}

// canvas accumulates the picture's elements from the top down.
type canvas struct {
	body  bytes.Buffer
	y     int // the top of the next element
	width int // the widest bar or line drawn
}

func (c *canvas) gap(px int) { c.y += px }

func (c *canvas) heading(s string) {
	c.y += lineHeight
	c.line(s, `font-weight="bold"`)
	c.y += 4
}

func (c *canvas) caption(s string) {
	c.y += lineHeight + 6
	c.line(s, "")
	c.y += 6
}

// line draws a line of text across the picture, which widens to hold it.
func (c *canvas) line(s, attrs string) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	c.text(margin, c.y, s, attrs, "")
	c.width = max(c.width, int(math.Ceil(float64(utf8.RuneCountInString(s))*charWidth)))
}

// bar draws segments side by side: each is wide enough for its labels, and the width left in
// barWidth is shared out by weight. left and right label the bar's ends beneath it.
func (c *canvas) bar(segs []segment, left, right string) {
	mins := make([]int, len(segs))
	need, total := 0, 0.0
	lines := 0
	for i := range segs {
		for j, s := range segs[i].lines {
			segs[i].lines[j] = cut(s)
			if w := int(math.Ceil(float64(utf8.RuneCountInString(segs[i].lines[j]))*charWidth)) + 2*padding; w > mins[i] {
				mins[i] = w
			}
		}
		need += mins[i]
		total += segs[i].weight
		lines = max(lines, len(segs[i].lines))
	}
	spare := max(barWidth-need, 0)
	widths := make([]int, len(segs))
	given, sum := 0, 0.0
	for i := range segs {
		// Round the running total, not each share, so that the widths add up to the bar.
		sum += segs[i].weight
		upTo := 0
		if total > 0 {
			upTo = int(math.Round(float64(spare) * (sum / total)))
		}
		widths[i] = mins[i] + upTo - given
		given = upTo
	}
	height := lines*lineHeight + 2*padding
	x := margin
	for i, s := range segs {
		fmt.Fprintf(&c.body, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="%s"/>`+"\n", x, c.y, widths[i], height, s.fill, strokeGrey)
		for j, line := range s.lines {
			attrs := ""
			if j == 0 {
				attrs = `font-weight="bold"`
			}
			c.text(x+padding, c.y+padding+(j+1)*lineHeight-3, line, attrs, "")
		}
		x += widths[i]
	}
	c.width = max(c.width, x-margin)
	c.y += height
	if left != "" || right != "" {
		c.y += lineHeight
		c.text(margin, c.y, left, `fill="#555555"`, "")
		c.text(x, c.y, right, `fill="#555555"`, "end")
	}
}

// text draws one escaped line at (x, y); anchor "end" right-aligns it.
func (c *canvas) text(x, y int, s, attrs, anchor string) {
	if s == "" {
		return
	}
	fmt.Fprintf(&c.body, `<text x="%d" y="%d"`, x, y)
	if anchor != "" {
		fmt.Fprintf(&c.body, ` text-anchor="%s"`, anchor)
	}
	if attrs != "" {
		c.body.WriteString(" " + attrs)
	}
	c.body.WriteString(">")
	xml.EscapeText(&c.body, []byte(s)) // a bytes.Buffer never fails
	c.body.WriteString("</text>\n")
}

// document wraps the body in the <svg> element, sized to what was drawn.
func (c *canvas) document(l *layout.Layout) []byte {
	var b bytes.Buffer
	w, h := c.width+2*margin, c.y+margin
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" font-size="%d">`+"\n", w, h, w, h, fontSize)
	b.WriteString("<title>")
	xml.EscapeText(&b, []byte("rankgen layout of "+cut(l.File)+" ("+l.Fingerprint+")"))
	b.WriteString("</title>\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", w, h)
	b.Write(c.body.Bytes())
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// cut shortens a label to maxLabel runes, ending it with "…"; invalid UTF-8 (a file name's
// bytes) becomes U+FFFD, which XML can carry.
func cut(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-1]) + "…"
}
