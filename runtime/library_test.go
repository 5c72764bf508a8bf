package runtime

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

// testFunction returns the one function of a library of its own, named after the test run and
// body so that no server has it yet, whose callback runs body (KEYS and ARGV as in a script)
// with flags (a Lua list's items).
func testFunction(t *testing.T, body, flags string) *Function {
	name := fmt.Sprintf("t%x", sha256.Sum256([]byte(redistest.Prefix(t)+body+flags)))[:17]
	src := fmt.Sprintf("#!lua name=%s\nredis.register_function{function_name = '%s_f', flags = {%s},\n  callback = function(KEYS, ARGV) %s end}\n", name, name, flags, body)
	return NewLibrary(src).Function("f")
}

// TestLibraryLoadsWhenMissing: a call that finds its library missing (never loaded, or gone
// after FUNCTION FLUSH) loads it where it went and runs once; Load loads it everywhere and
// twice is harmless; the function's error replies are typed.
func TestLibraryLoadsWhenMissing(t *testing.T) {
	ctx := context.Background()
	for _, target := range []struct {
		name string
		c    redis.UniversalClient
	}{{"single", redistest.Client(t)}, {"cluster", redistest.StartCluster(t)}} {
		t.Run(target.name, func(t *testing.T) {
			c := target.c
			incr := testFunction(t, "return redis.call('INCR', KEYS[1])", "")
			k := redistest.Key(t, "n")
			for want := int64(1); want <= 2; want++ {
				if v, err := Call(ctx, c, incr, []string{k}); err != nil || v != want {
					t.Fatalf("Call #%d = %v, %v; want %d", want, v, err, want)
				}
			}
			flush := func(ctx context.Context, m *redis.Client) error { return m.FunctionFlush(ctx).Err() }
			if cc, ok := c.(*redis.ClusterClient); ok {
				if err := cc.ForEachMaster(ctx, flush); err != nil { // replicated to the replicas
					t.Fatal(err)
				}
			} else if err := flush(ctx, c.(*redis.Client)); err != nil {
				t.Fatal(err)
			}
			if v, err := Call(ctx, c, incr, []string{k}); err != nil || v != int64(3) {
				t.Fatalf("Call after FUNCTION FLUSH = %v, %v; want 3 (applied once)", v, err)
			}
			for range 2 {
				if err := incr.Lib.Load(ctx, c); err != nil {
					t.Fatalf("Load of a library already there: %v", err)
				}
			}
			read := testFunction(t, "return redis.call('GET', KEYS[1])", "'no-writes'")
			if v, err := CallRO(ctx, c, read, []string{k}); err != nil || v != "3" {
				t.Fatalf("CallRO = %v, %v; want 3", v, err)
			}
			bad := testFunction(t, "return redis.error_reply('RANKGEN_OVERFLOW field=X delta=1')", "")
			if _, err := RunWrite(ctx, c, bad, []string{k}, "tok"); !errors.Is(err, ErrOverflow) || errors.Is(err, ErrUncertain) {
				t.Fatalf("error reply: %v; want ErrOverflow, not uncertain", err)
			}
			writes := testFunction(t, "return redis.call('SET', KEYS[1], 'x')", "'no-writes'")
			if _, err := CallRO(ctx, c, writes, []string{k}); err == nil || writes.Lib.missing(ctx, c, []string{k}, err) {
				t.Fatalf("a no-writes function that writes: %v; want the server's refusal", err)
			}
			// A server whose words for a missing function differ (a go-redis hook rewrites them
			// here): the runtime asks the server, loads the library and runs the call once; an
			// error reply of a function that is there is returned, the function run once.
			reword := testFunction(t, "return redis.call('INCRBY', KEYS[1], 1)", "")
			failing := testFunction(t, "redis.call('INCR', KEYS[1]) return redis.error_reply('ERR something else')", "")
			k2, k3 := redistest.Key(t, "reworded"), redistest.Key(t, "failing")
			c.AddHook(rewordMissing{})
			if v, err := Call(ctx, c, reword, []string{k2}); err != nil || v != int64(1) {
				t.Fatalf("Call of a missing function, the server's words changed = %v, %v; want 1", v, err)
			}
			for range 2 {
				if _, err := Call(ctx, c, failing, []string{k3}); err == nil {
					t.Fatal("a function replying an error: no error")
				}
			}
			if n, err := c.Get(ctx, k3).Int64(); err != nil || n != 2 {
				t.Fatalf("a function that is there and replies an error ran %d times in two calls (%v); want 2", n, err)
			}
		})
	}
}

// rewordMissing is a go-redis hook that rewrites the server's "ERR Function not found" into
// other words, as another server or release might say it.
type rewordMissing struct{}

func (rewordMissing) DialHook(next redis.DialHook) redis.DialHook { return next }

func (rewordMissing) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && strings.HasPrefix(err.Error(), "ERR Function not found") {
			err = otherWords("ERR no such function")
			cmd.SetErr(err)
		}
		return err
	}
}

func (rewordMissing) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// otherWords is a server's error reply in words of its own.
type otherWords string

func (e otherWords) Error() string { return string(e) }
func (otherWords) RedisError()     {}

// TestBatchForm: a field update's single form finds its batch form by name, in its own
// library only; a batch form, and an operation without one, have none.
func TestBatchForm(t *testing.T) {
	lib, other := NewLibrary("#!lua name=a_1\n"), NewLibrary("#!lua name=b_1\n")
	single, many := lib.Function("add_points"), lib.Function("add_points"+BatchSuffix)
	set := lib.Function("set")
	other.Function("set" + BatchSuffix)
	if got := single.batchForm(); got != many {
		t.Errorf("add_points's batch form: %+v, want %+v", got, many)
	}
	for _, f := range []*Function{many, set, {Lib: lib, Name: "a_1_add_points"}} {
		if got := f.batchForm(); got != nil {
			t.Errorf("%s's batch form: %+v, want none", f.Name, got)
		}
	}
}
