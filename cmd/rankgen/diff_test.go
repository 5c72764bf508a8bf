package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// applyDiff applies a unified diff to old, checking every context and deleted line.
func applyDiff(t *testing.T, old []byte, diff string) []byte {
	t.Helper()
	a := splitLines(old)
	lines := splitLines([]byte(diff))
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("diff has no header:\n%s", diff)
	}
	var out []string
	pos := 0 // next line of a to copy
	for i := 2; i < len(lines); {
		h := lines[i]
		var as, an, bs, bn int
		if !parseHunk(h, &as, &an, &bs, &bn) {
			t.Fatalf("bad hunk header %q in\n%s", h, diff)
		}
		start := as - 1
		if an == 0 {
			start = as
		}
		if start < pos {
			t.Fatalf("hunks overlap or go backwards at %q", h)
		}
		out = append(out, a[pos:start]...)
		pos = start
		i++
		gotA, gotB := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			kind, text := l[0], l[1:]
			i++
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch kind {
			case ' ', '-':
				if pos >= len(a) || a[pos] != text {
					t.Fatalf("line %d: diff says %q, old has %q", pos+1, text, a[min(pos, len(a)-1)])
				}
				if kind == ' ' {
					out = append(out, text)
					gotB++
				}
				pos++
				gotA++
			case '+':
				out = append(out, text)
				gotB++
			default:
				t.Fatalf("bad diff line %q", l)
			}
		}
		if gotA != an || gotB != bn {
			t.Fatalf("hunk %q counts %d,%d lines", h, gotA, gotB)
		}
	}
	out = append(out, a[pos:]...)
	return []byte(strings.Join(out, ""))
}

func parseHunk(h string, as, an, bs, bn *int) bool {
	f := strings.Fields(h)
	if len(f) < 4 || f[0] != "@@" || f[3] != "@@" {
		return false
	}
	parse := func(s string, start, n *int) bool {
		x, y, ok := strings.Cut(s, ",")
		var err1, err2 error
		*start, err1 = strconv.Atoi(x)
		*n = 1
		if ok {
			*n, err2 = strconv.Atoi(y)
		}
		return err1 == nil && err2 == nil
	}
	return parse(strings.TrimPrefix(f[1], "-"), as, an) && parse(strings.TrimPrefix(f[2], "+"), bs, bn)
}

func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randomText(rng *rand.Rand) []byte {
	var b strings.Builder
	n := rng.IntN(30)
	for i := 0; i < n; i++ {
		b.WriteString(string(rune('a' + rng.IntN(4))))
		if i < n-1 || rng.IntN(4) > 0 {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

// TestUnifiedDiffRandom checks, on random texts, that the diff applies back to the new text,
// that every hunk's counts are right, and that the edit script is minimal (its changed lines
// equal len(a)+len(b)−2·LCS).
func TestUnifiedDiffRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		old, new := randomText(rng), randomText(rng)
		if rng.IntN(3) == 0 { // mostly-equal texts with a few edits
			new = mutate(rng, old)
		}
		d := unifiedDiff("a", "b", old, new)
		if string(old) == string(new) {
			if d != "" {
				t.Fatalf("equal texts gave a diff:\n%s", d)
			}
			continue
		}
		if got := applyDiff(t, old, d); string(got) != string(new) {
			t.Fatalf("diff does not apply:\nold %q\nnew %q\ndiff:\n%s\ngot %q", old, new, d, got)
		}
		a, b := splitLines(old), splitLines(new)
		changes := 0
		for _, o := range diffLines(a, b) {
			if o.kind != ' ' {
				changes++
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("edit script has %d changes, minimum is %d:\nold %q\nnew %q", changes, want, old, new)
		}
	}
}

func mutate(rng *rand.Rand, text []byte) []byte {
	lines := splitLines(text)
	for n := rng.IntN(3); n >= 0; n-- {
		switch i := rng.IntN(len(lines) + 1); rng.IntN(3) {
		case 0:
			lines = append(lines[:i], append([]string{"x\n"}, lines[i:]...)...)
		case 1:
			if i < len(lines) {
				lines = append(lines[:i], lines[i+1:]...)
			}
		default:
			if i < len(lines) {
				lines[i] = "y\n"
			}
		}
	}
	return []byte(strings.Join(lines, ""))
}

// TestUnifiedDiffPatch feeds diffs to patch(1), when it is installed, as an independent
// reader of the format.
func TestUnifiedDiffPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch(1) is not installed; TestUnifiedDiffRandom covers the format")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	for iter := 0; iter < 60; iter++ {
		old, new := randomText(rng), mutate(rng, randomText(rng))
		if iter%2 == 0 {
			new = mutate(rng, old)
		}
		f := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(f, old, 0o644); err != nil {
			t.Fatal(err)
		}
		d := unifiedDiff("f.txt", "f.txt", old, new)
		if d == "" {
			continue
		}
		cmd := exec.Command(patch, "-s", "-p0", "-i", "-")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch failed: %v\n%s\ndiff:\n%s", err, out, d)
		}
		got, _ := os.ReadFile(f)
		if string(got) != string(new) {
			t.Fatalf("patch gave %q, want %q\ndiff:\n%s", got, new, d)
		}
	}
}

func TestUnifiedDiffShape(t *testing.T) {
	var old, new strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&old, "line %d\n", i)
		switch i {
		case 2:
			new.WriteString("changed 2\n")
		case 18:
		default:
			fmt.Fprintf(&new, "line %d\n", i)
		}
	}
	new.WriteString("tail")
	want := `--- old
+++ new
@@ -1,5 +1,5 @@
 line 1
-line 2
+changed 2
 line 3
 line 4
 line 5
@@ -15,6 +15,6 @@
 line 15
 line 16
 line 17
-line 18
 line 19
 line 20
+tail
\ No newline at end of file
`
	if got := unifiedDiff("old", "new", []byte(old.String()), []byte(new.String())); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got, want := unifiedDiff("/dev/null", "x", nil, []byte("a\nb\n")), "--- /dev/null\n+++ x\n@@ -0,0 +1,2 @@\n+a\n+b\n"; got != want {
		t.Errorf("from nothing: got %q, want %q", got, want)
	}
	if got, want := unifiedDiff("x", "/dev/null", []byte("a\n"), nil), "--- x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"; got != want {
		t.Errorf("to nothing: got %q, want %q", got, want)
	}
}

// TestUnifiedDiffLarge covers the fallback for texts that share almost nothing (more than
// maxEdits changes): still a correct diff, and hunks stay in order around common lines.
func TestUnifiedDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	old := "head\n" + a.String() + "tail\n"
	new := "head\n" + b.String() + "tail\n"
	d := unifiedDiff("a", "b", []byte(old), []byte(new))
	if got := applyDiff(t, []byte(old), d); string(got) != new {
		t.Fatalf("large diff does not apply")
	}
	if n := strings.Count(d, "\n-"); n != 1500 {
		t.Errorf("large diff deletes %d lines, want 1500", n)
	}
}
