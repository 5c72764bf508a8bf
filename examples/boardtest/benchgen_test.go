package boardtest

// The generated boards' side of the benchmarks.
var genUpdates []genBench
