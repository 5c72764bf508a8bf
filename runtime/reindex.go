package runtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ErrDuplicateID: a board holds more than one member for one id, so it cannot be indexed until
// the extra members are removed (seed 000's ZREM-then-ZADD leaves these behind when its old
// member was stale).
var ErrDuplicateID = errors.New("rankgen: an id has more than one member")

// ReindexReport says what Reindex found and did.
type ReindexReport struct {
	Members   int // members in the board
	Written   int // index entries added or corrected
	Unchanged int // index entries that were already right
	Removed   int // index entries of ids the board no longer holds, deleted
	Skipped   int // members that left the board between the scan and the write (not indexed)

	// Duplicates maps each id that has more than one member to its members (sorted). Bad lists
	// the members (with their scores) that the layout cannot have written. When either is not
	// empty, Reindex writes nothing.
	Duplicates map[string][]string
	Bad        []string
}

// reindexPage is how many members Reindex reads, and index entries it writes, per command.
const reindexPage = 1000

// reindexWrite sets index entries, each only while its member is still in the board and the
// id is not indexed to another member that is, and claims the index for the layout.
// KEYS[1] board, KEYS[2] index; ARGV[1] fingerprint, then id, member pairs.
// It returns {written, unchanged, skipped, conflicts}.
var reindexWrite = redis.NewScript(`#!lua
local board, index, fp = KEYS[1], KEYS[2], ARGV[1]
local have = redis.call('HGET', index, '')
if have and have ~= fp then
  return redis.error_reply('RANKGEN_LAYOUT_MISMATCH the index has layout ' .. have .. ', this code writes layout ' .. fp)
end
local written, unchanged, skipped, conflicts = 0, 0, 0, 0
for i = 2, #ARGV, 2 do
  local id, member = ARGV[i], ARGV[i + 1]
  if not redis.call('ZSCORE', board, member) then
    skipped = skipped + 1
  else
    local cur = redis.call('HGET', index, id)
    if cur == member then
      unchanged = unchanged + 1
    elseif cur and redis.call('ZSCORE', board, cur) then
      conflicts = conflicts + 1
    else
      redis.call('HSET', index, id, member)
      written = written + 1
    end
  end
end
if not have then
  redis.call('HSET', index, '', fp)
end
return {written, unchanged, skipped, conflicts}
`)

// reindexRemove deletes index entries of ids whose member left the board, each only while it
// still maps to the member the caller saw. KEYS as reindexWrite; ARGV id, member pairs.
var reindexRemove = redis.NewScript(`#!lua
local board, index = KEYS[1], KEYS[2]
local removed = 0
for i = 1, #ARGV, 2 do
  local id, member = ARGV[i], ARGV[i + 1]
  if redis.call('HGET', index, id) == member and not redis.call('ZSCORE', board, member) then
    redis.call('HDEL', index, id)
    removed = removed + 1
  end
end
return removed
`)

// Reindex builds the id → member index (IndexKey(key)) of a board whose members carry a field
// prefix, from the members already in the sorted set key: how a board written by other code
// (a hand-made scheme with the same layout) is adopted by a generated Board. idOf decodes one
// stored pair and returns its id, or an error when the layout cannot have written it.
//
// It is idempotent and safe to rerun: it reads the whole set first and writes nothing when a
// member does not decode or an id has more than one member (the report lists them; the error
// matches ErrBadMember or ErrDuplicateID); it refuses an index claimed by another layout
// (ErrLayoutMismatch); and it writes each entry only while its member is still in the set, so
// a generated Board writing at the same time is never undone. Members written meanwhile by
// other code are not indexed: stop such writers, or rerun. A reply of a shape its commands
// never produce is an error matching ErrBadReply.
func Reindex(ctx context.Context, c redis.UniversalClient, key, fingerprint string, idOf func(score float64, member string) (string, error)) (ReindexReport, error) {
	r := &reindexer{c: c, key: key, index: IndexKey(key), fingerprint: fingerprint, idOf: idOf}
	// A WRONGTYPE or OOM reply is typed as a script's would be (ErrWrongType, ErrServerFull).
	return r.rep, ReplyError(r.run(ctx))
}

// run is Reindex's steps, in order; the first error stops it.
func (r *reindexer) run(ctx context.Context) error {
	if err := r.checkClaim(ctx); err != nil {
		return err
	}
	if err := r.scan(ctx); err != nil {
		return err
	}
	if err := r.refuseBadOrDuplicate(); err != nil {
		return err
	}
	if err := r.writeIndex(ctx); err != nil {
		return err
	}
	return r.removeStale(ctx)
}

// reindexer holds one Reindex run: the board, what the scan found, and the report so far.
type reindexer struct {
	c                       redis.UniversalClient
	key, index, fingerprint string
	idOf                    func(score float64, member string) (string, error)

	members  map[string]map[string]bool // id → its members, as the scan found them
	firstBad error                      // idOf's error for the first member it refused
	rep      ReindexReport
}

// checkClaim refuses an index that records another layout's fingerprint.
func (r *reindexer) checkClaim(ctx context.Context) error {
	have, err := r.c.HGet(ctx, r.index, "").Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil
	case err != nil:
		return err
	case have != r.fingerprint:
		return fmt.Errorf("%w: the index %s has layout %s, this code writes layout %s", ErrLayoutMismatch, r.index, have, r.fingerprint)
	}
	return nil
}

// scan reads the whole sorted set a page at a time and groups its members by id, listing the
// members idOf refuses in the report.
func (r *reindexer) scan(ctx context.Context) error {
	r.members = map[string]map[string]bool{}
	for start := int64(0); ; start += reindexPage {
		zs, err := r.c.ZRangeWithScores(ctx, r.key, start, start+reindexPage-1).Result()
		if err != nil {
			return err
		}
		for _, z := range zs {
			m, ok := z.Member.(string)
			if !ok {
				return badReply("ZRANGE", "a member string", z.Member)
			}
			r.add(z.Score, m)
		}
		if len(zs) < reindexPage {
			break
		}
	}
	// A member met twice (the set moved between pages) counts once.
	r.rep.Members = len(r.rep.Bad)
	for _, ms := range r.members {
		r.rep.Members += len(ms)
	}
	return nil
}

// add files one stored pair under its id, or under Bad when the layout cannot have written it.
func (r *reindexer) add(score float64, m string) {
	id, err := r.idOf(score, m)
	if err != nil {
		r.rep.Bad = append(r.rep.Bad, fmt.Sprintf("%q (score %v)", m, score))
		if r.firstBad == nil {
			r.firstBad = err
		}
		return
	}
	if r.members[id] == nil {
		r.members[id] = map[string]bool{}
	}
	r.members[id][m] = true
}

// refuseBadOrDuplicate lists the ids with more than one member in the report, and refuses to
// write anything when there are such ids or members the layout cannot have written.
func (r *reindexer) refuseBadOrDuplicate() error {
	for id, ms := range r.members {
		if len(ms) > 1 {
			if r.rep.Duplicates == nil {
				r.rep.Duplicates = map[string][]string{}
			}
			r.rep.Duplicates[id] = slices.Sorted(maps.Keys(ms))
		}
	}
	if len(r.rep.Bad) > 0 {
		return fmt.Errorf("reindex %s: %d members this layout cannot have written, nothing written (first: %s): %w", r.key, len(r.rep.Bad), r.rep.Bad[0], r.firstBad)
	}
	if len(r.rep.Duplicates) == 0 {
		return nil
	}
	dup := make([]string, 0, len(r.rep.Duplicates))
	for id := range r.rep.Duplicates {
		dup = append(dup, fmt.Sprintf("%q", id))
	}
	sort.Strings(dup)
	if len(dup) > 5 {
		dup = append(dup[:5], "…")
	}
	return fmt.Errorf("%w: reindex %s: %d ids have more than one member (%s); remove the extra members, then rerun; nothing written",
		ErrDuplicateID, r.key, len(r.rep.Duplicates), strings.Join(dup, ", "))
}

// writeIndex sets the index entries a page of ids at a time (at least one call, which claims
// an empty index for the layout).
func (r *reindexer) writeIndex(ctx context.Context) error {
	ids := slices.Sorted(maps.Keys(r.members))
	for i := 0; i < len(ids) || i == 0; i += reindexPage {
		args := []any{r.fingerprint}
		for _, id := range ids[i:min(i+reindexPage, len(ids))] {
			for m := range r.members[id] {
				args = append(args, id, m)
			}
		}
		v, err := Run(ctx, r.c, reindexWrite, []string{r.key, r.index}, args...)
		if err != nil {
			return err
		}
		n, err := counts(v, 4)
		if err != nil {
			return err
		}
		r.rep.Written += int(n[0])
		r.rep.Unchanged += int(n[1])
		r.rep.Skipped += int(n[2])
		if conflicts := n[3]; conflicts > 0 {
			return fmt.Errorf("%w: reindex %s: %d ids gained a second member while indexing; rerun", ErrDuplicateID, r.key, conflicts)
		}
	}
	return nil
}

// removeStale deletes the index entries of ids whose member the scan did not find.
func (r *reindexer) removeStale(ctx context.Context) error {
	stale, err := r.staleEntries(ctx)
	if err != nil {
		return err
	}
	for i := 0; i < len(stale); i += 2 * reindexPage {
		n, err := Int(Run(ctx, r.c, reindexRemove, []string{r.key, r.index}, stale[i:min(i+2*reindexPage, len(stale))]...))
		if err != nil {
			return err
		}
		r.rep.Removed += int(n)
	}
	return nil
}

// staleEntries lists, as id, member pairs, the index entries that point at a member the scan
// did not find (the fingerprint field "" left out).
func (r *reindexer) staleEntries(ctx context.Context) ([]any, error) {
	var stale []any
	iter := r.c.HScan(ctx, r.index, 0, "", reindexPage).Iterator()
	for iter.Next(ctx) {
		id := iter.Val()
		if !iter.Next(ctx) {
			return nil, badReply("HSCAN", "field, value pairs", "an odd number of strings")
		}
		m := iter.Val()
		if id != "" && !r.members[id][m] {
			stale = append(stale, id, m)
		}
	}
	return stale, iter.Err()
}

// counts reads a script reply of n integers.
func counts(v any, n int) ([]int64, error) {
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return nil, badReply("reindex", fmt.Sprintf("%d integers", n), v)
	}
	out := make([]int64, n)
	for i, x := range a {
		if out[i], ok = x.(int64); !ok {
			return nil, badReply("reindex", "an integer", x)
		}
	}
	return out, nil
}
