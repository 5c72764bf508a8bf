// Package luaemit renders a layout's Lua scripts from the templates in templates/: one
// script per operation of generator/catalog that has a template, each with the layout's
// constants (radices, weights, widths, member offsets, 10^w for decimal scores, the
// fingerprint) and the catalogue's argument positions written into its text. luaemit.go
// renders, data.go builds what the templates see, lua.go writes Lua literals.
//
// The scripts do the digit arithmetic of the Go codec on Lua's doubles, which is exact
// below 2^53 (math.floor and %, never the 32-bit bit library); they take every key as KEYS
// and every id and value as ARGV, and declare their keys with a #!lua shebang so that an
// undeclared key fails loudly on Redis Cluster.
package luaemit

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/templates"
)

// Script is one generated Lua script.
type Script struct {
	Op     string // the operation: "set", "add_points", …
	File   string // its file name, l.LuaFile(Op)
	Source string // its text
}

var tmpl = template.Must(templates.Parse(nil))

// exact is 2^53: the Lua side keeps every number it computes below it.
const exact = 1 << 53

// Scripts renders the script of every operation of the layout that has one, in catalogue
// order: set, best, remove, trim, the field updates in field order, then the reads.
func Scripts(l *layout.Layout) ([]Script, error) {
	var out []Script
	for _, op := range catalog.Scripts(l) {
		d, err := scriptData(l, op)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, op.Template, d); err != nil {
			return nil, fmt.Errorf("luaemit: %s: %w", op.Name, err)
		}
		out = append(out, Script{Op: op.Name, File: l.LuaFile(op.Name), Source: tidy(b.String())})
	}
	return out, nil
}

// scriptData is what the template of op sees.
func scriptData(l *layout.Layout, op catalog.Op) (*data, error) {
	var d *data
	if op.Kind == catalog.Update {
		var err error
		if d, err = updateData(l, op); err != nil {
			return nil, err
		}
	} else {
		d = newData(l)
		var ok bool
		if d.Title, d.Usage, ok = prose(l, op); !ok {
			return nil, fmt.Errorf("luaemit: %s: no title and usage for operations of kind %s (a bug in rankgen; please report it)", op.Name, op.Kind)
		}
		d.Scores = op.Kind == catalog.Best
	}
	d.Op, d.Args, d.ReadOnly, d.AllowOOM = op.Name, op.Args, op.ReadOnly, op.OnlyDeletes
	if op.Kind == catalog.Competition {
		d.Lead = newField(l, l.Fields[0], 0)
	}
	return d, nil
}

// prose is the title and usage lines of a script other than a field update, its argument
// positions read from the catalogue; ok is false for a kind it does not know.
func prose(l *layout.Layout, op catalog.Op) (title string, usage []string, ok bool) {
	a := op.Args
	many := fmt.Sprintf("ARGV[%d..]", a.Fixed()+1)
	switch op.Kind {
	case catalog.Set:
		return "set: upsert whole entries.", []string{expiryUsage(a),
			many + ": score, member pairs (encoded by the Go codec). Returns the number of pairs."}, true
	case catalog.Best:
		return "best: keep, per id, whichever of the current and the given entry ranks first (whole tuple).", []string{expiryUsage(a),
			many + ": score, member pairs. Returns 1 (kept the given entry) or 0 for each pair."}, true
	case catalog.Remove:
		return "remove: delete entries by id.", []string{expiryUsage(a), many + ": ids. Returns how many entries were removed."}, true
	case catalog.Trim:
		return "trim: keep the first " + argv(a, catalog.ArgKeep) + " entries, drop the rest.", []string{expiryUsage(a),
			argv(a, catalog.ArgKeep) + ": how many entries to keep. Returns how many were removed."}, true
	case catalog.Get:
		return "get: an entry's score and member by id.", []string{
			argv(a, catalog.ArgID) + ": the id. Returns {score, member}, or nil when the id has no entry."}, true
	case catalog.Rank:
		return "rank: an entry's 0-based position, best first, by id.", []string{
			argv(a, catalog.ArgID) + ": the id. Returns the position, or nil when the id has no entry."}, true
	case catalog.Around:
		return "around: the entries around an id, best first.", []string{
			argv(a, catalog.ArgID) + ": the id; " + argv(a, catalog.ArgBefore, catalog.ArgAfter) + ": how many entries before and after it.",
			"Returns {position of the first entry, {member, score, ...}}, or nil when the id has no entry."}, true
	case catalog.After:
		return "after: a keyset page, the entries that rank after a cursor (score, member).", []string{
			argv(a, catalog.ArgScore, catalog.ArgMember) + ": the cursor's score and member (member '' = from the top); " + argv(a, catalog.ArgLimit) + ": the page size.",
			"Returns {position of the first entry, {member, score, ...}}."}, true
	case catalog.Competition:
		lead := l.Fields[0].Name
		return "competition: 1 + the number of entries ahead on " + lead + " (equal " + lead + " share a rank).", []string{
			argv(a, catalog.ArgID) + ": the id. Returns the rank, or nil when the id has no entry."}, true
	}
	return "", nil, false
}

func expiryUsage(a catalog.Args) string {
	return argv(a, catalog.ArgMode, catalog.ArgMS) + ": expiry mode ('', 'px' or 'pxat') and its milliseconds, applied to both keys."
}

// argv writes the ARGV positions of head arguments: "ARGV[1], ARGV[2]". An argument the
// catalogue does not give the script is a bug in rankgen, caught by every golden test.
func argv(a catalog.Args, names ...string) string {
	var parts []string
	for _, name := range names {
		i, err := a.At(name)
		if err != nil {
			panic(err)
		}
		parts = append(parts, fmt.Sprintf("ARGV[%d]", i))
	}
	return strings.Join(parts, ", ")
}
