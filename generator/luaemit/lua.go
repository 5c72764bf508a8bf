package luaemit

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// tidy drops trailing spaces and runs of blank lines that template actions leave behind.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	blank := false
	for _, line := range lines {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func num(v uint64) string { return strconv.FormatUint(v, 10) }

func digitText(f *layout.Field, d uint64) string {
	base := 10
	if f.Hex {
		base = 16
	}
	s := strconv.FormatUint(d, base)
	return strings.Repeat("0", f.TextWidth-len(s)) + s
}

// maxText is the largest digit a member field's fixed-width text can write.
func maxText(f *layout.Field) uint64 {
	base := uint64(10)
	if f.Hex {
		base = 16
	}
	m := uint64(1)
	for range f.TextWidth {
		if m > math.MaxUint64/base {
			return math.MaxUint64
		}
		m *= base
	}
	return m - 1
}

// patternEscape writes s as a Lua pattern that matches it literally: "%" before every
// punctuation byte, and %z for NUL, which Lua 5.1 patterns cannot hold.
func patternEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0:
			b.WriteString("%z")
		case c < 0x80 && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
			b.WriteByte('%')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// luaString quotes s as a Lua string literal, byte for byte.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
