// Package boardtest proves the example boards of examples/generated against a real Redis
// server: Redis order equals the generated Compare; the generated Board and an in-memory model
// built on the interpreted codec (generator/layout) agree after random operations, bit for bit;
// concurrent updates lose nothing; and benchmarks measure the boards beside plain ZINCRBY, ZADD
// and a minimal hand-written Lua script (go test -bench . ./examples/boardtest, files
// bench_*_test.go).
//
// The board's contracts one by one are in spec_*_test.go, driven through their own harness
// (spec_harness_test.go): every operation's effect equals the interpreted codec's bit for bit,
// errors leave the board unchanged, the id index stays consistent, expiry is applied
// atomically and scripts survive SCRIPT FLUSH.
//
// The tests that depend on Redis run twice, as subtests "single" (one server) and "cluster"
// (a private Redis Cluster of three masters with a replica each; see redistest.RunTargets);
// the failover tests start clusters of their own and kill or fail over their masters.
package boardtest
