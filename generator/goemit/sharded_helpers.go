package goemit

import (
	"slices"

	"github.com/dave/jennifer/jen"
	"github.com/rankgen/rankgen/generator/catalog"
)

// helpers emits the unexported methods the ShardedBoard's own methods share (the merges of
// rankgenrt.ShardedBoard's methods are the runtime's).
func (s *sharded) helpers() {
	if slices.ContainsFunc(s.ops, routesByID) {
		s.routing()
	}
}

// routesByID reports whether the ShardedBoard's method of op, which the file declares, sends
// one id's write to its shard (shardOf).
func routesByID(op catalog.Op) bool {
	return op.Go == catalog.GoFieldUpdate && !op.Batch || op.Go == catalog.GoChangeList || op.Go == catalog.GoTouch
}

// sumOver is "return rankgenrt.SumShards(ctx, len(s.shards), func(ctx, i) (int64, error) {
// return call })": call is the count of shard i (s.shards[i]).
func sumOver(call jen.Code) jen.Code {
	return jen.Return(rt("SumShards").Call(ctx(), jen.Len(sDot("shards")), jen.Func().Params(ctxParam(), id("i").Int()).Params(jen.Int64(), jen.Error()).Block(jen.Return(call))))
}

// routing emits shard.
func (s *sharded) routing() {
	f := s.f
	f.Comment("shard returns the shard that holds id.")
	sRecv(f).Id("shard").Params(id("id").Add(s.idType())).Op("*").Id("Board").Block(
		jen.Return(sDot("shards").Index(rt("ShardOf").Call(s.idText(id("id")), jen.Len(sDot("shards"))))))
	f.Line()
}
