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
	"regexp"
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
	var err error
	switch op.Kind {
	case catalog.Update:
		d, err = updateData(l, op)
	case catalog.Changes:
		d, err = changesData(l, op)
	default:
		d = newData(l)
		d.Scores = op.Kind == catalog.Best || op.Kind == catalog.GetMany
	}
	if err != nil {
		return nil, err
	}
	d.Op, d.Args, d.ReadOnly, d.AllowOOM = op.Name, op.Args, op.ReadOnly, op.OnlyDeletes
	d.Data = d.Data && touchesData[op.Kind]
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
	if op.Kind == catalog.Competition || op.Kind == catalog.Dense {
		d.Lead = newField(l, l.Fields[0], 0)
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

// touchesData are the kinds of operation whose scripts use a board's data hash: the writes
// (which store, delete or expire it with the entries) and the reads that return entries.
var touchesData = map[catalog.Kind]bool{
	catalog.Set: true, catalog.Best: true, catalog.Remove: true, catalog.Trim: true, catalog.Update: true,
	catalog.Get: true, catalog.Page: true, catalog.Around: true, catalog.After: true, catalog.Bottom: true,
	catalog.GetMany: true, catalog.Range: true, catalog.Changes: true, catalog.Band: true, catalog.AroundScore: true,
}
