package runtime

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rankgen/rankgen/text/quote"
)

// Entry data is stored beside a board's entries in one hash (DataKey), one field per id, whose
// value holds all of the entry's data fields in schema order, each as its length in decimal,
// ':' and its text: a string as it is, a number (uint, int, an enum's index, a time in its
// units since the Unix epoch) in canonical decimal, a bool as 0 or 1. The scripts never read
// it; the generated Data.Encode and DecodeData write and read it.

// ErrBadData: stored entry data that this layout cannot have written.
var ErrBadData = errors.New("rankgen: entry data not written by this layout")

// DataError reports stored entry data that the layout cannot have written. It matches
// ErrBadData.
type DataError struct {
	Input  string // the data, quoted short
	Reason string
}

func (e *DataError) Error() string {
	return fmt.Sprintf("rankgen: bad entry data %s: %s", e.Input, e.Reason)
}

// Is makes errors.Is(err, ErrBadData) true.
func (e *DataError) Is(target error) bool { return target == ErrBadData }

// DataKey is the hash of a board's entry data (id → data, plus the stored-format fingerprint
// under the empty field), in the board's hash slot.
func DataKey(key string) string { return SideKey(key, "data") }

// DataLengthError reports a data string longer than its field's max_bytes: it is refused,
// never cut. It matches ErrOutOfRange.
func DataLengthError(field string, n, max int) error {
	return &RangeError{Field: field, Value: strconv.Itoa(n) + " bytes", Min: "0 bytes", Max: strconv.Itoa(max) + " bytes"}
}

// TextError reports a data string that is not valid UTF-8. Data strings hold text: such a
// value is refused when written, never stored where a reader expecting text could not show it.
// It matches ErrOutOfRange.
type TextError struct {
	Field string // the data field
	Value string // the value, quoted short
	At    int    // the 1-based byte that starts no character
}

func (e *TextError) Error() string {
	return fmt.Sprintf("rankgen: %s = %s is not valid UTF-8 (byte %d starts no character); a data string holds text", e.Field, e.Value, e.At)
}

// Is makes errors.Is(err, ErrOutOfRange) true.
func (e *TextError) Is(target error) bool { return target == ErrOutOfRange }

// CheckDataText returns a *TextError when text, the value of the string data field field, is
// not valid UTF-8.
func CheckDataText(field, text string) error {
	if utf8.ValidString(text) {
		return nil
	}
	at := 0
	for at < len(text) {
		r, size := utf8.DecodeRuneInString(text[at:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		at += size
	}
	return &TextError{Field: field, Value: quote.Short(text), At: at + 1}
}

// AppendDataText appends one data value's text to b.
func AppendDataText(b []byte, text string) []byte {
	b = strconv.AppendInt(b, int64(len(text)), 10)
	b = append(b, ':')
	return append(b, text...)
}

// AppendDataUint appends an unsigned value (a uint, an enum's index).
func AppendDataUint(b []byte, v uint64) []byte {
	var digits [20]byte // formatted on the stack: no allocation per value
	return appendDataBytes(b, strconv.AppendUint(digits[:0], v, 10))
}

// AppendDataInt appends a signed value (an int, a time in units).
func AppendDataInt(b []byte, v int64) []byte {
	var digits [20]byte
	return appendDataBytes(b, strconv.AppendInt(digits[:0], v, 10))
}

// appendDataBytes is AppendDataText for a value already in bytes.
func appendDataBytes(b, text []byte) []byte {
	b = strconv.AppendInt(b, int64(len(text)), 10)
	b = append(b, ':')
	return append(b, text...)
}

// AppendDataBool appends a bool as 0 or 1.
func AppendDataBool(b []byte, v bool) []byte {
	if v {
		return AppendDataText(b, "1")
	}
	return AppendDataText(b, "0")
}

// DataTexts splits stored data into the texts of its first n fields. Data written by a schema
// with fewer data fields (appended since) holds fewer texts: the caller reads the missing ones
// as their zero. Data written by a schema with more holds more: they are checked to be
// well-formed and left out. Any other shape is refused.
func DataTexts(data string, n int) ([]string, error) {
	out := make([]string, 0, n)
	rest, count := data, 0
	for rest != "" {
		i := 0
		for i < len(rest) && i < 8 && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i >= len(rest) || rest[i] != ':' || (rest[0] == '0' && i > 1) {
			return nil, badData(data, fmt.Sprintf("value %d has no length", count+1))
		}
		size, _ := strconv.Atoi(rest[:i])
		if size > len(rest)-i-1 {
			return nil, badData(data, fmt.Sprintf("value %d is cut short", count+1))
		}
		if count < n {
			out = append(out, rest[i+1:i+1+size])
		}
		count++
		rest = rest[i+1+size:]
	}
	return out, nil
}

// DataUint reads an unsigned data value of field in [min, max] (a bool is 0 … 1, an enum
// 0 … its last index).
func DataUint(text, field string, min, max uint64) (uint64, error) {
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil || strconv.FormatUint(v, 10) != text || v < min || v > max {
		return 0, badData(text, fmt.Sprintf("%s is not a whole number in [%d, %d]", field, min, max))
	}
	return v, nil
}

// DataInt reads a signed data value of field in [min, max].
func DataInt(text, field string, min, max int64) (int64, error) {
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil || strconv.FormatInt(v, 10) != text || v < min || v > max {
		return 0, badData(text, fmt.Sprintf("%s is not a whole number in [%d, %d]", field, min, max))
	}
	return v, nil
}

// DataString reads a string data value of field, at most max bytes.
func DataString(text, field string, max int) (string, error) {
	if len(text) > max {
		return "", badData(text, fmt.Sprintf("%s is %d bytes, more than %d", field, len(text), max))
	}
	return text, nil
}

func badData(data, reason string) error {
	return &DataError{Input: quote.Short(data), Reason: reason}
}

// Reads of a board with data fields get each entry's data (or "" where an entry has none) in
// the same reply as the entries: a window or page as {start, {member, score, …}, {data, …}},
// an entry as {score, member, data}, entries by id as score, member, data per id.

// WindowData reads a window reply with the data of each entry, into Pair.Data.
func WindowData(v any) (start int64, ps []Pair, err error) {
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		return 0, nil, badReply("window", "{start, pairs, data}", v)
	}
	if start, ps, err = Window(a[:2]); err != nil {
		return 0, nil, err
	}
	return start, ps, withData(ps, a[2])
}

// withData sets each pair's Data from a list of data strings, one per pair.
func withData(ps []Pair, v any) error {
	d, ok := v.([]any)
	if !ok || len(d) != len(ps) {
		return badReply("data", fmt.Sprintf("%d data strings", len(ps)), v)
	}
	for i, x := range d {
		s, ok := x.(string)
		if !ok {
			return badReply("data", "a data string", x)
		}
		ps[i].Data = s
	}
	return nil
}

// ScoreMemberData reads the reply {score, member, data} of the get script of a board with data.
func ScoreMemberData(v any) (Pair, error) {
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		return Pair{}, badReply("get", "{score, member, data}", v)
	}
	score, member, err := ScoreMember(a[:2])
	if err != nil {
		return Pair{}, err
	}
	data, ok := a[2].(string)
	if !ok {
		return Pair{}, badReply("get", "a data string", a[2])
	}
	return Pair{Member: member, Score: score, Data: data}, nil
}

// EntriesData reads the reply of the get_many script of a board with data: score, member and
// data per id (n ids), all three "" when the id has no entry.
func EntriesData(v any, n int) (ps []Pair, found []bool, err error) {
	a, ok := v.([]any)
	if !ok || len(a) != 3*n {
		return nil, nil, badReply("get_many", fmt.Sprintf("%d score, member, data triples", n), v)
	}
	flat, data := make([]any, 0, 2*n), make([]any, 0, n)
	for i := 0; i < n; i++ {
		flat, data = append(flat, a[3*i], a[3*i+1]), append(data, a[3*i+2])
	}
	if ps, found, err = Entries(flat, n); err != nil {
		return nil, nil, err
	}
	return ps, found, withData(ps, data)
}

// RankedEntriesData reads the reply of the ranked_many script on a board with data: as
// RankedEntries, with each entry's data (EntriesData).
func RankedEntriesData(v any, n int) (positions []int64, ps []Pair, found []bool, err error) {
	return rankedEntries(v, n, EntriesData)
}

// The data hash's field "" records the stored data format as the fingerprints of the data
// fields' prefixes, the first field's to all of them, comma-separated (a hash written before
// chains holds only the last). Code whose data fields extend the stored ones, or the stored ones
// extend its own (fields appended at the end), shares the board.

// DataFormatLast is the fingerprint of all the data fields of the stored format stored (the
// data hash's field ""): the last of its chain.
func DataFormatLast(stored string) string {
	return stored[strings.LastIndexByte(stored, ',')+1:]
}

// DataFormatShared reports whether code whose data format has the chain chain reads and writes
// a data hash of stored format stored: the same, or one of them extends the other.
func DataFormatShared(stored string, chain []string) bool {
	if len(chain) == 0 {
		return false
	}
	return slices.Contains(chain, DataFormatLast(stored)) || slices.Contains(strings.Split(stored, ","), chain[len(chain)-1])
}
