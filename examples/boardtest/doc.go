// Package boardtest proves the example boards of examples/generated against a real Redis
// server: Redis order equals the generated Compare; the generated Board and an in-memory model
// built on the interpreted codec (generator/layout) agree after random operations, bit for bit;
// concurrent updates lose nothing; and benchmarks measure the boards beside plain ZINCRBY, ZADD
// and a minimal hand-written Lua script (go test -bench . ./examples/boardtest).
package boardtest
