package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/layout"
)

// compare is Compare: field by field in rank order, then the members' bytes as Redis
// compares them.
func (c *codec) compare() jen.Code {
	l := c.l
	var body []jen.Code
	for _, f := range l.Fields {
		a, b := jen.Id("a").Dot(f.Name), jen.Id("b").Dot(f.Name)
		if f.Order == layout.Desc {
			a, b = b, a // larger first
		}
		var cmpx jen.Code
		switch f.Kind {
		case layout.Bool:
			cmpx = jen.Qual(runtimePath, "CompareBool").Call(a, b)
		case layout.Time:
			if f.Season { // offsets compare in whole units, as stored
				cmpx = jen.Qual("cmp", "Compare").Call(a.Op("/").Add(unitDuration(f.Unit)), b.Op("/").Add(unitDuration(f.Unit)))
				break
			}
			_, method, _, _ := unitInfo(f.Unit)
			cmpx = jen.Qual("cmp", "Compare").Call(a.Dot(method).Call(), b.Dot(method).Call())
		default:
			cmpx = jen.Qual("cmp", "Compare").Call(a, b)
		}
		body = append(body, jen.If(jen.Id("c").Op(":=").Add(cmpx), jen.Id("c").Op("!=").Lit(0)).Block(jen.Return(jen.Id("c"))))
	}
	a, b := jen.Id("a").Dot(l.IDName), jen.Id("b").Dot(l.IDName)
	if l.IDOrder == layout.Asc {
		cmpx := jen.Qual("strings", "Compare").Call(a, b)
		if l.IDType == layout.IDUint64 {
			cmpx = jen.Qual("cmp", "Compare").Call(a, b)
		}
		body = append(body,
			jen.Comment("Equal fields: the smaller id first (id order: asc; its text in the member is reversed)."),
			jen.Return(cmpx))
	} else if l.IDType == layout.IDUint64 {
		body = append(body,
			jen.Comment("Equal fields: Redis compares the members' bytes, larger first, and with equal prefixes"),
			jen.Comment("that is the ids' decimal text (so 9 ranks before 10)."),
			jen.Return(jen.Qual(runtimePath, "CompareDecimal").Call(b, a)))
	} else {
		body = append(body,
			jen.Comment("Equal fields: Redis compares the members' bytes, larger first, and with equal prefixes"),
			jen.Comment("that is the ids' bytes."),
			jen.Return(jen.Qual("strings", "Compare").Call(b, a)))
	}
	doc := `Compare orders entries as Redis reads the board (ZREVRANGE): negative when a ranks before b,
positive when after, 0 when they are stored identically. Times compare at their unit, as stored.`
	return jen.Comment(lineComment(doc)).Line().
		Func().Id("Compare").Params(jen.List(jen.Id("a"), jen.Id("b")).Id("Entry")).Int().Block(body...)
}
