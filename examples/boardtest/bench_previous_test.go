package boardtest

import (
	"fmt"
	"testing"

	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v1"
	"github.com/rankgen/rankgen/examples/boardtest/internal/compat/v3"
	"github.com/redis/go-redis/v9"
)

// BenchmarkPreviousPaired measures what writing a board still in v1's layout costs v3's code,
// in alternating rounds as BenchmarkPaired does (ratio: baseline / v3's): v3's Set and
// AddPoints (converted, through v1's functions) beside v1's own.
//
//	go test -run '^$' -bench PreviousPaired -count 3 -benchtime 100x ./examples/boardtest
func BenchmarkPreviousPaired(b *testing.B) {
	c := benchClient(b)
	id := func(i int) string { return fmt.Sprintf("p%04d", i%1000) }
	old := "{bench-previous-v1}"
	b1, b3 := v1.NewBoard(c, old), v3.NewBoard(c, old)
	runPaired(b, "board=v1/op=Set/base=v1", c, func(_ *redis.Client, i int) error {
		_, err := b1.Set(ctx, v1.Entry{PlayerID: id(i), Points: uint32(i), Data: v1.Data{Nick: "n"}})
		return err
	}, func(_ *redis.Client, i int) error {
		_, err := b3.Set(ctx, v3.Entry{PlayerID: id(i), Points: uint64(i), Data: v3.Data{Nick: "n"}})
		return err
	})
	runPaired(b, "board=v1/op=AddPoints/base=v1", c, func(_ *redis.Client, i int) error {
		_, err := b1.AddPoints(ctx, id(i), 1)
		return err
	}, func(_ *redis.Client, i int) error {
		_, err := b3.AddPoints(ctx, id(i), 1)
		return err
	})
}
