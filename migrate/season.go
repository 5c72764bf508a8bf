package migrate

import "github.com/rankgen/rankgen/generator/layout"

// checkSeason refuses a change of a board's season calendar: each season is its own board,
// whose key ends with the season's id, and season-anchored offsets are measured from the
// season's start, so a board of one calendar has no counterpart in another.
func checkSeason(old, new *layout.Layout, bad func(format string, args ...any)) {
	text := func(l *layout.Layout) string {
		if l.Season == nil {
			return ""
		}
		return l.Season.Canonical()
	}
	if text(old) != text(new) {
		bad("the season calendar changes: season boards and their offsets have no mapping; start the new calendar under a new base key")
	}
}
