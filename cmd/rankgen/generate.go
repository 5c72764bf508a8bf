package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/vet"
)

func init() {
	register(&command{
		name:  "generate",
		args:  "schema.yaml…",
		short: "write the generated files of one or more schemas",
		long: `Generate parses each schema and writes its generated files: <stem>.rankgen.go (the Go
package: Entry, Encode, Decode, Compare, Board) and <stem>.rankgen.lua (the layout's part of
its Lua library: one Redis function per board operation, loaded behind the runtime's Lua
head), where <stem> is the schema's file name without .yaml.

Files go to the schema's own directory, or to -o dir. With -py dir it also writes the
schema's Python client there, <stem>_rankgen.py for redis-py (docs/python.md); with -ts dir,
its TypeScript module, <stem>.rankgen.ts (docs/typescript.md). Only files whose bytes change are
written (so unchanged files keep their modification times), and files that carry the
generated-code header for this schema but are no longer produced (a removed update
operation, say) are deleted. Nothing else in the directory is touched. A directory whose
other Go files declare a different package is refused: the result would not compile.

A time field whose range has ended, or ends within a year, is reported as a warning with the
date (rankgen vet's TIME_ENDED and TIME_ENDS_SOON); with -strict it is an error and nothing is
written for that schema.

A package file (a boards: key, docs/game.md) generates one Go package and one Lua library of
all its boards: <stem>.rankgen.go and <stem>.rankgen.lua (the package file's stem) and each
board's <board>.rankgen.go; -py and -ts write each board's client, its schema's own.

All of a schema's errors are printed, one per line as file:line:col: message, and nothing is
written for that schema. Run it from a go:generate directive beside the schema:

	//go:generate go tool rankgen generate arena.yaml

Exit status: 0 when every schema generated, 1 on schema or I/O errors, 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			out := fs.String("o", "", "write the files to `dir` (default: the schema's directory)")
			verbose := fs.Bool("v", false, "list each file written or deleted on stderr")
			strict := fs.Bool("strict", false, "treat a time range that has ended or ends within a year as an error")
			py := fs.String("py", "", "also write the Python module <stem>_rankgen.py to `dir`")
			ts := fs.String("ts", "", "also write the TypeScript module <stem>.rankgen.ts to `dir` (docs/typescript.md)")
			return func(e *env, args []string) int {
				return generateOrCheck(e, "generate", *out, args, false, *verbose, *strict, clients{py: *py, ts: *ts})
			}
		},
	})
	register(&command{
		name:  "check",
		args:  "schema.yaml…",
		short: "verify that committed generated files are up to date",
		long: `Check does everything generate does except write: it compares what generate would write
with what is in the output directory (the schema's directory, or -o dir) and fails when a
file is stale, missing, or orphaned (it carries the generated-code header for this schema
but the schema no longer produces it).

With -py dir it checks the Python client there too, and with -ts dir the TypeScript module.

For each such file it prints a unified diff on stdout, from the files on disk to the files
generate would write (so "rankgen check … | patch -p0", run from the same directory, brings
them up to date), and a one-line summary on stderr. Use it in CI to catch a schema edited
without regenerating, or generated code edited by hand.

Exit status: 0 when everything is up to date, 1 when anything is stale, missing or
orphaned (or on schema and I/O errors), 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			out := fs.String("o", "", "compare with the files in `dir` (default: the schema's directory)")
			py := fs.String("py", "", "also compare the Python module with the one in `dir`")
			ts := fs.String("ts", "", "also check the TypeScript module <stem>.rankgen.ts in `dir`")
			return func(e *env, args []string) int {
				return generateOrCheck(e, "check", *out, args, true, false, false, clients{py: *py, ts: *ts})
			}
		},
	})
}

// target is one schema's generated files and where they go.
type target struct {
	schema string // path as given on the command line
	dir    string // output directory as given (for messages), "" = current
	l      *layout.Layout
	files  []generator.File
	client bool // a client of another language: no Go package rules apply to its directory
	// clients: a package of boards' clients of other languages written elsewhere, one target each.
	clients []*target
}

// clients are the directories of the other languages' clients to generate (-py, -ts), "" =
// none.
type clients struct {
	py, ts string
}

// clientTargets are the targets of the other languages' clients of t's schema: in t's own
// directory, their files join t's (so that neither sees the other's as orphans).
func clientTargets(e *env, t *target, c clients) ([]*target, error) {
	var more []*target
	for _, client := range []struct {
		dir   string
		files func(*layout.Layout) ([]generator.File, error)
	}{{c.py, clientFiles(generator.Python, generator.PythonPrevious)}, {c.ts, clientFiles(generator.TypeScript, generator.TypeScriptPrevious)}} {
		if client.dir == "" {
			continue
		}
		fs, err := client.files(t.l)
		if err != nil {
			return nil, err
		}
		if e.path(filepath.Clean(client.dir)) == e.path(t.dir) {
			t.files = append(t.files, fs...)
			continue
		}
		more = append(more, &target{schema: t.schema, dir: filepath.Clean(client.dir), l: t.l, files: fs, client: true})
	}
	return more, nil
}

// clientFiles are a client's modules of a layout: its own (own) and, where the layout names the
// one it replaces, that layout's (previous), which its own imports.
func clientFiles(own func(*layout.Layout) (generator.File, error), previous func(*layout.Layout) (generator.File, bool, error)) func(*layout.Layout) ([]generator.File, error) {
	return func(l *layout.Layout) ([]generator.File, error) {
		f, err := own(l)
		if err != nil {
			return nil, err
		}
		prev, ok, err := previous(l)
		if err != nil || !ok {
			return []generator.File{f}, err
		}
		return []generator.File{f, prev}, nil
	}
}

// change is one file that differs between disk and what generate produces.
type change struct {
	path     string // path for messages (output dir as given + name)
	disk     string // path on disk
	old, new []byte // old nil: missing; new nil: orphaned
	mode     fs.FileMode
}

func (c change) what() string {
	switch {
	case c.old == nil:
		return "missing"
	case c.new == nil:
		return "orphaned (no longer generated)"
	}
	return "stale"
}

func generateOrCheck(e *env, cmd, out string, args []string, check, verbose, strict bool, langs clients) int {
	if len(args) == 0 {
		return usageFail(e, commands[cmd], "no schema given")
	}
	var targets []*target
	failed := false
	for _, schema := range args {
		if boards, _, isBoards, ok := loadBoards(e, cmd, schema); isBoards {
			t, ok := boardsTarget(e, cmd, schema, out, boards, ok, check, strict, langs)
			if !ok {
				failed = true
				continue
			}
			targets = append(append(targets, t), t.clients...)
			continue
		}
		l, ok := loadSchema(e, cmd, schema)
		if !ok || !check && !timeLint(e, schema, l, strict) {
			failed = true
			continue
		}
		if s := l.SuggestBits62(); s != "" && !check {
			fmt.Fprintf(e.stderr, "%s: %s\n", schema, s)
		}
		files, err := generator.FromLayout(l)
		if err != nil {
			printError(e, cmd, err)
			failed = true
			continue
		}
		dir := out
		if dir == "" {
			dir = filepath.Dir(schema)
		}
		t := &target{schema: schema, dir: filepath.Clean(dir), l: l, files: files}
		more, err := clientTargets(e, t, langs)
		if err != nil {
			printError(e, cmd, err)
			failed = true
			continue
		}
		targets = append(append(targets, t), more...)
	}
	if !sameDirRules(e, cmd, targets) || !packageRules(e, cmd, targets) {
		return exitFail
	}
	var changes []change
	for _, t := range targets {
		cs, err := plan(e, t)
		if err != nil {
			e.errorf(cmd, "%v", err)
			failed = true
			continue
		}
		changes = append(changes, cs...)
	}
	if check {
		for _, c := range changes {
			oldName, newName := c.path, c.path
			if c.old == nil {
				oldName = "/dev/null"
			}
			if c.new == nil {
				newName = "/dev/null"
			}
			fmt.Fprint(e.stdout, unifiedDiff(oldName, newName, c.old, c.new))
		}
		for _, c := range changes {
			e.errorf(cmd, "%s is %s", c.path, c.what())
		}
		if len(changes) > 0 {
			fmt.Fprintf(e.stderr, "rankgen check: %d generated file(s) out of date; run rankgen generate (or go generate) and commit the result\n", len(changes))
			failed = true
		}
	} else if !apply(e, cmd, changes, verbose) {
		failed = true
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// sameDirRules refuses two schemas that would write into one directory with different Go
// packages or with the same stem (their files would overwrite each other).
func sameDirRules(e *env, cmd string, targets []*target) bool {
	ok := true
	byDir := map[string]*target{}
	byFile := map[string]*target{}
	for _, t := range targets {
		dir := e.path(t.dir)
		if first := byDir[dir]; t.client {
			// A client module's directory holds no Go package: any schemas may share it; only
			// their files' names may clash.
		} else if first != nil && first.l.Package != t.l.Package {
			e.errorf(cmd, "%s (package %s) and %s (package %s) would both write into %s; one directory holds one Go package: give each its own -o",
				first.schema, first.l.Package, t.schema, t.l.Package, t.dir)
			ok = false
		} else if first == nil {
			byDir[dir] = t
		}
		// One message per pair of schemas, naming the first file they both write.
		clashes := map[*target][]string{}
		var order []*target
		for _, f := range t.files {
			key := filepath.Join(dir, f.Name)
			if first := byFile[key]; first != nil && first != t {
				if clashes[first] == nil {
					order = append(order, first)
				}
				clashes[first] = append(clashes[first], filepath.Join(t.dir, f.Name))
				continue
			}
			byFile[key] = t
		}
		for _, first := range order {
			files := clashes[first]
			more := ""
			if len(files) > 1 {
				more = " (among others)"
			}
			e.errorf(cmd, "%s and %s both generate %s%s; give them different file names or output directories", first.schema, t.schema, files[0], more)
			ok = false
		}
	}
	return ok
}

// packageRules refuses to write a package into a directory whose other Go files (not
// generated from this schema) declare a different package: the result would not compile,
// and the fix is in the schema's package: key or in -o.
func packageRules(e *env, cmd string, targets []*target) bool {
	ok := true
	for _, t := range targets {
		if t.client {
			continue
		}
		dir := e.path(t.dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // a missing directory is created; other errors surface when writing
		}
		for _, ent := range entries {
			name := ent.Name()
			if !ent.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || name == t.l.GoFile() {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly)
			if err != nil {
				continue // not Go we can read; the compiler will say more
			}
			pkg := f.Name.Name
			if strings.HasSuffix(name, "_test.go") {
				pkg = strings.TrimSuffix(pkg, "_test")
			}
			if pkg != t.l.Package {
				e.errorf(cmd, "%s declares package %s, but %s generates package %s into the same directory; set \"package: %s\" in the schema, or write elsewhere with -o",
					filepath.Join(t.dir, name), f.Name.Name, t.schema, t.l.Package, pkg)
				ok = false
				break
			}
		}
	}
	return ok
}

// plan compares a target's files with its output directory: changed or missing files, and
// orphans (files carrying this schema's generated header that it no longer produces).
func plan(e *env, t *target) ([]change, error) {
	dir := e.path(t.dir)
	var changes []change
	produced := map[string]bool{}
	for _, f := range t.files {
		produced[f.Name] = true
		disk := filepath.Join(dir, f.Name)
		c := change{path: filepath.Join(t.dir, f.Name), disk: disk, new: f.Data, mode: 0o644}
		old, err := os.ReadFile(disk)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, c)
			continue
		case err != nil:
			return nil, err
		}
		if !bytes.Equal(old, f.Data) {
			c.old = old
			if info, err := os.Stat(disk); err == nil {
				c.mode = info.Mode().Perm()
			}
			changes = append(changes, c)
		}
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return changes, nil
	}
	if err != nil {
		return nil, err
	}
	var orphans []change
	for _, ent := range entries {
		if produced[ent.Name()] || !ent.Type().IsRegular() {
			continue
		}
		disk := filepath.Join(dir, ent.Name())
		data, err := readHead(disk)
		if err != nil {
			return nil, err
		}
		if !generator.IsGenerated(data, t.l.File) {
			continue
		}
		full, err := os.ReadFile(disk)
		if err != nil {
			return nil, err
		}
		orphans = append(orphans, change{path: filepath.Join(t.dir, ent.Name()), disk: disk, old: full})
	}
	sort.Slice(orphans, func(i, j int) bool { return orphans[i].path < orphans[j].path })
	return append(changes, orphans...), nil
}

// readHead reads the first few KiB of a file: enough for the generated-code header.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:n], err
}

// apply writes changed and missing files (atomically: a temporary file renamed into place)
// and deletes orphans.
func apply(e *env, cmd string, changes []change, verbose bool) bool {
	ok := true
	for _, c := range changes {
		var err error
		if c.new == nil {
			err = os.Remove(c.disk)
		} else {
			err = writeFile(c.disk, c.new, c.mode)
		}
		if err != nil {
			e.errorf(cmd, "%v", err)
			ok = false
			continue
		}
		if verbose {
			verb := "wrote"
			if c.new == nil {
				verb = "deleted"
			}
			fmt.Fprintf(e.stderr, "%s %s\n", verb, c.path)
		}
	}
	return ok
}

func writeFile(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), mode)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// loadSchema reads and parses a schema, printing every diagnostic on failure.
func loadSchema(e *env, cmd, schema string) (*layout.Layout, bool) {
	src, err := os.ReadFile(e.path(schema))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			e.errorf(cmd, "%s: no such file", schema)
		} else {
			e.errorf(cmd, "%v", err)
		}
		return nil, false
	}
	l, err := layout.Parse(schema, src)
	if err == nil {
		err = layout.LoadPrevious(l, schema, func(path string) ([]byte, error) { return os.ReadFile(e.path(path)) })
	}
	if err != nil {
		printError(e, cmd, err)
		return nil, false
	}
	return l, true
}

// loadBoards reads schema when it is a package file (a boards: key): isBoards, whether it and
// every board's schema parsed (each problem printed), and the text of each board's schema by
// its path.
func loadBoards(e *env, cmd, schema string) (p *layout.Boards, srcs map[string][]byte, isBoards, ok bool) {
	src, err := os.ReadFile(e.path(schema))
	if err != nil || !layout.IsBoards(src) {
		return nil, nil, false, false // loadSchema reports what is wrong with it
	}
	srcs = map[string][]byte{}
	p, err = layout.ParseBoards(schema, src, func(path string) ([]byte, error) {
		text, err := os.ReadFile(e.path(path))
		srcs[path] = text
		return text, err
	})
	if err != nil {
		printError(e, cmd, err)
		return nil, nil, true, false
	}
	return p, srcs, true, true
}

// boardsTarget is the target of a package of boards: its files, written beside the package
// file unless out says where.
func boardsTarget(e *env, cmd, schema, out string, p *layout.Boards, parsed, check, strict bool, langs clients) (*target, bool) {
	if !parsed {
		return nil, false
	}
	ok := true
	for _, b := range p.Boards {
		if !check && !timeLint(e, b.Layout.File, b.Layout, strict) {
			ok = false
		}
		if s := b.Layout.SuggestBits62(); s != "" && !check {
			fmt.Fprintf(e.stderr, "%s: %s\n", b.Layout.File, s)
		}
	}
	files, err := generator.GenerateBoards(p)
	if err != nil {
		printError(e, cmd, err)
		return nil, false
	}
	dir := out
	if dir == "" {
		dir = filepath.Dir(schema)
	}
	// The package's own Go file stands for the package in the directory rules; every file
	// carries the package file's header.
	l := &layout.Layout{File: p.File, Package: p.Package}
	t := &target{schema: schema, dir: filepath.Clean(dir), l: l, files: files}
	// Each board's client of another language is its schema's own (its layout's library): it
	// reads and writes the package's boards of that layout; submissions and removals are Go's.
	for _, b := range p.Boards {
		bt := &target{schema: filepath.Join(filepath.Dir(schema), filepath.FromSlash(b.Schema)), dir: t.dir, l: b.Layout}
		more, err := clientTargets(e, bt, langs)
		if err != nil {
			printError(e, cmd, err)
			return nil, false
		}
		t.files = append(t.files, bt.files...) // a client written beside the package
		t.clients = append(t.clients, more...)
	}
	return t, ok
}

// timeLint reports the time fields of l (the schema file given as schema) whose range has ended or ends within a year: as
// warnings, or under strict as errors (it then returns false).
func timeLint(e *env, schema string, l *layout.Layout, strict bool) bool {
	severity := "warning"
	if strict {
		severity = "error"
	}
	findings := vet.TimeRanges(vet.Schema{Layout: l, Name: schema}, vet.Options{Now: e.clock(), Years: 1})
	for _, f := range findings {
		fmt.Fprintf(e.stderr, "%s:%d:%d: %s %s: %s; fix: %s\n", f.File, f.Line, f.Col, severity, f.Rule, f.Message, f.Fix)
	}
	return !strict || len(findings) == 0
}

// printError prints schema diagnostics one per line (file:line:col: message), other errors
// after the command's name.
func printError(e *env, cmd string, err error) {
	var ds layout.Diagnostics
	if errors.As(err, &ds) {
		for _, d := range ds {
			fmt.Fprintln(e.stderr, d.String())
		}
		return
	}
	e.errorf(cmd, "%s", strings.TrimSpace(err.Error()))
}
