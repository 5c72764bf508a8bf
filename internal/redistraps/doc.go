// Package redistraps proves, against a real Redis server, each behaviour of Redis that rankgen's
// generator and runtime must guard against (design.md §7). It holds only tests: each trap is a
// test named TestTrap…, which asserts the behaviour itself and, where rankgen relies on it, the
// guard rankgen takes. The tests hold on Redis 7.0 and on 7.2+, 8 and Valkey: none of them
// compares score text except where the text is the trap, and then per version.
package redistraps
