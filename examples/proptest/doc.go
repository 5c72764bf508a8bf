// Package proptest checks every generated example package against the interpreted codec
// (generator/layout), which is the oracle: on random entries, generated Encode equals
// interpreted Encode bit for bit, Decode inverts it, Compare sorts exactly as Redis reads a
// board, out-of-range values fail alike, and Decode agrees with the oracle on damaged input.
// It also holds the Decode fuzz targets and the codec benchmarks (generated code beside a
// hand-written shift-and-mask codec for the arena layout). It has no non-test code.
package proptest
