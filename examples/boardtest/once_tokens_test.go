package boardtest

import (
	"context"
	"errors"
	"maps"
	"math"
	"net"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/boardtest/internal/season/blitz"
	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// withAcks is dump of the board's keys (Keys) with its ack keys (every recorded token and its
// reply): what a refused write must leave as it found it, its recorded tokens included.
func withAcks(t *testing.T, c redis.UniversalClient, keys []string) map[string]any {
	t.Helper()
	out := dump(t, c, keys)
	for _, k := range ackKeys(t, c, keys[0]) {
		v, err := c.Get(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		out[k] = v
	}
	return out
}

// scriptKeys are the keys the scripts of layout l take for the board under key (the generated
// boardKeys): the sorted set, its index or meta key, the ack key base, the fence, the data.
func scriptKeys(l *layout.Layout, key string) []string {
	aux := rankgenrt.MetaKey(key)
	if l.HasPrefix() {
		aux = rankgenrt.IndexKey(key)
	}
	keys := []string{key, aux, rankgenrt.AckBase(key), rankgenrt.FenceKey(key)}
	if l.HasData() {
		keys = append(keys, rankgenrt.DataKey(key))
	}
	return keys
}

// TestTokenReusedRefused: a key recorded by one write is refused to another operation with
// ErrTokenReused, nothing written, where it used to answer with the first write's reply
// (Remove "removed" 1 entry after a Set under the same key). Set and SetMany, Best and
// BestMany, Update and UpdateMany are one operation each (one script); a field update and its
// Many form are two.
func TestTokenReusedRefused(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { tokenReusedRefused(t, tg.Client) })
}

func tokenReusedRefused(t *testing.T, c redis.UniversalClient) {
	at := time.Unix(1800000000, 0)
	ann := arena.Entry{PlayerID: "ann", Points: 10, ReachedAt: at}
	calls := map[string]func(context.Context, *arena.Board) error{
		"Set": func(ctx context.Context, b *arena.Board) error { _, err := b.Set(ctx, ann); return err },
		"SetMany": func(ctx context.Context, b *arena.Board) error {
			_, err := b.SetMany(ctx, []arena.Entry{ann})
			return err
		},
		"Best": func(ctx context.Context, b *arena.Board) error {
			_, err := b.Best(ctx, arena.Entry{PlayerID: "ann", Points: 50, ReachedAt: at})
			return err
		},
		"Remove": func(ctx context.Context, b *arena.Board) error { _, err := b.Remove(ctx, "ann"); return err },
		"Trim":   func(ctx context.Context, b *arena.Board) error { _, err := b.Trim(ctx, 0); return err },
		"AddPoints": func(ctx context.Context, b *arena.Board) error {
			_, err := b.AddPoints(ctx, "ann", 5)
			return err
		},
		"AddPointsMany": func(ctx context.Context, b *arena.Board) error {
			_, err := b.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "ann", Value: 5}})
			return err
		},
		"SetPaid": func(ctx context.Context, b *arena.Board) error { _, err := b.SetPaid(ctx, "ann", true); return err },
		"Update": func(ctx context.Context, b *arena.Board) error {
			_, err := b.Update(ctx, "ann", arena.AddPoints(5))
			return err
		},
		"UpdateMany": func(ctx context.Context, b *arena.Board) error {
			_, err := b.UpdateMany(ctx, []arena.Changes{{PlayerID: "ann", Apply: []arena.Change{arena.AddPoints(5)}}})
			return err
		},
	}
	for _, tc := range []struct {
		first, then        string
		firstOp, refusedOp string // the scripts: "" = the same operation, answered with the first reply
	}{
		{"Set", "Remove", "set", "remove"},
		{"Set", "Trim", "set", "trim"},
		{"Set", "AddPoints", "set", "add_points"},
		{"Set", "Best", "set", "best"},
		{"Set", "Update", "set", "changes"},
		{"Remove", "Set", "remove", "set"},
		{"Trim", "Remove", "trim", "remove"},
		{"AddPoints", "AddPointsMany", "add_points", "add_points_many"},
		{"AddPoints", "SetPaid", "add_points", "set_paid"},
		{"AddPointsMany", "UpdateMany", "add_points_many", "changes"},
		{"Update", "AddPoints", "changes", "add_points"},
		{"Set", "SetMany", "", ""},
		{"Update", "UpdateMany", "", ""},
	} {
		t.Run(tc.first+"/"+tc.then, func(t *testing.T) {
			b := arena.NewBoard(c, redistest.Key(t, "reused"))
			if _, err := b.Set(ctx, ann); err != nil {
				t.Fatal(err)
			}
			keyed := rankgenrt.WithIdempotencyKey(ctx, "order-1")
			if err := calls[tc.first](keyed, b); err != nil {
				t.Fatal(err)
			}
			before := withAcks(t, c, b.Keys())
			err := calls[tc.then](keyed, b)
			if after := withAcks(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
				t.Errorf("%s under %s's key wrote:\nbefore %v\nafter  %v", tc.then, tc.first, before, after)
			}
			if tc.firstOp == "" {
				if err != nil {
					t.Fatalf("%s after %s (one operation): %v; want the first reply", tc.then, tc.first, err)
				}
				return
			}
			var re *rankgenrt.TokenReusedError
			if !errors.Is(err, rankgenrt.ErrTokenReused) || !errors.As(err, &re) || re.Key != "order-1" || re.First != tc.firstOp || re.Op != tc.refusedOp {
				t.Fatalf("%s under %s's key: %#v; want a *TokenReusedError (order-1, %s, %s)", tc.then, tc.first, err, tc.firstOp, tc.refusedOp)
			}
			// The key still names its first write: a resend of it gets its reply.
			if err := calls[tc.first](keyed, b); err != nil {
				t.Errorf("%s resent after the refusal: %v", tc.first, err)
			}
		})
	}
}

// TestTokenReusedEveryWrite: every write script of every example (the catalogue's, so a new
// write is covered as soon as it exists) refuses, before reading anything else, a token that
// another operation recorded, and writes nothing; the operation that recorded it is answered
// with its reply.
func TestTokenReusedEveryWrite(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { tokenReusedEveryWrite(t, tg.Client) })
}

func tokenReusedEveryWrite(t *testing.T, c redis.UniversalClient) {
	for _, ex := range withPeriodic() {
		t.Run(ex.name, func(t *testing.T) {
			l := parse(t, ex.schema)
			rendered, err := luaemit.Render(l)
			if err != nil {
				t.Fatal(err)
			}
			lib := rankgenrt.NewLibrary(rendered.Source)
			writes := map[string]*rankgenrt.Function{}
			tokenless := seasonScriptNames(l, true)
			for _, fn := range rendered.Functions {
				// A rollup takes no token: it rebuilds a cache, which twice is harmless. The
				// removal across seasons takes a board's keys and token like a board's writes.
				if !fn.ReadOnly && !tokenless[fn.Op] {
					writes[fn.Op] = lib.Function(fn.Op)
				}
			}
			if writes["remove"] == nil || len(writes) < 4 {
				t.Fatalf("write scripts %v: want remove and the others", slices.Collect(maps.Keys(writes)))
			}
			b := liveBoard(t, c, ex, redistest.Key(t, "every"))
			keys := scriptKeys(l, reflect.ValueOf(b).MethodByName("Key").Call(nil)[0].Interface().(string))
			// The head every write script starts with (catalog.WriteArgs): no expiry, the
			// token, a window of a minute. Remove with no ids records the token and removes 0.
			head := []any{"", "", "order-1", "60"}
			if n, err := rankgenrt.RunWrite(ctx, c, writes["remove"], keys, "order-1", head...); err != nil || n != int64(0) {
				t.Fatalf("remove of no ids = %v, %v", n, err)
			}
			held := reflect.ValueOf(b).MethodByName("Keys").Call(nil)[0].Interface().([]string)
			before := withAcks(t, c, held)
			for name, s := range writes {
				if name == "remove" {
					continue
				}
				_, err := rankgenrt.RunWrite(ctx, c, s, keys, "order-1", head...)
				var re *rankgenrt.TokenReusedError
				if !errors.As(err, &re) || !errors.Is(err, rankgenrt.ErrTokenReused) || re.First != "remove" || re.Op != name {
					t.Errorf("%s under remove's token: %v; want a *TokenReusedError (remove, %s)", name, err, name)
				}
			}
			if after := withAcks(t, c, held); !reflect.DeepEqual(before, after) {
				t.Errorf("refused writes wrote:\nbefore %v\nafter  %v", before, after)
			}
			if n, err := rankgenrt.RunWrite(ctx, c, writes["remove"], keys, "order-1", head...); err != nil || n != int64(0) {
				t.Errorf("remove resent = %v, %v; want its reply 0", n, err)
			}
		})
	}
}

// TestDedupWindowHuge: a window within a second of the largest Duration keeps writes exactly
// once (its seconds overflowed to a negative window, which the scripts read as off, and the
// same key applied twice); a negative window refuses every write, nothing written, rather
// than turning exactly-once off; 0 alone turns it off (TestDedupOff).
func TestDedupWindowHuge(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { dedupWindowHuge(t, tg.Client) })
}

func dedupWindowHuge(t *testing.T, c redis.UniversalClient) {
	for i, d := range []time.Duration{math.MaxInt64, math.MaxInt64 - time.Second/2, math.MaxInt64 - time.Second + 1} {
		b := arena.NewBoard(c, redistest.Key(t, "huge"+string(rune('a'+i))), arena.WithDedupWindow(d))
		keyed := rankgenrt.WithIdempotencyKey(ctx, "same")
		for range 2 {
			if e, err := b.AddPoints(keyed, "a", 1); err != nil || e.Points != 1 {
				t.Fatalf("window %v: AddPoints = %+v, %v; want Points 1 (applied once)", d, e, err)
			}
		}
		// PEXPIRETIME as a number: go-redis's PTTL overflows a Duration this far out.
		until, err := c.Do(ctx, "PEXPIRETIME", rankgenrt.AckKey(rankgenrt.AckBase(b.Key()), "same")).Int64()
		if err != nil {
			t.Fatal(err)
		}
		if centuries := time.Now().AddDate(200, 0, 0).UnixMilli(); until < centuries {
			t.Errorf("window %v: the ack key expires at %d ms; want centuries from now (%d)", d, until, centuries)
		}
	}
	b := arena.NewBoard(c, redistest.Key(t, "negative"), arena.WithDedupWindow(-time.Second))
	_, err := b.AddPoints(rankgenrt.WithIdempotencyKey(ctx, "same"), "a", 1)
	if !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Fatalf("AddPoints with a window of -1s: %v; want ErrOutOfRange", err)
	}
	if n, err := c.Exists(ctx, b.Keys()...).Result(); err != nil || n != 0 {
		t.Errorf("a refused write left %d keys (%v)", n, err)
	}
}

// replyLoser makes the next script command it is armed for fail without a reply, as a
// connection lost at that moment would: after the server ran it (its reply lost), or before
// it reached the server.
type replyLoser struct{ mode atomic.Int32 }

const (
	keepReply   int32 = iota
	loseReply         // the script runs; its reply is lost
	loseRequest       // the script never reaches the server
)

func (h *replyLoser) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *replyLoser) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *replyLoser) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "fcall" {
			return next(ctx, cmd)
		}
		switch h.mode.Swap(keepReply) {
		case loseReply:
			if err := next(ctx, cmd); err != nil {
				return err
			}
		case loseRequest:
		default:
			return next(ctx, cmd)
		}
		err := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset (the test lost the reply)")}
		cmd.SetErr(err)
		return err
	}
}

// TestLiveResendAcrossSeasons: a write sent through Seasons.Live near the end of a 2-second
// blitz season fails without a reply; after the boundary, resent through Live under its
// token, it goes to the board of the season it was first sent to and to no other. Applied
// there, the resend gets its reply (it used to be applied a second time, on the next season's
// board); never applied, the closed season refuses it with ErrSeasonClosed and nothing is
// written anywhere. A key of the caller's own is bound to the season the same way.
func TestLiveResendAcrossSeasons(t *testing.T) {
	c := redistest.Client(t)
	lose := &replyLoser{}
	c.AddHook(lose)
	for _, tc := range []struct {
		name string
		mode int32
		key  string // the caller's idempotency key; "" = the board's own token
	}{
		{"applied", loseReply, ""},
		{"never applied", loseRequest, ""},
		{"own key applied", loseReply, "order-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := blitz.NewSeasons(c, "{"+redistest.Key(t, "resend")+"}", blitz.WithClock(func() time.Time { return serverNow(t, c) }))
			s := ss.Current()
			if s.End.Sub(serverNow(t, c)) < time.Second { // too close to the end: take the next
				s = ss.Next(s)
				time.Sleep(time.Until(s.Start.Add(50 * time.Millisecond)))
			}
			if err := ss.Board(s).Load(ctx); err != nil { // FCALL finds the library: the reply lost is the function's
				t.Fatal(err)
			}
			first := ctx
			if tc.key != "" {
				first = rankgenrt.WithIdempotencyKey(ctx, tc.key)
			}
			add := func(ctx context.Context, on *[]blitz.Season, got *blitz.Entry) error {
				return ss.Live(ctx, func(ctx context.Context, b *blitz.Board) error {
					*on = append(*on, b.Season())
					var err error
					var w blitz.Written
					w, err = b.AddPoints(ctx, "p", 5)
					*got = w.Entry
					return err
				})
			}
			var on []blitz.Season
			var got blitz.Entry
			lose.mode.Store(tc.mode)
			err := add(first, &on, &got)
			var ue *rankgenrt.UncertainError
			if !errors.As(err, &ue) || len(on) != 1 || on[0] != s {
				t.Fatalf("first send: %v on %v; want ErrUncertain on %v", err, on, s)
			}
			if id, ok := rankgenrt.KeySeason(ue.Token); !ok || id != s.ID {
				t.Fatalf("token %q names season %d (%v); want %d", ue.Token, id, ok, s.ID)
			}
			if tc.key != "" && ue.Token != rankgenrt.InSeason(tc.key, s.ID) {
				t.Fatalf("token %q; want the caller's key bound to its season", ue.Token)
			}
			time.Sleep(time.Until(s.End.Add(100 * time.Millisecond)))
			on = nil
			err = add(rankgenrt.WithIdempotencyKey(ctx, ue.Token), &on, &got)
			if len(on) != 1 || on[0] != s {
				t.Errorf("the resend went to %v; want %v alone", on, s)
			}
			want := blitz.Entry{}
			if tc.mode == loseReply {
				if err != nil || got.Points != 5 {
					t.Fatalf("resend: %+v, %v; want the first reply (Points 5)", got, err)
				}
				want.Points = 5
			} else if !errors.Is(err, rankgenrt.ErrSeasonClosed) {
				t.Fatalf("resend of a write never applied, after its season: %v; want ErrSeasonClosed", err)
			}
			for _, season := range []blitz.Season{s, ss.Next(s)} {
				e, err := ss.Board(season).Get(ctx, "p")
				if errors.Is(err, rankgenrt.ErrNotFound) {
					err = nil
				}
				if err != nil || e.Points != want.Points && season == s || e.Points != 0 && season != s {
					t.Errorf("%v holds %+v (%v); the write belongs to %v alone, applied %v", season, e, err, s, tc.mode == loseReply)
				}
			}
		})
	}
}
