package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
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
		checkMigrateJSONDocumented(t, lines)
	}
	newL, _ := layout.Parse("new", []byte(newSrc))
	for id, pts := range map[string]uint64{"ann": 1048575, "bob": 3} {
		score, member, _ := newL.Encode(layout.Entry{ID: id, Keys: []uint64{pts, 0}})
		if got, err := c.ZScore(ctx, "board", member).Result(); err != nil || got != score {
			t.Errorf("%s: score %v (%v), want %v", id, got, err, score)
		}
	}
}

// checkMigrateJSONDocumented fails the test for every key of migrate -json's lines that the
// migrate section of docs/cli.md does not name.
func checkMigrateJSONDocumented(t *testing.T, lines []string) {
	t.Helper()
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	section = section[strings.Index(section, "## migrate"):strings.Index(section, "## serve")]
	for _, l := range lines {
		var line map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		if raw, ok := line["result"]; ok {
			line = nil
			if err := json.Unmarshal(raw, &line); err != nil {
				t.Fatal(err)
			}
		}
		for k := range line {
			if !strings.Contains(section, "`"+k+"`") && !strings.Contains(section, `"`+k+`"`) {
				t.Errorf("migrate -json writes %q (in %s), which docs/cli.md's migrate section does not document", k, l)
			}
		}
	}
}

// TestMigrateToKeyVerifiesAll: at -to-key a board smaller than the sample is verified whole,
// and the result says so (not "by sample").
func TestMigrateToKeyVerifiesAll(t *testing.T) {
	dir := t.TempDir()
	newSrc := strings.Replace(migrateOld, "bits: 20", "bits: 24", 1)
	for name, src := range map[string]string{"old.yaml": migrateOld, "new.yaml": newSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(migrateOld))
	for i := range 3 {
		score, member, _ := old.Encode(layout.Entry{ID: fmt.Sprint("p", i), Keys: []uint64{uint64(i)}})
		c.ZAdd(ctx, "small", redis.Z{Score: score, Member: member})
	}
	c.Set(ctx, rankgenrt.MetaKey("small"), old.Fingerprint, 0)
	var stdout, stderr bytes.Buffer
	args := []string{"migrate", "-from", "old.yaml", "-to", "new.yaml", "-redis", "redis://" + srv.Options().Addr, "-to-key", "copy", "small"}
	if code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, args); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if out := stdout.String(); !strings.Contains(out, "), all 3 verified; small left as it was") {
		t.Errorf("stdout %q: want all 3 verified", out)
	}
	stdout.Reset()
	if code := runIn(&env{stdout: &stdout, stderr: &stderr}, []string{"migrate", "-h"}); code != exitOK && code != exitUsage {
		t.Fatalf("migrate -h: exit %d", code)
	}
	if help := strings.Join(strings.Fields(stdout.String()+stderr.String()), " "); !strings.Contains(help, "every entry decoded with both layouts") {
		t.Errorf("migrate -h does not say that every entry is verified in place:\n%s", help)
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

// TestMigrateCommandData adds a data field to a board with data (the first keeps its names,
// the new one takes its -default) and prints the entries copied with data.
func TestMigrateCommandData(t *testing.T) {
	dir := t.TempDir()
	oldSrc := migrateOld + "data:\n  - name: Name\n    type: string\n    max_bytes: 8\n"
	newSrc := oldSrc + "  - name: Car\n    type: enum\n    values: [kart, formula]\n"
	for name, src := range map[string]string{"old.yaml": oldSrc, "new.yaml": newSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(oldSrc))
	newL, _ := layout.Parse("new", []byte(newSrc))
	for id, name := range map[string]string{"ann": "Ann", "bob": ""} {
		score, member, _ := old.Encode(layout.Entry{ID: id, Keys: []uint64{7}})
		c.ZAdd(ctx, "board", redis.Z{Score: score, Member: member})
		if name != "" {
			d, _ := old.EncodeData([]layout.DataValue{{Text: name}})
			c.HSet(ctx, rankgenrt.DataKey("board"), id, d, "", old.DataFingerprint)
		}
	}
	c.Set(ctx, rankgenrt.MetaKey("board"), old.Fingerprint, 0)

	var stdout, stderr bytes.Buffer
	args := []string{"migrate", "-from", "old.yaml", "-to", "new.yaml", "-redis", "redis://" + srv.Options().Addr, "-default", "Car=formula", "board"}
	if code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, args); code != exitOK || stderr.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	want := regexp.MustCompile(`^board: 2 entries migrated \(2 copied, 1 of them with data, 0 kept from an earlier run, 0 copied again as writers changed them\), all 2 verified; switched in \(fenced for [0-9.]+m?s, every write refused for the last [0-9.]+m?s, 0 refused with ErrMigrating\)\n$`)
	if out := stdout.String(); !want.MatchString(out) {
		t.Errorf("stdout %q, want it to match %s", out, want)
	}
	d, err := c.HGet(ctx, rankgenrt.DataKey("board"), "ann").Result()
	vals, derr := newL.DecodeData(d)
	if err != nil || derr != nil || vals[0].Text != "Ann" || newL.Data[1].Format(vals[1].Key) != "formula" {
		t.Errorf("ann's data %q (%v, %v) reads %+v; want Name Ann, Car formula", d, err, derr, vals)
	}
	if n := c.HLen(ctx, rankgenrt.DataKey("board")).Val(); n != 2 {
		t.Errorf("the data hash has %d fields, want ann's and the fingerprint", n)
	}
}

// TestMigrateCommandSeasons migrates a daily board with keep: 2 from its base key to KEY2:
// stderr names each season as it starts (the absent one as skipped), stdout reports each
// one, and the rerun finds them done.
func TestMigrateCommandSeasons(t *testing.T) {
	dir := t.TempDir()
	oldSrc := strings.Replace(migrateOld, "fields:", "season: {every: day, zone: UTC, keep: 2}\nfields:", 1)
	newSrc := strings.Replace(oldSrc, "bits: 20", "bits: 24", 1)
	for name, src := range map[string]string{"old.yaml": oldSrc, "new.yaml": newSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(oldSrc))
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	today := old.Season.Calendar.At(now)
	days := []int64{today.ID, today.ID - 86400, today.ID - 2*86400}
	for _, id := range []int64{days[0], days[2]} { // yesterday has no board
		key := fmt.Sprintf("daily:%d", id)
		for i := range 1500 {
			score, member, _ := old.Encode(layout.Entry{ID: fmt.Sprintf("p%04d", i), Keys: []uint64{uint64(i)}})
			c.ZAdd(ctx, key, redis.Z{Score: score, Member: member})
		}
		c.Set(ctx, rankgenrt.MetaKey(key), old.Fingerprint, 0)
	}
	args := []string{"migrate", "-from", "old.yaml", "-to", "new.yaml", "-redis", "redis://" + srv.Options().Addr, "daily", "-to-key", "copy"}
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, dir: dir, now: func() time.Time { return now }}
	if code := runIn(e, args); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	wantErr := fmt.Sprintf("migrate: season %d (1 of 3): 1,500 entries\nmigrate: season %d (2 of 3): absent, skipped\nmigrate: season %d (3 of 3): 1,500 entries\n", days[0], days[1], days[2])
	if stderr.String() != wantErr {
		t.Errorf("stderr:\n%s\nwant\n%s", stderr.String(), wantErr)
	}
	wantOut := fmt.Sprintf("daily:%[1]d: 1500 entries migrated to copy:%[1]d (1500 copied, 0 kept as copy:%[1]d had them, 0 replaced by daily:%[1]d's better entry; -merge best), a random sample of 100 verified; daily:%[1]d left as it was\n"+
		"daily:%[3]d: 1500 entries migrated to copy:%[3]d (1500 copied, 0 kept as copy:%[3]d had them, 0 replaced by daily:%[3]d's better entry; -merge best), a random sample of 100 verified; daily:%[3]d left as it was\n"+
		"daily:%[2]d: absent (season %[2]d); skipped\n", days[0], days[1], days[2])
	if stdout.String() != wantOut {
		t.Errorf("stdout:\n%s\nwant\n%s", stdout.String(), wantOut)
	}
	stdout.Reset()
	stderr.Reset()
	if code := runIn(e, args); code != exitOK || strings.Count(stdout.String(), "already migrated") != 2 {
		t.Errorf("rerun: exit %d, stdout %q, stderr %q; want both seasons already migrated", code, stdout.String(), stderr.String())
	}
}

// slipWriter passes a migration's -json lines to w and, at the first copy progress line, runs
// slip once: a write that bypasses the fence (other code, ZINCRBY on the raw board).
type slipWriter struct {
	w    io.Writer
	slip func()
	done bool
}

func (s *slipWriter) Write(b []byte) (int, error) {
	if !s.done && bytes.Contains(b, []byte(`"phase":"copy"`)) {
		s.done = true
		s.slip()
	}
	return s.w.Write(b)
}

// TestMigrateCommandSlipFails: a write that slips past the fence during the copy (another
// program's raw ZINCRBY of one copied entry of 300, which no fence stops) is found by the
// verification of the whole board: exit 1 naming the entry, nothing switched, the fence lifted.
func TestMigrateCommandSlipFails(t *testing.T) {
	dir := t.TempDir()
	newSrc := strings.Replace(migrateOld, "bits: 20", "bits: 24", 1)
	for name, src := range map[string]string{"old.yaml": migrateOld, "new.yaml": newSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(migrateOld))
	for i := range 300 { // more than the 100 a sample would check
		score, member, _ := old.Encode(layout.Entry{ID: fmt.Sprintf("p%d", i), Keys: []uint64{uint64(10 * i)}})
		c.ZAdd(ctx, "board", redis.Z{Score: score, Member: member})
	}
	c.Set(ctx, rankgenrt.MetaKey("board"), old.Fingerprint, 0)
	var stdout, stderr bytes.Buffer
	out := &slipWriter{w: &stdout, slip: func() { // one entry already copied changes
		copied := c.ZRange(ctx, rankgenrt.SideKey("board", "migrate:board"), 0, 0).Val()
		c.ZIncrBy(ctx, "board", 1, copied[0])
	}}
	args := []string{"migrate", "-from", "old.yaml", "-to", "new.yaml", "-redis", "redis://" + srv.Options().Addr, "-batch", "10", "-json", "board"}
	code := runIn(&env{stdout: out, stderr: &stderr, dir: dir}, args)
	if code != exitFail || !strings.Contains(stderr.String(), "the source changed during the migration: id \"p") {
		t.Fatalf("exit %d, stderr %q; want exit %d naming an entry that changed", code, stderr.String(), exitFail)
	}
	if fp := c.Get(ctx, rankgenrt.MetaKey("board")).Val(); fp != old.Fingerprint {
		t.Errorf("the board claims layout %s after a failed verification; want the old %s", fp, old.Fingerprint)
	}
	if n := c.Exists(ctx, rankgenrt.FenceKey("board")).Val(); n != 0 {
		t.Errorf("the fence stands after the run failed; want it lifted")
	}
}

// TestMigrateCommandPrevious: without -from, migrate takes the earlier schema and the mapping
// from the -to schema's previous: block.
func TestMigrateCommandPrevious(t *testing.T) {
	dir := t.TempDir()
	newSrc := strings.Replace(migrateOld, "bits: 20", "bits: 24", 1) + "  - name: Paid\n    type: bool\n    order: desc\nprevious:\n  schema: old.yaml\n  default: {Paid: true}\n"
	for name, src := range map[string]string{"old.yaml": migrateOld, "board.yaml": newSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	old, _ := layout.Parse("old", []byte(migrateOld))
	score, member, _ := old.Encode(layout.Entry{ID: "ann", Keys: []uint64{7}})
	c.ZAdd(ctx, "board", redis.Z{Score: score, Member: member})
	c.Set(ctx, rankgenrt.MetaKey("board"), old.Fingerprint, 0)

	var stdout, stderr bytes.Buffer
	args := []string{"migrate", "-to", "board.yaml", "-redis", "redis://" + srv.Options().Addr, "-json", "board"}
	if code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, args); code != exitOK || !strings.Contains(stdout.String(), `"switched":true`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	newL, _ := layout.Parse("new", []byte(newSrc))
	score, member, _ = newL.Encode(layout.Entry{ID: "ann", Keys: []uint64{7, 1}}) // Paid: the previous: default
	if got, err := c.ZScore(ctx, "board", member).Result(); err != nil || got != score {
		t.Errorf("ann: score %v (%v), want %v (Paid true, as previous: says)", got, err, score)
	}
}
