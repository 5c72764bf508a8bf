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
//   - a string id: each byte b ≥ 2 written as 255 − b, the bytes 1 and 0 as the pairs
//     FE FD and FE FE, then the end byte FF. Byte codes order the opposite way to the bytes
//     and none starts with FF, so an id ranks before every longer id it begins (its end
//     byte meets a smaller code) and the text decodes back exactly.
//
// Every id has one text and every text one id: decoding refuses anything else.

// uint64Digits is the width of a uint64 in decimal (18446744073709551615).
const uint64Digits = 20

// Escapes and the end byte of a string id's reversed text.
const (
	reversedEnd    = 0xFF
	reversedEscape = 0xFE // followed by reversedZero (the byte 0) or reversedOne (the byte 1)
	reversedZero   = 0xFE
	reversedOne    = 0xFD
)

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
		switch c := id[i]; c {
		case 0:
			b.Write([]byte{reversedEscape, reversedZero})
		case 1:
			b.Write([]byte{reversedEscape, reversedOne})
		default:
			b.WriteByte(0xFF - c)
		}
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
	if len(text) == 0 || text[len(text)-1] != reversedEnd {
		return "", false
	}
	body := text[:len(text)-1]
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == reversedEnd:
			return "", false
		case c != reversedEscape:
			b.WriteByte(0xFF - c)
		case i+1 < len(body) && body[i+1] == reversedZero:
			b.WriteByte(0)
			i++
		case i+1 < len(body) && body[i+1] == reversedOne:
			b.WriteByte(1)
			i++
		default:
			return "", false
		}
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
