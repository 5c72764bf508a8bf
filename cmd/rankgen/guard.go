package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// guard is decode's check that the schema is the board's: a fingerprint given, or the one
// a board records in Redis.
type guard struct {
	fingerprint, key given  // -fingerprint, -key
	url              string // -redis
}

// given is a string flag that knows whether it was given: -fingerprint "" must not turn the
// check off unnoticed.
type given struct {
	value string
	set   bool
}

func (g *given) String() string { return g.value }

func (g *given) Set(s string) error {
	g.value, g.set = s, true
	return nil
}

// guardTimeout bounds the one read of the board's fingerprint.
const guardTimeout = 10 * time.Second

// usage is the guard's usage error, or "".
func (g guard) usage() string {
	switch {
	case g.fingerprint.set && g.key.set:
		return "give -fingerprint or -key, not both"
	case g.fingerprint.set && !layout.IsFingerprint(g.fingerprint.value):
		return fmt.Sprintf("-fingerprint %s is not a layout fingerprint (16 lower-case hex digits, as rankgen explain prints it)", quote.Short(g.fingerprint.value))
	case g.key.set && g.key.value == "":
		return "-key is empty; give the board's key"
	case g.url != "" && !g.key.set:
		return "-redis goes with -key KEY, the board whose fingerprint to read"
	}
	return ""
}

// allows reports whether l may decode the board's entries, explaining on stderr when not.
func (g guard) allows(e *env, l *layout.Layout) bool {
	switch {
	case g.fingerprint.set:
		return g.compare(e, l, g.fingerprint.value, "the board (-fingerprint)")
	case g.key.set:
		have, ok := g.recorded(e, l)
		return ok && g.compare(e, l, have, "the board "+g.key.value)
	}
	return true
}

func (g guard) compare(e *env, l *layout.Layout, have, source string) bool {
	if have == l.Fingerprint {
		return true
	}
	e.errorf("decode", "%s has layout %s, but %s builds layout %s: its entries would decode to wrong numbers. Decode with the schema that wrote the board (git log -p %s finds it; rankgen breaking -against shows what changed), or migrate the board to this layout",
		source, have, l.File, l.Fingerprint, l.File)
	return false
}

// recorded reads the fingerprint the board records: its index's field "" when members carry
// a prefix, else its meta key. A value that is no fingerprint is refused, shown quoted and
// short: it is whatever the key holds.
func (g guard) recorded(e *env, l *layout.Layout) (string, bool) {
	addr := g.url
	if addr == "" {
		addr = os.Getenv("REDIS_URL")
	}
	if addr == "" {
		addr = "redis://localhost:6379"
	}
	opts, err := redis.ParseURL(addr)
	if err != nil {
		e.errorf("decode", "-redis %q: %v", addr, err)
		return "", false
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	side := rankgenrt.MetaKey(g.key.value)
	if l.HasPrefix() {
		side = rankgenrt.IndexKey(g.key.value)
	}
	have, err := rankgenrt.FingerprintCmd(ctx, c, side, l.HasPrefix()).Result()
	switch {
	case errors.Is(err, redis.Nil):
		e.errorf("decode", "the board %s records no layout fingerprint in %s (no generated Board of this layout's shape has written it, or the key is wrong): give -fingerprint, or decode without -key to read it unchecked", g.key.value, side)
		return "", false
	case err != nil:
		e.errorf("decode", "reading the fingerprint of %s from %s: %v", g.key.value, side, err)
		return "", false
	case !layout.IsFingerprint(have):
		e.errorf("decode", "the board %s holds %s where its layout fingerprint belongs (%s), which is no fingerprint rankgen writes (16 lower-case hex digits): the key is not a board of this layout's shape", g.key.value, quote.Short(have), side)
		return "", false
	}
	return have, true
}
