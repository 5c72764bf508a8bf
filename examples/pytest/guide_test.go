package pytest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestGuideSnippet runs the Python snippet of docs/python.md, with the committed racing module,
// on a racing board that Go wrote (on a server of its own: the snippet's key is fixed), and
// compares what it prints with the Go board's reads.
func TestGuideSnippet(t *testing.T) {
	needPython(t)
	doc, err := os.ReadFile("../../docs/python.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```python\n")
	snippet, _, closed := strings.Cut(rest, "```\n")
	if !ok || !closed {
		t.Fatal("docs/python.md has no python snippet")
	}

	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	board := racing.NewBoard(c, "race:2026-monaco")
	rng := rand.New(rand.NewPCG(11, 12))
	var entries []racing.Entry
	for car := range uint64(150) {
		if car == 7 {
			continue // car 7 has no entry: the snippet's NotFoundError
		}
		entries = append(entries, racing.Entry{Car: car, Laps: uint16(rng.IntN(60)), RaceTime: uint32(rng.IntN(1e7))})
	}
	if _, err := board.SetMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	top, err := board.Top(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, r := range top {
		fmt.Fprintf(&want, "%d car %d laps %d race time %d ms\n", r.Rank, r.Car, r.Laps, r.RaceTime)
	}
	if _, err := board.Rank(ctx, 7); !errors.Is(err, rankgenrt.ErrNotFound) {
		t.Fatalf("Go's Rank(7): %v, want ErrNotFound", err)
	}
	want.WriteString("car 7 has not finished a lap\n")

	cmd := exec.Command(python, "-c", snippet)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=../clients/py", "REDIS_URL=redis://"+srv.Options().Addr+"/0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the snippet: %v\n%s", err, out)
	}
	if string(out) != want.String() {
		t.Errorf("the snippet printed\n%s\nGo's board reads\n%s", out, want.String())
	}
}
