package layout

import (
	"strconv"
	"strings"
)

// Ties: entries equal on every field are ordered by their members' bytes, larger first (a
// board reads high to low). The prefix being equal, that is the id's text. With id order
// desc the text is the id itself (uint64 ids in decimal, so 9 ranks before 10); with order:
// asc it is the id's reversed text, whose bytes order the opposite way to the ids:
//
//   - a uint64 id: its 20-digit zero-padded decimal with every digit d written as 9 − d
//     (the decimal of 10^20 − 1 − id), fixed width, so smaller ids have larger texts;
//   - a string id: each byte b written as the two lower-case hex digits of 255 − b, then the
//     end byte '~'. Codes order the opposite way to the bytes and '~' sorts above every hex
//     digit, so an id ranks before every longer id it begins (its end byte meets a smaller
//     code). The text is printable ASCII: redis-cli and JSON show it as it is.
//
// Every id has one text and every text one id: decoding refuses anything else.

// uint64Digits is the width of a uint64 in decimal (18446744073709551615).
const uint64Digits = 20

// reversedEnd ends a string id's reversed text: above every lower-case hex digit.
const reversedEnd = '~'

const hexDigits = "0123456789abcdef"

// IDText is the id's text in the member (after the field prefix): the id itself, or with
// IDOrder Asc its reversed text. id must be valid (CheckID).
func (l *Layout) IDText(id string) string {
	if l.IDOrder == Desc {
		return id
	}
	var b strings.Builder
	if l.IDType == IDUint64 {
		padded := strings.Repeat("0", uint64Digits-len(id)) + id
		for i := 0; i < len(padded); i++ {
			b.WriteByte('9' - (padded[i] - '0'))
		}
		return b.String()
	}
	for i := 0; i < len(id); i++ {
		c := 0xFF - id[i]
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xF])
	}
	b.WriteByte(reversedEnd)
	return b.String()
}

// idOf inverts IDText: ok is false for a text IDText never writes. The id it returns still
// needs CheckID (its length, a uint64's range).
func (l *Layout) idOf(text string) (id string, ok bool) {
	if l.IDOrder == Desc {
		return text, true
	}
	var b strings.Builder
	if l.IDType == IDUint64 {
		if len(text) != uint64Digits {
			return "", false
		}
		for i := 0; i < len(text); i++ {
			if text[i] < '0' || text[i] > '9' {
				return "", false
			}
			b.WriteByte('9' - (text[i] - '0'))
		}
		n, err := strconv.ParseUint(b.String(), 10, 64) // leading zeros allowed here: the text is fixed-width
		if err != nil {
			return "", false
		}
		return strconv.FormatUint(n, 10), true
	}
	if len(text)%2 != 1 || text[len(text)-1] != reversedEnd {
		return "", false
	}
	for i := 0; i+1 < len(text); i += 2 {
		hi, lo := strings.IndexByte(hexDigits, text[i]), strings.IndexByte(hexDigits, text[i+1])
		if hi < 0 || lo < 0 {
			return "", false
		}
		b.WriteByte(0xFF - byte(hi<<4|lo))
	}
	return b.String(), true
}

// compareIDs orders the ids of two entries equal on every field: negative when a ranks first.
func (l *Layout) compareIDs(a, b string) int {
	if l.IDOrder == Desc {
		return -strings.Compare(a, b) // the member's bytes, larger first
	}
	if l.IDType == IDUint64 {
		x, _ := strconv.ParseUint(a, 10, 64)
		y, _ := strconv.ParseUint(b, 10, 64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a, b)
}
