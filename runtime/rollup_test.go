package runtime

import (
	"errors"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestRollupLine: a line RollupLine writes reads back as its season and key (a key with
// spaces included); any other line is a reply rankgen never writes (ErrBadReply).
func TestRollupLine(t *testing.T) {
	s := Season{ID: -3600}
	key := RollupKey("{lb} weekly", "Points", RollupSum, 7, s)
	if id, got, err := ParseRollupLine(RollupLine(key, s)); err != nil || id != s.ID || got != key {
		t.Fatalf("ParseRollupLine(RollupLine(%q)) = %d, %q, %v", key, id, got, err)
	}
	for _, bad := range []string{"", "12", "12 ", "x key", " key"} {
		if _, _, err := ParseRollupLine(bad); !errors.Is(err, ErrBadReply) {
			t.Errorf("ParseRollupLine(%q) = %v; want ErrBadReply", bad, err)
		}
	}
	for op, want := range map[RollupOp]string{RollupSum: "sum", RollupMax: "max", RollupMin: "min", 0: "RollupOp(0)"} {
		if op.String() != want {
			t.Errorf("RollupOp(%d).String() = %q; want %q", int(op), op.String(), want)
		}
	}
}

// TestOneScript: one script reaches keys of any slots on one server, and on a Cluster only
// keys of one slot (a shared hash tag).
func TestOneScript(t *testing.T) {
	single := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer single.Close()
	defer cluster.Close()
	tagged, spread := []string{"{lb}:weekly:1", "{lb}:weekly:1:meta", "{lb}:all"}, []string{"lb:weekly:1", "lb:weekly:2"}
	for _, c := range []struct {
		client redis.UniversalClient
		keys   []string
		want   bool
	}{{single, tagged, true}, {single, spread, true}, {cluster, tagged, true}, {cluster, spread, false}} {
		if got := OneScript(c.client, c.keys); got != c.want {
			t.Errorf("OneScript(%T, %q) = %v; want %v", c.client, c.keys, got, c.want)
		}
	}
}

// TestRemovals: the remove_everywhere reply reads board by board, id by id; a reply of another
// length or with another number than 0 or 1 is ErrBadReply, and a script's error is typed.
func TestRemovals(t *testing.T) {
	got, err := Removals([]any{int64(1), int64(0), int64(0), int64(1), int64(0), int64(0)}, nil, 3, 2)
	if err != nil || fmt.Sprint(got) != "[[1 0] [0 1] [0 0]]" {
		t.Fatalf("Removals = %v, %v", got, err)
	}
	for _, bad := range []any{[]any{int64(1)}, []any{int64(2), int64(0)}, []any{"1", int64(0)}, int64(1)} {
		if _, err := Removals(bad, nil, 1, 2); !errors.Is(err, ErrBadReply) {
			t.Errorf("Removals(%v) = %v; want ErrBadReply", bad, err)
		}
	}
	if _, err := Removals(nil, otherWords("RANKGEN_LAYOUT_MISMATCH board has layout x, this code writes layout y"), 1, 1); !errors.Is(err, ErrLayoutMismatch) {
		t.Errorf("Removals of a refusal = %v; want ErrLayoutMismatch", err)
	}
}
