package runtime

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// prefixID is the idOf of a toy layout whose members are "p:" + id.
func prefixID(_ float64, member string) (string, error) {
	id, ok := strings.CutPrefix(member, "p:")
	if !ok || id == "" {
		return "", BadMember(member, "no p: prefix")
	}
	return id, nil
}

// reindexBoard writes a board of three members and an index with one stale entry, and
// returns its key.
func reindexBoard(t *testing.T, c *redis.Client) string {
	t.Helper()
	ctx := context.Background()
	key := redistest.Key(t, "board")
	if err := c.ZAdd(ctx, key, redis.Z{Score: 1, Member: "p:a"}, redis.Z{Score: 2, Member: "p:b"}, redis.Z{Score: 3, Member: "p:c"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.HSet(ctx, IndexKey(key), "gone", "p:gone").Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

func TestReindex(t *testing.T) {
	ctx := context.Background()
	c := redistest.Client(t)
	key := reindexBoard(t, c)
	rep, err := Reindex(ctx, c, key, "fp", prefixID)
	if err != nil || rep.Members != 3 || rep.Written != 3 || rep.Removed != 1 || rep.Unchanged != 0 {
		t.Fatalf("Reindex = %+v, %v; want 3 members written, 1 stale entry removed", rep, err)
	}
	idx, err := c.HGetAll(ctx, IndexKey(key)).Result()
	if err != nil || len(idx) != 4 || idx[""] != "fp" || idx["a"] != "p:a" || idx["c"] != "p:c" {
		t.Fatalf("index = %v, %v", idx, err)
	}
	if rep, err := Reindex(ctx, c, key, "fp", prefixID); err != nil || rep.Unchanged != 3 || rep.Written != 0 {
		t.Fatalf("rerun = %+v, %v; want 3 unchanged", rep, err)
	}
	if _, err := Reindex(ctx, c, key, "other", prefixID); !errors.Is(err, ErrLayoutMismatch) {
		t.Fatalf("Reindex under another layout = %v; want ErrLayoutMismatch", err)
	}
	c.ZAdd(ctx, key, redis.Z{Score: 4, Member: "x"})
	if rep, err := Reindex(ctx, c, key, "fp", prefixID); !errors.Is(err, ErrBadMember) || !slices.Equal(rep.Bad, []string{`"x" (score 4)`}) {
		t.Fatalf("Reindex with a foreign member = %+v, %v; want ErrBadMember listing it", rep, err)
	}
}

// replyHook replaces, after the real server has answered, the reply of the commands match
// picks with what replace makes of it: a reply mangled in transit.
type replyHook struct {
	match   func(redis.Cmder) bool
	replace func(redis.Cmder)
}

func (h replyHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h replyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && h.match(cmd) {
			h.replace(cmd)
		}
		return err
	}
}

func (h replyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// runs reports whether cmd runs script s: EVALSHA of its hash, or EVAL of its source (the
// fallback on NOSCRIPT).
func runs(s *redis.Script) func(redis.Cmder) bool {
	return func(cmd redis.Cmder) bool {
		a := cmd.Args()
		if len(a) < 2 {
			return false
		}
		arg, _ := a[1].(string)
		switch cmd.Name() {
		case "evalsha":
			return arg == s.Hash()
		case "eval":
			return fmt.Sprintf("%x", sha1.Sum([]byte(arg))) == s.Hash()
		}
		return false
	}
}

// TestReindexMalformedReplies: every reply Reindex reads is checked; a reply of another shape is
// an error matching ErrBadReply, never a panic.
func TestReindexMalformedReplies(t *testing.T) {
	ctx := context.Background()
	scriptReply := func(v any) func(redis.Cmder) { return func(cmd redis.Cmder) { cmd.(*redis.Cmd).SetVal(v) } }
	for _, tc := range []struct {
		name string
		hook replyHook
	}{
		{"write reply not an array", replyHook{runs(reindexWrite), scriptReply("OK")}},
		{"write reply short", replyHook{runs(reindexWrite), scriptReply([]any{int64(1), int64(0), int64(0)})}},
		{"write count not an integer", replyHook{runs(reindexWrite), scriptReply([]any{int64(3), "0", int64(0), int64(0)})}},
		{"write reply nil", replyHook{runs(reindexWrite), scriptReply(nil)}},
		{"remove count not an integer", replyHook{runs(reindexRemove), scriptReply("1")}},
		{"remove reply an array", replyHook{runs(reindexRemove), scriptReply([]any{int64(1)})}},
		{"member not a string", replyHook{
			func(cmd redis.Cmder) bool { return cmd.Name() == "zrange" },
			func(cmd redis.Cmder) { cmd.(*redis.ZSliceCmd).SetVal([]redis.Z{{Score: 1, Member: int64(7)}}) },
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := redistest.Client(t)
			key := reindexBoard(t, c)
			c.AddHook(tc.hook)
			rep, err := Reindex(ctx, c, key, "fp", prefixID)
			var shape *ReplyShapeError
			if !errors.Is(err, ErrBadReply) || !errors.As(err, &shape) {
				t.Fatalf("Reindex = %+v, %v; want ErrBadReply", rep, err)
			}
			t.Log(err)
		})
	}
}
