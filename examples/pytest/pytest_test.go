// Package pytest checks the generated Python clients against Go: codec vectors of every example
// schema (and random ones) encoded by Go, decoded and encoded back by Python bit for bit, and
// the reads of Python and Go on one board of a real server. It runs Debian's /usr/bin/python3
// with its python3-redis, which scripts/test.sh installs.
package pytest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rankgen/rankgen/generator"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// python is the interpreter the clients are tested with: Debian's, whose python3-redis is
// redis-py, not whatever python3 comes first on PATH.
const python = "/usr/bin/python3"

// needPython fails the test, saying how to get them, when the interpreter or its redis module is
// missing: the Python clients are never left untested silently.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("%s is missing: run scripts/test.sh, which installs python3 and python3-redis (apt-get)", python)
	}
	if out, err := exec.Command(python, "-c", "import redis").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import redis (%v: %s): run scripts/test.sh, which installs python3-redis (apt-get)", python, err, out)
	}
}

// module writes the layout's Python module into a new directory and returns the directory and
// the module's name.
func module(t *testing.T, l *layout.Layout) (dir, name string) {
	t.Helper()
	f, err := generator.Python(l)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, f.Name[:len(f.Name)-len(".py")]
}

// runPython runs a script of testdata with args and returns its stdout; a failure shows its
// output.
func runPython(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(python, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1") // modules are imported from the repository too
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s%s", script, args, err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// writeJSON writes v into a file of the test's temporary directory and returns its path.
func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scoreHex is a score's IEEE bits, as the scripts compare scores: bit for bit.
func scoreHex(s float64) string { return fmt.Sprintf("%016x", math.Float64bits(s)) }

// pyValue is a key of field f as the Python module holds its value: an int (units for a time),
// a bool, an enum value's name.
func pyValue(f *layout.Field, key uint64) any {
	switch {
	case f.Signed():
		return layout.IntOf(key)
	case f.Kind == layout.Bool:
		return key != 0
	case f.Kind == layout.Enum:
		return f.Values[key]
	}
	return key
}

// pyID is an id as the vectors carry it: a uint64's number, a text id's bytes in hex.
func pyID(l *layout.Layout, id string) any {
	if l.IDType == layout.IDUint64 {
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			panic(err)
		}
		return n
	}
	return hex.EncodeToString([]byte(id))
}

// pyData is data values as the vectors carry them (strings in hex).
func pyData(l *layout.Layout, vals []layout.DataValue) []any {
	out := make([]any, len(vals))
	for i, f := range l.Data {
		if f.Kind == layout.String {
			out[i] = hex.EncodeToString([]byte(vals[i].Text))
		} else {
			out[i] = pyValue(f, vals[i].Key)
		}
	}
	return out
}

// names are the Python names of a module's id and fields, read from the module.
type names struct {
	ID     string   `json:"id"`
	Fields []string `json:"fields"`
	Data   []string `json:"data"`
}

// moduleNames reads the Python names of the module's id (the Entry's first attribute), fields
// and data fields (its tables _FIELDS and _DATA).
func moduleNames(t *testing.T, dir, name string) names {
	t.Helper()
	const code = `import sys, json, dataclasses
sys.path.insert(0, sys.argv[1])
m = __import__(sys.argv[2])
print(json.dumps({"id": dataclasses.fields(m.Entry)[0].name, "fields": [f.attr for f in m._FIELDS],
                  "data": [f.attr for f in getattr(m, "_DATA", ())]}))`
	out, err := exec.Command(python, "-c", code, dir, name).CombinedOutput()
	if err != nil {
		t.Fatalf("reading the names of %s: %v\n%s", name, err, out)
	}
	var n names
	if err := json.Unmarshal(out, &n); err != nil {
		t.Fatalf("reading the names of %s: %v: %s", name, err, out)
	}
	return n
}

// errorCode is the code of a codec error, as the Python module's exceptions name it.
func errorCode(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, rankgenrt.ErrBadScore):
		return "BAD_SCORE"
	case errors.Is(err, rankgenrt.ErrBadMember):
		return "BAD_MEMBER"
	case errors.Is(err, rankgenrt.ErrBadData):
		return "BAD_DATA"
	case errors.Is(err, rankgenrt.ErrOutOfRange):
		return "OUT_OF_RANGE"
	case errors.Is(err, rankgenrt.ErrNotFound):
		return "NOT_FOUND"
	case errors.Is(err, rankgenrt.ErrLayoutMismatch):
		return "LAYOUT_MISMATCH"
	case errors.Is(err, rankgenrt.ErrNotIndexed):
		return "NOT_INDEXED"
	case errors.Is(err, rankgenrt.ErrBadReply):
		return "BAD_REPLY"
	case errors.Is(err, rankgenrt.ErrWrongType):
		return "WRONGTYPE"
	case errors.Is(err, rankgenrt.ErrOverflow):
		return "OVERFLOW"
	case errors.Is(err, rankgenrt.ErrTokenReused):
		return "TOKEN_REUSED"
	}
	return "unexpected: " + err.Error()
}

// pyStrings evaluates a Python expression over the module (as m) that gives a list of strings.
func pyStrings(t *testing.T, dir, name, expr string) []string {
	t.Helper()
	code := "import sys, json\nsys.path.insert(0, sys.argv[1])\nm = __import__(sys.argv[2])\nprint(json.dumps(" + expr + "))"
	out, err := exec.Command(python, "-c", code, dir, name).CombinedOutput()
	if err != nil {
		t.Fatalf("%s of %s: %v\n%s", expr, name, err, out)
	}
	var strs []string
	if err := json.Unmarshal(out, &strs); err != nil {
		t.Fatalf("%s of %s: %v: %s", expr, name, err, out)
	}
	return strs
}
