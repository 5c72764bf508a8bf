// Package seeds reproduces five hand-made leaderboard schemes (seeds 000 to 004, each written
// out in its seedNNN_test.go) bit for bit with rankgen schemas (examples/schemas/seed*.yaml),
// and shows with tests where each original scheme loses data: every test writes the seed's own formula
// in Go next to rankgen's codec and compares them value for value.
//
// The package holds only tests; this file exists so that the directory is a package.
package seeds
