package runtime

import (
	"context"
	"errors"
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

func TestDedupArg(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0"}, {-time.Second, "0"}, {time.Millisecond, "1"}, {time.Minute, "60"}, {1500 * time.Millisecond, "2"}} {
		if got := DedupArg(c.d); got != c.want {
			t.Errorf("DedupArg(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestAckKeysShareTheSlot(t *testing.T) {
	for _, key := range []string{"lb", "game:{42}:board"} {
		for _, k := range AckKeys(key) {
			if HashTag(k) != HashTag(IndexKey(key)) {
				t.Errorf("ack key %q hashes on %q, the index on %q", k, HashTag(k), HashTag(IndexKey(key)))
			}
		}
	}
}

// TestRunWriteUncertain: a write that gets no reply is reported as uncertain with its token,
// and its cause stays reachable; an error reply is not uncertain.
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
	if !isReply(&ScriptError{Code: "OVERFLOW", kind: ErrOverflow}) || !isReply(&RangeError{}) {
		t.Errorf("typed script errors must count as replies")
	}
}
