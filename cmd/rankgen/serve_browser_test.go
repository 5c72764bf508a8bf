package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

// hostileStart is how hostileMember starts: markup, a terminal escape, CR/LF and invalid UTF-8.
const hostileStart = "\x1b[31m<script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">\r\n\xff\xfe"

// hostileMember is a member no laps entry can have: 3,000 bytes, longer than any.
var hostileMember = hostileStart + strings.Repeat("A", 3000-len(hostileStart))

// browser starts headless Chromium (Debian's chromium, as root without its sandbox) for the
// test. Without chromium the test fails under CI=true and is skipped elsewhere.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		msg := "chromium is not installed, so rankgen serve's page cannot be tested in a browser: apt-get install chromium (scripts/test.sh does)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipped outside CI")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.WindowSize(1280, 1000))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// fillLaps writes a laps board through the generated package (fingerprint, data and all), a
// driver and a name made of markup, and one raw member laps cannot have written.
func fillLaps(t *testing.T, c *redis.Client, key string) {
	t.Helper()
	ctx := context.Background()
	b := laps.NewBoard(c, key)
	entries := []laps.Entry{
		{Driver: "ann", BestLap: 61250, Laps: 40, Data: laps.Data{Name: "Ann", Car: laps.CarFormula}},
		{Driver: "bo", BestLap: 61250, Laps: 41, Data: laps.Data{Name: "Bo Ek", Car: laps.CarKart}},
		{Driver: "cy", BestLap: 70001, Laps: 3},
		{Driver: "<script>window.pwned=3</script>", BestLap: 65000, Laps: 7,
			Data: laps.Data{Name: "<img src=x onerror=pwned=4>\x1bX", Car: laps.CarRally}},
		{Driver: "dee\r\nx", BestLap: 16777215, Laps: 0},
	}
	if _, err := b.SetMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	if err := c.ZAdd(ctx, key, redis.Z{Score: 1e6, Member: hostileMember}).Err(); err != nil {
		t.Fatal(err)
	}
	// A name that is not UTF-8, which Set refuses and another writer may still have stored:
	// the X of the markup name becomes the byte 0xff in the data hash.
	dkey, driver := rankgenrt.DataKey(key), entries[3].Driver
	stored, err := c.HGet(ctx, dkey, driver).Result()
	if err != nil || !strings.Contains(stored, "\x1bX") {
		t.Fatalf("data of %q: %q, %v", driver, stored, err)
	}
	if err := c.HSet(ctx, dkey, driver, strings.Replace(stored, "\x1bX", "\x1b\xff", 1)).Err(); err != nil {
		t.Fatal(err)
	}
}

// expectedCells is what the page must show for one stored pair: Decode's entry, every field
// formatted, string values quoted; or the quoted raw member and the reason.
func expectedCells(t *testing.T, l *layout.Layout, c *redis.Client, key string, z redis.Z) map[string]string {
	member := z.Member.(string)
	want := map[string]string{"score": formatScore(z.Score), "member": quote.Short(member)}
	e, err := l.Decode(z.Score, member)
	if err != nil || len(member) > l.MaxMemberBytes() {
		want["error"] = "bad member " + quote.Short(member) // the start of the reason
		return want
	}
	want["id"] = quote.Short(e.ID)
	for i, f := range l.Fields {
		want[f.Name] = f.Format(e.Keys[i])
	}
	data, err := c.HGet(context.Background(), "{"+key+"}:data", e.ID).Result()
	if err != nil {
		t.Fatalf("data of %q: %v", e.ID, err)
	}
	vals, err := l.DecodeData(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range l.Data {
		if f.Kind == layout.String {
			want[f.Name] = quote.Short(vals[i].Text)
		} else {
			want[f.Name] = f.Format(vals[i].Key)
		}
	}
	return want
}

// tableJS reads the page's entry table: one object per row, data-field → the cell's text.
const tableJS = `Array.from(document.querySelectorAll("#rows tbody tr")).map(tr =>
	Object.fromEntries(Array.from(tr.cells).map(td => [td.dataset.field, td.textContent])))`

// TestServeBrowser loads rankgen serve's page for a filled board in headless Chromium: every
// cell shown equals the interpreted codec's Decode of the stored pair, the hostile entries
// render as quoted, cut text with no script run, the page refreshes itself, and nothing it
// does writes to Redis. RANKGEN_SERVE_SCREENSHOT=FILE also saves a screenshot of the page.
func TestServeBrowser(t *testing.T) {
	ctx := browser(t)
	srv := redistest.Start(t)
	admin := srv.Client(t)
	key := "laps:live"
	fillLaps(t, admin, key)
	l := loadExample(t, "laps.yaml")

	reader := srv.Client(t)
	rec := recordCommands(reader)
	s, err := newServer(l, key, serveOptions{rows: 25, refresh: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s.board.c = reader
	web := httptest.NewServer(s.handler())
	defer web.Close()

	if err := chromedp.Do(ctx, chromedp.Navigate(web.URL+"/?view=top"), chromedp.WaitVisible("#rows")); err != nil {
		t.Fatal(err)
	}
	rows := evaluate[[]map[string]string](t, ctx, tableJS)
	pwned := evaluate[string](t, ctx, `String(typeof window.pwned)`)
	injected := evaluate[int](t, ctx, `document.querySelectorAll("#live script, #live img, #live [onerror]").length`)
	stored, err := admin.ZRevRangeWithScores(context.Background(), key, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(stored) {
		t.Fatalf("the page shows %d rows, the board holds %d: %v", len(rows), len(stored), rows)
	}
	for i, z := range stored {
		want := expectedCells(t, l, admin, key, z)
		got := rows[i]
		if got["rank"] != fmt.Sprint(i+1) {
			t.Errorf("row %d: rank %q", i, got["rank"])
		}
		for k, v := range want {
			if k == "error" {
				if !strings.HasPrefix(got[k], v) {
					t.Errorf("row %d: error cell %q, want it to start %q", i, got[k], v)
				}
				continue
			}
			if got[k] != v {
				t.Errorf("row %d: %s shows %q, Decode gives %q", i, k, got[k], v)
			}
		}
	}
	if pwned != "undefined" {
		t.Errorf("a hostile entry ran script: typeof pwned = %s", pwned)
	}
	if injected != 0 {
		t.Errorf("a hostile entry became %d element(s) of the page", injected)
	}
	for i, r := range rows {
		for k, v := range r {
			if len(v) > 200 {
				t.Errorf("row %d: %s is shown %d bytes long, not cut: %.80q", i, k, len(v), v)
			}
		}
	}

	// Live refresh: a new entry shows up without a reload.
	if _, err := laps.NewBoard(admin, key).Set(context.Background(), laps.Entry{Driver: "eve", BestLap: 1, Laps: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#entries").textContent === "7"`, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the page did not refresh to 7 entries: %v", err)
	}
	rows = evaluate[[]map[string]string](t, ctx, tableJS)
	if rows[0]["id"] != `"eve"` {
		t.Errorf("after the refresh the first row is %v, want eve's", rows[0])
	}
	if file := os.Getenv("RANKGEN_SERVE_SCREENSHOT"); file != "" {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec.checkReadOnly(t, admin)
}

// evaluate runs a script in the page and returns its value.
func evaluate[T any](t *testing.T, ctx context.Context, script string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](script))
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	return v
}
