package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
)

// verifyAll checks every entry of the source against the copy, decoded both ways with the
// interpreted codecs, and its data, a batch per round trip. It runs in place while writers of
// the old layout write and log the ids they change: an entry that differs is one written since
// it was copied, so its id must be in the change log, whose replay verifies it again (every id
// changed since the copy is in the log until a replay copies it again, and only a replay takes
// it out). An entry that differs and is not logged is a write by other code: ErrChanged.
func (m *migration) verifyAll(ctx context.Context) error {
	var done int64
	err := m.scan(ctx, 0, func(batch []entry, _ uint64) error {
		if err := m.verifyBatch(ctx, batch); err != nil {
			return err
		}
		done += int64(len(batch))
		m.progress("verify", done)
		return nil
	})
	if errors.Is(err, ErrChanged) {
		return m.changed(ctx, err)
	}
	return err
}

// verifyBatch reads the copy's pair and data for each entry of a source batch in one pipeline
// and compares them; an entry that differs passes only while its id is in the change log.
func (m *migration) verifyBatch(ctx context.Context, batch []entry) error {
	if len(batch) == 0 {
		return nil
	}
	olds := make([]layout.Entry, len(batch))
	ids := make([]string, len(batch))
	for i, e := range batch {
		old, err := m.oldEntry(e)
		if err != nil {
			return err
		}
		olds[i], ids[i] = old, old.ID
	}
	members := ids
	if m.p.New.HasPrefix() {
		got, err := m.c.HMGet(ctx, m.k.destAux, ids...).Result()
		if err != nil {
			return err
		}
		members = make([]string, len(ids))
		for i, v := range got {
			members[i], _ = v.(string) // "": the copy lacks the id
		}
	}
	pipe := m.c.Pipeline()
	scores := make([]*redis.FloatCmd, len(members))
	for i, member := range members {
		if member != "" {
			scores[i] = pipe.ZScore(ctx, m.k.dest, member)
		}
	}
	var srcData, gotData *redis.SliceCmd
	if m.p.carriesData() {
		srcData, gotData = pipe.HMGet(ctx, m.k.srcData, ids...), pipe.HMGet(ctx, m.k.destData, ids...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	var differ []string
	var why []error
	for i, sc := range scores {
		err := m.verifyEntry(olds[i], members[i], sc, srcData, gotData, i)
		if errors.Is(err, ErrChanged) {
			differ, why = append(differ, ids[i]), append(why, err)
		} else if err != nil {
			return err
		}
	}
	return m.unlogged(ctx, differ, why)
}

// verifyEntry compares source entry i of a batch, old, with the copy's: its member ("": none)
// and score, and its data (srcData, gotData: the batch's, nil when the migration carries none).
func (m *migration) verifyEntry(old layout.Entry, member string, sc *redis.FloatCmd, srcData, gotData *redis.SliceCmd, i int) error {
	if sc == nil {
		return m.missing(old.ID)
	}
	score, err := sc.Result()
	if errors.Is(err, redis.Nil) {
		return m.missing(old.ID)
	}
	if err != nil {
		return err
	}
	withData, err := m.compare(old, member, score)
	if err != nil || !withData || srcData == nil {
		return err
	}
	src, srcHas := srcData.Val()[i].(string)
	got, gotHas := gotData.Val()[i].(string)
	return m.compareData(old.ID, src, srcHas, got, gotHas)
}

// unlogged returns why[i], the difference found on ids[i], for the first of the ids that
// differ which is not in the change log (at -to-key, which has none: the first); nil when every
// one is logged, to be verified again once replayed.
func (m *migration) unlogged(ctx context.Context, ids []string, why []error) error {
	if len(ids) == 0 {
		return nil
	}
	if !m.k.inPlace {
		return why[0]
	}
	in, err := m.c.SMIsMember(ctx, m.k.log, toAny(ids)...).Result()
	if err != nil {
		return err
	}
	for i, logged := range in {
		if !logged {
			return fmt.Errorf("%w (not in the change log: written by code that does not log)", why[i])
		}
	}
	return nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
