package catalog

// What an operation does beyond its script, said once in its row (Op) so that no emitter or
// test keeps a table of kinds: how a ShardedBoard performs it, how it carries entry data, what
// a periodic layout's script takes, and the board model's method that says what it does. The
// zero value of each is "unset": TestOps fails for a row that forgot one.

// GoPart is where an operation's Go methods live: in a runtime type that the generated Board
// and ShardedBoard embed (the same on every layout that has the row, but for its types), or
// declared by the generated file in the form it names, one emitting function of goemit's per
// form on each board (Sharding says how a ShardedBoard performs it).
type GoPart int

const (
	goPartUnset GoPart = iota
	// GoRuntimeBoard: rankgenrt.Board and ShardedBoard hold them (every layout has the row).
	GoRuntimeBoard
	// GoRuntimeScoreReads: rankgenrt.ScoreReads and ShardedScoreReads hold them (every layout
	// with score fields has the row).
	GoRuntimeScoreReads
	// GoFieldUpdate: a field update's method, single or batch, over its field's type.
	GoFieldUpdate
	// GoChangeList: Update and UpdateMany, with the layout's change constructors.
	GoChangeList
	// GoTouch: Touch and TouchMany, which stamp the layout's stamped fields.
	GoTouch
	// GoLeadRange: Range<Lead>, a page of the leading field's values.
	GoLeadRange
	// GoLeadCount: Count<Lead>Between.
	GoLeadCount
	// GoAroundScore: AroundScore, over the layout's Place (its score prefixes and Entry).
	GoAroundScore
)

// InRuntime reports whether a runtime type holds the methods: the generated file declares none.
func (p GoPart) InRuntime() bool { return p == GoRuntimeBoard || p == GoRuntimeScoreReads }

// Sharding is how a ShardedBoard performs an operation.
type Sharding int

const (
	shardingUnset Sharding = iota
	// ShardMerged: on the shard of each id (writes, Get), or on every shard with the answers
	// merged or added up (reads).
	ShardMerged
	// ShardWindows: merged like ShardMerged, through the ShardedBoard's helper that merges
	// ranked windows of scores (Band, AroundScore).
	ShardWindows
	// ShardPerShard: not merged; read from the shards (ShardedBoard.Shards).
	ShardPerShard
)

// Carry is how an operation carries entry data (layout.Data) on a board with data fields.
type Carry int

const (
	carryUnset Carry = iota
	// DataUntouched: a read that returns no entries; its script leaves the data hash alone.
	DataUntouched
	// DataWithEntries: a write whose script stores, deletes or expires data with the entries
	// (the data hash is among its keys), without a data argument of its own in Args.
	DataWithEntries
	// DataArgument: each entry's data follows its score and member in Args.Each.
	DataArgument
	// DataInReply: its reply takes the data form of its shape (Reply.WithData).
	DataInReply
	// DataScripted: the operation's DataForm (a script, where one Redis command does without data).
	DataScripted
)

// Touches reports whether an operation that carries data so uses the board's data hash: its
// script declares it (KEYS[5]).
func (c Carry) Touches() bool { return c > DataUntouched }

// SeasonUse is what an operation's script takes on a periodic layout (layout.Season).
type SeasonUse int

const (
	seasonUnset SeasonUse = iota
	// SeasonFree: no season bounds (reads, Remove, Trim).
	SeasonFree
	// SeasonEntries: the season's bounds when EntriesTakeSeason, to check each entry's
	// season-anchored offsets (Set, Best, Insert).
	SeasonEntries
	// SeasonStamps: the season's bounds always (UpdateArgsOf), to measure and check stamps
	// and season-anchored values (field updates, change lists).
	SeasonStamps
)

// WithData is the reply shape of r on a board with data fields: "" when r has none.
func (r Reply) WithData() Reply {
	return map[Reply]Reply{ReplyWindow: ReplyWindowData, ReplyEntry: ReplyEntryData, ReplyEntries: ReplyEntriesData, ReplyRanked: ReplyRankedData, ReplyPriors: ReplyPriorsData}[r]
}

// Body is how an operation's script body is made: what the emitter gives its template, and
// whether the body is the operation's own or one that several operations share. Unlike the
// other facts of a row, its zero value is meaningful (BodyOwn): most scripts are their own.
type Body int

const (
	// BodyOwn: its template renders a body of its own from the layout.
	BodyOwn Body = iota
	// BodyFieldUpdate: one field update (Field, Update). Its body is one per form (single or
	// batch) that every field's updates share, given the field's accessors and apply function.
	BodyFieldUpdate
	// BodyChangeList: every field update of the layout, one argument each (ChangesArgs), and
	// the stamps of the fields the list leaves alone.
	BodyChangeList
	// BodyStamps: every stamped field set to now, nothing else.
	BodyStamps
	// BodyEntries: whole entries, the last pair of an id winning; one body that BodyBestEntries
	// and BodyInsertEntries share, told apart by their rule (EntriesRule).
	BodyEntries
	// BodyBestEntries: whole entries, each id keeping the better of its entry and the given one;
	// BodyEntries' body.
	BodyBestEntries
	// BodyInsertEntries: whole entries, each id keeping its entry, stored or given first;
	// BodyEntries' body.
	BodyInsertEntries
)

// entriesRules are the rules of the whole-entry writes' one body, by Body: what its callback
// passes it to say which write it is.
var entriesRules = map[Body]string{BodyEntries: "set", BodyBestEntries: "best", BodyInsertEntries: "insert"}

// SharedEntries reports whether the body is the one the whole-entry writes share.
func (b Body) SharedEntries() bool { return entriesRules[b] != "" }

// EntriesRule is the rule a whole-entry write's callback passes the shared body ("set",
// "best", "insert"): "" for any other body.
func (b Body) EntriesRule() string { return entriesRules[b] }
