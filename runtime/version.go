package runtime

// Version is the version of the contract between generated code and this package. Generated
// code records the version it was generated for and fails to compile when the two drift:
//
//	const _ = rankgenrt.EnforceVersion(Version - rankgenrt.MinVersion)
//	const _ = rankgenrt.EnforceVersion(rankgenrt.MaxVersion - Version)
//
// Either constant expression overflows the unsigned EnforceVersion when the generated code is
// older than MinVersion or newer than MaxVersion, so a stale package is a compile error, not a
// silent mis-decode. Version 2 added what generated code of this release calls: writes that
// wait for replicas, data replies, season calendars and the sharded-board machinery; code
// generated for version 1 still runs on it. Version 3 moved the board's machinery here (Core,
// Spec, Option, Read, CallRO in place of RunRO): code generated for an earlier version no
// longer compiles against it, and says so here. Version 4 added Decoding, the reads that are
// the same on every layout, which code generated for it calls; code generated for version 3
// still runs on it. Version 5 added Board and ShardedBoard, the methods every layout's board
// and sharded board have, which generated Boards and ShardedBoards embed (and
// Spec.SeasonBounds, Decoding.EntryArgs and what a ShardedBoard routes and merges by:
// Decoding.IDOf, Encode, Compare, EntryOf, ResultOf; GatherBatch, ShardWindows, ShardPlace,
// ReshardShards; Seasons, what every periodic layout's Seasons embeds, with SeasonsSpec,
// NewSeasons, SetSeasonsClock, Calendar.Expiry and the functions a layout's own season methods
// call: Rollup, ShardedSeason, ExistingSharded, RemoveEverywhereSharded). It also changed what
// earlier code calls (Decoding.Between and CountBetween take a Band), so code generated for
// an earlier version no longer compiles against it, and says so here. Version 6 moved the Lua
// head that every layout's library shares here (ComposeLibrary, NewLayoutLibrary: a generated
// <stem>.rankgen.lua holds only its layout's part), and builds a layout's bands and ranges
// (BandBetween, FixValue; Decoding.LeadRange takes a Band, and a leading field's count is
// CountBetween's), its score reads (ScoreReads, ShardedScoreReads), its entries' arguments
// (EncodedArgs) and a single update's result (Decoding.First): code generated for an earlier
// version no longer compiles against it.
const Version = 6

// MinVersion and MaxVersion bound the generated-code versions this runtime supports.
const (
	MinVersion = 6
	MaxVersion = Version
)

// EnforceVersion is used by generated code to assert, at compile time, that it is paired with
// a compatible runtime. See Version.
type EnforceVersion uint
