package layout

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func boardFiles(files map[string]string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		if s, ok := files[path]; ok {
			return []byte(s), nil
		}
		return nil, fs.ErrNotExist
	}
}

const boardSchema = `package: game
id: {name: Driver, type: string, max_bytes: 16}
fields:
  - {name: Laps, type: uint, bits: 20, order: desc, update: [add]}
`

func TestParseBoards(t *testing.T) {
	src := "package: game\ndoc: A game.\nboards:\n  track: track.yaml\n  all_time: sub/all.yaml\n"
	p, err := ParseBoards("dir/game.yaml", []byte(src), boardFiles(map[string]string{
		"dir/track.yaml": boardSchema, "dir/sub/all.yaml": boardSchema}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Package != "game" || p.Doc != "A game." || p.File != "game.yaml" || p.Stem() != "game" || len(p.Boards) != 2 {
		t.Fatalf("got %+v", p)
	}
	if b := p.Boards[1]; b.Name != "all_time" || b.GoName() != "AllTime" || b.GoFile() != "all_time.rankgen.go" || b.Schema != "sub/all.yaml" || b.Layout.File != "all.yaml" {
		t.Errorf("board 2: %+v, Go name %s", b, b.GoName())
	}
	if !IsBoards([]byte(src)) || IsBoards([]byte(boardSchema)) || IsBoards([]byte("- a")) || IsBoards([]byte(":")) {
		t.Error("IsBoards tells package files from schemas wrongly")
	}
}

// TestParseBoardsErrors: every problem of the package file and of its boards' schemas at once,
// each at its file:line:col, saying how to fix it.
func TestParseBoardsErrors(t *testing.T) {
	src := `package: game
boardz: 1
boards:
  Track: track.yaml
  ok: ok.yaml
  other: other.yaml
  gone: gone.yaml
  bad: bad.yaml
  empty:
`
	_, err := ParseBoards("game.yaml", []byte(src), boardFiles(map[string]string{
		"ok.yaml":    boardSchema,
		"other.yaml": strings.Replace(boardSchema, "package: game", "package: other", 1),
		"bad.yaml":   strings.Replace(boardSchema, "bits: 20", "bits: 99", 1),
	}))
	var ds Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("got %v; want Diagnostics", err)
	}
	for _, want := range []string{
		`game.yaml:2:1: unknown key "boardz" in a package file; did you mean "boards"?`,
		`game.yaml:4:3: board name "Track" must be lower-case letters and digits`,
		`game.yaml:9:9: board empty: give its schema file as one value (empty: empty.yaml)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	// The boards' schemas' problems come with the file's own.
	src = "package: game\nboards:\n  ok: ok.yaml\n  other: other.yaml\n  gone: gone.yaml\n  bad: bad.yaml\n"
	_, err = ParseBoards("game.yaml", []byte(src), boardFiles(map[string]string{
		"ok.yaml":    boardSchema,
		"other.yaml": strings.Replace(boardSchema, "package: game", "package: other", 1),
		"bad.yaml":   strings.Replace(boardSchema, "bits: 20", "bits: 99", 1),
	}))
	for _, want := range []string{
		`game.yaml:4:10: board other: other.yaml says package other, but this file generates package game; set "package: game" in other.yaml`,
		`game.yaml:5:9: board gone: cannot read its schema gone.yaml`,
		`bad.yaml:4:`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	for _, bad := range []string{"", "boards: [a]", "package: game\nboards: {}", "package: 1x\nboards: {a: a.yaml}"} {
		if _, err := ParseBoards("game.yaml", []byte(bad), boardFiles(nil)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// TestParseSubmissions: a submission's writes name the package's boards and one of their
// writes; a board written twice needs a name for its second write; every problem at once.
func TestParseSubmissions(t *testing.T) {
	files := boardFiles(map[string]string{"a.yaml": boardSchema, "b.yaml": boardSchema})
	src := `package: game
boards: {a: a.yaml, b: b.yaml}
submissions:
  lap:
    doc: A lap.
    writes:
      - {board: a, write: best}
      - {board: a, write: update, name: AByClass}
      - {board: b, write: set}
`
	p, err := ParseBoards("game.yaml", []byte(src), files)
	if err != nil {
		t.Fatal(err)
	}
	sub := p.Submissions[0]
	if sub.Name != "lap" || sub.GoName() != "Lap" || sub.Doc != "A lap." || len(sub.Steps) != 3 ||
		sub.Steps[1].Name != "AByClass" || sub.Steps[1].Write != StepUpdate || sub.Steps[2].Name != "B" || sub.Steps[2].Board != p.Boards[1] {
		t.Errorf("got %+v", sub)
	}
	bad := `package: game
boards: {a: a.yaml, b: b.yaml}
submissions:
  lap:
    writes:
      - {board: c, write: best}
      - {board: a, write: keep}
      - {board: a, write: best}
      - {board: a, write: set}
      - {board: b, write: set, name: lower}
      - {board: b, writ: set}
  Pit: {writes: []}
`
	_, err = ParseBoards("game.yaml", []byte(bad), files)
	for _, want := range []string{
		`game.yaml:6:17: submission lap writes board "c", which the package does not have; its boards are a, b`,
		`game.yaml:7:27: write "keep" of submission lap: want one of set, best, insert, update`,
		`game.yaml:9:9: submission lap writes A twice: give the second write its own name (name: AByClass)`,
		`game.yaml:10:38: write name "lower" must be an exported Go name, as TrackByClass`,
		`game.yaml:11:20: unknown key "writ" in a write of submission lap; did you mean "write"?`,
		`game.yaml:12:3: submission name "Pit" must be lower-case letters and digits`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
