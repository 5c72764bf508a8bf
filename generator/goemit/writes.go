package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// set emits Set and SetMany.
func (b *board) set(op catalog.Op) {
	b.comment("Set stores e, replacing the entry of its id if there is one, and returns what it did: the entry before it (Existed false: none), e as stored, and whether the stored entry changed (Changed false: the board held e already%s), read in the same script.", b.dataNote())
	b.writeOne(op)
	b.comment("SetMany stores many entries in one script call, atomically, and returns a Written per entry, in order; for an id given twice the last entry wins, and the second's Before is the first. It validates every entry first and writes nothing when one is invalid.")
	b.writeMany(op)
}

// dataNote is what Set compares beside the entry's fields on a layout with data.
func (b *board) dataNote() string {
	if b.l.HasData() {
		return ", its Data included"
	}
	return ""
}

// writeOne emits op.Methods[0](ctx, e), the single form of a write of whole entries.
func (b *board) writeOne(op catalog.Op) {
	recvDecl(b.f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("e").Id("Entry")).Params(jen.Id("Written"), jen.Error()).Block(
		jen.Return(rt("One").Call(jen.Id("b").Dot(op.Methods[1]).Call(jen.Id("ctx"), jen.Index().Id("Entry").Values(jen.Id("e"))))),
	)
	b.f.Line()
}

// writeMany emits op.Methods[1](ctx, entries), the batch form of a write of whole entries.
func (b *board) writeMany(op catalog.Op) {
	recvDecl(b.f).Id(op.Methods[1]).Params(ctxParam(), jen.Id("entries").Index().Id("Entry")).Params(jen.Index().Id("Written"), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("entries")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		b.encodeAll(op, jen.Nil()),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(run(op, jen.Id("args"))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("ps"), jen.Err()).Op(":=").Add(reader(op, jen.Id("v"), jen.Len(jen.Id("entries")))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("decoding").Dot("Written").Call(jen.Id("ps"), jen.Id("entries")), jen.Nil()),
	)
	b.f.Line()
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
	how := "comparing whole tuples (score, then the member's field prefix), never field by field"
	if !b.l.HasPrefix() {
		how = "comparing whole tuples (members are bare ids here, so the score alone orders them)"
	}
	b.comment("Best stores e unless the board's entry for its id ranks at least as high, %s, and returns what it did: Changed when it stored e, the entry before (Existed false: none) and after, read in the same script, so a new personal best and its exact gain need no second read. It runs the best script, as every write does, so the layout fingerprint is checked and the write applied exactly once.", how)
	b.writeOne(op)
	b.comment("BestMany applies Best to many entries in one script call, atomically and in order, and returns a Written per entry (an id given twice: the second's Before is what the first left). It validates every entry first and writes nothing when one is invalid.")
	b.writeMany(op)
}

// remove emits Remove.
func (b *board) remove(op catalog.Op) {
	f := b.f
	b.comment("Remove deletes the entries of the given ids and returns how many there were.")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.Return(jen.Id("decoding").Dot("Remove").Call(jen.Id("ctx"), jen.Id("b").Dot("core"), jen.Id(op.Function()), jen.Id("ids"))),
	)
	f.Line()
}

// trim emits Trim.
func (b *board) trim(op catalog.Op) {
	f := b.f
	b.comment("Trim keeps the first keep entries, removes all below them and returns how many it removed.")
	recvDecl(f).Id(op.Methods[0]).Params(ctxParam(), jen.Id("keep").Int64()).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Id("keep").Op("<").Lit(0)).Block(jen.Return(jen.Lit(0), rt("IntRangeError").Call(jen.Lit("keep"), jen.Id("keep"), jen.Lit(0), jen.Qual("math", "MaxInt64")))),
		jen.Return(reader(op, run(op, jen.Append(jen.Id("b").Dot("core").Dot("WriteArgs").Call(jen.Lit(1)), jen.Id("keep"))))),
	)
	f.Line()
}
