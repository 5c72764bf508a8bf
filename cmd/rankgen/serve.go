package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/picture"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
)

const serveHelp = `Serve shows a live board in a web browser, read-only: the layout as a picture (the same
as explain -svg), the keys of the board with their entry count, memory (MEMORY USAGE), TTL and
the layout fingerprint each records, and a table of entries — the top, a page, the entries
around an id, or one id's entry — with every field and data field decoded by the schema's
layout, beside the raw score and member. The page refreshes itself every -refresh.

KEY is the board's key; for a periodic board (a season: block) its base key, and a picker
lists the current season and the finished ones the board keeps that exist (-season chooses
the first shown; a KEY ending in a season's id does too). With -shards N the board is a
ShardedBoard of N shards: the table merges them or shows one, and the key table lists each.
-schema may be a package file (a boards: key), with -board naming the board KEY holds.

It only reads (ZREVRANGE, ZREVRANK, ZCARD, HGET, HMGET, GET, TYPE, EXISTS, MEMORY USAGE,
PTTL): open it on a production replica without fear of writes. What a board holds is shown as
text, never as markup: strings and members Go-quoted and cut to their first bytes (a bits62
score as P, p:N, the form decode takes), entries
that do not decode with their quoted raw text and the reason, and a board whose layout is
not known to be the schema's with a warning and no decoded values (they would be wrong): one
whose meta key or index records another layout's fingerprint (whichever kind of side key that
layout keeps), or none, or whose data hash records another data format.

It listens on -addr, 127.0.0.1:8080 by default, and only on a loopback address unless
-allow-remote is given: anyone who reaches the page can read the board. It answers only
requests addressed to a loopback name, so that a web page elsewhere cannot read it through
DNS rebinding. GET /board.json gives what the page shows as JSON (the page's query
parameters: season, shard, view=top|page|around|id, page, id), the board's contents as JSON
values: each row's stored score (a number that parses to the double exactly), a bits62
layout's P (a string of digits), the member, and the decoded entry keyed by the schema's
names; integers that can exceed 2^53 are strings of digits, bytes that are not UTF-8
{"base64": …}, and a member over 4 KiB is cut and flagged so. docs/cli.md has the shape.
Ctrl-C stops it.

The server is -redis (a redis:// URL), else $REDIS_URL, else redis://localhost:6379.

Exit status: 0 when stopped by a signal, 1 on schema errors or when Redis or the address
cannot be reached, 2 on usage errors.`

// serveOptions are serve's flags.
type serveOptions struct {
	schema, url, addr string
	allowRemote       bool
	shards, rows      int
	refresh           time.Duration
	season            seasonFlag
	board             boardFlag // -board: the board of a package file that KEY holds
}

// maxServeRows bounds -rows: a table row reads its data too.
const maxServeRows = 1000

func init() {
	register(&command{
		name:     "serve",
		args:     "KEY",
		required: []string{"schema"},
		short:    "serve a read-only web page onto a live board",
		long:     serveHelp,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			var o serveOptions
			fs.StringVar(&o.schema, "schema", "", "the schema `file` (required)")
			fs.StringVar(&o.url, "redis", "", "the server, as a redis:// `URL` (default $REDIS_URL, else redis://localhost:6379)")
			fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen on `host:port`")
			fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow an -addr that is not loopback: anyone who reaches it can read the board")
			fs.IntVar(&o.shards, "shards", 0, "the board is a ShardedBoard of `S` shards")
			fs.IntVar(&o.rows, "rows", 25, "show `N` entries per table")
			fs.DurationVar(&o.refresh, "refresh", 5*time.Second, "refresh the page every `duration` (0: never)")
			o.season.register(fs, "the season shown first")
			o.board.register(fs)
			return func(e *env, args []string) int { return runServe(e, o, args) }
		},
	})
}

func runServe(e *env, o serveOptions, args []string) int {
	c := commands["serve"]
	switch {
	case o.schema == "":
		return usageFail(e, c, "-schema is required")
	case len(args) != 1:
		return usageFail(e, c, "serve takes the board's KEY")
	case args[0] == "":
		return usageFail(e, c, "KEY is empty; give the board's key")
	case o.rows < 1 || o.rows > maxServeRows:
		return usageFail(e, c, fmt.Sprintf("-rows %d: want 1 to %d", o.rows, maxServeRows))
	case o.refresh < 0 || o.refresh > 0 && o.refresh < time.Second:
		return usageFail(e, c, fmt.Sprintf("-refresh %s: want 0 (never) or at least 1s", o.refresh))
	case o.shards < 0 || o.shards > rankgenrt.MaxShards:
		return usageFail(e, c, fmt.Sprintf("-shards %d: want 1 to %d (or none for a board of one key)", o.shards, rankgenrt.MaxShards))
	}
	if msg := checkListen(o.addr, o.allowRemote); msg != "" {
		return usageFail(e, c, msg)
	}
	bs, _, msg, ok := o.board.pick(e, "serve", o.schema)
	if msg != "" {
		return usageFail(e, c, msg)
	}
	if !ok {
		return exitFail
	}
	l := bs.l
	srv, err := newServer(l, args[0], o)
	if err != nil {
		e.errorf("serve", "%s", err)
		return exitFail
	}
	opts, err := redis.ParseURL(redisURL(o.url))
	if err != nil {
		e.errorf("serve", "-redis: %v", err)
		return exitFail
	}
	srv.board.c = redis.NewClient(opts)
	defer srv.board.c.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := srv.board.c.Ping(ctx).Err(); err != nil {
		e.errorf("serve", "%s: %v", opts.Addr, err)
		return exitFail
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		e.errorf("serve", "%v", err)
		return exitFail
	}
	fmt.Fprintf(e.stderr, "rankgen serve: http://%s/ shows %s (%s, read-only); Ctrl-C stops it\n", ln.Addr(), quote.Short(args[0]), l.File)
	if err := srv.serve(ctx, ln); err != nil {
		e.errorf("serve", "%v", err)
		return exitFail
	}
	return exitOK
}

// checkListen refuses an address that is not loopback unless allowed; "" when it may be used.
func checkListen(addr string, allowRemote bool) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("-addr %s: want host:port, as 127.0.0.1:8080", quote.Short(addr))
	}
	if allowRemote || isLoopbackHost(host) {
		return ""
	}
	shown := host
	if host == "" {
		shown = "every interface"
	}
	return fmt.Sprintf("-addr %s listens on %s, not loopback: anyone who reaches it could read the board; give -allow-remote to mean it", quote.Short(addr), shown)
}

// isLoopbackHost reports whether host is localhost or a loopback IP (never a name that DNS
// resolves: that answer can change).
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

//go:embed serve
var serveFiles embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{"bytes": func(n *int64) string { return formatBytes(*n) }}).ParseFS(serveFiles, "serve/page.html"))

// server is serve's HTTP side over one board.
type server struct {
	board       boardView
	refresh     time.Duration
	firstSeason *rankgenrt.Season // the season shown without ?season (nil: the current one)
	allowRemote bool
	svg         template.HTML
	now         func() time.Time
}

// newServer checks KEY against the layout and prepares the page; the board's client is set
// by the caller.
func newServer(l *layout.Layout, key string, o serveOptions) (*server, error) {
	s := &server{
		board:       boardView{l: l, base: key, shards: o.shards, rows: o.rows},
		refresh:     o.refresh,
		allowRemote: o.allowRemote,
		svg:         template.HTML(picture.SVG(l)), // generator/picture escapes every text it writes
		now:         time.Now,
	}
	season, err := o.season.resolve(l)
	if err != nil {
		return nil, err
	}
	if season, err = keySeason(l, key, season); err != nil {
		return nil, err
	}
	if season != nil && strings.HasSuffix(key, ":"+strconv.FormatInt(season.ID, 10)) {
		s.board.base = strings.TrimSuffix(key, ":"+strconv.FormatInt(season.ID, 10)) // the key named a season
	}
	if l.Season != nil && l.Season.Regions != nil && keyZone(l, key) == "" {
		// A regional board's base names no zone: its seasons are under <base>:<zone>, -zone's.
		if err := useZone(l, o.season.zone, true); err != nil {
			return nil, err
		}
		s.board.base = rankgenrt.RegionBase(s.board.base, o.season.zone)
	}
	s.firstSeason = season
	if _, err := s.board.setKeys(season); err != nil {
		return nil, errors.New(errText(err))
	}
	return s, nil
}

// serve answers on ln until ctx is done.
func (s *server) serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// contentPolicy lets the page load only its own script, style and requests: nothing inline
// runs, whatever a board holds.
const contentPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// handler is the whole site: the page, its live part, /board.json, /layout.svg and the
// static files, behind the checks every request passes.
func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(serveFiles, "serve") // a constant directory of the embedded files
	mux.Handle("/static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("/layout.svg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte(s.svg))
	})
	mux.HandleFunc("/board.json", func(w http.ResponseWriter, r *http.Request) {
		m := s.model(r)
		w.Header().Set("Content-Type", "application/json")
		if m.Error != "" {
			w.WriteHeader(http.StatusBadRequest)
		}
		enc := json.NewEncoder(w) // escapes <, > and & too
		enc.SetIndent("", "  ")
		enc.Encode(exportOf(s.board.l, s.board.base, m))
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		m := s.model(r)
		name := "page.html"
		if r.URL.Query().Get("part") == "live" {
			name = "live"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := pageTemplate.ExecuteTemplate(w, name, m); err != nil {
			http.Error(w, "rendering the page: "+shownText(err.Error()), http.StatusInternalServerError)
		}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "rankgen serve is read-only: GET only", http.StatusMethodNotAllowed)
			return
		}
		if !s.allowRemote && !loopbackRequest(r) {
			http.Error(w, "rankgen serve answers only requests to a loopback address (localhost, 127.0.0.1, [::1]); give -allow-remote to serve others", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// loopbackRequest reports whether r's Host names a loopback address.
func loopbackRequest(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return isLoopbackHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// Views of the table.
const (
	viewTop    = "top"
	viewPage   = "page"
	viewAround = "around"
	viewID     = "id"
)

var views = []string{viewTop, viewPage, viewAround, viewID}

// pageModel is what the page shows (and /board.json returns, as boardJSON).
type pageModel struct {
	Schema      string
	Key         string // quoted
	Fingerprint string
	Seasons     []seasonOption
	Season      *int64
	Shards      int
	Shard       *int // nil: all shards, merged
	View        string
	Page        int
	ID          string
	IDName      string
	FieldNames  []string
	DataNames   []string
	Entries     int64
	MemoryBytes int64
	Keys        []keyStat
	Rows        []row
	Warning     string
	Error       string
	ReadAt      string

	Refresh      int // seconds; 0: no live refresh
	SVG          template.HTML
	ShardOptions []int
	Views        []string
}

// IsShard reports whether the page shows shard i alone.
func (m *pageModel) IsShard(i int) bool { return m.Shard != nil && *m.Shard == i }

// DecodedColumns is how many columns a decoded row has between its rank (and shard) and its
// raw score and member; a row that does not decode spans them with its error.
func (m *pageModel) DecodedColumns() int { return 1 + len(m.FieldNames) + len(m.DataNames) }

// AllColumns is the table's width.
func (m *pageModel) AllColumns() int {
	n := 1 + m.DecodedColumns() + 2
	if m.Shards > 0 {
		n++
	}
	return n
}

// Memory is the board's memory in words.
func (m *pageModel) Memory() string { return formatBytes(m.MemoryBytes) + " in memory" }

// requestTimeout bounds the reads of one request.
const requestTimeout = 10 * time.Second

// model reads what r asks for. A bad query or a failed read is the page's Error; the rest of
// the page is still shown.
func (s *server) model(r *http.Request) *pageModel {
	l := s.board.l
	m := &pageModel{
		Schema: l.File, Key: quote.Short(s.board.base), Fingerprint: l.Fingerprint,
		Shards: s.board.shards, IDName: l.IDName, View: viewTop, Page: 1,
		Refresh: int(s.refresh / time.Second), SVG: s.svg, Views: views, Rows: []row{},
	}
	for _, f := range l.Fields {
		m.FieldNames = append(m.FieldNames, f.Name)
	}
	for _, f := range l.Data {
		m.DataNames = append(m.DataNames, f.Name)
	}
	for i := range s.board.shards {
		m.ShardOptions = append(m.ShardOptions, i)
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	now := s.now()
	m.ReadAt = now.UTC().Format(time.RFC3339)
	q, err := s.parseQuery(r, m, now)
	if err == nil {
		err = s.read(ctx, q, m, now)
	}
	if err != nil {
		m.Error = shownText(errText(err))
	}
	return m
}

// query is what a request asks to see.
type query struct {
	season *rankgenrt.Season
	shard  int // -1: all shards (or the one key of an unsharded board)
	id     string
}

// parseQuery reads the request's parameters into q and the model.
func (s *server) parseQuery(r *http.Request, m *pageModel, now time.Time) (query, error) {
	l := s.board.l
	v := r.URL.Query()
	q := query{season: s.firstSeason, shard: -1}
	if l.Season != nil {
		if q.season == nil {
			current := l.Season.Calendar.At(now)
			q.season = &current
		}
		if text := v.Get("season"); text != "" {
			season, err := parseSeason(l, text)
			if err != nil {
				return q, fmt.Errorf("season: %v", err)
			}
			q.season = &season
		}
		m.Season = &q.season.ID
	}
	if text := v.Get("shard"); text != "" && text != "all" && s.board.shards > 0 {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 || n >= s.board.shards {
			return q, fmt.Errorf("shard %s: want all or 0 to %d", quote.Short(text), s.board.shards-1)
		}
		q.shard = n
		m.Shard = &n
	}
	if text := v.Get("view"); text != "" {
		if !slices.Contains(views, text) {
			return q, fmt.Errorf("view %s: want one of %s", quote.Short(text), strings.Join(views, ", "))
		}
		m.View = text
	}
	if text := v.Get("page"); text != "" {
		n, err := strconv.Atoi(text)
		if err != nil || n < 1 || n > maxPage(s.board.rows) {
			return q, fmt.Errorf("page %s: want 1 to %d", quote.Short(text), maxPage(s.board.rows))
		}
		m.Page = n
	}
	q.id = v.Get("id")
	m.ID = q.id
	if m.View == viewAround || m.View == viewID {
		if q.id == "" {
			return q, fmt.Errorf("view %s needs an %s: type one in the box", m.View, l.IDName)
		}
		if err := l.CheckID(q.id); err != nil {
			return q, fmt.Errorf("%s %s: %s", l.IDName, quote.Short(q.id), errText(err))
		}
	}
	return q, nil
}

// maxPage keeps a page's first rank within an int64 ZREVRANGE start of any board.
func maxPage(rows int) int { return 1 << 40 / rows }

// read fills the model's seasons, keys and rows.
func (s *server) read(ctx context.Context, q query, m *pageModel, now time.Time) error {
	b := &s.board
	if b.l.Season != nil {
		seasons, err := b.seasons(ctx, now, *q.season)
		if err != nil {
			return err
		}
		m.Seasons = seasons
	}
	sets, err := b.setKeys(q.season)
	if err != nil {
		return err
	}
	stats, err := b.stats(ctx, sets)
	if err != nil {
		return err
	}
	m.Keys = stats
	problem := ""
	for _, st := range stats {
		if st.Memory != nil {
			m.MemoryBytes += *st.Memory
		}
		if st.Entries != nil {
			m.Entries += *st.Entries
		}
		if problem == "" {
			problem = st.problem
		}
	}
	shardOf := make([]int, len(sets))
	for i := range sets {
		shardOf[i] = i
	}
	readSets := sets
	if q.shard >= 0 {
		readSets, shardOf = sets[q.shard:q.shard+1], shardOf[q.shard:q.shard+1]
	}
	var rows []row
	switch m.View {
	case viewTop:
		rows, err = b.page(ctx, readSets, shardOf, 0)
	case viewPage:
		rows, err = b.page(ctx, readSets, shardOf, int64(m.Page-1)*int64(b.rows))
	default:
		i := 0
		if len(readSets) > 1 { // all shards: the id's own
			i = rankgenrt.ShardOf(q.id, b.shards)
		}
		rows, err = b.around(ctx, readSets[i], shardOf[i], q.id, m.View == viewID)
		if errors.Is(err, errNoEntry) {
			err = fmt.Errorf("%s %s is not on the board (%s)", b.l.IDName, quote.Short(q.id), quote.Short(readSets[i]))
		} else if err == nil && b.shards > 0 {
			m.Warning = fmt.Sprintf("ranks are within shard %d, which holds %s %s", shardOf[i], b.l.IDName, quote.Short(q.id))
		}
	}
	if err != nil {
		return err
	}
	if problem != "" {
		m.Warning = problem
		for i := range rows {
			rows[i] = rows[i].undecoded("not decoded: the board's layout is not known to be this schema's")
		}
	}
	m.Rows = rows
	return nil
}
