package main

import (
	"os"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/goemit"
	"github.com/rankgen/rankgen/generator/layout"
)

// season is the example schema whose members carry a prefix, so that the separator reaches
// the generated Go and Lua.
func season(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/schemas/season.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// TestEverySeparatorGenerates: a schema that validates generates; every separator validation
// lets through (each printable ASCII byte, and the longest) renders Go and Lua.
func TestEverySeparatorGenerates(t *testing.T) {
	src := season(t)
	seps := []string{"", "~!@#$%^&"}
	for c := byte(' '); c <= '~'; c++ {
		seps = append(seps, string(c))
	}
	for _, sep := range seps {
		s := strings.Replace(src, `separator: "|"`, `separator: "`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sep)+`"`, 1)
		l, err := layout.Parse("season.yaml", []byte(s))
		if err != nil {
			t.Errorf("separator %q: %v", sep, err)
			continue
		}
		if l.Separator != sep {
			t.Fatalf("separator %q parsed as %q", sep, l.Separator)
		}
		if _, err := generator.FromLayout(l); err != nil {
			t.Errorf("separator %q validates but does not generate: %.300v", sep, err)
		}
	}
}

// TestHostileSchemaShortErrors: a separator holding NUL and a 1 MB field name are refused by
// validation at their position, in a short message.
func TestHostileSchemaShortErrors(t *testing.T) {
	src := season(t)
	for name, s := range map[string]string{
		"NUL separator":  strings.Replace(src, `separator: "|"`, `separator: "|\0"`, 1),
		"1 MB name":      strings.Replace(src, "- name: Points", "- name: P"+strings.Repeat("x", 1<<20), 1),
		"1 MB separator": strings.Replace(src, `separator: "|"`, `separator: "`+strings.Repeat("|", 1<<20)+`"`, 1),
		"1 MB doc":       strings.Replace(src, "doc: Season standings.", "doc: "+strings.Repeat("d", 1<<20), 1),
	} {
		_, err := layout.Parse("season.yaml", []byte(s))
		if err == nil || !strings.HasPrefix(err.Error(), "season.yaml:") || len(err.Error()) > 300 {
			t.Errorf("%s: %.400v (%d bytes); want a short positioned error", name, err, len(errString(err)))
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestGenerateNeverDumpsSource: when the Go source does not format (here a separator that
// validation refuses, forced into the layout), the error names the problem in one line and
// carries none of the source.
func TestGenerateNeverDumpsSource(t *testing.T) {
	l, err := layout.Parse("season.yaml", []byte(season(t)))
	if err != nil {
		t.Fatal(err)
	}
	l.Separator = "|\x00"
	_, err = goemit.Generate(l)
	if err == nil {
		t.Fatal("a NUL separator generated")
	}
	if msg := err.Error(); len(msg) > 300 || strings.Contains(msg, "\n") || strings.Contains(msg, "package season") {
		t.Errorf("the error carries source (%d bytes): %.400q", len(msg), msg)
	}
}
