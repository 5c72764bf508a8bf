package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
	"gopkg.in/yaml.v3"
)

// scalar is one YAML scalar with its position, kept as text so that every later error can
// point at it.
type scalar struct {
	Value     string
	Line, Col int
	Set       bool
	Bad       bool // given but unusable (wrong kind, empty, misspelt): already reported
}

// rawSchema is the schema as written, before validation: positions kept, nothing interpreted.
type rawSchema struct {
	Package, Doc, Separator, Score, DecimalPlaces scalar
	Sharded                                       scalar // whether to generate ShardedBoard
	ID                                            rawID
	Fields                                        []rawField
	FieldsPos                                     scalar
	Season                                        rawSeason
	Data                                          []rawField // data: fields stored beside the entry, never ranked
	DataPos                                       scalar
	Feeds                                         []rawFeed // feeds: writes to several boards at once
	FeedsPos                                      scalar
	Previous                                      rawPrevious // previous: the schema this one replaces
}

type rawID struct {
	Name, Type, MaxBytes, Order scalar
	Line, Col                   int
	Set, Bad                    bool
}

type rawField struct {
	Line, Col                                                       int
	Bad                                                             bool // not a mapping: already reported
	Name, Type, Bits, Digits, Order, Min, Max, Epoch, Unit, In, Doc scalar
	Overflow, Stamp                                                 scalar
	MaxBytes                                                        scalar // data strings
	Values, Update                                                  []scalar
	ValuesPos, UpdatePos                                            scalar
}

var (
	topKeys   = []string{"package", "doc", "id", "separator", "score", "decimal_places", "fields", "season", "data", "sharded", "feeds", "previous"}
	idKeys    = []string{"name", "type", "max_bytes", "order"}
	fieldKeys = []string{"name", "type", "bits", "digits", "order", "min", "max", "epoch", "unit",
		"values", "in", "doc", "update", "overflow", "stamp"}
)

// parser collects diagnostics while walking the YAML node tree.
type parser struct {
	file  string
	diags Diagnostics
}

func (p *parser) errorf(line, col int, format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > quote.MaxShown {
			args[i] = shown(s)
		}
	}
	p.diags = append(p.diags, Diagnostic{File: p.file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// shown is a long string argument of a diagnostic: %q quotes only its start (a schema value
// may be a megabyte), other verbs print it whole (the message's own sentences).
type shown string

func (s shown) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		io.WriteString(f, quote.Short(string(s)))
		return
	}
	io.WriteString(f, string(s))
}

func (p *parser) errAt(s scalar, format string, args ...any) {
	p.errorf(s.Line, s.Col, format, args...)
}

// parseRaw reads the YAML text into a rawSchema, reporting structural problems (malformed YAML,
// unknown keys, wrong node kinds). It never panics.
func parseRaw(file string, src []byte) (raw *rawSchema, diags Diagnostics) {
	p := &parser{file: file}
	defer func() {
		if r := recover(); r != nil { // yaml.v3 has panicked on hostile input before; never let it reach the user
			raw, diags = nil, Diagnostics{{File: file, Message: fmt.Sprintf("malformed YAML: %v", r)}}
		}
	}()
	doc := p.document(src)
	if doc == nil {
		return nil, p.diags
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		p.diags = append(p.diags, Diagnostic{File: file, Message: "the schema is empty; it needs at least package, id and fields"})
		return nil, p.diags
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, root.Column, "the schema must be a mapping of keys (package, id, fields, …), not a %s", kindName(root))
		return nil, p.diags
	}
	return p.schema(root), p.diags
}

// document decodes the one YAML document of src; nil when it is malformed or followed by a
// second document (reported).
func (p *parser) document(src []byte) *yaml.Node {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		err = nil // an empty file: reported by the caller
	}
	if err == nil && doc.Kind != 0 {
		// yaml.Unmarshal would silently ignore every document after the first.
		var next yaml.Node
		if e := dec.Decode(&next); !errors.Is(e, io.EOF) {
			if e != nil {
				err = e
			} else {
				line := next.Line
				if len(next.Content) > 0 {
					line = next.Content[0].Line
				}
				p.errorf(line, 1, "a schema is one YAML document, but a second starts here (after \"---\"); merge it into the first")
				return nil
			}
		}
	}
	if err != nil {
		p.yamlError(src, err)
		return nil
	}
	return &doc
}

// yamlError reports a yaml.v3 syntax error at its line, with advice where there is some.
func (p *parser) yamlError(src []byte, err error) {
	line, msg := yamlErrorLine(err)
	if line == 0 {
		p.diags = append(p.diags, Diagnostic{File: p.file, Message: "malformed YAML: " + msg})
		return
	}
	at := blockErrorLine(src, line, msg)
	col, hint := yamlHint(src, at, msg)
	if at != line && col == 1 { // point at the key indented wrongly
		text := strings.SplitN(string(src), "\n", at+1)[at-1]
		col = len(text) - len(strings.TrimLeft(text, " ")) + 1
	}
	p.errorf(at, col, "malformed YAML: %s%s", msg, hint)
}

// blockErrorLine finds the line a block-structure error is about. yaml.v3 reports "did not
// find expected key" and "… '-' indicator" at the line where the enclosing block starts, which
// may be far above the line indented wrongly; the first prefix of the file (in whole lines)
// that fails with the same message ends at that line. A prefix fails whenever a shorter one
// does, so a binary search finds it in a few parses.
func blockErrorLine(src []byte, line int, msg string) int {
	if !strings.HasPrefix(msg, "did not find expected key") && !strings.HasPrefix(msg, "did not find expected '-' indicator") {
		return line
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	fails := func(k int) bool {
		var doc yaml.Node
		err := yaml.Unmarshal(bytes.Join(lines[:k], nil), &doc)
		if err == nil {
			return false
		}
		_, m := yamlErrorLine(err)
		return m == msg
	}
	lo, hi := line, len(lines) // the answer is in [lo, hi]; all of the file fails
	if lo < 1 || lo > hi || !fails(hi) {
		return line
	}
	for lo < hi {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// schema reads the top-level mapping.
func (p *parser) schema(root *yaml.Node) *rawSchema {
	raw := &rawSchema{}
	misspelt, _ := p.mapping(root, "the schema", topKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "package":
			raw.Package = p.scalar(v, key)
		case "doc":
			raw.Doc = p.scalar(v, key)
		case "separator":
			raw.Separator = p.scalar(v, key)
		case "score":
			raw.Score = p.scalar(v, key)
		case "decimal_places":
			raw.DecimalPlaces = p.scalar(v, key)
		case "sharded":
			raw.Sharded = p.scalar(v, key)
		case "id":
			raw.ID = p.id(v)
		case "fields":
			raw.FieldsPos = scalar{Line: k.Line, Col: k.Column, Set: true}
			raw.Fields, raw.FieldsPos.Bad = p.fieldList(v, "fields", fieldKeys, "field")
		case "season":
			raw.Season = p.season(k, v)
		case "data":
			raw.DataPos = scalar{Line: k.Line, Col: k.Column, Set: true}
			raw.Data, raw.DataPos.Bad = p.fieldList(v, "data", dataFieldKeys, "data field")
		case "feeds":
			raw.FeedsPos = scalar{Line: k.Line, Col: k.Column, Set: true}
			raw.Feeds, raw.FeedsPos.Bad = p.feeds(v)
		case "previous":
			raw.Previous = p.previous(k, v)
		}
	})
	markBad(misspelt, map[string]*scalar{"package": &raw.Package, "decimal_places": &raw.DecimalPlaces, "fields": &raw.FieldsPos})
	if contains(misspelt, "id") && !raw.ID.Set {
		raw.ID.Bad = true
	}
	return raw
}

// fieldList reads the list under key (fields:, data:), each item a field of what kind with the
// keys it may have; bad is true when v is not a list (reported).
func (p *parser) fieldList(v *yaml.Node, key string, keys []string, what string) (fields []rawField, bad bool) {
	if v = deref(v); v.Kind != yaml.SequenceNode {
		p.errorf(v.Line, v.Column, "%s must be a list of %ss (each starting with \"- name: …\"), not a %s", key, what, kindName(v))
		return nil, true
	}
	for _, item := range v.Content {
		fields = append(fields, p.field(deref(item), keys, what))
	}
	return fields, false
}

// markBad marks the keys a did-you-mean suggested, when they are not given, as already
// reported: "unknown key \"pakage\"; did you mean \"package\"?" says all there is to say.
func markBad(misspelt []string, slots map[string]*scalar) {
	for _, key := range misspelt {
		if s := slots[key]; s != nil && !s.Set {
			s.Bad = true
		}
	}
}

func (p *parser) id(v *yaml.Node) rawID {
	id := rawID{Line: v.Line, Col: v.Column, Set: true}
	if v.Kind == yaml.ScalarNode { // "id: PlayerID" is a natural shorthand for the name alone
		id.Name = p.scalar(v, "id")
		return id
	}
	misspelt, ok := p.mapping(v, "id", idKeys, func(key string, _, v *yaml.Node) {
		switch key {
		case "name":
			id.Name = p.scalar(v, "id "+key)
		case "type":
			id.Type = p.scalar(v, "id "+key)
		case "max_bytes":
			id.MaxBytes = p.scalar(v, "id "+key)
		case "order":
			id.Order = p.scalar(v, "id "+key)
		}
	})
	id.Bad = !ok
	markBad(misspelt, map[string]*scalar{"name": &id.Name, "type": &id.Type, "max_bytes": &id.MaxBytes, "order": &id.Order})
	return id
}

// field reads one field of fields (what = "field") or of data (what = "data field"), whose
// known keys differ.
func (p *parser) field(n *yaml.Node, keys []string, what string) rawField {
	f := rawField{Line: n.Line, Col: n.Column}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "each %s must be a mapping (\"- name: Points\" with type, bits …), not a %s", what, kindName(n))
		f.Bad = true
		return f
	}
	where := "a " + what
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == "name" && deref(n.Content[i+1]).Kind == yaml.ScalarNode {
			where = what + " " + quote.Short(deref(n.Content[i+1]).Value)
		}
	}
	misspelt, _ := p.mapping(n, where, keys, func(key string, k, v *yaml.Node) {
		s := func() scalar { return p.scalar(v, key+" in "+where) }
		switch key {
		case "name":
			f.Name = s()
		case "type":
			f.Type = s()
		case "bits":
			f.Bits = s()
		case "digits":
			f.Digits = s()
		case "order":
			f.Order = s()
		case "min":
			f.Min = s()
		case "max":
			f.Max = s()
		case "epoch":
			f.Epoch = s()
		case "unit":
			f.Unit = s()
		case "in":
			f.In = s()
		case "doc":
			f.Doc = s()
		case "overflow":
			f.Overflow = s()
		case "stamp":
			f.Stamp = s()
		case "max_bytes":
			f.MaxBytes = s()
		case "values":
			f.ValuesPos = scalar{Line: k.Line, Col: k.Column, Set: true}
			f.Values, f.ValuesPos.Bad = p.list(v, key+" in "+where)
		case "update":
			f.UpdatePos = scalar{Line: k.Line, Col: k.Column, Set: true}
			f.Update, f.UpdatePos.Bad = p.list(v, key+" in "+where)
		}
	})
	markBad(misspelt, map[string]*scalar{
		"name": &f.Name, "type": &f.Type, "bits": &f.Bits, "digits": &f.Digits, "order": &f.Order,
		"min": &f.Min, "max": &f.Max, "epoch": &f.Epoch, "unit": &f.Unit, "in": &f.In, "doc": &f.Doc,
		"overflow": &f.Overflow, "stamp": &f.Stamp, "values": &f.ValuesPos, "update": &f.UpdatePos,
		"max_bytes": &f.MaxBytes,
	})
	return f
}

// mapping walks a mapping node, reporting unknown and repeated keys with a did-you-mean. It
// returns the known keys it suggested for misspelt ones, and false when n is not a mapping.
func (p *parser) mapping(n *yaml.Node, where string, known []string, visit func(key string, k, v *yaml.Node)) (misspelt []string, ok bool) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "%s must be a mapping of keys, not a %s", where, kindName(n))
		return nil, false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.errorf(k.Line, k.Column, "keys in %s must be plain words", where)
			continue
		}
		if k.Value == "<<" {
			p.errorf(k.Line, k.Column, "YAML merge keys (<<) are not supported in %s; write the keys out", where)
			continue
		}
		if !contains(known, k.Value) {
			msg := fmt.Sprintf("unknown key %s in %s", quote.Short(k.Value), where)
			if s := suggest.Closest(k.Value, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
				misspelt = append(misspelt, s)
			} else {
				msg += "; known keys are " + strings.Join(known, ", ")
			}
			p.errorf(k.Line, k.Column, "%s", msg)
			continue
		}
		if seen[k.Value] {
			p.errorf(k.Line, k.Column, "key %q is given twice in %s; keep one", k.Value, where)
			continue
		}
		seen[k.Value] = true
		visit(k.Value, k, v)
	}
	return misspelt, true
}

func (p *parser) scalar(n *yaml.Node, key string) scalar {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		p.errorf(n.Line, n.Column, "%s must be a single value, not a %s", key, kindName(n))
		return scalar{Line: n.Line, Col: n.Column, Bad: true}
	}
	if n.Tag == "!!null" {
		p.errorf(n.Line, n.Column, "%s is empty; give it a value", key)
		return scalar{Line: n.Line, Col: n.Column, Bad: true}
	}
	return scalar{Value: n.Value, Line: n.Line, Col: n.Column, Set: true}
}

// list reads a list of single values; bad is true when n is not a list (already reported).
func (p *parser) list(n *yaml.Node, key string) (items []scalar, bad bool) {
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" { // "update: add" is a one-element list
		return []scalar{p.scalar(n, key)}, false
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n.Line, n.Column, "%s must be a list like [a, b], not a %s", key, kindName(n))
		return nil, true
	}
	out := make([]scalar, 0, len(n.Content))
	for _, item := range n.Content {
		out = append(out, p.scalar(item, "each entry of "+key))
	}
	return out, false
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty value"
		}
		return "single value"
	}
	return "YAML node"
}

// yamlErrorLine extracts "line N" from a yaml.v3 error so it can be reported as file:N:1.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		if i := strings.Index(msg, ":"); i >= 0 {
			msg = strings.TrimSpace(msg[i+1:])
		}
		return line, msg
	}
	return 0, msg
}

// yamlHint turns yaml.v3's terse errors into advice: where a tab indents the line, or what
// is left open. It returns the column to report (1 unless a tab pins it down).
func yamlHint(src []byte, line int, msg string) (int, string) {
	lines := strings.Split(string(src), "\n")
	if line <= len(lines) {
		text := lines[line-1]
		indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		if i := strings.IndexByte(indent, '\t'); i >= 0 {
			return i + 1, "; this line is indented with a tab: YAML indents with spaces only"
		}
	}
	hints := []struct{ msg, hint string }{
		{"did not find expected ',' or ']'", "; a [ list is not closed: add the ]"},
		{"did not find expected ',' or '}'", "; a { mapping is not closed: add the }"},
		{"found unexpected end of stream", "; a quote or bracket opened here is never closed"},
		{"mapping values are not allowed in this context", "; a value holds \": \": put it in quotes, or check the indentation"},
		{"did not find expected key", "; check the indentation of this line and the one before"},
		{"did not find expected '-' indicator", "; check the indentation of this line and the one before"},
		{"found character that cannot start any token", "; put the value in quotes"},
	}
	for _, h := range hints {
		if strings.Contains(msg, h.msg) {
			return 1, h.hint
		}
	}
	return 1, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
