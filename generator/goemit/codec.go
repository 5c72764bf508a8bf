package goemit

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// codec emits the layout-specific codec: constants, Entry, enum types, Encode, Decode and
// Compare, one function per declaration (constants.go, entry.go, encode.go, decode.go,
// compare.go). It also owns the constant block of the whole file: konst records each
// constant the code uses, the board's methods included, and the block, filled last, declares
// exactly those (staticcheck flags unused ones).
type codec struct {
	l     *layout.Layout
	used  map[string]bool          // constant names referenced so far; only looked up, never iterated
	bases map[*layout.Field]string // each field's unexported base name; only looked up
	// inPackage: the board of a package of boards this file is (GenerateBoards), whose package
	// file declares what every board shares (the version guard, the library, Option, Cursor).
	inPackage *layout.Board
}

func newCodec(l *layout.Layout) *codec {
	bases, _ := baseNames(l) // Generate has checked the error
	return &codec{l: l, used: map[string]bool{}, bases: bases}
}

// emitCodec adds the codec to the file. The constant block is left empty, to be filled by
// constants() once the whole file is built: the board's methods use the constants too.
func emitCodec(f *jen.File, c *codec) (constBlock *jen.Statement) {
	l := c.l
	if c.inPackage == nil {
		c.versionGuard(f)
	}
	c.fingerprint(f)
	constBlock = &jen.Statement{}
	f.Add(constBlock)
	f.Line()
	f.Add(c.entryType())
	for _, fd := range l.Fields {
		if fd.Kind == layout.Enum {
			f.Line()
			f.Add(c.enumType(fd))
		}
	}
	if l.HasData() {
		c.dataTypes(f)
	}
	f.Line()
	f.Add(c.encode())
	f.Line()
	f.Add(c.decode())
	if l.Score == layout.ScoreDecimal && l.NumScore > 0 {
		f.Line()
		f.Add(c.decimalPOf())
	}
	f.Line()
	f.Add(c.compare())
	return constBlock
}

// versionGuard declares the constants that tie the file to the runtime's contract version.
func (c *codec) versionGuard(f *jen.File) {
	f.Comment("Either constant fails to compile against a runtime of another contract: regenerate then.")
	f.Const().Defs(
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Lit(genVersion).Op("-").Qual(runtimePath, "MinVersion")),
		jen.Id("_").Op("=").Qual(runtimePath, "EnforceVersion").Call(jen.Qual(runtimePath, "MaxVersion").Op("-").Lit(genVersion)),
	)
	f.Line()
}

// fingerprint declares Fingerprint.
func (c *codec) fingerprint(f *jen.File) {
	f.Comment("Fingerprint identifies the stored encoding: it changes exactly when a change to the schema")
	f.Comment("changes how entries are stored or ordered, so a board written by another layout is refused.")
	f.Const().Id("Fingerprint").Op("=").Lit(c.l.Fingerprint)
	f.Line()
	if c.l.HasData() {
		f.Comment("StoreFingerprint identifies everything the board stores: the layout and the entry data's")
		f.Comment("stored format (rankgen explain reports it).")
		f.Const().Id("StoreFingerprint").Op("=").Lit(c.l.StoreFingerprint)
		f.Line()
		f.Comment("DataFingerprint identifies the entry data's stored format alone. The data hash records it,")
		f.Comment("so data written in another format is refused, and data outlives a migration of the ranking.")
		f.Const().Id("DataFingerprint").Op("=").Lit(c.l.DataFingerprint)
		f.Line()
	}
}

// lowerCamel turns an exported name into an unexported one: Points → points,
// PlayerID → playerID, ID → id, URLCount → urlCount.
func lowerCamel(s string) string {
	r := []rune(s)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	if n > 1 && n < len(r) && unicode.IsLower(r[n]) {
		n-- // the last upper-case letter starts the next word
	}
	for i := 0; i < n; i++ {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

// baseNames gives every field the unexported name its constants and locals start with: its
// name in lowerCamel, or, for the rare fields whose lowerCamel forms coincide (ID and Id),
// that form followed by the field's position. It fails when names still coincide.
func baseNames(l *layout.Layout) (map[*layout.Field]string, error) {
	all := append(append([]*layout.Field{}, l.Fields...), l.Data...)
	count := map[string]int{}
	for _, f := range all {
		count[lowerCamel(f.Name)]++
	}
	bases := map[*layout.Field]string{}
	seen := map[string]string{}
	for i, f := range all {
		b := lowerCamel(f.Name)
		if count[b] > 1 {
			b += strconv.Itoa(i + 1)
		}
		if other, dup := seen[b]; dup {
			return nil, fmt.Errorf("goemit: fields %s and %s both become the Go name %s; rename one", other, f.Name, b)
		}
		seen[b] = f.Name
		bases[f] = b
	}
	return bases, nil
}

// konst refers to a package-level constant, recording that the constant block needs it.
func (c *codec) konst(name string) *jen.Statement {
	c.used[name] = true
	return jen.Id(name)
}

// fc is the constant of field f with the given suffix: Min, Max, SecLo, SecHi, Weight, Radix,
// Off, End (and Names for an enum's names). No suffix is a suffix of another, and none ends
// like an Encode local (Sec, Ms, Us), so no two names clash.
func (c *codec) fc(f *layout.Field, suffix string) *jen.Statement {
	return c.konst(c.bases[f] + suffix)
}

func (c *codec) idMaxBytes() *jen.Statement { return c.konst(lowerCamel(c.l.IDName) + "MaxBytes") }

// enumLast is the constant of an enum field's highest value.
func enumLast(f *layout.Field) string { return layout.EnumConst(f, f.Values[len(f.Values)-1]) }

// enumUnderlying is the narrowest unsigned type holding every index of an enum.
func enumUnderlying(f *layout.Field) string {
	switch n := len(f.Values); {
	case n <= 1<<8:
		return "uint8"
	case n <= 1<<16:
		return "uint16"
	}
	return "uint32"
}

// goType is the Go type of a field.
func goType(f *layout.Field) jen.Code {
	if f.Season {
		return jen.Qual("time", "Duration")
	}
	if f.Kind == layout.Time {
		return jen.Qual("time", "Time")
	}
	return jen.Id(f.GoType)
}

// typeMax and typeMin are the bounds of an integer Go type, as keys would store them.
func typeMaxU(goType string) uint64 {
	switch goType {
	case "uint8":
		return math.MaxUint8
	case "uint16":
		return math.MaxUint16
	case "uint32":
		return math.MaxUint32
	}
	return math.MaxUint64
}

func typeBoundsI(goType string) (int64, int64) {
	switch goType {
	case "int8":
		return math.MinInt8, math.MaxInt8
	case "int16":
		return math.MinInt16, math.MaxInt16
	case "int32":
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// unitsPerSecond, the Time method that counts a unit, and a suffix naming it.
func unitInfo(u layout.Unit) (perSec int64, method, suffix, words string) {
	switch u {
	case layout.Milli:
		return 1000, "UnixMilli", "Ms", "milliseconds"
	case layout.Micro:
		return 1000000, "UnixMicro", "Us", "microseconds"
	}
	return 1, "Unix", "Sec", "seconds"
}

// timeLocal is the Encode local holding a time field's value in units.
func (c *codec) timeLocal(f *layout.Field) string {
	_, _, suffix, _ := unitInfo(f.Unit)
	return c.bases[f] + suffix
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// secBounds are the whole seconds a ms/µs time field's range spans, kept inside what
// layout.TimeUnits accepts, so that counting units of an accepted time cannot overflow.
func secBounds(f *layout.Field) (lo, hi int64) {
	k, _, _, _ := unitInfo(f.Unit)
	lo, hi = floorDiv(f.MinInt(), k), floorDiv(f.MaxInt(), k)
	lo = max(lo, math.MinInt64/k+1)
	hi = min(hi, math.MaxInt64/k-1)
	return lo, hi
}

// ---- literals ----

func unum(v uint64) *jen.Statement { return jen.Id(strconv.FormatUint(v, 10)) }
func inum(v int64) *jen.Statement  { return jen.Id(strconv.FormatInt(v, 10)) }

// pow2 writes a power of two of at least 2^8 as a shift, which is how a reviewer thinks of
// bit fields; other numbers in decimal.
func pow2(v uint64) *jen.Statement {
	if v >= 1<<8 && v&(v-1) == 0 {
		return jen.Id(fmt.Sprintf("1 << %d", bits.TrailingZeros64(v)))
	}
	return unum(v)
}
