package main

import (
	"bytes"
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff (3 lines of context, like diff -u) that turns old into
// new, or "" when they are equal. oldName or newName is "/dev/null" for a file that is
// missing on that side. Lines are compared with their terminators; a last line without a
// newline is marked "\ No newline at end of file", so patch(1) reproduces new exactly.
func unifiedDiff(oldName, newName string, old, new []byte) string {
	if bytes.Equal(old, new) {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	const context = 3
	// Walk the edit script, cutting it into hunks: runs of changes with up to 2·context
	// equal lines between them, plus context on both sides.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		for start < i && ops[start].kind != ' ' {
			start++
		}
		end := i // one past the last change of the hunk
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*context {
				break
			}
		}
		stop := min(end+context, len(ops)) // ops[end:stop] are equal lines: end is the last change before a long gap
		writeHunk(&out, a, b, ops[start:stop])
		i = stop
	}
	return out.String()
}

// op is one step of an edit script: ' ' keeps a[ai] (= b[bi]), '-' deletes a[ai], '+' inserts
// b[bi].
type op struct {
	kind   byte
	ai, bi int
}

func writeHunk(out *strings.Builder, a, b []string, ops []op) {
	// Line numbers: the first line of each side the hunk touches (1-based), or, for an empty
	// side, the line before it.
	aStart, bStart := -1, -1
	aN, bN := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			if aStart < 0 {
				aStart = o.ai
			}
			aN++
		}
		if o.kind != '-' {
			if bStart < 0 {
				bStart = o.bi
			}
			bN++
		}
	}
	if aStart < 0 { // only insertions: the position is where they go
		aStart = ops[0].ai
	}
	if bStart < 0 {
		bStart = ops[0].bi
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
	for _, o := range ops {
		line := ""
		switch o.kind {
		case ' ', '-':
			line = a[o.ai]
		case '+':
			line = b[o.bi]
		}
		out.WriteByte(o.kind)
		out.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange formats "start,count" the way diff -u does: start is 1-based, or for an empty
// range the line before it; ",1" is omitted.
func hunkRange(start0, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start0)
	case 1:
		return fmt.Sprintf("%d", start0+1)
	}
	return fmt.Sprintf("%d,%d", start0+1, n)
}

// splitLines splits text into lines that keep their "\n"; the last may lack it.
func splitLines(text []byte) []string {
	var lines []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, string(text))
			break
		}
		lines = append(lines, string(text[:i+1]))
		text = text[i+1:]
	}
	return lines
}

// maxEdits bounds the Myers search; beyond it (files that share almost nothing) the diff is
// "delete everything, insert everything", still correct, just not minimal.
const maxEdits = 2000

// diffLines returns a shortest edit script from a to b (Myers' O(ND) algorithm, after
// trimming the common prefix and suffix), with deletions before insertions in each change.
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', i, i})
	}
	for _, o := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		ops = append(ops, op{o.kind, o.ai + pre, o.bi + pre})
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, op{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

func myers(a, b []string) []op {
	n, m := len(a), len(b)
	maxD := n + m
	if maxD > maxEdits {
		return replaceAll(n, m)
	}
	off := maxD + 1
	v := make([]int, 2*maxD+3) // v[off+k]: furthest x on diagonal k
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		snap := make([]int, 2*d+3)
		copy(snap, v[off-d-1:off+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1] // down: insertion
			} else {
				x = v[off+k-1] + 1 // right: deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, d, n, m)
			}
		}
	}
	return replaceAll(n, m) // unreachable: d = n+m always reaches the end
}

// backtrack rebuilds the edit script from the snapshots of v taken before each round d
// (snapshot d holds diagonals −d−1 … d+1 as left by round d−1).
func backtrack(trace [][]int, d, n, m int) []op {
	var rev []op
	x, y := n, m
	for ; d > 0; d-- {
		prev := trace[d] // v after round d−1, diagonals −d−1…d+1 at index k+d+1
		at := func(k int) int { return prev[k+d+1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{'+', x, y})
		} else {
			x--
			rev = append(rev, op{'-', x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, op{' ', x, y})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return groupChanges(ops)
}

// groupChanges orders each run of changes as all deletions, then all insertions, as diff -u
// prints them.
func groupChanges(ops []op) []op {
	out := make([]op, 0, len(ops))
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && ops[j].kind != ' ' {
			j++
		}
		for _, o := range ops[i:j] {
			if o.kind == '-' {
				out = append(out, o)
			}
		}
		for _, o := range ops[i:j] {
			if o.kind == '+' {
				out = append(out, o)
			}
		}
		i = j
	}
	return out
}

func replaceAll(n, m int) []op {
	ops := make([]op, 0, n+m)
	for i := 0; i < n; i++ {
		ops = append(ops, op{'-', i, 0})
	}
	for j := 0; j < m; j++ {
		ops = append(ops, op{'+', n, j})
	}
	return ops
}
