package boardmodel

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

// Board drives any generated *Board through reflection, in the interpreted codec's terms
// (layout.Entry, keys), so that one test covers every generated package. Method names and
// signatures are the generated API: Set(ctx, Entry) error, Add<Field>(ctx, id, delta int64)
// (Entry, error), Set<Field>Many(ctx, []Update[V]) ([]Result, error), and so on.
type Board struct {
	Layout *layout.Layout
	V      reflect.Value // the *Board
	entryT reflect.Type

	between, is reflect.Value // the leading score field's band constructors (WithBands)
	// changes are the package's change constructors (UseChanges), by field and update.
	changes map[changeKey]reflect.Value
	setData reflect.Value // SetData, on a layout with data fields
}

// NewBoard adapts board, a generated *Board of layout l.
func NewBoard(l *layout.Layout, board any) *Board {
	v := reflect.ValueOf(board)
	return &Board{Layout: l, V: v, entryT: v.MethodByName("Set").Type().In(1)}
}

// Call calls a method with a background context first and returns its results. Each argument
// is a reflect.Value or a plain value, converted to the parameter's type when it differs and
// converts; the arguments of a variadic parameter are passed one by one.
func (b *Board) Call(name string, args ...any) []reflect.Value {
	m := b.V.MethodByName(name)
	if !m.IsValid() {
		panic("generated Board has no method " + name)
	}
	mt := m.Type()
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for i, a := range args {
		v, ok := a.(reflect.Value)
		if !ok {
			v = reflect.ValueOf(a)
		}
		var pt reflect.Type
		if mt.IsVariadic() && i+1 >= mt.NumIn()-1 {
			pt = mt.In(mt.NumIn() - 1).Elem()
		} else {
			pt = mt.In(i + 1)
		}
		if v.Type() != pt && v.Type().ConvertibleTo(pt) {
			v = v.Convert(pt)
		}
		in = append(in, v)
	}
	return m.Call(in)
}

// ErrOf is the error in a result value (nil for a nil interface).
func ErrOf(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	return v.Interface().(error)
}

// ID converts an id to the generated id type of l (string or uint64).
func ID(l *layout.Layout, id string) reflect.Value {
	if l.IDType == layout.IDUint64 {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			panic(err)
		}
		return reflect.ValueOf(n)
	}
	return reflect.ValueOf(id)
}

// MethodName is the name of a field update method: AddPoints, MaxTier, …
func MethodName(f *layout.Field, op layout.Op) string {
	k := string(op)
	return strings.ToUpper(k[:1]) + k[1:] + f.Name
}

// Entry is e as the generated Entry.
func (b *Board) Entry(e layout.Entry) reflect.Value {
	p := reflect.New(b.entryT)
	oracle.ToGenerated(b.Layout, e, p.Interface())
	return p.Elem()
}

// FromEntry is a generated Entry as the interpreted one.
func (b *Board) FromEntry(v reflect.Value) layout.Entry {
	return oracle.FromGenerated(b.Layout, v.Interface())
}

// FieldValue is key as the Go value of field i (the argument of Set<Field>, Max<Field>, …).
func (b *Board) FieldValue(i int, key uint64) reflect.Value {
	e := layout.Entry{ID: "0", Keys: make([]uint64, len(b.Layout.Fields))}
	for j, f := range b.Layout.Fields {
		e.Keys[j] = f.Lo
	}
	e.Keys[i] = key
	return b.Entry(e).FieldByName(b.Layout.Fields[i].Name)
}

func (b *Board) entries(es []layout.Entry) reflect.Value {
	s := reflect.MakeSlice(reflect.SliceOf(b.entryT), len(es), len(es))
	for i, e := range es {
		s.Index(i).Set(b.Entry(e))
	}
	return s
}

// Set calls Set.
func (b *Board) Set(e layout.Entry) (Written, error) {
	out := b.Call("Set", b.Entry(e))
	return b.written(out[0]), ErrOf(out[1])
}

// SetMany calls SetMany.
func (b *Board) SetMany(es []layout.Entry) ([]Written, error) {
	out := b.Call("SetMany", b.entries(es))
	return b.writtenAll(out[0]), ErrOf(out[1])
}

// Best calls Best.
func (b *Board) Best(e layout.Entry) (Written, error) {
	out := b.Call("Best", b.Entry(e))
	return b.written(out[0]), ErrOf(out[1])
}

// BestMany calls BestMany.
func (b *Board) BestMany(es []layout.Entry) ([]Written, error) {
	out := b.Call("BestMany", b.entries(es))
	return b.writtenAll(out[0]), ErrOf(out[1])
}

// Insert calls Insert.
func (b *Board) Insert(e layout.Entry) (Written, error) {
	out := b.Call("Insert", b.Entry(e))
	return b.written(out[0]), ErrOf(out[1])
}

// InsertMany calls InsertMany.
func (b *Board) InsertMany(es []layout.Entry) ([]Written, error) {
	out := b.Call("InsertMany", b.entries(es))
	return b.writtenAll(out[0]), ErrOf(out[1])
}

// written is a generated Written in the interpreted codec's terms (Before is left zero when
// the id had no entry). A failed write's zero Written is the zero Written.
func (b *Board) written(v reflect.Value) Written {
	if v.IsZero() {
		return Written{}
	}
	w := Written{Existed: v.FieldByName("Existed").Bool(), Changed: v.FieldByName("Changed").Bool(),
		Entry: b.FromEntry(Embedded(v, "Entry"))}
	if w.Existed {
		w.Before = b.FromEntry(v.FieldByName("Before"))
	}
	return w
}

// writtenAll is a generated []Written (nil stays nil) in the interpreted codec's terms.
func (b *Board) writtenAll(v reflect.Value) []Written {
	if v.IsNil() {
		return nil
	}
	out := make([]Written, v.Len())
	for i := range out {
		out[i] = b.written(v.Index(i))
	}
	return out
}

// Method is the name of the method that applies u: AddPoints, MaxTier, …
func (b *Board) Method(u Update) string { return MethodName(b.Layout.Fields[u.Field], u.Op) }

func (b *Board) arg(u Update) reflect.Value {
	if u.Op == layout.OpAdd {
		return reflect.ValueOf(u.Delta)
	}
	return b.FieldValue(u.Field, u.Key)
}

// Update applies u to id through its method (Add<Field>, …) and returns what it did.
func (b *Board) Update(id string, u Update) (Written, error) {
	out := b.Call(b.Method(u), ID(b.Layout, id), b.arg(u))
	return b.written(out[0]), ErrOf(out[1])
}

// Result is one Result of a batch update: what it did, or its error.
type Result struct {
	Written
	Err error
}

// UpdateMany applies updates of one method (the same field and op) in one <Method>Many call.
func (b *Board) UpdateMany(ids []string, us []Update) ([]Result, error) {
	name := b.Method(us[0]) + "Many"
	s := reflect.MakeSlice(b.V.MethodByName(name).Type().In(1), len(us), len(us))
	for i, u := range us {
		v := s.Index(i)
		v.FieldByName(b.Layout.IDName).Set(ID(b.Layout, ids[i]))
		v.FieldByName("Value").Set(b.arg(u))
	}
	return b.results(b.Call(name, s))
}

// Remove calls Remove.
func (b *Board) Remove(ids ...string) (int64, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = ID(b.Layout, id)
	}
	out := b.Call("Remove", args...)
	return out[0].Int(), ErrOf(out[1])
}

// Trim calls Trim.
func (b *Board) Trim(keep int64) (int64, error) {
	out := b.Call("Trim", keep)
	return out[0].Int(), ErrOf(out[1])
}

// Get calls Get.
func (b *Board) Get(id string) (layout.Entry, error) {
	out := b.Call("Get", ID(b.Layout, id))
	if err := ErrOf(out[1]); err != nil {
		return layout.Entry{}, err
	}
	return b.FromEntry(out[0]), nil
}

// Rank calls Rank.
func (b *Board) Rank(id string) (int64, error) {
	out := b.Call("Rank", ID(b.Layout, id))
	return out[0].Int(), ErrOf(out[1])
}

// Ranked is one entry of Top with its rank.
type Ranked struct {
	Rank  int64
	Entry layout.Entry
}

// Top calls Top.
func (b *Board) Top(n int64) ([]Ranked, error) {
	out := b.Call("Top", n)
	if err := ErrOf(out[1]); err != nil {
		return nil, err
	}
	rs := make([]Ranked, out[0].Len())
	for i := range rs {
		r := out[0].Index(i)
		rs[i] = Ranked{Rank: r.FieldByName("Rank").Int(), Entry: b.FromEntry(Embedded(r, "Entry"))}
	}
	return rs, nil
}

// Count calls Count.
func (b *Board) Count() (int64, error) {
	out := b.Call("Count")
	return out[0].Int(), ErrOf(out[1])
}

// Keys calls Keys: the sorted set's key, then the index or meta key.
func (b *Board) Keys() []string {
	return b.V.MethodByName("Keys").Call(nil)[0].Interface().([]string)
}

func (b *Board) String() string { return fmt.Sprintf("%s board %v", b.Layout.Package, b.Keys()) }

// results reads the ([]Result, error) a batch method returned: per item, its error or its
// entry.
func (b *Board) results(out []reflect.Value) ([]Result, error) {
	if err := ErrOf(out[1]); err != nil {
		return nil, err
	}
	res := make([]Result, out[0].Len())
	for i := range res {
		r := out[0].Index(i)
		if res[i].Err = ErrOf(r.FieldByName("Err")); res[i].Err == nil {
			res[i].Written = b.written(Embedded(r, "Written"))
		}
	}
	return res, nil
}

// Embedded is v's field of the package's type name it embeds (Entry, Written): named so, or
// in a package of boards with the board's name before it (TrackEntry).
func Embedded(v reflect.Value, name string) reflect.Value {
	if f := v.FieldByName(name); f.IsValid() {
		return f
	}
	for i := 0; i < v.NumField(); i++ {
		if f := v.Type().Field(i); f.Anonymous && namedFor("."+f.Name, name) {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}
