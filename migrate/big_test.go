package migrate_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// bigEnv sizes the large-board test: RANKGEN_MIGRATE_BIG=1000000 migrates a board of a
// million entries (docs/migration.md's numbers). The default run leaves it out: it takes a minute.
const bigEnv = "RANKGEN_MIGRATE_BIG"

const bigChildEnv = "RANKGEN_MIGRATE_BIG_CHILD"

func TestBigChild(t *testing.T) {
	arg := os.Getenv(bigChildEnv)
	if arg == "" {
		t.Skip("run by TestMigrateBigBoard in a child process")
	}
	addr, key, _ := strings.Cut(arg, " ")
	c := redis.NewClient(&redis.Options{Addr: addr})
	old, new, m := interruptionLayouts(t)
	p, err := migrate.NewPlan(old, new, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrate.Run(context.Background(), c, p, migrate.Options{Key: key}); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateBigBoard migrates a board of RANKGEN_MIGRATE_BIG entries in a child process and
// reports its time and peak memory (the child's maximum resident set), then reads every
// entry of the result with the new layout.
func TestMigrateBigBoard(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv(bigEnv))
	if n <= 0 {
		t.Skip("set " + bigEnv + "=1000000 to migrate a board of a million entries")
	}
	ctx := context.Background()
	c := redistest.Client(t)
	key := redistest.Key(t, "big")
	_, new, _ := interruptionLayouts(t)
	fillBig(t, c, key, n)

	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBigChild$")
	cmd.Env = append(os.Environ(), bigChildEnv+"="+c.Options().Addr+" "+key, "REDIS_URL=redis://"+c.Options().Addr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	elapsed := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	t.Logf("migrated %d entries in %v (%.0f entries/s); peak memory of the migrating process %d MiB", n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds(), ru.Maxrss/1024)

	stored := readHash(t, c, rankgenrt.DataKey(key))
	var seen int
	iter := c.ZScan(ctx, key, 0, "", 10000).Iterator()
	for iter.Next(ctx) {
		member := iter.Val()
		iter.Next(ctx)
		score, _ := strconv.ParseFloat(iter.Val(), 64)
		e, err := new.Decode(score, member)
		if err != nil {
			t.Fatalf("%q: %v", member, err)
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(e.ID, "id"))
		got, want := entryText(new, e), bigWant(i)
		if d := stored[e.ID]; d != "" {
			vals, err := new.DecodeData(d)
			if err != nil {
				t.Fatalf("%s: data %q: %v", e.ID, d, err)
			}
			got += " | " + dataText(new, vals)
		}
		if got != want {
			t.Fatalf("reads %q, want %q", got, want)
		}
		seen++
	}
	if seen != n || iter.Err() != nil {
		t.Fatalf("read %d entries (%v), want %d", seen, iter.Err(), n)
	}

}

// fillBig writes n entries of the old interruption layout, pipelined.
func fillBig(t *testing.T, c *redis.Client, key string, n int) {
	ctx := context.Background()
	old, _, _ := interruptionLayouts(t)
	for lo := 0; lo < n; lo += 10000 {
		pipe := c.Pipeline()
		for i := lo; i < min(lo+10000, n); i++ {
			text, _ := interruptionEntry(i)
			ranking, d, hasData := strings.Cut(text, " | ")
			e := parseEntry(t, old, ranking)
			score, member, err := old.Encode(e)
			if err != nil {
				t.Fatal(err)
			}
			pipe.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
			if hasData {
				s, err := old.EncodeData(parseData(t, old, d))
				if err != nil {
					t.Fatal(err)
				}
				pipe.HSet(ctx, rankgenrt.DataKey(key), e.ID, s)
			}
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	writeBoard(t, c, old, key, nil) // the layout claim
	c.HSet(ctx, rankgenrt.DataKey(key), "", old.DataFingerprint)
}

func bigWant(i int) string {
	_, want := interruptionEntry(i)
	return want
}

// readHash reads a whole hash, a scan at a time.
func readHash(t *testing.T, c *redis.Client, key string) map[string]string {
	ctx := context.Background()
	out := map[string]string{}
	iter := c.HScan(ctx, key, 0, "", 10000).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		iter.Next(ctx)
		out[k] = iter.Val()
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
