package runtime

import (
	"context"
	"errors"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestTokensNeverRepeat(t *testing.T) {
	a, b := NewTokens(), NewTokens()
	seen := map[string]bool{}
	for range 1000 {
		for _, src := range []*Tokens{a, b} {
			tok, err := src.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if seen[tok] {
				t.Fatalf("token %q handed out twice", tok)
			}
			seen[tok] = true
		}
	}
}

func TestIdempotencyKey(t *testing.T) {
	src := NewTokens()
	ctx := WithIdempotencyKey(context.Background(), "order-17")
	for range 2 {
		if tok, err := src.Next(ctx); err != nil || tok != "order-17" {
			t.Fatalf("Next = %q, %v; want the caller's key", tok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("k", maxIdempotencyKey+1)} {
		_, err := src.Next(WithIdempotencyKey(context.Background(), bad))
		if !errors.Is(err, ErrOutOfRange) {
			t.Errorf("key of %d bytes: err = %v, want ErrOutOfRange", len(bad), err)
		}
		if err != nil && len(err.Error()) > 200 {
			t.Errorf("error quotes the key whole: %d bytes", len(err.Error()))
		}
	}
}

// TestDedupWindow: a window becomes whole seconds rounded up, the largest Duration included
// (adding a second to it overflowed, to a negative window the scripts read as off); 0 alone
// is off, and a negative window refuses every write rather than turning exactly-once off.
func TestDedupWindow(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0"}, {1, "1"}, {time.Millisecond, "1"}, {time.Second, "1"}, {time.Minute, "60"}, {1500 * time.Millisecond, "2"},
		{math.MaxInt64, "9223372037"}, {math.MaxInt64 - time.Second + 1, "9223372036"}, {math.MaxInt64 - time.Second/2, "9223372037"}, {math.MaxInt64 / time.Second * time.Second, "9223372036"},
	} {
		w := DedupWindow(c.d)
		if w.Arg() != c.want || w.Err() != nil {
			t.Errorf("DedupWindow(%v) = %q, %v; want %q", c.d, w.Arg(), w.Err(), c.want)
		}
	}
	for _, d := range []time.Duration{-1, -time.Second, math.MinInt64} {
		err := DedupWindow(d).Err()
		var re *RangeError
		if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &re) || re.Value != d.String() {
			t.Errorf("DedupWindow(%v).Err() = %v; want a *RangeError quoting %v", d, err, d)
		}
	}
}

func TestAckKeysShareTheSlot(t *testing.T) {
	for _, key := range []string{"lb", "game:{42}:board"} {
		for _, token := range []string{"0a1b2c.1", "mine", "{other}", "a}b{c}"} {
			k := AckKey(AckBase(key), token)
			if HashTag(k) != HashTag(IndexKey(key)) {
				t.Errorf("ack key %q hashes on %q, the index on %q", k, HashTag(k), HashTag(IndexKey(key)))
			}
			if !strings.HasSuffix(k, ":"+token) {
				t.Errorf("ack key %q does not end with \":\" and its token %q", k, token)
			}
		}
	}
	keys := []string{"lb", MetaKey("lb"), AckBase("lb"), FenceKey("lb")}
	w := WriteKeys(keys, "t1")
	if w[2] != AckKey(AckBase("lb"), "t1") || keys[2] != AckBase("lb") || len(w) != len(keys) {
		t.Errorf("WriteKeys(%q, t1) = %q and left %q; want the ack key third and the board's keys unchanged", keys, w, keys)
	}
}

// TestRunWriteUncertain: a write that gets no reply is reported as uncertain with its token,
// and its cause stays reachable; an error reply is not uncertain (TestRefusalsAreNotUncertain
// sends every one).
func TestRunWriteUncertain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: every try fails without a reply
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	_, err = RunWrite(context.Background(), c, NewLibrary("#!lua name=x\n").Function("f"), []string{"k"}, "tok-1")
	var ue *UncertainError
	if !errors.Is(err, ErrUncertain) || !errors.As(err, &ue) || ue.Token != "tok-1" {
		t.Fatalf("err = %v, want an *UncertainError with token tok-1", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		t.Errorf("the network error is not reachable through %v", err)
	}
	if isReply(ue.Err) {
		t.Errorf("a dial failure counted as a reply")
	}
	if !isReply(otherWords("RANKGEN_OVERFLOW field=X delta=1")) || !isReply(otherWords("WRONGTYPE Operation against a key")) {
		t.Errorf("error replies must count as replies")
	}
}

// TestSeasonTokens: a season's board binds every token to its season, its own and the
// caller's keys alike, and keeps a key bound to it already as it is; KeySeason reads the
// binding back, and a key bound to another season is bound again (it names another write).
func TestSeasonTokens(t *testing.T) {
	const week = 1767567600
	src := NewSeasonTokens(week)
	fresh, err := src.Next(context.Background())
	if id, ok := KeySeason(fresh); err != nil || !ok || id != week {
		t.Fatalf("fresh token %q (%v): season %d, %v; want %d", fresh, err, id, ok, week)
	}
	for key, want := range map[string]string{
		"order-1":                 InSeason("order-1", week),
		InSeason("order-1", week): InSeason("order-1", week),
		InSeason("order-1", 12):   InSeason(InSeason("order-1", 12), week),
		"a@b.c":                   "a@b.c@1767567600",
		strings.Repeat("k", 128):  strings.Repeat("k", 128) + "@1767567600",
	} {
		if got, err := src.Next(WithIdempotencyKey(context.Background(), key)); err != nil || got != want {
			t.Errorf("Next(key %q) = %q, %v; want %q", key, got, err, want)
		}
	}
	for _, bad := range []string{"", InSeason("", week), strings.Repeat("k", 129)} {
		if _, err := src.Next(WithIdempotencyKey(context.Background(), bad)); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Next(key %q): %v; want ErrOutOfRange", bad, err)
		}
	}
	for _, key := range []string{"order-1", "a@", "a@+5", "a@05", "a@-0", "a@1x", "a@99999999999999999999"} {
		if id, ok := KeySeason(key); ok {
			t.Errorf("KeySeason(%q) = %d; want no season", key, id)
		}
	}
	for key, want := range map[string]int64{"a@5": 5, "a@-86400": -86400, "@0": 0, "x@y@7": 7} {
		if id, ok := KeySeason(key); !ok || id != want {
			t.Errorf("KeySeason(%q) = %d, %v; want %d", key, id, ok, want)
		}
	}
}

// TestTokenReusedReply: the scripts' RANKGEN_TOKEN_REUSED reply becomes a *TokenReusedError
// naming the key (quoted short) and both operations; other replies are typed as ReplyError
// types them.
func TestTokenReusedReply(t *testing.T) {
	key := "order-1" + strings.Repeat("x", 200)
	err := writeError(otherWords("RANKGEN_TOKEN_REUSED first=set op=remove"), key)
	var re *TokenReusedError
	if !errors.Is(err, ErrTokenReused) || !errors.As(err, &re) || re.Key != key || re.First != "set" || re.Op != "remove" {
		t.Fatalf("writeError = %#v; want a *TokenReusedError for set, then remove", err)
	}
	if msg := err.Error(); len(msg) > 200 || !strings.Contains(msg, "set") || !strings.Contains(msg, "remove") || !strings.Contains(msg, `"order-1`) {
		t.Errorf("message %q: want the key quoted short and both operations", msg)
	}
	var se *ScriptError
	if err := writeError(otherWords("RANKGEN_OVERFLOW field=Points"), key); !errors.As(err, &se) || !errors.Is(err, ErrOverflow) {
		t.Errorf("writeError(overflow) = %v; want its *ScriptError", err)
	}
}

// TestTokenReusedWhy: the reply says how the recorded write differs from the call refused (the
// operation, the arguments, the layout, or unknown for an earlier rankgen's record), and the
// message says what happened to both writes and what to do.
func TestTokenReusedWhy(t *testing.T) {
	for _, tc := range []struct {
		reply  string
		want   TokenReusedError
		saying []string
	}{
		{"RANKGEN_TOKEN_REUSED first=set op=remove why=operation", TokenReusedError{Key: "k", First: "set", Op: "remove", Why: ReusedByOperation},
			[]string{"set, not remove", "nothing written", "use each key for one write"}},
		{"RANKGEN_TOKEN_REUSED first=set op=set why=arguments", TokenReusedError{Key: "k", First: "set", Op: "set", Why: ReusedWithArguments},
			[]string{"set with other arguments", "that write was applied", "nothing written", "use each key for one write"}},
		{"RANKGEN_TOKEN_REUSED first=add_points op=add_points why=layout layout=f32690611a53ed90", TokenReusedError{Key: "k", First: "add_points", Op: "add_points", Why: ReusedByLayout, Layout: "f32690611a53ed90"},
			[]string{"add_points of layout \"f32690611a53ed90\"", "applied once", "nothing written", "treat it as done", "use a new key"}},
		{"RANKGEN_TOKEN_REUSED first=trim op=trim why=unknown", TokenReusedError{Key: "k", First: "trim", Op: "trim", Why: ReusedUnknown},
			[]string{"earlier rankgen version", "applied once", "nothing written", "treat it as done", "use a new key"}},
	} {
		err := writeError(otherWords(tc.reply), "k") // the server's reply, as go-redis returns it
		var re *TokenReusedError
		if !errors.Is(err, ErrTokenReused) || !errors.As(err, &re) || *re != tc.want {
			t.Errorf("%s: writeError = %#v; want %#v", tc.reply, err, &tc.want)
			continue
		}
		for _, s := range tc.saying {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: message %q does not say %q", tc.reply, err, s)
			}
		}
	}
}

// TestTokensRefuseCoalescedKey: a coalesced write's token, which names a place in a batch
// only its Coalescer can resend, is refused as an idempotency key (ErrResendForgotten); keys
// that merely look alike are a caller's own.
func TestTokensRefuseCoalescedKey(t *testing.T) {
	tokens := NewTokens()
	batch, _ := NewTokens().Next(context.Background())
	if _, err := tokens.Next(WithIdempotencyKey(context.Background(), itemToken(batch, 3))); !errors.Is(err, ErrResendForgotten) {
		t.Errorf("a coalesced token: %v, want ErrResendForgotten", err)
	}
	for _, key := range []string{batch, batch + "#", batch + "#-1", batch + "#01", "order-7#2", "0123456789abcdefgh.1#0", "0123456789abcdef01.#0"} {
		if got, err := tokens.Next(WithIdempotencyKey(context.Background(), key)); err != nil || got != key {
			t.Errorf("key %q: %q, %v; want it as it is", key, got, err)
		}
	}
}
