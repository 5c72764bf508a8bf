package boardtest

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/boardmodel"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
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
	if _, err := b.SetMany(es); err != nil {
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
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { trimRemovesOnlyItsOwnIndexEntries(t, tg.Client) })
}

func trimRemovesOnlyItsOwnIndexEntries(t *testing.T, c redis.UniversalClient) {
	for _, ex := range specExamples(t) {
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

// fresh is another Board on the same key (and season), one that has not seen the board's
// fingerprint.
func (b *board) fresh() *board {
	args := []reflect.Value{reflect.ValueOf(b.c), reflect.ValueOf(b.key)}
	if s, ok := b.Season(); ok {
		args = append(args, reflect.ValueOf(s))
	}
	return b.ex.boardOf(b.t, b.c, b.key, args)
}

// writeTries are calls that write the entry of id: Best with an entry that would win and one
// that would lose, and every field update of the layout in its single and batch forms. Each
// returns its error (a batch: its call's, else its one update's). Their values are the highest
// the board accepts (a season-anchored one inside the board's season).
func (b *board) writeTries(id string) map[string]func() error {
	l := b.ex.l
	m := boardmodel.For(b.Board)
	tries := map[string]func() error{}
	for _, edge := range []string{"low", "high"} {
		e := layout.Entry{ID: id, Keys: make([]uint64, len(l.Fields))}
		for i, f := range l.Fields {
			e.Keys[i] = f.Lo
			if edge == "high" {
				e.Keys[i] = m.MaxKey(f)
			}
		}
		tries["Best "+edge] = func() error { _, err := b.fresh().Best(e); return err }
		tries["BestMany "+edge] = func() error { _, err := b.fresh().BestMany([]layout.Entry{e}); return err }
	}
	for fi, f := range l.Fields {
		for _, op := range f.Updates {
			u := boardmodel.Update{Field: fi, Op: op, Delta: 1, Key: m.MaxKey(f)}
			name := boardmodel.MethodName(f, op)
			tries[name] = func() error { _, err := b.fresh().Update(id, u); return err }
			tries[name+"Many"] = func() error {
				res, err := b.fresh().UpdateMany([]string{id}, []boardmodel.Update{u})
				if err != nil {
					return err
				}
				return res[0].Err
			}
		}
	}
	return tries
}

// refusedAll checks that every write try fails with want and leaves the board as it was.
func (b *board) refusedAll(id string, want error, what string) {
	b.t.Helper()
	before := dumpKeys(b.t.(*testing.T), b.c, b.key, rankgenrt.IndexKey(b.key), rankgenrt.MetaKey(b.key))
	for name, try := range b.writeTries(id) {
		if err := try(); !errors.Is(err, want) {
			b.t.Errorf("%s: %s on %s: %v, want %v", b.ex.name, name, what, err, want)
		}
		sameSnapshot(b.t.(*testing.T), name+" on "+what, before, dumpKeys(b.t.(*testing.T), b.c, b.key, rankgenrt.IndexKey(b.key), rankgenrt.MetaKey(b.key)))
	}
}

// A stored -0 (the skiplist encoding keeps it; the listpack one stores 0) is refused by every
// write script as Decode refuses it, with ErrBadScore and the board unchanged; a stored 0 is an
// entry like any other, for both.
func TestStoredNegativeZero(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { storedNegativeZero(t, tg.Client) })
}

func storedNegativeZero(t *testing.T, c redis.UniversalClient) {
	kept := 0
	for _, ex := range specExamples(t) {
		for _, n := range []int{3, 140} {
			t.Run(ex.name+"/"+strconv.Itoa(n), func(t *testing.T) {
				b := ex.board(t, c, redistest.Key(t, "{negzero}"))
				id := b.fill(n)[0]
				m := b.memberOf(id)
				// ZADD keeps a score equal to the stored one (0 == -0): remove the entry first.
				pipe := c.TxPipeline()
				pipe.ZRem(ctx, b.key, m)
				pipe.ZAdd(ctx, b.key, redis.Z{Score: math.Copysign(0, -1), Member: m})
				if _, err := pipe.Exec(ctx); err != nil {
					t.Fatal(err)
				}
				s, err := c.ZScore(ctx, b.key, m).Result()
				if err != nil || s != 0 {
					t.Fatalf("ZSCORE after ZADD -0: %v, %v", s, err)
				}
				if !math.Signbit(s) {
					_, err := b.fresh().Get(id)
					if err != nil {
						t.Fatalf("Get of a stored 0 (the encoding dropped the sign): %v", err)
					}
					for name, try := range b.writeTries(id) {
						if err := try(); errors.Is(err, rankgenrt.ErrBadScore) {
							t.Errorf("%s on a stored 0: %v", name, err)
						}
					}
					return
				}
				kept++
				if _, err := b.fresh().Get(id); !errors.Is(err, rankgenrt.ErrBadScore) {
					t.Fatalf("Get of a stored -0: %v, want ErrBadScore", err)
				}
				b.refusedAll(id, rankgenrt.ErrBadScore, "a stored -0")
			})
		}
	}
	if kept == 0 {
		t.Fatal("no encoding kept -0: the test exercised nothing")
	}
}

// Best checks the stored entry as the field updates do: a score (inf, 1e300, -1, 0.5) or, on a
// board with a member prefix, a member that this layout cannot have written is refused with
// ErrBadScore or ErrBadMember — never silently kept or overwritten — and the board is unchanged.
func TestBestRefusesForeignStoredEntry(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { bestRefusesForeignStoredEntry(t, tg.Client) })
}

func bestRefusesForeignStoredEntry(t *testing.T, c redis.UniversalClient) {
	for _, ex := range specExamples(t) {
		for _, score := range []float64{math.Inf(1), math.Inf(-1), 1e300, -1, 0.5} {
			t.Run(ex.name+"/"+strconv.FormatFloat(score, 'g', -1, 64), func(t *testing.T) {
				b := ex.board(t, c, redistest.Key(t, "{best}"))
				id := b.fill(1)[0]
				m := b.memberOf(id)
				if err := c.ZAddXX(ctx, b.key, redis.Z{Score: score, Member: m}).Err(); err != nil {
					t.Fatal(err)
				}
				out := ex.decode.Call([]reflect.Value{reflect.ValueOf(score), reflect.ValueOf(m)})
				if boardmodel.ErrOf(out[1]) == nil {
					t.Skipf("%v is a score of this layout", score) // 0.5 on a decimal layout
				}
				b.refusedAll(id, rankgenrt.ErrBadScore, "a stored score "+strconv.FormatFloat(score, 'g', -1, 64))
			})
		}
		if !ex.l.HasPrefix() {
			continue
		}
		t.Run(ex.name+"/member", func(t *testing.T) {
			b := ex.board(t, c, redistest.Key(t, "{best}"))
			id := b.fill(1)[0]
			m := b.memberOf(id)
			bad := "Z" + m[1:] // a prefix byte no layout writes; the id is still at the end
			pipe := c.TxPipeline()
			pipe.Rename(ctx, b.key, b.key+":old")
			pipe.ZAdd(ctx, b.key, redis.Z{Score: c.ZScore(ctx, b.key, m).Val(), Member: bad})
			pipe.Del(ctx, b.key+":old")
			pipe.HSet(ctx, rankgenrt.IndexKey(b.key), id, bad)
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			b.refusedAll(id, rankgenrt.ErrBadMember, "a stored member "+strconv.Quote(bad))
		})
	}
}

// An index entry that points at another id's member is never followed: every script that
// reads the index (reads and writes) refuses it with ErrBadMember and changes nothing, so
// Get("p") never returns q's entry and no write of p touches q.
func TestIndexPointingAtAnotherIDRefused(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { indexPointingAtAnotherIDRefused(t, tg.Client) })
}

func indexPointingAtAnotherIDRefused(t *testing.T, c redis.UniversalClient) {
	for _, ex := range specExamples(t) {
		if !ex.l.HasPrefix() {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			b := ex.board(t, c, redistest.Key(t, "{idx}"))
			ids := b.fill(2)
			p, q := ids[0], ids[1]
			if err := c.HSet(ctx, rankgenrt.IndexKey(b.key), p, b.memberOf(q)).Err(); err != nil {
				t.Fatal(err)
			}
			what := "an index entry of " + p + " pointing at " + q + "'s member"
			reads := map[string][]any{"Get": {}, "Rank": {}, "Around": {int64(1), int64(1)}}
			if b.V.MethodByName("CompetitionRank").IsValid() {
				reads["CompetitionRank"] = nil
			}
			for name, more := range reads {
				out := b.fresh().call(name, append([]any{boardmodel.ID(ex.l, p)}, more...)...)
				if err := boardmodel.ErrOf(out[len(out)-1]); !errors.Is(err, rankgenrt.ErrBadMember) {
					t.Errorf("%s with %s: %v, want ErrBadMember", name, what, err)
				}
			}
			b.refusedAll(p, rankgenrt.ErrBadMember, what)
			before := dumpKeys(t, c, b.key, rankgenrt.IndexKey(b.key))
			if _, err := b.Remove(p); !errors.Is(err, rankgenrt.ErrBadMember) {
				t.Errorf("Remove with %s: %v, want ErrBadMember", what, err)
			}
			if _, err := b.Set(layout.Entry{ID: p, Keys: boardmodel.Zero(ex.l)}); !errors.Is(err, rankgenrt.ErrBadMember) {
				t.Errorf("Set with %s: %v, want ErrBadMember", what, err)
			}
			sameSnapshot(t, "Remove and Set with "+what, before, dumpKeys(t, c, b.key, rankgenrt.IndexKey(b.key)))
		})
	}
}

// sentCounter counts the commands a client sends.
type sentCounter struct{ n atomic.Int64 }

func (s *sentCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (s *sentCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		s.n.Add(1)
		return next(ctx, cmd)
	}
}

func (s *sentCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		s.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// Trim takes every keep up to math.MaxInt64 (numbers reach Redis as exact integer text, never
// in exponent form), and After refuses a NaN cursor with ErrBadScore before any round trip; an
// infinite cursor is a place like any other (before the top, or past the end).
func TestHugeTrimAndNonFiniteCursor(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { hugeTrimAndNonFiniteCursor(t, tg.Client) })
}

func hugeTrimAndNonFiniteCursor(t *testing.T, c redis.UniversalClient) {
	sent := &sentCounter{}
	c.AddHook(sent)
	for _, ex := range specExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			b := ex.board(t, c, redistest.Key(t, "{huge}"))
			b.fill(3)
			for _, keep := range []int64{math.MaxInt64, 1e17, 1<<53 + 1, 3} {
				if n, err := b.Trim(keep); err != nil || n != 0 {
					t.Fatalf("Trim(%d) of 3 entries = %d, %v; want 0, nil", keep, n, err)
				}
			}
			if n, err := b.Trim(1); err != nil || n != 2 {
				t.Fatalf("Trim(1) of 3 entries = %d, %v; want 2, nil", n, err)
			}
			cursorT := b.V.MethodByName("After").Type().In(1)
			after := func(score float64) (int, error) {
				cur := reflect.New(cursorT).Elem()
				cur.FieldByName("Score").SetFloat(score)
				cur.FieldByName("Member").SetString("m")
				out := b.call("After", cur, int64(10))
				return out[0].Len(), boardmodel.ErrOf(out[2])
			}
			before := sent.n.Load()
			if _, err := after(math.NaN()); !errors.Is(err, rankgenrt.ErrBadScore) {
				t.Errorf("After(NaN cursor): %v, want ErrBadScore", err)
			}
			if n := sent.n.Load() - before; n != 0 {
				t.Errorf("After(NaN cursor) sent %d commands, want none", n)
			}
			if n, err := after(math.Inf(1)); err != nil || n != 1 {
				t.Errorf("After(+Inf cursor) = %d entries, %v; want the 1 entry", n, err)
			}
			if n, err := after(math.Inf(-1)); err != nil || n != 0 {
				t.Errorf("After(-Inf cursor) = %d entries, %v; want none", n, err)
			}
		})
	}
}

// Batches beyond one command's 4,000 arguments (the scripts chunk them) work on every board:
// SetMany, a batch update, Remove and Trim, with their index.
func TestBatchesBeyondOneChunk(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { batchesBeyondOneChunk(t, tg.Client) })
}

func batchesBeyondOneChunk(t *testing.T, c redis.UniversalClient) {
	for _, ex := range specExamples(t) {
		t.Run(ex.name, func(t *testing.T) {
			b := ex.board(t, c, redistest.Key(t, "{chunks}"))
			m := boardmodel.For(b.Board)
			ids := b.fill(5000)
			for i, id := range ids {
				e := layout.Entry{ID: id, Keys: boardmodel.Zero(ex.l)}
				f := ex.l.Fields[0]
				e.Keys[0] = f.Lo + uint64(i)%(f.Span()+1)
				if _, err := m.Set(e); err != nil {
					t.Fatal(err)
				}
			}
			b.checkState(m, "SetMany of 5000")
			if n, err := b.Remove(ids[:4500]...); err != nil || n != 4500 {
				t.Fatalf("Remove of 4500 ids = %d, %v", n, err)
			}
			if _, err := m.Remove(ids[:4500]...); err != nil {
				t.Fatal(err)
			}
			b.checkState(m, "Remove of 4500")
			for i, id := range b.fill(4600) { // id0…id4599 again, as fill writes them
				e := layout.Entry{ID: id, Keys: boardmodel.Zero(ex.l)}
				f := ex.l.Fields[0]
				e.Keys[0] = f.Lo + uint64(i)%(f.Span()+1)
				if _, err := m.Set(e); err != nil {
					t.Fatal(err)
				}
			}
			b.checkState(m, "SetMany of 4600 over 500")
			if n, err := b.Trim(1); err != nil || n != 4999 {
				t.Fatalf("Trim(1) of 5000 = %d, %v", n, err)
			}
			if _, err := m.Trim(1); err != nil {
				t.Fatal(err)
			}
			b.checkState(m, "Trim(1) of 5000")
		})
	}
}
