package catalog

import (
	"testing"
	"time"

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

// TestUpdateHead: the arguments the runtime starts a field update with
// (rankgenrt.Core.UpdateArgs) are as many as the catalogue's update rows declare before their
// id, value pairs, on a board with and without a season.
func TestUpdateHead(t *testing.T) {
	lib := rankgenrt.NewLibrary("#!lua name=t\n")
	for _, l := range examples(t) {
		spec := &rankgenrt.Spec{Library: lib}
		core := rankgenrt.NewCore(nil, "k", spec)
		if l.Season != nil {
			s := rankgenrt.Season{ID: 1, Start: time.Unix(0, 0), End: time.Unix(60, 0)}
			core = rankgenrt.NewSeasonCore(nil, "k", spec, s, rankgenrt.TTL(time.Minute))
		}
		want := UpdateArgsOf(l)
		if got := len(core.UpdateArgs(0)); got != want.Fixed() || want.Stride() != 2 {
			t.Errorf("%s: rankgenrt.Core.UpdateArgs starts with %d arguments; the catalogue's updates take %d, then %d per update", l.Package, got, want.Fixed(), want.Stride())
		}
	}
}
