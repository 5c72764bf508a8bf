package boardtest

import (
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// The exactly-once floor: the minimal hand-written scripts with the least exactly-once a write
// can have, the protocol the generated writes use (the call's token record read first, with a
// GET of its own ack key, and written last, with a SET … EX of the reply) and nothing else — no
// fingerprint, no fence, no validation, no typed reply. BenchmarkPaired sets the generated
// writes beside it (what rankgen adds to an exactly-once write) and it beside the minimal
// scripts (what exactly-once costs, by hand).

// onceLua is body (a minimal script) inside the least exactly-once protocol: its ack key is the
// call's last key.
func onceLua(body string) string {
	return `local ack = KEYS[#KEYS]
local got = redis.call('GET', ack)
if got then
  return cmsgpack.unpack(got)
end
local r = (function()
` + body + `
end)()
if type(r) ~= 'table' or not r.err then
  redis.call('SET', ack, cmsgpack.pack(r), 'EX', 60)
end
return r`
}

// onceScript runs a minimal script inside onceLua, each call under a fresh token.
type onceScript struct {
	s      *redis.Script
	tokens atomic.Uint64
}

func newOnceScript(b *testing.B, c *redis.Client, body string) *onceScript {
	o := &onceScript{s: redis.NewScript(onceLua(body))}
	if err := o.s.Load(ctx, c).Err(); err != nil {
		b.Fatal(err)
	}
	return o
}

// run calls the script with keys (the minimal script's) and the ack key of a fresh token.
func (o *onceScript) run(c redis.Scripter, keys []string, args ...any) *redis.Cmd {
	token := "floor." + strconv.FormatUint(o.tokens.Add(1), 36)
	return o.s.EvalSha(ctx, c, slices.Concat(keys, []string{rankgenrt.AckKey(rankgenrt.AckBase(keys[0]), token)}), args...)
}

// minimalOnce is minimalScript's single update with the least exactly-once.
func minimalOnce(b *testing.B, c *redis.Client, l *layout.Layout, bb *benchBoard) op {
	f := l.Field(updateTarget[l.Package])
	if !l.HasPrefix() {
		o := newOnceScript(b, c, minimalAddLua(l, f))
		return func(c *redis.Client, i int) error {
			return o.run(c, []string{bb.key}, bb.ids[i%benchEntries], delta(i)).Err()
		}
	}
	o := newOnceScript(b, c, minimalAddPrefixLua)
	keys := []string{bb.key, rankgenrt.IndexKey(bb.key)}
	return func(c *redis.Client, i int) error {
		j := i % benchEntries
		return o.run(c, keys, bb.ids[j], delta(i), stampedPrefix(l, bb.members[j]), f.Weight, f.MaxDigit+1, f.Span()).Err()
	}
}

// minimalBatchOnce is minimalBatch with the least exactly-once: one token for the call (nil on
// a layout with a member prefix, which has no minimal batch).
func minimalBatchOnce(b *testing.B, c *redis.Client, l *layout.Layout, bb *benchBoard) op {
	if l.HasPrefix() {
		return nil
	}
	st := minimalBatchStages(l, l.Field(updateTarget[l.Package]))
	o := newOnceScript(b, c, st.read+st.arithmetic+st.write+"return out")
	return func(c *redis.Client, i int) error {
		args := make([]any, 0, 2*batchSize)
		for j := range batchSize {
			args = append(args, bb.ids[(i*batchSize+j)%benchEntries], batchDelta(i))
		}
		return o.run(c, []string{bb.key}, args...).Err()
	}
}

// minimalKeepBestOnce is minimalKeepBest with the least exactly-once, for the i-th pair of
// pairs.
func minimalKeepBestOnce(b *testing.B, c *redis.Client, bb *benchBoard, pairs []redis.Z) op {
	o := newOnceScript(b, c, minimalKeepBestLua)
	return func(c *redis.Client, i int) error {
		z := pairs[i%len(pairs)]
		return o.run(c, []string{bb.key}, z.Member, rankgenrt.FormatScore(z.Score)).Err()
	}
}
