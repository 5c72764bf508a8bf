package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// set emits Set and SetMany.
func (b *board) set(op catalog.Op) {
	f := b.f
	b.comment("Set stores e, replacing the entry of its id if there is one.")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("e").Id("Entry")).Error().Block(
		jen.Return(jen.Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Index().Id("Entry").Values(jen.Id("e")))))
	f.Line()
	b.comment("SetMany stores many entries in one script call, atomically; for an id given twice the last\nentry wins. It validates every entry first and writes nothing when one is invalid.")
	recvDecl(f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("entries").Index().Id("Entry")).Error().Block(
		jen.If(jen.Len(jen.Id("entries")).Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		b.encodeAll(op),
		jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(run(op, jen.Id("args"))),
		jen.Return(jen.Err()),
	)
	f.Line()
}

// encodeAll declares args, the arguments of a script that takes (score, member) pairs, from
// entries; an invalid entry returns ret..., err.
func (b *board) encodeAll(op catalog.Op, ret ...jen.Code) jen.Code {
	return b.entryArgs(op, jen.Lit(op.Args.Stride()).Op("*").Len(jen.Id("entries"))).Line().
		For(jen.List(jen.Id("_"), jen.Id("e")).Op(":=").Range().Id("entries")).Block(
		b.seasonCheck(jen.Id("e"), ret...),
		jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(),
		errNil().Block(jen.Return(append(ret, jen.Err())...)),
		b.encodeData(ret...),
		jen.Id("args").Op("=").Append(append([]jen.Code{jen.Id("args"), rt("FormatScore").Call(jen.Id("score")), jen.Id("member")}, b.dataArg()...)...),
	)
}

// best emits Best and BestMany.
func (b *board) best(op catalog.Op) {
	f := b.f
	how := "comparing whole tuples (score, then the member's field prefix), never field by field"
	if !b.l.HasPrefix() {
		how = "comparing whole tuples (members are bare ids here, so the score alone orders them)"
	}
	b.comment("Best stores e unless the board's entry for its id ranks at least as high, %s; it reports whether e was stored. It runs the best script, as every write does, so the layout fingerprint is checked and the write applied exactly once.", how)
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("e").Id("Entry")).Params(jen.Bool(), jen.Error()).Block(
		jen.List(jen.Id("kept"), jen.Err()).Op(":=").Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Index().Id("Entry").Values(jen.Id("e"))),
		errNil().Block(jen.Return(jen.False(), jen.Err())),
		jen.Return(jen.Id("kept").Index(jen.Lit(0)), jen.Nil()),
	)
	f.Line()
	b.comment("BestMany applies Best to many entries in one script call, atomically and in order, and\nreports for each whether it was stored. It validates every entry first and writes nothing\nwhen one is invalid.")
	recvDecl(f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("entries").Index().Id("Entry")).Params(jen.Index().Bool(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("entries")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		b.encodeAll(op, jen.Nil()),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(run(op, jen.Id("args"))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(reader(op, jen.Id("v"), jen.Len(jen.Id("entries")))),
	)
	f.Line()
}

// remove emits Remove.
func (b *board) remove(op catalog.Op) {
	f := b.f
	b.comment("Remove deletes the entries of the given ids and returns how many there were.")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("ids")).Op("==").Lit(0)).Block(jen.Return(jen.Lit(0), jen.Nil())),
		jen.Id("args").Op(":=").Id("b").Dot("args").Call(jen.Len(jen.Id("ids"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("id")).Op(":=").Range().Id("ids")).Block(
			b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), err) }),
			jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("id")),
		),
		jen.Return(reader(op, run(op, jen.Id("args")))),
	)
	f.Line()
}

// trim emits Trim.
func (b *board) trim(op catalog.Op) {
	f := b.f
	b.comment("Trim keeps the first keep entries, removes all below them and returns how many it removed.")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("keep").Int64()).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Id("keep").Op("<").Lit(0)).Block(jen.Return(jen.Lit(0), rt("IntRangeError").Call(jen.Lit("keep"), jen.Id("keep"), jen.Lit(0), jen.Qual("math", "MaxInt64")))),
		jen.Return(reader(op, run(op, jen.Append(jen.Id("b").Dot("args").Call(jen.Lit(1)), jen.Id("keep"))))),
	)
	f.Line()
}
