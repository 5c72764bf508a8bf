package goemit

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
)

// TestPreviousCompiles: every example schema, as the previous schema of
// itself and of a version with every field one bit wider, generates a package (its Go file,
// the previous layout's, both libraries) that builds and vets, with the conversions both ways;
// and the same layout twice gives the same bytes.
func TestPreviousCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with go vet; skipped with -short")
	}
	files, err := filepath.Glob(filepath.Join(repoRoot(t), "examples", "schemas", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := tempModule(t)
	bits := regexp.MustCompile(`(?m)^(\s+bits: )(\d+)`)
	built := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := layout.Parse("old.yaml", src); err != nil {
			continue
		}
		wider := bits.ReplaceAllFunc(src, func(m []byte) []byte {
			sub := bits.FindSubmatch(m)
			n, _ := strconv.Atoi(string(sub[2]))
			return []byte(fmt.Sprintf("%s%d", sub[1], min(n+1, 64)))
		})
		for i, next := range [][]byte{src, wider} {
			stem := fmt.Sprintf("%s%d", strings.TrimSuffix(filepath.Base(file), ".yaml"), i)
			pkg := strings.ReplaceAll(stem, "_", "")
			text := regexp.MustCompile(`(?m)^package: .*$`).ReplaceAll(next, []byte("package: "+pkg))
			text = append(text, []byte("\nprevious:\n  schema: old.yaml\n")...)
			l, err := layout.Parse(stem+".yaml", text)
			if err != nil {
				continue // one bit wider does not fit the score: the same layout covers it
			}
			if err := layout.LoadPrevious(l, stem+".yaml", func(string) ([]byte, error) { return src, nil }); err != nil {
				t.Fatalf("%s: %v", stem, err)
			}
			code, err := Generate(l)
			if err != nil {
				t.Fatalf("%s: %v", stem, err)
			}
			prev, err := GeneratePrevious(l)
			if err != nil {
				t.Fatalf("%s: the previous layout: %v", stem, err)
			}
			if again, _ := GeneratePrevious(l); string(again) != string(prev) {
				t.Errorf("%s: a second run gives other bytes", stem)
			}
			lib, err := luaemit.Render(l)
			if err != nil {
				t.Fatal(err)
			}
			prevLib, err := luaemit.Render(l.Previous.Generated(l))
			if err != nil {
				t.Fatal(err)
			}
			goFile, luaFile := PreviousFiles(l)
			write(t, filepath.Join(dir, pkg, l.GoFile()), code)
			write(t, filepath.Join(dir, pkg, lib.File), []byte(lib.Part))
			write(t, filepath.Join(dir, pkg, goFile), prev)
			write(t, filepath.Join(dir, pkg, luaFile), []byte(prevLib.Part))
			built++
		}
	}
	if built < 20 {
		t.Fatalf("only %d packages with a previous layout; want every example, twice", built)
	}
	if out, err := goCmd(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	t.Logf("%d packages with a previous layout build and vet", built)
}
