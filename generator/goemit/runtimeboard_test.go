package goemit

import (
	"maps"
	"reflect"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// Stand-ins for a generated package's types, to name the methods of rankgenrt.Board as the
// generated Board, which embeds it, has them.
type (
	standInEntry   struct{}
	standInRanked  struct{}
	standInWritten struct{}
	standInResult  struct{}
)

// runtimeBoardMethods are the methods of rankgenrt.Board, and on a layout with score fields
// rankgenrt.ScoreReads, over a generated package of l's id type, each with its parameter and
// result types as signatures writes them.
func runtimeBoardMethods(l *layout.Layout) map[string]string {
	if l.IDType == layout.IDUint64 {
		return runtimeMethods[*rankgenrt.Board[standInEntry, uint64, standInRanked, standInWritten, standInResult],
			*rankgenrt.ScoreReads[standInEntry, uint64, standInRanked, standInWritten, standInResult]](l)
	}
	return runtimeMethods[*rankgenrt.Board[standInEntry, string, standInRanked, standInWritten, standInResult],
		*rankgenrt.ScoreReads[standInEntry, string, standInRanked, standInWritten, standInResult]](l)
}

// runtimeShardedMethods are the methods of rankgenrt.ShardedBoard (and ShardedScoreReads) over a
// generated package of l's id type, as the generated ShardedBoard, which embeds them, has them.
func runtimeShardedMethods(l *layout.Layout) map[string]string {
	if l.IDType == layout.IDUint64 {
		return runtimeMethods[*rankgenrt.ShardedBoard[standInEntry, uint64, standInRanked, standInWritten, standInResult],
			*rankgenrt.ShardedScoreReads[standInEntry, uint64, standInRanked, standInWritten, standInResult]](l)
	}
	return runtimeMethods[*rankgenrt.ShardedBoard[standInEntry, string, standInRanked, standInWritten, standInResult],
		*rankgenrt.ShardedScoreReads[standInEntry, string, standInRanked, standInWritten, standInResult]](l)
}

// runtimeMethods are the methods of Board, and of ScoreReads where l has score fields.
func runtimeMethods[Board, ScoreReads any](l *layout.Layout) map[string]string {
	out := methodSignatures(reflect.TypeFor[Board]())
	if l.NumScore > 0 {
		maps.Copy(out, methodSignatures(reflect.TypeFor[ScoreReads]()))
	}
	return out
}

// methodSignatures are the methods of typ, a runtime type over the stand-ins, each with its
// parameter and result types as signatures writes them.
func methodSignatures(typ reflect.Type) map[string]string {
	names := strings.NewReplacer("goemit.standInEntry", "Entry", "goemit.standInRanked", "Ranked",
		"goemit.standInWritten", "Written", "goemit.standInResult", "Result", "runtime.", "")
	out := map[string]string{}
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		var in, res []string
		for j := 1; j < m.Type.NumIn(); j++ { // the receiver first
			p := m.Type.In(j)
			if m.Type.IsVariadic() && j == m.Type.NumIn()-1 {
				in = append(in, "..."+names.Replace(p.Elem().String()))
				continue
			}
			in = append(in, names.Replace(p.String()))
		}
		for j := range m.Type.NumOut() {
			res = append(res, names.Replace(m.Type.Out(j).String()))
		}
		out[m.Name] = "(" + strings.Join(in, ", ") + ") (" + strings.Join(res, ", ") + ")"
	}
	return out
}
