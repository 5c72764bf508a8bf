// Package boardspec tests the generated boards of the example schemas (examples/generated)
// against a real redis-server: every operation's effect equals the interpreted codec's
// (generator/layout) bit for bit, errors leave the board unchanged, the id index stays
// consistent, expiry is applied atomically and scripts survive SCRIPT FLUSH. The tests that
// touch a board run on a single server and on a private Redis Cluster (redistest.RunTargets).
// It has no non-test code.
package boardspec
