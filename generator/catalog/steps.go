package catalog

import (
	"fmt"

	"github.com/rankgen/rankgen/generator/layout"
)

// stepKinds are the operations a submission's step performs, by its write.
var stepKinds = map[layout.StepWrite]Kind{
	layout.StepSet:    Set,
	layout.StepBest:   Best,
	layout.StepInsert: Insert,
	layout.StepUpdate: Changes,
}

// StepOp is the board operation a submission's step makes on a board of layout l: its single
// form is what the step's Lua runs and its Go method what the step calls. An error says why the
// board cannot take the write (update on a layout whose fields declare no update).
func StepOp(l *layout.Layout, w layout.StepWrite) (Op, error) {
	kind, ok := stepKinds[w]
	if !ok {
		return Op{}, fmt.Errorf("no write %q", w)
	}
	for _, op := range Ops(l) {
		if op.Kind == kind {
			return op, nil
		}
	}
	return Op{}, fmt.Errorf("its layout has no %s write (update needs a field that declares update:)", w)
}
