package pytest

import (
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// awkward is a schema whose docs hold quotes and backslashes and whose names are Python
// keywords in snake case, with a data field named like a keyword too.
const awkward = `package: awkward
doc: 'A board with a "quoted" doc, a backslash \ and three quotes """ in it.'
id:
  name: From
  type: uint64
fields:
  - name: Class
    type: uint
    bits: 8
    order: desc
    doc: 'Its """doc""" ends in a backslash \'
  - name: Import
    type: enum
    values: [a, b]
    order: desc
data:
  - name: Lambda
    type: string
    max_bytes: 8
    doc: '\"'
`

// TestAwkwardNames: such a schema gives a module that Python imports, with keyword attributes
// escaped (class_, from_, import_, lambda_), that encodes and decodes an entry.
func TestAwkwardNames(t *testing.T) {
	needPython(t)
	l, err := layout.Parse("awkward.yaml", []byte(awkward))
	if err != nil {
		t.Fatal(err)
	}
	dir, name := module(t, l)
	n := moduleNames(t, dir, name)
	if n.ID != "from_" || strings.Join(n.Fields, ",") != "class_,import_" || strings.Join(n.Data, ",") != "lambda_" {
		t.Fatalf("names %+v, want from_, class_ and import_, lambda_", n)
	}
	got := pyStrings(t, dir, name, `[repr(m.decode(*m.encode(m.Entry(from_=5, class_=200, import_="b", data=m.Data(lambda_="x"))))), m.__doc__.splitlines()[0], m.Entry.__doc__]`)
	want := []string{"Entry(from_=5, class_=200, import_='b', data=Data(lambda_=''))",
		`Board awkward (awkward.yaml): A board with a "quoted" doc, a backslash \ and three quotes """ in it.`,
		`An entry of the board: A board with a "quoted" doc, a backslash \ and three quotes """ in it.`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
