// Rankgen turns a reviewed leaderboard schema into exact Redis sorted-set encodings: a Go
// package (Entry, Encode, Decode, Compare, a Board) and its Redis Functions library (one
// function per board operation, every write one atomic call).
//
// Usage:
//
//	rankgen <command> [flags] [arguments]
//
// The commands are:
//
//	generate  write the generated files of one or more schemas
//	check     verify that committed generated files are up to date
//	breaking  report the changes to a schema that break stored boards or Go callers
//	vet       report schemas that are legal but risky, each with a fix
//	explain   print a schema's layout: fields, weights, capacity, time ranges
//	encode    encode JSON entries (one per line) to scores and members
//	decode    decode scores and members back to JSON entries
//	reindex   build a board's id → member index from its sorted set
//	migrate   re-encode a live board from an earlier layout to the schema's, resumably
//	serve     serve a read-only web page onto a live board
//	version   print rankgen's version and its generated-code version
//
// Run "rankgen -h" for every command's flags, "rankgen <command> -h" for one.
//
// In a Go module, pin rankgen with "go get -tool github.com/rankgen/rankgen/cmd/rankgen" and
// generate with a directive beside the schema:
//
//	//go:generate go tool rankgen generate arena.yaml
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rankgen/rankgen/text/suggest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0 // success
	exitFail  = 1 // schema errors, stale output, bad input lines, I/O errors
	exitUsage = 2 // the command line is wrong
)

// env is what a command runs against: its streams and the directory relative paths start
// from ("" = the process's working directory). Tests run commands in-process with their own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dir            string
	now            func() time.Time // the clock time-range checks read; nil = time.Now
}

// clock is the time that time-range checks measure from.
func (e *env) clock() time.Time {
	if e.now == nil {
		return time.Now()
	}
	return e.now()
}

// path resolves a path given on the command line.
func (e *env) path(p string) string {
	if e.dir == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.dir, p)
}

// errorf prints a "rankgen <cmd>: …" message to stderr.
func (e *env) errorf(cmd, format string, args ...any) {
	fmt.Fprintf(e.stderr, "rankgen %s: %s\n", cmd, fmt.Sprintf(format, args...))
}

// command is one subcommand. Each lives in its own file and registers itself from init, so
// a new command is a new file.
type command struct {
	name string
	args string // synopsis after the flags, e.g. "schema.yaml…"
	// required names flags the command cannot run without; the synopsis shows them
	// without brackets.
	required []string
	short    string // one line for the command list
	long     string // the help text: what it does, its output and exit codes
	// flags declares the command's flags on fs and returns the function that runs it with the
	// remaining arguments. Usage errors are reported with usageError.
	flags func(fs *flag.FlagSet) func(e *env, args []string) int
}

var commands = map[string]*command{}

func register(c *command) {
	if commands[c.name] != nil {
		panic("rankgen: command " + c.name + " registered twice")
	}
	commands[c.name] = c
}

func sortedCommands() []*command {
	cs := make([]*command, 0, len(commands))
	for _, c := range commands {
		cs = append(cs, c)
	}
	order := map[string]int{"generate": 0, "check": 1, "breaking": 2, "vet": 3, "explain": 4, "encode": 5, "decode": 6}
	rank := func(c *command) int {
		if r, ok := order[c.name]; ok {
			return r
		}
		if c.name == "version" {
			return 1000
		}
		return 100
	}
	sort.Slice(cs, func(i, j int) bool {
		if ri, rj := rank(cs[i]), rank(cs[j]); ri != rj {
			return ri < rj
		}
		return cs[i].name < cs[j].name
	})
	return cs
}

// run is the whole CLI: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runIn(&env{stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

func runIn(e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, overview())
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && name == "help" {
			c := commands[args[1]]
			if c == nil {
				fmt.Fprintf(e.stderr, "rankgen help: unknown command %q%s\n", args[1], didYouMean(args[1]))
				return exitUsage
			}
			fmt.Fprint(e.stdout, commandHelp(c))
			return exitOK
		}
		fmt.Fprint(e.stdout, fullHelp())
		return exitOK
	}
	c := commands[name]
	if c == nil {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(e.stderr, "rankgen: flags go after the command: rankgen <command> %s …\n\n%s", name, overview())
		} else {
			fmt.Fprintf(e.stderr, "rankgen: unknown command %q%s\n\n%s", name, didYouMean(name), overview())
		}
		return exitUsage
	}
	fs := flag.NewFlagSet("rankgen "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	body := c.flags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, commandHelp(c))
			return exitOK
		}
		return usageFail(e, c, err.Error())
	}
	return body(e, fs.Args())
}

// usageFail reports a usage error for c and returns exit code 2.
func usageFail(e *env, c *command, msg string) int {
	fmt.Fprintf(e.stderr, "rankgen %s: %s\nusage: %s\nRun 'rankgen %s -h' for details.\n", c.name, msg, synopsis(c), c.name)
	return exitUsage
}

func synopsis(c *command) string {
	s := "rankgen " + c.name
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	fs.VisitAll(func(f *flag.Flag) {
		arg := "-" + f.Name
		if name, _ := flag.UnquoteUsage(f); name != "" {
			arg += " " + name
		}
		if !slices.Contains(c.required, f.Name) {
			arg = "[" + arg + "]"
		}
		s += " " + arg
	})
	if c.args != "" {
		s += " " + c.args
	}
	return s
}

func overview() string {
	var b strings.Builder
	b.WriteString("Rankgen turns a leaderboard schema into exact Redis sorted-set encodings.\n\n")
	b.WriteString("usage: rankgen <command> [flags] [arguments]\n\ncommands:\n")
	for _, c := range sortedCommands() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.short)
	}
	b.WriteString("\nRun 'rankgen -h' for every command's flags, 'rankgen <command> -h' for one.\n")
	return b.String()
}

func fullHelp() string {
	var b strings.Builder
	b.WriteString(overview())
	b.WriteString("\nExit status: 0 on success, 1 on schema errors, stale output, bad input or I/O errors,\n2 on usage errors.\n")
	for _, c := range sortedCommands() {
		b.WriteString("\n")
		b.WriteString(commandHelp(c))
	}
	return b.String()
}

func commandHelp(c *command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", synopsis(c), strings.TrimSpace(c.long))
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		b.WriteString("\nflags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
	}
	return b.String()
}

func didYouMean(name string) string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	if best := suggest.Closest(name, names); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}
