package boardmodel

import "reflect"

// Prefix builds the generated Prefix of the leading keys given (<F0>Is(keys[0]).<F1>Is(…)…),
// a place for AroundScore, as AroundScore does; the sharded board's test passes it to both
// boards it compares.
func (b *Board) Prefix(keys []uint64) reflect.Value { return b.prefix(keys) }
