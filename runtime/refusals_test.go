package runtime

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// refusalDetails holds, for every code of replyCodes, the words a write script sends after it
// (the shape each code's reader parses, where it has one).
var refusalDetails = map[string]string{
	"OUT_OF_RANGE":    "field=Points value=9 min=0 max=5",
	"OVERFLOW":        "field=Points delta=9 min=0 max=5",
	"NOT_FOUND":       "id p",
	"LAYOUT_MISMATCH": "board has layout 0123456789abcdef, this code writes layout fedcba9876543210",
	"NOT_INDEXED":     "the board has entries but no index of layout 0123456789abcdef",
	"BAD_SCORE":       "0.5 is not a score of layout 0123456789abcdef",
	"BAD_MEMBER":      "m is not a member of layout 0123456789abcdef",
	"SEASON_CLOSED":   "field=At at=5us season=0..4us",
	"SEASON_EXPIRED":  "expiry=1000ms now=2000ms",
	"TOKEN_REUSED":    "first=set op=remove",
	"MIGRATING":       "wait=4000ms layout=fedcba9876543210",
	"SUBMISSION":      "step=Total board=total RANKGEN_OVERFLOW field=Points delta=9 min=0 max=5",
}

// TestRefusalsAreNotUncertain: every refusal a write's script or server can answer (each
// RANKGEN_ code, WRONGTYPE, OOM) reaches the caller as its own typed error and never as
// ErrUncertain, through RunWrite and through RunWriteWait: the reply says the write was not
// applied. A reply lost after the call was sent stays ErrUncertain, with the call's token.
func TestRefusalsAreNotUncertain(t *testing.T) {
	type refusal struct {
		name  string
		reply string // the function's body
		want  error  // the sentinel the error matches
	}
	var refusals []refusal
	for code, kind := range replyCodes {
		detail, ok := refusalDetails[code]
		if !ok {
			t.Fatalf("no detail for the reply code %s: add one to refusalDetails", code)
		}
		refusals = append(refusals, refusal{code, "return redis.error_reply('RANKGEN_" + code + " " + detail + "')", kind})
	}
	refusals = append(refusals,
		// A reply whose words do not parse is still the script's refusal.
		refusal{"MIGRATING without its wait", "return redis.error_reply('RANKGEN_MIGRATING wait=soon')", ErrMigrating},
		refusal{"SEASON_EXPIRED without its times", "return redis.error_reply('RANKGEN_SEASON_EXPIRED expiry=later')", ErrSeasonExpired},
		refusal{"WRONGTYPE", "return redis.call('INCR', KEYS[1])", ErrWrongType},
		refusal{"OOM", "return redis.error_reply('OOM command not allowed when used memory > maxmemory.')", ErrServerFull},
	)
	redistest.RunTargets(t, func(t *testing.T, tg redistest.Target) {
		ctx, c := context.Background(), tg.Client
		key := redistest.Key(t, "{refused}")
		if err := c.HSet(ctx, key, "f", "v").Err(); err != nil { // a hash, for WRONGTYPE
			t.Fatal(err)
		}
		for _, r := range refusals {
			f := testFunction(t, r.reply, "")
			for _, w := range []struct {
				name string
				r    Replicas
			}{{"RunWrite", Replicas{}}, {"RunWriteWait", WaitReplicas(1, time.Millisecond)}} {
				_, err := RunWriteWait(ctx, c, f, []string{key}, "tok", w.r)
				if !errors.Is(err, r.want) || errors.Is(err, ErrUncertain) {
					t.Errorf("%s through %s: %v; want %v and not ErrUncertain", r.name, w.name, err, r.want)
					continue
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "rankgen: ") {
					t.Errorf("%s through %s: %q does not read as rankgen's error", r.name, w.name, msg)
				}
			}
		}

		// A reply lost after the call was sent: the function ran, and the caller cannot know.
		lose := &loseReplies{}
		var lossy redis.UniversalClient
		if tg.Cluster {
			lossy = redistest.StartClusterWith(t, func(o *redis.ClusterOptions) {
				o.MaxRedirects = -1 // no resend by go-redis: the loss reaches the caller
				o.NewClient = func(opt *redis.Options) *redis.Client {
					n := redis.NewClient(opt)
					n.AddHook(lose)
					return n
				}
			})
		} else {
			single := redistest.ClientWith(t, func(o *redis.Options) { o.MaxRetries = -1 })
			single.AddHook(lose)
			lossy = single
		}
		ran := testFunction(t, "return redis.call('INCR', KEYS[1])", "")
		if err := ran.Lib.Load(ctx, c); err != nil { // the reply lost is the function's
			t.Fatal(err)
		}
		lost := redistest.Key(t, "{lost}")
		for _, w := range []struct {
			name string
			r    Replicas
		}{{"RunWrite", Replicas{}}, {"RunWriteWait", WaitReplicas(1, time.Millisecond)}} {
			lose.on.Store(true)
			_, err := RunWriteWait(ctx, lossy, ran, []string{lost}, "tok-lost", w.r)
			lose.on.Store(false)
			var ue *UncertainError
			if !errors.As(err, &ue) || ue.Token != "tok-lost" {
				t.Errorf("a lost reply through %s: %v; want an *UncertainError with token tok-lost", w.name, err)
			}
		}
		if n, err := c.Get(ctx, lost).Int(); err != nil || n < 2 {
			t.Errorf("the functions whose replies were lost ran %d times (%v); want each to have run", n, err)
		}
	})
}

// loseReplies is a go-redis hook that, while on, lets every FCALL (alone or first in a
// pipeline) run on the server and loses its reply, as a connection cut after the call was sent
// does (a cluster write waiting for replicas is sent again under its token, and lost again).
type loseReplies struct{ on atomic.Bool }

func (h *loseReplies) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *loseReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() != "fcall" || !h.on.Load() {
			return next(ctx, cmd)
		}
		_ = next(ctx, cmd)
		err := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset (the test lost the reply)")}
		cmd.SetErr(err)
		return err
	}
}

func (h *loseReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) == 0 || cmds[0].Name() != "fcall" || !h.on.Load() {
			return next(ctx, cmds)
		}
		_ = next(ctx, cmds)
		err := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset (the test lost the reply)")}
		for _, cmd := range cmds {
			cmd.SetErr(err)
		}
		return err
	}
}
