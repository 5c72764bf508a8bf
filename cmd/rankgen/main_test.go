package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// testClock is the date every script runs on, so that time-range findings do not age.
func testClock() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }

var update = flag.Bool("update", false, "rewrite the stdout, stderr and exit sections of testdata/*.txtar")

// TestCLI runs the scripts in testdata/*.txtar, in the style of golang.org/x/tools/cmd/bisect:
//
//   - the archive comment holds the command: lines starting "#" are notes, lines starting
//     "> " are setup steps (a "rankgen …" command that must succeed, "cp FROM TO", "rm
//     FILE", "edit FILE OLD NEW", which replaces the first OLD, or "git …", run in the
//     directory, which must succeed; "> stdout-lines N" compares
//     only the first N lines of stdout, for output that shows generated text the emitters'
//     own goldens cover), and the one line starting "rankgen "
//     is the command under test; arguments may be Go-quoted strings;
//   - the files are written to a temporary directory, the command's working directory,
//     except "stdin" (its input), and "stdout", "stderr" and "exit" (what it must print and
//     return).
//
// The command runs in-process through run. go test ./cmd/rankgen -update rewrites the
// expectations; review the diff. Tests that embed generated code change whenever the
// generator's output does: rerun with -update when that change is intended.
func TestCLI(t *testing.T) {
	readBuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{GoVersion: "go1.x", Main: debug.Module{Path: modulePath, Version: "v0.0.0-test"}}, true
	}
	t.Cleanup(func() { readBuildInfo = debug.ReadBuildInfo })
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.txtar: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runScript(t, file)
		})
	}
}

func runScript(t *testing.T, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a := txtar.Parse(data)
	dir := t.TempDir()
	var stdin []byte
	want := map[string]string{}
	for _, f := range a.Files {
		switch f.Name {
		case "stdin":
			stdin = f.Data
		case "stdout", "stderr", "exit":
			want[f.Name] = string(f.Data)
		default:
			p := filepath.Join(dir, filepath.FromSlash(f.Name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var args []string
	stdoutLines := -1 // compare all of stdout
	for _, line := range strings.Split(string(a.Comment), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "> stdout-lines "):
			n, err := strconv.Atoi(strings.TrimPrefix(line, "> stdout-lines "))
			if err != nil {
				t.Fatalf("%s: bad %q", file, line)
			}
			stdoutLines = n
		case strings.HasPrefix(line, "> "):
			setup(t, dir, splitArgs(t, strings.TrimPrefix(line, "> ")))
		case strings.HasPrefix(line, "rankgen ") || line == "rankgen":
			if args != nil {
				t.Fatalf("%s: two commands under test", file)
			}
			args = splitArgs(t, line)[1:]
		default:
			t.Fatalf("%s: comment line %q is neither a note (#), a setup step (>) nor a rankgen command", file, line)
		}
	}
	if args == nil {
		t.Fatalf("%s: no command under test", file)
	}
	var stdout, stderr bytes.Buffer
	code := runIn(&env{stdin: bytes.NewReader(stdin), stdout: &stdout, stderr: &stderr, dir: dir, now: testClock}, args)
	out := stdout.String()
	if stdoutLines >= 0 {
		lines := strings.SplitAfter(out, "\n")
		out = strings.Join(lines[:min(stdoutLines, len(lines))], "")
	}
	got := map[string]string{"stdout": out, "stderr": stderr.String(), "exit": fmt.Sprintf("%d\n", code)}
	if *update {
		var kept []txtar.File
		for _, f := range a.Files {
			if f.Name != "stdout" && f.Name != "stderr" && f.Name != "exit" {
				kept = append(kept, f)
			}
		}
		for _, name := range []string{"stdout", "stderr", "exit"} {
			if got[name] != "" {
				kept = append(kept, txtar.File{Name: name, Data: []byte(got[name])})
			}
		}
		a.Files = kept
		if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"exit", "stdout", "stderr"} {
		if got[name] != want[name] {
			t.Errorf("%s differs (go test ./cmd/rankgen -update rewrites it):\n%s", name, unifiedDiff("want", "got", []byte(want[name]), []byte(got[name])))
		}
	}
}

func setup(t *testing.T, dir string, step []string) {
	t.Helper()
	switch {
	case step[0] == "rankgen":
		var stdout, stderr bytes.Buffer
		if code := runIn(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir}, step[1:]); code != 0 {
			t.Fatalf("setup %q exited %d:\n%s%s", step, code, stdout.String(), stderr.String())
		}
	case step[0] == "cp" && len(step) == 3:
		data, err := os.ReadFile(filepath.Join(dir, step[1]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, step[2]), data, 0o644); err != nil {
			t.Fatal(err)
		}
	case step[0] == "rm" && len(step) == 2:
		if err := os.Remove(filepath.Join(dir, step[1])); err != nil {
			t.Fatal(err)
		}
	case step[0] == "edit" && len(step) == 4:
		p := filepath.Join(dir, step[1])
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(step[2])) {
			t.Fatalf("setup %q: %s does not contain %q", step, step[1], step[2])
		}
		if err := os.WriteFile(p, bytes.Replace(data, []byte(step[2]), []byte(step[3]), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	case step[0] == "git":
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, step[1:]...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup %q: %v\n%s", step, err, out)
		}
	default:
		t.Fatalf("unknown setup step %q", step)
	}
}

// splitArgs splits a command line at spaces; an argument starting with " is a Go string.
func splitArgs(t *testing.T, line string) []string {
	t.Helper()
	var args []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("bad quoted argument in %q: %v", line, err)
			}
			s, _ := strconv.Unquote(q)
			args = append(args, s)
			line = line[len(q):]
			continue
		}
		arg, rest, _ := strings.Cut(line, " ")
		args = append(args, arg)
		line = rest
	}
	return args
}
