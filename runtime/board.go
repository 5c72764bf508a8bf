package runtime

import (
	"context"
	"time"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/redis/go-redis/v9"
)

// The board's machinery: what every generated Board holds whatever its layout. A generated
// Board keeps a *Core and adds what its layout makes its own (the codec, the typed methods);
// a Spec says, per layout, what the Core needs of it, so that one package may hold boards of
// several layouts, each with its Spec, over one Library.

// Spec is what a board's machinery needs of a layout: the library holding its functions, the
// fingerprint its reads check, and which keys its scripts take.
type Spec struct {
	Library     *Library
	Fingerprint string // the layout fingerprint the side key records
	Indexed     bool   // the side key is the index (a layout with a member prefix), else the meta key
	Data        bool   // the board keeps its entries' data in a hash beside the set
	// SeasonBounds: the set, best and insert functions take the season's bounds first (a periodic
	// layout with a season-anchored field), to refuse an entry past its board's season.
	SeasonBounds bool
	// ClientClock: the layout stamps a field with the client's clock, which its field
	// updates send (UpdateArgs).
	ClientClock bool
	// ScoreFields: how many fields the score holds (a layout with some has ScoreReads).
	ScoreFields int
}

// Keys are the keys the scripts of the board stored under key take, in the order every
// generated library reads them: the sorted set and its side key (meta key or index), the ack
// key base (a write passes its token's ack key there: WriteKeys), the migration fence, and the
// data hash on a layout with data.
func (s *Spec) Keys(key string) []string {
	side := MetaKey(key)
	if s.Indexed {
		side = IndexKey(key)
	}
	keys := []string{key, side, AckBase(key), FenceKey(key)}
	if s.Data {
		keys = append(keys, DataKey(key))
	}
	return keys
}

// The head of every write's arguments (ARGV[1] to ARGV[4] of a generated write function),
// before the operation's own: the expiry's mode and milliseconds, the call's token, the dedup
// window. Defined here once; the generator's catalogue declares the same names in this order
// (catalog.WriteArgs), which its tests check against WriteHead.
const (
	argExpiryMode = iota
	argExpiryMS
	argToken
	argWindow
	// WriteHead is how many arguments start every write call: the ones above.
	WriteHead
)

// Core is the layout-free part of a generated Board: its client and keys, and how it writes
// (expiry, exactly-once tokens, the dedup window, replicas, coalescing) and reads (the
// fingerprint check). Made by NewCore, safe for concurrent use.
type Core struct {
	spec     *Spec
	client   redis.UniversalClient
	keys     []string // the scripts' keys (Spec.Keys)
	exp      Expiry
	tokens   *Tokens          // one per write call: exactly-once writes
	dedup    Dedup            // the dedup window (WithDedupWindow)
	replicas Replicas         // how many replicas every write waits for (WithReplicas)
	coalesce *UpdateCoalescer // single writes combined into batches (WithCoalescing)

	season *Season          // a periodic layout's season (NewSeasonCore), else nil
	now    func() time.Time // the clock a season's expiry is read by

	newLayoutFirst bool // a board of a layout that replaces another: WithNewLayoutFirst
}

// EncodedArgs is a Decoding's EntryArgs for a layout whose entries carry no data and no
// season-anchored field: the entry's score, as exact text, and member, from encode (the
// package's Entry.Encode).
func EncodedArgs[E any](encode func(E) (float64, string, error)) func(*Season, E, []any) ([]any, error) {
	return func(_ *Season, e E, args []any) ([]any, error) {
		score, member, err := encode(e)
		if err != nil {
			return nil, err
		}
		return append(args, FormatScore(score), member), nil
	}
}

// Option configures a board (a generated package's Option is this type).
type Option func(*Core)

// WithTTL makes the board's keys expire d after every write. The expiry is set by the write's
// own script, on all of the board's keys, so it is never lost.
func WithTTL(d time.Duration) Option { return func(c *Core) { c.exp = TTL(d) } }

// WithExpireAt makes the board's keys expire at t (to the millisecond), set by every write's
// own script on all of the board's keys.
func WithExpireAt(t time.Time) Option { return func(c *Core) { c.exp = ExpireAt(t) } }

// WithDedupWindow sets how long, at least, the board remembers each write call's token, so
// that a resend of the call is applied once (DedupWindow: DefaultDedupWindow unless set, 0
// turns exactly-once writes off). Every writer of a board should use the same window.
func WithDedupWindow(d time.Duration) Option { return func(c *Core) { c.dedup = DedupWindow(d) } }

// WithReplicas makes every write wait, in its own round trip, until n replicas of the board's
// master have it, for at most timeout; too few in time is ErrNotReplicated (WaitReplicas says
// what survives a failover). Needs a *redis.Client or a *redis.ClusterClient.
func WithReplicas(n int, timeout time.Duration) Option {
	return func(c *Core) { c.replicas = WaitReplicas(n, timeout) }
}

// WithCoalescing combines the single writes of concurrent callers into batch calls
// (Coalescing), each caller told its own result, exactly once: it sends the board's single
// writes that have a batch form (the field updates, Set, Best, Insert, Update, Touch) through
// an UpdateCoalescer. The batch methods, Remove, Trim and the reads are sent as they are.
func WithCoalescing(cfg Coalescing) Option {
	return func(c *Core) { c.coalesce = NewUpdateCoalescer(cfg, c.send) }
}

// NewCore returns the machinery of the board of spec's layout stored under key.
func NewCore(client redis.UniversalClient, key string, spec *Spec, opts ...Option) *Core {
	c := &Core{spec: spec, client: client, keys: spec.Keys(key), tokens: NewTokens(), dedup: DedupWindow(DefaultDedupWindow), now: time.Now}
	for _, o := range opts {
		o(c)
	}
	return c
}

// NewSeasonCore returns the machinery of the board of season s: its tokens name s (InSeason),
// its keys expire at exp unless an option says otherwise, and once that expiry has passed its
// reads are refused (Expired) and its writes' refusals name s.
func NewSeasonCore(client redis.UniversalClient, key string, spec *Spec, s Season, exp Expiry, opts ...Option) *Core {
	c := &Core{spec: spec, client: client, keys: spec.Keys(key), tokens: NewSeasonTokens(s.ID), dedup: DedupWindow(DefaultDedupWindow), exp: exp, season: &s, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Client is the board's client.
func (c *Core) Client() redis.UniversalClient { return c.client }

// Key is the board's key, its sorted set.
func (c *Core) Key() string { return c.keys[0] }

// SideKey is the board's meta key, or its index on a layout with a member prefix.
func (c *Core) SideKey() string { return c.keys[1] }

// ScriptKeys are the keys every function of the board takes (Spec.Keys).
func (c *Core) ScriptKeys() []string { return c.keys }

// Keys are the keys that hold the board: the sorted set, its side key and, on a layout with
// data, the data hash (the ack key base and the fence hold nothing of their own).
func (c *Core) Keys() []string {
	return append([]string{c.keys[0], c.keys[1]}, c.keys[4:]...)
}

// Load loads the board's library on the server (Library.Load).
func (c *Core) Load(ctx context.Context) error { return c.spec.Library.Load(ctx, c.client) }

// Expiry is the expiry the board's writes set.
func (c *Core) Expiry() Expiry { return c.exp }

// SetExpiry replaces the expiry the board's writes set.
func (c *Core) SetExpiry(e Expiry) { c.exp = e }

// Now reads the board's clock (time.Now unless SetClock).
func (c *Core) Now() time.Time { return c.now() }

// SetClock sets the clock a season's expiry and client stamps are read by.
func (c *Core) SetClock(now func() time.Time) { c.now = now }

// Expired is, for the board of a season (NewSeasonCore), an error matching ErrSeasonExpired
// once the board's expiry has passed on its clock (CheckExpiry); nil for any other board.
func (c *Core) Expired() error {
	if c.season == nil {
		return nil
	}
	return CheckExpiry(*c.season, c.exp, c.now())
}

// WriteArgs starts the arguments of a write call: the head (expiry, the place of the call's
// token, which Write fills in, the dedup window), then room for n more.
func (c *Core) WriteArgs(n int) []any {
	mode, ms := c.exp.Args()
	args := make([]any, WriteHead, WriteHead+n)
	args[argExpiryMode], args[argExpiryMS], args[argToken], args[argWindow] = mode, ms, "", c.dedup.Arg()
	return args
}

// Write runs the write function f with args (started by WriteArgs) on the board's keys under a
// new token of the call, or hands a single field update to the coalescer (WithCoalescing):
// exactly once, and waiting for the board's replicas (WithReplicas, RunWriteWait).
func (c *Core) Write(ctx context.Context, f *Function, args []any) (any, error) {
	if s := stepOf(ctx); s != nil { // a submission's step (Submit)
		return s.write(c, f, args)
	}
	if v, coalesced, err := c.coalesce.Write(ctx, f, args); coalesced {
		return v, err
	}
	return c.send(ctx, f, args)
}

// WriteOne is Write for the single write (Set, Best, Insert, Update, Touch) of f, a function
// that is its own batch form: the last width of args are the write's own, and f takes any
// number of such after the same head. On a board made WithCoalescing it joins a batch with the
// other single writes of f (UpdateCoalescer.WriteOne) and gets the reply f gives it alone.
func (c *Core) WriteOne(ctx context.Context, f *Function, args []any, width int) (any, error) {
	if s := stepOf(ctx); s != nil { // a submission's step (Submit)
		return s.write(c, f, args)
	}
	if v, coalesced, err := c.coalesce.WriteOne(ctx, f, args, width); coalesced {
		return v, err
	}
	return c.send(ctx, f, args)
}

// send is Write past the coalescer: what the coalescer's batches are sent by.
func (c *Core) send(ctx context.Context, f *Function, args []any) (any, error) {
	return c.WriteOn(ctx, f, c.keys, args)
}

// WriteOn runs the write function f with args (started by WriteArgs) on keys, which start with
// the board's own, under a new token of the call: a write across several boards (a periodic
// layout's remove_everywhere) is sent under its first board's token, expiry and replicas.
func (c *Core) WriteOn(ctx context.Context, f *Function, keys []string, args []any) (any, error) {
	if err := c.dedup.Err(); err != nil {
		return nil, err
	}
	token, err := c.tokens.Next(ctx)
	if err != nil {
		return nil, err
	}
	args[argToken] = token
	v, err := RunWriteWait(ctx, c.client, f, keys, token, c.replicas, args...)
	if c.season != nil {
		err = ExpiredSeason(err, *c.season)
	}
	return v, err
}

// UpdateArgs starts the arguments of a field update, change list or touch function, in the
// order every generated library reads them: the write's head, the clock (the board's, in Unix
// microseconds, where the layout stamps with the client's clock; else unused), a season's
// bounds (Unix microseconds) on a season's board, then room for n id, value pairs.
func (c *Core) UpdateArgs(n int) []any {
	var clock any = ""
	if c.spec.ClientClock {
		clock = c.now().UnixMicro()
	}
	if c.season == nil {
		return append(c.WriteArgs(1+2*n), clock)
	}
	return append(c.WriteArgs(3+2*n), clock, c.season.Start.UnixMicro(), c.season.End.UnixMicro())
}

// Count reads the number of the board's entries (ZCARD, through Read).
func (c *Core) Count(ctx context.Context) (int64, error) {
	return Read(ctx, c, func(r redis.Cmdable) *redis.IntCmd { return r.ZCard(ctx, c.Key()) })
}

// ItemErr is the error of one refused item of a write's reply: on the board of a season, a
// refused time names the season in its calendar's zone (ExpiredSeason), as the call's own
// refusals do.
func (c *Core) ItemErr(err error) error {
	if c.season != nil {
		return ExpiredSeason(err, *c.season)
	}
	return err
}

// CallRO calls the read-only function f on the board's keys (FCALL_RO), unless the board's
// season has expired (Expired).
func (c *Core) CallRO(ctx context.Context, f *Function, args ...any) (any, error) {
	if err := c.Expired(); err != nil {
		return nil, err
	}
	return CallRO(ctx, c.client, f, c.keys, args...)
}

// Fingerprints is the read of a board's fingerprint that QueueFingerprint queues: where this
// layout records it (its meta key or its index) and where a layout of the other kind would.
type Fingerprints struct{ own, other *redis.StringCmd }

// QueueFingerprint queues the read of the board's fingerprint on pipe; CheckFingerprint reads
// its reply. It is read on every read, never remembered: a migration may switch the board to
// another layout under a long-lived Board.
func (c *Core) QueueFingerprint(ctx context.Context, pipe redis.Cmdable) *Fingerprints {
	other := IndexKey(c.keys[0])
	if c.spec.Indexed {
		other = MetaKey(c.keys[0])
	}
	return &Fingerprints{
		own:   FingerprintCmd(ctx, pipe, c.keys[1], c.spec.Indexed),
		other: FingerprintCmd(ctx, pipe, other, !c.spec.Indexed),
	}
}

// CheckFingerprint reads the reply of QueueFingerprint (nil: nothing to check): an error
// matching ErrLayoutMismatch when the board records another layout's fingerprint, where this
// layout records it or, when it records none there, where a layout of the other kind records
// its own (a board with an index read by code of a layout with a meta key, or the reverse). A
// board that records this layout's needs no check again.
func (c *Core) CheckFingerprint(fp *Fingerprints) error {
	if fp == nil {
		return nil
	}
	ok, err := CheckFingerprint(fp.own, c.spec.Fingerprint)
	if ok || err != nil {
		return err
	}
	// A key of another type, or none, where the other kind records its fingerprint: no board
	// of the other kind wrote here.
	if have, err := fp.other.Result(); err == nil {
		return &ScriptError{Code: "LAYOUT_MISMATCH", Detail: "board has layout " + quote.Short(have) + ", this code reads layout " + c.spec.Fingerprint, kind: ErrLayoutMismatch}
	}
	return nil
}

// Read sends one read command, which cmd queues on the client or on a pipeline, and returns its
// result. The fingerprint's read is pipelined before the command, in the same round trip:
// another layout's (a migration may have switched the board since the last read) is an error
// matching ErrLayoutMismatch, not entries misread. A board that records no fingerprint yet is
// read as it is. The command's own error is typed as a script's is (ErrWrongType,
// ErrServerFull); the board of an expired season is refused (Core.Expired).
func Read[T any, C interface {
	redis.Cmder
	Result() (T, error)
}](ctx context.Context, c *Core, cmd func(redis.Cmdable) C) (v T, err error) {
	if err := c.Expired(); err != nil {
		return v, err
	}
	pipe := c.client.Pipeline()
	fp := c.QueueFingerprint(ctx, pipe)
	r := cmd(pipe)
	_, _ = pipe.Exec(ctx) // each command keeps its own reply and error
	TypeError(r)
	if err := c.CheckFingerprint(fp); err != nil {
		return v, err
	}
	return r.Result()
}
