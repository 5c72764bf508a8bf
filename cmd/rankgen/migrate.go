package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/migrate"
)

func init() {
	register(&command{
		name:     "migrate",
		args:     "KEY",
		required: []string{"to"},
		short:    "re-encode a live board from an earlier schema's layout to the schema's",
		long: `Migrate re-encodes the board KEY, written with the layout of an earlier schema (-from), to the
layout of the schema -to, as package migrate does from Go. Fields are mapped by name: -rename
Old=New maps a renamed field, -default Field=VALUE gives a new field its value in every entry,
-drop Field drops the values of a field the new schema lacks (all three repeat). uint, int and
bool fields convert into each other, enums map by value name, times by instant. Data fields
are mapped the same way (a new one without -default takes its Go zero value when that is in
its range; a string keeps its bytes), and the board's data hash is rewritten with the board;
entries without data stay without.

It first reads the whole board and maps every entry: when one does not fit the new layout (a
narrowed range, a removed enum value, a coarser time unit, a string over a shorter max_bytes)
it stops before writing anything and lists the offending ids (at most -max-ids, with their
count). It then copies the board and its data in batches into keys of the same hash slot,
recording its progress there with each batch; verifies the copy (the entry and data counts,
and every entry decoded with both layouts, with its data; at -to-key, where the copy is not
switched in, a random sample of 100); and switches it in with one script (the
board, its index, its layout claim and its data hash), after which writers of the old layout
are refused (ErrLayoutMismatch). With -to-key KEY2 the copy is built at KEY2 (its data under
KEY2's data hash) and both boards are left; an id KEY2 already holds (a dual-write window's
new-layout writers, which write KEY2 first, then KEY) is merged by -merge: best keeps whichever
entry ranks first, as Best does, KEY's ranked on the fields it has (a -default never beats
KEY2's real value), new keeps KEY2's. The default is new when a field of the new schema offers
set updates, else best; a board with add updates, or under best one whose -default field ranks
ahead of a field the old schema has, refuses ids KEY2 holds with another entry. Copies keep the
source's expiry. The source is not modified before the switch, and a run interrupted at any
point (even by kill -9) resumes when run again with the same options.

A periodic board (a season: block) is migrated whole: KEY is its base, and each live season's
board (the current one and the keep before it, KEY:ID) is migrated in turn, those absent
skipped; -to-key KEY2 names the copies KEY2:ID. -shards S migrates each of the S shards of a
ShardedBoard (in each season). A line on stderr names each part as it starts.

-from is a file, or git:REF for the -to file at a git revision (as for breaking). Without it,
the -to schema's previous: block names the earlier schema and gives the mapping (its rename,
default and drop), the one its generated code reads the earlier layout's entries by until the
switch.

Progress (entries done, rate, ETA) goes to a terminal's stderr; nothing when stderr is not a
terminal. -json writes progress and the result as JSON lines on stdout instead.

The server is -redis (a redis:// URL), else $REDIS_URL, else redis://localhost:6379.

Exit status: 0 when the board is migrated (or was already), 1 on schema, mapping, misfit,
verification or Redis errors, 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			o := &migrateFlags{renames: map[string]string{}, defaults: map[string]string{}}
			fs.StringVar(&o.from, "from", "", "the earlier schema: a `file`, or git:REF (default: the -to schema's previous:)")
			fs.StringVar(&o.to, "to", "", "the new schema `file` (required)")
			fs.StringVar(&o.url, "redis", "", "the server, as a redis:// `URL` (default $REDIS_URL, else redis://localhost:6379)")
			fs.StringVar(&o.toKey, "to-key", "", "build the copy at `KEY2` and leave KEY as it is")
			fs.Func("merge", "with -to-key, what to keep for an id KEY2 holds: `best|new` (the entry that ranks first, or KEY2's)", func(s string) error {
				m, err := migrate.ParseMerge(s)
				o.merge = m
				return err
			})
			fs.IntVar(&o.shards, "shards", 0, "the board is a ShardedBoard of `S` shards: migrate each shard")
			fs.Func("rename", "map the old field `Old=New` (repeatable)", pairFlag("rename", o.renames))
			fs.Func("default", "give the new field `Field=VALUE` in every entry (repeatable)", pairFlag("default", o.defaults))
			fs.Func("drop", "drop the old `Field`'s values (repeatable)", func(s string) error { o.drops = append(o.drops, s); return nil })
			fs.IntVar(&o.batch, "batch", 500, "entries per batch")
			fs.IntVar(&o.maxIDs, "max-ids", 10, "list at most `N` entries that do not fit")
			fs.BoolVar(&o.json, "json", false, "write progress and the result as JSON lines on stdout")
			return func(e *env, args []string) int {
				// Flags may follow KEY, as in "migrate … KEY -to-key KEY2".
				if len(args) > 1 {
					if err := fs.Parse(args[1:]); err != nil {
						return usageFail(e, commands["migrate"], err.Error())
					}
					args = append(args[:1], fs.Args()...)
				}
				return runMigrate(e, o, args)
			}
		},
	})
}

type migrateFlags struct {
	from, to, url, toKey string
	renames, defaults    map[string]string
	drops                []string
	batch, maxIDs        int
	shards               int
	merge                migrate.Merge
	json                 bool
}

func pairFlag(name string, into map[string]string) func(string) error {
	return func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("-%s wants NAME=VALUE, not %q", name, s)
		}
		if _, dup := into[k]; dup {
			return fmt.Errorf("-%s %s given twice", name, k)
		}
		into[k] = v
		return nil
	}
}

func runMigrate(e *env, o *migrateFlags, args []string) int {
	c := commands["migrate"]
	switch {
	case o.to == "":
		return usageFail(e, c, "-to is required")
	case len(args) != 1:
		return usageFail(e, c, "migrate takes the board's KEY")
	case o.batch < 1 || o.maxIDs < 1:
		return usageFail(e, c, "-batch and -max-ids must be at least 1")
	case o.shards < 0:
		return usageFail(e, c, "-shards must be at least 1 (or 0 for a board that is not sharded)")
	case o.merge != "" && o.toKey == "":
		return usageFail(e, c, "-merge is for -to-key: in place, the copy replaces KEY whole")
	}
	p, ok := migrationPlan(e, o)
	if !ok {
		return exitFail
	}
	opts, err := redis.ParseURL(redisURL(o.url))
	if err != nil {
		return usageFail(e, c, fmt.Sprintf("-redis %q: %v", redisURL(o.url), err))
	}
	rc := redis.NewClient(opts)
	defer rc.Close()
	rep, err := migrate.RunBoard(context.Background(), rc, p, migrate.Options{
		Key: args[0], ToKey: o.toKey, Merge: o.merge, Shards: o.shards, Now: e.clock(),
		Batch: o.batch, MaxMisfits: o.maxIDs, Progress: progressPrinter(e, o.json),
	})
	for _, r := range rep.Parts {
		printMigrateReport(e, o.json, r)
	}
	if err != nil {
		e.errorf("migrate", "%s", strings.Replace(err.Error(), "rankgen migrate: ", "", 1))
		return exitFail
	}
	printAbsent(e, o.json, rep.Absent)
	return exitOK
}

// migrationPlan loads both schemas and checks the mapping.
func migrationPlan(e *env, o *migrateFlags) (*migrate.Plan, bool) {
	newL, ok := loadSchema(e, "migrate", o.to)
	if !ok {
		return nil, false
	}
	if o.from == "" {
		return previousPlan(e, o, newL)
	}
	oldName, oldSrc, err := e.earlier(o.from, o.to)
	if err != nil {
		e.errorf("migrate", "%v", err)
		return nil, false
	}
	oldL, err := layout.Parse(oldName, oldSrc)
	if err != nil {
		printError(e, "migrate", err)
		return nil, false
	}
	p, err := migrate.NewPlan(oldL, newL, migrate.Mapping{Renames: o.renames, Defaults: o.defaults, Drops: o.drops})
	var nm *migrate.NoMappingError
	if errors.As(err, &nm) {
		e.errorf("migrate", "no mapping from %s to %s:\n  %s", oldName, o.to, strings.Join(nm.Problems, "\n  "))
		return nil, false
	}
	return p, true
}

// previousPlan is the plan from the schema's previous: block (no -from given), whose mapping
// is the one its code reads the previous layout by: the mapping flags may not change it.
func previousPlan(e *env, o *migrateFlags, l *layout.Layout) (*migrate.Plan, bool) {
	switch {
	case l.Previous == nil:
		e.errorf("migrate", "%s names no previous schema: give the earlier one with -from FILE or -from git:REF", o.to)
		return nil, false
	case len(o.renames) > 0 || len(o.defaults) > 0 || len(o.drops) > 0:
		e.errorf("migrate", "%s's previous: gives the mapping; change it there (rename, default, drop), or give -from with the flags", o.to)
		return nil, false
	}
	p, err := migrate.PreviousPlan(l)
	var nm *migrate.NoMappingError
	if errors.As(err, &nm) {
		e.errorf("migrate", "no mapping from %s to %s:\n  %s", l.Previous.Schema, o.to, strings.Join(nm.Problems, "\n  "))
		return nil, false
	}
	return p, err == nil
}

func redisURL(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if env := os.Getenv("REDIS_URL"); env != "" {
		return env
	}
	return "redis://localhost:6379"
}

// progressPrinter reports progress as JSON lines on stdout (-json), or else names each part
// of a board of several on a line of stderr as it starts (or is skipped) and shows the
// batches' progress on one rewritten line of a terminal's stderr. A sharded board's shards
// migrate at once: it prints one report at a time.
func progressPrinter(e *env, asJSON bool) func(migrate.Progress) {
	var mu sync.Mutex
	print := progressLines(e, asJSON)
	return func(p migrate.Progress) {
		mu.Lock()
		defer mu.Unlock()
		print(p)
	}
}

func progressLines(e *env, asJSON bool) func(migrate.Progress) {
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		return func(p migrate.Progress) {
			rate, eta := rateAndETA(p)
			line := map[string]any{"phase": p.Phase, "done": p.Done, "total": p.Total, "per_second": int64(rate), "eta_seconds": int64(eta.Seconds())}
			if p.Parts > 1 {
				line["part"], line["key"], line["index"], line["parts"] = p.Part.String(), p.Part.Key, p.Index, p.Parts
			}
			_ = enc.Encode(line)
		}
	}
	var batches func(migrate.Progress)
	if f, ok := e.stderr.(*os.File); ok && isTerminal(f) {
		batches = terminalProgress(e.stderr)
	}
	return func(p migrate.Progress) {
		switch {
		case p.Phase == "board":
			fmt.Fprintf(e.stderr, "migrate: %s (%d of %d): %s entries\n", p.Part, p.Index, p.Parts, thousands(p.Total))
		case p.Phase == "absent":
			fmt.Fprintf(e.stderr, "migrate: %s (%d of %d): absent, skipped\n", p.Part, p.Index, p.Parts)
		case p.Phase == "ready" || p.Phase == "closing":
			// no batches: the shard waits for the others, or its fence closes for the switch
		case batches != nil:
			batches(p)
		}
	}
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// printAbsent lists the parts of the board that did not exist, and were skipped.
func printAbsent(e *env, asJSON bool, absent []migrate.Part) {
	enc := json.NewEncoder(e.stdout)
	for _, p := range absent {
		if asJSON {
			_ = enc.Encode(map[string]any{"result": map[string]any{"key": p.Key, "part": p.String(), "absent": true}})
			continue
		}
		fmt.Fprintf(e.stdout, "%s: absent (%s); skipped\n", p.Key, p)
	}
}

// terminalProgress rewrites one line of w at most five times a second, and ends it when the
// phase is complete.
func terminalProgress(w io.Writer) func(migrate.Progress) {
	var last time.Time
	return func(p migrate.Progress) {
		if time.Since(last) < 200*time.Millisecond && p.Done < p.Total {
			return
		}
		last = time.Now()
		rate, eta := rateAndETA(p)
		fmt.Fprintf(w, "\r\033[Kmigrate: %s %d/%d entries, %.0f/s, ETA %s", p.Phase, p.Done, p.Total, rate, eta.Round(time.Second))
		if p.Done >= p.Total {
			fmt.Fprintln(w)
		}
	}
}

func rateAndETA(p migrate.Progress) (float64, time.Duration) {
	secs := p.Elapsed.Seconds()
	if secs <= 0 || p.Done == 0 {
		return 0, 0
	}
	rate := float64(p.Done) / secs
	left := max(p.Total-p.Done, 0)
	return rate, time.Duration(float64(left) / rate * float64(time.Second))
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func printMigrateReport(e *env, asJSON bool, rep migrate.Report) {
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		result := map[string]any{
			"key": rep.Key, "copy": rep.Dest, "entries": rep.Entries, "copied": rep.Copied, "kept": rep.Kept,
			"with_data": rep.WithData, "resumed": rep.Resumed, "sampled": rep.Sampled, "switched": rep.Switched, "already_done": rep.AlreadyDone,
		}
		if rep.Merge != "" {
			result["merge"], result["replaced"] = rep.Merge, rep.Replaced
		}
		if rep.Switched {
			result["verified"], result["refused"], result["fenced_ms"] = rep.Verified, rep.Refused, rep.Fenced.Milliseconds()
			result["closed_ms"], result["replayed"] = rep.Closed.Milliseconds(), rep.Replayed
		}
		_ = enc.Encode(map[string]any{"result": result})
		return
	}
	copied := fmt.Sprintf("%d copied", rep.Copied)
	if rep.WithData > 0 {
		copied += fmt.Sprintf(", %d of them with data", rep.WithData)
	}
	switch {
	case rep.AlreadyDone:
		fmt.Fprintf(e.stdout, "%s: already migrated (%d entries); nothing to do\n", rep.Dest, rep.Entries)
	case rep.Switched:
		fmt.Fprintf(e.stdout, "%s: %d entries migrated (%s, %d kept from an earlier run, %d copied again as writers changed them), all %d verified; switched in (fenced for %v, every write refused for the last %v, %d refused with ErrMigrating)\n",
			rep.Key, rep.Entries, copied, rep.Kept, rep.Replayed, rep.Verified, rep.Fenced.Round(time.Millisecond), rep.Closed.Round(time.Millisecond), rep.Refused)
	default:
		merged := fmt.Sprintf("%d kept as %s had them", rep.Kept, rep.Dest)
		switch rep.Merge {
		case migrate.MergeBest:
			merged += fmt.Sprintf(", %d replaced by %s's better entry; -merge best", rep.Replaced, rep.Key)
		case migrate.MergeNew:
			merged += "; -merge new"
		}
		verified := fmt.Sprintf("a random sample of %d verified", rep.Sampled)
		if int64(rep.Sampled) >= rep.Entries {
			verified = fmt.Sprintf("all %d verified", rep.Sampled) // the sample was the whole board
		}
		fmt.Fprintf(e.stdout, "%s: %d entries migrated to %s (%s, %s), %s; %s left as it was\n",
			rep.Key, rep.Entries, rep.Dest, copied, merged, verified, rep.Key)
	}
}
