package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/examples/generated/arena"
	seasonboard "github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestDecodeGuard: decode -key reads the fingerprint a generated Board recorded on a real
// server (arena: the meta key; season: its index's field "") and refuses a schema of another
// layout, naming both fingerprints; -fingerprint does the same without a server.
func TestDecodeGuard(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	url := "redis://" + srv.Addr
	dir := t.TempDir()
	schema := func(name, from, old, new string) {
		src, err := os.ReadFile(filepath.Join("../../examples/schemas", from))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte(old)) {
			t.Fatalf("%s has no %q", from, old)
		}
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Replace(src, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema("arena.yaml", "arena.yaml", "", "")
	schema("arena30.yaml", "arena.yaml", "bits: 31", "bits: 30")
	schema("season.yaml", "season.yaml", "", "")
	schema("season40.yaml", "season.yaml", "bits: 41", "bits: 40")
	if _, err := arena.NewBoard(c, "arena:weekly").AddPoints(ctx, "alice", 1234); err != nil {
		t.Fatal(err)
	}
	if _, err := seasonboard.NewBoard(c, "season:s1").AddPoints(ctx, "bob", 77); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, rankgenrt.MetaKey("arena:hostile"), "\x1b[2J\r\nfake"+strings.Repeat("A", 3000), 0).Err(); err != nil {
		t.Fatal(err)
	}
	scoreOf := func(key, member string) string {
		s, err := c.ZScore(ctx, key, member).Result()
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatFloat(s, 'f', -1, 64)
	}
	decode := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, append([]string{"decode"}, args...))
		return code, stdout.String(), stderr.String()
	}
	arenaScore := scoreOf("arena:weekly", "alice")
	seasonMembers, err := c.ZRange(ctx, "season:s1", 0, -1).Result()
	if err != nil || len(seasonMembers) != 1 {
		t.Fatalf("season board: %v %v", seasonMembers, err)
	}
	seasonScore := scoreOf("season:s1", seasonMembers[0])
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     string   // contained
		stderrHave []string // contained, in order
	}{
		{[]string{"-schema", "arena.yaml", "-redis", url, "-key", "arena:weekly", arenaScore, "alice"}, 0, `"PlayerID": "alice", "Points": 1234`, nil},
		{[]string{"-schema", "arena30.yaml", "-redis", url, "-key", "arena:weekly", arenaScore, "alice"}, 1, "",
			[]string{"the board arena:weekly has layout " + arena.Fingerprint, "arena30.yaml builds layout ", "wrong numbers", "migrate"}},
		{[]string{"-schema", "season.yaml", "-redis", url, "-key", "season:s1", seasonScore, seasonMembers[0]}, 0, `"UserID": "bob", "Points": 77`, nil},
		{[]string{"-schema", "season40.yaml", "-redis", url, "-key", "season:s1", seasonScore, seasonMembers[0]}, 1, "",
			[]string{"the board season:s1 has layout " + seasonboard.Fingerprint, "season40.yaml builds layout "}},
		{[]string{"-schema", "arena.yaml", "-redis", url, "-key", "arena:nothing", arenaScore}, 1, "",
			[]string{"the board arena:nothing records no layout fingerprint in {arena:nothing}:meta"}},
		{[]string{"-schema", "arena.yaml", "-fingerprint", arena.Fingerprint, arenaScore}, 0, `"Points": 1234`, nil},
		{[]string{"-schema", "arena30.yaml", "-fingerprint", arena.Fingerprint, arenaScore}, 1, "",
			[]string{"the board (-fingerprint) has layout " + arena.Fingerprint + ", but arena30.yaml builds layout "}},
		{[]string{"-schema", "arena.yaml", "-fingerprint", arena.Fingerprint, "-key", "arena:weekly", arenaScore}, 2, "", []string{"give -fingerprint or -key, not both"}},
		{[]string{"-schema", "arena.yaml", "-redis", url, arenaScore}, 2, "", []string{"-redis goes with -key KEY"}},
		// An empty or malformed fingerprint is refused, not read as "no check".
		{[]string{"-schema", "arena.yaml", "-fingerprint", "", arenaScore}, 2, "", []string{`-fingerprint "" is not a layout fingerprint`}},
		{[]string{"-schema", "arena.yaml", "-fingerprint", "\x1b[2J" + strings.Repeat("f", 3000), arenaScore}, 2, "",
			[]string{`-fingerprint "\x1b[2Jfffff`, `… (3004 bytes) is not a layout fingerprint`}},
		{[]string{"-schema", "arena.yaml", "-fingerprint", strings.ToUpper(arena.Fingerprint), arenaScore}, 2, "", []string{"16 lower-case hex digits"}},
		{[]string{"-schema", "arena.yaml", "-redis", url, "-key", "", arenaScore}, 2, "", []string{"-key is empty"}},
		// Whatever a key holds where the fingerprint belongs is shown quoted and short.
		{[]string{"-schema", "arena.yaml", "-redis", url, "-key", "arena:hostile", arenaScore}, 1, "",
			[]string{`the board arena:hostile holds "\x1b[2J\r\nfake`, `… (3010 bytes) where its layout fingerprint belongs ({arena:hostile}:meta)`}},
	} {
		code, stdout, stderr := decode(tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) {
			t.Errorf("decode %q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout, stderr, tc.code, tc.stdout)
		}
		rest := stderr
		for _, want := range tc.stderrHave {
			i := strings.Index(rest, want)
			if i < 0 {
				t.Errorf("decode %q: stderr %q lacks %q", tc.args, stderr, want)
				break
			}
			rest = rest[i+len(want):]
		}
		if len(stderr) > 600 || strings.ContainsAny(stderr, "\x1b\r") || strings.Count(stderr, "\n") > 3 {
			t.Errorf("decode %q: stderr (%d bytes) is long or carries control bytes: %.700q", tc.args, len(stderr), stderr)
		}
		if tc.code != 0 && stdout != "" {
			t.Errorf("decode %q refused but printed %q", tc.args, stdout)
		}
	}
}

// TestDecodeKeyNamesSeason: decode -key of a season's board (base ":" season id, as
// Seasons.Board names it) decodes in that season, as -season would: the entry ends with the
// season and the instants of its offsets. A -season naming another season, or a key ending
// in an id that starts no season, is an error.
func TestDecodeKeyNamesSeason(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	url := "redis://" + srv.Addr
	ss := weekly.NewSeasons(c, "ladder")
	s := ss.At(time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC))
	board := ss.Board(s)
	if _, err := board.Set(ctx, weekly.Entry{PlayerID: "ann", Points: 5, ReachedAt: 10 * time.Hour, Paid: true}); err != nil {
		t.Fatal(err)
	}
	score, member, err := weekly.Entry{PlayerID: "ann", Points: 5, ReachedAt: 10 * time.Hour, Paid: true}.Encode()
	if err != nil {
		t.Fatal(err)
	}
	key := rankgenrt.SeasonKey("ladder", s)
	id := strconv.FormatInt(s.ID, 10)
	decode := func(args ...string) (int, string, string) {
		return seasonCLI("", append([]string{"decode", "-schema", "weekly.yaml", "-redis", url}, args...)...)
	}
	code, stdout, stderr := decode("-key", key, formatScore(score), member)
	want := `{"PlayerID": "ann", "Points": 5, "ReachedAt": "10h0m0s", "Paid": true, "season": ` + id + `, "at": {"ReachedAt": "2026-11-23T10:00:00+01:00"}}` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("decode -key %s: exit %d, %q%s; want %q", key, code, stdout, stderr, want)
	}
	if code, stdout, stderr = decode("-key", key, "-season", id, formatScore(score), member); code != 0 || stdout != want {
		t.Errorf("decode -key %s -season %s: exit %d, %q%s; want %q", key, id, code, stdout, stderr, want)
	}
	next := strconv.FormatInt(ss.At(s.End).ID, 10)
	code, stdout, stderr = decode("-key", key, "-season", next, formatScore(score), member)
	if wantErr := "-season names season " + next + ", but -key \"" + key + "\" is the board of season " + id; code != 1 || stdout != "" || !strings.Contains(stderr, wantErr) {
		t.Errorf("decode -key %s -season %s: exit %d, %q, stderr %q; want %q", key, next, code, stdout, stderr, wantErr)
	}
	code, stdout, stderr = decode("-key", "ladder:12345", formatScore(score), member)
	if code != 1 || stdout != "" || !strings.Contains(stderr, `-key "ladder:12345" ends in no season of weekly.yaml: 12345 starts no season`) {
		t.Errorf("decode -key ladder:12345: exit %d, %q, stderr %q; want the key's season refused", code, stdout, stderr)
	}
}
