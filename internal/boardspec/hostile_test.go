package boardspec

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/boardmodel"
	"github.com/rankgen/rankgen/internal/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// Hostile states: keys of a board written by other code, which the scripts must refuse or
// step around without touching what they do not own.

// fill stores n entries with ids id0, id1, … (or 0, 1, … for uint64 ids), each with a distinct
// first key where the field allows, and returns the ids.
func (b *board) fill(n int) []string {
	b.t.Helper()
	l := b.ex.l
	ids := make([]string, n)
	es := make([]layout.Entry, n)
	for i := range es {
		ids[i] = "id" + strconv.Itoa(i)
		if l.IDType == layout.IDUint64 {
			ids[i] = strconv.Itoa(i)
		}
		es[i] = layout.Entry{ID: ids[i], Keys: boardmodel.Zero(l)}
		f := l.Fields[0]
		es[i].Keys[0] = f.Lo + uint64(i)%(f.Span()+1)
	}
	if err := b.SetMany(es); err != nil {
		b.t.Fatalf("%s: SetMany: %v", b.ex.name, err)
	}
	return ids
}

// memberOf is the member the board stores for id: the index's, or the id itself.
func (b *board) memberOf(id string) string {
	b.t.Helper()
	if !b.ex.l.HasPrefix() {
		return id
	}
	m, err := b.c.HGet(ctx, rankgenrt.IndexKey(b.key), id).Result()
	if err != nil {
		b.t.Fatalf("%s: index of %q: %v", b.ex.name, id, err)
	}
	return m
}

// Trim removes an index entry only when it points at the member trimmed: a foreign member
// whose text ends with another id's (or with nothing, the fingerprint's field "") is removed
// from the board alone.
func TestTrimRemovesOnlyItsOwnIndexEntries(t *testing.T) {
	c := redistest.Client(t)
	for _, ex := range examples(t) {
		if !ex.l.HasPrefix() {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			b := ex.board(t, c, redistest.Key(t, "{trim}"))
			ids := b.fill(3)
			index := map[string]string{}
			for _, id := range ids {
				index[id] = b.memberOf(id)
			}
			// Another prefix before id1's text, and a member shorter than the prefix.
			other := strings.Repeat("~", ex.l.PrefixLen) + ids[1]
			short := "x"
			lowest := redis.Z{Score: -1}
			for _, m := range []string{other, short} {
				lowest.Member = m
				if err := c.ZAdd(ctx, b.key, lowest).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := b.Trim(3); err != nil || n != 2 {
				t.Fatalf("Trim(3) = %d, %v; want the 2 foreign members removed", n, err)
			}
			got, err := c.HGetAll(ctx, rankgenrt.IndexKey(b.key)).Result()
			if err != nil {
				t.Fatal(err)
			}
			if got[""] != ex.l.Fingerprint {
				t.Fatalf("Trim removed the fingerprint: index %q", got)
			}
			delete(got, "")
			if len(got) != len(index) {
				t.Fatalf("index after Trim %q, want %q", got, index)
			}
			for id, m := range index {
				if got[id] != m {
					t.Fatalf("index after Trim %q, want %q", got, index)
				}
			}
			if n, err := b.Trim(1); err != nil || n != 2 {
				t.Fatalf("Trim(1) = %d, %v; want 2", n, err)
			}
			if n := c.HLen(ctx, rankgenrt.IndexKey(b.key)).Val(); n != 2 {
				t.Fatalf("index holds %d fields after Trim(1), want the fingerprint and one id", n)
			}
		})
	}
}
