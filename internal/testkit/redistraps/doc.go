// Package redistraps proves, against a real Redis server, each behaviour of Redis that rankgen's
// generator and runtime must guard against; docs/redis-facts.md lists them, each with its
// test. It holds only tests: each trap is a test named TestTrap…, which asserts the
// behaviour itself and, where rankgen relies on it, the guard rankgen takes. Where servers
// differ (score parser, reply text), a test probes the server's behaviour and asserts what
// follows from it; none reads the version number, and none compares score text except where
// the text is the trap. The Lua, order and score facts hold on a single server and on a Redis
// Cluster alike, and run on both (redistest.RunTargets); facts of one deployment run on it.
package redistraps
