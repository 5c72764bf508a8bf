package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// emitRemoval declares Removal: ids removed from boards of any of the package's layouts in one
// call, with one method per board adding boards of its layout (and, for a periodic board, one
// adding its season families), over the runtime's Removal.
func emitRemoval(f *jen.File, p *layout.Boards) {
	f.Comment(lineComment(wrap("Removal removes ids from boards of the package, whatever their layouts, in one call: add the boards with its methods (one per board of the package; for a periodic board also its season families), then call Remove. Removing a cheater from every board of the game is one Removal.")))
	f.Type().Id("Removal").Struct(jen.Id("r").Add(rt("Removal")))
	f.Line()
	f.Var().Id("removeFromFunction").Op("=").Id(packageLibrary).Dot("Function").Call(jen.Lit("remove_from"))
	f.Line()
	for _, b := range p.Boards {
		name := b.GoName()
		adapter := "RemoveByText"
		if b.Layout.IDType == layout.IDUint64 {
			adapter = "RemoveByNumber"
		}
		f.Comment(lineComment(wrap(fmt.Sprintf("%s adds boards of board %s's layout.", name, b.Name))))
		f.Func().Params(jen.Id("r").Op("*").Id("Removal")).Id(name).Params(jen.Id("boards").Op("...").Op("*").Id(name+"Board")).Op("*").Id("Removal").Block(
			jen.Id("r").Dot("r").Dot("Add").Call(jen.Func().Params(jen.Qual("context", "Context")).Params(jen.Index().Add(rt("RemovalBoard")), jen.Error()).Block(
				jen.Var().Id("out").Index().Add(rt("RemovalBoard")),
				jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("boards")).Block(
					jen.Id("out").Op("=").Append(jen.Id("out"), rt(adapter).Call(jen.Lit(b.Name), jen.Id("b"))),
				),
				jen.Return(jen.Id("out"), jen.Nil()),
			)),
			jen.Return(jen.Id("r")),
		)
		f.Line()
		if b.Layout.Season == nil {
			continue
		}
		f.Comment(lineComment(wrap(fmt.Sprintf("%sSeasons adds, for each family, every board that may hold entries when Remove runs (%sSeasons.Holding: the current season's, the ones kept before it, the next one's, cached rollups).", name, name))))
		f.Func().Params(jen.Id("r").Op("*").Id("Removal")).Id(name+"Seasons").Params(jen.Id("families").Op("...").Op("*").Id(name+"Seasons")).Op("*").Id("Removal").Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("ss")).Op(":=").Range().Id("families")).Block(
				jen.Id("r").Dot("r").Dot("Add").Call(jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.Index().Add(rt("RemovalBoard")), jen.Error()).Block(
					jen.List(jen.Id("boards"), jen.Err()).Op(":=").Id("ss").Dot("Holding").Call(jen.Id("ctx")),
					jen.Var().Id("out").Index().Add(rt("RemovalBoard")),
					jen.For(jen.List(jen.Id("_"), jen.Id("b")).Op(":=").Range().Id("boards")).Block(
						jen.Id("out").Op("=").Append(jen.Id("out"), rt(adapter).Call(jen.Lit(b.Name), jen.Id("b"))),
					),
					jen.Return(jen.Id("out"), jen.Err()),
				)),
			),
			jen.Return(jen.Id("r")),
		)
		f.Line()
	}
	f.Comment(lineComment(wrap("Remove removes ids (a uint64 id as its decimal text) from every board added, in the order added, and returns each board's key and how many of ids it held. Where one script reaches every board's keys (one server; on a Cluster, one hash slot: give the keys one hash tag) it is one call, atomic: a board that refuses (another layout's, a migration's fence) refuses it as a *rankgenrt.SubmissionError naming the board, and nothing is removed. Otherwise the boards of each hash slot are one call each, atomic within it. A season's board that has expired counts 0; under an idempotency key (rankgenrt.WithIdempotencyKey) a resend removes nothing twice.")))
	f.Func().Params(jen.Id("r").Op("*").Id("Removal")).Id("Remove").Params(ctxParam(), jen.Id("ids").Op("...").String()).Params(jen.Index().Add(rt("Removed")), jen.Error()).Block(
		jen.Return(jen.Id("r").Dot("r").Dot("Run").Call(jen.Id("ctx"), jen.Id("removeFromFunction"), jen.Id("ids"))),
	)
	f.Line()
}
