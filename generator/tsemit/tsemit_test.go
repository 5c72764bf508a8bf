package tsemit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

func TestPropName(t *testing.T) {
	for in, want := range map[string]string{
		"RaceTime": "raceTime", "PlayerID": "playerID", "URLPath": "urlPath", "ID": "id", "Laps": "laps", "X": "x", "already": "already",
	} {
		if got := PropName(in); got != want {
			t.Errorf("PropName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDeterministic renders every example schema twice: the same bytes, starting with the
// generated-code header, the library's name and text embedded.
func TestDeterministic(t *testing.T) {
	schemas, err := filepath.Glob("../../examples/schemas/*.yaml")
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, path := range schemas {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		lib := Library{Name: l.Stem() + "_0123456789ab", Source: "#!lua name=" + l.Stem() + "_0123456789ab\n-- \"quotes\" and \\ and </script>\n"}
		a, err := Generate(l, lib)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Generate(l, lib)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renderings differ", path)
		}
		if first, _, _ := strings.Cut(string(a), "\n"); first != "// "+layout.Header(l.File) {
			t.Errorf("%s: first line %q", path, first)
		}
		for _, want := range []string{`export const LibraryName = "` + lib.Name + `"`, `"#!lua name=` + lib.Name + `\n-- \"quotes\" and \\ and </script>\n"`, `export const Fingerprint = "` + l.Fingerprint + `"`} {
			if !strings.Contains(string(a), want) {
				t.Errorf("%s: no %s", path, want)
			}
		}
	}
}
