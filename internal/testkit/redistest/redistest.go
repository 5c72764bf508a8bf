// Package redistest runs tests against a real Redis server.
//
// By default it starts a private redis-server on a free loopback port, with persistence off and
// its files in a temporary directory, and stops it when the tests end. When REDIS_URL is set
// (redis://host:port/db), the tests use that server instead; they then touch only keys under a
// unique prefix per test, and delete those keys afterwards — never FLUSHDB or FLUSHALL.
//
// One server is shared by all the tests of a package binary:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		c := redistest.Client(t)
//		key := redistest.Key(t, "board")
//		...
//	}
//
// Tests that change server-wide state (SCRIPT FLUSH, CONFIG SET) start a server of their own
// with Start, and cluster tests use StartCluster (three masters with a replica each, or the
// cluster named by REDIS_CLUSTER_ADDRS).
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// InstallHint is appended to the error reported when redis-server cannot be found.
const InstallHint = "redis-server is not on PATH: run the test command from README.md (.ci/run), " +
	"which installs Debian's redis-server, or install it yourself (apt-get install redis-server), " +
	"or set REDIS_URL=redis://host:port/db to use an existing server"

var (
	shared struct {
		sync.Mutex
		main    bool           // Main is running the tests
		opts    *redis.Options // options of the shared server
		private *Server        // the private server, when REDIS_URL is unset
	}
	runID   = newRunID()
	counter atomic.Int64
)

func newRunID() string {
	var b [3]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// Main runs the tests of a package against one shared server and exits with their status. When
// REDIS_URL is set it uses that server; otherwise it starts a private redis-server, and stops it
// after the tests, whatever their outcome. Call it from TestMain.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if url := os.Getenv("REDIS_URL"); url != "" {
		opts, err := redis.ParseURL(url)
		if err != nil {
			fmt.Fprintf(os.Stderr, "redistest: REDIS_URL=%q: %v\n", url, err)
			return 2
		}
		shared.opts = opts
	} else {
		s, err := start(false)
		if err != nil {
			fmt.Fprintf(os.Stderr, "redistest: %v\n", err)
			return 2
		}
		defer s.Stop()
		shared.private = s
		shared.opts = s.Options()
	}
	shared.main = true
	defer stopSharedCluster()
	return m.Run()
}

// External reports whether the shared server is an existing one named by REDIS_URL, rather
// than a private one started by Main.
func External() bool { return shared.private == nil && shared.opts != nil }

// Client returns a new client of the shared server, closed when the test ends. The test must
// confine itself to keys made by Key or under Prefix.
func Client(tb testing.TB) *redis.Client {
	tb.Helper()
	return ClientWith(tb, nil)
}

// ClientWith is Client with options changed by edit (e.g. Protocol: 2 for a RESP2 client).
func ClientWith(tb testing.TB, edit func(*redis.Options)) *redis.Client {
	tb.Helper()
	if !shared.main {
		tb.Fatal("redistest: call redistest.Main(m) from TestMain to use the shared server")
	}
	opts := *shared.opts
	if edit != nil {
		edit(&opts)
	}
	c := redis.NewClient(&opts)
	tb.Cleanup(func() { _ = c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		tb.Fatalf("redistest: PING %s: %v", shared.opts.Addr, err)
	}
	return c
}

var prefixes sync.Map // testing.TB → string

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Prefix returns a key prefix unique to this test (and to this run of the test binary), of the
// form "rgtest:<run>:<test>:<n>:". It contains no hash-tag braces and no glob characters. On a
// server named by REDIS_URL, every key containing the prefix is deleted when the test ends.
func Prefix(tb testing.TB) string {
	if p, ok := prefixes.Load(tb); ok {
		return p.(string)
	}
	name := unsafeChars.ReplaceAllString(tb.Name(), "_")
	if len(name) > 60 {
		name = name[:60]
	}
	p := fmt.Sprintf("rgtest:%s:%s:%d:", runID, name, counter.Add(1))
	actual, loaded := prefixes.LoadOrStore(tb, p)
	if !loaded {
		tb.Cleanup(func() {
			prefixes.Delete(tb)
			if External() {
				deleteKeys(tb, shared.opts, p)
			}
		})
	}
	return actual.(string)
}

// Key returns Prefix(tb) + name.
func Key(tb testing.TB, name string) string { return Prefix(tb) + name }

// deleteKeys removes every key that contains prefix (keys made from Prefix, possibly inside a
// hash tag added by a board) from an external server.
func deleteKeys(tb testing.TB, opts *redis.Options, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := redis.NewClient(opts)
	defer c.Close()
	iter := c.Scan(ctx, 0, "*"+prefix+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		tb.Errorf("redistest: cleaning up keys %q*: %v", prefix, err)
		return
	}
	for len(keys) > 0 {
		n := min(len(keys), 500)
		if err := c.Unlink(ctx, keys[:n]...).Err(); err != nil {
			tb.Errorf("redistest: cleaning up keys %q*: %v", prefix, err)
			return
		}
		keys = keys[n:]
	}
}
