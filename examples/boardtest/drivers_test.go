package boardtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
)

// A driver runs one kind of catalogue operation on the board under test and on the model, and
// compares their answers (every generated method of the kind's row, catalog.Op.Methods).
type driver struct {
	weight int // a write's share of the random steps; 0 for a read: every read step runs them all
	run    func(d *diff, op catalog.Op)
}

// drivers are the differential tests' drivers, one per kind of catalogue operation. The kinds a
// run drives are those of its board's catalogue (catalog.Ops), so a kind without a driver fails
// the run (and TestDrivers), and a run fails unless it drove each of them (diff.checkDriven).
var drivers = map[catalog.Kind]driver{
	catalog.Set:     {weight: 17, run: (*diff).driveSet},
	catalog.Best:    {weight: 15, run: (*diff).driveBest},
	catalog.Insert:  {weight: 10, run: (*diff).driveInsert},
	catalog.Update:  {weight: 45, run: (*diff).driveUpdate},
	catalog.Changes: {weight: 20, run: func(d *diff, _ catalog.Op) { d.randomChanges() }},
	catalog.Touch:   {weight: 8, run: (*diff).driveTouch},
	catalog.Remove:  {weight: 8, run: (*diff).driveRemove},
	catalog.Trim:    {weight: 3, run: (*diff).driveTrim},

	catalog.Get:         {run: (*diff).driveGet},
	catalog.Rank:        {run: (*diff).driveRank},
	catalog.Page:        {run: (*diff).drivePage},
	catalog.Around:      {run: (*diff).driveAround},
	catalog.After:       {run: (*diff).driveAfter},
	catalog.Count:       {run: (*diff).driveCount},
	catalog.Range:       {run: (*diff).driveRange},
	catalog.CountRange:  {run: (*diff).driveCountRange},
	catalog.Competition: {run: (*diff).driveCompetition},
	catalog.Dense:       {run: (*diff).driveDense},
	catalog.GetMany:     {run: (*diff).driveGetMany},
	catalog.RankMany:    {run: (*diff).driveRankMany},
	catalog.RankedMany:  {run: (*diff).driveRankedMany},
	catalog.Bottom:      {run: (*diff).driveBottom},
	catalog.Standing:    {run: (*diff).driveStanding},
	catalog.Band:        {run: (*diff).driveBand},
	catalog.CountBand:   {run: (*diff).driveCountBand},
	catalog.AroundScore: {run: (*diff).driveAroundScore},
}

// readWeight is the reads' share of the random steps, beside the writes' weights.
const readWeight = 12

// TestDrivers checks that every kind of catalogue operation has a driver, a write one with a
// weight and a read one without: the differential tests drive each kind a board has.
func TestDrivers(t *testing.T) {
	for _, k := range catalog.Kinds {
		dr, ok := drivers[k]
		if !ok || dr.run == nil {
			t.Errorf("no differential driver for operations of kind %s (drivers)", k)
		}
	}
	for _, ex := range withPeriodic() {
		for _, op := range catalog.Ops(parse(t, ex.schema)) {
			if (drivers[op.Kind].weight > 0) == op.ReadOnly {
				t.Errorf("%s: %s: writes, and only they, are drawn by weight", ex.name, op.Name)
			}
		}
	}
}

// useCatalogue lists the operations the run drives: one per kind of the board's catalogue,
// but on a ShardedBoard none of those it leaves to its shards (catalog.ShardPerShard).
func (d *diff) useCatalogue(sharded bool) {
	d.t.Helper()
	d.writes, d.reads, d.driven = nil, nil, map[catalog.Kind]bool{}
	for _, op := range catalog.Ops(d.l) {
		switch {
		case sharded && op.Sharding == catalog.ShardPerShard:
		case slices.ContainsFunc(append(d.writes, d.reads...), func(o catalog.Op) bool { return o.Kind == op.Kind }):
		case drivers[op.Kind].run == nil:
			d.t.Fatalf("%s: no differential driver for operations of kind %s (drivers)", d.l.Package, op.Kind)
		case op.ReadOnly:
			d.reads = append(d.reads, op)
		default:
			d.writes = append(d.writes, op)
		}
	}
}

// randomOp runs one step: a write of a kind drawn by weight, or every read. The first steps run
// each write kind once, then the reads, so that every kind is driven however short the run.
func (d *diff) randomOp() {
	if i := d.step - 1; i < len(d.writes) {
		d.drive(d.writes[i])
		return
	}
	if d.step > len(d.writes)+1 {
		r := d.rng.IntN(readWeight + d.writeWeights())
		for _, op := range d.writes {
			if r -= drivers[op.Kind].weight; r < 0 {
				d.drive(op)
				return
			}
		}
	}
	for _, op := range d.reads {
		d.drive(op)
	}
}

func (d *diff) writeWeights() int {
	n := 0
	for _, op := range d.writes {
		n += drivers[op.Kind].weight
	}
	return n
}

func (d *diff) drive(op catalog.Op) {
	d.driven[op.Kind] = true
	d.op = op.Name
	drivers[op.Kind].run(d, op)
}

// checkDriven fails the run for a kind of its catalogue it never drove.
func (d *diff) checkDriven() {
	d.t.Helper()
	for _, op := range append(slices.Clip(d.writes), d.reads...) {
		if !d.driven[op.Kind] {
			d.t.Errorf("%s: the run never drove %s (%v)", d.l.Package, op.Kind, op.Methods)
		}
	}
}

// entries returns 1 to 5 random entries.
func (d *diff) entries() []layout.Entry {
	es := make([]layout.Entry, 1+d.rng.IntN(5))
	for i := range es {
		es[i] = d.entry()
	}
	return es
}

// checkAll is the model's error for a batch of entries: the first entry's it refuses, as a
// board validates a batch before it writes any of it.
func (d *diff) checkAll(es []layout.Entry) error {
	for _, e := range es {
		if err := d.m.Check(e); err != nil {
			return err
		}
	}
	return nil
}

func (d *diff) driveSet(catalog.Op) {
	if d.rng.IntN(17) < 12 {
		e := d.entry()
		got, err := d.b.Set(e)
		want, werr := d.m.Set(e)
		d.compareWritten(fmt.Sprintf("Set(%s)", d.fmt(e)), []boardmodel.Written{got}, err, []boardmodel.Written{want}, werr)
		return
	}
	es := d.entries()
	got, err := d.b.SetMany(es)
	want, werr := d.modelAll(es, d.m.Set)
	d.compareWritten(fmt.Sprintf("SetMany(%d)", len(es)), got, err, want, werr)
}

func (d *diff) driveBest(catalog.Op) {
	if d.rng.IntN(3) < 2 {
		e := d.entry()
		got, err := d.b.Best(e)
		want, werr := d.m.Best(e)
		d.compareWritten(fmt.Sprintf("Best(%s)", d.fmt(e)), []boardmodel.Written{got}, err, []boardmodel.Written{want}, werr)
		return
	}
	es := d.entries()
	got, err := d.b.BestMany(es)
	want, werr := d.modelAll(es, d.m.Best)
	d.compareWritten(fmt.Sprintf("BestMany(%d)", len(es)), got, err, want, werr)
}

func (d *diff) driveInsert(catalog.Op) {
	if d.rng.IntN(3) < 2 {
		e := d.entry()
		got, err := d.b.Insert(e)
		want, werr := d.m.Insert(e)
		d.compareWritten(fmt.Sprintf("Insert(%s)", d.fmt(e)), []boardmodel.Written{got}, err, []boardmodel.Written{want}, werr)
		return
	}
	es := d.entries()
	got, err := d.b.InsertMany(es)
	want, werr := d.modelAll(es, d.m.Insert)
	d.compareWritten(fmt.Sprintf("InsertMany(%d)", len(es)), got, err, want, werr)
}

// modelAll applies the model's write to each of es in order, as a batch does, once all are
// valid; else it writes nothing and returns the first one's error.
func (d *diff) modelAll(es []layout.Entry, write func(layout.Entry) (boardmodel.Written, error)) ([]boardmodel.Written, error) {
	if err := d.checkAll(es); err != nil {
		return nil, err
	}
	out := make([]boardmodel.Written, len(es))
	for i, e := range es {
		out[i], _ = write(e)
	}
	return out, nil
}

// compareWritten compares what a write says it did, item by item, with the model's account.
func (d *diff) compareWritten(what string, got []boardmodel.Written, err error, want []boardmodel.Written, werr error) {
	d.t.Helper()
	d.compareErr(what, err, werr)
	if err != nil || werr != nil {
		return
	}
	if len(got) != len(want) {
		d.errorf("%s: %d results; the model %d", what, len(got), len(want))
		return
	}
	for i, g := range got {
		w := want[i]
		if g.Existed != w.Existed || g.Changed != w.Changed {
			d.errorf("%s[%d]: existed %v, changed %v; the model says %v, %v", what, i, g.Existed, g.Changed, w.Existed, w.Changed)
		}
		if w.Existed {
			d.compareEntry(fmt.Sprintf("%s[%d].Before", what, i), g.Before, w.Before)
		}
		d.compareEntry(fmt.Sprintf("%s[%d].Entry", what, i), g.Entry, w.Entry)
	}
}

// driveUpdate runs a field update, single (two steps in three) or batch, of any field the
// board updates: the catalogue has one operation per field update, the driver draws among them.
func (d *diff) driveUpdate(catalog.Op) {
	ops := d.updatable()
	if d.rng.IntN(3) < 2 {
		id := d.id()
		o := d.fieldOp(ops[d.rng.IntN(len(ops))], id)
		before := d.clocks()
		got, err := d.b.Update(id, o)
		after := d.clocks()
		want, werr := d.m.Update(id, o, d.stampsFrom(got.Entry, before, after))
		what := fmt.Sprintf("%s(%q, %s)", d.b.Method(o), id, o.String(d.l))
		d.compareWritten(what, []boardmodel.Written{got}, err, []boardmodel.Written{want}, werr)
		return
	}
	kind := ops[d.rng.IntN(len(ops))]
	n := 1 + d.rng.IntN(6)
	ids, batch := make([]string, n), make([]boardmodel.Update, n)
	for i := range n {
		ids[i] = d.id()
		batch[i] = d.fieldOp(kind, ids[i])
	}
	before := d.clocks()
	res, err := d.b.UpdateMany(ids, batch)
	after := d.clocks()
	what := fmt.Sprintf("%sMany(%d)", d.b.Method(kind), n)
	if err != nil {
		d.errorf("%s: %v", what, err)
		return
	}
	for i := range n {
		want, werr := d.m.Update(ids[i], batch[i], d.stampsFrom(res[i].Entry, before, after))
		w := fmt.Sprintf("%s[%d] (%q, %s)", what, i, ids[i], batch[i].String(d.l))
		d.compareWritten(w, []boardmodel.Written{res[i].Written}, res[i].Err, []boardmodel.Written{want}, werr)
	}
}

// driveTouch touches one id (two steps in three) or several, ids repeating, in one batch.
func (d *diff) driveTouch(catalog.Op) {
	if d.rng.IntN(3) < 2 {
		id := d.id()
		before := d.clocks()
		got, err := d.b.Touch(id)
		after := d.clocks()
		want, werr := d.m.Touch(id, d.stampsFrom(got.Entry, before, after))
		d.compareWritten(fmt.Sprintf("Touch(%q)", id), []boardmodel.Written{got}, err, []boardmodel.Written{want}, werr)
		return
	}
	ids := make([]string, 1+d.rng.IntN(5))
	for i := range ids {
		ids[i] = d.id()
	}
	before := d.clocks()
	res, err := d.b.TouchMany(ids)
	after := d.clocks()
	if err != nil {
		d.errorf("TouchMany(%q): %v", ids, err)
		return
	}
	for i, id := range ids {
		want, werr := d.m.Touch(id, d.stampsFrom(res[i].Entry, before, after))
		d.compareWritten(fmt.Sprintf("TouchMany[%d] (%q)", i, id), []boardmodel.Written{res[i].Written}, res[i].Err, []boardmodel.Written{want}, werr)
	}
}

func (d *diff) driveRemove(catalog.Op) {
	ids := make([]string, 1+d.rng.IntN(3))
	for i := range ids {
		ids[i] = d.id()
	}
	ids = slices.Compact(ids)
	got, err := d.b.Remove(ids...)
	want, werr := d.m.Remove(ids...)
	d.compareErr("Remove", err, werr)
	if got != want {
		d.errorf("Remove(%q) = %d; the model says %d", ids, got, want)
	}
}

func (d *diff) driveTrim(catalog.Op) {
	keep := int64(d.rng.IntN(len(d.m.Entries)+3)) - 1
	if d.rng.IntN(2) == 0 { // keep most, usually
		keep = int64(len(d.m.Entries)) - int64(d.rng.IntN(3))
	}
	got, err := d.b.Trim(keep)
	want, werr := d.m.Trim(keep)
	d.compareErr(fmt.Sprintf("Trim(%d)", keep), err, werr)
	if got != want {
		d.errorf("Trim(%d) = %d; the model says %d", keep, got, want)
	}
}
