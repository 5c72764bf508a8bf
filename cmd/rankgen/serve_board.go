package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// What rankgen serve reads from Redis, and how it shows it. Every command here is a read
// (TestServeReadOnly checks each against Redis's own command table); every value a board holds
// is shown through quote.Short or a field's Format, never as it is.

// boardView is one board as serve reads it: a layout over a base key, in one season of a
// periodic board and over the shards of a sharded one.
type boardView struct {
	l      *layout.Layout
	c      *redis.Client
	base   string // the key given (a periodic board's base, without a season)
	shards int    // 0: one sorted set; else a ShardedBoard of this many shards
	rows   int    // rows per table
}

// maxMergedRows bounds how deep the pages of all shards merged go: each shard is read from its
// top down to the page's end.
const maxMergedRows = 10000

// setKeys are the sorted sets of the board in season (nil for a board without seasons): the
// one key, or the shards'.
func (b *boardView) setKeys(season *rankgenrt.Season) ([]string, error) {
	key := b.base
	if season != nil {
		key = rankgenrt.SeasonKey(b.base, *season)
	}
	if b.shards == 0 {
		return []string{key}, nil
	}
	return rankgenrt.ShardKeys(key, b.shards)
}

// keyStat is what the page says of one key: the board's sorted set (or a shard's) or a side key.
type keyStat struct {
	Role    string // board, shard N, index, meta, data
	Key     string // quoted
	Type    string // as TYPE says: zset, hash, string, none
	Entries *int64
	Memory  *int64 // MEMORY USAGE; absent for a missing key
	TTL     string // "none", "missing", or the time left
	// Fingerprint is the layout a sorted set's side keys record (quoted when it is no
	// fingerprint), and FingerprintOK whether it is the schema's.
	Fingerprint   string
	FingerprintOK bool
	problem       string // why a sorted set's entries are not decoded; "" when they are
	key           string // the key itself
}

// stats reads the keys of sets and their side keys in one pipeline, and whether each set's
// entries may be decoded with the schema's layout.
func (b *boardView) stats(ctx context.Context, sets []string) ([]keyStat, error) {
	type pending struct {
		stat            keyStat
		typ             *redis.StatusCmd
		mem             *redis.IntCmd
		ttl             *redis.DurationCmd
		card            *redis.IntCmd
		own, other, dfp *redis.StringCmd // what the side keys record
		ownRole         string
		optional        bool // listed only when the key exists
	}
	var ps []*pending
	pipe := b.c.Pipeline()
	add := func(role, key string) *pending {
		p := &pending{stat: keyStat{Role: role, Key: quote.Short(key), key: key}}
		p.typ = pipe.Type(ctx, key)
		p.mem = pipe.MemoryUsage(ctx, key)
		p.ttl = pipe.PTTL(ctx, key)
		ps = append(ps, p)
		return p
	}
	for i, key := range sets {
		role := "board"
		if b.shards > 0 {
			role = "shard " + strconv.Itoa(i)
		}
		p := add(role, key)
		p.card = pipe.ZCard(ctx, key)
		// The board records its layout in the side key of its own kind: the index of a layout
		// whose members carry a field prefix, else the meta key. Both are read, as the Lua's
		// layout_refused reads them: a board of the other kind records it in the other one.
		own, ownRole, other, otherRole := rankgenrt.MetaKey(key), "meta", rankgenrt.IndexKey(key), "index"
		if b.l.HasPrefix() {
			own, ownRole, other, otherRole = other, otherRole, own, ownRole
		}
		p.ownRole = ownRole
		p.own = rankgenrt.FingerprintCmd(ctx, pipe, own, b.l.HasPrefix())
		p.other = rankgenrt.FingerprintCmd(ctx, pipe, other, !b.l.HasPrefix())
		add(ownRole, own)
		if b.l.HasData() {
			p.dfp = pipe.HGet(ctx, rankgenrt.DataKey(key), "")
			add("data", rankgenrt.DataKey(key))
		}
		add(otherRole, other).optional = true
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) && !isWrongType(err) {
		return nil, err
	}
	var out []keyStat
	for _, p := range ps {
		s := p.stat
		s.Type = p.typ.Val()
		if p.optional && s.Type == "none" {
			continue
		}
		if n, err := p.mem.Result(); err == nil {
			s.Memory = &n
		}
		s.TTL = ttlText(p.ttl.Val())
		if p.card != nil {
			n := p.card.Val()
			s.Entries = &n
			s.Fingerprint, s.FingerprintOK, s.problem = b.recorded(p.own, p.other, p.dfp, p.ownRole)
			if n == 0 {
				s.problem = "" // nothing to decode
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// isWrongType reports whether err is Redis's WRONGTYPE refusal (a side key of another type),
// which serve shows as such rather than fail on.
func isWrongType(err error) bool { return strings.HasPrefix(err.Error(), "WRONGTYPE") }

// recorded reads what a board's side keys record (own: the side key of the schema's kind,
// ownRole its name; other: the other kind's; dfp: the data hash's format, nil without data
// fields): the layout shown, whether it is the schema's, and why the board's entries must not
// be decoded with the schema ("" when they may).
func (b *boardView) recorded(own, other, dfp *redis.StringCmd, ownRole string) (shown string, ok bool, problem string) {
	read := func(c *redis.StringCmd) (string, bool, error) {
		v, err := c.Result()
		if errors.Is(err, redis.Nil) {
			return "", false, nil
		}
		return v, err == nil, err
	}
	fp, has, err := read(own)
	if err == nil && !has {
		fp, has, err = read(other) // a board of the other kind records its layout there
	}
	switch {
	case err != nil:
		shown = "unreadable: " + shownText(err.Error())
		problem = fmt.Sprintf("the board's layout cannot be read (%s): its entries may be another layout's, so none is decoded", shown)
	case !has:
		shown = "none recorded"
		problem = fmt.Sprintf("the board records no layout (neither a meta key nor an index holds a fingerprint): other code wrote it, or its side keys are gone, so its entries may be another layout's and none is decoded. If it is %s's board, %s", b.l.File, adoptHint(b.l))
	case !layout.IsFingerprint(fp):
		shown = quote.Short(fp) + " (no fingerprint)"
		problem = fmt.Sprintf("the board's %s holds %s where a layout fingerprint belongs: its layout is unknown, so no entry is decoded", ownRole, quote.Short(fp))
	case fp != b.l.Fingerprint:
		shown = fp
		problem = fmt.Sprintf("the board records layout %s, but %s builds layout %s: its entries would decode to wrong values, so none is decoded. Serve it with the schema that wrote it (rankgen breaking -against shows what changed), or migrate the board", fp, b.l.File, b.l.Fingerprint)
	default:
		shown, ok = fp, true
	}
	if problem != "" || dfp == nil {
		return shown, ok, problem
	}
	switch dfmt, has, err := read(dfp); {
	case err != nil:
		problem = "the board's data format cannot be read (" + shownText(err.Error()) + "): no entry is decoded"
	case has && !rankgenrt.DataFormatShared(dfmt, b.l.DataChain):
		problem = fmt.Sprintf("the board's data hash records stored format %s, but %s's data fields are format %s: its data would decode to wrong values, so no entry is decoded. Serve it with the schema that wrote it, or migrate the board", quote.Short(dfmt), b.l.File, b.l.DataFingerprint)
	}
	return shown, ok, problem
}

// adoptHint says how a board that records no layout comes to record the schema's.
func adoptHint(l *layout.Layout) string {
	if l.HasPrefix() {
		return "rankgen reindex adopts it (it builds the index, which records the layout)"
	}
	return "the first write of its generated Board records the layout"
}

// ttlText is PTTL's answer in words (go-redis gives -1 and -2 as nanoseconds).
func ttlText(d time.Duration) string {
	switch d {
	case -1:
		return "none"
	case -2:
		return "missing"
	}
	return d.Round(time.Millisecond).String()
}

// row is one entry of a table: its rank, the raw score and member (quoted), and either every
// field and data field decoded or why not.
type row struct {
	Rank   int64 // 1 for the first entry
	Shard  *int  // a sharded board's shard that holds it
	Score  string
	Member string
	ID     string
	Fields []string
	Data   []string
	Error  string
	Found  bool   // the id searched for
	id     string // the decoded id, for the data hash

	// What the board holds, for /board.json: the stored pair, and the entry decoded (nil when
	// it is not) with its data (nil: none read).
	score  float64
	member string
	entry  *layout.Entry
	data   []layout.DataValue
}

// undecoded is r without its decoded values, with the reason.
func (r row) undecoded(reason string) row {
	return row{Rank: r.Rank, Shard: r.Shard, Score: r.Score, Member: r.Member, Error: reason, score: r.score, member: r.member}
}

// rawEntry is one member of a sorted set with its score, and where it came from.
type rawEntry struct {
	z     redis.Z
	shard int
}

// byRank orders entries as ZREVRANGE does: higher score first, equal scores by the member's
// bytes, larger first.
func byRank(a, b rawEntry) int {
	if c := cmp.Compare(b.z.Score, a.z.Score); c != 0 {
		return c
	}
	return strings.Compare(b.z.Member.(string), a.z.Member.(string))
}

// page reads the entries ranked start+1 … start+rows of sets: of one set, or merged across
// the shards (each read from its top).
func (b *boardView) page(ctx context.Context, sets []string, shardOf []int, start int64) ([]row, error) {
	if len(sets) == 1 {
		zs, err := b.c.ZRevRangeWithScores(ctx, sets[0], start, start+int64(b.rows)-1).Result()
		if err != nil {
			return nil, err
		}
		return b.rowsOf(ctx, sets, entries(zs, shardOf[0]), start)
	}
	if start+int64(b.rows) > maxMergedRows {
		return nil, fmt.Errorf("the merged pages of all shards go down to rank %d; pick one shard to read deeper", maxMergedRows)
	}
	pipe := b.c.Pipeline()
	cmds := make([]*redis.ZSliceCmd, len(sets))
	for i, key := range sets {
		cmds[i] = pipe.ZRevRangeWithScores(ctx, key, 0, start+int64(b.rows)-1)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	lists := make([][]rawEntry, len(sets))
	for i, c := range cmds {
		lists[i] = entries(c.Val(), shardOf[i])
	}
	merged := rankgenrt.MergeSorted(lists, start+int64(b.rows), byRank)
	if int64(len(merged)) <= start {
		return []row{}, nil
	}
	return b.rowsOf(ctx, sets, merged[start:], start)
}

func entries(zs []redis.Z, shard int) []rawEntry {
	out := make([]rawEntry, len(zs))
	for i, z := range zs {
		out[i] = rawEntry{z: z, shard: shard}
	}
	return out
}

// errNoEntry: the id searched for is not on the board.
var errNoEntry = errors.New("no entry")

// around reads the entries around id's (about rows/2 before it) in set, marking id's; with
// only, just id's entry.
func (b *boardView) around(ctx context.Context, set string, shard int, id string, only bool) ([]row, error) {
	member := id
	if b.l.HasPrefix() {
		m, err := b.c.HGet(ctx, rankgenrt.IndexKey(set), id).Result()
		if errors.Is(err, redis.Nil) {
			return nil, errNoEntry
		}
		if err != nil {
			return nil, err
		}
		member = m
	}
	r, err := b.c.ZRevRank(ctx, set, member).Result()
	if errors.Is(err, redis.Nil) {
		return nil, errNoEntry
	}
	if err != nil {
		return nil, err
	}
	start, stop := r, r
	if !only {
		start = max(r-int64(b.rows)/2, 0)
		stop = start + int64(b.rows) - 1
	}
	zs, err := b.c.ZRevRangeWithScores(ctx, set, start, stop).Result()
	if err != nil {
		return nil, err
	}
	rows, err := b.rowsOf(ctx, []string{set}, entries(zs, shard), start)
	for i := range rows {
		rows[i].Found = zs[i].Member.(string) == member
	}
	return rows, err
}

// rowsOf decodes entries ranked from start+1 on, with their data from the data hashes of sets
// (indexed by the entries' shards; sets[0] when unsharded).
func (b *boardView) rowsOf(ctx context.Context, sets []string, es []rawEntry, start int64) ([]row, error) {
	rows := make([]row, len(es))
	for i, e := range es {
		member, _ := e.z.Member.(string)
		rows[i] = decodeRow(b.l, e.z.Score, member)
		rows[i].Rank = start + int64(i) + 1
		if b.shards > 0 {
			shard := e.shard
			rows[i].Shard = &shard
		}
	}
	if !b.l.HasData() {
		return rows, nil
	}
	pipe := b.c.Pipeline()
	cmds := make([]*redis.SliceCmd, len(rows))
	for i := range rows {
		if rows[i].Error == "" {
			set := sets[0]
			if b.shards > 0 && len(sets) > 1 {
				set = sets[es[i].shard]
			}
			cmds[i] = pipe.HMGet(ctx, rankgenrt.DataKey(set), rows[i].id)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	for i, c := range cmds {
		if c == nil {
			continue
		}
		data, _ := c.Val()[0].(string) // nil: no data stored, which reads as the zero data
		rows[i].Data, rows[i].data, rows[i].Error = decodeDataRow(b.l, data)
		if rows[i].Error != "" {
			rows[i] = rows[i].undecoded(rows[i].Error)
		}
	}
	return rows, nil
}

// decodeRow decodes one stored pair with the interpreted codec; a pair it cannot decode keeps
// only its quoted raw text and the reason.
func decodeRow(l *layout.Layout, score float64, member string) row {
	r := row{Score: scoreText(l, score), Member: quote.Short(member), score: score, member: member}
	if longest := l.MaxMemberBytes(); len(member) > longest {
		r.Error = fmt.Sprintf("bad member %s: longer than any member of this layout (at most %d bytes)", quote.Short(member), longest)
		return r
	}
	e, err := l.Decode(score, member)
	if err != nil {
		r.Error = shownText(errText(err))
		return r
	}
	r.id, r.entry = e.ID, &e
	r.ID = shownID(l, e.ID)
	for i, f := range l.Fields {
		r.Fields = append(r.Fields, f.Format(e.Keys[i]))
	}
	return r
}

// decodeDataRow decodes an entry's data as the page shows it (and as it is), or says why it
// cannot.
func decodeDataRow(l *layout.Layout, data string) ([]string, []layout.DataValue, string) {
	vals, err := l.DecodeData(data)
	if err != nil {
		return nil, nil, "data: " + shownText(errText(err))
	}
	out := make([]string, len(l.Data))
	for i, f := range l.Data {
		if f.Kind == layout.String {
			out[i] = quote.Short(vals[i].Text)
		} else {
			out[i] = f.Format(vals[i].Key)
		}
	}
	return out, vals, ""
}

// shownID is an id as the page shows it: a uint64's digits, a string id quoted.
func shownID(l *layout.Layout, id string) string {
	if l.IDType == layout.IDUint64 {
		return id
	}
	return quote.Short(id)
}

// maxShownText bounds a message on the page; messages quote board contents short already, so
// this only guards against one that does not.
const maxShownText = 400

// shownText makes a message safe to show as one line of text: Go-quoted when it holds
// anything but printable characters, and cut.
func shownText(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		s = strconv.Quote(s)
	}
	if len(s) > maxShownText {
		s = strings.ToValidUTF8(s[:maxShownText], "") + "… (cut)"
	}
	return s
}

// seasonOption is one season of a periodic board's picker.
type seasonOption struct {
	ID       int64  `json:"id"`
	Label    string `json:"label"`
	Current  bool   `json:"current,omitempty"`
	Selected bool   `json:"selected,omitempty"`
}

// maxSeasonOptions bounds the picker: the newest seasons kept.
const maxSeasonOptions = 200

// seasons lists the current season and the finished seasons the board keeps (keep:, at most
// maxSeasonOptions of them) that hold a key, newest first; selected is always listed.
func (b *boardView) seasons(ctx context.Context, now time.Time, selected rankgenrt.Season) ([]seasonOption, error) {
	cal := b.l.Season.Calendar
	current := cal.At(now)
	candidates := []rankgenrt.Season{current}
	for s := current; len(candidates) <= min(b.l.Season.Keep, maxSeasonOptions-1); {
		s = cal.Prev(s)
		candidates = append(candidates, s)
	}
	pipe := b.c.Pipeline()
	exists := make([]*redis.IntCmd, len(candidates))
	for i, s := range candidates {
		keys, err := b.setKeys(&s)
		if err != nil {
			return nil, err
		}
		exists[i] = pipe.Exists(ctx, keys...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, err
	}
	var out []seasonOption
	listed := false
	for i, s := range candidates {
		if i > 0 && exists[i].Val() == 0 && s.ID != selected.ID {
			continue
		}
		listed = listed || s.ID == selected.ID
		out = append(out, b.seasonOption(s, s.ID == current.ID, s.ID == selected.ID))
	}
	if !listed {
		out = append(out, b.seasonOption(selected, false, true))
	}
	return out, nil
}

func (b *boardView) seasonOption(s rankgenrt.Season, current, selected bool) seasonOption {
	label := fmt.Sprintf("%d · %s", s.ID, inZone(b.l, s.Start))
	if current {
		label += " (current)"
	}
	return seasonOption{ID: s.ID, Label: label, Current: current, Selected: selected}
}

// formatBytes is a memory size in words: "1.2 KiB".
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
