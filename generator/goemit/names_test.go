package goemit

import (
	"strings"
	"testing"
)

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"Points": "points", "PlayerID": "playerID", "ID": "id", "URLCount": "urlCount",
		"HTTP2Port": "http2Port", "X": "x", "X2": "x2", "My_Field": "my_Field", "ÄÖ": "äö",
	} {
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

// Fields whose lowerCamel forms coincide get numbered base names, and the package compiles
// (TestGeneratedCompiles builds the same schema from testdata/clash.txtar).
func TestBaseNamesClash(t *testing.T) {
	l := parse(t, "clash", []byte(`package: clash
id: {name: Key}
fields:
  - {name: ID, type: uint, bits: 8, order: desc}
  - {name: Id, type: uint, bits: 8, order: asc}
  - {name: At, type: time, unit: ms, epoch: 2026-01-01T00:00:00Z, bits: 40, order: asc}
  - {name: AtSec, type: time, unit: s, epoch: 2026-01-01T00:00:00Z, bits: 20, order: desc}
`))
	bases, err := baseNames(l)
	if err != nil {
		t.Fatal(err)
	}
	if bases[l.Fields[0]] != "id1" || bases[l.Fields[1]] != "id2" || bases[l.Fields[2]] != "at" {
		t.Errorf("bases: %q %q %q", bases[l.Fields[0]], bases[l.Fields[1]], bases[l.Fields[2]])
	}
	out, err := Generate(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"id1Weight", "id2Max", "atSecLo", "atSecSec := e.AtSec.Unix()"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
}
