package runtime

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/redis/go-redis/v9"
)

// Sharded boards.
//
// A sharded board spreads one leaderboard over several sorted sets, its shards, each a whole
// board under its own hash tag, so that the shards can live on different masters of a Redis
// Cluster. An id always lives on one shard (ShardOf), so every write stays one atomic script
// on one shard; reads ask every shard and merge (MergeSorted) or add up what they answer.

// MaxShards bounds the number of shards of a sharded board: a read asks every shard, so more
// shards than masters buys nothing, and ShardKeys searches tags in O(shards²).
const MaxShards = 1024

// ClusterSlots is the number of hash slots of Redis Cluster.
const ClusterSlots = 16384

// ErrBadKey: a board key that cannot name a sharded board: it holds a brace, which would end
// (or start) the shard's hash tag early.
var ErrBadKey = errors.New("rankgen: key cannot be used")

// KeyError reports a key that cannot be used. It matches ErrBadKey.
type KeyError struct {
	Key    string // the key, quoted short
	Reason string
}

func (e *KeyError) Error() string { return "rankgen: key " + e.Key + ": " + e.Reason }

// Is makes errors.Is(err, ErrBadKey) true.
func (e *KeyError) Is(target error) bool { return target == ErrBadKey }

// ShardOf returns the shard, in [0, shards), of the id whose canonical text is id (a string
// id's bytes; a uint64 id's decimal digits): FNV-1a 64 of those bytes, modulo shards. It never
// changes for a given id and shard count; changing the count is a migration (see Reshard in the
// generated package).
func ShardOf(id string, shards int) int {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= prime64
	}
	return int(h % uint64(shards))
}

// Slot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of its hash tag, modulo 16384.
func Slot(key string) int {
	var crc uint16
	for _, c := range []byte(HashTag(key)) {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc % ClusterSlots)
}

// ShardKeys returns the keys of the shards of the sharded board key with the given number of
// shards: shard i is "key{key:shards:i:n}" — it starts with key, so a SCAN MATCH "key{*" finds
// the board's keys — with n the least whole number that puts its hash slot (that of its hash
// tag, "key:shards:i:n") in the middle half of the i-th of shards equal parts of the slot space. A cluster whose
// masters own equal runs of slots (as redis-cli --cluster create makes them) thus holds
// shards/masters shards on each master when shards is a multiple of the masters. The count is
// in the key, so a board resharded to another count never shares a key with the old one.
func ShardKeys(key string, shards int) ([]string, error) {
	if shards < 1 || shards > MaxShards {
		return nil, IntRangeError("shards", int64(shards), 1, MaxShards)
	}
	if strings.ContainsAny(key, "{}") {
		return nil, &KeyError{Key: quote.Short(key), Reason: "a sharded board's key holds no brace: each shard's key holds the hash tag {key:shards:i:n}"}
	}
	keys := make([]string, shards)
	for i := range keys {
		lo, hi := i*ClusterSlots/shards, (i+1)*ClusterSlots/shards
		quarter := (hi - lo) / 4
		lo, hi = lo+quarter, hi-quarter
		base := key + "{" + key + ":" + strconv.Itoa(shards) + ":" + strconv.Itoa(i) + ":"
		for n := 0; ; n++ {
			k := base + strconv.Itoa(n) + "}"
			if s := Slot(k); s >= lo && s < hi {
				keys[i] = k
				break
			}
		}
	}
	return keys, nil
}

// GroupByShard returns, for each of shards, the positions in [0, n) of the items whose id
// (id(i), its canonical text) maps to it, in order.
func GroupByShard(n, shards int, id func(i int) string) [][]int {
	groups := make([][]int, shards)
	for i := range n {
		s := ShardOf(id(i), shards)
		groups[s] = append(groups[s], i)
	}
	return groups
}

// Scatter calls call for each shard with items (a group of GroupByShard), all at once, each in
// its own goroutine, and returns the first error in shard order (nil when none failed).
// Every call gets the same context: the generated code puts a batch write's one token in it,
// so that resending the whole batch under that token applies each shard's part exactly once.
func Scatter(ctx context.Context, groups [][]int, call func(ctx context.Context, shard int, items []int) error) error {
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for s, items := range groups {
		if len(items) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[s] = call(ctx, s, items)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ScatterItems calls call, all at once, with each of shards that holds some of n items and the
// positions of its items; idOf(i) is the canonical text of item i's id (ShardOf). It returns the
// first error in shard order.
func ScatterItems[B any](ctx context.Context, shards []B, n int, idOf func(i int) string, call func(ctx context.Context, shard B, at []int) error) error {
	return Scatter(ctx, GroupByShard(n, len(shards), idOf), func(ctx context.Context, shard int, at []int) error {
		return call(ctx, shards[shard], at)
	})
}

// Gather sends items to their shards (idOf: the canonical text of an item's id) with one call
// per shard that holds some of them, all at once, and returns call's results in the order of
// items; call answers one result per item it is given. The first error in shard order fails
// the whole; nil items give nil results.
func Gather[B, T, R any](ctx context.Context, shards []B, items []T, idOf func(T) string, call func(B, context.Context, []T) ([]R, error)) ([]R, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := make([]R, len(items))
	err := ScatterItems(ctx, shards, len(items), func(i int) string { return idOf(items[i]) }, func(ctx context.Context, shard B, at []int) error {
		rs, err := call(shard, ctx, Pick(items, at))
		if err != nil {
			return err
		}
		for j, i := range at {
			out[i] = rs[j]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SumShards runs count on every one of shards shards at once and adds up what they return; the
// first error in shard order fails the sum.
func SumShards(ctx context.Context, shards int, count func(ctx context.Context, shard int) (int64, error)) (int64, error) {
	var n atomic.Int64
	err := Scatter(ctx, EveryShard(shards), func(ctx context.Context, shard int, _ []int) error {
		k, err := count(ctx, shard)
		n.Add(k)
		return err
	})
	return n.Load(), err
}

// TieBand is how many members of a run of equal scores TieRun reads per round trip.
const TieBand = 256

// TieRun queues on c the read of the run of members of score (its text, FormatScore) on the
// sorted set key, best first (greater members first, as ZREVRANGE orders equal scores), from
// the 0-based offset: up to TieBand of them.
func TieRun(ctx context.Context, c redis.Cmdable, key, score string, offset int64) *redis.StringSliceCmd {
	return c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: key, Start: score, Stop: score, ByScore: true, Rev: true, Offset: offset, Count: TieBand})
}

// TiesAhead counts the members greater than member (Redis's order of equal scores: their bytes)
// in the run of entries of score on key whose first members, best first, are band (TieRun from
// offset 0), reading the run on, TieBand members a round trip, while all of a full band is
// ahead.
func TiesAhead(ctx context.Context, c redis.Cmdable, key, score, member string, band []string) (int64, error) {
	var k int64
	for offset := int64(0); ; offset += TieBand {
		i := 0
		for i < len(band) && band[i] > member {
			i++
		}
		k += int64(i)
		if i < len(band) || len(band) < TieBand {
			return k, nil
		}
		var err error
		if band, err = TieRun(ctx, c, key, score, offset+TieBand).Result(); err != nil {
			return 0, ReplyError(err)
		}
	}
}

// EveryShard is the groups of Scatter that call every one of shards once.
func EveryShard(shards int) [][]int {
	groups := make([][]int, shards)
	for i := range groups {
		groups[i] = []int{i}
	}
	return groups
}

// Sum adds up per-shard counts.
func Sum(counts []int64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// MergeSorted merges lists, each already in the order of cmp, into one list in that order
// and returns its first n elements (all of them when n < 0). Equal elements keep the order of
// their lists. It costs O(n log k) for k lists.
func MergeSorted[T any](lists [][]T, n int64, cmp func(a, b T) int) []T {
	var out []T
	merge(lists, n, cmp, func(_ int, x T) { out = append(out, x) })
	if out == nil {
		out = []T{}
	}
	return out
}

// Heads reads, through ranges, enough of every shard's first entries that the first n of
// their merge by cmp are exactly the first n of the board, and returns them, best first per
// shard (every entry of every shard when n is math.MaxInt64). ranges reads every shard i's
// entries at the 0-based positions bounds(i) (start, stop; a stop of -1 reads to the end, a
// stop below start nothing), in one round. An id's shard is its hash, so the first n are
// spread evenly: each shard first reads its share of n and a margin (headShare), 162 of the
// 600 entries that reading n from each would take for Top(100) over 6 shards; a shard whose every entry read is among the first n may
// hold more of them, and only such shards read on, up to n, in a second round (a write
// between the rounds can shift what it reads, as between any two reads).
func Heads[T any](shards int, n int64, cmp func(a, b T) int, ranges func(bounds func(shard int) (start, stop int64)) ([][]T, error)) ([][]T, error) {
	if n == math.MaxInt64 {
		return ranges(func(int) (int64, int64) { return 0, -1 })
	}
	per := headShare(n, shards)
	lists, err := ranges(func(int) (int64, int64) { return 0, per - 1 })
	if err != nil || per == n {
		return lists, err
	}
	shares := Shares(lists, n, cmp)
	more := make([]bool, len(lists))
	refill := false
	for i, l := range lists {
		more[i] = int64(len(l)) == per && shares[i] == per // all it read is needed, and it may have more
		refill = refill || more[i]
	}
	if !refill {
		return lists, nil
	}
	rest, err := ranges(func(i int) (int64, int64) {
		if more[i] {
			return per, n - 1
		}
		return 1, 0 // nothing
	})
	if err != nil {
		return nil, err
	}
	for i, l := range lists {
		for _, x := range rest[i] {
			// A write between the rounds may have moved an entry read in the first one: keep
			// every entry once, in order.
			if more[i] && cmp(x, l[len(l)-1]) > 0 {
				lists[i] = append(lists[i], x)
			}
		}
	}
	return lists, nil
}

// headShare is how many of its first entries each of shards reads first for the first n of
// the board: n/shards and two standard deviations of a shard's share (binomial: about
// √(n/shards)) over it, so that a second round is rare (a shard's share exceeds that about
// once in 50 reads; the round costs one more pipelined read of the few shards concerned);
// never more than n.
func headShare(n int64, shards int) int64 {
	if shards <= 1 || n <= 1 {
		return max(n, 0)
	}
	mean := (n + int64(shards) - 1) / int64(shards)
	return min(n, mean+int64(math.Ceil(2*math.Sqrt(float64(mean))))+1)
}

// Shares returns how many elements of each list are among the first n of their merge
// (MergeSorted(lists, n, cmp)).
func Shares[T any](lists [][]T, n int64, cmp func(a, b T) int) []int64 {
	shares := make([]int64, len(lists))
	merge(lists, n, cmp, func(list int, _ T) { shares[list]++ })
	return shares
}

// merge visits the first n elements of the merge of lists (all when n < 0) in order.
func merge[T any](lists [][]T, n int64, cmp func(a, b T) int, visit func(list int, x T)) {
	h := &mergeHeap[T]{lists: lists, cmp: cmp}
	for i, l := range lists {
		if len(l) > 0 {
			h.heads = append(h.heads, mergeHead{list: i})
		}
	}
	heap.Init(h)
	for ; n != 0 && h.Len() > 0; n-- {
		top := &h.heads[0]
		visit(top.list, lists[top.list][top.at])
		if top.at++; top.at == len(lists[top.list]) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
}

type mergeHead struct{ list, at int }

// mergeHeap orders the lists' current heads by cmp, ties by list.
type mergeHeap[T any] struct {
	lists [][]T
	heads []mergeHead
	cmp   func(a, b T) int
}

func (h *mergeHeap[T]) Len() int { return len(h.heads) }
func (h *mergeHeap[T]) Less(i, j int) bool {
	a, b := h.heads[i], h.heads[j]
	if c := h.cmp(h.lists[a.list][a.at], h.lists[b.list][b.at]); c != 0 {
		return c < 0
	}
	return a.list < b.list
}
func (h *mergeHeap[T]) Swap(i, j int) { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *mergeHeap[T]) Push(x any)    { h.heads = append(h.heads, x.(mergeHead)) }
func (h *mergeHeap[T]) Pop() any {
	last := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return last
}

// Pipe is a pipeline of commands and read-only function calls sent together: on a Cluster,
// go-redis sends each node its commands in one write, all nodes at once, so a read that asks
// every shard costs one round trip per node, in parallel. Plain commands are queued on the
// embedded Pipeliner.
type Pipe struct {
	redis.Pipeliner
	c     redis.UniversalClient
	calls []pipedCall
}

type pipedCall struct {
	f    *Function
	keys []string
	args []any
	cmd  *redis.Cmd
}

// NewPipe starts a pipeline on c.
func NewPipe(c redis.UniversalClient) *Pipe {
	return &Pipe{Pipeliner: c.Pipeline(), c: c}
}

// CallRO queues a read-only function call (FCALL_RO); its reply or error is in the returned
// command after Exec.
func (p *Pipe) CallRO(ctx context.Context, f *Function, keys []string, args ...any) *redis.Cmd {
	cmd := f.queue(ctx, p.Pipeliner, true, keys, args)
	p.calls = append(p.calls, pipedCall{f: f, keys: keys, args: args, cmd: cmd})
	return cmd
}

// Exec sends the pipeline. A pipeline cannot load a missing library between its commands, so
// the calls that met a server without it (after a restart, a failover or FUNCTION FLUSH) are
// sent again in a second pipeline, after their library is loaded where each one went. Every
// command keeps its own reply and error; function errors are typed as CallRO types them.
func (p *Pipe) Exec(ctx context.Context) {
	_, _ = p.Pipeliner.Exec(ctx)
	var again []pipedCall
	for _, pc := range p.calls {
		if pc.f.Lib.missing(ctx, p.c, pc.keys, pc.cmd.Err()) {
			again = append(again, pc)
		}
	}
	if len(again) > 0 {
		retry := p.c.Pipeline()
		cmds := make([]*redis.Cmd, len(again))
		for i, pc := range again {
			if err := pc.f.Lib.loadFor(ctx, p.c, pc.keys); err != nil {
				cmds[i] = redis.NewCmd(ctx)
				cmds[i].SetErr(err)
				continue
			}
			cmds[i] = pc.f.queue(ctx, retry, true, pc.keys, pc.args)
		}
		_, _ = retry.Exec(ctx)
		for i, pc := range again {
			pc.cmd.SetVal(cmds[i].Val())
			pc.cmd.SetErr(cmds[i].Err())
		}
	}
	for _, pc := range p.calls {
		pc.cmd.SetErr(ReplyError(pc.cmd.Err()))
	}
}

// Pick returns the elements of xs at the positions at, in that order.
func Pick[T any](xs []T, at []int) []T {
	out := make([]T, len(at))
	for j, i := range at {
		out[j] = xs[i]
	}
	return out
}

// AroundBounds is the window of Around on a board of count entries, as the around script
// computes it: the 0-based positions start…stop (stop < count) around position r, with up to
// before entries ahead and after behind; fill keeps the window whole at the board's ends.
// before and after are at least 0.
func AroundBounds(r, before, after, count int64, fill bool) (start, stop int64) {
	before, after = min(before, count), min(after, count) // no window is wider than the board
	start, stop = max(0, r-before), r+after
	last := count - 1
	if fill {
		if start == 0 {
			stop = before + after
		} else if stop > last {
			start = max(0, last-before-after)
		}
	}
	return start, min(stop, last)
}

// ReshardProgress is how far Reshard got: the source shard it copies and the cursor (C, the
// board's Cursor) of the last entry it copied from that shard. The zero value is the start.
type ReshardProgress[C any] struct {
	Shard  int   // the source shard being copied; the number of shards when done
	After  C     // the last entry copied from it
	Copied int64 // entries copied so far
}

// Reshard copies every entry of a sharded board of shards shards into another (a generated
// ShardedBoard's Reshard): shard by shard from from, in keyset pages of pageSize entries that
// page reads (shard i's entries after cur, up to n, and the cursor of the last: Board.After),
// each stored with store (the destination's SetMany); progress, when not nil, hears of every
// page. At the end the source's and the copy's sizes (their Count) must agree: a difference is
// a *DriftError. A pageSize below 1, or from.Shard outside [0, shards], is ErrOutOfRange.
func Reshard[C, E any](ctx context.Context, shards int, from ReshardProgress[C], pageSize int64,
	page func(ctx context.Context, shard int, cur C, n int64) ([]E, C, error), store func(context.Context, []E) error,
	progress func(ReshardProgress[C]), sourceCount, copyCount func(context.Context) (int64, error)) (ReshardProgress[C], error) {
	if pageSize < 1 {
		return from, IntRangeError("pageSize", pageSize, 1, math.MaxInt64)
	}
	if from.Shard < 0 || from.Shard > shards {
		return from, IntRangeError("from.Shard", int64(from.Shard), 0, int64(shards))
	}
	at := from
	for at.Shard < shards {
		entries, next, err := page(ctx, at.Shard, at.After, pageSize)
		if err != nil {
			return at, err
		}
		if len(entries) == 0 {
			at = ReshardProgress[C]{Shard: at.Shard + 1, Copied: at.Copied}
			continue
		}
		if err := store(ctx, entries); err != nil {
			return at, err
		}
		at.After, at.Copied = next, at.Copied+int64(len(entries))
		if progress != nil {
			progress(at)
		}
	}
	want, err := sourceCount(ctx)
	if err != nil {
		return at, err
	}
	got, err := copyCount(ctx)
	if err != nil {
		return at, err
	}
	if got != want {
		return at, &DriftError{Source: want, Copy: got}
	}
	return at, nil
}

// ErrReshardDrift: a resharded board does not hold what its source holds at the end of the
// copy — the source was written during Reshard, which needs its writers stopped.
var ErrReshardDrift = errors.New("rankgen: the source board changed during Reshard")

// DriftError reports a Reshard whose copy and source differ in size. It matches
// ErrReshardDrift.
type DriftError struct{ Source, Copy int64 }

func (e *DriftError) Error() string {
	return "rankgen: the source board changed during Reshard: it holds " + strconv.FormatInt(e.Source, 10) +
		" entries, the copy " + strconv.FormatInt(e.Copy, 10) + "; stop its writers and run Reshard again"
}

// Is makes errors.Is(err, ErrReshardDrift) true.
func (e *DriftError) Is(target error) bool { return target == ErrReshardDrift }
