package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/examples/generated/arena"
	seasonboard "github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
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
		if tc.code == 1 && stdout != "" {
			t.Errorf("decode %q refused but printed %q", tc.args, stdout)
		}
	}
}
