package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// FedType is the generated type of one board's outcome in a feed's result.
const FedType = layout.FedTypeName

// emitFeeds writes the schema's feeds (layout.Feed): per feed the type <Name>Feed, its key
// parts <Name>Keys, its result <Name>Result and the methods that run its one script.
func emitFeeds(b *board) {
	ops := catalog.Feeds(b.l)
	if len(ops) == 0 {
		return
	}
	f := b.f
	f.Comment("A feed's script replies each board's rank when its last argument is withRanks.")
	f.Const().Defs(
		jen.Id("withRanks").Op("=").Lit("1"),
		jen.Id("withoutRanks").Op("=").Lit("0"),
	)
	f.Line()
	b.comment("%s is what a feed's call did on one of its boards.", FedType)
	entry := jen.Id("Entry").Id("Entry")
	if b.c.inPackage != nil {
		// Embedded, as in Ranked, so that the field is named as the board's entry type is.
		entry = jen.Id("Entry")
	}
	f.Type().Id(FedType).Struct(
		jen.Id("Changed").Bool().Comment("the call wrote the board's entry for the id"),
		jen.Id("Found").Bool().Comment("the board has an entry for the id after the call"),
		entry.Comment("Found: that entry (its Data is the zero Data: Get reads the stored data)"),
		jen.Id("Rank").Int64().Comment("Found, from the Ranked form of the call: the entry's 1-based rank after it; else 0"),
	)
	f.Line()
	b.comment("fed decodes one board's part of a feed's reply.")
	f.Func().Id("fed").Params(jen.Id("r").Add(rt("FeedBoard"))).Params(jen.Id(FedType), jen.Error()).Block(
		jen.Id("out").Op(":=").Id(FedType).Values(jen.Dict{jen.Id("Changed"): jen.Id("r").Dot("Changed"), jen.Id("Found"): jen.Id("r").Dot("Found"), jen.Id("Rank"): jen.Id("r").Dot("Rank")}),
		jen.If(jen.Op("!").Id("r").Dot("Found")).Block(jen.Return(jen.Id("out"), jen.Nil())),
		jen.Var().Err().Error(),
		jen.List(jen.Id("out").Dot("Entry"), jen.Err()).Op("=").Id("Decode").Call(jen.Id("r").Dot("Score"), jen.Id("r").Dot("Member")),
		jen.Return(jen.Id("out"), jen.Err()),
	)
	f.Line()
	for _, op := range ops {
		feed(b, op)
	}
}

func feed(b *board, op catalog.FeedOp) {
	f, l, fd := b.f, b.l, op.Feed
	typ, keysType, result := fd.Name+"Feed", fd.Name+"Keys", fd.Name+"Result"
	script := "script" + catalog.Camel(op.Name)
	f.Var().Id(script).Op("=").Id("library").Dot("Function").Call(jen.Lit(op.Name))
	f.Line()

	var parts []jen.Code
	for _, p := range fd.Parts {
		parts = append(parts, jen.Id(catalog.Camel(p)).String().Comment("<"+p+">"))
	}
	b.comment("%s are the parts of the %s feed's keys that the caller gives.", keysType, fd.Name)
	f.Type().Id(keysType).Struct(parts...)
	f.Line()

	var rows []string
	for _, bd := range fd.Boards {
		rows = append(rows, fmt.Sprintf("  - %s, key %s: %s", bd.Name, bd.Pattern, ruleDoc(bd, fd)))
	}
	doc := ""
	if fd.Doc != "" {
		doc = " " + fd.Doc
	}
	f.Comment(lineComment(wrap(fmt.Sprintf("%s is the feed %s:%s Its call writes an entry to these boards of the layout, in one script: atomically (a refusal on any board writes nothing on any) and exactly once as a whole (its token is recorded with the first board):", typ, fd.Name, doc)) +
		"\n\n" + strings.Join(rows, "\n") + "\n\n" +
		wrap(fmt.Sprintf("Every key starts with the hash tag %s, so the boards share one hash slot on Redis Cluster. A %s is safe for concurrent use.", fd.Boards[0].Tag(), typ))))
	f.Type().Id(typ).Struct(
		jen.Id("c").Qual(redisPath, "UniversalClient"),
		jen.Id("keys").Id(keysType),
		jen.Id("tokens").Op("*").Add(rt("Tokens")).Comment("one per call: exactly-once writes"),
		jen.Id("dedup").Add(rt("Dedup")).Comment("rankgenrt.DefaultDedupWindow, as a Board's"),
	)
	f.Line()
	b.comment("New%s returns the feed %s over the boards its keys name.", typ, fd.Name)
	f.Func().Id("New"+typ).Params(jen.Id("c").Qual(redisPath, "UniversalClient"), jen.Id("keys").Id(keysType)).Op("*").Id(typ).Block(
		jen.Return(jen.Op("&").Id(typ).Values(jen.Dict{
			jen.Id("c"): jen.Id("c"), jen.Id("keys"): jen.Id("keys"),
			jen.Id("tokens"): rt("NewTokens").Call(),
			jen.Id("dedup"):  rt("DedupWindow").Call(rt("DefaultDedupWindow")),
		})),
	)
	f.Line()

	var fields []jen.Code
	for _, bd := range fd.Boards {
		fields = append(fields, jen.Id(bd.Name).Id(FedType))
	}
	b.comment("%s is what %s did on each board.", result, fd.Name)
	f.Type().Id(result).Struct(fields...)
	f.Line()

	recv := func() *jen.Statement { return f.Func().Params(jen.Id("f").Op("*").Id(typ)) }
	var keyList []jen.Code
	for _, bd := range fd.Boards {
		keyList = append(keyList, feedKey(l, bd))
	}
	b.comment("BoardKeys returns the keys of the boards a submission of e writes, in the feed's order: read them with NewBoard.")
	recv().Id("BoardKeys").Params(jen.Id("e").Id("Entry")).Index().String().Block(
		jen.Return(jen.Index().String().ValuesFunc(func(g *jen.Group) {
			for _, k := range keyList {
				g.Line().Add(k)
			}
			g.Line()
		})),
	)
	f.Line()
	b.comment("%s submits e to the feed's boards in one script and reports what it did on each.", fd.Name)
	recv().Id(fd.Name).Params(ctxParam(), jen.Id("e").Id("Entry")).Params(jen.Id(result), jen.Error()).Block(
		jen.Return(jen.Id("f").Dot("run").Call(jen.Id("ctx"), jen.Id("e"), jen.Id("withoutRanks"))),
	)
	f.Line()
	b.comment("%sRanked is %s, and reports the entry's rank on each board after the call (one ZREVRANK a board, in the same script).", fd.Name, fd.Name)
	recv().Id(fd.Name+"Ranked").Params(ctxParam(), jen.Id("e").Id("Entry")).Params(jen.Id(result), jen.Error()).Block(
		jen.Return(jen.Id("f").Dot("run").Call(jen.Id("ctx"), jen.Id("e"), jen.Id("withRanks"))),
	)
	f.Line()

	fail := func() jen.Code { return errNil().Block(jen.Return(jen.Id(result).Values(), jen.Err())) }
	body := []jen.Code{
		jen.List(jen.Id("score"), jen.Id("member"), jen.Err()).Op(":=").Id("e").Dot("Encode").Call(), fail(),
	}
	args := []jen.Code{jen.Lit(""), jen.Lit(""), jen.Id("token"), jen.Id("f").Dot("dedup").Dot("Arg").Call(),
		rt("FormatScore").Call(jen.Id("score")), jen.Id("member")}
	if l.HasData() {
		body = append(body, jen.List(jen.Id("data"), jen.Err()).Op(":=").Id("e").Dot("Data").Dot("Encode").Call(), fail())
		args = append(args, jen.Id("data"))
	}
	args = append(args, jen.Id("ranks"))
	body = append(body,
		jen.List(jen.Id("keys"), jen.Err()).Op(":=").Add(rt("FeedKeys")).Call(jen.Id("f").Dot("BoardKeys").Call(jen.Id("e")), jen.Id("boardSpec").Dot("Keys")), fail(),
		jen.If(jen.Err().Op(":=").Id("f").Dot("dedup").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id(result).Values(), jen.Err())),
		jen.List(jen.Id("token"), jen.Err()).Op(":=").Id("f").Dot("tokens").Dot("Next").Call(jen.Id("ctx")), fail(),
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(rt("RunWrite")).Call(append([]jen.Code{jen.Id("ctx"), jen.Id("f").Dot("c"), jen.Id(script), jen.Id("keys"), jen.Id("token")}, args...)...), fail(),
		jen.List(jen.Id("boards"), jen.Err()).Op(":=").Add(rt("FeedBoards")).Call(jen.Id("v"), jen.Lit(len(fd.Boards))), fail(),
		jen.Var().Id("r").Id(result),
	)
	for i, bd := range fd.Boards {
		body = append(body, jen.If(jen.List(jen.Id("r").Dot(bd.Name), jen.Err()).Op("=").Id("fed").Call(jen.Id("boards").Index(jen.Lit(i))), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Id(result).Values(), jen.Err())))
	}
	body = append(body, jen.Return(jen.Id("r"), jen.Nil()))
	b.comment("run runs the feed's script on e's boards; ranks is withRanks to have it reply the ranks.")
	recv().Id("run").Params(ctxParam(), jen.Id("e").Id("Entry"), jen.Id("ranks").String()).Params(jen.Id(result), jen.Error()).Block(body...)
	f.Line()
}

// feedKey is the Go expression of a feed board's key for the entry e.
func feedKey(l *layout.Layout, bd *layout.FeedBoard) jen.Code {
	var out *jen.Statement
	for _, p := range bd.Key {
		var piece *jen.Statement
		switch {
		case p.Part != "":
			piece = jen.Id("f").Dot("keys").Dot(catalog.Camel(p.Part))
		case p.Field != nil && p.Data:
			piece = jen.Id("e").Dot("Data").Dot(p.Field.Name)
			if p.Field.Kind == layout.Enum {
				piece = piece.Dot("String").Call()
			}
		case p.Field != nil:
			piece = jen.Id("e").Dot(p.Field.Name).Dot("String").Call()
		default:
			piece = jen.Lit(p.Text)
		}
		if out == nil {
			out = piece
		} else {
			out = out.Op("+").Add(piece)
		}
	}
	return out
}

// ruleDoc says what a feed's call does to board bd.
func ruleDoc(bd *layout.FeedBoard, fd *layout.Feed) string {
	switch bd.Rule {
	case layout.FeedSet:
		return "set: takes the entry"
	case layout.FeedAdd:
		return fmt.Sprintf("add: adds what %s gained on %s (the entry, with that total)", bd.Field.Name, fd.Boards[0].Name)
	}
	return "best: keeps the entry that ranks first"
}
