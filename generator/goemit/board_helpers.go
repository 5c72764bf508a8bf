package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// helpers emits the unexported functions the Board's methods share.
func (b *board) helpers() {
	if len(catalog.FieldUpdates(b.l)) > 0 {
		b.applyEach()
	}
	if b.l.Score != layout.ScoreInteger {
		b.scoreOfP()
	}
	for _, fd := range b.l.Fields {
		if b.needsDigit(fd) {
			b.digitOf(fd)
		}
	}
}

// scoreOfPFunc is the score of P as Encode computes it: the runtime's on a layout whose score is
// P itself, else the file's scoreOfP.
func (b *board) scoreOfPFunc() jen.Code {
	if b.l.Score == layout.ScoreInteger {
		return rt("IntegerScore")
	}
	return jen.Id("scoreOfP")
}

// scoreOfP emits scoreOfP, the score of P as Encode computes it.
func (b *board) scoreOfP() {
	b.f.Comment("scoreOfP is the score of the mixed-radix integer p, as Encode computes it.")
	body := jen.Float64().Call(jen.Id("p"))
	switch b.l.Score {
	case layout.ScoreDecimal:
		body = jen.Float64().Call(jen.Id("p")).Op("/").Add(b.c.konst("scoreScale"))
	case layout.ScoreBits62:
		body = jen.Qual("math", "Float64frombits").Call(jen.Id("p"))
	}
	b.f.Func().Id("scoreOfP").Params(jen.Id("p").Uint64()).Float64().Block(jen.Return(body))
	b.f.Line()
}

// needsDigit reports whether the board computes digits of fd's values: for a set, max or min
// update, or for the bands of the score fields.
func (b *board) needsDigit(fd *layout.Field) bool {
	if fd.Place == layout.InScore {
		return true
	}
	for _, op := range fd.Updates {
		if op != layout.OpAdd {
			return true
		}
	}
	return false
}

// digitCall says how the board turns a value of fd into its digit: through digitOf<Field>
// (fallible when the value can lie outside the range, which Encode's checker decides) or, for
// a field every value of whose type is in range, inline (a time needs its local, so it keeps
// a function). A score field's is always a fallible function: the band constructors pass it
// to the runtime's (rankgenrt.BandBetween, FixValue).
func (b *board) digitCall(fd *layout.Field) (fn, fallible bool) {
	switch {
	case fd.Place == layout.InScore, fd.Kind == layout.Time:
		return true, true
	case fd.Kind == layout.Bool:
		return true, false
	}
	fallible = len(b.c.check(fd, param, func(err jen.Code) jen.Code { return err })) > 0
	return fallible, fallible
}

// digitResults is what digitOf<Field> returns: the digit, and when fallible an error.
func (b *board) digitResults(fallible bool) *jen.Statement {
	if fallible {
		return jen.Params(jen.Uint64(), jen.Error())
	}
	return jen.Uint64()
}

// param is the value parameter of digitOf functions and the one its callers pass: v.
func param() *jen.Statement { return jen.Id("v") }

// digitStmts declares name as the digit of val, a value of fd; a value out of range runs
// fail(err).
func (b *board) digitStmts(fd *layout.Field, name string, val value, fail func(jen.Code) jen.Code) []jen.Code {
	fn, fallible := b.digitCall(fd)
	switch {
	case fallible:
		return []jen.Code{
			jen.List(jen.Id(name), jen.Err()).Op(":=").Id(digitFunc(fd)).Call(val()),
			errNil().Block(fail(jen.Err())),
		}
	case fn:
		return []jen.Code{jen.Id(name).Op(":=").Id(digitFunc(fd)).Call(val())}
	}
	return []jen.Code{jen.Id(name).Op(":=").Add(b.c.digit(fd, val))}
}

// digitOf emits digitOf<Field>(v): the stored digit of a value, checked by the codec's checker
// (an error is a *rankgenrt.RangeError); nothing for a field whose digit is computed inline.
func (b *board) digitOf(fd *layout.Field) {
	fn, fallible := b.digitCall(fd)
	if !fn {
		return
	}
	b.f.Comment(fmt.Sprintf("%s is the stored digit of a %s value (larger digit ranks first).", digitFunc(fd), fd.Name))
	decl := b.f.Func().Id(digitFunc(fd)).Params(jen.Id("v").Add(goType(fd)))
	if fd.Kind == layout.Bool {
		// A bool: true is digit 1 where it ranks first.
		one, zero := []jen.Code{jen.Lit(1)}, []jen.Code{jen.Lit(0)}
		if fd.Order == layout.Asc {
			one, zero = zero, one
		}
		if fallible {
			one, zero = append(one, jen.Nil()), append(zero, jen.Nil())
		}
		decl.Add(b.digitResults(fallible)).Block(jen.If(jen.Id("v")).Block(jen.Return(one...)), jen.Return(zero...))
		b.f.Line()
		return
	}
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), err) }
	body := append(b.c.check(fd, param, fail), jen.Return(b.c.digit(fd, param), jen.Nil()))
	decl.Add(b.digitResults(true)).Block(body...)
	b.f.Line()
}
