// Package catalog lists a layout's board operations: every method of the generated Board, in
// the order the generated file declares them, with the Lua script (if any) that runs it.
//
// It is the one model both emitters read: generator/luaemit renders one script per operation
// that has a template, generator/goemit emits the Board methods, and internal/testkit/boardmodel keeps
// one model case per operation kind. An operation's script arguments are declared here once
// (Args) and rendered into the templates as ARGV positions and into the Go side as slice
// indexes, so neither restates them.
package catalog

import (
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"slices"
	"strings"
	"unicode"

	"github.com/rankgen/rankgen/generator/layout"
)

// Kind is what an operation does.
type Kind string

// The kinds of board operation. A layout has one operation of each kind, except Update, which
// it has twice (single and batch) for every update a field declares, Changes, which needs a
// field that declares updates, Touch, which needs a stamped field, and Competition and Range,
// which need a leading score field.
const (
	Set         Kind = "set"         // upsert whole entries
	Best        Kind = "best"        // keep the better of the stored and the given entry
	Insert      Kind = "insert"      // store entries whose ids have none yet: the first one wins
	Remove      Kind = "remove"      // delete entries by id
	Trim        Kind = "trim"        // keep the first n entries
	Update      Kind = "update"      // one field update (add, max, min or set)
	Get         Kind = "get"         // an entry by id
	Rank        Kind = "rank"        // an entry's position by id
	Page        Kind = "page"        // entries by position
	Around      Kind = "around"      // the entries around an id
	After       Kind = "after"       // a keyset page after a cursor
	Count       Kind = "count"       // the number of entries
	Range       Kind = "range"       // entries whose leading field lies in a band
	Competition Kind = "competition" // 1 + the entries ahead on the leading field
	GetMany     Kind = "get_many"    // entries of many ids, missing ones reported per id
	RankMany    Kind = "rank_many"   // positions of many ids
	RankedMany  Kind = "ranked_many" // entries and ranks of many ids, best first
	Bottom      Kind = "bottom"      // entries by position counted from the end
	Standing    Kind = "standing"    // an entry's position and the board's size: percentile, page
	Dense       Kind = "dense"       // 1 + the distinct leading-field values ahead ("1223")
	CountRange  Kind = "count_range" // the number of entries whose leading field lies in a band
	Changes     Kind = "changes"     // several field updates of one id in one write (and its batch form)
	Touch       Kind = "touch"       // set the stamped fields of ids to now, nothing else (a layout with a stamp)
)

// The kinds of the band reads, which need a score field: a band of a leading prefix of the
// score fields, and the place a score prefix or an entry would take.
const (
	Band        Kind = "band"         // entries, with ranks, in a band of a prefix of the score fields
	CountBand   Kind = "count_band"   // the number of entries in such a band
	AroundScore Kind = "around_score" // the entries around where a score prefix or an entry would rank
)

// Kinds lists every kind, in catalogue order.
var Kinds = []Kind{Set, Best, Insert, Remove, Trim, Update, Get, Rank, Page, Around, After, Count, Range, Competition,
	GetMany, RankMany, RankedMany, Bottom, Standing, Dense, CountRange, Changes, Touch, Band, CountBand, AroundScore}

// Op is one board operation of a layout.
type Op struct {
	Name     string // the script's name, also its file's infix: "set", "add_points", "add_points_many"
	Kind     Kind   //
	Template string // the template in templates/ that renders its script; "" = no script (one Redis command)
	ReadOnly bool   // never writes (its script declares flags=no-writes)
	// OnlyDeletes: its script calls only commands a server full to its maxmemory accepts
	// (reads, deletes, the expiry), so it declares flags=allow-oom: a full board can shrink.
	OnlyDeletes bool
	Field       *layout.Field // Update: the field it updates
	Update      layout.Op     // Update: add, max, min or set
	Batch       bool          // takes many ids or entries in one call
	Args        Args          // its script's arguments
	Reply       Reply         // its script's reply
	Methods     []string      // the generated Board methods that perform it, in file order
	Title       string        // its script's one-line title
	Usage       []string      // its script's usage lines: {name} is an argument, {each} the repeated group
	Scores      bool          // its script reads the stored scores of the ids it looks up (Best, GetMany)
	Body        Body          // how its script's body is made (row.go)

	Sharding Sharding  // how a ShardedBoard performs it
	Data     Carry     // how it carries entry data on a board with data fields (withData)
	DataForm *Op       // Data DataScripted: its Template, Args, Reply, Title and Usage there
	DataDoc  string    // Data DataArgument or DataInReply: the usage line it adds there
	Season   SeasonUse // what its script takes on a periodic layout (withSeason)
	Model    string    // the method of the board model (internal/testkit/boardmodel) that says what it does
	Go       GoPart    // where its Go methods live: a runtime type the generated boards embed, or generated in a form goemit names
}

// Scripted reports whether the operation runs a Lua script.
func (o Op) Scripted() bool { return o.Template != "" }

// Function is the name of the Go variable that holds the operation's library function:
// "fnAddPoints".
func (o Op) Function() string { return "fn" + Camel(o.Name) }

// ManySuffix ends the name of an update's batch form: "add_points_many". The runtime defines
// it (its coalescer finds a single update's batch form by it).
const ManySuffix = rankgenrt.BatchSuffix

// Ops lists every board operation of l in catalogue order: the writes (set, best, insert, remove,
// trim), each field's updates in field and declaration order (single, then batch), the
// change lists (several field updates per write), the touch (stamps alone), then the reads
// (get, rank, page, around, after, count, and with a leading score field range and
// competition).
func Ops(l *layout.Layout) []Op {
	ops := writes()
	for _, f := range l.Fields {
		for _, u := range f.Updates {
			ops = append(ops, updates(l, f, u)...)
		}
	}
	ops = append(ops, changes(l)...)
	ops = append(ops, touch(l)...)
	return withData(l, withSeason(l, append(ops, reads(l)...)))
}

// OpOf is the operation of kind k in ops (the first, for the kinds a layout has twice); ops
// must have one, as every layout has the kinds it is asked for here.
func OpOf(ops []Op, k Kind) Op {
	i := slices.IndexFunc(ops, func(op Op) bool { return op.Kind == k })
	if i < 0 {
		panic("catalog: no operation of kind " + string(k))
	}
	return ops[i]
}

// UpdateOf is l's update u of field f, in its batch form when batch, and whether l has it:
// the operation a layout's code calls where another layout's update of the field maps to it
// (a field renamed keeps its updates under its new name).
func UpdateOf(l *layout.Layout, f *layout.Field, u layout.Op, batch bool) (Op, bool) {
	for _, op := range Ops(l) {
		if op.Kind == Update && op.Field == f && op.Update == u && op.Batch == batch {
			return op, true
		}
	}
	return Op{}, false
}

// Scripts lists the operations of l that run a script, in catalogue order.
func Scripts(l *layout.Layout) []Op {
	var out []Op
	for _, op := range Ops(l) {
		if op.Scripted() {
			out = append(out, op)
		}
	}
	return out
}

// WriteArgs are the arguments every write script starts with: the expiry it applies to the
// board's keys, then the call's idempotency token and the dedup window (exactly-once writes:
// the script records the token with its reply, and answers a resend with that reply).
func WriteArgs() []string { return []string{ArgMode, ArgMS, ArgToken, ArgWindow} }

// UpdateArgs is the argument layout of a field update's batch script: the write arguments,
// the client's clock, then id, value pairs. The single form sends one pair as Head arguments.
func UpdateArgs() Args {
	return Args{Head: append(WriteArgs(), ArgClock), Each: []string{ArgID, ArgValue}}
}

// UpdateArgsOf is UpdateArgs for the layout l: a periodic layout's update scripts also take
// their season's bounds, which stamps are measured from and checked against.
func UpdateArgsOf(l *layout.Layout) Args {
	a := UpdateArgs()
	if l.Season != nil {
		a.Head = append(a.Head, ArgFrom, ArgUntil)
	}
	return a
}

func writes() []Op {
	expiry := WriteArgs()
	return []Op{
		{Name: rankgenrt.OpSet, Go: GoRuntimeBoard, Kind: Set, Template: "entries", Body: BodyEntries, Batch: true, Methods: []string{"Set", "SetMany"}, Model: "Set", Scores: true,
			Sharding: ShardMerged, Data: DataArgument, DataDoc: entryDataDoc, Season: SeasonEntries,
			Args: Args{Head: expiry, Each: []string{ArgScore, ArgMember}}, Reply: ReplyPriors,
			Title: "set: upsert whole entries.", Usage: []string{expiryDoc, tokenDoc,
				"{each}: score, member pairs (encoded by the Go codec). Returns, per pair, 1 when it changed",
				"the stored entry (else 0) and the entry its id held before it: score, member ('' when none)."}},
		{Name: rankgenrt.OpBest, Go: GoRuntimeBoard, Kind: Best, Template: "entries", Body: BodyBestEntries, Batch: true, Methods: []string{"Best", "BestMany"}, Model: "Best", Scores: true,
			Sharding: ShardMerged, Data: DataArgument, DataDoc: entryDataDoc, Season: SeasonEntries,
			Args: Args{Head: expiry, Each: []string{ArgScore, ArgMember}}, Reply: ReplyPriors,
			Title: "best: keep, per id, whichever of the current and the given entry ranks first (whole tuple).", Usage: []string{expiryDoc, tokenDoc,
				"{each}: score, member pairs. Returns, per pair, 1 (kept the given entry) or 0 and the entry",
				"its id held before it: score, member ('' when none)."}},
		{Name: rankgenrt.OpInsert, Go: GoRuntimeBoard, Kind: Insert, Template: "entries", Body: BodyInsertEntries, Batch: true, Methods: []string{"Insert", "InsertMany"}, Model: "Insert", Scores: true,
			Sharding: ShardMerged, Data: DataArgument, DataDoc: entryDataDoc, Season: SeasonEntries,
			Args: Args{Head: expiry, Each: []string{ArgScore, ArgMember}}, Reply: ReplyPriors,
			Title: "insert: store the entries whose ids have none yet; an id's stored (or first) entry stays.", Usage: []string{expiryDoc, tokenDoc,
				"{each}: score, member pairs. Returns, per pair, 1 (stored the given entry) or 0 and the entry",
				"its id held before it: score, member ('' when none)."}},
		{Name: rankgenrt.OpRemove, Go: GoRuntimeBoard, Kind: Remove, Template: "remove", Batch: true, OnlyDeletes: true, Methods: []string{"Remove"}, Model: "Remove",
			Sharding: ShardMerged, Data: DataWithEntries, Season: SeasonFree,
			Args: Args{Head: expiry, Each: []string{ArgID}}, Reply: ReplyCount,
			Title: "remove: delete entries by id.", Usage: []string{expiryDoc, tokenDoc, "{each}: ids. Returns how many entries were removed."}},
		{Name: rankgenrt.OpTrim, Go: GoRuntimeBoard, Kind: Trim, Template: "trim", OnlyDeletes: true, Methods: []string{"Trim"}, Model: "Trim",
			Sharding: ShardMerged, Data: DataWithEntries, Season: SeasonFree,
			Args: Args{Head: append(WriteArgs(), ArgKeep)}, Reply: ReplyCount,
			Title: "trim: keep the first {keep} entries, drop the rest.", Usage: []string{expiryDoc, tokenDoc,
				"{keep}: how many entries to keep. Returns how many were removed."}},
	}
}

// updates is a field update's two operations: the single one (straight-line code, a third
// cheaper than the batch loop for one update) and its batch form.
func updates(l *layout.Layout, f *layout.Field, u layout.Op) []Op {
	name, method := UpdateName(u, f), UpdateMethod(u, f)
	reply := ReplyBareItems
	if l.HasPrefix() {
		reply = ReplyItems // the member changes with the update
	}
	batch := UpdateArgsOf(l)
	one := Op{Name: name, Kind: Update, Go: GoFieldUpdate, Template: "update1", Body: BodyFieldUpdate, Field: f, Update: u, Reply: reply,
		Args: Args{Head: append(slices.Clip(batch.Head), batch.Each...)}, Methods: []string{method}, Model: "Update",
		Sharding: ShardMerged, Data: DataWithEntries, Season: SeasonStamps}
	many := one
	many.Name, many.Template, many.Batch, many.Args, many.Methods = name+ManySuffix, "update", true, batch, []string{method + "Many"}
	one.Title, one.Usage = updateDoc(l, one)
	many.Title, many.Usage = updateDoc(l, many)
	return []Op{one, many}
}

func reads(l *layout.Layout) []Op {
	byID := Args{Head: []string{ArgID}}
	get := Op{Name: rankgenrt.OpGet, Go: GoRuntimeBoard, Kind: Get, ReadOnly: true, Methods: []string{"Get"}, Model: "Get",
		Sharding: ShardMerged, Data: DataScripted, Season: SeasonFree, DataForm: &Op{
			Template: "get", Args: byID, Reply: ReplyEntryData, Title: "get: an entry's score, member and data by id.",
			Usage: []string{"{id}: the id. Returns {score, member, data}, or nil when the id has no entry."}}}
	rank := Op{Name: rankgenrt.OpRank, Go: GoRuntimeBoard, Kind: Rank, ReadOnly: true, Methods: []string{"Rank"}, Model: "Rank",
		Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree}
	if l.HasPrefix() {
		// The member is found through the index, in the script that reads the entry.
		get.Template, get.Args, get.Reply = "get", byID, ReplyEntry
		get.Title, get.Usage = "get: an entry's score and member by id.", []string{
			"{id}: the id. Returns {score, member}, or nil when the id has no entry."}
		rank.Template, rank.Args, rank.Reply = "rank", byID, ReplyPosition
		rank.Title, rank.Usage = "rank: an entry's 0-based position, best first, by id.", []string{
			"{id}: the id. Returns the position, or nil when the id has no entry."}
	}
	ops := []Op{get, rank,
		{Name: rankgenrt.OpPage, Go: GoRuntimeBoard, Kind: Page, ReadOnly: true, Methods: []string{"Top", "Page"}, Model: "Page",
			Sharding: ShardMerged, Data: DataScripted, Season: SeasonFree, DataForm: &Op{
				Template: "page", Args: Args{Head: []string{ArgOffset, ArgLimit}}, Reply: ReplyWindowData,
				Title: "page: entries by position, best first, with their data.",
				Usage: []string{"{offset}: the 0-based position of the first entry; {limit}: the page size.",
					"Returns {offset, {member, score, ...}, {data, ...}}."}}},
		{Name: rankgenrt.OpAround, Go: GoRuntimeBoard, Kind: Around, Template: "around", ReadOnly: true, Methods: []string{"Around", "AroundFilled"}, Model: "Around",
			Sharding: ShardMerged, Data: DataInReply, DataDoc: dataDoc, Season: SeasonFree,
			Args: Args{Head: []string{ArgID, ArgBefore, ArgAfter, ArgFill}}, Reply: ReplyWindow,
			Title: "around: the entries around an id, best first.", Usage: []string{
				"{id}: the id; {before}, {after}: how many entries before and after it; {fill}: '1' to",
				"fill the window from the other side where it meets an end of the board.",
				"Returns {position of the first entry, {member, score, ...}}, or nil when the id has no entry."}},
		{Name: rankgenrt.OpAfter, Go: GoRuntimeBoard, Kind: After, Template: "after", ReadOnly: true, Methods: []string{"After"}, Model: "After",
			Sharding: ShardMerged, Data: DataInReply, DataDoc: dataDoc, Season: SeasonFree,
			Args: Args{Head: []string{ArgScore, ArgMember, ArgLimit}}, Reply: ReplyWindow,
			Title: "after: a keyset page, the entries that rank after a cursor (score, member).", Usage: []string{
				"{score}, {member}: the cursor's score and member (member '' = from the top); {limit}: the page size.",
				"Returns {position of the first entry, {member, score, ...}}."}},
		{Name: "count", Go: GoRuntimeBoard, Kind: Count, ReadOnly: true, Methods: []string{"Count"}, Model: "Count",
			Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree},
		{Name: rankgenrt.OpGetMany, Go: GoRuntimeBoard, Kind: GetMany, Template: "get_many", ReadOnly: true, Batch: true, Methods: []string{"GetMany"}, Model: "GetMany", Scores: true,
			Sharding: ShardMerged, Data: DataInReply, Season: SeasonFree,
			DataDoc: "With data: score, member and data per id, all '' when the id has no entry.",
			Args:    Args{Each: []string{ArgID}}, Reply: ReplyEntries,
			Title: "get_many: the entries of many ids in one call.", Usage: []string{
				"{each}: ids. Returns score, member per id, both '' when the id has no entry."}},
		{Name: rankgenrt.OpRankMany, Go: GoRuntimeBoard, Kind: RankMany, Template: "rank_many", ReadOnly: true, Batch: true, Methods: []string{"RankMany"}, Model: "RankMany",
			Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree,
			Args: Args{Each: []string{ArgID}}, Reply: ReplyPositions,
			Title: "rank_many: the 0-based positions, best first, of many ids in one call.", Usage: []string{
				"{each}: ids. Returns a position per id, -1 when the id has no entry."}},
		{Name: rankgenrt.OpRankedMany, Go: GoRuntimeBoard, Kind: RankedMany, Template: "ranked_many", ReadOnly: true, Batch: true, Methods: []string{"RankedMany"}, Model: "RankedMany", Scores: true,
			Sharding: ShardMerged, Data: DataInReply, Season: SeasonFree,
			DataDoc: "With data: the entries are score, member and data per id, all '' when the id has no entry.",
			Args:    Args{Each: []string{ArgID}}, Reply: ReplyRanked,
			Title: "ranked_many: the entries and 0-based positions of many ids in one call (a friends list).", Usage: []string{
				"{each}: ids. Returns {a position per id (-1 when the id has no entry), score and member per id (both '' when it has none)}."}},
		{Name: rankgenrt.OpBottom, Go: GoRuntimeBoard, Kind: Bottom, Template: "bottom", ReadOnly: true, Methods: []string{"Bottom", "PageFromEnd"}, Model: "PageFromEnd",
			Sharding: ShardMerged, Data: DataInReply, DataDoc: dataDoc, Season: SeasonFree,
			Args: Args{Head: []string{ArgOffset, ArgLimit}}, Reply: ReplyWindow,
			Title: "bottom: a page counted from the end of the board, best first.", Usage: []string{
				"{offset}: how many of the last entries to skip; {limit}: the page size.",
				"Returns {position of the first entry, {member, score, ...}}."}},
		{Name: rankgenrt.OpStanding, Go: GoRuntimeBoard, Kind: Standing, Template: "standing", ReadOnly: true, Methods: []string{"Percentile", "PageOf"}, Model: "Standing",
			Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree,
			Args: byID, Reply: ReplyStanding,
			Title: "standing: an entry's 0-based position and the number of entries, read together.", Usage: []string{
				"{id}: the id. Returns {position, count}, or nil when the id has no entry."}},
	}
	if l.NumScore > 0 {
		lead := l.Fields[0].Name
		ops = append(ops,
			Op{Name: "range", Kind: Range, Go: GoLeadRange, ReadOnly: true, Methods: []string{"Range" + lead}, Model: "Range",
				Sharding: ShardPerShard, Data: DataScripted, Season: SeasonFree, DataForm: &Op{
					Template: "range", Args: Args{Head: []string{ArgLo, ArgHi, ArgOffset, ArgLimit}}, Reply: ReplyWindowData,
					Title: "range: the entries whose scores lie between {lo} and {hi}, best first, with their data.",
					Usage: []string{"{lo}, {hi}: score bounds as ZRANGE BYSCORE takes them; {offset}, {limit}: as its LIMIT.",
						"Returns {0, {member, score, ...}, {data, ...}}."}}},
			Op{Name: "count_range", Kind: CountRange, Go: GoLeadCount, ReadOnly: true, Methods: []string{"Count" + lead + "Between"}, Model: "CountRange",
				Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree},
			Op{Name: rankgenrt.OpCompetition, Kind: Competition, Go: GoRuntimeScoreReads, Template: "competition", ReadOnly: true,
				Methods: []string{"CompetitionRank", "CompetitionRankTuple"}, Model: "Competition",
				Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree, Args: Args{Head: []string{ArgID, ArgTied}}, Reply: ReplyPosition,
				Title: "competition: 1 + the number of entries ahead on the score's leading fields (equal ones share a rank).",
				Usage: []string{"{id}: the id; {tied}: how many leading score fields count (1: " + lead + " alone).",
					"Returns the rank, or nil when the id has no entry."}},
			Op{Name: rankgenrt.OpDense, Kind: Dense, Go: GoRuntimeScoreReads, Template: "dense", ReadOnly: true,
				Methods: []string{"DenseRank"}, Model: "Dense",
				Sharding: ShardPerShard, Data: DataUntouched, Season: SeasonFree, Args: byID, Reply: ReplyPosition,
				Title: "dense: 1 + the number of distinct " + lead + " values ahead (\"1223\" ranking).",
				Usage: []string{"{id}: the id. Returns the rank, or nil when the id has no entry."}})
		ops = append(ops, bands()...)
	}
	return ops
}

// bands are the reads of a band of the score's leading fields (a Band: equal on some fields,
// between two values on the next), which is a band of scores, and of the place a score prefix
// or an entry would take.
func bands() []Op {
	return []Op{
		{Name: rankgenrt.OpBand, Kind: Band, Go: GoRuntimeScoreReads, Template: "band", ReadOnly: true, Methods: []string{"Between"}, Model: "Band",
			Sharding: ShardWindows, Data: DataInReply, DataDoc: dataDoc, Season: SeasonFree,
			Args: Args{Head: []string{ArgLo, ArgHi, ArgOffset, ArgLimit}}, Reply: ReplyWindow,
			Title: "band: the entries whose score lies in [lo, hi), best first, with their positions.", Usage: []string{
				"{lo}, {hi}: the band's lowest score and the score above it, as exact text; {offset}: how many",
				"of the band's entries to skip; {limit}: the page size. Returns {the number of entries",
				"ahead of the band, {member, score, ...}}."}},
		{Name: "count_band", Kind: CountBand, Go: GoRuntimeScoreReads, ReadOnly: true, Methods: []string{"CountBetween"}, Model: "CountBand",
			Sharding: ShardMerged, Data: DataUntouched, Season: SeasonFree},
		{Name: rankgenrt.OpAroundScore, Kind: AroundScore, Go: GoAroundScore, Template: "around_score", ReadOnly: true, Methods: []string{"AroundScore"}, Model: "AroundScore",
			Sharding: ShardWindows, Data: DataInReply, DataDoc: dataDoc, Season: SeasonFree,
			Args: Args{Head: []string{ArgScore, ArgMember, ArgBefore, ArgAfter}}, Reply: ReplyWindow,
			Title: "around_score: the entries around the place a score (and member) would take, best first.", Usage: []string{
				"{score}, {member}: the place: an entry's score and member, or with member '' the place",
				"before every entry of that score; {before}, {after}: how many entries before and from it.",
				"Returns {position of the first entry, {member, score, ...}}."}},
	}
}

// UpdateName is the script name of one field update: "add_points" for add on Points.
func UpdateName(u layout.Op, f *layout.Field) string { return string(u) + "_" + snake(f.Name) }

// UpdateMethod is the Board method of one field update: "AddPoints" for add on Points.
func UpdateMethod(u layout.Op, f *layout.Field) string { return Camel(string(u)) + f.Name }

// Camel turns a script name ("add_points") into an identifier suffix ("AddPoints").
func Camel(name string) string {
	var sb strings.Builder
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		sb.WriteString(string(r))
	}
	return sb.String()
}

// snake turns a Go name into lower_snake_case: ReachedAt → reached_at, HTTPCode → http_code.
func snake(name string) string {
	rs := []rune(name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
