package goemit

import (
	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// The ShardedBoard of a periodic layout holds one season, as a Board does: each of its shards
// is the season's Board (NewBoard with the season), so every shard's writes set the season's
// expiry and refuse times outside it in their own scripts, exactly as one Board's do. The
// shards of season s of the boards under base are named by rankgenrt.ShardKeys from
// rankgenrt.SeasonKey(base, s), the key of the season's one-key board: each under its own hash
// tag, derived from base and the season's id.

// seasonConstructorDoc is NewShardedBoard's doc on a periodic layout.
func (s *sharded) seasonConstructorDoc() string {
	doc := `NewShardedBoard returns the board of the season given, stored under key in shards sorted sets, named by rankgenrt.ShardKeys ("key{key:shards:i:n}"; Seasons.Sharded names key after the season); the options apply to every shard. Each shard is the season's Board (NewBoard): its keys expire when keepSeasons more seasons have ended after the season, set by every write's own script (WithTTL or WithExpireAt replace that); once it has passed, writes and reads are refused (rankgenrt.ErrSeasonExpired), on every shard as on a Board.`
	if catalog.EntriesTakeSeason(s.l) {
		doc += ` Writes refuse times outside the season with an error matching rankgenrt.ErrSeasonClosed, on every shard as on a Board.`
	}
	return doc
}

// seasons emits, on a periodic layout, Seasons.Sharded, Seasons.ExistingSharded and
// ShardedBoard.Season.
func (s *sharded) seasons() {
	if s.l.Season == nil {
		return
	}
	f := s.f
	s.comment(`Sharded returns the board of season s in shards sorted sets (NewShardedBoard), under the key of the season's Board, <base>:<s.ID>, with the Seasons' clock; opts apply after the season's expiry. Its shards' keys start with that key, each under its own hash tag ("<base>:<s.ID>{<base>:<s.ID>:shards:i:n}"), so a sharded season needs a base without braces (else an error matching ErrBadKey). ExistingSharded lists the seasons whose sharded boards still exist.`)
	f.Func().Params(id("ss").Op("*").Id("Seasons")).Id("Sharded").Params(id("s").Id("Season"), id("shards").Int(), id("opts").Op("...").Id("Option")).Params(jen.Op("*").Id("ShardedBoard"), jen.Error()).Block(
		jen.Return(rt("ShardedSeason").Call(id("ss").Dot("Seasons"), id("s"),
			jen.Func().Params(id("c").Qual(redisPath, "UniversalClient"), id("key").String()).Params(jen.Op("*").Id("ShardedBoard"), jen.Error()).Block(
				jen.Return(jen.Id("NewShardedBoard").Call(id("c"), id("key"), id("s"), id("shards"), id("opts").Op("...")))),
			jen.Func().Params(id("sb").Op("*").Id("ShardedBoard")).Index().Op("*").Id("Board").Block(jen.Return(id("sb").Dot("shards"))),
		)),
	)
	f.Line()
	s.comment("ExistingSharded is Existing for the seasons' sharded boards of shards shards (Sharded): the seasons, newest first, of which one shard still exists, checked with one EXISTS a shard key in one pipeline.")
	f.Func().Params(id("ss").Op("*").Id("Seasons")).Id("ExistingSharded").Params(ctxParam(), id("shards").Int()).Params(jen.Index().Id("Season"), jen.Error()).Block(
		jen.Return(rt("ExistingSharded").Call(ctx(), id("ss").Dot("Seasons"), id("shards"))),
	)
	f.Line()
	f.Comment("Season returns the season the board holds.")
	sRecv(f).Id("Season").Params().Id("Season").Block(jen.Return(sDot("shards").Index(jen.Lit(0)).Dot("season")))
	f.Line()
}
