package layout

import (
	"fmt"
	"path"
	"regexp"
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
	File    string // the package file's name, as given
	Package string
	Doc     string
	Boards  []*Board // in the package file's order
}

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
		if l.Package != pkg.Package && pkg.Package != "" {
			p.errAt(b.schema, "board %s: %s says package %s, but this file generates package %s; set \"package: %s\" in %s", b.name.Value, b.schema.Value, l.Package, pkg.Package, pkg.Package, b.schema.Value)
			continue
		}
		pkg.Boards.Boards = append(pkg.Boards.Boards, &Board{Name: b.name.Value, Schema: b.schema.Value, Layout: l})
	}
	if len(p.diags) > 0 {
		return nil, p.diags.sorted()
	}
	return &pkg.Boards, nil
}

// rawBoards is a package file as written.
type rawBoards struct {
	Boards
	raw []rawBoard
}

type rawBoard struct{ name, schema scalar }

var boardsKeys = []string{"package", "doc", "boards"}

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
	var boards *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		switch k.Value {
		case "package":
			pkgName = p.boardsScalar(k, v)
		case "doc":
			out.Doc = strings.TrimSpace(p.boardsScalar(k, v).Value)
		case "boards":
			boards = v
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
