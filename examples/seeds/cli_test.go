package seeds_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// buildCLI builds cmd/rankgen into the test's temporary directory and returns its path.
func buildCLI(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rankgen")
	goTool, err := exec.LookPath("go") // go test puts its own toolchain first on PATH
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, "build", "-o", path, "github.com/rankgen/rankgen/cmd/rankgen").CombinedOutput()
	if err != nil {
		t.Fatalf("go build cmd/rankgen: %v\n%s", err, out)
	}
	return path
}

func runCLI(t testing.TB, cli, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// The vectors through "rankgen encode" and "rankgen decode": JSON entries in, pairs out
// whose scores parse to the exact doubles, and back.
// TestCLI builds cmd/rankgen once and runs the seeds through it.
func TestCLI(t *testing.T) {
	cli := buildCLI(t)
	t.Run("SeedVectors", func(t *testing.T) { testCLISeedVectors(t, cli) })
	t.Run("SeedTraps", func(t *testing.T) { testCLISeedTraps(t, cli) })
	t.Run("Reindex", func(t *testing.T) { testCLIReindex(t, cli) })
}

// "rankgen reindex" adopts a board seed 000 wrote; it refuses (exit 1, naming the id) while an
// id has two members, and a rerun reports everything already right.
func testCLIReindex(t *testing.T, cli string) {
	c := redistest.Client(t)
	ctx := context.Background()
	opts := c.Options()
	url := fmt.Sprintf("redis://%s/%d", opts.Addr, opts.DB)
	key := redistest.Key(t, "rank:zset")
	written := seed000Board(t, c, key, 50)
	s, m, _ := seed000EncodeEntry(1, 1721059999, "user:3")
	c.ZAdd(ctx, key, redis.Z{Score: s, Member: m})

	schema := "../schemas/seed000_member.yaml"
	_, errOut, code := runCLI(t, cli, "", "reindex", "-schema", schema, "-redis", url, key)
	if code != 1 || !strings.Contains(errOut, `id "user:3" has 2 members`) || !strings.Contains(errOut, "nothing written") {
		t.Fatalf("reindex with a duplicate: exit %d, %q", code, errOut)
	}
	c.ZRem(ctx, key, m)
	out, errOut, code := runCLI(t, cli, "", "reindex", "-schema", schema, "-redis", url, key)
	if code != 0 || !strings.Contains(out, "50 members") || !strings.Contains(out, "50 written, 0 already right") {
		t.Fatalf("reindex: exit %d, %q %q", code, out, errOut)
	}
	for id, m := range written {
		if got := c.HGet(ctx, rankgenrt.IndexKey(key), id).Val(); got != m {
			t.Fatalf("index[%q] = %q, want %q", id, got, m)
		}
	}
	out, _, code = runCLI(t, cli, "", "reindex", "-schema", schema, "-redis", url, key)
	if code != 0 || !strings.Contains(out, "0 written, 50 already right, 0 removed") {
		t.Fatalf("reindex rerun: exit %d, %q", code, out)
	}
	// A layout without a member prefix keeps no index.
	_, errOut, code = runCLI(t, cli, "", "reindex", "-schema", "../schemas/seed001_zranking.yaml", "-redis", url, key)
	if code != 0 || !strings.Contains(errOut, "nothing to do") {
		t.Fatalf("reindex of a bare-id layout: exit %d, %q", code, errOut)
	}
}

func testCLISeedVectors(t *testing.T, cli string) {
	for _, c := range []struct {
		schema, entry string
		score         float64
		member        string
	}{
		{"seed002_binary", `{"Player":"A","Points":100,"Paid":true,"ReachedAt":"2019-10-23T08:23:41Z"}`, 108201125491, "A"},
		{"seed002_binary", `{"Player":"E","Points":200,"Paid":true,"ReachedAt":"2019-10-23T05:53:21Z"}`, 215575316911, "E"},
		{"seed002_decimal", `{"Player":"A","Points":100,"Paid":true,"ReachedAt":"2019-10-23T08:23:41Z"}`, 100.1290072179, "A"},
		{"seed002_decimal", `{"Player":"B","Points":200,"Paid":false,"ReachedAt":"2019-10-23T08:23:41Z"}`, 200.0290072179, "B"},
		{"seed002_keysort", `{"Player":"C","Points":200,"Paid":true,"ReachedAt":"2019-10-23T08:23:41.259Z"}`, 200, "1-8428180978740-C"},
		{"seed000_member", `{"UserID":"user123","Primary":9876543210,"ReachedAt":"2024-07-15T16:00:00Z"}`, 9876543210, "1434700799:user123"},
		{"seed001_zranking", `{"UID":"u1","Value":100,"UpdatedAt":"2026-05-10T20:34:15Z"}`, 100.012345, "u1"},
		{"seed001_zranking", `{"UID":"u2","Value":1000000,"UpdatedAt":"2026-05-05T05:06:40Z"}`, 1000000.5, "u2"},
		{"seed003_scaling", `{"Member":"m","Raw":100,"At":"2023-11-14T22:13:20Z"}`, 1000000447483647, "m"},
		{"seed003_scaling", `{"Member":"m","Raw":899,"At":"2023-11-14T22:13:20Z"}`, 8990000447483647, "m"},
		{"seed004_shift", `{"UserID":"A","Points":100,"At":"1970-01-01T00:16:40Z"}`, 431644212247, "A"},
		{"seed004_shift", `{"UserID":"C","Points":101,"At":"1970-01-01T00:50:00Z"}`, 435939177543, "C"},
	} {
		schema := filepath.Join("..", "schemas", c.schema+".yaml")
		out, errOut, code := runCLI(t, cli, c.entry+"\n", "encode", "-schema", schema)
		if code != 0 {
			t.Fatalf("%s encode %s: exit %d: %s", c.schema, c.entry, code, errOut)
		}
		var pair struct {
			Score  json.Number `json:"score"`
			Member string      `json:"member"`
		}
		if err := json.Unmarshal([]byte(out), &pair); err != nil {
			t.Fatalf("%s encode output %q: %v", c.schema, out, err)
		}
		score, err := strconv.ParseFloat(pair.Score.String(), 64)
		if err != nil || score != c.score || pair.Member != c.member {
			t.Errorf("%s encode %s = %s; want score %v member %q", c.schema, c.entry, out, c.score, c.member)
		}
		out, errOut, code = runCLI(t, cli, "", "decode", "-schema", schema, pair.Score.String(), pair.Member)
		if code != 0 {
			t.Fatalf("%s decode: exit %d: %s", c.schema, code, errOut)
		}
		if !sameJSON(t, out, c.entry) {
			t.Errorf("%s decode %s %s = %s; want %s", c.schema, pair.Score, pair.Member, out, c.entry)
		}
	}
}

// The traps through the CLI: out-of-range times and too-wide values are refused (exit 1, the
// field named), and the refused seed 004 layout reports its numbers.
func testCLISeedTraps(t *testing.T, cli string) {
	_, errOut, code := runCLI(t, cli, `{"UserID":"u","Points":100,"At":"2038-01-19T03:14:08Z"}`+"\n", "encode", "-schema", "../schemas/seed004_shift.yaml")
	if code != 1 || !strings.Contains(errOut, "At") || !strings.Contains(errOut, "out of range") {
		t.Errorf("encode after 2038: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, cli, "", "decode", "-schema", "../schemas/seed000_member.yaml", "5", "12:user123")
	if code != 1 || !strings.Contains(errOut, "bad member") {
		t.Errorf("decode short prefix: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, cli, "", "explain", "testdata/seed004_as_meant.yaml")
	if code != 1 || !strings.Contains(errOut, "the score needs 64.0 bits") || !strings.Contains(errOut, "e.g. Points to bits: 21") {
		t.Errorf("explain seed004_as_meant: exit %d, %q", code, errOut)
	}
}

func sameJSON(t testing.TB, a, b string) bool {
	t.Helper()
	var x, y map[string]any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}
