package breaking

import "github.com/rankgen/rankgen/generator/layout"

// seasonText names a layout's season for messages: its calendar, or "not periodic".
func seasonText(l *layout.Layout) string {
	if l.Season == nil {
		return "not periodic"
	}
	return l.Season.Describe()
}

// seasonKey is the season's canonical line: what decides season ids and offsets.
func seasonKey(l *layout.Layout) string {
	if l.Season == nil {
		return ""
	}
	return l.Season.Canonical()
}

func checkSeason(p *probe) bool {
	o, n := p.oldL(), p.newL()
	if seasonKey(o) != seasonKey(n) {
		p.atKey([]string{"season"}, "the season changes from %s to %s: season ids, board keys and season-anchored offsets mean other instants (start the new calendar under a new base key)", seasonText(o), seasonText(n))
	}
	return false
}

func checkSeasonsAPI(p *probe) bool {
	o, n := p.oldL(), p.newL()
	switch {
	case o.Season == nil && n.Season != nil:
		p.atKey([]string{"season"}, "the board becomes periodic: NewBoard takes the board's Season, and boards come from Seasons.Board")
	case o.Season != nil && n.Season == nil:
		p.atKey([]string{"season"}, "the board stops being periodic: Seasons and Season are gone, and NewBoard no longer takes a Season")
	}
	return false
}

func checkZoneRemoved(p *probe) bool {
	o, n := p.oldL(), p.newL()
	if o.Season == nil || n.Season == nil || o.Season.Regions == nil || n.Season.Regions == nil {
		return false // a calendar that becomes or stops being regional is SEASON's
	}
	kept := map[string]bool{}
	for _, z := range n.Season.Zones() {
		kept[z] = true
	}
	for _, z := range o.Season.Zones() {
		if !kept[z] {
			p.atKey([]string{"season", "zones"}, "zone %s is no longer served: %s is gone, NewSeasons refuses it, and its boards are no longer written (keep it listed while its players play)", z, layout.ZoneConst(z))
		}
	}
	return false
}
