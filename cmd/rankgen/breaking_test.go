package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBreakingAgainstGit compares a schema with its committed version (-against git:REF), as a
// pull request's CI would with git:origin/main.
func TestBreakingAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src, err := os.ReadFile("../../examples/schemas/arena.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "boards")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(sub, "arena.yaml")
	if err := os.WriteFile(schema, src, 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun("init", "-q")
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "arena")
	edited := strings.Replace(string(src), "  - name: Paid\n    type: bool\n    order: desc\n    update: [set]\n", "", 1)
	if err := os.WriteFile(schema, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	breakingIn := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir}, append([]string{"breaking"}, args...))
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := breakingIn("-against", "git:HEAD", "boards/arena.yaml")
	want := "HEAD:boards/arena.yaml:23:5: WIRE FIELD_COUNT: Paid is removed from position 3"
	if code != exitFail || !strings.Contains("\n"+stdout, "\n"+want) || !strings.Contains(stdout, "SOURCE FIELD_REMOVED") {
		t.Fatalf("breaking against git:HEAD = %d\n%s%s\nwant exit 1 and a line starting %q", code, stdout, stderr, want)
	}
	if code, _, _ := breakingIn("-against", "git:HEAD", "boards/../boards/arena.yaml"); code != exitFail {
		t.Errorf("a path with .. = exit %d", code)
	}
	code, _, stderr = breakingIn("-against", "git:no-such-ref", "boards/arena.yaml")
	if code != exitFail || !strings.Contains(stderr, "git show no-such-ref:./arena.yaml") {
		t.Errorf("unknown ref: exit %d, %s", code, stderr)
	}
	gitRun("commit", "-q", "-am", "drop Paid")
	if code, stdout, stderr := breakingIn("-against", "git:HEAD", "boards/arena.yaml"); code != exitOK || stdout != "" || stderr != "" {
		t.Errorf("against its own commit: exit %d\n%s%s", code, stdout, stderr)
	}
}
