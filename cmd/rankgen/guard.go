package main

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// guard is decode's check that the schema is the board's: a fingerprint given, or the one
// a board records in Redis.
type guard struct {
	fingerprint string // -fingerprint
	key, url    string // -key, -redis
}

// guardTimeout bounds the one read of the board's fingerprint.
const guardTimeout = 10 * time.Second

// usage is the guard's usage error, or "".
func (g guard) usage() string {
	switch {
	case g.fingerprint != "" && g.key != "":
		return "give -fingerprint or -key, not both"
	case g.url != "" && g.key == "":
		return "-redis goes with -key KEY, the board whose fingerprint to read"
	}
	return ""
}

// allows reports whether l may decode the board's entries, explaining on stderr when not.
func (g guard) allows(e *env, l *layout.Layout) bool {
	switch {
	case g.fingerprint != "":
		return g.compare(e, l, g.fingerprint, "the board (-fingerprint)")
	case g.key != "":
		have, ok := g.recorded(e, l)
		return ok && g.compare(e, l, have, "the board "+g.key)
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
// a prefix, else its meta key.
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
	side := rankgenrt.MetaKey(g.key)
	if l.HasPrefix() {
		side = rankgenrt.IndexKey(g.key)
	}
	have, err := rankgenrt.FingerprintCmd(ctx, c, side, l.HasPrefix()).Result()
	switch {
	case errors.Is(err, redis.Nil):
		e.errorf("decode", "the board %s records no layout fingerprint in %s (no generated Board of this layout's shape has written it, or the key is wrong): give -fingerprint, or decode without -key to read it unchecked", g.key, side)
		return "", false
	case err != nil:
		e.errorf("decode", "reading the fingerprint of %s from %s: %v", g.key, side, err)
		return "", false
	}
	return have, true
}
