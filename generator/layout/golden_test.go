package layout

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/*/*.txtar")

// section returns the named file of an archive.
func section(a *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// setSection replaces (or appends) the named file of an archive.
func setSection(a *txtar.Archive, name string, data []byte) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}

// golden runs check on every archive in dir: check returns the name of the expected section
// and its actual text; the test compares, or with -update rewrites the section.
func golden(t *testing.T, dir string, check func(t *testing.T, schema []byte) (string, string)) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no archives in testdata/%s", dir)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			schema, ok := section(a, "schema.yaml")
			if !ok {
				t.Fatalf("%s has no schema.yaml section", file)
			}
			name, got := check(t, schema)
			if *update {
				setSection(a, name, []byte(got))
				if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, ok := section(a, name)
			if !ok {
				t.Fatalf("%s has no %s section (run go test -update)", file, name)
			}
			if got != string(want) {
				t.Errorf("%s: %s differs\n--- got ---\n%s--- want ---\n%s", file, name, got, want)
			}
		})
	}
}

// TestErrors: every archive in testdata/errors holds a schema that Parse refuses, and the
// exact diagnostics, one "file:line:col: message" per line.
func TestErrors(t *testing.T) {
	golden(t, "errors", func(t *testing.T, schema []byte) (string, string) {
		l, err := Parse("schema.yaml", schema)
		if err == nil {
			t.Fatalf("Parse accepted the schema:\n%s", l.Table())
		}
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Fatalf("error is %T, not Diagnostics: %v", err, err)
		}
		if len(ds) == 0 {
			t.Fatal("empty Diagnostics")
		}
		for i, d := range ds {
			if d.File != "schema.yaml" || d.Line < 0 || d.Col < 0 || d.Message == "" {
				t.Errorf("bad diagnostic %+v", d)
			}
			if i > 0 && (ds[i-1].Line > d.Line || ds[i-1].Line == d.Line && ds[i-1].Col > d.Col) {
				t.Errorf("diagnostics not sorted by position: %v before %v", ds[i-1], d)
			}
		}
		return "stderr", err.Error() + "\n"
	})
}

// TestAllErrorsAtOnce: a schema with many independent mistakes gets one diagnostic for each,
// in file order, from a single Parse.
func TestAllErrorsAtOnce(t *testing.T) {
	a, err := txtar.ParseFile(filepath.Join("testdata", "errors", "many_errors.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := section(a, "schema.yaml")
	_, err = Parse("schema.yaml", schema)
	var ds Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("Parse error %v is not Diagnostics", err)
	}
	if len(ds) < 5 {
		t.Fatalf("%d diagnostics, want at least 5:\n%v", len(ds), err)
	}
	lines := map[int]bool{}
	for i, d := range ds {
		lines[d.Line] = true
		if i > 0 && ds[i-1].Line >= d.Line {
			t.Errorf("diagnostic %d (line %d) does not follow line %d", i, d.Line, ds[i-1].Line)
		}
	}
	if len(lines) != len(ds) {
		t.Errorf("%d diagnostics on %d lines", len(ds), len(lines))
	}
}

// TestExamplesInTestdata keeps testdata/layouts/example_*.txtar equal to examples/schemas (it
// runs before TestLayouts, so one go test -update both copies a new example and fills its layout).
func TestExamplesInTestdata(t *testing.T) {
	examples, err := filepath.Glob("../../examples/schemas/*.yaml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, ex := range examples {
		src, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		arch := filepath.Join("testdata", "layouts", "example_"+strings.TrimSuffix(filepath.Base(ex), ".yaml")+".txtar")
		if *update {
			a := &txtar.Archive{Comment: []byte("Copied from examples/schemas/" + filepath.Base(ex) + " by go test -update.\n")}
			if old, err := txtar.ParseFile(arch); err == nil {
				a = old
			}
			setSection(a, "schema.yaml", src)
			if err := os.WriteFile(arch, txtar.Format(a), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		a, err := txtar.ParseFile(arch)
		if err != nil {
			t.Fatalf("%s: %v (run go test -update)", ex, err)
		}
		if got, _ := section(a, "schema.yaml"); !bytes.Equal(got, src) {
			t.Errorf("%s is stale: it differs from %s (run go test -update)", arch, ex)
		}
	}
}

// TestLayouts: every archive in testdata/layouts holds a schema that Parse accepts, and its
// layout table and canonical form.
func TestLayouts(t *testing.T) {
	golden(t, "layouts", func(t *testing.T, schema []byte) (string, string) {
		l, err := Parse("schema.yaml", schema)
		if err != nil {
			t.Fatalf("Parse refused the schema:\n%v", err)
		}
		return "layout", l.Table() + "\n" + l.Canonical
	})
}
