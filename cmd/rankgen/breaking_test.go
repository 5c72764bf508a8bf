package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// gitIn returns a runner of git commands in dir (a test's own repository), failing the test
// on any error.
func gitIn(t *testing.T, dir string) func(args ...string) {
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestBreakingAgainstGit compares a schema with its committed version (-against git:REF), as a
// pull request's CI would with git:origin/main.
func TestBreakingAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitRun := gitIn(t, dir)
	src, err := os.ReadFile("../../examples/schemas/arena.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "boards")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(sub, "arena.yaml")
	if err := os.WriteFile(schema, src, 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun("init", "-q")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "arena")
	edited := strings.Replace(string(src), "  - name: Paid\n    type: bool\n    order: desc\n    update: [set]\n", "", 1)
	if err := os.WriteFile(schema, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	breakingIn := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, append([]string{"breaking"}, args...))
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := breakingIn("-against", "git:HEAD", "boards/arena.yaml")
	want := "HEAD:boards/arena.yaml:23:5: WIRE FIELD_COUNT: Paid is removed from position 3"
	if code != exitFail || !strings.Contains("\n"+stdout, "\n"+want) || !strings.Contains(stdout, "SOURCE FIELD_REMOVED") {
		t.Fatalf("breaking against git:HEAD = %d\n%s%s\nwant exit 1 and a line starting %q", code, stdout, stderr, want)
	}
	if code, _, _ := breakingIn("-against", "git:HEAD", "boards/../boards/arena.yaml"); code != exitFail {
		t.Errorf("a path with .. = exit %d", code)
	}
	code, _, stderr = breakingIn("-against", "git:no-such-ref", "boards/arena.yaml")
	if code != exitFail || !strings.Contains(stderr, "git show no-such-ref:./arena.yaml") {
		t.Errorf("unknown ref: exit %d, %s", code, stderr)
	}
	gitRun("commit", "-q", "-am", "drop Paid")
	if code, stdout, stderr := breakingIn("-against", "git:HEAD", "boards/arena.yaml"); code != exitOK || stdout != "" || stderr != "" {
		t.Errorf("against its own commit: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestBreakingNewSchema: a schema the -against revision lacks (a pull request adding a board)
// is reported as NEW, exit 0, in every format; an unknown revision is still an error.
func TestBreakingNewSchema(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := gitIn(t, dir)
	src, err := os.ReadFile("../../examples/schemas/arena.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("boards\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("add", "README")
	git("commit", "-q", "-m", "no boards yet")
	if err := os.MkdirAll(filepath.Join(dir, "board"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "board", "arena.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	for format, want := range map[string]string{
		"text":   "board/arena.yaml:1:1: NEW: board/arena.yaml is new: main has no such file",
		"json":   `"category": "NEW",`,
		"github": "::notice file=board/arena.yaml,line=1,col=1,title=NEW::board/arena.yaml is new",
	} {
		var stdout, stderr bytes.Buffer
		code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, []string{"breaking", "-against", "git:main", "-format", format, "board/arena.yaml"})
		if code != exitOK || !strings.Contains(stdout.String(), want) || stderr.Len() > 0 {
			t.Errorf("-format %s: exit %d\n%s%s\nwant exit 0 and %q", format, code, stdout.String(), stderr.String(), want)
		}
	}
	var stdout, stderr bytes.Buffer
	code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, []string{"breaking", "-against", "git:no-such-ref", "board/arena.yaml"})
	if code != exitFail || !strings.Contains(stderr.String(), "git show no-such-ref:./arena.yaml") {
		t.Errorf("unknown ref: exit %d, %s%s", code, stdout.String(), stderr.String())
	}
}

// TestBreakingMigrateCommandRuns: the rankgen migrate command breaking prints (as JSON) for a
// field inserted, one removed and one renamed, run as printed with the board's key, migrates
// a board on a real server.
func TestBreakingMigrateCommandRuns(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := gitIn(t, dir)
	oldSrc := migrateOld + "  - name: Paid\n    type: bool\n    order: desc\n  - name: Tier\n    type: enum\n    values: [bronze, gold]\n    order: desc\n"
	newSrc := migrateOld + "  - name: Level\n    type: uint\n    min: 1\n    max: 9\n    order: desc\n  - name: Premium\n    type: bool\n    order: desc\n"
	schema := filepath.Join(dir, "board.yaml")
	if err := os.WriteFile(schema, []byte(oldSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "board.yaml")
	git("commit", "-q", "-m", "old")
	if err := os.WriteFile(schema, []byte(newSrc), 0o644); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	if code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, []string{"breaking", "-against", "git:HEAD", "-format", "json", "board.yaml"}); code != exitFail {
		t.Fatalf("breaking: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	var findings []breakingFinding
	if err := json.Unmarshal(stdout.Bytes(), &findings); err != nil {
		t.Fatal(err)
	}
	var command string
	for _, f := range findings {
		if f.Category == "MIGRATE" {
			command = f.Command
		}
	}
	want := "rankgen migrate -from git:HEAD -to board.yaml -rename Paid=Premium -default Level=1 -drop Tier KEY"
	if command != want {
		t.Fatalf("the MIGRATE command is %q, want %q\n%s", command, want, stdout.String())
	}

	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(oldSrc))
	score, member, _ := old.Encode(layout.Entry{ID: "ann", Keys: []uint64{7, 1, 1}})
	c.ZAdd(ctx, "board", redis.Z{Score: score, Member: member})
	c.Set(ctx, rankgenrt.MetaKey("board"), old.Fingerprint, 0)
	args := strings.Fields(strings.Replace(command, " KEY", " board", 1))[1:]
	stdout.Reset()
	stderr.Reset()
	if code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, append(args, "-redis", "redis://"+srv.Options().Addr)); code != exitOK {
		t.Fatalf("%s: exit %d\n%s%s", command, code, stdout.String(), stderr.String())
	}
	new, _ := layout.Parse("new", []byte(newSrc))
	zs := c.ZRangeWithScores(ctx, "board", 0, -1).Val()
	if len(zs) != 1 {
		t.Fatalf("the board holds %v", zs)
	}
	e, err := new.Decode(zs[0].Score, zs[0].Member.(string))
	if err != nil || e.ID != "ann" || !slices.Equal(e.Keys, []uint64{7, 1, 1}) {
		t.Errorf("the migrated entry reads %+v, %v; want ann with Points 7, Level 1, Premium true", e, err)
	}
}
