// Package luaemit renders the layout's part of its Lua library from the templates in
// templates/: the runtime loads it behind its own Lua head (runtime/head.lua: the guards, the
// exactly-once tokens, the wrappers, what no layout changes) as one Redis Functions library per
// layout. The part defines once what its functions share that depends on the layout (its
// constants: radices, weights, widths, member offsets, 10^w for decimal scores; the score
// codec, the field accessors), declares the layout the head's wrappers run its functions under
// (use_layout: its fingerprint and flags), and registers one function per operation of
// generator/catalog that has a template, with the catalogue's argument positions written into
// its text. luaemit.go renders, view.go builds what the templates see, lua.go
// writes Lua literals.
//
// The functions do the digit arithmetic of the Go codec on Lua's doubles, which is exact
// below 2^53 (math.floor and %, never the 32-bit bit library); they take every key as KEYS
// and every id and value as ARGV, and the library makes no call to Redis when it loads.
package luaemit

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/templates"
)

// Library is a layout's generated Lua library: the layout's part, which its file holds, and the
// whole library the runtime composes of the runtime's Lua head and the part
// (rankgenrt.ComposeLibrary, as rankgenrt.NewLayoutLibrary loads it).
type Library struct {
	Name      string // <stem>_<hash of the head and the part>: the library's name and its functions' prefix
	File      string // its file name, l.LuaFile()
	Part      string // the file's text: the layout's part
	Source    string // the whole library's text, as loaded
	Functions []Function
}

// Function is one function of the library, for one operation.
type Function struct {
	Op       string // the operation: "set", "add_points", …
	Name     string // its name on the server: <Library.Name>_<Op>
	ReadOnly bool   // flagged no-writes: called with FCALL_RO
	Body     string // the text of its callback (a field update's calls the head's shared update_one or update_many)
}

var tmpl = template.Must(templates.Parse(nil))

// exact is 2^53: the Lua side keeps every number it computes below it.
const exact = 1 << 53

// Render renders the layout's part of its library: its layout's own head (what the runtime's
// shared head cannot hold), then one function per operation that has a template, in catalogue
// order (set, best, remove, trim, the field updates in field order, then the reads), and
// composes the whole library as the runtime does.
func Render(l *layout.Layout) (*Library, error) {
	return render(l, "")
}

// RenderBoard renders the part of board, a board of a package of boards, as Render renders a
// layout's: its use_layout names the board, which its functions' names carry
// (<library>_<board>_<op>). Package puts the parts of a package's boards in one library.
func RenderBoard(l *layout.Layout, board string) (*Library, error) {
	return render(l, board)
}

func render(l *layout.Layout, board string) (*Library, error) {
	var b bytes.Buffer
	var err error
	head := newData(l)
	head.Board = board
	head.Touched = allFields(l)
	head.Args = catalog.Args{Head: catalog.WriteArgs()}
	if head.Clock, err = clockData(l); err != nil {
		return nil, err
	}
	if head.WriteDocs, err = writeDocs(l); err != nil {
		return nil, err
	}
	if err := tmpl.ExecuteTemplate(&b, "library", head); err != nil {
		return nil, fmt.Errorf("luaemit: library: %w", err)
	}
	var fns []Function
	var regs bytes.Buffer
	u := updates{shared: map[string]*sharedUpdate{}, names: map[string]bool{}, written: map[string]bool{}, registered: -1}
	for _, op := range catalog.Scripts(l) {
		d, err := scriptData(l, op)
		if err != nil {
			return nil, err
		}
		if !op.ReadOnly {
			d.Usage = withoutPrefix(d.Usage, head.WriteDocs)
		}
		if len(d.Stamps) > 0 && !sameClock(d.Args, head.Clock.Args) {
			return nil, fmt.Errorf("luaemit: %s stamps, but takes the clock or the season's bounds elsewhere than the head's stamps read them", op.Name)
		}
		var body bytes.Buffer
		d.Shared = op.Body == catalog.BodyFieldUpdate || op.Body.SharedEntries()
		if err := tmpl.ExecuteTemplate(&body, op.Template, d); err != nil {
			return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
		}
		text := indent(tidy(body.String()))
		doc := ""
		text = boardOnly(text)
		callback, err := callbackOf(op, text)
		if err != nil {
			return nil, err
		}
		if d.found != nil {
			if callback, err = foundCallback(op, d.found, text); err != nil {
				return nil, err
			}
		}
		switch {
		case op.Body == catalog.BodyFieldUpdate:
			if text, doc, callback, err = u.call(&b, d, text, op.Batch); err != nil {
				return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
			}
		case op.Body.SharedEntries():
			if doc, callback, err = u.entries(&b, d, text, op.Body.EntriesRule()); err != nil {
				return nil, err
			}
		}
		flags := ""
		if op.ReadOnly {
			flags = "'no-writes'"
		} else if op.OnlyDeletes {
			flags = "'allow-oom'"
		}
		if op.Body == catalog.BodyFieldUpdate && regs.Len() == u.registered {
			regs.Truncate(regs.Len() - 1) // the field updates' registrations are one block
		}
		registerFunction(&regs, doc, op.Name, flags, callback)
		if op.Body == catalog.BodyFieldUpdate {
			u.registered = regs.Len()
		}
		fns = append(fns, Function{Op: op.Name, ReadOnly: op.ReadOnly, Body: text})
	}
	// The functions beyond the board operations: a periodic layout's scripts across its
	// seasons (a write with a token, remove_everywhere, checks it first; the rollup has none),
	// flagged allow-oom when they only delete, and the schema's feeds (writes).
	for _, op := range catalog.SeasonScripts(l) {
		text, err := seasonScript(l, op, head.WriteDocs)
		if err != nil {
			return nil, err
		}
		flags, callback := "", "bound(function(KEYS, ARGV)\n"+text+"end)"
		if op.OnlyDeletes {
			flags = "'allow-oom'"
		}
		if op.Args.Takes(catalog.ArgToken) {
			if callback, err = writeCallback(op.Name, op.Args, text); err != nil {
				return nil, err
			}
		}
		registerFunction(&regs, "", op.Name, flags, callback)
		fns = append(fns, Function{Op: op.Name, Body: text})
	}
	for _, op := range catalog.Feeds(l) {
		text, err := renderFeed(l, op, head.WriteDocs)
		if err != nil {
			return nil, err
		}
		callback, err := writeCallback(op.Name, op.Args, text)
		if err != nil {
			return nil, err
		}
		registerFunction(&regs, "", op.Name, "", callback)
		fns = append(fns, Function{Op: op.Name, Body: text})
	}
	if u.tables.Len() > 0 {
		b.WriteString("\n-- The field updates' tables (u), built when the library loads, not by each call.\n")
		b.Write(u.tables.Bytes())
	}
	b.WriteString("\n")
	if err := tmpl.ExecuteTemplate(&b, "use_layout", head); err != nil {
		return nil, fmt.Errorf("luaemit: library: %w", err)
	}
	b.Write(regs.Bytes())
	part := prune(tidy(b.String()))
	src := rankgenrt.ComposeLibrary(l.Stem(), part)
	return named(&Library{File: l.LuaFile(), Part: part, Source: src, Functions: fns}, board), nil
}

// Reheaded is lib, the part of the layout whose stem is stem, headed as generated from file
// instead (a layout's previous one, generated into its package): its part's header line
// replaced, its source and name made again.
func Reheaded(lib *Library, stem, file string) (*Library, error) {
	nl, _, ok := strings.Cut(lib.Part, "\n")
	if !ok || !strings.HasPrefix(nl, "-- ") {
		return nil, fmt.Errorf("luaemit: the library lacks the generated-code header (a bug in rankgen; please report it)")
	}
	out := *lib
	out.Part = "-- " + layout.Header(file) + lib.Part[len(nl):]
	out.Source = rankgenrt.ComposeLibrary(stem, out.Part)
	out.Functions = slices.Clone(lib.Functions)
	return named(&out, ""), nil
}

// named sets the library's name from its source, and its functions' names from it.
func named(lib *Library, board string) *Library {
	lib.Name = rankgenrt.NewLibrary(lib.Source).Name
	prefix := lib.Name + "_"
	if board != "" {
		prefix += board + "_"
	}
	for i := range lib.Functions {
		lib.Functions[i].Name = prefix + lib.Functions[i].Op
	}
	return lib
}

// BoardPart is one board of a package of boards and its part (RenderBoard).
type BoardPart struct {
	Board  string // the board's name in the package
	Schema string // its schema's file name
	Lib    *Library
	// Previous names the part of the layout this board's replaces (its schema's previous:), a
	// part of the package too: a submission's step on the board may run its functions instead.
	Previous string
}

// Package composes the library of a package of boards (generated from the package file file
// into <stem>.rankgen.lua): each board's part in a block of its own, so that one part's locals
// neither reach another's functions nor add to Lua's limit of locals in one chunk. Each part
// keeps what its layout uses; the runtime's head comes once, before them all. Functions lists
// every board's functions, board by board.
//
// Then each submission of subs (a write over several boards: the head's submission) is
// registered, its steps naming the board operation each runs (catalog.StepOp).
func Package(file, stem string, parts []BoardPart, subs []*layout.Submission) (*Library, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "-- %s\n--\n", layout.Header(file))
	b.WriteString("-- A package of boards' Redis Functions library: each board's part (its layout's constants, score\n")
	b.WriteString("-- codec, accessors and bodies, and its operations, one function each, named\n")
	b.WriteString("-- <library>_<board>_<op>) in a block of its own. The runtime (rankgenrt.NewLayoutLibrary)\n")
	b.WriteString("-- loads it behind the Lua head every layout shares, named with a hash of both.\n")
	for _, p := range parts {
		if p.Lib == nil || p.Board == "" {
			return nil, fmt.Errorf("luaemit: a package's board has no name or no part (a bug in rankgen; please report it)")
		}
		fmt.Fprintf(&b, "\n-- Board %s, from %s.\ndo\n", p.Board, p.Schema)
		for _, line := range strings.Split(strings.TrimRight(withoutHeader(p.Lib.Part), "\n"), "\n") {
			if line != "" {
				b.WriteString("  " + line)
			}
			b.WriteString("\n")
		}
		b.WriteString("end\n")
	}
	for _, p := range parts {
		if p.Previous != "" {
			fmt.Fprintf(&b, "\n-- Board %s's layout replaces %s's: a step on it may run that part, for a board still in it.\nprevious_part('%s', '%s')\n", p.Board, p.Previous, p.Board, p.Previous)
		}
	}
	for _, sub := range subs {
		var steps []string
		for _, st := range sub.Steps {
			op, err := catalog.StepOp(st.Board.Layout, st.Write)
			if err != nil {
				return nil, fmt.Errorf("luaemit: submission %s, board %s: %w", sub.Name, st.Board.Name, err)
			}
			steps = append(steps, fmt.Sprintf("{'%s', '%s', '%s'}", st.Board.Name, op.Name, st.Name))
		}
		fmt.Fprintf(&b, "\n-- Submission %s: %s, in one call, all or nothing.\nsubmission('%s', {%s})\n", sub.Name, stepsSaid(sub), sub.Name, strings.Join(steps, ", "))
	}
	b.WriteString("\n-- Removal: ids removed from boards of any of the package's layouts in one call.\nremoval()\n")
	text := b.String()
	src := rankgenrt.ComposeLibrary(stem, text)
	name := rankgenrt.NewLibrary(src).Name
	fns := packageFunctions(name, parts)
	for _, sub := range subs {
		fns = append(fns, Function{Op: "submit_" + sub.Name, Name: name + "_submit_" + sub.Name})
	}
	fns = append(fns, Function{Op: "remove_from", Name: name + "_remove_from"})
	return &Library{Name: name, File: stem + ".rankgen.lua", Part: text, Source: src, Functions: fns}, nil
}

// stepsSaid says what a submission writes: "track (best), alltime (update)".
func stepsSaid(sub *layout.Submission) string {
	var said []string
	for _, st := range sub.Steps {
		said = append(said, fmt.Sprintf("%s (%s %s)", st.Name, st.Write, st.Board.Name))
	}
	return strings.Join(said, ", ")
}

// packageFunctions names every board's functions in the package's library.
func packageFunctions(name string, parts []BoardPart) []Function {
	var fns []Function
	for _, p := range parts {
		for _, f := range p.Lib.Functions {
			f.Name = name + "_" + p.Board + "_" + f.Op
			fns = append(fns, f)
		}
	}
	return fns
}

// withoutHeader is a part without its opening comment block (its header and what it is), which
// the package's library says once.
func withoutHeader(part string) string {
	for strings.HasPrefix(part, "--") {
		_, part, _ = strings.Cut(part, "\n")
	}
	return strings.TrimLeft(part, "\n")
}

// foundCallback is the callback of a read of one id's entry (found, declared by its template's
// Finds), whose body is text: the head's found looks the entry up first and passes the body
// what f.Cmd says of it and its member. The id must be the read's first argument.
func foundCallback(op catalog.Op, f *found, text string) (string, error) {
	if at, err := op.Args.At(catalog.ArgID); err != nil || at != 1 {
		return "", fmt.Errorf("luaemit: %s finds the entry of its id, which must be its first argument (ARGV[1])", op.Name)
	}
	return fmt.Sprintf("found('%s', function(KEYS, ARGV, %s, m)\n%send)", f.Cmd, f.V, text), nil
}

// callbackOf is the callback of the function op whose body is text: a read's runs it bound (the
// head's bound; checked, after the layout's check, for a read of places that takes no id), a
// write's as writeCallback says.
func callbackOf(op catalog.Op, text string) (string, error) {
	if !op.ReadOnly {
		return writeCallback(op.Name, op.Args, text)
	}
	wrap := "bound"
	if !op.Args.Takes(catalog.ArgID) {
		wrap = "checked"
	}
	return wrap + "(function(KEYS, ARGV)\n" + text + "end)", nil
}

// writeCallback is the callback of the write function op, whose arguments are args and whose
// body is text: the head's write runs it after the call's token is checked.
func writeCallback(op string, args catalog.Args, text string) (string, error) {
	w, err := writeOf(op, args)
	return w + ", function(KEYS, ARGV)\n" + text + "end)", err
}

// writeOf opens the callback of a write function: the head's write with the operation's name,
// which its tokens are recorded under, and the position of its first argument that says what
// the call does (catalog.Args.CallStart), from which the record's digest of the call starts.
func writeOf(op string, args catalog.Args) (string, error) {
	from, err := args.CallStart()
	if err != nil {
		return "", fmt.Errorf("luaemit: %s: %w", op, err)
	}
	return fmt.Sprintf("write('%s', %d", op, from), nil
}

// registerFunction writes the registration of the library's function op, after its doc: the
// head's register, which names it <library>_<op>.
func registerFunction(regs *bytes.Buffer, doc, op, flags, callback string) {
	fmt.Fprintf(regs, "\n%sregister('%s', {%s}, %s)\n", doc, op, flags, callback)
}

// seasonScript renders the body of a script that works across a periodic layout's seasons
// (catalog.SeasonScripts): the rollup and remove_everywhere. writeDocs are the usage lines the
// library's head says once for every write.
func seasonScript(l *layout.Layout, op catalog.Op, writeDocs []string) (string, error) {
	d, err := scriptData(l, op)
	if err != nil {
		return "", err
	}
	d.Data = l.HasData()
	d.Usage = withoutPrefix(d.Usage, writeDocs)
	d.Stride = catalog.FeedStride(l)
	for _, f := range catalog.RollupFields(l) {
		lo, hi := num(f.Lo), num(f.Hi)
		if f.Signed() {
			lo, hi = strconv.FormatInt(f.MinInt(), 10), strconv.FormatInt(f.MaxInt(), 10)
		}
		d.Rollups = append(d.Rollups, rollupField{Index: slices.Index(l.Fields, f) + 1, Name: f.Name,
			Lo: lo, Hi: hi, Asc: f.Order == layout.Asc})
	}
	var body bytes.Buffer
	if err := tmpl.ExecuteTemplate(&body, op.Template, d); err != nil {
		return "", fmt.Errorf("luaemit: %s: %w", op.Name, err)
	}
	return indent(tidy(body.String())), nil
}

// updates writes the field updates once: every field's updates of a form share one Lua
// function, update_one for the single form and update_many for the batch (KEYS, ARGV, u),
// which takes the field's accessors, its apply function, its weight and its stamps in u.
type updates struct {
	shared  map[string]*sharedUpdate // a shared function's body -> the function
	names   map[string]bool          // the shared functions' names
	written map[string]bool          // what is written to the head once: the update tables (F.<operation>), entries
	tables  bytes.Buffer             // the update tables, written after the shared functions

	registered int // the length of the registrations after the last field update's
}

// sharedUpdate is a shared update function: its name, and the usage lines of the first update
// it serves, which its doc says once (each update's doc says only the lines that differ).
type sharedUpdate struct {
	name  string
	usage []string
}

// name is the name of a new shared update function: update_one or update_many, or, should a
// form ever render a second body (what differs by field travels in u, so none does today),
// that name and the field's.
func (u *updates) name(d *data, batch bool) string {
	name := "update_one"
	if batch {
		name = "update_many"
	}
	if u.names[name] {
		name += "_" + strings.TrimPrefix(strings.TrimSuffix(d.Op, "_many"), d.Kind+"_")
	}
	for i, base := 2, name; u.names[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	u.names[name] = true
	return name
}

// entriesBody names the whole-entry writes' one body (catalog.BodyEntries): the head's function
// entries(KEYS, ARGV, rule), which their callbacks call with their rule.
const entriesBody = "entries"

// entries writes to head, the first time, the function entries of the whole-entry writes' body,
// and returns the doc and callback of d, which call it with rule (catalog.Body.EntriesRule).
func (u *updates) entries(head *bytes.Buffer, d *data, body, rule string) (doc, callback string, err error) {
	if !u.written[entriesBody] {
		u.written[entriesBody] = true
		fmt.Fprintf(head, "\n-- entries writes whole entries by rule: 'set', 'best' or 'insert'.\nlocal function entries(KEYS, ARGV, rule)\n%send\n", body)
	}
	w, err := writeOf(d.Op, d.Args)
	return docOf(d), fmt.Sprintf("%s, entries, %s)", w, luaString(rule)), err
}

// docOf is the comment that says what d's function does and takes.
func docOf(d *data) string {
	var docs bytes.Buffer
	for _, line := range append([]string{d.Title}, d.Usage...) {
		fmt.Fprintf(&docs, "-- %s\n", line)
	}
	return docs.String()
}

// call writes to head what update d needs there (its apply function and its table; the shared
// function of its body, the first time) and returns the update's own text (what the catalogue
// says of it, and the table of a season's field, whose range the call reads), its doc and its
// callback, which runs the shared function on the update's table.
func (u *updates) call(head *bytes.Buffer, d *data, body string, batch bool) (text, doc, callback string, err error) {
	s, ok := u.shared[body]
	if !ok {
		s = &sharedUpdate{name: u.name(d, batch), usage: d.Usage}
		u.shared[body] = s
		form := "single"
		if batch {
			form = "batch"
		}
		fmt.Fprintf(head, "\n-- %s: the %s field updates' body (u: F.<operation>), as %s takes them:\n", s.name, form, d.Op)
		for _, line := range s.usage {
			fmt.Fprintf(head, "-- %s\n", line)
		}
		fmt.Fprintf(head, "local function %s(KEYS, ARGV, u)\n%send\n", s.name, body)
	}
	fn := s.name
	own := *d
	// The batch form's doc is the single form's title and "(batch)": it says only its own lines.
	own.Usage = nil
	for _, line := range d.Usage {
		if !slices.Contains(s.usage, line) {
			own.Usage = append(own.Usage, line)
		}
	}
	// A batch applies its updates as the single form does: one apply function and one table
	// serve both.
	single := strings.TrimSuffix(d.Op, "_many")
	apply, table := "F.apply_"+single, "F."+single
	dest := head
	if u.written[table] {
		dest = &bytes.Buffer{}
	}
	u.written[table] = true
	if made := madeApply(d); made != "" {
		apply = made // made by one of the head's functions, when the library loads
	} else {
		// Its own (a season-anchored field's reads the call's season, which the body sets).
		d.Fn = apply
		if err := tmpl.ExecuteTemplate(dest, "apply_fn", d); err != nil {
			return "", "", "", err
		}
		dest.WriteString("\n")
	}
	g := d.Target
	var what bytes.Buffer
	fmt.Fprintf(&what, "{get = F.get_%d, put = F.put_%d, apply = %s", g.Index, g.Index, apply)
	if g.InScore && d.Bits62 {
		fmt.Fprintf(&what, ", digit = %d", g.Digit)
	} else if g.InScore {
		fmt.Fprintf(&what, ", weight = %s, radix = %s", g.Weight, g.Radix)
	}
	if d.Stamped {
		var stamps []string
		for _, s := range d.Stamps {
			stamps = append(stamps, "stamp_"+s.Stamp)
		}
		fmt.Fprintf(&what, ", stamps = {%s}", strings.Join(stamps, ", "))
	}
	what.WriteString("}")
	if dest == head {
		// Built once, when the library loads: a call creates no table to say what it updates.
		fmt.Fprintf(&u.tables, "%s = %s\n", table, what.String())
	}
	w, err := writeOf(d.Op, d.Args)
	doc = docOf(&own)
	if batch && len(own.Usage) == 0 {
		doc = ""
	}
	return fmt.Sprintf("  return %s(KEYS, ARGV, %s)\n", fn, table), doc,
		fmt.Sprintf("%s, %s, %s)", w, fn, table), err
}

// madeApply is the Lua expression that makes the apply function of update d with one of the
// head's functions (set_digit, add_digit), or "" for an update whose apply
// function is its own: of a field too wide for doubles, or of a season-anchored one, whose
// range the call's season bounds.
func madeApply(d *data) string {
	g := d.Target
	if g.Wide || g.Season {
		return ""
	}
	field := fmt.Sprintf("F.range_%d", g.Index) // the field's name, range and largest digit (fields.lua.tmpl)
	switch {
	case d.Kind == "add":
		sign := 1
		if g.Asc {
			sign = -1
		}
		return fmt.Sprintf("add_digit(%s, %d, %t)", field, sign, d.Saturate)
	case d.BestOf:
		return fmt.Sprintf("set_digit(%s, %t)", field, d.KeepLarger)
	}
	return fmt.Sprintf("set_digit(%s)", field)
}

// writeDocs are the usage lines of the arguments every write function takes first
// (catalog.WriteArgs: the expiry, the token and its window), as the first write operation
// says them: the library's head says them once.
func writeDocs(l *layout.Layout) ([]string, error) {
	n := len(catalog.WriteArgs()) / 2 // two arguments a line
	for _, op := range catalog.Scripts(l) {
		if op.ReadOnly || len(op.Usage) < n {
			continue
		}
		d, err := scriptData(l, op)
		if err != nil {
			return nil, err
		}
		return d.Usage[:n], nil
	}
	return nil, nil
}

// withoutPrefix is lines without its first lines when they are prefix.
func withoutPrefix(lines, prefix []string) []string {
	if len(prefix) == 0 || len(lines) < len(prefix) || !slices.Equal(lines[:len(prefix)], prefix) {
		return lines
	}
	return lines[len(prefix):]
}

// indent indents every line but the blank ones by two spaces: a callback's body.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) != "" {
			lines[i] = "  " + line
		}
	}
	return strings.Join(lines, "")
}

// allFields is every field of the layout, for the accessors the library defines once.
func allFields(l *layout.Layout) []*field {
	out := make([]*field, len(l.Fields))
	for i, f := range l.Fields {
		out[i] = newField(l, f)
		out[i].Ranged = len(f.Updates) > 0 && !out[i].Wide && !out[i].Season
	}
	return out
}

// scriptData is what the template of op sees.
func scriptData(l *layout.Layout, op catalog.Op) (*data, error) {
	var d *data
	var err error
	switch op.Body {
	case catalog.BodyFieldUpdate:
		d, err = updateData(l, op)
	case catalog.BodyChangeList:
		d, err = changesData(l, op)
	case catalog.BodyStamps:
		d = newData(l)
		d.Scores = true
		err = addStamps(l, nil, d) // every stamped field
	default:
		d = newData(l)
		d.Scores = op.Scores
	}
	if err != nil {
		return nil, err
	}
	d.Op, d.Args, d.ReadOnly = op.Name, op.Args, op.ReadOnly
	d.Data = d.Data && op.Data.Touches()
	if d.Title, err = positions(op.Title, op.Args); err != nil {
		return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
	}
	for _, line := range op.Usage {
		u, err := positions(line, op.Args)
		if err != nil {
			return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
		}
		d.Usage = append(d.Usage, u)
	}
	seasonGuards(l, op, d)
	if op.Body == catalog.BodyFieldUpdate {
		// One body serves every field's update of a form: what differs by field is in u, and the
		// body sets the call's season whenever some update reads it.
		clock, err := clockData(l)
		if err != nil {
			return nil, err
		}
		d.SeasonBounds, d.SeasonOffsets, d.Stamped = clock.SeasonBounds, clock.SeasonOffsets, len(clock.Stamps) > 0
	}
	if l.NumScore > 0 { // for the reads that compare on it (competition, dense)
		d.Lead = newField(l, l.Fields[0])
	}
	return d, nil
}

// placeholder is an argument named in the catalogue's script docs: {id}, {each}. Other braces
// ({P, member}, {P}) are Lua tables, left as they are.
var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// positions renders the catalogue's doc text with ARGV positions: {name} becomes ARGV[n],
// {each} the first position of the repeated group, ARGV[n..].
func positions(text string, a catalog.Args) (string, error) {
	var err error
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		name := m[1 : len(m)-1]
		if name == "each" {
			return fmt.Sprintf("ARGV[%d..]", a.Fixed()+1)
		}
		i, e := a.At(name)
		if e != nil {
			err = fmt.Errorf("doc text %q: %w", text, e)
		}
		return fmt.Sprintf("ARGV[%d]", i)
	})
	return out, err
}

// clockData is what the head's clock sees: every stamped field of l (the stamp functions are
// defined once, for the scripts that stamp) and the season guards some script makes, with the
// arguments of the scripts that stamp (catalog.UpdateArgsOf: the clock and the season's bounds).
func clockData(l *layout.Layout) (*data, error) {
	d := newData(l)
	d.Args = catalog.UpdateArgsOf(l)
	if err := addStamps(l, nil, d); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, s := range d.Stamps {
		for _, name := range []string{"stamp_" + s.Stamp, "stamp_digit_" + s.Stamp} {
			if names[name] || !luaName.MatchString(name) {
				return nil, fmt.Errorf("luaemit: field %s: its stamp's function %s is no Lua name of its own", s.Name, name)
			}
			names[name] = true
		}
	}
	if l.Season != nil {
		d.SeasonOffsets = len(catalog.SeasonFields(l)) > 0
		d.SeasonBounds = d.SeasonOffsets || len(d.Stamps) > 0
	}
	return d, nil
}

// luaName is a Lua name of ASCII letters, digits and underscores.
var luaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// sameClock reports whether a and b take the client's clock and the season's bounds at the same
// positions (those of b that a takes).
func sameClock(a, b catalog.Args) bool {
	for _, name := range []string{catalog.ArgClock, catalog.ArgFrom, catalog.ArgUntil} {
		if !b.Takes(name) {
			continue
		}
		i, err := a.At(name)
		j, _ := b.At(name)
		if err != nil || i != j {
			return false
		}
	}
	return true
}

// auxWord is the name of the board's side key (its index or meta key) in a function's body.
var auxWord = regexp.MustCompile(`\baux\b`)

// boardOnly is a function's body without the side key in its header line when nothing else in
// the body reads it (a read of places names the board alone).
func boardOnly(text string) string {
	const both = "local board, aux = KEYS[1], KEYS[2]\n"
	if strings.Count(text, both) == 1 && len(auxWord.FindAllString(text, -1)) == 1 {
		return strings.Replace(text, both, "local board = KEYS[1]\n", 1)
	}
	return text
}
