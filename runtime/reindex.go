package runtime

import (
	"context"
	"errors"
	"fmt"
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
// other code are not indexed: stop such writers, or rerun.
func Reindex(ctx context.Context, c redis.UniversalClient, key, fingerprint string, idOf func(score float64, member string) (string, error)) (ReindexReport, error) {
	var rep ReindexReport
	index := IndexKey(key)
	if have, err := c.HGet(ctx, index, "").Result(); err == nil && have != fingerprint {
		return rep, fmt.Errorf("%w: the index %s has layout %s, this code writes layout %s", ErrLayoutMismatch, index, have, fingerprint)
	} else if err != nil && err != redis.Nil {
		return rep, err
	}

	members := map[string]map[string]bool{} // id → its members
	var firstBad error
	for start := int64(0); ; start += reindexPage {
		zs, err := c.ZRangeWithScores(ctx, key, start, start+reindexPage-1).Result()
		if err != nil {
			return rep, err
		}
		for _, z := range zs {
			m := z.Member.(string)
			id, err := idOf(z.Score, m)
			if err != nil {
				rep.Bad = append(rep.Bad, fmt.Sprintf("%q (score %v)", m, z.Score))
				if firstBad == nil {
					firstBad = err
				}
				continue
			}
			if members[id] == nil {
				members[id] = map[string]bool{}
			}
			members[id][m] = true
		}
		if len(zs) < reindexPage {
			break
		}
	}
	ids := make([]string, 0, len(members))
	for id, ms := range members {
		rep.Members += len(ms)
		if len(ms) > 1 {
			if rep.Duplicates == nil {
				rep.Duplicates = map[string][]string{}
			}
			list := make([]string, 0, len(ms))
			for m := range ms {
				list = append(list, m)
			}
			sort.Strings(list)
			rep.Duplicates[id] = list
		}
		ids = append(ids, id)
	}
	rep.Members += len(rep.Bad)
	if len(rep.Bad) > 0 {
		return rep, fmt.Errorf("reindex %s: %d members this layout cannot have written, nothing written (first: %s): %w", key, len(rep.Bad), rep.Bad[0], firstBad)
	}
	if len(rep.Duplicates) > 0 {
		dup := make([]string, 0, len(rep.Duplicates))
		for id := range rep.Duplicates {
			dup = append(dup, fmt.Sprintf("%q", id))
		}
		sort.Strings(dup)
		if len(dup) > 5 {
			dup = append(dup[:5], "…")
		}
		return rep, fmt.Errorf("%w: reindex %s: %d ids have more than one member (%s); remove the extra members, then rerun; nothing written",
			ErrDuplicateID, key, len(rep.Duplicates), strings.Join(dup, ", "))
	}

	sort.Strings(ids)
	keys := []string{key, index}
	for i := 0; i < len(ids) || i == 0; i += reindexPage {
		args := []any{fingerprint}
		for _, id := range ids[i:min(i+reindexPage, len(ids))] {
			for m := range members[id] {
				args = append(args, id, m)
			}
		}
		v, err := Run(ctx, c, reindexWrite, keys, args...)
		if err != nil {
			return rep, err
		}
		n, ok := v.([]any)
		if !ok || len(n) != 4 {
			return rep, fmt.Errorf("reindex %s: unexpected reply %v", key, v)
		}
		rep.Written += int(n[0].(int64))
		rep.Unchanged += int(n[1].(int64))
		rep.Skipped += int(n[2].(int64))
		if conflicts := n[3].(int64); conflicts > 0 {
			return rep, fmt.Errorf("%w: reindex %s: %d ids gained a second member while indexing; rerun", ErrDuplicateID, key, conflicts)
		}
	}

	// Entries of ids the board no longer holds.
	var stale []any
	iter := c.HScan(ctx, index, 0, "", reindexPage).Iterator()
	for iter.Next(ctx) {
		id := iter.Val()
		if !iter.Next(ctx) {
			break
		}
		m := iter.Val()
		if id == "" || members[id][m] {
			continue
		}
		stale = append(stale, id, m)
	}
	if err := iter.Err(); err != nil {
		return rep, err
	}
	for i := 0; i < len(stale); i += 2 * reindexPage {
		v, err := Run(ctx, c, reindexRemove, keys, stale[i:min(i+2*reindexPage, len(stale))]...)
		if err != nil {
			return rep, err
		}
		rep.Removed += int(v.(int64))
	}
	return rep, nil
}
