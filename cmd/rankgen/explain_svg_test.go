package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/picture"
)

// TestExplainSVGFile: explain -svg FILE writes generator/picture's drawing of the layout to FILE
// and still prints the text.
func TestExplainSVGFile(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "schemas", "laps.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "laps.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := runIn(&env{stdout: &stdout, stderr: &stderr, dir: dir, now: testClock}, []string{"explain", "-svg", "docs/../layout.svg", "laps.yaml"})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	l, err := layout.Parse("laps.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "layout.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, picture.SVG(l)) {
		t.Errorf("layout.svg is not the layout's picture:\n%s", got)
	}
	if !strings.HasPrefix(stdout.String(), "laps.yaml: package laps\n") {
		t.Errorf("explain -svg FILE no longer prints the text:\n%s", stdout.String())
	}
}
