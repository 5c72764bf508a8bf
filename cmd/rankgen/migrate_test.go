package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/redistest"
	"github.com/rankgen/rankgen/migrate"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

const migrateOld = `package: mig
id:
  name: ID
  max_bytes: 16
fields:
  - name: Points
    type: uint
    bits: 20
    order: desc
`

// TestMigrateCommand migrates a board whose old schema is the committed version of the new
// one (-from git:HEAD), with -json, then reruns it: the second run has nothing to do.
func TestMigrateCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	schema := filepath.Join(dir, "board.yaml")
	gitRun := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(src string) {
		if err := os.WriteFile(schema, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(migrateOld)
	gitRun("init", "-q")
	gitRun("add", "board.yaml")
	gitRun("commit", "-q", "-m", "old")
	newSrc := strings.Replace(migrateOld, "bits: 20", "bits: 24", 1) + "  - name: Paid\n    type: bool\n    order: desc\n"
	write(newSrc)

	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(migrateOld))
	for id, pts := range map[string]uint64{"ann": 1048575, "bob": 3} {
		score, member, _ := old.Encode(layout.Entry{ID: id, Keys: []uint64{pts}})
		c.ZAdd(ctx, "board", redis.Z{Score: score, Member: member})
	}
	c.Set(ctx, rankgenrt.MetaKey("board"), old.Fingerprint, 0)

	url := "redis://" + srv.Options().Addr
	args := []string{"migrate", "-from", "git:HEAD", "-to", "board.yaml", "-redis", url, "-json", "board", "-default", "Paid=false"}
	for run, want := range []string{`"switched":true`, `"already_done":true`} {
		var stdout, stderr bytes.Buffer
		code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, args)
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		last := lines[len(lines)-1]
		if code != exitOK || !strings.Contains(last, want) || stderr.Len() > 0 {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q; want %s", run, code, stdout.String(), stderr.String(), want)
		}
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				t.Errorf("run %d: stdout line %q is not JSON", run, l)
			}
		}
		if run == 0 && (len(lines) < 3 || !strings.Contains(lines[0], `"phase":"check"`)) {
			t.Errorf("run 0: want check and copy progress lines before the result, got %q", lines)
		}
	}
	newL, _ := layout.Parse("new", []byte(newSrc))
	for id, pts := range map[string]uint64{"ann": 1048575, "bob": 3} {
		score, member, _ := newL.Encode(layout.Entry{ID: id, Keys: []uint64{pts, 0}})
		if got, err := c.ZScore(ctx, "board", member).Result(); err != nil || got != score {
			t.Errorf("%s: score %v (%v), want %v", id, got, err, score)
		}
	}
}

func TestTerminalProgress(t *testing.T) {
	var w bytes.Buffer
	show := terminalProgress(&w)
	show(migrate.Progress{Phase: "copy", Done: 2000, Total: 10000, Elapsed: 2 * time.Second})
	show(migrate.Progress{Phase: "copy", Done: 2500, Total: 10000, Elapsed: 2100 * time.Millisecond}) // within 200 ms: not shown
	show(migrate.Progress{Phase: "copy", Done: 10000, Total: 10000, Elapsed: 5 * time.Second})
	want := "\r\033[Kmigrate: copy 2000/10000 entries, 1000/s, ETA 8s" + "\r\033[Kmigrate: copy 10000/10000 entries, 2000/s, ETA 0s\n"
	if w.String() != want {
		t.Errorf("terminal progress %q, want %q", w.String(), want)
	}
}
