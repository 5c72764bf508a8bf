package catalog

import (
	"strconv"

	"github.com/rankgen/rankgen/generator/layout"
)

// ArgRanks is a feed's argument: '1' to reply each board's rank of the entry after the write.
const ArgRanks = "ranks"

// FeedOp is the library function of one of the schema's feeds (layout.Feed): one write script
// over the keys of all its boards. A feed is not a Board operation: it has no Kind, no row in
// Ops and no method on Board; the generated <Name>Feed type calls it.
type FeedOp struct {
	Feed  *layout.Feed
	Name  string // the script's name: "feed_submit"
	Args  Args
	Title string
	Usage []string
}

// FeedStride is how many keys each board of a feed passes: the board's own keys, as a Board's
// write scripts take them (the sorted set, its index or meta key, its ack key base, its fence, and on a
// layout with data its data hash).
func FeedStride(l *layout.Layout) int {
	if l.HasData() {
		return 5
	}
	return 4
}

// Feeds lists the feeds of l, in schema order.
func Feeds(l *layout.Layout) []FeedOp {
	head := append(WriteArgs(), ArgScore, ArgMember)
	if l.HasData() {
		head = append(head, ArgData)
	}
	head = append(head, ArgRanks)
	var out []FeedOp
	for _, f := range l.Feeds {
		out = append(out, FeedOp{Feed: f, Name: "feed_" + snake(f.Name), Args: Args{Head: head},
			Title: "feed " + f.Name + ": submit one entry to " + strconv.Itoa(len(f.Boards)) + " boards at once (the keys of each board in turn, its own first).",
			Usage: []string{expiryDoc, tokenDoc,
				"{score}, {member}: the entry (encoded by the Go codec); {ranks}: '1' to reply each board's rank.",
				"The keys of the first board hold the call's token; nothing is written unless every board accepts it.",
				"Returns per board {1 when written else 0, its entry's score, member (both '' when none), 0-based rank or -1}."}})
	}
	return out
}
