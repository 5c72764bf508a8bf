package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// canonical is the text of everything that decides how entries are stored: the fingerprint
// changes exactly when this does. Names (Go-level) are left out on purpose.
func canonical(l *Layout) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rankgen layout 1\nscore %s %d\nseparator %q\nid %s", l.Score, l.DecimalPlaces, l.Separator, l.IDType)
	if l.IDOrder == Asc { // only then: the fingerprints of layouts without it stay as they were
		b.WriteString(" order=asc")
	}
	b.WriteByte('\n')
	if l.Season != nil {
		b.WriteString(l.Season.Canonical())
	}
	for _, f := range l.Fields {
		fmt.Fprintf(&b, "field %s %s %s radix-1=%d min=%s max=%s", f.Place, f.Kind, f.Order, f.MaxDigit, f.Format(f.Lo), f.Format(f.Hi))
		if f.Kind == Time {
			fmt.Fprintf(&b, " unit=%s", f.Unit)
		}
		if f.Season {
			b.WriteString(" epoch=season")
		}
		if f.Kind == Enum {
			fmt.Fprintf(&b, " values=%s", strings.Join(f.Values, ","))
		}
		if f.Place == InMember {
			fmt.Fprintf(&b, " text=%d hex=%t", f.TextWidth, f.Hex)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// IsFingerprint reports whether s has the form of a layout fingerprint: 16 lower-case hex
// digits.
func IsFingerprint(s string) bool {
	if len(s) != 16 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// fingerprint is the first 8 bytes of the canonical form's SHA-256, in hex.
func fingerprint(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:8])
}
