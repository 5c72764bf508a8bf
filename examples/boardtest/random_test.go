package boardtest

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

var update = flag.Bool("update", false, "rewrite the boards generated from random schemas under internal/random")

// randomSeeds are the oracle.RandomSchema seeds of the committed random boards, chosen for
// variety: int, time, enum and bool fields with every update kind, in the score and in the
// member, overflow saturate, client and server stamps, decimal scores, uint64 ids.
var randomSeeds = []uint64{1, 2, 12, 27, 32}

// randomBits62Seeds are the oracle.RandomBits62Schema seeds of the committed bits62 boards
// (packages b01, …): score: bits62 layouts of up to 62 bits, some spilling into the member.
var randomBits62Seeds = []uint64{1, 2, 3, 4}

// shardedRandom are the random boards whose schema also asks for a ShardedBoard (sharded:
// true), for the sharded suites: a string id with a member prefix, and a uint64 id with a
// bits62 score spilling into the member.
var shardedRandom = map[string]bool{"r32": true, "b01": true}

// randomBoards names each committed random board and its schema.
func randomBoards() map[string][]byte {
	boards := map[string][]byte{}
	for _, seed := range randomSeeds {
		pkg := fmt.Sprintf("r%02d", seed)
		boards[pkg] = oracle.RandomSchema(rand.New(rand.NewPCG(seed, 99)), pkg)
	}
	for _, seed := range randomBits62Seeds {
		pkg := fmt.Sprintf("b%02d", seed)
		boards[pkg] = oracle.RandomBits62Schema(rand.New(rand.NewPCG(seed, 99)), pkg)
	}
	for pkg := range shardedRandom {
		line := "\npackage: " + pkg + "\n"
		boards[pkg] = bytes.Replace(boards[pkg], []byte(line), []byte(line+"sharded: true\n"), 1)
	}
	return boards
}

// TestRandomBoardsFresh regenerates the boards under internal/random from their seeds and checks
// that the committed schema and files are byte for byte what rankgen generates today
// (-update rewrites them).
func TestRandomBoardsFresh(t *testing.T) {
	for pkg, src := range randomBoards() {
		dir := filepath.Join("internal", "random", pkg)
		files, err := generator.Generate(pkg+".yaml", src)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		want := map[string][]byte{pkg + ".yaml": src}
		for _, f := range files {
			want[f.Name] = f.Data
		}
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, data := range want {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if _, ok := want[e.Name()]; !ok {
				t.Errorf("%s/%s is not generated any more (run go test ./examples/boardtest -run RandomBoardsFresh -update)", dir, e.Name())
			}
		}
		for name, data := range want {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s/%s is stale (run go test ./examples/boardtest -run RandomBoardsFresh -update)", dir, name)
			}
		}
	}
}
