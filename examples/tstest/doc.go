// Package tstest checks the TypeScript modules rankgen generates against Go, in Node: shared
// vectors (random entries of every example schema, encoded by Go, decoded by TypeScript and
// encoded back, bit for bit; entry data alike; the order of pairs; refused scores, members and
// values) and the reads (top, page, around, rank, get, getMany, rankedMany) of a real server's boards,
// equal to the Go boards' reads. Its tests need Node and the npm packages of
// examples/clients/ts (scripts/test.sh installs both); without them they fail, saying so.
package tstest
