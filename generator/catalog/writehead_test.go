package catalog

import (
	"testing"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestWriteHead: the catalogue's write head (the arguments every write function reads first)
// and the runtime's, which fills them in (rankgenrt.Core.WriteArgs), have the same length, and
// every write row starts with it.
func TestWriteHead(t *testing.T) {
	head := WriteArgs()
	if len(head) != rankgenrt.WriteHead {
		t.Fatalf("catalog.WriteArgs has %d arguments %v, rankgenrt.WriteHead is %d", len(head), head, rankgenrt.WriteHead)
	}
	if at, err := (Args{Head: head}).At(ArgToken); err != nil || at != 3 {
		t.Fatalf("the token is ARGV[%d] (%v); rankgenrt.Core.Write fills in the third argument", at, err)
	}
	for _, l := range examples(t) {
		for _, op := range Ops(l) {
			if op.ReadOnly {
				continue
			}
			for i, name := range head {
				if i >= len(op.Args.Head) || op.Args.Head[i] != name {
					t.Errorf("%s: its arguments %v do not start with the write head %v", op.Name, op.Args.Head, head)
					break
				}
			}
		}
	}
}
