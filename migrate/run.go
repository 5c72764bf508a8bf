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

// Options says which board to migrate, where to, and how.
type Options struct {
	Key   string // the board to migrate
	ToKey string // when set, the copy stays there and Key is left as it is; else the copy replaces Key
	// Merge is what a copy at ToKey does with an id ToKey already holds (see Merge); "" picks
	// the rule the layouts imply. Boards with add updates refuse such ids whatever it says.
	Merge Merge

	// Shards and Now are RunBoard's: the board is a ShardedBoard of Shards shards (0: not
	// sharded), and for a periodic layout Now's season is the current one (default: now).
	Shards int
	Now    time.Time

	Batch      int // entries per read and per write script (default 500)
	MaxMisfits int // misfits listed in a MisfitError (default 10; all are counted)
	Sample     int // at ToKey: entries the verification decodes both ways (default 100; in place every entry is)
	// FenceTTL is how long the fence of an in-place migration stands unless the run renews it
	// (every third of it): writers wait at most that long after a run is killed (default 5s).
	FenceTTL time.Duration
	// Progress is called after each batch of the check and copy passes, if set; RunBoard calls
	// it from several goroutines at once (a sharded board's shards migrate together).
	Progress func(Progress)

	gate     *gate // RunBoard's, for a shard of a sharded board: its shards switch together (gate.go)
	gatePart int   // the shard's place at the gate
}

// Progress is where a migration stands.
type Progress struct {
	// Phase is "check" (reading the source), "copy" or "verify"; RunBoard also reports "board" before
	// each part of a board of several (Total: its entries), "absent" for a part it skips and, for
	// a shard of a sharded board, "ready" when it has copied and waits for the other shards;
	// "closing" (in place: Done, the ids left to copy again) when the fence closes for the last
	// catch-up and the switch.
	Phase   string
	Done    int64 // entries of the source read in this phase (a scan may read one twice)
	Total   int64 // entries of the source when the migration started
	Elapsed time.Duration

	Part         Part // RunBoard: the part being migrated
	Index, Parts int  // RunBoard: the part's number, from 1, and the board's parts
}

// Report says what Run did.
type Report struct {
	Part        Part          // RunBoard: the part of the board this report is about
	Key, Dest   string        // the source, and the board that holds the migrated entries (Key in place, else ToKey)
	Entries     int64         // entries of the source when the migration started
	Copied      int64         // entries written to the copy by this run
	Kept        int64         // entries the copy already had (a resumed run, or a new-layout writer)
	Replaced    int64         // entries of ToKey that ranked after the source's, replaced (Merge best)
	Merge       Merge         // the rule the copy at ToKey followed ("" in place)
	WithData    int64         // entries copied by this run with their data (the others have none)
	Resumed     bool          // this run continued an interrupted migration
	Sampled     int           // at ToKey: entries verified by decoding both ways
	Verified    int64         // in place: entries verified by decoding both ways, with their data (the whole board)
	Replayed    int64         // in place: ids copied again from the change log (written while the copy ran), by this run
	Refused     int64         // in place: writes the fence refused (ErrMigrating), over every run of this migration
	Fenced      time.Duration // in place: how long the fence stood, from its first raise to the switch
	Closed      time.Duration // in place: how long it stood closed (refusing every write) before the switch
	Restarted   bool          // the fence had lapsed since an earlier run copied: the copy started again
	Switched    bool          // the copy replaced Key
	SwitchedAt  time.Time     // in place: when the copy replaced Key, on the server's clock
	AlreadyDone bool          // nothing to do: the migration had completed before
}

// keys are the keys one migration touches.
type keys struct {
	src, srcIdx, srcMeta, srcData string
	dest, destAux, destData, prog string
	fence, log                    string // in place: the fence writers meet (rankgenrt.FenceKey), and its change log
	inPlace                       bool
}

func keysFor(p *Plan, o Options) keys {
	k := keys{src: o.Key, srcIdx: rankgenrt.IndexKey(o.Key), srcMeta: rankgenrt.MetaKey(o.Key), dest: o.ToKey}
	if k.dest == "" {
		k.inPlace = true
		k.dest = rankgenrt.SideKey(o.Key, "migrate:board") // in the source's hash slot
		k.fence, k.log = rankgenrt.FenceKey(o.Key), rankgenrt.ChangeLogKey(o.Key)
	}
	k.destAux = auxKey(p.New, k.dest)
	k.srcData, k.destData = rankgenrt.DataKey(k.src), rankgenrt.DataKey(k.dest)
	k.prog = rankgenrt.SideKey(k.dest, "migrate")
	return k
}

func auxKey(l *layout.Layout, key string) string {
	if l.HasPrefix() {
		return rankgenrt.IndexKey(key)
	}
	return rankgenrt.MetaKey(key)
}

// Run migrates the board o.Key from p.Old to p.New: it reads the whole source and stops with
// a *MisfitError (ErrMisfit) when an entry does not map; copies it in batches into a key of
// the same hash slot (or o.ToKey), recording its progress there in the same script as each
// batch; verifies the copy (entry count, and every entry, or at o.ToKey a sample, decoded
// with both layouts); and then, unless o.ToKey is set, replaces the source with the copy in
// one script. The source is not modified before that switch. In place, the board is fenced
// from the check pass to the switch (see fence.go): writers of the old layout write on and log
// what they change, which the run copies again (changelog.go), and only the last catch-up,
// its verification and the switch refuse them; no write of either layout is lost, each one
// refused returns ErrMigrating. A run interrupted at any point (even kill -9) is resumed
// by running it again with the same plan, and ends in the same state.
func Run(ctx context.Context, c redis.UniversalClient, p *Plan, o Options) (rep Report, err error) {
	o = o.withDefaults()
	m := &migration{c: c, p: p, o: o, k: keysFor(p, o), start: time.Now(), merge: mergeRule(p, o)}
	m.rivals = m.merge == MergeBest && p.defaultsRanking()
	m.ctx, m.cancel = context.WithCancelCause(ctx)
	defer func() { err = m.unfence(err); m.cancel(nil) }()
	ctx = m.ctx
	m.rep = Report{Key: o.Key, Dest: o.Key, Merge: m.merge}
	if o.ToKey != "" {
		m.rep.Dest = o.ToKey
	}
	if done, err := m.alreadyDone(ctx); done || err != nil {
		return m.rep, err
	}
	steps := []func(context.Context) error{m.checkSource, m.checkDest, m.checkAll, m.begin, m.copyAll, m.verify, m.finish}
	if m.k.inPlace {
		logged := func(ctx context.Context) error { return m.fence(ctx, "log") }
		steps = []func(context.Context) error{m.checkSource, logged, m.checkAll, m.begin, m.copyAll, m.verify, m.catchUp, m.await, m.closeAndCatchUp, m.finish}
	}
	for _, step := range steps {
		if err := step(ctx); err != nil || m.rep.AlreadyDone {
			return m.rep, err
		}
	}
	return m.rep, nil
}

func (o Options) withDefaults() Options {
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.MaxMisfits <= 0 {
		o.MaxMisfits = 10
	}
	if o.Sample <= 0 {
		o.Sample = 100
	}
	if o.FenceTTL <= 0 {
		o.FenceTTL = 5 * time.Second
	}
	return o
}

// migration is one Run: its plan, keys and report so far.
type migration struct {
	c        redis.UniversalClient
	ctx      context.Context // the run's, cancelled with errFenceLapsed when its fence lapses
	cancel   context.CancelCauseFunc
	renewing chan struct{} // closed when the run ends, stopping the fence's renewals
	p        *Plan
	o        Options
	k        keys
	start    time.Time
	rep      Report

	phase, cursor string // where the copy stands
	merge         Merge  // the rule for ids the destination holds
	rivals        bool   // merge best with a defaulted field: entries rank as their rivals against KEY2's
	expireAt      int64  // the source's expiry in Unix ms, or -1 for none

	// in place, what the run's passes have read, for the switch it expects (expect)
	readPhase            string
	readBefore, readDone int64         // entries read in the passes before readPhase's, and in it
	replaying            time.Duration // spent replaying the change log, for the rate of Replayed
}

// alreadyDone reports an in-place migration whose switch has happened: no progress record,
// and the source claims the new layout.
func (m *migration) alreadyDone(ctx context.Context) (bool, error) {
	if !m.k.inPlace {
		return false, nil
	}
	n, err := m.c.Exists(ctx, m.k.prog).Result()
	if err != nil || n > 0 {
		return false, err
	}
	have, err := claim(ctx, m.c, m.p.New, m.k.src)
	if err != nil || have != m.p.New.Fingerprint {
		return false, err
	}
	if done, err := m.dataDone(ctx); err != nil || !done {
		return false, err
	}
	m.rep.AlreadyDone = true
	m.rep.Entries, err = m.c.ZCard(ctx, m.k.src).Result()
	return true, err
}

// claim reads the fingerprint a board's side key records for a layout of l's kind ("" when
// none).
func claim(ctx context.Context, c redis.UniversalClient, l *layout.Layout, key string) (string, error) {
	var v string
	var err error
	if l.HasPrefix() {
		v, err = c.HGet(ctx, rankgenrt.IndexKey(key), "").Result()
	} else {
		v, err = c.Get(ctx, rankgenrt.MetaKey(key)).Result()
	}
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return v, err
}

// checkSource refuses a source that another layout claims, and counts its entries.
func (m *migration) checkSource(ctx context.Context) error {
	have, err := claim(ctx, m.c, m.p.Old, m.k.src)
	if err != nil {
		return err
	}
	if have != "" && have != m.p.Old.Fingerprint {
		return fmt.Errorf("%w: %s has layout %s, the old schema is layout %s", rankgenrt.ErrLayoutMismatch, m.k.src, have, m.p.Old.Fingerprint)
	}
	if err := m.checkSourceData(ctx); err != nil {
		return err
	}
	if m.expireAt, err = m.sourceExpiry(ctx); err != nil {
		return err
	}
	m.rep.Entries, err = m.c.ZCard(ctx, m.k.src).Result()
	return err
}

// sourceExpiry is when the source expires (Unix ms, -1 for never): its sorted set's expiry,
// or, on a board whose entries were all removed, its side keys'. The copy gets it too.
func (m *migration) sourceExpiry(ctx context.Context) (int64, error) {
	for _, k := range []string{m.k.src, m.k.srcIdx, m.k.srcMeta, m.k.srcData} {
		// go-redis returns -1 (no expiry) and -2 (no key) as they are, not as milliseconds.
		at, err := m.c.PExpireTime(ctx, k).Result()
		switch {
		case err != nil:
			return 0, err
		case at == -1:
			return -1, nil
		case at != -2:
			return at.Milliseconds(), nil
		}
	}
	return -1, nil
}

// checkDest refuses, before anything is written, a fresh copy into a KEY2 that holds entries
// when ids both boards hold cannot be merged (unmergeable).
func (m *migration) checkDest(ctx context.Context) error {
	if m.merge != mergeSame {
		return nil
	}
	plan, err := m.c.HGet(ctx, m.k.prog, "plan").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	if plan == m.p.id { // resuming: the entries are this migration's, checked id by id
		return nil
	}
	n, err := m.c.ZCard(ctx, m.k.dest).Result()
	if err != nil || n == 0 {
		return err
	}
	why, fix := m.unmergeable()
	return fmt.Errorf("%w: %s already holds %d entries, and %s; %s", ErrConflict, m.k.dest, n, why, fix)
}

// mergeRefused reports an id KEY2 holds with another entry than the source's, where ids
// cannot be merged; it forgets the copy's progress, so that a rerun starts by checking KEY2
// again.
func (m *migration) mergeRefused(id string) error {
	why, fix := m.unmergeable()
	err := fmt.Errorf("%w: %s holds id %s with another entry than %s's, and %s; %s",
		ErrConflict, m.k.dest, quote.Short(id), m.k.src, why, fix)
	if derr := m.c.Del(context.Background(), m.k.prog).Err(); derr != nil {
		return errors.Join(err, derr)
	}
	return err
}

// entry is one stored pair of the source.
type entry struct {
	member string
	score  float64
}

// recoded is a source entry mapped to the new layout: its id, pair and data ("" for none),
// or why it does not map.
type recoded struct {
	id, member, data string
	score            float64
	err              error
	// rival: at -merge best with a defaulted field, the pair the entry ranks as against the
	// one KEY2 holds (Plan.rival).
	rival       bool
	rivalScore  float64
	rivalMember string
}

// scan reads the source a batch at a time from cursor, calling f with each batch and the
// cursor after it, until the scan ends; f may stop it with an error.
func (m *migration) scan(ctx context.Context, cursor uint64, f func(batch []entry, next uint64) error) error {
	for {
		kv, next, err := m.c.ZScan(ctx, m.k.src, cursor, "", int64(m.o.Batch)).Result()
		if err != nil {
			return err
		}
		if len(kv)%2 != 0 {
			return fmt.Errorf("%w: ZSCAN returned an odd number of strings", rankgenrt.ErrBadReply)
		}
		batch := make([]entry, 0, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			score, err := strconv.ParseFloat(kv[i+1], 64)
			if err != nil {
				return fmt.Errorf("%w: ZSCAN score %.40q", rankgenrt.ErrBadReply, kv[i+1])
			}
			batch = append(batch, entry{member: kv[i], score: score})
		}
		if err := f(batch, next); err != nil {
			return err
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

func (m *migration) progress(phase string, done int64) {
	if m.k.inPlace {
		m.expect(phase, done)
	}
	if m.o.Progress != nil {
		m.o.Progress(Progress{Phase: phase, Done: done, Total: m.rep.Entries, Elapsed: time.Since(m.start)})
	}
}

// Misfit is one stored entry that does not map to the new layout.
type Misfit struct {
	ID     string  // the entry's id ("" when the old layout cannot decode it)
	Member string  // the stored member
	Score  float64 // the stored pair's score
	Err    error
}

// String names the entry, quoted short: by id, or by its stored pair when it has none.
func (f Misfit) String() string {
	if f.ID != "" {
		return quote.Short(f.ID)
	}
	return fmt.Sprintf("member %s (score %v)", quote.Short(f.Member), f.Score)
}

// MisfitError lists the entries that do not map (at most Options.MaxMisfits of them) and
// counts them all. It matches ErrMisfit.
type MisfitError struct {
	Key   string
	Count int
	First []Misfit
}

func (e *MisfitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rankgen migrate: %s: %d entries do not fit the new layout, nothing written", e.Key, e.Count)
	for _, f := range e.First {
		fmt.Fprintf(&b, "\n  %s: %s", f, strings.TrimPrefix(f.Err.Error(), ErrMisfit.Error()+": "))
	}
	if e.Count > len(e.First) {
		fmt.Fprintf(&b, "\n  … and %d more", e.Count-len(e.First))
	}
	return b.String()
}

func (e *MisfitError) Unwrap() error { return ErrMisfit }

// checkAll maps every entry of the source before anything is written.
func (m *migration) checkAll(ctx context.Context) error {
	mis := &MisfitError{Key: m.k.src}
	var done int64
	err := m.scan(ctx, 0, func(batch []entry, _ uint64) error {
		rs, err := m.recode(ctx, batch)
		if err != nil {
			return err
		}
		for i, r := range rs {
			if r.err != nil {
				mis.add(r.id, batch[i], r.err, m.o.MaxMisfits)
			}
		}
		done += int64(len(batch))
		m.progress("check", done)
		return nil
	})
	if err == nil && mis.Count > 0 {
		return mis
	}
	return err
}

func (e *MisfitError) add(id string, en entry, err error, max int) {
	e.Count++
	if len(e.First) >= max {
		return
	}
	if !errors.Is(err, ErrMisfit) { // the old layout cannot decode it
		id, err = "", fmt.Errorf("%w: the old layout cannot decode it: %v", ErrMisfit, err)
	}
	e.First = append(e.First, Misfit{ID: id, Member: en.member, Score: en.score, Err: err})
}
