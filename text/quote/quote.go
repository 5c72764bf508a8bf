// Package quote shows untrusted input in messages: Go-quoted, so that every byte is visible,
// and cut to a short prefix, so that a message stays a line however long the input.
package quote

import (
	"strconv"
	"unicode/utf8"
)

// MaxShown is how many bytes of input a message shows; longer input is cut to its first
// Cut bytes and says how long it was.
const (
	MaxShown = 64
	Cut      = 40
)

// Short is strconv.Quote(s) for s of at most MaxShown bytes; for longer s, the quoted first
// Cut bytes (not splitting a character) followed by "… (N bytes)".
func Short(s string) string {
	if len(s) <= MaxShown {
		return strconv.Quote(s)
	}
	n := Cut
	for n > Cut-utf8.UTFMax && !utf8.RuneStart(s[n]) { // do not split a character
		n--
	}
	return strconv.Quote(s[:n]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
