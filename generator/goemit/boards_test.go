package goemit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

// everyLayoutAsBoards is a package of boards holding every golden and example layout and
// random ones, each with its ShardedBoard: boards of every shape side by side in one package.
func everyLayoutAsBoards(t *testing.T) *layout.Boards {
	p := &layout.Boards{File: "all.yaml", Package: "all"}
	add := func(name string, l *layout.Layout) {
		l.Sharded = true
		p.Boards = append(p.Boards, &layout.Board{Name: name, Schema: l.File, Layout: l})
	}
	for _, g := range readGoldens(t) {
		add(strings.ReplaceAll(strings.ToLower(g.stem), "-", "_"), parse(t, g.stem, g.schema))
	}
	rng := rand.New(rand.NewPCG(2026, 29))
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("random%d", i)
		src := oracle.RandomSchema(rng, name)
		l, err := layout.Parse(name+".yaml", src)
		if err != nil {
			t.Fatalf("RandomSchema gave an invalid schema: %v\n%s", err, src)
		}
		if _, err := luaemit.Render(l); err != nil {
			continue // a layout luaemit refuses has no package, alone or in a package of boards
		}
		add(name, l)
	}
	return p
}

// TestBoardsCompile generates a package of boards of every layout, and checks that it builds
// and vets, that its files are deterministic, and that every board's names are its own.
func TestBoardsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with go vet; skipped with -short")
	}
	p := everyLayoutAsBoards(t)
	pkg, boards, err := GenerateBoards(p)
	if err != nil {
		t.Fatal(err)
	}
	pkg2, boards2, err := GenerateBoards(p)
	if err != nil || !bytes.Equal(pkg, pkg2) || len(boards) != len(boards2) {
		t.Fatalf("a second run differs: %v", err)
	}
	dir := tempModule(t)
	write(t, filepath.Join(dir, "all", "all.rankgen.go"), pkg)
	var parts []luaemit.BoardPart
	for i, b := range p.Boards {
		if boards[i].Name != b.GoFile() || !bytes.Equal(boards[i].Data, boards2[i].Data) {
			t.Errorf("board %s: a second run gives other bytes", b.Name)
		}
		for _, name := range topLevelNames(boards[i].Data) {
			lower := strings.ToLower(b.GoName()[:1]) + b.GoName()[1:]
			if !strings.HasPrefix(name, b.GoName()) && !strings.HasPrefix(name, "New"+b.GoName()) && !strings.HasPrefix(name, lower) {
				t.Errorf("board %s declares %s, which does not carry its name", b.Name, name)
			}
		}
		write(t, filepath.Join(dir, "all", b.GoFile()), boards[i].Data)
		lib, err := luaemit.RenderBoard(b.Layout, b.Name)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, luaemit.BoardPart{Board: b.Name, Schema: b.Schema, Lib: lib})
	}
	lib, err := luaemit.Package(p.File, "all", parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "all", lib.File), []byte(lib.Part))
	if out, err := goCmd(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("go vet on a package of %d boards: %v\n%s", len(p.Boards), err, out)
	}
	if sc := os.Getenv("RANKGEN_STATICCHECK"); sc != "" {
		cmd := exec.Command(sc, "./...")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("staticcheck on a package of boards: %v\n%s", err, out)
		}
	}
	t.Logf("%d boards in one package build and vet", len(p.Boards))
}

// TestBoardsRefuseClashes: two boards whose names would declare the same Go name are refused,
// naming both.
func TestBoardsRefuseClashes(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "schemas", "racing.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l := parse(t, "racing", src)
	p := &layout.Boards{File: "game.yaml", Package: "game", Boards: []*layout.Board{
		{Name: "cars", Schema: "racing.yaml", Layout: l}, {Name: "cars", Schema: "racing.yaml", Layout: l}}}
	_, _, err = GenerateBoards(p)
	if err == nil || !strings.Contains(err.Error(), "board cars declares Cars") || !strings.Contains(err.Error(), "as cars.rankgen.go does") {
		t.Fatalf("got %v; want a name of board cars refused as declared twice", err)
	}
}

// TestPrefixNames renames what refers to the file's declarations and nothing else: not a local
// that shadows one, a field or method of the same name, a struct literal's field key or
// another package's name; an embedded type's field and its comments' words follow it.
func TestPrefixNames(t *testing.T) {
	src := `package p

import "strings"

// Entry is an entry; see Compare, strings.Compare and Board.Update.
type Entry struct{ Update int }

// Ranked is an entry with a rank.
type Ranked struct {
	Rank int
	Entry
}

// Spec holds an Entry.
type Spec struct{ E Entry; Fingerprint string }

const Fingerprint = "f"

var digits = map[string]int{Fingerprint: 1}

// Compare orders entries.
func Compare(a, b Entry) int { return strings.Compare(Fingerprint, "") }

type Board struct{}

// Update updates; it is not the Update field.
func (b *Board) Update(e Entry) Ranked {
	digits := 2
	_ = digits
	s := Spec{E: e, Fingerprint: Fingerprint}
	r := Ranked{Entry: s.E, Rank: e.Update}
	_ = r.Entry
	return r
}

func NewBoard() *Board { return &Board{} }
`
	got, _, err := prefixNames([]byte(src), "Track")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"// TrackEntry is an entry; see TrackCompare, strings.Compare and TrackBoard.Update.",
		"type TrackEntry struct{ Update int }",
		"\tTrackEntry\n",
		"// TrackSpec holds a TrackEntry.",
		"type TrackSpec struct {\n\tE           TrackEntry",
		`const TrackFingerprint = "f"`,
		"var trackDigits = map[string]int{TrackFingerprint: 1}",
		"func TrackCompare(a, b TrackEntry) int { return strings.Compare(TrackFingerprint, \"\") }",
		"// Update updates; it is not the Update field.",
		"func (b *TrackBoard) Update(e TrackEntry) TrackRanked {",
		"\tdigits := 2",
		"s := TrackSpec{E: e, Fingerprint: TrackFingerprint}",
		"r := TrackRanked{TrackEntry: s.E, Rank: e.Update}",
		"_ = r.TrackEntry",
		"func NewTrackBoard() *TrackBoard { return &TrackBoard{} }",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("renamed file lacks %q:\n%s", want, got)
		}
	}
}

// TestRewrapComments: a paragraph of comment prose that renaming made too long is wrapped
// again; short paragraphs, preformatted lines and list items are left as they are.
func TestRewrapComments(t *testing.T) {
	long := strings.Repeat("word ", 25) + "end."
	src := "// Short stays.\n//\n// " + long + "\n// and more.\n//\n//\t" + long + "\n// - " + long + "\n\t// " + long + "\nfunc f() {}\n"
	got := string(rewrapComments([]byte(src)))
	want := "// Short stays.\n//\n" + commentLines("", long+" and more.") + "\n//\n//\t" + long + "\n// - " + long + "\n" + commentLines("\t", long) + "\nfunc f() {}\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// commentLines is text wrapped as comment lines under indent.
func commentLines(indent, text string) string {
	var out []string
	for _, l := range strings.Split(wrap(text), "\n") {
		out = append(out, indent+"// "+l)
	}
	return strings.Join(out, "\n")
}
