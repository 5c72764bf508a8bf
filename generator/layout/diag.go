package layout

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Diagnostic is one problem found in a schema, positioned in the schema file.
type Diagnostic struct {
	File      string
	Line, Col int    // 1-based; 0 when the problem concerns the file as a whole
	Message   string // in the schema's own words, saying how to fix it
}

func (d Diagnostic) String() string {
	if d.Line == 0 {
		return fmt.Sprintf("%s: %s", d.File, d.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Col, d.Message)
}

// Diagnostics is every problem found in a schema. As an error it prints one per line.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

func (ds Diagnostics) sorted() Diagnostics {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Line != ds[j].Line {
			return ds[i].Line < ds[j].Line
		}
		return ds[i].Col < ds[j].Col
	})
	return ds
}

// KeyPos finds a key of the schema's YAML by its path of mapping keys ("id", "type"): the line
// and column of the deepest key present, or 1:1.
func KeyPos(src []byte, path ...string) (line, col int) {
	line, col = 1, 1
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return
	}
	node := doc.Content[0]
	for _, key := range path {
		if node.Kind != yaml.MappingNode {
			return
		}
		var next *yaml.Node
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == key {
				line, col = node.Content[i].Line, node.Content[i].Column
				next = node.Content[i+1]
				break
			}
		}
		if next == nil {
			return
		}
		node = next
	}
	return
}
