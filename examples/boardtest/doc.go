// Package boardtest proves the example boards of examples/generated against a real Redis
// server: Redis order equals the generated Compare; the generated Board and an in-memory model
// built on the interpreted codec (generator/layout) agree after random operations, bit for bit;
// concurrent updates lose nothing; and benchmarks measure the boards beside plain ZINCRBY, ZADD
// and a minimal hand-written Lua script (go test -bench . ./examples/boardtest).
//
// The tests that depend on Redis run twice, as subtests "single" (one server) and "cluster"
// (a private Redis Cluster of three masters with a replica each; see redistest.RunTargets);
// the failover tests start clusters of their own and kill or fail over their masters.
package boardtest
