package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RollupOp is how a rollup combines a field's values of one id over several seasons.
type RollupOp int

// The rollup operations: the exact sum (a sum outside the field's range is refused with
// ErrOverflow, never clamped), the largest value, the smallest.
const (
	RollupSum RollupOp = iota + 1
	RollupMax
	RollupMin
)

// String is the operation's name, as the rollup script takes it: sum, max or min.
func (o RollupOp) String() string {
	switch o {
	case RollupSum:
		return "sum"
	case RollupMax:
		return "max"
	case RollupMin:
		return "min"
	}
	return "RollupOp(" + strconv.Itoa(int(o)) + ")"
}

// ErrCrossSlot: an operation over several seasons' boards that runs in one script was asked of
// a Cluster for seasons whose keys lie in different hash slots (a base key without a hash tag);
// nothing was sent. Give the base a hash tag, "{lb}:weekly".
var ErrCrossSlot = errors.New("rankgen: the seasons' keys lie in different hash slots; give the base key a hash tag")

// CheckSlots returns ErrCrossSlot when c is a Cluster client and base has no hash tag: then
// the keys <base>:<id> of different seasons hash apart, and one script cannot read them all.
func CheckSlots(c redis.UniversalClient, base string) error {
	if _, cluster := c.(*redis.ClusterClient); cluster && HashTag(base) == base {
		return ErrCrossSlot
	}
	return nil
}

// RollupLastError is the *RangeError of a RollupSpec.Last outside [1, keep+1]: a rollup reads
// seasons whose boards still exist, the newest and the keep before it that the schema's
// season block keeps.
func RollupLastError(last, keep int) error {
	return &RangeError{Field: "RollupSpec.Last", Value: strconv.Itoa(last), Min: "1", Max: strconv.Itoa(keep + 1),
		Reason: fmt.Sprintf("the schema's season keeps %d past seasons (keep: %d), so a rollup reads at most %d, the newest and the %d before it; raise keep in the schema to roll up more", keep, keep, keep+1, keep)}
}

// RollupKey is the key of the cached rollup of field by op over the last seasons up to the
// season newest, beside the seasons' boards under base (in their hash slot when base has a
// hash tag).
func RollupKey(base, field string, op RollupOp, last int, newest Season) string {
	return base + ":rollup:" + field + ":" + op.String() + ":" + strconv.Itoa(last) + ":" + strconv.FormatInt(newest.ID, 10)
}

// RollupsKey is the list of the cached rollups of the seasons under base: a sorted set of
// lines (RollupLine), each scored by its rollup's expiry in Unix milliseconds.
func RollupsKey(base string) string { return base + ":rollups" }

// RollupLine is a rollup's line in RollupsKey: the ID of its newest season, then its key.
func RollupLine(key string, newest Season) string {
	return strconv.FormatInt(newest.ID, 10) + " " + key
}

// ParseRollupLine reads a line of RollupsKey: the ID of the rollup's newest season and its
// key, or an error matching ErrBadReply for a line RollupLine did not write.
func ParseRollupLine(line string) (id int64, key string, err error) {
	head, key, found := strings.Cut(line, " ")
	id, perr := strconv.ParseInt(head, 10, 64)
	if !found || perr != nil || key == "" {
		return 0, "", badReply("rollups", "a line <season ID> <key>", line)
	}
	return id, key, nil
}

// OneScript reports whether one script may touch every key of keys: on a Cluster, when they
// all lie in one hash slot; on any other client, always (one server holds them all).
func OneScript(c redis.UniversalClient, keys []string) bool {
	if _, cluster := c.(*redis.ClusterClient); !cluster {
		return true
	}
	for _, k := range keys[1:] {
		if Slot(k) != Slot(keys[0]) {
			return false
		}
	}
	return true
}

// Removals reads the reply of the remove_everywhere script over boards boards for n ids: per
// board, per id, 1 when the board held it, else 0.
func Removals(v any, err error, boards, n int) ([][]int, error) {
	if err != nil {
		return nil, ReplyError(err)
	}
	a, ok := v.([]any)
	if !ok || len(a) != boards*n {
		return nil, badReply("remove_everywhere", fmt.Sprintf("%d counts", boards*n), v)
	}
	out := make([][]int, boards)
	for k := range out {
		out[k] = make([]int, n)
		for i := range n {
			held, ok := a[k*n+i].(int64)
			if !ok || held < 0 || held > 1 {
				return nil, badReply("remove_everywhere", "0 or 1", a[k*n+i])
			}
			out[k][i] = int(held)
		}
	}
	return out, nil
}
