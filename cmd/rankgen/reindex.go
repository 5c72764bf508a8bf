package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

func init() {
	register(&command{
		name:     "reindex",
		args:     "KEY",
		required: []string{"schema"},
		short:    "build a board's id → member index from its sorted set",
		long: `Reindex adopts a board that other code wrote with the schema's layout (a hand-made scheme such
as seed 000's "<inverted time>:<id>" members): when members carry a field prefix, a generated
Board finds an entry by id through an index (a hash id → member beside the set, in the same
hash slot), and reindex builds that index from the members of the sorted set KEY.

It reads the whole set first and writes nothing when a member does not decode with the schema
or when an id has more than one member (both are listed; remove the extra members and rerun).
It is idempotent and safe to rerun: entries already right are left alone, wrong ones are
corrected, entries of ids no longer in the set are removed, and an entry is written only while
its member is still in the set, so a generated Board writing at the same time is never undone.
Stop writers that do not use the generated Board (the hand-made code) before running it.

The server is -redis (a redis:// URL), else $REDIS_URL, else redis://localhost:6379.

Exit status: 0 when the index is complete, 1 on schema errors, undecodable members, duplicate
ids or Redis errors, 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			schema := fs.String("schema", "", "the schema `file` (required)")
			url := fs.String("redis", "", "the server, as a redis:// `URL` (default $REDIS_URL, else redis://localhost:6379)")
			timeout := fs.Duration("timeout", time.Minute, "give up after this `duration`")
			return func(e *env, args []string) int {
				if *schema == "" {
					return usageFail(e, commands["reindex"], "-schema is required")
				}
				if len(args) != 1 {
					return usageFail(e, commands["reindex"], "reindex takes the board's KEY")
				}
				l, ok := loadSchema(e, "reindex", *schema)
				if !ok {
					return exitFail
				}
				if !l.HasPrefix() {
					e.errorf("reindex", "%s: members are bare ids, so boards of this layout keep no index; nothing to do", *schema)
					return exitOK
				}
				addr := *url
				if addr == "" {
					addr = os.Getenv("REDIS_URL")
				}
				if addr == "" {
					addr = "redis://localhost:6379"
				}
				opts, err := redis.ParseURL(addr)
				if err != nil {
					return usageFail(e, commands["reindex"], fmt.Sprintf("-redis %q: %v", addr, err))
				}
				c := redis.NewClient(opts)
				defer c.Close()
				ctx, cancel := context.WithTimeout(context.Background(), *timeout)
				defer cancel()
				return reindex(e, ctx, c, l, args[0])
			}
		},
	})
}

func reindex(e *env, ctx context.Context, c redis.UniversalClient, l *layout.Layout, key string) int {
	rep, err := rankgenrt.Reindex(ctx, c, key, l.Fingerprint, func(score float64, member string) (string, error) {
		entry, err := l.Decode(score, member)
		return entry.ID, err
	})
	for _, b := range rep.Bad {
		fmt.Fprintf(e.stderr, "rankgen reindex: %s: cannot be decoded with this layout\n", b)
	}
	ids := make([]string, 0, len(rep.Duplicates))
	for id := range rep.Duplicates {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(e.stderr, "rankgen reindex: id %q has %d members: %q\n", id, len(rep.Duplicates[id]), rep.Duplicates[id])
	}
	if err != nil {
		e.errorf("reindex", "%v", err)
		return exitFail
	}
	fmt.Fprintf(e.stdout, "%s: %d members; index %s: %d written, %d already right, %d removed, %d skipped (left the set meanwhile)\n",
		key, rep.Members, rankgenrt.IndexKey(key), rep.Written, rep.Unchanged, rep.Removed, rep.Skipped)
	return exitOK
}
