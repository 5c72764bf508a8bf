package goemit

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// emitSubmissions declares each submission of the package: <Name> (its boards, one per step),
// <Name>Input (what it writes to each), <Name>Written (what each write did) and Submit, one
// call of the runtime's Submit over the steps' own board methods.
func emitSubmissions(f *jen.File, p *layout.Boards) error {
	for _, sub := range p.Submissions {
		if err := emitSubmission(f, sub); err != nil {
			return err
		}
	}
	return nil
}

func emitSubmission(f *jen.File, sub *layout.Submission) error {
	name := sub.GoName()
	fn := "submit" + name + "Function"
	var boards, inputs, written, steps []jen.Code
	var said []string
	for _, st := range sub.Steps {
		b := st.Board.GoName()
		op, err := catalog.StepOp(st.Board.Layout, st.Write)
		if err != nil {
			return fmt.Errorf("submission %s, write %s: board %s: %v", sub.Name, st.Name, st.Board.Name, err)
		}
		said = append(said, fmt.Sprintf("%s (%s)", st.Name, st.Write))
		boards = append(boards, jen.Id(st.Name).Op("*").Id(b+"Board").Comment(fmt.Sprintf("%s: %s", st.Write, stepDoc(st))))
		written = append(written, jen.Id(st.Name).Id(b+"Written"))
		var call jen.Code
		switch st.Write {
		case layout.StepUpdate:
			inputs = append(inputs, jen.Id(st.Name).Id(b+"Changes").Comment("the id and its changes"))
			call = jen.Id("s").Dot(st.Name).Dot(op.Methods[0]).Call(jen.Id("ctx"), jen.Id("in").Dot(st.Name).Dot(st.Board.Layout.IDName), jen.Id("in").Dot(st.Name).Dot("Apply").Op("..."))
		default:
			inputs = append(inputs, jen.Id(st.Name).Id(b+"Entry"))
			call = jen.Id("s").Dot(st.Name).Dot(op.Methods[0]).Call(jen.Id("ctx"), jen.Id("in").Dot(st.Name))
		}
		steps = append(steps, jen.Values(jen.Dict{
			jen.Id("Name"):  jen.Lit(st.Name),
			jen.Id("Board"): jen.Lit(st.Board.Name),
			jen.Id("Op"):    jen.Lit(op.Name),
			jen.Id("Write"): jen.Func().Params(ctxParam()).Params(jen.Err().Error()).Block(
				jen.List(jen.Id("out").Dot(st.Name), jen.Err()).Op("=").Add(call),
				jen.Return(jen.Err()),
			),
		}))
	}
	doc := fmt.Sprintf("%s is the %s submission.", name, sub.Name)
	if sub.Doc != "" {
		doc += " " + sub.Doc
	}
	doc += fmt.Sprintf(" It writes %s in one call of the package's library under one token, all or nothing. Give it the boards to write (each board's own key, season and options), then call Submit; its boards must lie in one hash slot (give their keys one hash tag).", strings.Join(said, ", "))
	f.Comment(lineComment(wrap(doc)))
	f.Type().Id(name).Struct(boards...)
	f.Line()
	f.Comment(lineComment(wrap(fmt.Sprintf("%sInput is what one %s submission writes to each of its boards.", name, sub.Name))))
	f.Type().Id(name + "Input").Struct(inputs...)
	f.Line()
	f.Comment(lineComment(wrap(fmt.Sprintf("%sWritten is what a %s submission did on each of its boards, as each board's own write replies.", name, sub.Name))))
	f.Type().Id(name + "Written").Struct(written...)
	f.Line()
	f.Var().Id(fn).Op("=").Id(packageLibrary).Dot("Function").Call(jen.Lit("submit_" + sub.Name))
	f.Line()
	f.Comment(lineComment(wrap("Submit writes in to the submission's boards in one script call, exactly once: every board is checked by its own write's guards (layout, migration fence, season, ranges) before any is written, and a refusal leaves them all as they were, as a *rankgenrt.SubmissionError naming the write (errors.Is matches the write's own refusal). A lost reply is a *rankgenrt.UncertainError: resend the same submission under its token (rankgenrt.WithIdempotencyKey) and it applies once. The first board's options (dedup window, replicas) apply to the call.")))
	f.Func().Params(jen.Id("s").Id(name)).Id("Submit").Params(ctxParam(), jen.Id("in").Id(name+"Input")).Params(jen.Id("out").Id(name+"Written"), jen.Err().Error()).Block(
		jen.Err().Op("=").Add(rt("Submit")).Call(jen.Id("ctx"), jen.Id(fn), jen.Index().Add(rt("Step")).Values(steps...)),
		jen.Return(jen.Id("out"), jen.Err()),
	)
	f.Line()
	return nil
}

// stepDoc says what a step's write does to its board.
func stepDoc(st *layout.Step) string {
	switch st.Write {
	case layout.StepSet:
		return "stores the given entry"
	case layout.StepBest:
		return "keeps whichever of its entry and the given one ranks first"
	case layout.StepInsert:
		return "stores the given entry where the id has none"
	}
	return "applies the given changes to the id's entry"
}
