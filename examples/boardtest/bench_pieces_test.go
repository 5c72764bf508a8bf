package boardtest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/racing"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

// BenchmarkWritePieces takes the generated writes apart in server CPU: each piece of what a
// write does beyond the least exactly-once script (bench_floor_test.go) is cut out of racing's
// library in a copy of its own, and the copy's calls take turns with the whole library's, 20
// calls each a round, the order rotating; share-<piece> is the share of the whole write's
// server CPU that the piece costs (1 − cut / whole). The functions are called directly
// (FCALL with a fresh token's ack key), as the Board calls them, so a cut that changes the
// reply is measured too. docs/performance.md has the table.
//
//	go test -run '^$' -bench WritePieces -benchtime 100x -count 3 ./examples/boardtest
func BenchmarkWritePieces(b *testing.B) {
	c := benchClient(b)
	bb := newBenchBoard(b, c, exampleNamed("racing").schema, "pieces-board")
	lib := racing.Library()
	// Each piece: the text of racing's library it replaces, and with what. A replacement that
	// no longer finds its text fails the benchmark: the table would measure nothing.
	pieces := []struct{ name, old, new string }{
		{"fence", "if redis.call('EXISTS', fence, base .. '0', base .. '1') == 0 then", "if true then"},
		{"fingerprint", "local fp = redis.call('GET', aux)\n  local refused = layout_refused(board, fp, 'writes', aux)", "local fp = FINGERPRINT\n  local refused = nil"},
		{"token-lookup", "local first = redis.call('GET', ack_key)", "local first = false"},
		{"token-record", "redis.call('SET', ack_key, cmsgpack.pack(ack_op, r), 'EX', ack_window)", "local _ = r"},
		{"stored-check", "p = score_p(scores[i])", "p = tonumber(scores[i])"},
		{"write-result", "out[2 * i] = fresh and '' or p0 -- the entry before", "out[2 * i] = ''"},
		{"best-stored-check", "      score_p(scores[i])\n", "\n"},
	}
	variants := []string{"whole"}
	for _, p := range pieces {
		if !strings.Contains(lib.Source, p.old) {
			b.Fatalf("racing's library no longer holds %q: update the piece %s", p.old, p.name)
		}
		name := "pieces_" + strings.ReplaceAll(p.name, "-", "_")
		src := strings.ReplaceAll(strings.ReplaceAll(lib.Source, lib.Name, name), p.old, p.new)
		if err := c.FunctionLoadReplace(ctx, src).Err(); err != nil {
			b.Fatal(err)
		}
		variants = append(variants, p.name)
	}
	if err := c.FunctionLoadReplace(ctx, strings.ReplaceAll(lib.Source, lib.Name, "pieces_whole")).Err(); err != nil {
		b.Fatal(err)
	}
	keys := []string{bb.key, rankgenrt.MetaKey(bb.key), rankgenrt.AckBase(bb.key), rankgenrt.FenceKey(bb.key)}
	cars := make([]uint64, len(bb.ids))
	for i, id := range bb.ids {
		cars[i], _ = strconv.ParseUint(id, 10, 64)
	}
	_, bestZ := bestEntries(b, bb, benchEntries)
	tokens := 0
	// call runs the i-th call of write in variant v, under a fresh token.
	call := func(v, write string, i int) error {
		tokens++
		token := fmt.Sprintf("pieces.%d", tokens)
		args := []any{"", "", token, "60"}
		switch write {
		case "add_laps":
			args = append(args, "", cars[i%len(cars)], delta(i))
		case "add_laps_many":
			args = append(args, "")
			for j := range batchSize {
				args = append(args, cars[(i*batchSize+j)%len(cars)], batchDelta(i))
			}
		case "best":
			z := bestZ[i%len(bestZ)]
			args = append(args, rankgenrt.FormatScore(z.Score), z.Member)
		}
		fn := "pieces_" + strings.ReplaceAll(v, "-", "_") + "_" + write
		return c.FCall(ctx, fn, rankgenrt.WriteKeys(keys, token), args...).Err()
	}
	for _, write := range []string{"add_laps", "add_laps_many", "best"} {
		b.Run("write="+write, func(b *testing.B) {
			cpu := rotatingRounds(b, c, len(variants), 20, func(side, i int) error {
				if err := call(variants[side], write, i); !isRedisError(err) {
					return err
				}
				return nil // a script's refusal, which a cut may cause
			})
			b.ReportMetric(cpu[0]*1e6/float64(b.N*20), "whole-srv-us")
			for k := 1; k < len(variants); k++ {
				b.ReportMetric(1-cpu[k]/cpu[0], "share-"+variants[k])
			}
		})
	}
}

// isRedisError reports whether err is a reply of the server (a script's refusal).
func isRedisError(err error) bool {
	_, ok := err.(redis.Error)
	return ok
}
