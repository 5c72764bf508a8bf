package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/text/quote"
)

// Input lines are taken exactly or refused: nothing encode and decode read is altered on the
// way (encoding/json would turn bad UTF-8 into U+FFFD and keep the last of repeated keys),
// and no message echoes more than a short prefix of what it refuses.

// lineLimit is the longest input line worth reading for l: a member of the longest id and the
// longest data (an encoding's "data", or an entry's data fields, which take no more), every
// byte escaped as \u00XX, plus room for the fields and the keys. A longer line is refused
// without being held in memory.
func lineLimit(l *layout.Layout) int {
	return lineSlack + 6*(l.MaxMemberBytes()+l.MaxStoredDataBytes())
}

// lineSlack is the room lineLimit leaves for the keys, the fields' values and white space.
const lineSlack = 64 << 10

// eachLine runs f on every non-blank line of stdin, printing its result or, on stderr, its
// error with the line number. Lines over limit bytes are refused unread.
func eachLine(e *env, limit int, f func(line []byte) (string, error)) int {
	r := bufio.NewReaderSize(e.stdin, 64<<10)
	code := exitOK
	for n := 1; ; n++ {
		line, size, err := readLine(r, limit)
		var out string
		var ferr error
		switch {
		case size > limit:
			ferr = fmt.Errorf("the line is %d bytes, more than any line of this layout needs (at most %d: its longest member and data with every byte escaped, and %d bytes for the rest); it starts %s", size, limit, lineSlack, quote.Short(string(line[:min(len(line), quote.MaxShown)])))
		case len(bytes.TrimSpace(line)) > 0:
			out, ferr = f(line)
		}
		if ferr != nil {
			fmt.Fprintf(e.stderr, "stdin:%d: %s\n", n, errText(ferr))
			code = exitFail
		} else if out != "" {
			fmt.Fprintln(e.stdout, out)
		}
		if err == io.EOF {
			return code
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "stdin:%d: %v\n", n, err)
			return exitFail
		}
	}
}

// readLine reads one line, its newline included. It keeps at most limit+1 bytes of it (so a
// longer line shows only its start) and returns the line's full size without the newline.
func readLine(r *bufio.Reader, limit int) (line []byte, size int, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		size += len(chunk)
		if keep := limit + 1 - len(line); keep > 0 {
			line = append(line, chunk[:min(len(chunk), keep)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if bytes.HasSuffix(chunk, []byte("\n")) {
			size--
		}
		return line, size, err
	}
}

// jsonObject reads a line holding one JSON object into its members, refusing what
// encoding/json would alter: text that is not UTF-8, half a surrogate pair, a repeated key.
func jsonObject(line []byte) (map[string]json.RawMessage, error) {
	if err := exactText(line); err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", jsonErr(err))
	}
	// encoding/json keeps the last of repeated keys: find them in the token stream.
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return obj, nil // null: no members
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		var value json.RawMessage
		if err != nil || !isKey || dec.Decode(&value) != nil {
			return nil, fmt.Errorf("not a JSON object") // unreachable: Unmarshal read it
		}
		if seen[key] {
			return nil, fmt.Errorf("key %s is given twice; give each key once", quote.Short(key))
		}
		seen[key] = true
	}
	return obj, nil
}

// exactText refuses the JSON text that encoding/json reads as U+FFFD: bytes that are not
// UTF-8, and \u escapes of half a surrogate pair.
func exactText(line []byte) error {
	if !utf8.Valid(line) {
		at := 0
		for at < len(line) {
			r, size := utf8.DecodeRune(line[at:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			at += size
		}
		return fmt.Errorf("byte %d of the line is not UTF-8, which JSON cannot carry exactly; refused", at+1)
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' {
			continue
		}
		i++ // the escaped character, skipped whatever it is
		r, ok := escapedRune(line, i)
		if !ok || !utf16.IsSurrogate(r) {
			continue
		}
		if lo, ok := escapedRune(line, i+6); ok && r < 0xdc00 && line[i+5] == '\\' && lo >= 0xdc00 && lo <= 0xdfff {
			i += 10 // a pair: one character
			continue
		}
		return fmt.Errorf("\\u%04x at byte %d is half a surrogate pair, which JSON would read as U+FFFD; refused", r, i)
	}
	return nil
}

// escapedRune reads the XXXX of a \uXXXX escape whose u is at line[i].
func escapedRune(line []byte, i int) (rune, bool) {
	if i < 0 || i+4 >= len(line) || line[i] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(line[i+1:i+5]), 16, 16)
	return rune(n), err == nil
}

// plainDecimal is a score as Redis prints one: digits, an optional fraction and exponent.
// strconv.ParseFloat alone would also take hex floats, digit separators, inf and NaN.
var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// parseScore reads a plain decimal score (see parseScoreFor for a layout's).
func parseScore(s string) (float64, error) {
	if !plainDecimal.MatchString(s) {
		return 0, fmt.Errorf("score %s is not a plain decimal number (digits, an optional fraction and exponent, as Redis prints scores)", quote.Short(s))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("score %s is beyond what a double holds", quote.Short(s))
	}
	return f, nil
}

// pPrefix starts a bits62 score typed as P, the 62-bit integer whose bit pattern the double
// is: p:1152921504606846975.
const pPrefix = "p:"

// scoreText is how the CLI shows a score l stores: on a bits62 layout P as p:N, for the double
// is a tiny number whose digits start some 230 places after the point, which a person copies
// wrong; else the plain decimal that Redis and strconv.ParseFloat read back exactly.
func scoreText(l *layout.Layout, score float64) string {
	if l.Score == layout.ScoreBits62 {
		return pPrefix + strconv.FormatUint(math.Float64bits(score), 10)
	}
	return formatScore(score)
}

// parseScoreFor reads a score typed for l: a plain decimal; on a bits62 layout also P as p:N,
// and a decimal there only when it is exactly a double, never rounded to one: every double
// below 2^62's pattern is some entry, so a digit or an exponent typed wrong would read as
// another entry without a word.
func parseScoreFor(l *layout.Layout, s string) (float64, error) {
	bits62 := l.Score == layout.ScoreBits62
	if digits, ok := strings.CutPrefix(s, pPrefix); ok {
		if !bits62 {
			return 0, fmt.Errorf("score %s: p:N types a bits62 layout's score; %s's scores are plain decimals, as Redis prints them", quote.Short(s), l.File)
		}
		p, err := parseP(l, digits)
		if err != nil {
			return 0, fmt.Errorf("score %s: %v", quote.Short(s), err)
		}
		return l.ScoreOf(p), nil
	}
	f, err := parseScore(s)
	if bits62 && err != nil {
		return 0, fmt.Errorf("%v; %s", err, typeP(l))
	}
	if bits62 && !exactDecimal(s, f) {
		return 0, fmt.Errorf("score %s is not exactly a double, only near one: a bits62 score is the bit pattern of its double, so a digit or an exponent typed wrong would read as another entry; %s", quote.Short(s), typeP(l))
	}
	return f, err
}

// typeP says how to type a bits62 score.
func typeP(l *layout.Layout) string {
	return fmt.Sprintf("type it as P, the 62-bit integer that rankgen serve, encode and explain show: p:N, from p:0 to p:%d (on a JSON line \"p\": N)", l.ScoreRadix-1)
}

// parseP reads the digits of P (no sign, no leading zeros) for l.
func parseP(l *layout.Layout, digits string) (uint64, error) {
	p, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || strconv.FormatUint(p, 10) != digits {
		return 0, fmt.Errorf("want P, a whole number from 0 to %d in decimal digits", l.ScoreRadix-1)
	}
	if p >= l.ScoreRadix {
		return 0, fmt.Errorf("p:%d is above the layout's largest P, %d", p, l.ScoreRadix-1)
	}
	return p, nil
}

// exactDecimal reports whether the plain decimal s is exactly the double f it parses to.
func exactDecimal(s string, f float64) bool {
	if f == 0 {
		// An underflow too: only digits that are all zero are zero. (This also keeps a huge
		// exponent away from big.Rat.)
		mantissa, _, _ := strings.Cut(strings.ToLower(s), "e")
		return strings.Trim(mantissa, "-0.") == ""
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	var d big.Rat
	return d.SetFloat64(f) != nil && r.Cmp(&d) == 0
}
