package main

import (
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rankgen/rankgen/generator/layout"
)

// boardSchema is one schema a command works on: a schema given alone, or one board of a package
// file (a boards: key), which the command's output names.
type boardSchema struct {
	board string // the board's name in its package; "" for a schema given alone
	path  string // the schema's path as given or as the package file names it, for messages
	src   []byte
	l     *layout.Layout
}

// label is how a message names the schema's board: "board track: " or nothing.
func (s boardSchema) label() string {
	if s.board == "" {
		return ""
	}
	return "board " + s.board + ": "
}

// schemasOf reads the schema argument arg: a schema alone, or every board of a package file,
// in its order. Problems are printed; ok is false after any.
func schemasOf(e *env, cmd, arg string) (out []boardSchema, p *layout.Boards, ok bool) {
	src, err := os.ReadFile(e.path(arg))
	if err != nil || !layout.IsBoards(src) {
		l, ok := loadSchema(e, cmd, arg)
		if !ok {
			return nil, nil, false
		}
		return []boardSchema{{path: arg, src: src, l: l}}, nil, true
	}
	p, srcs, isBoards, ok := loadBoards(e, cmd, arg)
	if !isBoards || !ok {
		return nil, nil, false
	}
	for _, b := range p.Boards {
		at := path.Join(path.Dir(filepath.ToSlash(arg)), b.Schema) // as ParseBoards read it
		out = append(out, boardSchema{board: b.Name, path: filepath.FromSlash(at), src: srcs[at], l: b.Layout})
	}
	return out, p, true
}

// boardFlag is -board, which picks one board of a package file.
type boardFlag struct{ name string }

func (f *boardFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&f.name, "board", "", "the board `NAME` of a package file (a boards: key) to work on")
}

// pick returns the one schema of arg the command works on: the schema alone, or the package's
// board -board names. A package file without -board, or a -board of a schema alone, is a
// usage error (msg, with ok false and code 0); other problems are printed (code exitFail).
func (f *boardFlag) pick(e *env, cmd, arg string) (s boardSchema, p *layout.Boards, msg string, ok bool) {
	all, p, ok := schemasOf(e, cmd, arg)
	if !ok {
		return boardSchema{}, nil, "", false
	}
	if p == nil {
		if f.name != "" {
			return boardSchema{}, nil, fmt.Sprintf("-board %s: %s is a schema, not a package file; -board picks a board of a package file", f.name, arg), false
		}
		return all[0], nil, "", true
	}
	var names []string
	for _, s := range all {
		if s.board == f.name {
			return s, p, "", true
		}
		names = append(names, s.board)
	}
	if f.name == "" {
		return boardSchema{}, nil, fmt.Sprintf("%s is a package of boards (%s): choose one with -board", arg, strings.Join(names, ", ")), false
	}
	return boardSchema{}, nil, fmt.Sprintf("-board %s: %s has no such board; its boards are %s", f.name, arg, strings.Join(names, ", ")), false
}
