package migrate

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
)

// verifyAll checks every entry of the source, n of them, against the copy, decoded both ways
// with the interpreted codecs, and its data, a batch per round trip. It runs in place, under
// the closed fence: the source is still, and the counts are already equal, so every source id
// found equal on the copy means the copy is the source migrated, nothing slipped past.
func (m *migration) verifyAll(ctx context.Context, n int64) error {
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
	if err == nil {
		m.rep.Verified = n
	}
	return err
}

// verifyBatch reads the copy's pair and data for each entry of a source batch in one pipeline
// and compares them.
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
			s, ok := v.(string)
			if !ok {
				return m.missing(ids[i])
			}
			members[i] = s
		}
	}
	pipe := m.c.Pipeline()
	scores := make([]*redis.FloatCmd, len(members))
	for i, member := range members {
		scores[i] = pipe.ZScore(ctx, m.k.dest, member)
	}
	var srcData, gotData *redis.SliceCmd
	if m.p.carriesData() {
		srcData, gotData = pipe.HMGet(ctx, m.k.srcData, ids...), pipe.HMGet(ctx, m.k.destData, ids...)
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for i, sc := range scores {
		score, err := sc.Result()
		if errors.Is(err, redis.Nil) {
			return m.missing(ids[i])
		}
		if err != nil {
			return err
		}
		withData, err := m.compare(olds[i], members[i], score)
		if err != nil {
			return err
		}
		if !withData || srcData == nil {
			continue
		}
		src, srcHas := srcData.Val()[i].(string)
		got, gotHas := gotData.Val()[i].(string)
		if err := m.compareData(ids[i], src, srcHas, got, gotHas); err != nil {
			return err
		}
	}
	return nil
}
