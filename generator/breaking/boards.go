package breaking

import (
	"fmt"

	"github.com/rankgen/rankgen/generator/layout"
)

// Package is one version of a package of boards: its package file (as Schema is a schema's)
// and each board's schema, by board name.
type Package struct {
	Boards  *layout.Boards
	Src     []byte // the package file's text
	Name    string // its name in findings
	Schemas map[string]Schema
}

// CompareBoards reports what breaks between two versions of a package of boards: the boards
// gone (BOARD_REMOVED), then, board by board, what Compare reports of each board both have,
// each message naming its board. A board added breaks nothing.
func CompareBoards(old, new Package) []Change {
	c := &comparer{oldPkg: &old, newPkg: &new}
	c.each(Source, packageFile, pair{})
	for _, b := range new.Boards.Boards {
		before, ok := old.Schemas[b.Name]
		if !ok {
			continue
		}
		for _, ch := range Compare(before, new.Schemas[b.Name]) {
			ch.Message = "board " + b.Name + ": " + ch.Message
			c.out = append(c.out, ch)
		}
	}
	return c.out
}

// CompatibleBoardChanges is CompatibleChanges of each board both versions have, each naming
// its board.
func CompatibleBoardChanges(old, new Package) []Change {
	var out []Change
	for _, b := range new.Boards.Boards {
		if before, ok := old.Schemas[b.Name]; ok {
			for _, ch := range CompatibleChanges(before, new.Schemas[b.Name]) {
				ch.Message = "board " + b.Name + ": " + ch.Message
				out = append(out, ch)
			}
		}
	}
	return out
}

func checkBoardRemoved(p *probe) bool {
	kept := map[string]bool{}
	for _, b := range p.c.newPkg.Boards.Boards {
		kept[b.Name] = true
	}
	line, col := layout.KeyPos(p.c.newPkg.Src, "boards")
	for _, b := range p.c.oldPkg.Boards.Boards {
		if !kept[b.Name] {
			p.add(p.c.newPkg.Name, line, col, "board %s is gone (or renamed): %s", b.Name,
				fmt.Sprintf("%sBoard, New%sBoard and every name starting with %s no longer exist", b.GoName(), b.GoName(), b.GoName()))
		}
	}
	return false
}
