package migrate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// converter returns how a key of the old field becomes a key of the new one (range checks
// are the caller's): the same number for uint, int and bool (0/1) fields, the same name for
// enums, the same instant for times. Other kind changes have no mapping.
func converter(of, nf *layout.Field) (func(uint64) (uint64, error), error) {
	switch {
	case numeric(of.Kind) && numeric(nf.Kind):
		return func(key uint64) (uint64, error) { return numberKey(nf, numberOf(of, key)) }, nil
	case of.Kind == layout.Enum && nf.Kind == layout.Enum:
		return enumConverter(of, nf), nil
	case of.Kind == layout.Time && nf.Kind == layout.Time:
		return timeConverter(of, nf), nil
	}
	return nil, fmt.Errorf("field %s: type %s → %s has no mapping of values (only uint, int and bool convert into each other, enums map by value name and times by instant): keep the type, or rename the field and give the new one a -default",
		nf.Name, of.Kind, nf.Kind)
}

func numeric(k layout.Kind) bool { return k == layout.Uint || k == layout.Int || k == layout.Bool }

// number is an integer value of either sign: uint64 magnitudes and int64 values alike.
type number struct {
	neg bool
	abs uint64
}

func numberOf(f *layout.Field, key uint64) number {
	if f.Kind != layout.Int {
		return number{abs: key}
	}
	v := layout.IntOf(key)
	if v < 0 {
		return number{neg: true, abs: uint64(-(v + 1)) + 1}
	}
	return number{abs: uint64(v)}
}

func (n number) String() string {
	if n.neg {
		return "-" + strconv.FormatUint(n.abs, 10)
	}
	return strconv.FormatUint(n.abs, 10)
}

// numberKey is the key of n in field f, or an error when f's type cannot hold n at all.
func numberKey(f *layout.Field, n number) (uint64, error) {
	switch {
	case f.Kind == layout.Int && !n.neg && n.abs <= math.MaxInt64:
		return layout.IntKey(int64(n.abs)), nil
	case f.Kind == layout.Int && n.neg && n.abs <= 1<<63:
		return layout.IntKey(int64(-(n.abs - 1)) - 1), nil
	case f.Kind == layout.Uint && !n.neg:
		return n.abs, nil
	case f.Kind == layout.Bool && !n.neg && n.abs <= 1:
		return n.abs, nil
	}
	return 0, fmt.Errorf("%s does not fit a %s field", n, f.Kind)
}

func enumConverter(of, nf *layout.Field) func(uint64) (uint64, error) {
	return func(key uint64) (uint64, error) {
		name := of.Format(key)
		i := slices.Index(nf.Values, name)
		if i < 0 {
			return 0, fmt.Errorf("value %s is not among [%s]", name, strings.Join(nf.Values, " "))
		}
		return uint64(i), nil
	}
}

// timeConverter keeps the instant: a coarser unit must divide it exactly.
func timeConverter(of, nf *layout.Field) func(uint64) (uint64, error) {
	from, to := int64(of.Unit.Duration()), int64(nf.Unit.Duration())
	return func(key uint64) (uint64, error) {
		n := layout.IntOf(key)
		if from >= to {
			f := from / to
			if n > math.MaxInt64/f || n < math.MinInt64/f {
				return 0, fmt.Errorf("%s is out of range in unit %s", of.Format(key), nf.Unit)
			}
			return layout.IntKey(n * f), nil
		}
		f := to / from
		if n%f != 0 {
			return 0, fmt.Errorf("%s is not a whole number of %s (unit %s would round it)", of.Format(key), nf.Unit, nf.Unit)
		}
		return layout.IntKey(n / f), nil
	}
}
