// Package suggest finds the known word a mistyped one was meant to be, for the "did you
// mean" of schema keys and values, CLI commands and JSON keys.
package suggest

import "strings"

// Closest returns the word of known closest to s, compared case-insensitively, when it is
// close enough to be a typo: words of up to 4 bytes may be one edit away, longer ones two.
// Ties go to the earlier word of known; "" when none is close.
func Closest(s string, known []string) string {
	best, bestD := "", 2
	if len(s) > 4 {
		bestD = 3
	}
	ls := strings.ToLower(s)
	for _, k := range known {
		// The distance is at least the difference in length: skip what cannot be close
		// without computing it (s may be a megabyte of hostile input).
		if diff := len(ls) - len(k); diff >= bestD || -diff >= bestD {
			continue
		}
		if d := Distance(ls, strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the optimal string alignment distance between the bytes of a and b:
// insertions, deletions, substitutions and transpositions of neighbours, each costing one
// ("pakcage" is one edit from "package"). It takes O(len(a)·len(b)) time and O(len(b))
// memory.
func Distance(a, b string) int {
	// Three rows of the dynamic programme: i−2, i−1 and i.
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
