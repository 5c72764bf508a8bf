// Command arenademo plays a few rounds on the generated arena board (examples/generated/arena)
// and prints what a game server would show. It needs a Redis server:
//
//	go run ./examples/arenademo                       # localhost:6379
//	go run ./examples/arenademo -addr localhost:6400  # elsewhere
//
// It writes only the key given by -key (default "demo:arena", plus its meta key) and
// deletes them first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "localhost:6379", "Redis address")
	key := flag.String("key", "demo:arena", "board key")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, redis.NewClient(&redis.Options{Addr: *addr}), *key); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, c redis.UniversalClient, key string) error {
	board := arena.NewBoard(c, key, arena.WithTTL(7*24*time.Hour)) // a weekly board
	if err := c.Del(ctx, board.Keys()...).Err(); err != nil {
		return err
	}

	// Whole entries: Set upserts, Best keeps whichever of old and new ranks first.
	day := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	if _, err := board.SetMany(ctx, []arena.Entry{
		{PlayerID: "ana", Points: 120, ReachedAt: day},
		{PlayerID: "bo", Points: 120, ReachedAt: day.Add(time.Minute)},
		{PlayerID: "cy", Points: 90, ReachedAt: day, Paid: true},
	}); err != nil {
		return err
	}
	// Every write says what it did, from its own script: Best's Changed (kept the new entry) and
	// Before (the entry it replaced or kept) need no second read that another writer could race.
	w80, err := board.Best(ctx, arena.Entry{PlayerID: "cy", Points: 80, ReachedAt: day})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "cy's 80 kept:", w80.Changed, "| cy stays at", w80.Points)

	// Field updates return what they did too (w.Points is the new entry's); ReachedAt is
	// stamped with Redis's clock.
	dee, err := board.AddPoints(ctx, "dee", 120)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "dee:", dee.Points, "points, reached after ana:", dee.ReachedAt.After(day))
	if _, err := board.AddPoints(ctx, "dee", 1<<20); errors.Is(err, rankgenrt.ErrOverflow) {
		fmt.Fprintln(w, "overflow refused, dee unchanged")
	}
	res, err := board.AddPointsMany(ctx, []arena.Update[int64]{{PlayerID: "cy", Value: 5}, {PlayerID: "bo", Value: -500}})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "batch: cy →", res[0].Entry.Points, "| bo:", res[1].Err != nil)
	// Several field updates in one write: one script, one stamp, all or none.
	eli, err := board.Update(ctx, "eli", arena.AddPoints(90), arena.SetPaid(true))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "eli:", eli.Points, "points, paid:", eli.Paid)
	if _, err := board.Update(ctx, "eli", arena.SetPaid(false), arena.AddPoints(1<<20)); errors.Is(err, rankgenrt.ErrOverflow) {
		fmt.Fprintln(w, "list refused as a whole, eli still paid")
	}

	// Reads: each one round trip.
	top, err := board.Top(ctx, 10)
	if err != nil {
		return err
	}
	for _, r := range top {
		fmt.Fprintf(w, "%d. %-4s %4d paid=%v\n", r.Rank, r.PlayerID, r.Points, r.Paid)
	}
	rank, _ := board.Rank(ctx, "bo")
	comp, _ := board.CompetitionRank(ctx, "bo")
	fmt.Fprintln(w, "bo: rank", rank, "competition rank", comp)
	around, _ := board.Around(ctx, "bo", 1, 1)
	fmt.Fprint(w, "around bo:")
	for _, r := range around {
		fmt.Fprint(w, " ", r.Rank, ":", r.PlayerID)
	}
	fmt.Fprintln(w)
	band, _ := board.RangePoints(ctx, 100, 130, 0, 10)
	fmt.Fprintln(w, "100..130 points:", len(band), "players")
	ranked, _ := board.Between(ctx, arena.PointsBetween(100, 130), 0, 10)
	fmt.Fprint(w, "100..130 points, ranked:")
	for _, r := range ranked {
		fmt.Fprint(w, " ", r.Rank, ":", r.PlayerID)
	}
	sameDay, _ := board.CountBetween(ctx, arena.PointsIs(120).ReachedAtBetween(day, day.Add(time.Hour)))
	fmt.Fprintln(w, " | 120 points within the hour:", sameDay)
	near, _ := board.AroundScore(ctx, arena.PointsIs(100), 1, 1)
	fmt.Fprint(w, "around 100 points:")
	for _, r := range near {
		fmt.Fprint(w, " ", r.Rank, ":", r.PlayerID, "=", r.Points)
	}
	fmt.Fprintln(w)
	page, cur, _ := board.After(ctx, arena.Cursor{}, 2)
	next, _, _ := board.After(ctx, cur, 2)
	fmt.Fprintln(w, "pages:", page[0].PlayerID, page[1].PlayerID, "|", next[0].PlayerID, next[1].PlayerID)
	n, _ := board.Count(ctx)
	fmt.Fprintln(w, "count:", n)
	return nil
}
