package goemit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the rankgen module's root directory (two levels above this file).
func repoRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller information")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// tempModule creates a module in a temporary directory that requires rankgen through a
// replace directive to this checkout, with rankgen's own requirements and go.sum, so that
// generated packages written into it build exactly as in a user's module, offline.
func tempModule(t testing.TB) string {
	root := repoRoot(t)
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("module rankgen.test/generated\n\n")
	for _, line := range strings.Split(string(gomod), "\n") {
		if strings.HasPrefix(line, "go ") {
			b.WriteString(line + "\n\n")
		}
	}
	b.WriteString("require github.com/rankgen/rankgen v0.0.0\n\n")
	b.WriteString("replace github.com/rankgen/rankgen => " + root + "\n\n")
	// rankgen's requirements, so the build list (and go.sum) is the one rankgen is tested with.
	in := false
	for _, line := range strings.Split(string(gomod), "\n") {
		switch {
		case strings.HasPrefix(line, "require ("):
			in = true
			b.WriteString(line + "\n")
		case in && strings.HasPrefix(line, ")"):
			in = false
			b.WriteString(line + "\n")
		case in:
			b.WriteString(line + "\n")
		case strings.HasPrefix(line, "require ") && !strings.Contains(line, "("):
			b.WriteString(line + "\n")
		}
	}
	write(t, filepath.Join(dir, "go.mod"), []byte(b.String()))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), sum)
	return dir
}

func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCmd runs the go command in dir, offline, and returns its combined output.
func goCmd(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
