package goemit_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/laps"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestDocClaimsBytes: what the generated godoc says an id and a string data field accept is
// what the code accepts: an id any bytes (invalid UTF-8 too), a data string UTF-8 text only.
func TestDocClaimsBytes(t *testing.T) {
	src, err := os.ReadFile("../../examples/generated/laps/laps.rankgen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "// Driver is the entry's id: 1 to 32 bytes, any bytes.") {
		t.Errorf("laps' Entry.Driver doc no longer says any bytes: update this test with the claim")
	}
	if _, _, err := (arena.Entry{PlayerID: "a\xff", ReachedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}).Encode(); err != nil {
		t.Errorf("an id that is not UTF-8: %v; the godoc says any bytes", err)
	}
	if !strings.Contains(string(src), "// At most 32 bytes of UTF-8 text; a longer value, or one that is not valid UTF-8, is refused (ErrOutOfRange), never cut.") {
		t.Errorf("laps' Data.Name doc does not say it holds UTF-8 text")
	}
	if _, err := (laps.Data{Name: "a\xff"}).Encode(); !errors.Is(err, rankgenrt.ErrOutOfRange) {
		t.Errorf("a data string that is not UTF-8: %v; want ErrOutOfRange, as the godoc says", err)
	}
}
