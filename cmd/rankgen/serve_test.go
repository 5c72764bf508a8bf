package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/weekly"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/exampleboards"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// commandLog records the commands a client sends (a subcommand as "memory|usage").
type commandLog struct {
	mu    sync.Mutex
	names map[string]bool
}

func recordCommands(c *redis.Client) *commandLog {
	log := &commandLog{names: map[string]bool{}}
	c.AddHook(log)
	return log
}

func (g *commandLog) add(cmd redis.Cmder) {
	name := strings.ToLower(cmd.Name())
	if args := cmd.Args(); (name == "memory" || name == "client") && len(args) > 1 {
		name += "|" + strings.ToLower(args[1].(string))
	}
	g.mu.Lock()
	g.names[name] = true
	g.mu.Unlock()
}

func (g *commandLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (g *commandLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		g.add(cmd)
		return next(ctx, cmd)
	}
}

func (g *commandLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			g.add(cmd)
		}
		return next(ctx, cmds)
	}
}

// connectionCommand reports whether name is one go-redis sends as it connects (HELLO, CLIENT
// SETINFO, …): they touch no key, and Redis flags them neither readonly nor write.
func connectionCommand(name string) bool {
	return slices.Contains([]string{"hello", "auth", "select", "ping"}, name) || strings.HasPrefix(name, "client|")
}

// checkReadOnly fails the test unless every command recorded is one Redis's command table
// (COMMAND INFO) flags readonly, or a connection command it does not flag write.
func (g *commandLog) checkReadOnly(t *testing.T, admin *redis.Client) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.names["zrevrange"] {
		t.Fatalf("the commands recorded %v include no ZREVRANGE: the hook saw nothing", g.names)
	}
	for name := range g.names {
		v, err := admin.Do(context.Background(), "COMMAND", "INFO", name).Slice()
		if err != nil || len(v) != 1 {
			t.Fatalf("COMMAND INFO %s: %v %v", name, v, err)
		}
		info, _ := v[0].([]any)
		if info == nil && connectionCommand(name) {
			continue // one this server does not know (CLIENT SETINFO before 7.2): it refused it
		}
		if len(info) < 3 {
			t.Fatalf("COMMAND INFO %s: %v", name, v)
		}
		flags, _ := info[2].([]any)
		if slices.Contains(flags, any("write")) || !slices.Contains(flags, any("readonly")) && !connectionCommand(name) {
			t.Errorf("rankgen serve sent %s, which Redis does not flag readonly (flags %v)", name, flags)
		}
	}
}

// newTestServer serves key with l on c, as rankgen serve does.
func newTestServer(t *testing.T, l *layout.Layout, c *redis.Client, key string, o serveOptions) *httptest.Server {
	t.Helper()
	if o.rows == 0 {
		o.rows = 25
	}
	s, err := newServer(l, key, o)
	if err != nil {
		t.Fatal(err)
	}
	s.board.c = c
	web := httptest.NewServer(s.handler())
	t.Cleanup(web.Close)
	return web
}

// getJSON reads /board.json with the query given.
func getJSON(t *testing.T, web *httptest.Server, query string) (boardJSON, int) {
	t.Helper()
	res, err := http.Get(web.URL + "/board.json?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m boardJSON
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m, res.StatusCode
}

// TestServeGuards: only GET, only to a loopback Host (unless -allow-remote), and every answer
// carries the Content-Security-Policy that runs no inline script.
func TestServeGuards(t *testing.T) {
	srv := redistest.Start(t)
	web := newTestServer(t, loadExample(t, "laps.yaml"), srv.Client(t), "laps:none", serveOptions{})
	res, err := http.Post(web.URL+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", web.URL+"/", nil)
	req.Host = "attacker.example:8080" // a rebound DNS name
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("Host attacker.example: status %d, want 403", res.StatusCode)
	}
	res, err = http.Get(web.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("GET /: status %d, Content-Security-Policy %q", res.StatusCode, res.Header.Get("Content-Security-Policy"))
	}
}

// TestServeListen: -addr must be loopback unless -allow-remote says otherwise.
func TestServeListen(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:8080": true, "localhost:0": true, "[::1]:80": true, "127.3.4.5:1": true,
		":8080": false, "0.0.0.0:8080": false, "192.168.1.2:8080": false, "example.com:80": false, "8080": false} {
		if got := checkListen(addr, false) == ""; got != ok {
			t.Errorf("checkListen(%q) allowed %v, want %v", addr, got, ok)
		}
	}
	if msg := checkListen("0.0.0.0:8080", true); msg != "" {
		t.Errorf("-allow-remote still refuses 0.0.0.0:8080: %s", msg)
	}
}

// TestServeSeasonsAndShards: a periodic board's picker lists the current season and the kept
// ones that exist; a sharded board reads one shard or all merged, in rank order; the id
// search finds an entry on its shard.
func TestServeSeasonsAndShards(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()

	wl := loadExample(t, "weekly.yaml")
	cal := wl.Season.Calendar
	now := time.Now()
	current := cal.At(now)
	old := cal.Prev(cal.Prev(current))
	for _, s := range []rankgenrt.Season{current, old} {
		b := weekly.NewBoard(c, rankgenrt.SeasonKey("wk", s), s)
		if _, err := b.Set(ctx, weekly.Entry{PlayerID: "p" + itoa(s.ID), Points: 5}); err != nil {
			t.Fatal(err)
		}
	}
	web := newTestServer(t, wl, c, "wk", serveOptions{})
	m, _ := getJSON(t, web, "")
	var ids []int64
	for _, o := range m.Seasons {
		ids = append(ids, o.ID)
	}
	if !slices.Equal(ids, []int64{current.ID, old.ID}) || m.Season == nil || *m.Season != current.ID {
		t.Errorf("seasons %v (shown %v), want %d then %d, showing the current one", ids, m.Season, current.ID, old.ID)
	}
	if m, _ = getJSON(t, web, "season="+itoa(old.ID)); m.Entries != 1 || len(m.Rows) != 1 || m.Error != "" {
		t.Errorf("season %d: %d entries, rows %v, error %q", old.ID, m.Entries, m.Rows, m.Error)
	}
	if m, code := getJSON(t, web, "season=5"); code != http.StatusBadRequest || !strings.Contains(m.Error, "starts no season") {
		t.Errorf("season=5: status %d, error %q", code, m.Error)
	}

	ll := loadExample(t, "laps.yaml")
	sb, err := laps.NewShardedBoard(c, "sh", 3)
	if err != nil {
		t.Fatal(err)
	}
	var entries []laps.Entry
	for i := range 12 {
		entries = append(entries, laps.Entry{Driver: "d" + itoa(int64(i)), BestLap: uint32(1000 + i*7%5), Laps: uint32(i)})
	}
	if _, err := sb.SetMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	want, err := sb.Top(ctx, 12)
	if err != nil {
		t.Fatal(err)
	}
	web = newTestServer(t, ll, c, "sh", serveOptions{shards: 3, rows: 5})
	m, _ = getJSON(t, web, "view=page&page=2")
	if m.Entries != 12 || len(m.Keys) != 9 || len(m.Rows) != 5 {
		t.Fatalf("sharded: %d entries, %d keys, %d rows; error %q", m.Entries, len(m.Keys), len(m.Rows), m.Error)
	}
	for i, r := range m.Rows {
		if w := want[5+i]; entryOf(t, r)["Driver"] != w.Driver || r.Rank != int64(6+i) {
			t.Errorf("page 2 row %d: %s at rank %d, ShardedBoard.Top has %s at %d", i, r.Entry, r.Rank, w.Driver, 6+i)
		}
	}
	for _, k := range m.Keys {
		if k.Entries != nil && !k.FingerprintOK {
			t.Errorf("shard %s records %q, want the schema's fingerprint", k.Key, k.Fingerprint)
		}
	}
	m, _ = getJSON(t, web, "view=id&id=d7")
	shard := rankgenrt.ShardOf("d7", 3)
	if len(m.Rows) != 1 || !m.Rows[0].Found || m.Rows[0].Shard == nil || *m.Rows[0].Shard != shard {
		t.Errorf("id d7: rows %+v, want it alone, found on shard %d", m.Rows, shard)
	}
}

// TestServeWrongLayout: a board that records another layout's fingerprint is shown with a
// warning and no decoded value.
func TestServeWrongLayout(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	if _, err := laps.NewBoard(c, "lp").Set(context.Background(), laps.Entry{Driver: "ann", BestLap: 5, Laps: 1}); err != nil {
		t.Fatal(err)
	}
	web := newTestServer(t, loadExample(t, "arena.yaml"), c, "lp", serveOptions{})
	m, _ := getJSON(t, web, "")
	if !strings.Contains(m.Warning, "wrong values") || len(m.Rows) != 1 || m.Rows[0].Entry != nil || m.Rows[0].Error == "" {
		t.Errorf("warning %q, rows %+v: want a warning and the row undecoded", m.Warning, m.Rows)
	}
}

// entryOf reads a row's entry (nil when it has none).
func entryOf(t *testing.T, r rowJSON) map[string]any {
	t.Helper()
	if r.Entry == nil {
		return nil
	}
	var e map[string]any
	if err := json.Unmarshal(r.Entry, &e); err != nil {
		t.Fatalf("entry %s: %v", r.Entry, err)
	}
	return e
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// setOne writes one entry to ex's board at key through its generated Board (fingerprint, side
// keys and all), in season s when ex is periodic.
func setOne(t *testing.T, ex exampleboards.Example, c *redis.Client, key string, s rankgenrt.Season) {
	t.Helper()
	l := ex.Layout(t)
	e := layout.Entry{ID: "p1", Keys: make([]uint64, len(l.Fields))}
	if l.IDType == layout.IDUint64 {
		e.ID = "1"
	}
	for i, f := range l.Fields {
		e.Keys[i] = f.Lo
	}
	score, member, err := l.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := ex.Codec.Decode(score, member)
	if err != nil {
		t.Fatal(err)
	}
	board := ex.Board(c, key)
	if ex.SeasonAt != nil {
		board = ex.BoardIn(c, key, s)
	}
	out := reflect.ValueOf(board).MethodByName("Set").Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(typed)})
	if err, _ := out[len(out)-1].Interface().(error); err != nil {
		t.Fatalf("%s: Set: %v", ex.Name, err)
	}
}

// TestServeEveryOtherLayout: a board written by each example's generated code, served with
// every example's schema: its own decodes, every other one (all layouts differ) is a warning
// and raw pairs only, whatever kind of side key each keeps (meta key or index), with or
// without data fields, periodic or not.
func TestServeEveryOtherLayout(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	examples := append(exampleboards.All(), exampleboards.Periodic()...)
	layouts := map[string]*layout.Layout{}
	for _, ex := range examples {
		layouts[ex.Name] = ex.Layout(t)
	}
	for _, writer := range examples {
		// One board per writer and kind of reader: a periodic reader reads the current
		// season's key under the base.
		for _, reader := range examples {
			if writer.Name != reader.Name && layouts[writer.Name].StoreFingerprint == layouts[reader.Name].StoreFingerprint {
				t.Fatalf("%s and %s store alike: they cannot be told apart", writer.Name, reader.Name)
			}
			base := "w:" + writer.Name + ":r:" + reader.Name
			key := base
			var season rankgenrt.Season
			if reader.SeasonAt != nil {
				season = reader.SeasonAt(time.Now())
				if layouts[reader.Name].Season.Regions != nil { // a regional board's base names its zone
					base = rankgenrt.RegionBase(base, season.Start.Location().String())
				}
				key = rankgenrt.SeasonKey(base, season)
			} else if writer.SeasonAt != nil {
				season = writer.SeasonAt(time.Now())
			}
			setOne(t, writer, c, key, season)
			web := newTestServer(t, layouts[reader.Name], c, base, serveOptions{})
			m, code := getJSON(t, web, "")
			if code != http.StatusOK || len(m.Rows) != 1 {
				t.Errorf("%s's board served with %s: status %d, error %q, %d rows; want its one entry", writer.Name, reader.Schema, code, m.Error, len(m.Rows))
				continue
			}
			r := m.Rows[0]
			if writer.Name == reader.Name {
				if m.Warning != "" || r.Error != "" || r.Entry == nil {
					t.Errorf("%s's own board: warning %q, row %+v; want it decoded", writer.Name, m.Warning, r)
				}
				continue
			}
			if !strings.Contains(m.Warning, "none is decoded") || r.Error == "" || r.Entry != nil || len(r.Score) == 0 || r.Member == "" {
				t.Errorf("%s's board served with %s: warning %q, row %+v; want a warning and the raw pair alone", writer.Name, reader.Schema, m.Warning, r)
			}
		}
	}
}

// TestServeUnknownLayout: a board that records no layout, or junk where its fingerprint
// belongs, is not decoded either.
func TestServeUnknownLayout(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	arena := loadExample(t, "arena.yaml")
	e := layout.Entry{ID: "ann"}
	for _, f := range arena.Fields {
		e.Keys = append(e.Keys, f.Lo)
	}
	score, member, err := arena.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	for name, side := range map[string]func(key string) error{
		"none recorded": func(string) error { return nil },
		"junk in the meta key": func(key string) error {
			return c.Set(ctx, rankgenrt.MetaKey(key), "hello", 0).Err()
		},
		"a hash as the meta key": func(key string) error {
			return c.HSet(ctx, rankgenrt.MetaKey(key), "", arena.Fingerprint).Err()
		},
		"junk in the index": func(key string) error {
			return c.HSet(ctx, rankgenrt.IndexKey(key), "", "0123").Err()
		},
	} {
		key := "unknown:" + name
		if err := c.ZAdd(ctx, key, redis.Z{Score: score, Member: member}).Err(); err != nil {
			t.Fatal(err)
		}
		if err := side(key); err != nil {
			t.Fatal(err)
		}
		m, _ := getJSON(t, newTestServer(t, arena, c, key, serveOptions{}), "")
		if m.Warning == "" || len(m.Rows) != 1 || m.Rows[0].Entry != nil || m.Rows[0].Error == "" {
			t.Errorf("%s: warning %q, rows %+v; want a warning and the raw pair alone", name, m.Warning, m.Rows)
		}
	}
}

// TestServeOtherDataFormat: a board whose data hash records another stored format (same
// fields, a data field changed) is not decoded.
func TestServeOtherDataFormat(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	if _, err := laps.NewBoard(c, "lpd").Set(context.Background(), laps.Entry{Driver: "ann", BestLap: 5, Laps: 1, Data: laps.Data{Name: "Ann"}}); err != nil {
		t.Fatal(err)
	}
	l := loadExample(t, "laps.yaml")
	src, err := os.ReadFile(exampleboards.SchemaPath("laps.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "values: [kart, formula, touring, rally]", "values: [kart, formula, touring, rally, rocket]", 1)
	other, err := layout.Parse("laps2.yaml", []byte(changed))
	if err != nil || changed == string(src) || other.Fingerprint != l.Fingerprint || other.DataFingerprint == l.DataFingerprint {
		t.Fatalf("the changed laps schema: %v (fingerprint %s, data %s)", err, other.Fingerprint, other.DataFingerprint)
	}
	m, _ := getJSON(t, newTestServer(t, other, c, "lpd", serveOptions{}), "")
	if !strings.Contains(m.Warning, "stored format") || len(m.Rows) != 1 || m.Rows[0].Entry != nil {
		t.Errorf("warning %q, rows %+v: want a warning and the raw pair alone", m.Warning, m.Rows)
	}
	if m, _ := getJSON(t, newTestServer(t, l, c, "lpd", serveOptions{}), ""); m.Warning != "" || len(m.Rows) != 1 || m.Rows[0].Entry == nil {
		t.Errorf("its own schema: warning %q, rows %+v: want it decoded", m.Warning, m.Rows)
	}
}

// TestServeJSONExport: /board.json carries what the board holds as JSON values: ids, members
// and string data as themselves (bytes that are not UTF-8 as base64), numbers as numbers, a
// uint64 id and a bits62 P as strings of digits (past 2^53), the score as a number that parses
// to the stored double, and a member cut only when long, flagged as cut.
func TestServeJSONExport(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	fillLaps(t, c, "lj")
	long := strings.Repeat("é", 2500) // 5,000 bytes of text: cut at a character's end
	if err := c.ZAdd(ctx, "lj", redis.Z{Score: 3, Member: long}, redis.Z{Score: math.Inf(1), Member: "up"}).Err(); err != nil {
		t.Fatal(err)
	}
	l := loadExample(t, "laps.yaml")
	m, _ := getJSON(t, newTestServer(t, l, c, "lj", serveOptions{}), "")
	stored, err := c.ZRevRangeWithScores(ctx, "lj", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rows) != len(stored) || m.Warning != "" || string(m.Key) != "lj" {
		t.Fatalf("key %q, warning %q, %d rows for %d entries", m.Key, m.Warning, len(m.Rows), len(stored))
	}
	for i, z := range stored {
		r, member := m.Rows[i], z.Member.(string)
		if math.IsInf(z.Score, 1) {
			if string(r.Score) != `"inf"` {
				t.Errorf("row %d: score %s, want \"inf\"", i, r.Score)
			}
		} else if f, err := strconv.ParseFloat(string(r.Score), 64); err != nil || f != z.Score {
			t.Errorf("row %d: score %s, stored %v", i, r.Score, z.Score)
		}
		switch {
		case len(member) > maxExportMember:
			if !r.MemberCut || r.MemberBytes != len(member) || !strings.HasPrefix(member, string(r.Member)) || len(r.Member) > maxExportMember || !utf8.ValidString(string(r.Member)) {
				t.Errorf("row %d: member %d bytes, cut %v of %d; want the start of the %d stored, flagged", i, len(r.Member), r.MemberCut, r.MemberBytes, len(member))
			}
		case string(r.Member) != member || r.MemberCut:
			t.Errorf("row %d: member %.40q (cut %v), stored %.40q", i, r.Member, r.MemberCut, member)
		}
		e, err := l.Decode(z.Score, member)
		if err != nil || len(member) > l.MaxMemberBytes() {
			if r.Entry != nil || r.Error == "" {
				t.Errorf("row %d: entry %s, error %q for a pair that does not decode", i, r.Entry, r.Error)
			}
			continue
		}
		data, err := c.HGet(ctx, rankgenrt.DataKey("lj"), e.ID).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		vals, err := l.DecodeData(data)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Driver        byteString
			BestLap, Laps uint64
			Name          byteString
			Car           string
		}
		if err := json.Unmarshal(r.Entry, &got); err != nil {
			t.Fatalf("row %d: entry %s: %v", i, r.Entry, err)
		}
		if string(got.Driver) != e.ID || got.BestLap != e.Keys[0] || got.Laps != e.Keys[1] || string(got.Name) != vals[0].Text || got.Car != l.Data[1].Format(vals[1].Key) {
			t.Errorf("row %d: entry %s, stored %q %v, data %q", i, r.Entry, e.ID, e.Keys, data)
		}
	}

	// Past 2^53: a uint64 id and a bits62 P are strings of digits, exact.
	car := uint64(1)<<63 + 5
	if _, err := racing.NewBoard(c, "rc").Set(ctx, racing.Entry{Car: car, Laps: 3, RaceTime: 7}); err != nil {
		t.Fatal(err)
	}
	m, _ = getJSON(t, newTestServer(t, loadExample(t, "racing.yaml"), c, "rc", serveOptions{}), "")
	if len(m.Rows) != 1 || !strings.Contains(string(m.Rows[0].Entry), `"Car": "9223372036854775813"`) || !strings.Contains(string(m.Rows[0].Entry), `"Laps": 3`) {
		t.Errorf("racing: rows %+v", m.Rows)
	}
	if _, err := duel.NewBoard(c, "du").Set(ctx, duel.Entry{PlayerID: "ann", Points: 16777215, Wins: 255, Tier: duel.TierGold, ReachedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	zs, err := c.ZRangeWithScores(ctx, "du", 0, -1).Result()
	if err != nil || len(zs) != 1 {
		t.Fatal(zs, err)
	}
	p := math.Float64bits(zs[0].Score)
	web := newTestServer(t, loadExample(t, "duel.yaml"), c, "du", serveOptions{})
	m, _ = getJSON(t, web, "")
	if len(m.Rows) != 1 || m.Rows[0].P != strconv.FormatUint(p, 10) || p <= 1<<53 {
		t.Errorf("duel: P %d, rows %+v; want p %q", p, m.Rows, strconv.FormatUint(p, 10))
	}
	// The page shows P as decode takes it, never the double's digits.
	res, err := http.Get(web.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || !strings.Contains(string(page), `data-field="score">p:`+strconv.FormatUint(p, 10)+"<") || strings.Contains(string(page), "0.0000000") {
		t.Errorf("the page does not show duel's score as p:%d: %v", p, err)
	}
}

// TestExportWideIntegers: an integer field whose range reaches past 2^53 is carried as a
// string of digits in every entry, a narrower one as a number.
func TestExportWideIntegers(t *testing.T) {
	l, err := layout.Parse("wide.yaml", []byte("package: wide\nid: {name: ID}\nfields:\n  - {name: Big, type: uint, bits: 60, order: desc, in: member}\n  - {name: Neg, type: int, min: -10, max: 10, order: desc}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(entryJSON(l, layout.Entry{ID: "a\xff", Keys: []uint64{1<<60 - 1, layout.IntKey(-3)}}, nil))
	if want := `{"ID": {"base64":"Yf8="}, "Big": "1152921504606846975", "Neg": -3}`; got != want {
		t.Errorf("entry %s, want %s", got, want)
	}
}

// TestServeRegionalZone: a regional board is served from its base and -zone, or from a key that
// names the zone; its base alone is refused, naming the zones.
func TestServeRegionalZone(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	var ex exampleboards.Example
	for _, p := range exampleboards.Periodic() {
		if p.Name == "tournament" {
			ex = p
		}
	}
	l := ex.Layout(t)
	season := ex.SeasonAt(time.Now()) // Tokyo's
	setOne(t, ex, c, rankgenrt.SeasonKey(rankgenrt.RegionBase("cup", "Asia/Tokyo"), season), season)
	for _, tc := range []struct {
		key  string
		zone string
	}{{"cup", "Asia/Tokyo"}, {"cup:Asia/Tokyo", ""}, {rankgenrt.SeasonKey("cup:Asia/Tokyo", season), ""}} {
		web := newTestServer(t, l, c, tc.key, serveOptions{season: seasonFlag{zone: tc.zone}})
		if m, code := getJSON(t, web, ""); code != http.StatusOK || len(m.Rows) != 1 || m.Rows[0].Entry == nil {
			t.Errorf("serve %s -zone %q: status %d, error %q, %d rows; want Tokyo's one entry", tc.key, tc.zone, code, m.Error, len(m.Rows))
		}
	}
	if _, err := newServer(l, "cup", serveOptions{rows: 25}); err == nil || !strings.Contains(err.Error(), "give -zone") {
		t.Errorf("serve of a regional base without -zone: %v; want it to ask for -zone", err)
	}
}
