package catalog

import (
	"fmt"
	"slices"
)

// Names of script arguments.
const (
	ArgMode   = "mode"   // expiry mode: '', 'px' or 'pxat'
	ArgMS     = "ms"     // the expiry's milliseconds
	ArgToken  = "token"  // a write call's idempotency token
	ArgWindow = "window" // the dedup window in whole seconds: how long tokens are remembered; "0" = off
	ArgClock  = "clock"  // the client's clock in Unix microseconds (client stamps)
	ArgID     = "id"     // an entry's id
	ArgValue  = "value"  // an update's delta or new digit
	ArgScore  = "score"  // an encoded score (a cursor's, for after)
	ArgMember = "member" // an encoded member (a cursor's, for after)
	ArgKeep   = "keep"   // trim: how many entries to keep
	ArgBefore = "before" // around: how many entries before the id
	ArgAfter  = "after"  // around: how many entries after the id
	ArgLimit  = "limit"  // after, bottom: the page size
	ArgFill   = "fill"   // around: '1' fills the window from the other side at an end
	ArgOffset = "offset" // bottom: how many of the last entries to skip
	ArgTied   = "tied"   // competition: how many leading score fields count for ties
	ArgData   = "data"   // an entry's encoded data (boards with data fields)
	ArgLo     = "lo"     // band, range: the lowest score, as exact text
	ArgHi     = "hi"     // band: the score just above the band; range: the upper bound
)

// Args is the argument layout of a script (its ARGV): the Head arguments once, in order, then
// the Each group repeated once per item. The Go side appends them in the same order.
type Args struct {
	Head []string
	Each []string // nil: no repeated group
}

// At is the 1-based ARGV position of the Head argument name.
func (a Args) At(name string) (int, error) {
	if i := slices.Index(a.Head, name); i >= 0 {
		return i + 1, nil
	}
	return 0, fmt.Errorf("catalog: no argument %q in %v", name, a.Head)
}

// First is the 1-based ARGV position of argument name in the first repeated group.
func (a Args) First(name string) (int, error) {
	if k := slices.Index(a.Each, name); k >= 0 {
		return len(a.Head) + k + 1, nil
	}
	return 0, fmt.Errorf("catalog: no repeated argument %q in %v", name, a.Each)
}

// Base is the constant of the ARGV position of argument name in the i-th group (1-based i):
// ARGV[Base + Stride * i].
func (a Args) Base(name string) (int, error) {
	first, err := a.First(name)
	return first - a.Stride(), err
}

// Index is the 0-based index of argument name in the first repeated group of the Go
// argument slice: the j-th group's is Index + Stride * j.
func (a Args) Index(name string) (int, error) {
	first, err := a.First(name)
	return first - 1, err
}

// CallStart is the 1-based ARGV position of a write script's first argument that says what the
// call does: after the write arguments (WriteArgs: the expiry, the token, the dedup window) and
// the client's clock, which a resend of the same call may send otherwise (the board's expiry
// configured anew, a later clock). A write's token record keeps a digest of its arguments from
// there on, so that a resend under the token is answered with the first reply only when it
// repeats that call (the library's head: open_write).
func (a Args) CallStart() (int, error) {
	write := WriteArgs()
	if len(a.Head) < len(write) || !slices.Equal(a.Head[:len(write)], write) {
		return 0, fmt.Errorf("catalog: a write's arguments start with %v, not %v", write, a.Head)
	}
	n := len(write)
	if n < len(a.Head) && a.Head[n] == ArgClock {
		n++
	}
	return n + 1, nil
}

// Takes reports whether the script takes argument name, once or in its repeated group.
func (a Args) Takes(name string) bool {
	return slices.Contains(a.Head, name) || slices.Contains(a.Each, name)
}

// Stride is the number of arguments in one repeated group.
func (a Args) Stride() int { return len(a.Each) }

// Fixed is the number of Head arguments: the repeated groups start after them.
func (a Args) Fixed() int { return len(a.Head) }

// Reply is the shape of a script's reply.
type Reply string

// The reply shapes, each read by one function of package runtime (Reader).
const (
	ReplyNone      Reply = ""           // no script
	ReplyCount     Reply = "count"      // an integer
	ReplyPriors    Reply = "priors"     // per entry, 1 (changed) or 0, then its id's previous score and member ('' when none)
	ReplyItems     Reply = "items"      // per update, {P, member, prior P, prior member} or {error text, '', '', ''}
	ReplyBareItems Reply = "bare_items" // per update, {P, prior P} or {error text, ''}: the member is the id sent
	ReplyEntry     Reply = "entry"      // {score, member}, or nil when the id has no entry
	ReplyPosition  Reply = "position"   // an integer, or nil when the id has no entry
	ReplyWindow    Reply = "window"     // {position of the first entry, {member, score, ...}}
	ReplyEntries   Reply = "entries"    // per id, score and member ('' and '' when absent)
	ReplyPositions Reply = "positions"  // per id, its position (-1 when absent)
	ReplyRanked    Reply = "ranked"     // {positions, entries}: ReplyPositions, then ReplyEntries
	ReplyStanding  Reply = "standing"   // {position, count}, or nil when the id has no entry
	ReplyRemovals  Reply = "removals"   // per board, per id, 1 when the board held it else 0 (remove_everywhere)
)

// Reader is the function of package runtime (rankgenrt) that reads the reply.
func (r Reply) Reader() string {
	return map[Reply]string{
		ReplyCount:     "Int",
		ReplyPriors:    "Priors",
		ReplyItems:     "Items",
		ReplyBareItems: "BareItems",
		ReplyEntry:     "ScoreMember",
		ReplyPosition:  "Int",
		ReplyWindow:    "Window",
		ReplyEntries:   "Entries",
		ReplyPositions: "Positions",
		ReplyRanked:    "RankedEntries",
		ReplyStanding:  "Standing",
		ReplyRemovals:  "Removals",

		ReplyWindowData:  "WindowData",
		ReplyEntryData:   "ScoreMemberData",
		ReplyEntriesData: "EntriesData",
		ReplyRankedData:  "RankedEntriesData",
		ReplyPriorsData:  "PriorsData",
	}[r]
}

// Arguments of a periodic layout's update scripts: the bounds of the board's season.
const (
	ArgFrom  = "season_from"  // the season's start, Unix microseconds
	ArgUntil = "season_until" // its end (excluded)
)
