package layout

import (
	"fmt"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
	"gopkg.in/yaml.v3"
)

// Boards is a package of boards: several schemas, each of its own layout, generated into one Go
// package and one Redis Functions library, from a package file that names them:
//
//	package: game
//	doc: The racing game's boards.
//	boards:
//	  track: track.yaml     # a board's name, then its schema, beside the package file
//	  alltime: alltime.yaml
type Boards struct {
	File        string // the package file's name, as given
	Package     string
	Doc         string
	Boards      []*Board      // in the package file's order
	Submissions []*Submission // in the package file's order
}

// Submission is a named write over boards of the package: one call that writes each of its
// steps' boards with the step's write, under one token, all or nothing.
type Submission struct {
	Name  string // lower case, as the package file names it; its Go type is GoName()
	Doc   string
	Steps []*Step

	Line, Col int
}

// Step is one board's write in a submission.
type Step struct {
	Name  string // its Go name: the fields of the submission's types (default: the board's Go name)
	Board *Board
	Write StepWrite

	Line, Col int
}

// StepWrite is what a step does to its board: one of the board's single writes.
type StepWrite string

// The writes a step may make.
const (
	StepSet    StepWrite = "set"    // Board.Set: store the given entry
	StepBest   StepWrite = "best"   // Board.Best: keep whichever of the stored and the given entry ranks first
	StepInsert StepWrite = "insert" // Board.Insert: keep the id's first entry
	StepUpdate StepWrite = "update" // Board.Update: the given changes (add, min, max, set of fields; data)
)

var stepWrites = []string{string(StepSet), string(StepBest), string(StepInsert), string(StepUpdate)}

// GoName is the submission's Go name: "lap" → "Lap", "pit_stop" → "PitStop".
func (s *Submission) GoName() string { return (&Board{Name: s.Name}).GoName() }

// Board is one board of a package of boards.
type Board struct {
	Name   string // its name in the package: lower case; its Go names start with GoName
	Schema string // its schema's path, as the package file gives it (relative to it)
	Layout *Layout
}

// GoName is the board's name as the start of its Go identifiers: "track" → "Track",
// "all_time" → "AllTime".
func (b *Board) GoName() string {
	var out strings.Builder
	for _, part := range strings.Split(b.Name, "_") {
		if part != "" {
			out.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return out.String()
}

// GoFile is the name of the board's generated Go file in its package.
func (b *Board) GoFile() string { return b.Name + ".rankgen.go" }

// Previous is, for a board whose schema names the one it replaces (previous:), the board of
// that layout in the package: named <name>_previous (its part of the package's library, its Go
// names Previous<…> after the board's own: TrackPreviousEntry), its file
// <name>.previous.rankgen.go. Nil without one.
func (b *Board) Previous() *Board {
	pr := b.Layout.Previous
	if pr == nil || pr.Layout == nil {
		return nil
	}
	return &Board{Name: b.Name + "_previous", Schema: pr.Schema, Layout: pr.Generated(b.Layout)}
}

// PreviousGoFile is the name of the Go file of the board's previous layout (Previous).
func (b *Board) PreviousGoFile() string { return b.Name + ".previous.rankgen.go" }

// previousParts refuses a board named as another board's previous layout's part is.
func (p *parser) previousParts(pkg *rawBoards) {
	for _, b := range pkg.Boards.Boards {
		prev := b.Previous()
		if prev == nil {
			continue
		}
		for _, other := range pkg.raw {
			if other.name.Value == prev.Name {
				p.errAt(other.name, "board %s: its name is the one board %s's previous layout takes in the package (its schema names a previous schema); rename it", prev.Name, b.Name)
			}
		}
	}
}

// Stem is the package file's name without its extension: the package's own files are named
// after it.
func (p *Boards) Stem() string { return (&Layout{File: p.File}).Stem() }

// boardName is what a board's name may be: it names Go identifiers and Lua functions.
var boardName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// maxBoards bounds a package: each board adds its part to one library.
const maxBoards = 32

// IsBoards reports whether src is a package file (a mapping with a boards: key) rather than a
// board's schema.
func IsBoards(src []byte) bool {
	p := &parser{}
	doc := p.document(src)
	if doc == nil || len(doc.Content) == 0 {
		return false
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "boards" {
			return true
		}
	}
	return false
}

// ParseBoards parses a package file and the schema of each board it names, read with read
// (given the path joined to the package file's directory). Every problem of the package file
// and of every board's schema is reported at once, as Diagnostics. Each board's schema says the
// package's name (package: game), so that it reads the same alone and in its package.
func ParseBoards(file string, src []byte, read func(path string) ([]byte, error)) (*Boards, error) {
	p := &parser{file: file}
	pkg := p.boardsFile(src)
	if pkg == nil {
		return nil, p.diags.sorted()
	}
	for _, b := range pkg.raw {
		schemaPath := path.Join(path.Dir(strings.ReplaceAll(file, `\`, "/")), b.schema.Value)
		text, err := read(schemaPath)
		if err != nil {
			p.errAt(b.schema, "board %s: cannot read its schema %s: %v", b.name.Value, b.schema.Value, err)
			continue
		}
		l, err := Parse(schemaPath, text)
		if err != nil {
			if ds, ok := err.(Diagnostics); ok {
				p.diags = append(p.diags, ds...)
			} else {
				p.errAt(b.schema, "board %s: %v", b.name.Value, err)
			}
			continue
		}
		if err := LoadPrevious(l, schemaPath, read); err != nil {
			if ds, ok := err.(Diagnostics); ok {
				p.diags = append(p.diags, ds...)
			} else {
				p.errAt(b.schema, "board %s: %v", b.name.Value, err)
			}
			continue
		}
		if l.Package != pkg.Package && pkg.Package != "" {
			p.errAt(b.schema, "board %s: %s says package %s, but this file generates package %s; set \"package: %s\" in %s", b.name.Value, b.schema.Value, l.Package, pkg.Package, pkg.Package, b.schema.Value)
			continue
		}
		pkg.Boards.Boards = append(pkg.Boards.Boards, &Board{Name: b.name.Value, Schema: b.schema.Value, Layout: l})
	}
	p.previousParts(pkg)
	if len(p.diags) == 0 {
		pkg.Submissions = p.submissionsOf(pkg.submissions, pkg.Boards.Boards)
	}
	if len(p.diags) > 0 {
		return nil, p.diags.sorted()
	}
	return &pkg.Boards, nil
}

// rawBoards is a package file as written.
type rawBoards struct {
	Boards
	raw         []rawBoard
	submissions *yaml.Node
}

type rawBoard struct{ name, schema scalar }

var (
	boardsKeys     = []string{"package", "doc", "boards", "submissions"}
	submissionKeys = []string{"doc", "writes"}
	stepKeys       = []string{"board", "write", "name"}
)

// boardsFile reads the package file's keys, reporting every problem of its own; nil when it
// names no board to read.
func (p *parser) boardsFile(src []byte) *rawBoards {
	doc := p.document(src)
	if doc == nil {
		return nil
	}
	if len(doc.Content) == 0 {
		p.errorf(0, 0, "the package file is empty; it needs package and boards")
		return nil
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, root.Column, "the package file must be a mapping of keys (package, doc, boards), not a %s", kindName(root))
		return nil
	}
	out := &rawBoards{Boards: Boards{File: file0(p.file)}}
	var pkgName scalar
	var boards, submissions *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		switch k.Value {
		case "package":
			pkgName = p.boardsScalar(k, v)
		case "doc":
			out.Doc = strings.TrimSpace(p.boardsScalar(k, v).Value)
		case "boards":
			boards = v
		case "submissions":
			submissions = v
		default:
			p.errorf(k.Line, k.Column, "unknown key %s in a package file%s", quote.Short(k.Value), didYouMean(k.Value, boardsKeys))
		}
	}
	v := &validator{parser: *p}
	var l Layout
	v.packageName(pkgName, &l)
	p.diags = v.diags
	out.Package = l.Package
	switch {
	case boards == nil:
		p.errorf(root.Line, root.Column, "missing boards: name each board and its schema, as in \"boards: {track: track.yaml}\"")
	case boards.Kind != yaml.MappingNode:
		p.errorf(boards.Line, boards.Column, "boards must map each board's name to its schema file (track: track.yaml), not be a %s", kindName(boards))
	case len(boards.Content) == 0:
		p.errorf(boards.Line, boards.Column, "boards is empty; name at least one board and its schema (track: track.yaml)")
	case len(boards.Content)/2 > maxBoards:
		p.errorf(boards.Line, boards.Column, "%d boards; a package holds at most %d (one library holds them all): split it into packages", len(boards.Content)/2, maxBoards)
	default:
		seen := map[string]bool{}
		for i := 0; i+1 < len(boards.Content); i += 2 {
			k, v := boards.Content[i], deref(boards.Content[i+1])
			name := scalar{Value: k.Value, Line: k.Line, Col: k.Column, Set: true}
			var schema scalar
			if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
				schema = scalar{Value: v.Value, Line: v.Line, Col: v.Column, Set: true}
			}
			switch {
			case !boardName.MatchString(k.Value) || len(k.Value) > 40:
				p.errorf(k.Line, k.Column, "board name %q must be lower-case letters and digits, words joined by _ (all_time), at most 40 bytes: it names Go types (AllTimeBoard) and Lua functions", k.Value)
			case k.Value == "submit":
				p.errorf(k.Line, k.Column, "board name submit names the library's submissions (<library>_submit_<name>); give the board another name")
			case seen[k.Value]:
				p.errorf(k.Line, k.Column, "board %s is named twice; give each board its own name", k.Value)
			case !schema.Set || schema.Value == "":
				p.errorf(v.Line, v.Column, "board %s: give its schema file as one value (%s: %s.yaml)", k.Value, k.Value, k.Value)
			default:
				seen[k.Value] = true
				out.raw = append(out.raw, rawBoard{name: name, schema: schema})
			}
		}
	}
	out.submissions = submissions
	return out
}

// submissionsOf reads the package file's submissions over its boards, reporting every problem.
func (p *parser) submissionsOf(n *yaml.Node, boards []*Board) []*Submission {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, n.Column, "submissions must map each submission's name to its writes (lap: {writes: [...]}), not be a %s", kindName(n))
		return nil
	}
	byName := map[string]*Board{}
	var names []string
	for _, b := range boards {
		byName[b.Name] = b
		names = append(names, b.Name)
	}
	var out []*Submission
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		sub := &Submission{Name: k.Value, Line: k.Line, Col: k.Column}
		switch {
		case !boardName.MatchString(k.Value) || len(k.Value) > 40:
			p.errorf(k.Line, k.Column, "submission name %q must be lower-case letters and digits, words joined by _ (pit_stop), at most 40 bytes: it names a Go type (PitStop)", k.Value)
			continue
		case seen[k.Value]:
			p.errorf(k.Line, k.Column, "submission %s is named twice; give each its own name", k.Value)
			continue
		case v.Kind != yaml.MappingNode:
			p.errorf(v.Line, v.Column, "submission %s must be a mapping (doc, writes), not a %s", k.Value, kindName(v))
			continue
		}
		seen[k.Value] = true
		var writes *yaml.Node
		for j := 0; j+1 < len(v.Content); j += 2 {
			kk, vv := v.Content[j], deref(v.Content[j+1])
			switch kk.Value {
			case "doc":
				sub.Doc = strings.TrimSpace(p.boardsScalar(kk, vv).Value)
			case "writes":
				writes = vv
			default:
				p.errorf(kk.Line, kk.Column, "unknown key %s in submission %s%s", quote.Short(kk.Value), k.Value, didYouMean(kk.Value, submissionKeys))
			}
		}
		if writes == nil || writes.Kind != yaml.SequenceNode || len(writes.Content) == 0 {
			at := v
			if writes != nil {
				at = writes
			}
			p.errorf(at.Line, at.Column, "submission %s needs writes: a list of its boards' writes, as [{board: track, write: best}]", k.Value)
			continue
		}
		steps := map[string]bool{}
		for _, w := range writes.Content {
			w = deref(w)
			if w.Kind != yaml.MappingNode {
				p.errorf(w.Line, w.Column, "a write of submission %s must be a mapping (board, write, name), not a %s", k.Value, kindName(w))
				continue
			}
			st := &Step{Line: w.Line, Col: w.Column}
			var board, write, name scalar
			for j := 0; j+1 < len(w.Content); j += 2 {
				kk, vv := w.Content[j], deref(w.Content[j+1])
				switch kk.Value {
				case "board":
					board = p.boardsScalar(kk, vv)
				case "write":
					write = p.boardsScalar(kk, vv)
				case "name":
					name = p.boardsScalar(kk, vv)
				default:
					p.errorf(kk.Line, kk.Column, "unknown key %s in a write of submission %s%s", quote.Short(kk.Value), k.Value, didYouMean(kk.Value, stepKeys))
				}
			}
			ok := true
			if b, found := byName[board.Value]; !board.Set {
				p.errorf(w.Line, w.Column, "a write of submission %s needs board: one of %s", k.Value, strings.Join(names, ", "))
				ok = false
			} else if !found {
				p.errAt(board, "submission %s writes board %s, which the package does not have; its boards are %s", k.Value, quote.Short(board.Value), strings.Join(names, ", "))
				ok = false
			} else {
				st.Board = b
			}
			switch {
			case !write.Set:
				p.errorf(w.Line, w.Column, "a write of submission %s needs write: one of %s (update takes the changes of the board's Update)", k.Value, strings.Join(stepWrites, ", "))
				ok = false
			case !slices.Contains(stepWrites, write.Value):
				p.errAt(write, "write %s of submission %s: want one of %s (update takes the changes of the board's Update)", quote.Short(write.Value), k.Value, strings.Join(stepWrites, ", "))
				ok = false
			}
			st.Write = StepWrite(write.Value)
			switch {
			case name.Set && (!token.IsExported(name.Value) || !token.IsIdentifier(name.Value)):
				p.errAt(name, "write name %s must be an exported Go name, as TrackByClass", quote.Short(name.Value))
				ok = false
			case name.Set:
				st.Name = name.Value
			case st.Board != nil:
				st.Name = st.Board.GoName()
			}
			if ok && steps[st.Name] {
				p.errorf(w.Line, w.Column, "submission %s writes %s twice: give the second write its own name (name: %sByClass)", k.Value, st.Name, st.Name)
				ok = false
			}
			if ok {
				steps[st.Name] = true
				sub.Steps = append(sub.Steps, st)
			}
		}
		out = append(out, sub)
	}
	return out
}

// boardsScalar is the scalar value of key k, reporting any other kind of node.
func (p *parser) boardsScalar(k, v *yaml.Node) scalar {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		if v.Tag == "!!null" {
			p.errorf(v.Line, v.Column, "%s is empty; give it a value", k.Value)
		} else {
			p.errorf(v.Line, v.Column, "%s must be a single value, not a %s", k.Value, kindName(v))
		}
		return scalar{Bad: true}
	}
	return scalar{Value: v.Value, Line: v.Line, Col: v.Column, Set: true}
}

// didYouMean suggests the key closest to a misspelt one, if any.
func didYouMean(got string, keys []string) string {
	if s := suggest.Closest(got, keys); s != "" {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return "; known keys are " + strings.Join(keys, ", ")
}
