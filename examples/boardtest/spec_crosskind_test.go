package boardtest

import (
	"context"
	"errors"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestReadsRefuseTheOtherKind: a board written by a layout that records its fingerprint in a
// meta key (racing), read by code of a layout that keeps an index (laps), and the reverse: each
// read is refused with ErrLayoutMismatch, never entries misread, though the reader finds no
// fingerprint where its own layout records one.
func TestReadsRefuseTheOtherKind(t *testing.T) {
	c := redistest.Client(t)
	ctx := context.Background()
	metaKey, indexKey := redistest.Key(t, "racing"), redistest.Key(t, "laps")
	if _, err := racing.NewBoard(c, metaKey).Set(ctx, racing.Entry{Car: 7, Laps: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := laps.NewBoard(c, indexKey).Set(ctx, laps.Entry{Driver: "ann", BestLap: 60000}); err != nil {
		t.Fatal(err)
	}
	if _, err := laps.NewBoard(c, metaKey).Top(ctx, 10); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("laps's code read racing's board: %v; want ErrLayoutMismatch", err)
	}
	if _, err := racing.NewBoard(c, indexKey).Top(ctx, 10); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("racing's code read laps's board: %v; want ErrLayoutMismatch", err)
	}
	if _, err := racing.NewBoard(c, indexKey).Count(ctx); !errors.Is(err, rankgenrt.ErrLayoutMismatch) {
		t.Errorf("racing's code counted laps's board: %v; want ErrLayoutMismatch", err)
	}
}
