// Package luaemit renders a layout's Lua library from the templates in templates/: one
// Redis Functions library per layout, whose head defines once what its functions share (the
// layout's constants: radices, weights, widths, member offsets, 10^w for decimal scores, the
// fingerprint; the score codec, the field accessors) and which registers one function per
// operation of generator/catalog that has a template, with the catalogue's argument positions
// written into its text. luaemit.go renders, view.go builds what the templates see, lua.go
// writes Lua literals.
//
// The functions do the digit arithmetic of the Go codec on Lua's doubles, which is exact
// below 2^53 (math.floor and %, never the 32-bit bit library); they take every key as KEYS
// and every id and value as ARGV, and the library makes no call to Redis when it loads.
package luaemit

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/templates"
)

// Library is a layout's generated Lua library.
type Library struct {
	Name      string // <stem>_<hash of the text>: the library's name and its functions' prefix
	File      string // its file name, l.LuaFile()
	Source    string // its text
	Functions []Function
}

// Function is one function of the library, for one operation.
type Function struct {
	Op       string // the operation: "set", "add_points", …
	Name     string // its name on the server: <Library.Name>_<Op>
	ReadOnly bool   // flagged no-writes: called with FCALL_RO
	Body     string // the text of its callback (a field update's calls the head's shared update_<n>)
}

var tmpl = template.Must(templates.Parse(nil))

// exact is 2^53: the Lua side keeps every number it computes below it.
const exact = 1 << 53

// unnamed stands for the library's name while its text is hashed.
const unnamed = "@LIBRARY@"

// Render renders the layout's library: its head, then one function per operation that has a
// template, in catalogue order (set, best, remove, trim, the field updates in field order,
// then the reads).
func Render(l *layout.Layout) (*Library, error) {
	var b bytes.Buffer
	var err error
	head := newData(l)
	head.Library = unnamed
	head.Touched = allFields(l)
	head.Args = catalog.Args{Head: catalog.WriteArgs()}
	if head.WriteDocs, err = writeDocs(l); err != nil {
		return nil, err
	}
	if err := tmpl.ExecuteTemplate(&b, "library", head); err != nil {
		return nil, fmt.Errorf("luaemit: library: %w", err)
	}
	var fns []Function
	var regs bytes.Buffer
	u := updates{shared: map[string]string{}}
	for _, op := range catalog.Scripts(l) {
		d, err := scriptData(l, op)
		if err != nil {
			return nil, err
		}
		if !op.ReadOnly {
			d.Usage = withoutPrefix(d.Usage, head.WriteDocs)
		}
		var body bytes.Buffer
		if op.Kind == catalog.Update {
			d.Shared = true
		}
		if err := tmpl.ExecuteTemplate(&body, op.Template, d); err != nil {
			return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
		}
		text := indent(tidy(body.String()))
		if op.Kind == catalog.Update {
			if text, err = u.call(&b, d, text); err != nil {
				return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
			}
		}
		flags := ""
		if op.ReadOnly {
			flags = "'no-writes'"
		} else if op.OnlyDeletes {
			flags = "'allow-oom'"
		}
		fmt.Fprintf(&regs, "\nredis.register_function{function_name = '%s_%s', flags = {%s}, callback = function(KEYS, ARGV)\n  bind()\n%send}\n",
			unnamed, op.Name, flags, text)
		fns = append(fns, Function{Op: op.Name, ReadOnly: op.ReadOnly, Body: text})
	}
	// The functions beyond the board operations: a periodic layout's scripts across its
	// seasons, and the schema's feeds; writes, with no flags.
	register := func(op, text string) {
		fmt.Fprintf(&regs, "\nredis.register_function{function_name = '%s_%s', flags = {}, callback = function(KEYS, ARGV)\n  bind()\n%send}\n",
			unnamed, op, text)
		fns = append(fns, Function{Op: op, Body: text})
	}
	for _, op := range catalog.SeasonScripts(l) {
		text, err := seasonScript(l, op)
		if err != nil {
			return nil, err
		}
		register(op.Name, text)
	}
	for _, op := range catalog.Feeds(l) {
		text, err := renderFeed(l, op, head.WriteDocs)
		if err != nil {
			return nil, err
		}
		register(op.Name, text)
	}
	b.Write(regs.Bytes())
	src := tidy(b.String())
	name := libraryName(l.Stem(), src)
	for i := range fns {
		fns[i].Name = name + "_" + fns[i].Op
	}
	return &Library{Name: name, File: l.LuaFile(), Source: strings.ReplaceAll(src, unnamed, name), Functions: fns}, nil
}

// seasonScript renders the body of a script that works across a periodic layout's seasons
// (catalog.SeasonScripts): the rollup.
func seasonScript(l *layout.Layout, op catalog.Op) (string, error) {
	d := newData(l)
	d.Title, d.Usage, d.Args = op.Title, op.Usage, op.Args
	for _, f := range catalog.RollupFields(l) {
		d.Rollups = append(d.Rollups, rollupField{Index: slices.Index(l.Fields, f) + 1, Name: f.Name,
			Lo: num(f.Lo), Hi: num(f.Hi), Asc: f.Order == layout.Asc})
	}
	var body bytes.Buffer
	if err := tmpl.ExecuteTemplate(&body, op.Template, d); err != nil {
		return "", fmt.Errorf("luaemit: %s: %w", op.Name, err)
	}
	return indent(tidy(body.String())), nil
}

// updates writes the field updates once: near-identical updates (the same shape on other
// fields, another kind of update) share one Lua function update_<n>(KEYS, ARGV, u), which
// takes the operation's name (its tokens are recorded under it), the field's accessors, its
// apply function and its weight in u.
type updates struct {
	shared  map[string]string // a shared function's body -> its name
	applies map[string]bool   // the apply functions written
}

// call writes to head what update d needs there (its apply function; the shared function of
// its body, the first time) and returns its callback's body, which calls the shared function.
func (u *updates) call(head *bytes.Buffer, d *data, body string) (string, error) {
	if u.applies == nil {
		u.applies = map[string]bool{}
	}
	fn, ok := u.shared[body]
	if !ok {
		fn = fmt.Sprintf("update_%d", len(u.shared)+1)
		u.shared[body] = fn
		fmt.Fprintf(head, "\n-- %s is the field update %s and those like it; u is the update's table (F.<operation>).\nlocal function %s(KEYS, ARGV, u)\n%send\n", fn, d.Op, fn, body)
	}
	var local bytes.Buffer
	for _, line := range append([]string{d.Title}, d.Usage...) {
		fmt.Fprintf(&local, "-- %s\n", line)
	}
	// A batch applies its updates as the single form does: one apply function serves both.
	apply := "F.apply_" + strings.TrimSuffix(d.Op, "_many")
	dest := head
	if u.applies[apply] {
		dest = &bytes.Buffer{}
	}
	u.applies[apply] = true
	if d.Target.Season {
		// Its range depends on the call's season: the apply function reads the call's bounds.
		apply, dest = "apply", &local
		if err := tmpl.ExecuteTemplate(dest, "season_bounds", d); err != nil {
			return "", err
		}
	}
	d.Fn = apply
	if err := tmpl.ExecuteTemplate(dest, "apply_fn", d); err != nil {
		return "", err
	}
	dest.WriteString("\n")
	g := d.Target
	var what bytes.Buffer
	fmt.Fprintf(&what, "{op = '%s', get = F.get_%d, put = F.put_%d, apply = %s", d.Op, g.Index, g.Index, apply)
	if g.InScore && d.Bits62 {
		fmt.Fprintf(&what, ", digit = %d", g.Digit)
	} else if g.InScore {
		fmt.Fprintf(&what, ", weight = %s, radix = %s", g.Weight, g.Radix)
	}
	what.WriteString("}")
	if d.Target.Season {
		// Its apply function is the call's own: so is the table that carries it.
		fmt.Fprintf(&local, "return %s(KEYS, ARGV, %s)\n", fn, what.String())
	} else {
		// Built once, when the library loads: a call creates no table to say what it updates.
		fmt.Fprintf(head, "F.%s = %s\n", d.Op, what.String())
		fmt.Fprintf(&local, "return %s(KEYS, ARGV, F.%s)\n", fn, d.Op)
	}
	return indent(tidy(local.String())), nil
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

// libraryName is the stem (letters, digits and underscores only, as Redis wants) and 12 hex
// digits of the SHA-256 of the library's text.
func libraryName(stem, src string) string {
	safe := regexp.MustCompile(`[^A-Za-z0-9_]`).ReplaceAllString(stem, "_")
	return fmt.Sprintf("%s_%x", safe, sha256.Sum256([]byte(src)))[:len(safe)+13]
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
	}
	return out
}

// scriptData is what the template of op sees.
func scriptData(l *layout.Layout, op catalog.Op) (*data, error) {
	var d *data
	var err error
	switch op.Kind {
	case catalog.Update:
		d, err = updateData(l, op)
	case catalog.Changes:
		d, err = changesData(l, op)
	case catalog.Touch:
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
