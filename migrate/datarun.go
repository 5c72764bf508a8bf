package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// The data hash (rankgenrt.DataKey: id → data, and the data fingerprint under "") is rebuilt
// beside the copy, in its hash slot, by the same scripts as the sorted set, and switched in
// with it. When neither layout has data fields, a migration never touches it.

// touchesData reports whether the migration reads, writes or deletes the data hash.
func (p *Plan) touchesData() bool { return p.Old.HasData() || p.New.HasData() }

// dataFingerprint is the fingerprint a data hash records under the empty field ("" when it
// has none).
func dataFingerprint(ctx context.Context, c redis.UniversalClient, key string) (string, error) {
	v, err := c.HGet(ctx, key, "").Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, err
}

// checkSourceData refuses a source whose data hash another data format wrote (or any data
// hash, when the old layout has no data fields), before anything is written.
func (m *migration) checkSourceData(ctx context.Context) error {
	if !m.p.touchesData() {
		return nil
	}
	have, err := dataFingerprint(ctx, m.c, m.k.srcData)
	if err != nil {
		return err
	}
	switch {
	case have == "" || rankgenrt.DataFormatLast(have) == m.p.Old.DataFingerprint:
		return nil
	case !m.p.Old.HasData():
		return fmt.Errorf("%w: %s holds data of format %s, but the old schema has no data fields; delete it, or migrate from the schema that wrote it", rankgenrt.ErrLayoutMismatch, m.k.srcData, have)
	}
	return fmt.Errorf("%w: %s holds data of format %s, the old schema's data is format %s", rankgenrt.ErrLayoutMismatch, m.k.srcData, have, m.p.Old.DataFingerprint)
}

// dataDone reports whether the source's data hash is as the new layout wants it: absent, or
// in its format (with no data in the new layout: absent).
func (m *migration) dataDone(ctx context.Context) (bool, error) {
	if !m.p.touchesData() {
		return true, nil
	}
	have, err := dataFingerprint(ctx, m.c, m.k.srcData)
	if err != nil {
		return false, err
	}
	return have == "" || (m.p.New.HasData() && rankgenrt.DataFormatLast(have) == m.p.New.DataFingerprint), nil
}

// recode maps a batch of source entries to the new layout, reading their data when the
// migrated entries keep it.
func (m *migration) recode(ctx context.Context, batch []entry) ([]recoded, error) {
	out := make([]recoded, len(batch))
	var ids []string
	for i, e := range batch {
		r := &out[i]
		var mapped layout.Entry
		r.id, mapped, r.err = m.p.mapStored(e.score, e.member)
		if r.err == nil {
			r.score, r.member, r.err = m.p.encode(mapped)
		}
		if r.err == nil && m.rivals {
			r.rival = true
			r.rivalScore, r.rivalMember, r.err = m.p.encode(m.p.rival(mapped))
		}
		if r.err == nil {
			ids = append(ids, r.id)
		}
	}
	if !m.p.carriesData() || len(ids) == 0 {
		return out, nil
	}
	stored, err := m.c.HMGet(ctx, m.k.srcData, ids...).Result()
	if err != nil {
		return nil, err
	}
	j := 0
	for i := range out {
		if out[i].err != nil {
			continue
		}
		if s, ok := stored[j].(string); ok {
			out[i].data, out[i].err = m.p.RecodeData(s)
		}
		j++
	}
	return out, nil
}

// verifyData checks one sampled id's data: the source's, decoded with the old layout and
// mapped, equals the copy's decoded with the new one; an id without data has none in the
// copy either. (When the old layout has no data, the copy writes none: data there is a
// new-layout writer's, at -to-key.)
func (m *migration) verifyData(ctx context.Context, id string) error {
	if !m.p.carriesData() {
		return nil
	}
	got, gerr := m.c.HGet(ctx, m.k.destData, id).Result()
	src, serr := m.c.HGet(ctx, m.k.srcData, id).Result()
	if err := errors.Join(ignoreNil(serr), ignoreNil(gerr)); err != nil {
		return err
	}
	return m.compareData(id, src, serr == nil, got, gerr == nil)
}

// compareData checks id's data on the copy (got, when it has some) against the source's
// (src, when it has some) mapped.
func (m *migration) compareData(id, src string, srcHas bool, got string, gotHas bool) error {
	if !srcHas || !gotHas {
		if srcHas != gotHas {
			return fmt.Errorf("%w: id %s has data on only one of %s and its copy", ErrChanged, quote.Short(id), m.k.src)
		}
		return nil
	}
	want, err := m.p.RecodeData(src)
	if err != nil {
		return fmt.Errorf("%w: %s: id %q: %v", ErrChanged, m.k.srcData, id, err)
	}
	if got != want { // stored data is canonical: one text per value
		return fmt.Errorf("%w: id %s's data reads differently on %s and its copy", ErrChanged, quote.Short(id), m.k.src)
	}
	return nil
}

func ignoreNil(err error) error {
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}
