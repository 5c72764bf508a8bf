package boardtest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/b04"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r01"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r02"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r12"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r27"
	"github.com/rankgen/rankgen/examples/boardtest/internal/random/r32"
	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/boardtest/internal/season/daily"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// randomChangeFuncs are the change constructors of the random boards, in catalogue order
// (boardmodel.Board.UseChanges checks them); b03 declares no update.
var randomChangeFuncs = map[string][]any{
	"r01": {r01.MaxWins, r01.MaxRaceTime, r01.MinRaceTime, r01.SetRaceTime},
	"r02": {r02.SetJoinedAt, r02.AddJoinedAt, r02.MinJoinedAt, r02.MaxJoinedAt, r02.SetGold},
	"r12": {r12.MinWins, r12.SetWins},
	"r27": {r27.SetSeason, r27.AddUpdatedAt, r27.MaxUpdatedAt, r27.MaxGold, r27.MaxLap, r27.MinLap},
	"r32": {r32.SetPriority, r32.MinPriority, r32.MaxPriority, r32.MinPoints, r32.SetPoints, r32.SetDelta, r32.AddBonus, r32.MinLap, r32.MaxLap},
	"b01": {b01.AddRaceTime, b01.MaxRaceTime, b01.SetStreak, b01.SetGems, b01.MaxGems},
	"b02": {b02.MinPaid, b02.MaxPaid, b02.SetPaid},
	"b04": {b04.SetDeadline},
	// blitz: see blitzExample.
	"blitz": {blitz.AddPoints, blitz.MinBest},
	"daily": {daily.AddProfit, daily.SetData},
}

// changeFuncs are the change constructors of the example or random board named name.
func changeFuncs(name string) []any {
	if fns, ok := randomChangeFuncs[name]; ok {
		return fns
	}
	return exampleboards.Example{Name: name}.Changes()
}

// changeList returns a random change list for id: distinct fields in random order, each with
// one of its updates (values as fieldOp draws them: edges, overflows, out of range), and now
// and then a field twice, which the board refuses. On a layout with data fields, a list now and
// then sets the data too (SetData, at a random place, now and then with data its field refuses
// or twice).
func (d *diff) changeList(id string) []boardmodel.Update {
	ops := d.updatable()
	var list []boardmodel.Update
	used := map[int]bool{}
	for _, k := range d.rng.Perm(len(ops)) {
		o := ops[k]
		if used[o.Field] || d.rng.IntN(2) == 0 {
			continue
		}
		used[o.Field] = true
		list = append(list, d.fieldOp(o, id))
	}
	if len(list) > 0 && d.rng.IntN(12) == 0 {
		f := list[d.rng.IntN(len(list))].Field
		again := boardmodel.Update{Field: f, Op: d.l.Fields[f].Updates[d.rng.IntN(len(d.l.Fields[f].Updates))]}
		list = append(list, d.fieldOp(again, id))
	}
	if d.l.HasData() && d.rng.IntN(3) == 0 {
		list = d.withSetData(list)
	}
	return list
}

// withSetData puts a SetData into list at a random place, and now and then a second one.
func (d *diff) withSetData(list []boardmodel.Update) []boardmodel.Update {
	n := 1
	if d.rng.IntN(16) == 0 {
		n = 2
	}
	for range n {
		at := d.rng.IntN(len(list) + 1)
		list = slices.Insert(list, at, boardmodel.Update{Op: boardmodel.OpData, Data: d.data()})
	}
	return list
}

func (d *diff) listString(us []boardmodel.Update) string {
	s := "["
	for i, u := range us {
		if i > 0 {
			s += ", "
		}
		s += u.String(d.l)
	}
	return s + "]"
}

// randomChanges applies a random change list through Update, or several (ids repeating)
// through UpdateMany, to the board and the model, and compares entries and errors.
func (d *diff) randomChanges() {
	if d.rng.IntN(2) == 0 {
		id := d.id()
		list := d.changeList(id)
		before := d.clocks()
		got, err := d.b.Changes(id, list)
		after := d.clocks()
		want, werr := d.m.Changes(id, list, d.stampsFrom(got.Entry, before, after))
		what := fmt.Sprintf("Update(%q, %s)", id, d.listString(list))
		d.compareWritten(what, []boardmodel.Written{got}, err, []boardmodel.Written{want}, werr)
		return
	}
	n := 1 + d.rng.IntN(5)
	ids, lists := make([]string, n), make([][]boardmodel.Update, n)
	for i := range n {
		ids[i] = d.id()
		lists[i] = d.changeList(ids[i])
	}
	before := d.clocks()
	res, err := d.b.ChangesMany(ids, lists)
	after := d.clocks()
	if err != nil {
		d.errorf("UpdateMany(%d): %v", n, err)
		return
	}
	for i := range n {
		want, werr := d.m.Changes(ids[i], lists[i], d.stampsFrom(res[i].Entry, before, after))
		w := fmt.Sprintf("UpdateMany[%d] (%q, %s)", i, ids[i], d.listString(lists[i]))
		d.compareWritten(w, []boardmodel.Written{res[i].Written}, res[i].Err, []boardmodel.Written{want}, werr)
		if werr != nil && errors.Is(werr, rankgenrt.ErrBadChange) && !errors.Is(res[i].Err, rankgenrt.ErrBadChange) {
			d.errorf("%s: a field changed twice was not refused: %v", w, res[i].Err)
		}
	}
}
