package breaking

import (
	"slices"

	"github.com/rankgen/rankgen/generator/layout"
)

// checkFeedAPI reports, for each feed of the old schema, the Go names its callers use that
// the new one no longer generates: the feed itself (<Name>Feed and its method), a board's
// field of <Name>Result, a key part's field of <Name>Keys. Feeds store nothing of their own,
// so none of this is a WIRE change.
func checkFeedAPI(p *probe) bool {
	for _, of := range p.oldL().Feeds {
		i := slices.IndexFunc(p.newL().Feeds, func(f *layout.Feed) bool { return f.Name == of.Name })
		if i < 0 {
			p.add(p.c.old.name(), of.Line, of.Col, "feed %s is gone: %sFeed and its method %s no longer exist", of.Name, of.Name, of.Name)
			continue
		}
		nf := p.newL().Feeds[i]
		for _, b := range of.Boards {
			if !slices.ContainsFunc(nf.Boards, func(n *layout.FeedBoard) bool { return n.Name == b.Name }) {
				p.add(p.c.old.name(), of.Line, of.Col, "feed %s: board %s is gone: %sResult.%s no longer exists", of.Name, b.Name, of.Name, b.Name)
			}
		}
		for _, part := range of.Parts {
			if !slices.Contains(nf.Parts, part) {
				p.add(p.c.old.name(), of.Line, of.Col, "feed %s: key part <%s> is gone: its field of %sKeys no longer exists", of.Name, part, of.Name)
			}
		}
	}
	return false
}
