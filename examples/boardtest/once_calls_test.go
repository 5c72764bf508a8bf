package boardtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// A token's record answers only a resend of the very call that wrote it: the same operation,
// with the same arguments, by code of the same layout. These tests send another call under a
// recorded key and want it refused with a *TokenReusedError saying why, nothing written (the
// board and every record as they were), where the record used to answer it: with a result
// built from the call's own arguments (Set(ann 555) "changed" ann to 555, the board holding
// 100), or with another layout's reply decoded by this layout's code.

// otherCall is a write under a key, then a call of the same operation with other arguments.
type otherCall struct {
	name, op string // the case; the operation (script) both calls run
	first    func(ctx context.Context) (any, error)
	other    func(ctx context.Context) (any, error)
}

func arenaOtherCalls(b *arena.Board) []otherCall {
	at := time.Unix(1800000000, 0)
	ann := func(points uint32) arena.Entry { return arena.Entry{PlayerID: "ann", Points: points, ReachedAt: at} }
	cy := arena.Entry{PlayerID: "cy", Points: 100, ReachedAt: at}
	return []otherCall{
		{"Set/other values", "set",
			func(ctx context.Context) (any, error) { return b.Set(ctx, ann(100)) },
			func(ctx context.Context) (any, error) { return b.Set(ctx, ann(555)) }},
		{"Set/other id", "set",
			func(ctx context.Context) (any, error) { return b.Set(ctx, ann(100)) },
			func(ctx context.Context) (any, error) { return b.Set(ctx, cy) }},
		{"SetMany/fewer entries", "set",
			func(ctx context.Context) (any, error) { return b.SetMany(ctx, []arena.Entry{ann(100), cy}) },
			func(ctx context.Context) (any, error) { return b.SetMany(ctx, []arena.Entry{ann(100)}) }},
		{"Best/other values", "best",
			func(ctx context.Context) (any, error) { return b.Best(ctx, ann(100)) },
			func(ctx context.Context) (any, error) { return b.Best(ctx, ann(555)) }},
		{"BestMany/more entries", "best",
			func(ctx context.Context) (any, error) { return b.BestMany(ctx, []arena.Entry{ann(100)}) },
			func(ctx context.Context) (any, error) { return b.BestMany(ctx, []arena.Entry{ann(100), cy}) }},
		{"AddPoints/other delta", "add_points",
			func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "ann", 1) },
			func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "ann", 5) }},
		{"AddPoints/other id", "add_points",
			func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "ann", 1) },
			func(ctx context.Context) (any, error) { return b.AddPoints(ctx, "cy", 1) }},
		{"SetPaid/other value", "set_paid",
			func(ctx context.Context) (any, error) { return b.SetPaid(ctx, "ann", true) },
			func(ctx context.Context) (any, error) { return b.SetPaid(ctx, "ann", false) }},
		{"AddPointsMany/more updates", "add_points_many",
			func(ctx context.Context) (any, error) {
				return b.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "ann", Value: 1}})
			},
			func(ctx context.Context) (any, error) {
				return b.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "ann", Value: 1}, {PlayerID: "cy", Value: 1}})
			}},
		{"Update/another change", "changes",
			func(ctx context.Context) (any, error) { return b.Update(ctx, "ann", arena.AddPoints(5)) },
			func(ctx context.Context) (any, error) {
				return b.Update(ctx, "ann", arena.AddPoints(5), arena.SetPaid(true))
			}},
		{"UpdateMany/other ids", "changes",
			func(ctx context.Context) (any, error) {
				return b.UpdateMany(ctx, []arena.Changes{{PlayerID: "ann", Apply: []arena.Change{arena.AddPoints(5)}}})
			},
			func(ctx context.Context) (any, error) {
				return b.UpdateMany(ctx, []arena.Changes{{PlayerID: "cy", Apply: []arena.Change{arena.AddPoints(5)}}})
			}},
		{"Remove/other id", "remove",
			func(ctx context.Context) (any, error) { return b.Remove(ctx, "ann") },
			func(ctx context.Context) (any, error) { return b.Remove(ctx, "bo") }},
		{"Trim/other keep", "trim",
			func(ctx context.Context) (any, error) { return b.Trim(ctx, 1) },
			func(ctx context.Context) (any, error) { return b.Trim(ctx, 0) }},
		{"Touch/other id", "touch",
			func(ctx context.Context) (any, error) { return b.Touch(ctx, "ann") },
			func(ctx context.Context) (any, error) { return b.Touch(ctx, "cy") }},
	}
}

func lapsOtherCalls(b *laps.Board) []otherCall {
	ada := func(name string) laps.Entry {
		return laps.Entry{Driver: "a", BestLap: 70000, Data: laps.Data{Name: name, Car: laps.CarKart}}
	}
	return []otherCall{
		{"Set/other data", "set",
			func(ctx context.Context) (any, error) { return b.Set(ctx, ada("Ada")) },
			func(ctx context.Context) (any, error) { return b.Set(ctx, ada("Bo")) }},
		{"Best/other data", "best",
			func(ctx context.Context) (any, error) { return b.Best(ctx, ada("Ada")) },
			func(ctx context.Context) (any, error) { return b.Best(ctx, ada("Bo")) }},
	}
}

// TestResendOtherArguments: a call of the operation that recorded a key, with other arguments
// (other values, ids, entries, data, changes, a longer or shorter batch), is refused with
// ErrTokenReused (Why: ReusedWithArguments), nothing written; the first call resent still gets
// its first result. It used to get the first reply, which the board read as its own: Set(ann
// 555) under Set(ann 100)'s key returned ann at 555, changed, the board holding 100, and Set(cy)
// under it returned cy written, cy having no entry.
func TestResendOtherArguments(t *testing.T) {
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { resendOtherArguments(t, tg.Client) })
}

func resendOtherArguments(t *testing.T, c redis.UniversalClient) {
	at := time.Unix(1800000000, 0)
	boards := map[string]func(key string) ([]string, []otherCall, func() error){
		"arena": func(key string) ([]string, []otherCall, func() error) {
			b := arena.NewBoard(c, key)
			return b.Keys(), arenaOtherCalls(b), func() error {
				_, err := b.SetMany(ctx, []arena.Entry{{PlayerID: "ann", Points: 10, ReachedAt: at}, {PlayerID: "bo", Points: 50, ReachedAt: at}})
				return err
			}
		},
		"laps": func(key string) ([]string, []otherCall, func() error) {
			b := laps.NewBoard(c, key)
			return b.Keys(), lapsOtherCalls(b), func() error {
				_, err := b.Set(ctx, laps.Entry{Driver: "b", BestLap: 65000})
				return err
			}
		},
	}
	for name, board := range boards {
		_, cases, _ := board("")
		for i := range cases {
			t.Run(name+"/"+cases[i].name, func(t *testing.T) {
				keys, cs, seed := board(redistest.Key(t, "other"))
				tc := cs[i]
				if err := seed(); err != nil {
					t.Fatal(err)
				}
				keyed := rankgenrt.WithIdempotencyKey(ctx, "order-1")
				first, err := tc.first(keyed)
				if err != nil {
					t.Fatal(err)
				}
				before := withAcks(t, c, keys)
				got, err := tc.other(keyed)
				var re *rankgenrt.TokenReusedError
				if !errors.Is(err, rankgenrt.ErrTokenReused) || !errors.As(err, &re) || re.Why != rankgenrt.ReusedWithArguments || re.First != tc.op || re.Op != tc.op || re.Key != "order-1" {
					t.Errorf("the other call under the first's key = %+v, %v; want a *TokenReusedError (order-1, %s, why %s)", got, err, tc.op, rankgenrt.ReusedWithArguments)
				}
				if after := withAcks(t, c, keys); !reflect.DeepEqual(before, after) {
					t.Errorf("the refused call wrote:\nbefore %v\nafter  %v", before, after)
				}
				// The key still names its first call: resent, it gets its first result.
				again, err := tc.first(keyed)
				if err != nil || !reflect.DeepEqual(first, again) {
					t.Errorf("the first call resent = %+v, %v; want its first result %+v", again, err, first)
				}
				if after := withAcks(t, c, keys); !reflect.DeepEqual(before, after) {
					t.Errorf("the first call resent wrote:\nbefore %v\nafter  %v", before, after)
				}
			})
		}
	}
}

// layoutCall is one write sent by the code of duel's layout (v1) under a key, then resent
// under it by the code of duelint's (v2: the same fields, another layout), as a queue would
// redeliver it after a deploy that changed the schema.
type layoutCall struct {
	name, op string
	v1       func(ctx context.Context, b *duel.Board) (any, error)
	v2       func(ctx context.Context, b *duelint.Board) (any, error)
}

func layoutCalls() []layoutCall {
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	return []layoutCall{
		{"AddPoints", "add_points",
			func(ctx context.Context, b *duel.Board) (any, error) { return b.AddPoints(ctx, "ann", 1) },
			func(ctx context.Context, b *duelint.Board) (any, error) { return b.AddPoints(ctx, "ann", 1) }},
		{"AddPointsMany", "add_points_many",
			func(ctx context.Context, b *duel.Board) (any, error) {
				return b.AddPointsMany(ctx, []duel.Update[int64]{{PlayerID: "ann", Value: 1}, {PlayerID: "cy", Value: 2}})
			},
			func(ctx context.Context, b *duelint.Board) (any, error) {
				return b.AddPointsMany(ctx, []duelint.Update[int64]{{PlayerID: "ann", Value: 1}, {PlayerID: "cy", Value: 2}})
			}},
		{"MaxTier", "max_tier",
			func(ctx context.Context, b *duel.Board) (any, error) { return b.MaxTier(ctx, "ann", duel.TierGold) },
			func(ctx context.Context, b *duelint.Board) (any, error) {
				return b.MaxTier(ctx, "ann", duelint.TierGold)
			}},
		{"Set", "set",
			func(ctx context.Context, b *duel.Board) (any, error) {
				return b.Set(ctx, duel.Entry{PlayerID: "ann", Points: 200, Wins: 3, ReachedAt: at})
			},
			func(ctx context.Context, b *duelint.Board) (any, error) {
				return b.Set(ctx, duelint.Entry{PlayerID: "ann", Points: 200, Wins: 3, ReachedAt: at})
			}},
		{"Best", "best",
			func(ctx context.Context, b *duel.Board) (any, error) {
				return b.Best(ctx, duel.Entry{PlayerID: "ann", Points: 300, ReachedAt: at})
			},
			func(ctx context.Context, b *duelint.Board) (any, error) {
				return b.Best(ctx, duelint.Entry{PlayerID: "ann", Points: 300, ReachedAt: at})
			}},
		{"Update", "changes",
			func(ctx context.Context, b *duel.Board) (any, error) {
				return b.Update(ctx, "ann", duel.AddPoints(4), duel.AddWins(1))
			},
			func(ctx context.Context, b *duelint.Board) (any, error) {
				return b.Update(ctx, "ann", duelint.AddPoints(4), duelint.AddWins(1))
			}},
		{"Remove", "remove",
			func(ctx context.Context, b *duel.Board) (any, error) { return b.Remove(ctx, "bo") },
			func(ctx context.Context, b *duelint.Board) (any, error) { return b.Remove(ctx, "bo") }},
	}
}

// TestResendAcrossLayouts: a write of duel's code under a key, resent under it by the code of
// duelint's layout (the same fields in another layout), on the same board and again after
// rankgen migrate switched the board to duelint's layout, is refused with ErrTokenReused (Why:
// ReusedByLayout, naming duel's fingerprint), nothing written: the record's reply is in duel's
// terms. It used to be answered with duel's reply, decoded by duelint's code (a success with
// made-up values, or an error about the board that misled). Resent by duel's code, the record
// still answers with the first result, after the migration too.
func TestResendAcrossLayouts(t *testing.T) {
	plan, err := migrate.NewPlan(parse(t, "duel.yaml"), parse(t, "duel_integer.yaml"), migrate.Mapping{})
	if err != nil {
		t.Fatal(err)
	}
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) { resendAcrossLayouts(t, tg.Client, plan) })
}

func resendAcrossLayouts(t *testing.T, c redis.UniversalClient, plan *migrate.Plan) {
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range layoutCalls() {
		t.Run(tc.name, func(t *testing.T) {
			key := redistest.Key(t, "layouts")
			v1, v2 := duel.NewBoard(c, key), duelint.NewBoard(c, key)
			if _, err := v1.SetMany(ctx, []duel.Entry{{PlayerID: "ann", Points: 10, Wins: 2, Tier: duel.TierSilver, ReachedAt: at},
				{PlayerID: "bo", Points: 7, ReachedAt: at}}); err != nil {
				t.Fatal(err)
			}
			keyed := rankgenrt.WithIdempotencyKey(ctx, "order-"+tc.name)
			first, err := tc.v1(keyed, v1)
			if err != nil {
				t.Fatal(err)
			}
			state := func() map[string]any {
				return map[string]any{"v1": withAcks(t, c, v1.Keys()), "v2": dump(t, c, v2.Keys())}
			}
			refused := func(when string) {
				t.Helper()
				before := state()
				got, err := tc.v2(keyed, v2)
				var re *rankgenrt.TokenReusedError
				if !errors.As(err, &re) || !errors.Is(err, rankgenrt.ErrTokenReused) || re.Why != rankgenrt.ReusedByLayout || re.Layout != duel.Fingerprint || re.First != tc.op || re.Op != tc.op {
					t.Errorf("%s: duelint's resend = %+v, %v; want a *TokenReusedError (%s of layout %s)", when, got, err, tc.op, duel.Fingerprint)
				}
				if after := state(); !reflect.DeepEqual(before, after) {
					t.Errorf("%s: the refused resend wrote:\nbefore %v\nafter  %v", when, before, after)
				}
			}
			refused("the same board")
			rep, err := migrate.Run(ctx, c, plan, migrate.Options{Key: key})
			if err != nil || !rep.Switched {
				t.Fatalf("migrate: %+v, %v", rep, err)
			}
			refused("after migrate")
			// duel's code resending its own call reads its own reply.
			if again, err := tc.v1(keyed, v1); err != nil || !reflect.DeepEqual(first, again) {
				t.Errorf("duel's resend after migrate = %+v, %v; want its first result %+v", again, err, first)
			}
			// A new key writes the migrated board with duelint's code.
			if _, err := tc.v2(rankgenrt.WithIdempotencyKey(ctx, "order-new"), v2); err != nil {
				t.Errorf("duelint's call under a new key after migrate: %v", err)
			}
		})
	}
}

// TestResendAddedField: the case, on a layout rendered here. Arena's code adds a point
// under a key; a field is added to arena's schema (v2: 53 bits, still all in the score, so its
// replies have arena's shape and arena's reply reads as v2's with other values); v2's code
// resends the add under the key, on the same board and after migrate switched the board to v2:
// refused with ErrTokenReused (ReusedByLayout), nothing written. It used to be answered with
// arena's reply: a success whose values v2 would decode with its own weights.
func TestResendAddedField(t *testing.T) {
	v1 := parse(t, "arena.yaml")
	src, err := os.ReadFile(filepath.Join("..", "schemas", "arena.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src = append(bytes.Replace(src, []byte("package: arena"), []byte("package: arena2"), 1), "  - name: Veteran\n    type: bool\n    order: desc\n"...)
	v2, err := layout.Parse("arena2.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Fingerprint != arena.Fingerprint || v2.Fingerprint == v1.Fingerprint || v2.HasPrefix() {
		t.Fatalf("arena2: fingerprint %s (arena's %s), prefix %v; want another layout, all in the score", v2.Fingerprint, v1.Fingerprint, v2.HasPrefix())
	}
	rendered, err := luaemit.Render(v2)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := migrate.NewPlan(v1, v2, migrate.Mapping{Defaults: map[string]string{"Veteran": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	addPoints := rankgenrt.NewLibrary(rendered.Source).Function("add_points")
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		c := tg.Client
		key := redistest.Key(t, "added")
		b := arena.NewBoard(c, key)
		if _, err := b.Set(ctx, arena.Entry{PlayerID: "ann", Points: 10, ReachedAt: time.Unix(1800000000, 0)}); err != nil {
			t.Fatal(err)
		}
		keyed := rankgenrt.WithIdempotencyKey(ctx, "order-1")
		if _, err := b.AddPoints(keyed, "ann", 1); err != nil {
			t.Fatal(err)
		}
		// v2's AddPoints(ann, 1) under the key: the write arguments (no expiry, the token, a
		// minute's window), the client's clock, the id and the delta.
		args := []any{"", "", "order-1", "60", time.Now().UnixMicro(), "ann", "1"}
		keys := scriptKeys(v2, key)
		resend := func(when string) {
			t.Helper()
			before := withAcks(t, c, b.Keys())
			got, err := rankgenrt.RunWrite(ctx, c, addPoints, keys, "order-1", args...)
			var re *rankgenrt.TokenReusedError
			if !errors.As(err, &re) || re.Why != rankgenrt.ReusedByLayout || re.Layout != arena.Fingerprint || re.First != "add_points" {
				t.Errorf("%s: v2's resend = %v, %v; want a *TokenReusedError (add_points of layout %s)", when, got, err, arena.Fingerprint)
			}
			if after := withAcks(t, c, b.Keys()); !reflect.DeepEqual(before, after) {
				t.Errorf("%s: the refused resend wrote:\nbefore %v\nafter  %v", when, before, after)
			}
		}
		resend("the same board")
		if rep, err := migrate.Run(ctx, c, plan, migrate.Options{Key: key}); err != nil || !rep.Switched {
			t.Fatalf("migrate: %+v, %v", rep, err)
		}
		resend("after migrate")
	})
}
