package goemit

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
)

// emitBoard adds the Redis board (type Board over redis.UniversalClient) to the file: the
// scripts (embedded from the .lua files generator/luaemit writes beside the Go file), the
// Board type with its options, writes (Set, Best, field updates and their batch forms,
// Remove, Trim) and reads (Get, Rank, Top, Page, Around, After, Count, the range of the
// leading field, CompetitionRank). Every method is one round trip.
func emitBoard(f *jen.File, l *layout.Layout) {
	b := &board{l: l, f: f}
	b.scripts()
	b.types()
	b.writes()
	for _, fd := range l.Fields {
		for _, op := range fd.Updates {
			b.update(fd, op)
		}
	}
	b.reads()
	b.reindex()
	b.helpers()
}

type board struct {
	l *layout.Layout
	f *jen.File
}

func rt(name string) *jen.Statement { return jen.Qual(runtimePath, name) }
func rd(name string) *jen.Statement { return jen.Qual(redisPath, name) }
func ctxParam() jen.Code            { return jen.Id("ctx").Qual("context", "Context") }
func errNil() *jen.Statement        { return jen.If(jen.Err().Op("!=").Nil()) }

// comment writes doc text as // lines (one jennifer comment per paragraph line).
func (b *board) comment(format string, args ...any) {
	b.f.Comment(lineComment(wrap(fmt.Sprintf(format, args...))))
}

func (b *board) idType() jen.Code {
	if b.l.IDType == layout.IDUint64 {
		return jen.Uint64()
	}
	return jen.String()
}

// idText is the id as the member's text.
func (b *board) idText(id jen.Code) jen.Code {
	if b.l.IDType == layout.IDUint64 {
		return jen.Qual("strconv", "FormatUint").Call(id, jen.Lit(10))
	}
	return id
}

// checkID validates a string id (uint64 ids are always valid) and runs fail(err) on error.
func (b *board) checkID(id jen.Code, fail func(jen.Code) jen.Code) jen.Code {
	return b.checkIDThen(id, func(err jen.Code) []jen.Code { return []jen.Code{fail(err)} })
}

// checkIDThen is checkID with several statements on failure.
func (b *board) checkIDThen(id jen.Code, fail func(jen.Code) []jen.Code) jen.Code {
	if b.l.IDType == layout.IDUint64 {
		return jen.Null()
	}
	return jen.If(jen.Err().Op(":=").Id("checkID").Call(id), jen.Err().Op("!=").Nil()).Block(fail(jen.Err())...)
}

// camel turns a script op ("add_points") into an identifier suffix ("AddPoints").
func camel(op string) string {
	var sb strings.Builder
	for _, part := range strings.Split(op, "_") {
		if part == "" {
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		sb.WriteString(string(r))
	}
	return sb.String()
}

func scriptVar(op string) string { return "script" + camel(op) }

func (b *board) ops() []string {
	l := b.l
	ops := []string{luaemit.OpSet, luaemit.OpBest, luaemit.OpRemove, luaemit.OpTrim}
	for _, f := range l.Fields {
		for _, op := range f.Updates {
			ops = append(ops, luaemit.UpdateOp(op, f), luaemit.UpdateOp(op, f)+luaemit.ManySuffix)
		}
	}
	if l.HasPrefix() {
		ops = append(ops, luaemit.OpGet, luaemit.OpRank)
	}
	ops = append(ops, luaemit.OpAround, luaemit.OpAfter)
	if l.NumScore > 0 {
		ops = append(ops, luaemit.OpCompetition)
	}
	return ops
}

func (b *board) scripts() {
	f, l := b.f, b.l
	f.Anon("embed")
	f.Line()
	b.comment("The board's Lua scripts, generated beside this file from the same layout. go-redis runs\neach by the SHA-1 of its text (EVALSHA, with EVAL when the server lacks it).")
	var vars []jen.Code
	for _, op := range b.ops() {
		f.Comment("//go:embed " + l.LuaFile(op))
		f.Var().Id("lua" + camel(op)).String()
		f.Line()
		vars = append(vars, jen.Id(scriptVar(op)).Op("=").Qual(redisPath, "NewScript").Call(jen.Id("lua"+camel(op))))
	}
	f.Var().Defs(vars...)
	f.Line()
	var all []jen.Code
	for _, op := range b.ops() {
		all = append(all, jen.Id(scriptVar(op)))
	}
	b.comment("Scripts returns the board's scripts, in a fixed order. Board.Load caches them all; they are exported for running a board's scripts in your own pipelines or transactions (after Load), where go-redis cannot fall back from EVALSHA to EVAL.")
	f.Func().Id("Scripts").Params().Index().Op("*").Qual(redisPath, "Script").Block(
		jen.Return(jen.Index().Op("*").Qual(redisPath, "Script").Values(all...)))
	f.Line()
}

func (b *board) types() {
	f, l := b.f, b.l
	side, adopt := "meta key (the layout fingerprint)", ""
	if l.HasPrefix() {
		side = "index (a hash id → member, which also records the layout fingerprint)"
		adopt = " Entries written by other code, without an index, are refused (ErrNotIndexed) until Reindex adopts them."
	}
	b.comment("%s", wrap(fmt.Sprintf(`Board is a leaderboard of Entry values in a Redis sorted set, read best first. Its key is
given to NewBoard; its %s is a second key in the same hash slot, so the board works on
Redis Cluster. Every write is one atomic script that refuses a board written by another
layout (ErrLayoutMismatch) and leaves the board unchanged on any error.%s Reads refuse another
layout's board too, within their one round trip. A Board is safe for concurrent use; create it
once per key and reuse it.`, side, adopt)))
	fields := []jen.Code{
		jen.Id("c").Qual(redisPath, "UniversalClient"),
		jen.Id("keys").Index().String().Comment("the sorted set, then its " + map[bool]string{true: "index", false: "meta key"}[l.HasPrefix()]),
		jen.Id("exp").Add(rt("Expiry")),
	}
	verified := "the index records Fingerprint: reads need not check it"
	if !l.HasPrefix() {
		verified = "the meta key records Fingerprint: reads need not check it, Best may use a plain ZADD GT"
	}
	fields = append(fields, jen.Id("verified").Qual("sync/atomic", "Bool").Comment(verified))
	f.Type().Id("Board").Struct(fields...)
	f.Line()

	f.Comment("Option configures a Board.")
	f.Type().Id("Option").Func().Params(jen.Op("*").Id("Board"))
	f.Line()
	b.comment("WithTTL makes the board's keys expire d after every write. The expiry is set by the write's\nown script, on all of the board's keys, so it is never lost.")
	f.Func().Id("WithTTL").Params(jen.Id("d").Qual("time", "Duration")).Id("Option").Block(
		jen.Return(jen.Func().Params(jen.Id("b").Op("*").Id("Board")).Block(jen.Id("b").Dot("exp").Op("=").Add(rt("TTL")).Call(jen.Id("d")))))
	f.Line()
	b.comment("WithExpireAt makes the board's keys expire at t (to the millisecond), set by every write's\nown script on all of the board's keys.")
	f.Func().Id("WithExpireAt").Params(jen.Id("t").Qual("time", "Time")).Id("Option").Block(
		jen.Return(jen.Func().Params(jen.Id("b").Op("*").Id("Board")).Block(jen.Id("b").Dot("exp").Op("=").Add(rt("ExpireAt")).Call(jen.Id("t")))))
	f.Line()

	sideKey := "MetaKey"
	if l.HasPrefix() {
		sideKey = "IndexKey"
	}
	f.Comment("NewBoard returns the board stored under key.")
	f.Func().Id("NewBoard").Params(jen.Id("c").Qual(redisPath, "UniversalClient"), jen.Id("key").String(), jen.Id("opts").Op("...").Id("Option")).Op("*").Id("Board").Block(
		jen.Id("b").Op(":=").Op("&").Id("Board").Values(jen.Dict{
			jen.Id("c"):    jen.Id("c"),
			jen.Id("keys"): jen.Index().String().Values(jen.Id("key"), rt(sideKey).Call(jen.Id("key"))),
		}),
		jen.For(jen.List(jen.Id("_"), jen.Id("o")).Op(":=").Range().Id("opts")).Block(jen.Id("o").Call(jen.Id("b"))),
		jen.Return(jen.Id("b")),
	)
	f.Line()
	f.Comment("Key returns the board's key.")
	recvDecl(f).Id("Key").Params().String().Block(jen.Return(jen.Id("b").Dot("keys").Index(jen.Lit(0))))
	f.Line()
	b.comment("Keys returns every key the board uses: the sorted set, then its %s.", map[bool]string{true: "index", false: "meta key"}[l.HasPrefix()])
	recvDecl(f).Id("Keys").Params().Index().String().Block(jen.Return(jen.Append(jen.Index().String().Values(), jen.Id("b").Dot("keys").Op("..."))))
	f.Line()
	b.comment("Load caches the board's scripts on the server (on every master of a Cluster). Scripts run\noutside a pipeline reload themselves; call Load before running them in a pipeline, where a\nserver that lacks a script (after a restart or SCRIPT FLUSH) answers NOSCRIPT.")
	recvDecl(f).Id("Load").Params(ctxParam()).Error().Block(
		jen.Return(rt("Load").Call(jen.Id("ctx"), jen.Id("b").Dot("c"), jen.Id("Scripts").Call().Op("..."))))
	f.Line()

	f.Comment("Ranked is an entry with its 1-based rank on the board.")
	f.Type().Id("Ranked").Struct(jen.Id("Rank").Int64(), jen.Id("Entry"))
	f.Line()
	b.comment("Cursor marks a place in the board for After: the score and member of the last entry seen.\nThe zero Cursor is the top of the board.")
	f.Type().Id("Cursor").Struct(jen.Id("Score").Float64(), jen.Id("Member").String())
	f.Line()
	f.Comment("Update is one update of a batch: the id, and the delta or value.")
	f.Type().Id("Update").Types(jen.Id("V").Any()).Struct(jen.Id(l.IDName).Add(b.idType()), jen.Id("Value").Id("V"))
	f.Line()
	f.Comment("Result is the outcome of one update of a batch: the new entry, or the error that left it unchanged.")
	f.Type().Id("Result").Struct(jen.Id("Entry").Id("Entry"), jen.Id("Err").Error())
	f.Line()
}

func recvDecl(f *jen.File) *jen.Statement {
	return f.Func().Params(jen.Id("b").Op("*").Id("Board"))
}

// run calls a write script: rankgenrt.Run(ctx, b.c, script, b.keys, args...).
func run(op string, args jen.Code) *jen.Statement {
	return rt("Run").Call(jen.Id("ctx"), jen.Id("b").Dot("c"), jen.Id(scriptVar(op)), jen.Id("b").Dot("keys"), args)
}

func runRO(op string, args ...jen.Code) *jen.Statement {
	return rt("RunRO").Call(append([]jen.Code{jen.Id("ctx"), jen.Id("b").Dot("c"), jen.Id(scriptVar(op)), jen.Id("b").Dot("keys")}, args...)...)
}

func (b *board) writes() {
	f, l := b.f, b.l
	b.comment("Set stores e, replacing the entry of its id if there is one.")
	recvDecl(f).Id("Set").Params(ctxParam(), jen.Id("e").Id("Entry")).Error().Block(
		jen.Return(jen.Id("b").Dot("SetMany").Call(jen.Id("ctx"), jen.Index().Id("Entry").Values(jen.Id("e")))))
	f.Line()
	b.comment("SetMany stores many entries in one script call, atomically; for an id given twice the last\nentry wins. It validates every entry first and writes nothing when one is invalid.")
	recvDecl(f).Id("SetMany").Params(ctxParam(), jen.Id("entries").Index().Id("Entry")).Error().Block(
		jen.If(jen.Len(jen.Id("entries")).Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.Id("args").Op(":=").Id("b").Dot("args").Call(jen.Lit(2).Op("*").Len(jen.Id("entries"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("e")).Op(":=").Range().Id("entries")).Block(
			jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(),
			errNil().Block(jen.Return(jen.Err())),
			jen.Id("args").Op("=").Append(jen.Id("args"), rt("FormatScore").Call(jen.Id("score")), jen.Id("member")),
		),
		jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(run(luaemit.OpSet, jen.Id("args").Op("..."))),
		jen.Return(jen.Err()),
	)
	f.Line()

	// Best.
	encode := []jen.Code{
		jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(),
		errNil().Block(jen.Return(jen.False(), jen.Err())),
	}
	if !l.HasPrefix() {
		b.comment(`Best stores e unless the board's entry for its id ranks at least as high; it reports whether
e was stored. Whole tuples are compared: members are bare ids here, so the score alone
orders them and a plain ZADD GT does the work — once this Board has seen the board record its
fingerprint. Until then, and when the board expires, Best runs the script, which checks the
fingerprint and records it with its write: one round trip either way.`)
		fast := append([]jen.Code{}, encode...)
		fast = append(fast,
			jen.List(jen.Id("n"), jen.Err()).Op(":=").Id("b").Dot("c").Dot("ZAddArgs").Call(jen.Id("ctx"), jen.Id("b").Dot("keys").Index(jen.Lit(0)), rd("ZAddArgs").Values(jen.Dict{
				jen.Id("GT"):      jen.True(),
				jen.Id("Ch"):      jen.True(),
				jen.Id("Members"): jen.Index().Add(rd("Z")).Values(jen.Values(jen.Dict{jen.Id("Score"): jen.Id("score"), jen.Id("Member"): jen.Id("member")})),
			})).Dot("Result").Call(),
			jen.Return(jen.Id("n").Op("==").Lit(1), jen.Err()),
		)
		recvDecl(f).Id("Best").Params(ctxParam(), jen.Id("e").Id("Entry")).Params(jen.Bool(), jen.Error()).Block(
			jen.If(jen.Op("!").Id("b").Dot("exp").Dot("IsZero").Call().Op("||").Op("!").Id("b").Dot("verified").Dot("Load").Call()).Block(
				jen.List(jen.Id("kept"), jen.Err()).Op(":=").Id("b").Dot("BestMany").Call(jen.Id("ctx"), jen.Index().Id("Entry").Values(jen.Id("e"))),
				errNil().Block(jen.Return(jen.False(), jen.Err())),
				jen.If(jen.Id("kept").Index(jen.Lit(0))).Block(
					jen.Id("b").Dot("verified").Dot("Store").Call(jen.True()).Comment("the script wrote, so the board records Fingerprint"),
				),
				jen.Return(jen.Id("kept").Index(jen.Lit(0)), jen.Nil()),
			),
			jen.Block(fast...),
		)
	} else {
		b.comment(`Best stores e unless the board's entry for its id ranks at least as high, comparing whole
tuples (score, then the member's field prefix), never field by field; it reports whether e
was stored.`)
		recvDecl(f).Id("Best").Params(ctxParam(), jen.Id("e").Id("Entry")).Params(jen.Bool(), jen.Error()).Block(
			jen.List(jen.Id("kept"), jen.Err()).Op(":=").Id("b").Dot("BestMany").Call(jen.Id("ctx"), jen.Index().Id("Entry").Values(jen.Id("e"))),
			errNil().Block(jen.Return(jen.False(), jen.Err())),
			jen.Return(jen.Id("kept").Index(jen.Lit(0)), jen.Nil()),
		)
	}
	f.Line()
	b.comment("BestMany applies Best to many entries in one script call, atomically and in order, and\nreports for each whether it was stored. It validates every entry first and writes nothing\nwhen one is invalid.")
	recvDecl(f).Id("BestMany").Params(ctxParam(), jen.Id("entries").Index().Id("Entry")).Params(jen.Index().Bool(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("entries")).Op("==").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		jen.Id("args").Op(":=").Id("b").Dot("args").Call(jen.Lit(2).Op("*").Len(jen.Id("entries"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("e")).Op(":=").Range().Id("entries")).Block(
			jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(),
			errNil().Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("args").Op("=").Append(jen.Id("args"), rt("FormatScore").Call(jen.Id("score")), jen.Id("member")),
		),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(run(luaemit.OpBest, jen.Id("args").Op("..."))),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(rt("Flags").Call(jen.Id("v"), jen.Len(jen.Id("entries")))),
	)
	f.Line()

	b.comment("Remove deletes the entries of the given ids and returns how many there were.")
	recvDecl(f).Id("Remove").Params(ctxParam(), jen.Id("ids").Op("...").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Len(jen.Id("ids")).Op("==").Lit(0)).Block(jen.Return(jen.Lit(0), jen.Nil())),
		jen.Id("args").Op(":=").Id("b").Dot("args").Call(jen.Len(jen.Id("ids"))),
		jen.For(jen.List(jen.Id("_"), jen.Id("id")).Op(":=").Range().Id("ids")).Block(
			b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(jen.Lit(0), err) }),
			jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("id")),
		),
		jen.Return(rt("Int").Call(run(luaemit.OpRemove, jen.Id("args").Op("...")))),
	)
	f.Line()
	b.comment("Trim keeps the first keep entries, removes all below them and returns how many it removed.")
	recvDecl(f).Id("Trim").Params(ctxParam(), jen.Id("keep").Int64()).Params(jen.Int64(), jen.Error()).Block(
		jen.If(jen.Id("keep").Op("<").Lit(0)).Block(jen.Return(jen.Lit(0), jen.Op("&").Add(rt("RangeError")).Values(jen.Dict{
			jen.Id("Field"): jen.Lit("keep"), jen.Id("Value"): jen.Qual("strconv", "FormatInt").Call(jen.Id("keep"), jen.Lit(10)),
			jen.Id("Min"): jen.Lit("0"), jen.Id("Max"): jen.Lit(fmt.Sprint(int64(math.MaxInt64))),
		}))),
		jen.Return(rt("Int").Call(run(luaemit.OpTrim, jen.Append(jen.Id("b").Dot("args").Call(jen.Lit(1)), jen.Id("keep")).Op("...")))),
	)
	f.Line()
}

// valueType is the type of an update's argument.
func valueType(fd *layout.Field, op layout.Op) jen.Code {
	if op == layout.OpAdd {
		return jen.Int64()
	}
	return goType(fd)
}

func (b *board) update(fd *layout.Field, op layout.Op) {
	f, l := b.f, b.l
	name := camel(string(op)) + fd.Name
	sop := luaemit.UpdateOp(op, fd)
	var what string
	switch op {
	case layout.OpAdd:
		what = fmt.Sprintf("adds delta to the %s of the entry of id", fd.Name)
	case layout.OpMax:
		what = fmt.Sprintf("raises the %s of the entry of id to v when v is larger", fd.Name)
	case layout.OpMin:
		what = fmt.Sprintf("lowers the %s of the entry of id to v when v is smaller", fd.Name)
	case layout.OpSet:
		what = fmt.Sprintf("sets the %s of the entry of id to v", fd.Name)
	}
	var stamps []string
	for _, s := range l.Fields {
		if s.Stamp != layout.StampNone && s != fd {
			stamps = append(stamps, fmt.Sprintf("%s (%s clock)", s.Name, s.Stamp))
		}
	}
	doc := fmt.Sprintf("%s %s and returns the new entry.", name, what)
	if op == layout.OpAdd {
		if fd.Overflow == layout.OverflowSaturate {
			doc += fmt.Sprintf(" A result outside %s's range is clamped to its edge.", fd.Name)
		} else {
			doc += fmt.Sprintf(" A result outside %s's range is refused with an error matching ErrOverflow, leaving the entry unchanged.", fd.Name)
		}
	}
	doc += " An id without an entry starts from the zero entry (0, false, the first enum value, or the Unix epoch for a time; a field's lowest-ranking value when that is outside its range)."
	if len(stamps) > 0 {
		doc += " When the update changes the entry, it also sets " + strings.Join(stamps, ", ") + " to now."
	}
	arg := "v"
	if op == layout.OpAdd {
		arg = "delta"
	}
	b.comment("%s", wrap(doc))
	var one []jen.Code
	one = append(one, b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(jen.Id("Entry").Values(), err) }))
	var val1 jen.Code = jen.Id(arg)
	if op == layout.OpAdd && wide(fd) {
		val1 = rt("WideDelta").Call(jen.Id(arg), jen.Lit(fd.Hex))
	}
	if op != layout.OpAdd {
		one = append(one,
			jen.List(jen.Id("d"), jen.Err()).Op(":=").Id(digitFunc(fd)).Call(jen.Id("v")),
			errNil().Block(jen.Return(jen.Id("Entry").Values(), jen.Err())))
		val1 = b.digitArg(fd)
	}
	one = append(one,
		jen.Var().Id("r").Index(jen.Lit(1)).Id("Result"),
		jen.If(jen.Err().Op(":=").Id("b").Dot("apply").Call(jen.Id("ctx"), jen.Id(scriptVar(sop)),
			jen.Append(jen.Id("b").Dot("updateArgs").Call(jen.Lit(1)), jen.Id("id"), val1), jen.Id("r").Index(jen.Op(":")), jen.Index().Int().Values(jen.Lit(0))),
			jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("Entry").Values(), jen.Err())),
		jen.Return(jen.Id("r").Index(jen.Lit(0)).Dot("Entry"), jen.Id("r").Index(jen.Lit(0)).Dot("Err")),
	)
	recvDecl(f).Id(name).Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.Id(arg).Add(valueType(fd, op))).Params(jen.Id("Entry"), jen.Error()).Block(one...)
	f.Line()
	b.comment("%s", wrap(fmt.Sprintf("%sMany applies many %s updates in one script call, atomic as a whole, in order (an id may appear more than once). Each update succeeds or fails on its own: its Result holds the new entry or the error that left that entry unchanged. The error return is for failures of the whole call (connection, ErrLayoutMismatch), which change nothing.", name, name)))
	var val jen.Code = jen.Id("u").Dot("Value")
	if op == layout.OpAdd && wide(fd) {
		val = rt("WideDelta").Call(jen.Id("u").Dot("Value"), jen.Lit(fd.Hex))
	}
	loop := []jen.Code{
		b.checkIDThen(jen.Id("u").Dot(l.IDName), func(err jen.Code) []jen.Code {
			return []jen.Code{jen.Id("res").Index(jen.Id("i")).Dot("Err").Op("=").Add(err), jen.Continue()}
		}),
	}
	if op != layout.OpAdd {
		loop = append(loop,
			jen.List(jen.Id("d"), jen.Err()).Op(":=").Id(digitFunc(fd)).Call(jen.Id("u").Dot("Value")),
			errNil().Block(jen.Id("res").Index(jen.Id("i")).Dot("Err").Op("=").Err(), jen.Continue()),
		)
		val = b.digitArg(fd)
	}
	loop = append(loop,
		jen.Id("args").Op("=").Append(jen.Id("args"), jen.Id("u").Dot(l.IDName), val),
		jen.Id("sent").Op("=").Append(jen.Id("sent"), jen.Id("i")),
	)
	recvDecl(f).Id(name+"Many").Params(ctxParam(), jen.Id("updates").Index().Id("Update").Types(valueType(fd, op))).Params(jen.Index().Id("Result"), jen.Error()).Block(
		jen.Id("res").Op(":=").Make(jen.Index().Id("Result"), jen.Len(jen.Id("updates"))),
		jen.Id("args").Op(":=").Id("b").Dot("updateArgs").Call(jen.Len(jen.Id("updates"))),
		jen.Id("sent").Op(":=").Make(jen.Index().Int(), jen.Lit(0), jen.Len(jen.Id("updates"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("u")).Op(":=").Range().Id("updates")).Block(loop...),
		jen.If(jen.Err().Op(":=").Id("b").Dot("apply").Call(jen.Id("ctx"), jen.Id(scriptVar(sop+luaemit.ManySuffix)), jen.Id("args"), jen.Id("res"), jen.Id("sent")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("res"), jen.Nil()),
	)
	f.Line()
}

// wrap breaks a paragraph into lines of at most 96 columns.
func wrap(s string) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > 96 {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// digitArg is how the digit d of a field's new value goes to a script: the number, or for a
// member field too wide for exact doubles its fixed-width text.
func (b *board) digitArg(fd *layout.Field) jen.Code {
	if wide(fd) {
		return rt("DigitText").Call(jen.Id("d"), jen.Lit(fd.TextWidth), jen.Lit(fd.Hex))
	}
	return jen.Id("d")
}

// wide reports a member field whose digits reach 2^53, which the scripts handle as text.
func wide(fd *layout.Field) bool { return fd.Place == layout.InMember && fd.Span() >= 1<<53 }

func digitFunc(fd *layout.Field) string { return "digitOf" + fd.Name }

func (b *board) reads() {
	f, l := b.f, b.l
	b.comment(`read sends one read command, which cmd queues on the client or on a pipeline. Until this
Board has seen its own fingerprint on the board, the fingerprint's read is pipelined before the
command, in the same round trip: another layout's is an error matching ErrLayoutMismatch, not
entries misread. A board that records no fingerprint yet is read as it is.`)
	recvDecl(f).Id("read").Params(ctxParam(), jen.Id("cmd").Func().Params(rd("Cmdable"))).Error().Block(
		jen.If(jen.Id("b").Dot("verified").Dot("Load").Call()).Block(
			jen.Id("cmd").Call(jen.Id("b").Dot("c")),
			jen.Return(jen.Nil()),
		),
		jen.Id("pipe").Op(":=").Id("b").Dot("c").Dot("Pipeline").Call(),
		jen.Id("fp").Op(":=").Add(rt("FingerprintCmd")).Call(jen.Id("ctx"), jen.Id("pipe"), jen.Id("b").Dot("keys").Index(jen.Lit(1)), jen.Lit(l.HasPrefix())),
		jen.Id("cmd").Call(jen.Id("pipe")),
		jen.List(jen.Id("_"), jen.Id("_")).Op("=").Id("pipe").Dot("Exec").Call(jen.Id("ctx")).Comment("each command keeps its own reply and error"),
		jen.List(jen.Id("ok"), jen.Err()).Op(":=").Add(rt("CheckFingerprint")).Call(jen.Id("fp"), jen.Id("Fingerprint")),
		jen.If(jen.Id("ok")).Block(jen.Id("b").Dot("verified").Dot("Store").Call(jen.True())),
		jen.Return(jen.Err()),
	)
	f.Line()
	// readCmd declares cmd, sets it to make(c) through b.read, and returns ret..., err on error.
	readCmd := func(typ string, make func(c jen.Code) jen.Code, ret ...jen.Code) jen.Code {
		return jen.Var().Id("cmd").Op("*").Add(rd(typ)).Line().
			If(jen.Err().Op(":=").Id("b").Dot("read").Call(jen.Id("ctx"), jen.Func().Params(jen.Id("c").Add(rd("Cmdable"))).Block(
				jen.Id("cmd").Op("=").Add(make(jen.Id("c"))),
			)), jen.Err().Op("!=").Nil()).Block(jen.Return(append(ret, jen.Err())...))
	}
	notFound := func(ret ...jen.Code) jen.Code {
		return jen.If(jen.Qual("errors", "Is").Call(jen.Err(), rd("Nil"))).Block(jen.Return(append(ret, rt("NotFound").Call(b.idText(jen.Id("id"))))...))
	}
	checkID := func(ret ...jen.Code) jen.Code {
		return b.checkID(jen.Id("id"), func(err jen.Code) jen.Code { return jen.Return(append(ret, err)...) })
	}

	// Get.
	f.Comment("Get returns the entry of id, or an error matching ErrNotFound.")
	var get []jen.Code
	get = append(get, checkID(jen.Id("Entry").Values()))
	if l.HasPrefix() {
		get = append(get,
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(runRO(luaemit.OpGet, jen.Id("id"))),
			notFound(jen.Id("Entry").Values()),
			errNil().Block(jen.Return(jen.Id("Entry").Values(), jen.Err())),
			jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Add(rt("ScoreMember")).Call(jen.Id("v")),
			errNil().Block(jen.Return(jen.Id("Entry").Values(), jen.Err())),
			jen.Return(jen.Id("Decode").Call(jen.Id("score"), jen.Id("member"))),
		)
	} else {
		get = append(get, readCmd("FloatCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZScore").Call(jen.Id("ctx"), jen.Id("b").Dot("keys").Index(jen.Lit(0)), b.idText(jen.Id("id")))
		}, jen.Id("Entry").Values()))
		get = append(get,
			jen.List(jen.Id("score"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
			notFound(jen.Id("Entry").Values()),
			errNil().Block(jen.Return(jen.Id("Entry").Values(), jen.Err())),
			jen.Return(jen.Id("Decode").Call(jen.Id("score"), b.idText(jen.Id("id")))),
		)
	}
	recvDecl(f).Id("Get").Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Id("Entry"), jen.Error()).Block(get...)
	f.Line()

	// Rank.
	b.comment("Rank returns the 1-based position of the entry of id in the board's order, or an error matching ErrNotFound.")
	var rank []jen.Code
	rank = append(rank, checkID(jen.Lit(0)))
	if l.HasPrefix() {
		rank = append(rank,
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(runRO(luaemit.OpRank, jen.Id("id"))),
			notFound(jen.Lit(0)),
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Add(rt("Int").Call(jen.Id("v"), jen.Err())),
			errNil().Block(jen.Return(jen.Lit(0), jen.Err())),
		)
	} else {
		rank = append(rank, readCmd("IntCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZRevRank").Call(jen.Id("ctx"), jen.Id("b").Dot("keys").Index(jen.Lit(0)), b.idText(jen.Id("id")))
		}, jen.Lit(0)))
		rank = append(rank,
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
			notFound(jen.Lit(0)),
			errNil().Block(jen.Return(jen.Lit(0), jen.Err())),
		)
	}
	rank = append(rank, jen.Return(jen.Id("r").Op("+").Lit(1), jen.Nil()))
	recvDecl(f).Id("Rank").Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(rank...)
	f.Line()

	f.Comment("Top returns the first n entries, best first.")
	recvDecl(f).Id("Top").Params(ctxParam(), jen.Id("n").Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.Return(jen.Id("b").Dot("Page").Call(jen.Id("ctx"), jen.Lit(0), jen.Id("n"))))
	f.Line()
	f.Comment("Page returns limit entries from the 0-based position offset, best first.")
	recvDecl(f).Id("Page").Params(ctxParam(), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		jen.If(jen.Id("offset").Op("<").Lit(0).Op("||").Id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		jen.Id("stop").Op(":=").Id("offset").Op("+").Id("limit").Op("-").Lit(1),
		jen.If(jen.Id("stop").Op("<").Id("offset")).Block(jen.Id("stop").Op("=").Lit(-1).Comment("offset + limit overflows: to the end")),
		readCmd("ZSliceCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZRevRangeWithScores").Call(jen.Id("ctx"), jen.Id("b").Dot("keys").Index(jen.Lit(0)), jen.Id("offset"), jen.Id("stop"))
		}, jen.Nil()),
		jen.List(jen.Id("zs"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("rankedPairs").Call(jen.Id("offset"), rt("ZPairs").Call(jen.Id("zs")))),
	)
	f.Line()
	b.comment("Around returns the entry of id with up to before entries ahead of it and after entries behind it, or an error matching ErrNotFound.")
	recvDecl(f).Id("Around").Params(ctxParam(), jen.Id("id").Add(b.idType()), jen.List(jen.Id("before"), jen.Id("after")).Int64()).Params(jen.Index().Id("Ranked"), jen.Error()).Block(
		checkID(jen.Nil()),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(runRO(luaemit.OpAround, jen.Id("id"), jen.Max(jen.Id("before"), jen.Lit(0)), jen.Max(jen.Id("after"), jen.Lit(0)))),
		notFound(jen.Nil()),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("start"), jen.Id("ps"), jen.Err()).Op(":=").Add(rt("Window")).Call(jen.Id("v")),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("rankedPairs").Call(jen.Id("start"), jen.Id("ps"))),
	)
	f.Line()
	b.comment(`After returns up to limit entries that rank after the cursor, best first, and the cursor of
the last one (the same cursor when there are none). Paging by cursor is stable while scores
change: an entry is never returned twice nor skipped because others moved ahead of it. A
cursor whose score is NaN marks no place: it is refused (ErrBadScore) before anything is sent.`)
	recvDecl(f).Id("After").Params(ctxParam(), jen.Id("cur").Id("Cursor"), jen.Id("limit").Int64()).Params(jen.Index().Id("Ranked"), jen.Id("Cursor"), jen.Error()).Block(
		jen.If(jen.Qual("math", "IsNaN").Call(jen.Id("cur").Dot("Score"))).Block(
			jen.Return(jen.Nil(), jen.Id("cur"), rt("BadScore").Call(jen.Id("cur").Dot("Score"), jen.Lit("a cursor's score is a number, never NaN")))),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(runRO(luaemit.OpAfter, rt("FormatScore").Call(jen.Id("cur").Dot("Score")), jen.Id("cur").Dot("Member"), jen.Id("limit"))),
		errNil().Block(jen.Return(jen.Nil(), jen.Id("cur"), jen.Err())),
		jen.List(jen.Id("start"), jen.Id("ps"), jen.Err()).Op(":=").Add(rt("Window")).Call(jen.Id("v")),
		errNil().Block(jen.Return(jen.Nil(), jen.Id("cur"), jen.Err())),
		jen.List(jen.Id("page"), jen.Err()).Op(":=").Id("rankedPairs").Call(jen.Id("start"), jen.Id("ps")),
		jen.If(jen.Err().Op("!=").Nil().Op("||").Len(jen.Id("ps")).Op("==").Lit(0)).Block(jen.Return(jen.Id("page"), jen.Id("cur"), jen.Err())),
		jen.Id("last").Op(":=").Id("ps").Index(jen.Len(jen.Id("ps")).Op("-").Lit(1)),
		jen.Return(jen.Id("page"), jen.Id("Cursor").Values(jen.Id("last").Dot("Score"), jen.Id("last").Dot("Member")), jen.Nil()),
	)
	f.Line()
	f.Comment("Count returns the number of entries.")
	recvDecl(f).Id("Count").Params(ctxParam()).Params(jen.Int64(), jen.Error()).Block(
		readCmd("IntCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZCard").Call(jen.Id("ctx"), jen.Id("b").Dot("keys").Index(jen.Lit(0)))
		}, jen.Lit(0)),
		jen.Return(jen.Id("cmd").Dot("Result").Call()))
	f.Line()

	if l.NumScore == 0 {
		return
	}
	lead := l.Fields[0]
	b.comment("%s", wrap(fmt.Sprintf("Range%s returns, best first, the entries whose %s lies in [lo, hi], skipping offset of them and returning at most limit. It is one ZRANGE BYSCORE: %s leads the score, so the range is a band of scores. Bounds outside %s's range are an error matching ErrOutOfRange.", lead.Name, lead.Name, lead.Name, lead.Name)))
	lowFirst := lead.Order == layout.Desc // value order = digit order
	cmp := jen.Id("dlo").Op(">").Id("dhi")
	if !lowFirst {
		cmp = jen.Id("dlo").Op("<").Id("dhi")
	}
	swap := jen.Null()
	if !lowFirst {
		swap = jen.List(jen.Id("dlo"), jen.Id("dhi")).Op("=").List(jen.Id("dhi"), jen.Id("dlo"))
	}
	recvDecl(f).Id("Range"+lead.Name).Params(ctxParam(), jen.List(jen.Id("lo"), jen.Id("hi")).Add(goType(lead)), jen.List(jen.Id("offset"), jen.Id("limit")).Int64()).Params(jen.Index().Id("Entry"), jen.Error()).Block(
		jen.List(jen.Id("dlo"), jen.Err()).Op(":=").Id(digitFunc(lead)).Call(jen.Id("lo")),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.List(jen.Id("dhi"), jen.Err()).Op(":=").Id(digitFunc(lead)).Call(jen.Id("hi")),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(cmp.Op("||").Id("offset").Op("<").Lit(0).Op("||").Id("limit").Op("<=").Lit(0)).Block(jen.Return(jen.Nil(), jen.Nil())),
		swap,
		jen.Comment(fmt.Sprintf("%s's digits dlo…dhi are the scores of P in [dlo·W, (dhi+1)·W), W = %d.", lead.Name, lead.Weight)),
		readCmd("ZSliceCmd", func(c jen.Code) jen.Code {
			return jen.Add(c).Dot("ZRangeArgsWithScores").Call(jen.Id("ctx"), rd("ZRangeArgs").Values(jen.Dict{
				jen.Id("Key"):     jen.Id("b").Dot("keys").Index(jen.Lit(0)),
				jen.Id("Start"):   jen.Lit("(").Op("+").Add(rt("FormatScore")).Call(jen.Id("scoreOfP").Call(jen.Parens(jen.Id("dhi").Op("+").Lit(1)).Op("*").Lit(int(lead.Weight)))),
				jen.Id("Stop"):    rt("FormatScore").Call(jen.Id("scoreOfP").Call(jen.Id("dlo").Op("*").Lit(int(lead.Weight)))),
				jen.Id("ByScore"): jen.True(),
				jen.Id("Rev"):     jen.True(),
				jen.Id("Offset"):  jen.Id("offset"),
				jen.Id("Count"):   jen.Id("limit"),
			}))
		}, jen.Nil()),
		jen.List(jen.Id("zs"), jen.Err()).Op(":=").Id("cmd").Dot("Result").Call(),
		errNil().Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").Make(jen.Index().Id("Entry"), jen.Len(jen.Id("zs"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("p")).Op(":=").Range().Add(rt("ZPairs")).Call(jen.Id("zs"))).Block(
			jen.If(jen.List(jen.Id("out").Index(jen.Id("i")), jen.Err()).Op("=").Id("Decode").Call(jen.Id("p").Dot("Score"), jen.Id("p").Dot("Member")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
	f.Line()
	b.comment("%s", wrap(fmt.Sprintf("CompetitionRank returns 1 + the number of entries with a better %s than the entry of id (\"1224\" ranking: equal %s share a rank), counted with ZCOUNT in O(log n), or an error matching ErrNotFound.", lead.Name, lead.Name)))
	recvDecl(f).Id("CompetitionRank").Params(ctxParam(), jen.Id("id").Add(b.idType())).Params(jen.Int64(), jen.Error()).Block(
		checkID(jen.Lit(0)),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(runRO(luaemit.OpCompetition, jen.Id("id"))),
		notFound(jen.Lit(0)),
		jen.Return(rt("Int").Call(jen.Id("v"), jen.Err())),
	)
	f.Line()
}

func (b *board) helpers() {
	f, l := b.f, b.l
	f.Comment("args starts the arguments of a write script: the expiry, then room for n more.")
	recvDecl(f).Id("args").Params(jen.Id("n").Int()).Index().Any().Block(
		jen.List(jen.Id("mode"), jen.Id("ms")).Op(":=").Id("b").Dot("exp").Dot("Args").Call(),
		jen.Return(jen.Append(jen.Make(jen.Index().Any(), jen.Lit(0), jen.Lit(2).Op("+").Id("n")), jen.Id("mode"), jen.Id("ms"))),
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
	recvDecl(f).Id("updateArgs").Params(jen.Id("n").Int()).Index().Any().Block(
		jen.Id("args").Op(":=").Id("b").Dot("args").Call(jen.Lit(1).Op("+").Lit(2).Op("*").Id("n")),
		jen.Return(jen.Append(jen.Id("args"), now)),
	)
	f.Line()
	doc = "apply runs a field update script for the updates at positions sent and fills in res."
	read, member := "Items", jen.Code(jen.Id("it").Dot("Member"))
	var memberNote jen.Code = jen.Null()
	if !l.HasPrefix() {
		doc = "apply runs a field update script for the updates at positions sent, whose ids are args[3+2j], and\nfills in res."
		read = "BareItems"
		member = b.idText(jen.Id("args").Index(jen.Lit(3).Op("+").Lit(2).Op("*").Id("j")).Assert(b.idType()))
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
