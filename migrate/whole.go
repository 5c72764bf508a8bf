package migrate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// A board is more than one sorted set when it is periodic (one per season: the current one
// and the keep finished before it are live) or sharded (one per shard, in each season). RunBoard
// migrates all of them in one run, each as Run migrates one key — so each part resumes on its
// own, and a rerun of the whole board skips the parts already done.

// Part is one sorted set of a board: the board itself, one season's board of a periodic
// board, or one shard (of one season's board).
type Part struct {
	Key, ToKey string // the part's key, and its copy's key at Options.ToKey ("" in place)
	Season     int64  // the season's id; 0 when the board is not periodic
	Shard      int    // the shard's index, from 0, when Shards > 0
	Shards     int    // the board's shards; 0 when it is not sharded
}

// String names the part as messages do: "season 1764547200 shard 2 of 6", or the key of an
// unsharded board that is not periodic.
func (p Part) String() string {
	var s string
	if p.Season != 0 {
		s = fmt.Sprintf("season %d", p.Season)
	}
	if p.Shards > 0 {
		if s != "" {
			s += " "
		}
		s += fmt.Sprintf("shard %d of %d", p.Shard, p.Shards)
	}
	if s == "" {
		return p.Key
	}
	return s
}

// Parts lists the sorted sets of the board at key as of now, newest season first: for a
// periodic layout the current season's board and the keep finished before it (keep: the
// larger of the two layouts'), under key:ID; for shards > 0 each of those boards' shards
// (rankgenrt.ShardKeys). toKey ("" in place) is named the same way.
func Parts(p *Plan, key, toKey string, shards int, now time.Time) ([]Part, error) {
	boards := []Part{{Key: key, ToKey: toKey}}
	if s := p.Old.Season; s != nil {
		keep := s.Keep
		if p.New.Season != nil {
			keep = max(keep, p.New.Season.Keep)
		}
		boards = boards[:0]
		for season, i := s.Calendar.At(now), 0; i <= keep; season, i = s.Calendar.Prev(season), i+1 {
			b := Part{Key: rankgenrt.SeasonKey(key, season), Season: season.ID}
			if toKey != "" {
				b.ToKey = rankgenrt.SeasonKey(toKey, season)
			}
			boards = append(boards, b)
		}
	}
	if shards == 0 {
		return boards, nil
	}
	var parts []Part
	for _, b := range boards {
		keys, err := rankgenrt.ShardKeys(b.Key, shards)
		if err != nil {
			return nil, err
		}
		to := make([]string, shards)
		if b.ToKey != "" {
			if to, err = rankgenrt.ShardKeys(b.ToKey, shards); err != nil {
				return nil, err
			}
		}
		for i := range keys {
			parts = append(parts, Part{Key: keys[i], ToKey: to[i], Season: b.Season, Shard: i, Shards: shards})
		}
	}
	return parts, nil
}

// BoardReport says what RunBoard did: a Report for each part it migrated, in the order of
// Parts, and the parts it skipped because they do not exist (a season with no board, a
// shard no id hashed to).
type BoardReport struct {
	Parts  []Report
	Absent []Part
}

// RunBoard migrates every part of the board o.Key (see Parts; o.Shards, o.Now) that exists,
// each as Run does (o.ToKey names the copy's board the same way): the seasons one after the
// other and, of a sharded board, each season's shards together, all switching once all have
// copied (gate.go). It stops at the first part that fails, with an error naming it; a rerun
// resumes that part and finds the parts done before it done.
func RunBoard(ctx context.Context, c redis.UniversalClient, p *Plan, o Options) (BoardReport, error) {
	var rep BoardReport
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	parts, err := Parts(p, o.Key, o.ToKey, o.Shards, now)
	if err != nil {
		return rep, err
	}
	exists, err := partsExist(ctx, c, parts)
	if err != nil {
		return rep, err
	}
	var group []int // the parts of one season's board that exist: its shards, or the board itself
	for i, part := range parts {
		at := Progress{Part: part, Index: i + 1, Parts: len(parts)}
		if !exists[i] {
			rep.Absent = append(rep.Absent, part)
			at.Phase = "absent"
			o.report(at)
		} else {
			if len(parts) > 1 { // announce the part, with its size
				if at.Total, err = c.ZCard(ctx, part.Key).Result(); err != nil {
					return rep, err
				}
				at.Phase = "board"
				o.report(at)
			}
			group = append(group, i)
		}
		if i+1 < len(parts) && parts[i+1].Season == part.Season && parts[i+1].Shard > part.Shard {
			continue // more shards of this season's board
		}
		reports, err := runTogether(ctx, c, p, o, parts, group)
		rep.Parts = append(rep.Parts, reports...)
		if err != nil {
			return rep, err
		}
		group = group[:0]
	}
	return rep, nil
}

// runTogether migrates the parts of one season's board (indexes of parts): one alone, as Run
// does, or the shards of a sharded board at once, through one gate, so that they switch
// together. It returns the reports of the parts that succeeded, in order, and the first error
// of one that failed, naming it.
func runTogether(ctx context.Context, c redis.UniversalClient, p *Plan, o Options, parts []Part, group []int) ([]Report, error) {
	reports := make([]Report, len(group))
	errs := make([]error, len(group))
	var g *gate
	if len(group) > 1 && o.ToKey == "" {
		g = newGate(len(group))
	}
	var wg sync.WaitGroup
	for k, i := range group {
		part := parts[i]
		po := o
		po.Key, po.ToKey, po.gate, po.gatePart = part.Key, part.ToKey, g, k
		po.Progress = func(pr Progress) {
			pr.Part, pr.Index, pr.Parts = part, i+1, len(parts)
			o.report(pr)
		}
		run := func() {
			r, err := Run(ctx, c, p, po)
			r.Part = part
			if err != nil && len(parts) > 1 {
				err = fmt.Errorf("%s (%d of %d): %w", part, i+1, len(parts), err)
			}
			switch {
			case g != nil && err != nil:
				g.failPart()
			case g != nil:
				g.arrive(k) // a part that ended before the gate (already switched) holds no other back
			}
			reports[k], errs[k] = r, err
		}
		if g == nil {
			if run(); errs[k] != nil {
				return reports[:k], errs[k]
			}
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); run() }()
	}
	wg.Wait()
	var out []Report
	var first error
	for k := range group {
		switch {
		case errs[k] == nil:
			out = append(out, reports[k])
		case first == nil || errors.Is(first, errGateFailed):
			first = errs[k] // the shard that failed, rather than one that stopped for it
		}
	}
	return out, first
}

func (o Options) report(p Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// partsExist reports, for each part, whether its board has any key (its sorted set, or the
// side keys of a board whose entries were all removed), in one pipeline.
func partsExist(ctx context.Context, c redis.UniversalClient, parts []Part) ([]bool, error) {
	cmds := make([]*redis.IntCmd, len(parts))
	_, err := c.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		for i, part := range parts {
			k := part.Key // its side keys share its hash slot
			cmds[i] = pipe.Exists(ctx, k, rankgenrt.IndexKey(k), rankgenrt.MetaKey(k), rankgenrt.DataKey(k))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	exists := make([]bool, len(parts))
	for i, cmd := range cmds {
		exists[i] = cmd.Val() > 0
	}
	return exists, nil
}
