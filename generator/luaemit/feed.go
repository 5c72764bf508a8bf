package luaemit

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/rankgen/rankgen/generator/catalog"
	"github.com/rankgen/rankgen/generator/layout"
)

// feedView is what the feed template sees of a feed: its boards, in order.
type feedView struct {
	Boards []feedBoard
}

type feedBoard struct {
	Index int    // 1-based: the board's place in the call's keys
	Name  string // its name in the schema
	Says  string // what the call does to it, for the comment
	Rule  string
	Field int    // add: the accessors' index of the field that gains (F.get_<Field>)
	Apply string // add: the field's add update, whose table F.<Apply> holds its apply function
	Asc   bool   // add: the field ranks ascending, so a gain lowers its digit
}

// feedData is what the feed template of op sees.
func feedData(l *layout.Layout, op catalog.FeedOp) (*data, error) {
	d := newData(l)
	d.Op, d.Args = op.Name, op.Args
	var err error
	if d.Title, err = positions(op.Title, op.Args); err != nil {
		return nil, err
	}
	for _, line := range op.Usage {
		u, err := positions(line, op.Args)
		if err != nil {
			return nil, err
		}
		d.Usage = append(d.Usage, u)
	}
	d.Stride = catalog.FeedStride(l)
	d.Feed = &feedView{}
	for i, b := range op.Feed.Boards {
		v := feedBoard{Index: i + 1, Name: b.Name, Rule: string(b.Rule)}
		switch b.Rule {
		case layout.FeedBest:
			v.Says = "keeps whichever of its entry and the submitted one ranks first."
		case layout.FeedSet:
			v.Says = "takes the submitted entry."
		case layout.FeedAdd:
			v.Field = slices.Index(l.Fields, b.Field) + 1
			v.Apply = catalog.UpdateName(layout.OpAdd, b.Field)
			v.Asc = b.Field.Order == layout.Asc
			v.Says = fmt.Sprintf("adds what %s gained on %s, when the first board took the entry; the entry becomes the submitted one with that total.", b.Field.Name, op.Feed.Boards[0].Name)
		}
		d.Feed.Boards = append(d.Feed.Boards, v)
	}
	return d, nil
}

// renderFeed renders the function of one feed, to be registered with the others.
// The usage lines every write function starts with (writeDocs) are said once, in the head.
func renderFeed(l *layout.Layout, op catalog.FeedOp, writeDocs []string) (string, error) {
	d, err := feedData(l, op)
	if err != nil {
		return "", err
	}
	d.Usage = withoutPrefix(d.Usage, writeDocs)
	var body bytes.Buffer
	if err := tmpl.ExecuteTemplate(&body, "feed", d); err != nil {
		return "", fmt.Errorf("luaemit: %s: %w", op.Name, err)
	}
	return indent(tidy(body.String())), nil
}
