package picture

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

var update = flag.Bool("update", false, "rewrite testdata/*.svg")

// goldenSchemas cover a score with data fields (laps), a member prefix (pits), a season with a
// time offset (weekly), a decimal score and a bits62 one.
var goldenSchemas = []string{"laps", "pits", "weekly", "seed002_decimal", "racing"}

func load(t *testing.T, name string) *layout.Layout {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "schemas", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse(name+".yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestGolden: the picture of each example is the committed one (go test -update rewrites
// them; look at the diff, and at the files), the same on every run.
func TestGolden(t *testing.T) {
	for _, name := range goldenSchemas {
		t.Run(name, func(t *testing.T) {
			l := load(t, name)
			got := SVG(l)
			if again := SVG(l); !bytes.Equal(got, again) {
				t.Fatal("two pictures of one layout differ")
			}
			file := filepath.Join("testdata", name+".svg")
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the picture drawn now (go test -update, then review):\n%s", file, got)
			}
		})
	}
}

// texts parses doc as XML, failing on any error, and returns its root element's name and the
// text of its <text> elements.
func texts(t *testing.T, doc []byte) (root string, out []string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	var in bool
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return root, out
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Space + " " + tok.Name.Local
			}
			in = tok.Name.Local == "text"
			if in {
				out = append(out, "")
			}
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in {
				out[len(out)-1] += string(tok)
			}
		}
	}
}

// TestWellFormed: every picture parses as an SVG document and names every field, data field,
// the id and the fingerprint.
func TestWellFormed(t *testing.T) {
	for _, name := range goldenSchemas {
		l := load(t, name)
		root, lines := texts(t, SVG(l))
		if root != "http://www.w3.org/2000/svg svg" {
			t.Errorf("%s: root element %q, want svg in the SVG namespace", name, root)
		}
		all := strings.Join(lines, "\n")
		want := []string{l.IDName, l.Fingerprint}
		for _, f := range append(append([]*layout.Field{}, l.Fields...), l.Data...) {
			want = append(want, f.Name)
		}
		for _, w := range want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: the picture does not show %q; its texts:\n%s", name, w, all)
			}
		}
	}
}

// TestHostileFileName: a schema file name with markup, control bytes and invalid UTF-8 is
// written as text: the picture stays well-formed XML and holds no element of its own.
func TestHostileFileName(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "schemas", "laps.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	name := "<text><script>alert(1)&lt;\x01\x1b[31m\xff" + strings.Repeat("x", 300) + ".yaml"
	l, err := layout.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	doc := SVG(l)
	_, lines := texts(t, doc)
	if bytes.Contains(doc, []byte("<script")) || bytes.Contains(doc, []byte("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")) {
		t.Errorf("the file name became markup, or was not cut:\n%s", doc)
	}
	if !strings.Contains(strings.Join(lines, "\n"), "<text><script>alert(1)&lt;") {
		t.Errorf("the file name is not shown as text:\n%s", doc)
	}
}
