package goemit

import (
	"fmt"
	"math"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

func (b *board) helpers() {
	f, l := b.f, b.l
	f.Comment("args starts the arguments of a write script: the expiry, then room for n more.")
	recvDecl(f).Id("args").Params(jen.Id("n").Int()).Index().Any().Block(
		jen.List(jen.Id("mode"), jen.Id("ms")).Op(":=").Id("b").Dot("exp").Dot("Args").Call(),
		jen.Return(jen.Append(jen.Make(jen.Index().Any(), jen.Lit(0), jen.Lit(len(catalog.ExpiryArgs())).Op("+").Id("n")), jen.Id("mode"), jen.Id("ms"))),
	)
	f.Line()
	clientStamp := false
	for _, fd := range l.Fields {
		if fd.Stamp == layout.StampClient {
			clientStamp = true
		}
	}
	now := jen.Code(jen.Lit(""))
	doc := "updateArgs starts the arguments of a field update script: the expiry, an unused clock, then room for n id, value pairs."
	if clientStamp {
		now = jen.Qual("time", "Now").Call().Dot("UnixMicro").Call()
		doc = "updateArgs starts the arguments of a field update script: the expiry, the client's clock (Unix microseconds, for client stamps), then room for n id, value pairs."
	}
	b.comment("%s", doc)
	ua := catalog.UpdateArgs()
	recvDecl(f).Id("updateArgs").Params(jen.Id("n").Int()).Index().Any().Block(
		jen.Id("args").Op(":=").Id("b").Dot("args").Call(jen.Lit(ua.Fixed()-len(catalog.ExpiryArgs())).Op("+").Lit(ua.Stride()).Op("*").Id("n")),
		jen.Return(jen.Append(jen.Id("args"), now)),
	)
	f.Line()
	doc = "apply runs a field update script for the updates at positions sent and fills in res."
	read, member := catalog.ReplyItems.Reader(), jen.Code(jen.Id("it").Dot("Member"))
	var memberNote jen.Code = jen.Null()
	if !l.HasPrefix() {
		id, _ := ua.Index(catalog.ArgID)
		doc = fmt.Sprintf("apply runs a field update script for the updates at positions sent, whose ids are args[%d+%dj], and\nfills in res.", id, ua.Stride())
		read = catalog.ReplyBareItems.Reader()
		member = b.idText(jen.Id("args").Index(jen.Lit(id).Op("+").Lit(ua.Stride()).Op("*").Id("j")).Assert(b.idType()))
		memberNote = jen.Comment("The reply holds P alone: the member is the id sent.")
	}
	b.comment("%s", doc)
	recvDecl(f).Id("apply").Params(ctxParam(), jen.Id("s").Op("*").Add(rd("Script")), jen.Id("args").Index().Any(), jen.Id("res").Index().Id("Result"), jen.Id("sent").Index().Int()).Error().Block(
		jen.If(jen.Len(jen.Id("sent")).Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(rt("Run")).Call(jen.Id("ctx"), jen.Id("b").Dot("c"), jen.Id("s"), jen.Id("b").Dot("keys"), jen.Id("args").Op("...")),
		errNil().Block(jen.Return(jen.Err())),
		jen.List(jen.Id("items"), jen.Err()).Op(":=").Add(rt(read)).Call(jen.Id("v"), jen.Len(jen.Id("sent"))),
		errNil().Block(jen.Return(jen.Err())),
		jen.For(jen.List(jen.Id("j"), jen.Id("it")).Op(":=").Range().Id("items")).Block(
			jen.Id("r").Op(":=").Op("&").Id("res").Index(jen.Id("sent").Index(jen.Id("j"))),
			jen.If(jen.Id("it").Dot("Err").Op("!=").Nil()).Block(jen.Id("r").Dot("Err").Op("=").Id("it").Dot("Err"), jen.Continue()),
			memberNote,
			jen.List(jen.Id("r").Dot("Entry"), jen.Id("r").Dot("Err")).Op("=").Id("Decode").Call(jen.Id("scoreOfP").Call(jen.Id("it").Dot("P")), member),
		),
		jen.Return(jen.Nil()),
	)
	f.Line()
	f.Comment("rankedPairs decodes range replies; start is the 0-based position of the first.")
	f.Func().Id("rankedPairs").Params(jen.Id("start").Int64(), jen.Id("ps").Index().Add(rt("Pair"))).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Id("out").Op(":=").Make(jen.Index().Id("Ranked"), jen.Len(jen.Id("ps"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("p")).Op(":=").Range().Id("ps")).Block(
			jen.List(jen.Id("e"), jen.Err()).Op(":=").Id("Decode").Call(jen.Id("p").Dot("Score"), jen.Id("p").Dot("Member")),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("out").Index(jen.Id("i")).Op("=").Id("Ranked").Values(jen.Dict{jen.Id("Rank"): jen.Id("start").Op("+").Int64().Call(jen.Id("i")).Op("+").Lit(1), jen.Id("Entry"): jen.Id("e")}),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	f.Line()
	if l.IDType == layout.IDString {
		f.Comment("checkID refuses ids that no entry can have.")
		f.Func().Id("checkID").Params(jen.Id("id").String()).Error().Block(
			jen.If(jen.Id("n").Op(":=").Len(jen.Id("id")), jen.Id("n").Op("==").Lit(0).Op("||").Id("n").Op(">").Lit(l.MaxBytes)).Block(
				jen.Return(rt("IDLengthError").Call(jen.Lit(l.IDName), jen.Id("n"), jen.Lit(l.MaxBytes)))),
			jen.Return(jen.Nil()),
		)
		f.Line()
	}
	{
		f.Comment("scoreOfP is the score of the mixed-radix integer p, as Encode computes it.")
		body := jen.Float64().Call(jen.Id("p"))
		if l.Score == layout.ScoreDecimal {
			body = jen.Float64().Call(jen.Id("p")).Op("/").Lit(l.Pow10())
		}
		f.Func().Id("scoreOfP").Params(jen.Id("p").Uint64()).Float64().Block(jen.Return(body))
		f.Line()
	}
	// digitOf<Field> for every field a setter or Range needs.
	need := map[*layout.Field]bool{}
	if l.NumScore > 0 {
		need[l.Fields[0]] = true
	}
	for _, fd := range l.Fields {
		for _, op := range fd.Updates {
			if op != layout.OpAdd {
				need[fd] = true
			}
		}
	}
	for _, fd := range l.Fields {
		if need[fd] {
			b.digitOf(fd)
		}
	}
}

// digitOf emits func digitOf<Field>(v T) (uint64, error): the stored digit of a value, or a
// *rankgenrt.RangeError.
func (b *board) digitOf(fd *layout.Field) {
	f := b.f
	desc := fd.Order == layout.Desc
	fromKey := func() jen.Code {
		if desc {
			if fd.Lo == 0 {
				return jen.Return(jen.Id("key"), jen.Nil())
			}
			return jen.Return(jen.Id("key").Op("-").Add(unum(fd.Lo)), jen.Nil())
		}
		return jen.Return(unum(fd.Hi).Op("-").Id("key"), jen.Nil())
	}
	var body []jen.Code
	switch fd.Kind {
	case layout.Uint:
		body = append(body, jen.Id("key").Op(":=").Uint64().Call(jen.Id("v")))
		var conds []string
		if fd.Lo > 0 {
			conds = append(conds, fmt.Sprintf("key < %d", fd.Lo))
		}
		if fd.Hi < typeMaxU(fd.GoType) {
			conds = append(conds, fmt.Sprintf("key > %d", fd.Hi))
		}
		if len(conds) > 0 {
			body = append(body, jen.If(jen.Id(strings.Join(conds, " || "))).Block(
				jen.Return(jen.Lit(0), rt("UintRangeError").Call(jen.Lit(fd.Name), jen.Id("key"), unum(fd.Lo), unum(fd.Hi)))))
		}
		body = append(body, fromKey())
	case layout.Int:
		tmin, tmax := typeBoundsI(fd.GoType)
		body = append(body, jen.Id("x").Op(":=").Int64().Call(jen.Id("v")))
		var conds []string
		if fd.MinInt() > tmin {
			conds = append(conds, fmt.Sprintf("x < %d", fd.MinInt()))
		}
		if fd.MaxInt() < tmax {
			conds = append(conds, fmt.Sprintf("x > %d", fd.MaxInt()))
		}
		if len(conds) > 0 {
			body = append(body, jen.If(jen.Id(strings.Join(conds, " || "))).Block(
				jen.Return(jen.Lit(0), rt("IntRangeError").Call(jen.Lit(fd.Name), jen.Id("x"), inum(fd.MinInt()), inum(fd.MaxInt())))))
		}
		body = append(body, jen.Id("key").Op(":=").Uint64().Call(jen.Id("x")).Op("^").Id("1 << 63"), fromKey())
	case layout.Bool:
		one, zero := jen.Lit(1), jen.Lit(0)
		if !desc {
			one, zero = jen.Lit(0), jen.Lit(1)
		}
		body = append(body, jen.If(jen.Id("v")).Block(jen.Return(one, jen.Nil())), jen.Return(zero, jen.Nil()))
	case layout.Enum:
		if uint64(len(fd.Values)-1) < typeMaxU(enumUnderlying(fd)) {
			body = append(body, jen.If(jen.Id("v").Op(">").Id(enumLast(fd))).Block(
				jen.Return(jen.Lit(0), rangeError(fd.Name, jen.Id("v").Dot("String").Call(), fd.Values[0], fd.Values[len(fd.Values)-1]))))
		}
		if desc {
			body = append(body, jen.Return(jen.Uint64().Call(jen.Id("v")), jen.Nil()))
		} else {
			body = append(body, jen.Return(jen.Uint64().Call(jen.Id(enumLast(fd)).Op("-").Id("v")), jen.Nil()))
		}
	case layout.Time:
		_, method, _, _ := unitInfo(fd.Unit)
		fail := jen.Return(jen.Lit(0), rt("TimeRangeError").Call(jen.Lit(fd.Name), jen.Id("v"), jen.Lit(fd.Format(fd.Lo)), jen.Lit(fd.Format(fd.Hi))))
		if fd.Unit != layout.Second {
			lo, hi := secBounds(fd)
			body = append(body,
				jen.Comment(method+" wraps around far outside the range, so whole seconds are checked first."),
				jen.If(jen.Id("sec").Op(":=").Id("v").Dot("Unix").Call(), jen.Id(fmt.Sprintf("sec < %d || sec > %d", lo, hi))).Block(fail))
		}
		var conds []string
		if fd.MinInt() > math.MinInt64 {
			conds = append(conds, fmt.Sprintf("n < %d", fd.MinInt()))
		}
		if fd.MaxInt() < math.MaxInt64 {
			conds = append(conds, fmt.Sprintf("n > %d", fd.MaxInt()))
		}
		body = append(body, jen.Id("n").Op(":=").Id("v").Dot(method).Call())
		if len(conds) > 0 {
			body = append(body, jen.If(jen.Id(strings.Join(conds, " || "))).Block(fail))
		}
		body = append(body, jen.Id("key").Op(":=").Uint64().Call(jen.Id("n")).Op("^").Id("1 << 63"), fromKey())
	}
	f.Comment(fmt.Sprintf("%s is the stored digit of a %s value (larger digit ranks first).", digitFunc(fd), fd.Name))
	f.Func().Id(digitFunc(fd)).Params(jen.Id("v").Add(goType(fd))).Params(jen.Uint64(), jen.Error()).Block(body...)
	f.Line()
}
