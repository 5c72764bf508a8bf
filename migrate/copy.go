package migrate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// begin starts the progress record, or resumes the one a run of the same plan left.
func (m *migration) begin(ctx context.Context) error {
	v, err := run(ctx, m.c, beginScript, []string{m.k.dest, m.k.destAux, m.k.prog, m.k.destData},
		m.p.id, m.p.New.Fingerprint, flag(m.p.New.HasPrefix()), flag(m.k.inPlace), m.p.New.DataFingerprint)
	if err != nil {
		return err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		return fmt.Errorf("%w: migration progress %v", rankgenrt.ErrBadReply, v)
	}
	m.phase, _ = a[0].(string)
	m.cursor, _ = a[1].(string)
	done, _ := a[2].(string)
	m.rep.Resumed = m.phase != "copy" || m.cursor != "0" || done != "0"
	m.rep.AlreadyDone = m.phase == "done"
	return nil
}

// copyAll copies the source from where the progress record stands, one script per batch.
func (m *migration) copyAll(ctx context.Context) error {
	if m.phase != "copy" {
		return nil
	}
	from, err := strconv.ParseUint(m.cursor, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: migration cursor %.40q", rankgenrt.ErrBadReply, m.cursor)
	}
	var done int64
	return m.scan(ctx, from, func(batch []entry, next uint64) error {
		if err := m.copyBatch(ctx, batch, from, next); err != nil {
			return err
		}
		from = next
		done += int64(len(batch))
		m.progress("copy", done)
		return nil
	})
}

// copyBatch writes one batch of entries and their data into the copy, and the cursor after
// it into the progress record, with one script.
func (m *migration) copyBatch(ctx context.Context, batch []entry, from, next uint64) error {
	rs, err := m.recode(ctx, batch)
	if err != nil {
		return err
	}
	args := make([]any, 0, 10+6*len(batch))
	args = append(args, m.p.id, m.p.New.Fingerprint, flag(m.p.New.HasPrefix()),
		strconv.FormatUint(from, 10), strconv.FormatUint(next, 10), len(batch), m.p.New.DataFingerprint,
		string(m.merge), m.expireAt, flag(m.p.carriesData()))
	for _, r := range rs {
		if r.err != nil { // written since the check: stop, the source is untouched
			return fmt.Errorf("%s: %w (changed since the check; rerun)", m.k.src, r.err)
		}
		args = append(args, r.id, strconv.FormatFloat(r.score, 'g', -1, 64), r.member, r.data)
		if r.rival {
			args = append(args, strconv.FormatFloat(r.rivalScore, 'g', -1, 64), r.rivalMember)
		} else {
			args = append(args, "", "")
		}
	}
	v, err := run(ctx, m.c, copyScript, []string{m.k.dest, m.k.destAux, m.k.prog, m.k.destData}, args...)
	var se *stateError
	if errors.As(err, &se) && se.code == "MIGRATE_MERGE" {
		return m.mergeRefused(se.detail)
	}
	if err != nil {
		return err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 4 {
		return fmt.Errorf("%w: copy reply %v", rankgenrt.ErrBadReply, v)
	}
	copied, _ := a[0].(int64)
	kept, _ := a[1].(int64)
	withData, _ := a[2].(int64)
	replaced, _ := a[3].(int64)
	m.rep.Copied += copied
	m.rep.Kept += kept
	m.rep.WithData += withData
	m.rep.Replaced += replaced
	return nil
}

// verify compares the copy with the source. In place, every entry (verifyAll), while writers
// write: the counts are compared once the fence is closed (closeAndCatchUp). At -to-key, the
// entry count, and a random sample of the source's entries decoded with the old layout,
// mapped, and compared with the copy's entry for the same id decoded with the new layout. A
// copy at -to-key may hold more ids (new-layout writers') and, by its merge rule, other entries
// for the ids it shares with the source.
func (m *migration) verify(ctx context.Context) error {
	if m.k.inPlace {
		return m.verifyAll(ctx)
	}
	n, err := m.c.ZCard(ctx, m.k.src).Result()
	if err != nil {
		return err
	}
	got, err := m.c.ZCard(ctx, m.k.dest).Result()
	if err != nil {
		return err
	}
	if got < n {
		return m.changed(ctx, fmt.Errorf("%w: %s has %d entries but %s only %d", ErrChanged, m.k.src, n, m.k.dest, got))
	}
	sample, err := m.c.ZRandMemberWithScores(ctx, m.k.src, m.o.Sample).Result()
	if err != nil {
		return err
	}
	for _, z := range sample {
		if err := m.verifyOne(ctx, z); err != nil {
			return m.changed(ctx, err)
		}
	}
	m.rep.Sampled = len(sample)
	return nil
}

// verifyOne checks one source entry against the copy, decoded both ways: equal, or at -to-key
// as the merge rule keeps it (at least as good, or KEY2's own).
func (m *migration) verifyOne(ctx context.Context, z redis.Z) error {
	member, _ := z.Member.(string)
	old, err := m.oldEntry(entry{member: member, score: z.Score})
	if err != nil {
		return err
	}
	gotMember := old.ID
	if m.p.New.HasPrefix() {
		gotMember, err = m.c.HGet(ctx, m.k.destAux, old.ID).Result()
		if errors.Is(err, redis.Nil) {
			return m.missing(old.ID)
		}
		if err != nil {
			return err
		}
	}
	score, err := m.c.ZScore(ctx, m.k.dest, gotMember).Result()
	if errors.Is(err, redis.Nil) {
		return m.missing(old.ID)
	}
	if err != nil {
		return err
	}
	if withData, err := m.compare(old, gotMember, score); err != nil || !withData {
		return err
	}
	return m.verifyData(ctx, old.ID)
}

// copyName names the copy in messages.
func (m *migration) copyName() string {
	if m.k.inPlace {
		return "its copy"
	}
	return m.k.dest
}

// oldEntry decodes a source entry with the old layout.
func (m *migration) oldEntry(e entry) (layout.Entry, error) {
	old, err := m.p.Old.Decode(e.score, e.member)
	if err != nil {
		return old, fmt.Errorf("%w: %s: %v", ErrChanged, m.k.src, err)
	}
	return old, nil
}

func (m *migration) missing(id string) error {
	return fmt.Errorf("%w: id %s is on %s but not on %s", ErrChanged, quote.Short(id), m.k.src, m.copyName())
}

// compare checks the copy's pair for the source entry old, decoded with the new layout,
// against old mapped; withData reports whether the data must match too (the copy's entry is
// the source's, not one KEY2 kept by its merge rule).
func (m *migration) compare(old layout.Entry, member string, score float64) (withData bool, err error) {
	want, err := m.p.Map(old)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %v", ErrChanged, m.k.src, err)
	}
	got, err := m.p.New.Decode(score, member)
	if err != nil {
		return false, fmt.Errorf("%w: id %s on %s does not decode with the new layout: %v", ErrChanged, quote.Short(old.ID), m.copyName(), err)
	}
	switch {
	case m.merge == MergeNew:
		return false, nil // KEY2's entry is kept, whatever it is
	case m.merge == MergeBest && m.p.New.Compare(got, m.p.rival(want)) <= 0:
		return false, nil // KEY2's entry ranks first (or is the source's), and is kept with its data
	case m.merge == MergeBest:
		return false, fmt.Errorf("%w: id %s reads %s on %s but %s on %s, which ranks after it on the fields %s has",
			ErrChanged, quote.Short(old.ID), entryText(m.p.Old, old), m.k.src, entryText(m.p.New, got), m.k.dest, m.k.src)
	case m.p.New.Compare(got, want) != 0 || got.ID != want.ID:
		return false, fmt.Errorf("%w: id %s reads %s on %s but %s on %s", ErrChanged, quote.Short(old.ID),
			entryText(m.p.Old, old), m.k.src, entryText(m.p.New, got), m.copyName())
	}
	return true, nil
}

// entryText is an entry's fields as Name=value, for messages.
func entryText(l *layout.Layout, e layout.Entry) string {
	parts := make([]string, len(l.Fields))
	for i, f := range l.Fields {
		parts[i] = f.Name + "=" + f.Format(e.Keys[i])
	}
	return strings.Join(parts, " ")
}

// changed handles a verification failure: an in-place copy is dropped (it is the
// migration's own key, and a rerun starts again); a copy at -to-key is kept, and its progress
// set back to the start, so that a rerun copies the source again, merging it into what KEY2
// holds.
func (m *migration) changed(ctx context.Context, err error) error {
	if m.k.inPlace {
		if derr := m.c.Del(ctx, m.k.dest, m.k.destAux, m.k.destData, m.k.prog).Err(); derr != nil {
			return errors.Join(err, derr)
		}
		return fmt.Errorf("%w; stop what writes the board other than its generated write functions, and rerun (the copy was dropped)", err)
	}
	if rerr := m.c.HSet(ctx, m.k.prog, "phase", "copy", "cursor", "0", "done", "0").Err(); rerr != nil {
		return errors.Join(err, rerr)
	}
	return fmt.Errorf("%w: a write reached %s and not %s, from code that writes %s alone or writes it before %s; dual writes must write %s first, then %s. Rerun once they do: the rerun copies %s again, merged into %s",
		err, m.k.src, m.k.dest, m.k.src, m.k.dest, m.k.dest, m.k.src, m.k.src, m.k.dest)
}

// finish switches the copy in (in place), or records the migration as done (-to-key).
func (m *migration) finish(ctx context.Context) error {
	if !m.k.inPlace {
		return m.c.HSet(ctx, m.k.prog, "phase", "done").Err()
	}
	v, err := run(ctx, m.c, switchScript,
		[]string{m.k.src, m.k.srcIdx, m.k.srcMeta, m.k.dest, m.k.destAux, m.k.prog, m.k.srcData, m.k.destData, m.k.fence, m.k.log},
		m.p.id, m.p.Old.Fingerprint, flag(m.p.Old.HasPrefix()), m.p.New.Fingerprint, flag(m.p.New.HasPrefix()),
		m.p.Old.DataFingerprint, m.p.New.DataFingerprint)
	var se *stateError
	if errors.As(err, &se) && se.kind == ErrChanged {
		return m.changed(ctx, fmt.Errorf("%w: %s", ErrChanged, se.detail))
	}
	if err != nil {
		return err
	}
	a, ok := v.([]any)
	if !ok || len(a) != 5 {
		return fmt.Errorf("%w: switch reply %v", rankgenrt.ErrBadReply, v)
	}
	refused, _ := a[1].(int64)
	since, _ := a[2].(int64)
	now, _ := a[3].(int64)
	closed, _ := a[4].(int64)
	m.rep.Switched, m.rep.Refused, m.rep.Fenced = true, refused, time.Duration(now-since)*time.Millisecond
	m.rep.Closed = time.Duration(now-closed) * time.Millisecond
	m.rep.Verified, _ = a[0].(int64) // every entry the switch found, each verified (verifyAll, then replayed ones again)
	m.rep.SwitchedAt = time.UnixMilli(now)
	return nil
}
