package boardtest

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/oracle"
)

// rboard drives any generated *Board through reflection, in the interpreted codec's terms
// (layout.Entry, keys), so that one differential test covers every example. Method names and
// signatures are the generated API: Set(ctx, Entry) error, Add<Field>(ctx, id, delta int64)
// (Entry, error), Set<Field>Many(ctx, []Update[V]) ([]Result, error), and so on.
type rboard struct {
	l      *layout.Layout
	v      reflect.Value // *Board
	entryT reflect.Type
}

func newRBoard(l *layout.Layout, board any) *rboard {
	v := reflect.ValueOf(board)
	return &rboard{l: l, v: v, entryT: v.MethodByName("Set").Type().In(1)}
}

// call calls a method with ctx first and returns its results.
func (b *rboard) call(name string, args ...reflect.Value) []reflect.Value {
	m := b.v.MethodByName(name)
	if !m.IsValid() {
		panic("generated Board has no method " + name)
	}
	in := append([]reflect.Value{reflect.ValueOf(context.Background())}, args...)
	if m.Type().IsVariadic() {
		return m.CallSlice(in)
	}
	return m.Call(in)
}

func errOf(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	return v.Interface().(error)
}

// id converts an id to the Board's id type (string or uint64).
func (b *rboard) id(id string) reflect.Value {
	if b.l.IDType == layout.IDUint64 {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			panic(err)
		}
		return reflect.ValueOf(n)
	}
	return reflect.ValueOf(id)
}

func (b *rboard) entry(e layout.Entry) reflect.Value {
	p := reflect.New(b.entryT)
	oracle.ToGenerated(b.l, e, p.Interface())
	return p.Elem()
}

func (b *rboard) fromEntry(v reflect.Value) layout.Entry {
	return oracle.FromGenerated(b.l, v.Interface())
}

// fieldValue is key as the Go value of field i (the argument of Set<Field>, Max<Field>, …).
func (b *rboard) fieldValue(i int, key uint64) reflect.Value {
	e := layout.Entry{ID: "0", Keys: make([]uint64, len(b.l.Fields))}
	for j, f := range b.l.Fields {
		e.Keys[j] = f.Lo
	}
	e.Keys[i] = key
	return b.entry(e).FieldByName(b.l.Fields[i].Name)
}

func (b *rboard) set(e layout.Entry) error {
	return errOf(b.call("Set", b.entry(e))[0])
}

func (b *rboard) setMany(es []layout.Entry) error {
	s := reflect.MakeSlice(reflect.SliceOf(b.entryT), len(es), len(es))
	for i, e := range es {
		s.Index(i).Set(b.entry(e))
	}
	return errOf(b.call("SetMany", s)[0])
}

func (b *rboard) best(e layout.Entry) (bool, error) {
	out := b.call("Best", b.entry(e))
	return out[0].Bool(), errOf(out[1])
}

func (b *rboard) bestMany(es []layout.Entry) ([]bool, error) {
	s := reflect.MakeSlice(reflect.SliceOf(b.entryT), len(es), len(es))
	for i, e := range es {
		s.Index(i).Set(b.entry(e))
	}
	out := b.call("BestMany", s)
	kept, _ := out[0].Interface().([]bool)
	return kept, errOf(out[1])
}

// method is the name of a field update method: AddPoints, MaxTier, …
func (b *rboard) method(o fieldOp) string {
	k := string(o.Kind)
	return strings.ToUpper(k[:1]) + k[1:] + b.l.Fields[o.Field].Name
}

func (b *rboard) opArg(o fieldOp) reflect.Value {
	if o.Kind == layout.OpAdd {
		return reflect.ValueOf(o.Delta)
	}
	return b.fieldValue(o.Field, o.Key)
}

func (b *rboard) update(id string, o fieldOp) (layout.Entry, error) {
	out := b.call(b.method(o), b.id(id), b.opArg(o))
	if err := errOf(out[1]); err != nil {
		return layout.Entry{}, err
	}
	return b.fromEntry(out[0]), nil
}

// result is one Result of a batch update.
type result struct {
	Entry layout.Entry
	Err   error
}

// updateMany applies updates of one method (the same field and kind) in one call.
func (b *rboard) updateMany(ids []string, ops []fieldOp) ([]result, error) {
	m := b.v.MethodByName(b.method(ops[0]) + "Many")
	sliceT := m.Type().In(1)
	s := reflect.MakeSlice(sliceT, len(ops), len(ops))
	for i, o := range ops {
		u := s.Index(i)
		u.FieldByName(b.l.IDName).Set(b.id(ids[i]))
		u.FieldByName("Value").Set(b.opArg(o))
	}
	out := b.call(b.method(ops[0])+"Many", s)
	if err := errOf(out[1]); err != nil {
		return nil, err
	}
	res := make([]result, out[0].Len())
	for i := range res {
		r := out[0].Index(i)
		res[i].Err = errOf(r.FieldByName("Err"))
		if res[i].Err == nil {
			res[i].Entry = b.fromEntry(r.FieldByName("Entry"))
		}
	}
	return res, nil
}

func (b *rboard) remove(ids ...string) (int64, error) {
	t := reflect.TypeOf("")
	if b.l.IDType == layout.IDUint64 {
		t = reflect.TypeOf(uint64(0))
	}
	s := reflect.MakeSlice(reflect.SliceOf(t), len(ids), len(ids))
	for i, id := range ids {
		s.Index(i).Set(b.id(id))
	}
	out := b.call("Remove", s)
	return out[0].Int(), errOf(out[1])
}

func (b *rboard) trim(keep int64) (int64, error) {
	out := b.call("Trim", reflect.ValueOf(keep))
	return out[0].Int(), errOf(out[1])
}

func (b *rboard) get(id string) (layout.Entry, error) {
	out := b.call("Get", b.id(id))
	if err := errOf(out[1]); err != nil {
		return layout.Entry{}, err
	}
	return b.fromEntry(out[0]), nil
}

func (b *rboard) rank(id string) (int64, error) {
	out := b.call("Rank", b.id(id))
	return out[0].Int(), errOf(out[1])
}

// ranked is one entry of Top/Page with its rank.
type ranked struct {
	Rank  int64
	Entry layout.Entry
}

func (b *rboard) top(n int64) ([]ranked, error) {
	out := b.call("Top", reflect.ValueOf(n))
	if err := errOf(out[1]); err != nil {
		return nil, err
	}
	rs := make([]ranked, out[0].Len())
	for i := range rs {
		r := out[0].Index(i)
		rs[i] = ranked{Rank: r.FieldByName("Rank").Int(), Entry: b.fromEntry(r.FieldByName("Entry"))}
	}
	return rs, nil
}

func (b *rboard) count() (int64, error) {
	out := b.call("Count")
	return out[0].Int(), errOf(out[1])
}

func (b *rboard) keys() []string {
	return b.v.MethodByName("Keys").Call(nil)[0].Interface().([]string)
}

func (b *rboard) String() string { return fmt.Sprintf("%s board %v", b.l.Package, b.keys()) }
