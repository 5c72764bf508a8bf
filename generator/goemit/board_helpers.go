package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// helpers emits the unexported functions the Board's methods share.
func (b *board) helpers() {
	b.argsHelpers()
	b.apply()
	b.written()
	if len(catalog.FieldUpdates(b.l)) > 0 {
		b.applyEach()
	}
	if len(catalog.FieldUpdates(b.l)) > 0 || len(catalog.Stamped(b.l)) > 0 {
		b.first() // the single field updates' and Touch's
	}
	b.checkIDFunc()
	b.scoreOfP()
	for _, fd := range b.l.Fields {
		if b.needsDigit(fd) {
			b.digitOf(fd)
		}
	}
}

// argsHelpers emits updateArgs, which starts a field update's arguments in the catalogue's
// order after the write's head (rankgenrt.Core.WriteArgs).
func (b *board) argsHelpers() {
	f, l := b.f, b.l
	expiry, ua := len(catalog.WriteArgs()), catalog.UpdateArgsOf(l)
	clientStamp := false
	for _, fd := range l.Fields {
		clientStamp = clientStamp || fd.Stamp == layout.StampClient
	}
	now := jen.Code(jen.Lit(""))
	doc := "updateArgs starts the arguments of a field update script: the write arguments, an unused clock, then room for n id, value pairs."
	if clientStamp {
		now = jen.Qual("time", "Now").Call().Dot("UnixMicro").Call()
		doc = "updateArgs starts the arguments of a field update script: the write arguments, the client's clock (Unix microseconds, for client stamps), then room for n id, value pairs."
	}
	start := jen.Id("b").Dot("core").Dot("WriteArgs").Call(jen.Lit(ua.Fixed() - expiry).Op("+").Lit(ua.Stride()).Op("*").Id("n"))
	rest := []jen.Code{start, now}
	if l.Season != nil {
		now, doc = b.seasonClock(clientStamp)
		rest = []jen.Code{start, now, jen.Id("b").Dot("from"), jen.Id("b").Dot("until")}
	}
	b.comment("%s", doc)
	recvDecl(f).Id("updateArgs").Params(jen.Id("n").Int()).Index().Any().Block(jen.Return(jen.Append(rest...)))
	f.Line()
}

// apply emits Board.apply, which runs a field update script and reads its reply.
func (b *board) apply() {
	l := b.l
	doc := "apply runs a field update script for the updates at positions sent and fills in res."
	read, member, prior := catalog.ReplyItems.Reader(), jen.Code(jen.Id("it").Dot("Member")), jen.Code(jen.Id("it").Dot("PriorMember"))
	var memberNote jen.Code = jen.Null()
	params := []jen.Code{ctxParam(), jen.Id("s").Op("*").Add(rt("Function")), jen.Id("args").Index().Any(), jen.Id("res").Index().Id("Result"), jen.Id("sent").Index().Int()}
	if !l.HasPrefix() {
		doc = "apply runs a field update script for the updates at positions sent, of ids, and fills in res."
		read = catalog.ReplyBareItems.Reader()
		params = append(params, jen.Id("ids").Index().Add(b.idType()))
		memberNote = jen.Comment("The reply holds P alone: the member is the id sent.").Line().Id("member").Op(":=").Add(b.idText(jen.Id("ids").Index(jen.Id("j"))))
		member, prior = jen.Id("member"), jen.Id("member")
	}
	b.comment("%s", doc)
	recvDecl(b.f).Id("apply").Params(params...).Error().Block(
		jen.If(jen.Len(jen.Id("sent")).Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("b").Dot("core").Dot("Write").Call(jen.Id("ctx"), jen.Id("s"), jen.Id("args")),
		errNil().Block(jen.Return(jen.Err())),
		jen.List(jen.Id("items"), jen.Err()).Op(":=").Add(rt(read)).Call(jen.Id("v"), jen.Len(jen.Id("sent"))),
		errNil().Block(jen.Return(jen.Err())),
		jen.For(jen.List(jen.Id("j"), jen.Id("it")).Op(":=").Range().Id("items")).Block(
			jen.Id("r").Op(":=").Op("&").Id("res").Index(jen.Id("sent").Index(jen.Id("j"))),
			jen.If(jen.Id("it").Dot("Err").Op("!=").Nil()).Block(jen.Id("r").Dot("Err").Op("=").Add(b.itemErr()), jen.Continue()),
			memberNote,
			jen.List(jen.Id("r").Dot("Written"), jen.Id("r").Dot("Err")).Op("=").Id("updated").Call(jen.Id("it"), member, prior),
		),
		jen.Return(jen.Nil()),
	)
	b.f.Line()
	b.comment("updated is what a field update or change list did to one entry, from its script's reply item: the new entry (member: its member) and the one before (prior: its member), decoded as Get decodes them.")
	p := func(name string) jen.Code { return jen.Id("scoreOfP").Call(jen.Id("it").Dot(name)) }
	b.f.Func().Id("updated").Params(jen.Id("it").Add(rt("Item")), jen.List(jen.Id("member"), jen.Id("prior")).String()).Params(jen.Id("w").Id("Written"), jen.Err().Error()).Block(
		jen.If(jen.List(jen.Id("w").Dot("Entry"), jen.Err()).Op("=").Id("Decode").Call(p("P"), jen.Id("member")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("w"), jen.Err())),
		jen.If(jen.Id("it").Dot("Existed")).Block(
			jen.If(jen.List(jen.Id("w").Dot("Before"), jen.Err()).Op("=").Id("Decode").Call(p("PriorP"), jen.Id("prior")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("w"), jen.Err()))),
		jen.List(jen.Id("w").Dot("Existed"), jen.Id("w").Dot("Changed")).Op("=").List(jen.Id("it").Dot("Existed"), jen.Id("it").Dot("Changed").Call()),
		jen.Return(jen.Id("w"), jen.Nil()),
	)
	b.f.Line()
}

// windowRead is "decoding.Window(call)": call runs a read script whose reply is a window of
// entries, which decoding decodes.
func windowRead(call jen.Code) *jen.Statement {
	return jen.Id("decoding").Dot("Window").Call(call)
}

// checkIDFunc emits checkID for string ids (every uint64 is a valid id).
func (b *board) checkIDFunc() {
	l := b.l
	if l.IDType != layout.IDString {
		return
	}
	b.f.Comment("checkID refuses ids that no entry can have.")
	b.f.Func().Id("checkID").Params(jen.Id("id").String()).Error().Block(
		jen.If(jen.Id("n").Op(":=").Len(jen.Id("id")), jen.Id("n").Op("==").Lit(0).Op("||").Id("n").Op(">").Add(b.c.idMaxBytes())).Block(
			jen.Return(rt("IDLengthError").Call(jen.Lit(l.IDName), jen.Id("n"), b.c.idMaxBytes()))),
		jen.Return(jen.Nil()),
	)
	b.f.Line()
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
// a function).
func (b *board) digitCall(fd *layout.Field) (fn, fallible bool) {
	switch fd.Kind {
	case layout.Bool:
		return true, false
	case layout.Time:
		return true, true
	}
	fallible = len(b.c.check(fd, param, func(err jen.Code) jen.Code { return err })) > 0
	return fallible, fallible
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
	if !fallible {
		// A bool: true is digit 1 where it ranks first.
		one, zero := jen.Lit(1), jen.Lit(0)
		if fd.Order == layout.Asc {
			one, zero = jen.Lit(0), jen.Lit(1)
		}
		decl.Uint64().Block(jen.If(jen.Id("v")).Block(jen.Return(one)), jen.Return(zero))
		b.f.Line()
		return
	}
	fail := func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), err) }
	body := append(b.c.check(fd, param, fail), jen.Return(b.c.digit(fd, param), jen.Nil()))
	decl.Params(jen.Uint64(), jen.Error()).Block(body...)
	b.f.Line()
}
