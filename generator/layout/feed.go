package layout

import (
	"go/token"
	"strings"

	"github.com/rankgen/rankgen/text/suggest"
	"gopkg.in/yaml.v3"
)

// Feeds: one write that updates several boards of the layout at once (a daily board, the
// all-time board fed by the daily's gains, the board of the entry's region), as one script
// under one token. A feed is generated API only: it stores nothing a Board does not, so it is
// outside the canonical form and both fingerprints.

// FeedRule is what a submission does to one board of a feed.
type FeedRule string

// The rules of a feed's boards.
const (
	FeedBest FeedRule = "best" // keep whichever of the stored and the submitted entry ranks first (Board.Best)
	FeedSet  FeedRule = "set"  // store the submitted entry (Board.Set)
	// FeedAdd: add to the board's Field what the feed's first board's Field gained (nothing when
	// that board kept its entry); the board's entry becomes the submitted one with that total.
	FeedAdd FeedRule = "add"
)

// FedTypeName is the generated type of what a feed's call did on one board.
const FedTypeName = "Fed"

var feedRules = []string{string(FeedBest), string(FeedSet), string(FeedAdd)}

// Feed is a schema's feed: a generated call that writes an entry to several boards of the
// layout in one script.
type Feed struct {
	Name   string // Go name: the type <Name>Feed and its method <Name>
	Doc    string
	Boards []*FeedBoard // the first is the source whose gain add boards add
	Parts  []string     // the key parts the caller gives (<game>), in order of first use

	Line, Col int // position of the feed in the schema
}

// FeedBoard is one board of a feed: its key pattern and rule.
type FeedBoard struct {
	Name    string // Go name of its result
	Pattern string // the key as the schema writes it
	Key     []KeyPiece
	Rule    FeedRule
	Field   *Field // FeedAdd: the field that gains
}

// KeyPiece is a piece of a feed board's key: literal text, a key part the caller gives, or the
// value of one of the entry's fields (an enum field, or a string or enum data field).
type KeyPiece struct {
	Text  string
	Part  string
	Field *Field
	Data  bool // Field is a data field
}

// Tag is the hash tag every key of the feed starts with: the pattern's text up to its first "}".
func (b *FeedBoard) Tag() string {
	i := strings.IndexByte(b.Pattern, '}')
	return b.Pattern[:i+1]
}

var (
	feedKeys      = []string{"name", "doc", "boards"}
	feedBoardKeys = []string{"name", "key", "rule", "field"}
)

type rawFeed struct {
	Line, Col int
	Bad       bool
	Name, Doc scalar
	Boards    []rawFeedBoard
	BoardsPos scalar
}

type rawFeedBoard struct {
	Line, Col              int
	Bad                    bool
	Name, Key, Rule, Field scalar
}

// feeds reads the feeds: list.
func (p *parser) feeds(v *yaml.Node) (feeds []rawFeed, bad bool) {
	if v = deref(v); v.Kind != yaml.SequenceNode {
		p.errorf(v.Line, v.Column, "feeds must be a list of feeds (each starting with \"- name: Submit\"), not a %s", kindName(v))
		return nil, true
	}
	for _, item := range v.Content {
		item = deref(item)
		f := rawFeed{Line: item.Line, Col: item.Column}
		misspelt, ok := p.mapping(item, "a feed", feedKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "name":
				f.Name = p.scalar(v, "feed name")
			case "doc":
				f.Doc = p.scalar(v, "feed doc")
			case "boards":
				f.BoardsPos = scalar{Line: k.Line, Col: k.Column, Set: true}
				f.Boards, f.BoardsPos.Bad = p.feedBoards(v)
			}
		})
		f.Bad = !ok
		markBad(misspelt, map[string]*scalar{"name": &f.Name, "boards": &f.BoardsPos})
		feeds = append(feeds, f)
	}
	return feeds, false
}

// feedBoards reads a feed's boards: list.
func (p *parser) feedBoards(v *yaml.Node) (boards []rawFeedBoard, bad bool) {
	if v = deref(v); v.Kind != yaml.SequenceNode {
		p.errorf(v.Line, v.Column, "boards must be a list (each \"- name: Daily\" with key and rule), not a %s", kindName(v))
		return nil, true
	}
	for _, item := range v.Content {
		item = deref(item)
		b := rawFeedBoard{Line: item.Line, Col: item.Column}
		misspelt, ok := p.mapping(item, "a feed board", feedBoardKeys, func(key string, _, v *yaml.Node) {
			s := p.scalar(v, "board "+key)
			switch key {
			case "name":
				b.Name = s
			case "key":
				b.Key = s
			case "rule":
				b.Rule = s
			case "field":
				b.Field = s
			}
		})
		b.Bad = !ok
		markBad(misspelt, map[string]*scalar{"name": &b.Name, "key": &b.Key, "rule": &b.Rule, "field": &b.Field})
		boards = append(boards, b)
	}
	return boards, false
}

// feeds validates the feeds into l.Feeds; names holds every name the schema claimed.
func (v *validator) feeds(raw *rawSchema, l *Layout, names map[string]scalar) {
	if len(raw.Feeds) > 0 && l.Season != nil {
		v.errAt(raw.FeedsPos, "feeds are not available on a periodic layout (season:); feed the boards of a layout without a season block")
		return
	}
	for i := range raw.Feeds {
		if f := v.feed(&raw.Feeds[i], l, names); f != nil {
			l.Feeds = append(l.Feeds, f)
		}
	}
}

func (v *validator) feed(raw *rawFeed, l *Layout, names map[string]scalar) *Feed {
	if raw.Bad {
		return nil
	}
	f := &Feed{Name: raw.Name.Value, Doc: v.doc(raw.Doc), Line: raw.Line, Col: raw.Col}
	ok := true
	switch {
	case raw.Name.Bad:
		ok = false
	case !raw.Name.Set:
		v.errorf(raw.Line, raw.Col, "feed has no name; add \"name: Submit\" (its Go name: the type SubmitFeed and its method Submit)")
		ok = false
	case !v.goName(raw.Name, "feed name"):
		ok = false
	default:
		if prev, dup := names[f.Name]; dup {
			v.errAt(raw.Name, "name %q is already used at line %d; names must be unique: rename the feed", f.Name, prev.Line)
			ok = false
		}
		names[f.Name] = raw.Name
		for _, gen := range []string{FedTypeName, f.Name + "Feed", "New" + f.Name + "Feed", f.Name + "Keys", f.Name + "Result"} {
			if prev, clash := names[gen]; clash {
				v.errAt(prev, "name %q is generated for feed %s; rename it (e.g. %q)", gen, f.Name, gen+"Value")
				ok = false
			}
		}
	}
	if !raw.BoardsPos.Bad && len(raw.Boards) < 2 {
		at := raw.BoardsPos
		if !at.Set {
			at = scalar{Line: raw.Line, Col: raw.Col}
		}
		v.errAt(at, "feed %s needs at least two boards under \"boards:\" (the board it is submitted to, then those it feeds)", f.Name)
		ok = false
	}
	boardNames := map[string]scalar{}
	patterns := map[string]scalar{}
	for i := range raw.Boards {
		b := v.feedBoard(&raw.Boards[i], f, i, l, boardNames, patterns)
		if b == nil {
			ok = false
			continue
		}
		f.Boards = append(f.Boards, b)
	}
	if !ok || len(f.Boards) < 2 { // fewer boards: refused above, or their key was itself refused
		return nil
	}
	v.feedTag(raw, f)
	for _, b := range f.Boards {
		for _, p := range b.Key {
			if p.Part != "" && !contains(f.Parts, p.Part) {
				f.Parts = append(f.Parts, p.Part)
			}
		}
	}
	return f
}

func (v *validator) feedBoard(raw *rawFeedBoard, f *Feed, i int, l *Layout, boardNames, patterns map[string]scalar) *FeedBoard {
	if raw.Bad || raw.Name.Bad || raw.Key.Bad || raw.Rule.Bad || raw.Field.Bad {
		return nil
	}
	at := scalar{Line: raw.Line, Col: raw.Col}
	b := &FeedBoard{Name: raw.Name.Value, Pattern: raw.Key.Value, Rule: FeedRule(raw.Rule.Value)}
	ok := true
	switch {
	case !raw.Name.Set:
		v.errAt(at, "feed %s: board %d has no name; add \"name: Daily\" (its Go name in the feed's result)", f.Name, i+1)
		ok = false
	case !token.IsIdentifier(b.Name) || !token.IsExported(b.Name):
		v.errAt(raw.Name, "feed %s: board name %q is not an exported Go name; use one like %q", f.Name, b.Name, exported(b.Name))
		ok = false
	default:
		if prev, dup := boardNames[b.Name]; dup {
			v.errAt(raw.Name, "feed %s: board name %q is already used at line %d; rename one", f.Name, b.Name, prev.Line)
			ok = false
		}
		boardNames[b.Name] = raw.Name
	}
	if !raw.Key.Set {
		v.errAt(at, "feed %s: board %s has no key; add one like \"key: '{<game>}:%s'\"", f.Name, b.Name, strings.ToLower(b.Name))
		ok = false
	} else if key, good := v.feedKey(raw.Key, f, l); good {
		b.Key = key
		if prev, dup := patterns[b.Pattern]; dup {
			v.errAt(raw.Key, "feed %s: key %q is already the key of the board at line %d; a feed writes each board once", f.Name, b.Pattern, prev.Line)
			ok = false
		}
		patterns[b.Pattern] = raw.Key
	} else {
		ok = false
	}
	switch {
	case !raw.Rule.Set:
		v.errAt(at, "feed %s: board %s has no rule; add \"rule:\" with one of %s", f.Name, b.Name, strings.Join(feedRules, ", "))
		return nil
	case !contains(feedRules, raw.Rule.Value):
		msg := "one of " + strings.Join(feedRules, ", ")
		if s := suggest.Closest(raw.Rule.Value, feedRules); s != "" {
			msg = "did you mean " + s + "?"
		}
		v.errAt(raw.Rule, "feed %s: board %s: unknown rule %q; %s", f.Name, b.Name, raw.Rule.Value, msg)
		return nil
	case i == 0 && b.Rule == FeedAdd:
		v.errAt(raw.Rule, "feed %s: the first board is the one submitted to, and add adds its gain; give it rule best or set", f.Name)
		return nil
	}
	if b.Rule != FeedAdd {
		if raw.Field.Set {
			v.errAt(raw.Field, "feed %s: board %s: field applies to rule add only; remove it", f.Name, b.Name)
			return nil
		}
	} else if b.Field = v.feedField(raw, f, b, at, l); b.Field == nil {
		return nil
	}
	if !ok {
		return nil
	}
	return b
}

// feedField is an add board's field: a field of the layout that declares add and whose digits
// Lua's doubles hold exactly.
func (v *validator) feedField(raw *rawFeedBoard, f *Feed, b *FeedBoard, at scalar, l *Layout) *Field {
	var adds []string
	for _, fl := range l.Fields {
		if contains(opNames(fl.Updates), string(OpAdd)) {
			adds = append(adds, fl.Name)
		}
	}
	if !raw.Field.Set {
		v.errAt(at, "feed %s: board %s: rule add needs \"field:\", the field that gains (one that declares update add: %s)", f.Name, b.Name, orNone(adds))
		return nil
	}
	for _, fl := range l.Fields {
		if fl.Name != raw.Field.Value {
			continue
		}
		switch {
		case !contains(adds, fl.Name):
			v.errAt(raw.Field, "feed %s: board %s: field %s does not declare update add; add \"add\" to its update list", f.Name, b.Name, fl.Name)
		case fl.Span() >= 1<<53:
			v.errAt(raw.Field, "feed %s: board %s: field %s is too wide for a feed's exact gain (2^53 values or more); narrow it", f.Name, b.Name, fl.Name)
		default:
			return fl
		}
		return nil
	}
	msg := "fields that declare update add: " + orNone(adds)
	if s := suggest.Closest(raw.Field.Value, adds); s != "" {
		msg = "did you mean " + s + "?"
	}
	v.errAt(raw.Field, "feed %s: board %s: no field %q; %s", f.Name, b.Name, raw.Field.Value, msg)
	return nil
}

func opNames(ops []Op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return out
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// feedKey parses a key pattern: literal text with <placeholders>, each a field of the entry
// (an enum field, a string or enum data field) or a key part the caller gives (lower-case).
func (v *validator) feedKey(s scalar, f *Feed, l *Layout) ([]KeyPiece, bool) {
	var pieces []KeyPiece
	rest := s.Value
	if rest == "" {
		v.errAt(s, "feed %s: a key is empty; write one like \"{<game>}:daily\"", f.Name)
		return nil, false
	}
	for rest != "" {
		open := strings.IndexByte(rest, '<')
		if open < 0 {
			if strings.IndexByte(rest, '>') >= 0 {
				v.errAt(s, "feed %s: key %q has a \">\" without its \"<\"; placeholders are written <name>", f.Name, s.Value)
				return nil, false
			}
			pieces = append(pieces, KeyPiece{Text: rest})
			break
		}
		if open > 0 {
			pieces = append(pieces, KeyPiece{Text: rest[:open]})
		}
		end := strings.IndexByte(rest[open:], '>')
		if end < 0 {
			v.errAt(s, "feed %s: key %q has a \"<\" without its \">\"; placeholders are written <name>", f.Name, s.Value)
			return nil, false
		}
		name := rest[open+1 : open+end]
		p, ok := v.keyPiece(s, f, l, name)
		if !ok {
			return nil, false
		}
		pieces = append(pieces, p)
		rest = rest[open+end+1:]
	}
	return pieces, true
}

func (v *validator) keyPiece(s scalar, f *Feed, l *Layout, name string) (KeyPiece, bool) {
	var usable []string
	for _, fl := range l.Fields {
		if fl.Kind == Enum {
			usable = append(usable, fl.Name)
		}
		if fl.Name == name && fl.Kind == Enum {
			return KeyPiece{Field: fl}, true
		}
	}
	for _, fl := range l.Data {
		if fl.Kind == Enum || fl.Kind == String {
			usable = append(usable, fl.Name)
		}
		if fl.Name == name && (fl.Kind == Enum || fl.Kind == String) {
			return KeyPiece{Field: fl, Data: true}, true
		}
	}
	if name != "" && token.IsIdentifier(name) && !token.IsExported(name) && !strings.Contains(name, "_") {
		return KeyPiece{Part: name}, true
	}
	msg := "a placeholder names an enum field or a string or enum data field (" + orNone(usable) + "), or a key part the caller gives, in lower case (<game>)"
	if s := suggest.Closest(name, usable); s != "" {
		msg = "did you mean <" + s + ">? " + msg
	}
	v.errAt(s, "feed %s: key %q: <%s> is no usable field; %s", f.Name, s.Value, name, msg)
	return KeyPiece{}, false
}

// feedTag checks that every key of the feed starts with one hash tag, free of the entry's
// fields, so that the boards of a feed lie in one hash slot on Redis Cluster.
func (v *validator) feedTag(raw *rawFeed, f *Feed) {
	first := f.Boards[0]
	for i, b := range f.Boards {
		at := raw.Boards[i].Key
		close := strings.IndexByte(b.Pattern, '}')
		tag := ""
		if strings.HasPrefix(b.Pattern, "{") && close > 1 {
			tag = b.Pattern[1:close]
		}
		switch {
		case tag == "" || strings.Contains(tag, "{"):
			fix := "{<game>}"
			if i > 0 {
				fix = first.Tag()
			}
			v.errAt(at, "feed %s: key %q must start with a hash tag, as every key of a feed does, so that its boards share one hash slot on Redis Cluster; write e.g. %q", f.Name, b.Pattern, fix+":"+strings.TrimLeft(b.Pattern, "{}:"))
			return
		case tagHasField(b, close):
			v.errAt(at, "feed %s: key %q: the hash tag holds a field of the entry, so the boards could lie in different hash slots; keep the entry's fields after the tag", f.Name, b.Pattern)
			return
		case b.Tag() != first.Tag():
			v.errAt(at, "feed %s: key %q has hash tag %q, the first board's key %q: the boards could lie in different hash slots; start every key with %q", f.Name, b.Pattern, b.Tag(), first.Tag(), first.Tag())
			return
		}
	}
}

// tagHasField reports whether a field's placeholder begins before byte close of the pattern.
func tagHasField(b *FeedBoard, close int) bool {
	at := 0
	for _, p := range b.Key {
		switch {
		case at >= close:
			return false
		case p.Field != nil:
			return true
		case p.Part != "":
			at += len(p.Part) + len("<>")
		default:
			at += len(p.Text)
		}
	}
	return false
}
