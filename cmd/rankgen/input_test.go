package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// cli runs one command in-process on the example schemas.
func cli(stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = runIn(&env{stdin: stdin, stdout: &out, stderr: &errb, dir: "../../examples/schemas"}, args)
	return code, out.String(), errb.String()
}

// TestStdinRefusesWhatJSONAlters: a line that is not valid UTF-8, or whose strings hold a
// lone surrogate escape, would be read with U+FFFD in place of the bytes; encode and decode
// refuse it, as the argument form does, and print nothing for it.
func TestStdinRefusesWhatJSONAlters(t *testing.T) {
	for _, c := range []struct{ cmd, schema, line string }{
		{"encode", "arena.yaml", "{\"PlayerID\": \"al\xffce\", \"Points\": 1, \"ReachedAt\": \"2026-01-01T00:00:00Z\", \"Paid\": true}"},
		{"encode", "arena.yaml", `{"PlayerID": "al\udc00ce", "Points": 1, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true}`},
		{"encode", "arena.yaml", `{"PlayerID": "al\ud800ce", "Points": 1, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true}`},
		{"decode", "season.yaml", "{\"score\": 1, \"member\": \"0001|00000000000|b\xffb\"}"},
		{"decode", "season.yaml", `{"score": 1, "member": "0001|00000000000|b\udfffb"}`},
	} {
		code, stdout, stderr := cli(strings.NewReader(c.line+"\n"), c.cmd, "-schema", c.schema)
		if code != exitFail || stdout != "" || !strings.Contains(stderr, "stdin:1: ") {
			t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want exit 1 and the line refused", c.cmd, c.line, code, stdout, stderr)
		}
	}
	// A surrogate pair is one character, carried exactly.
	code, stdout, stderr := cli(strings.NewReader(`{"PlayerID": "\ud83d\ude00", "Points": 1, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true}`+"\n"), "encode", "-schema", "arena.yaml")
	if code != exitOK || !strings.Contains(stdout, `"member": "😀"`) {
		t.Errorf("a surrogate pair: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDecodeScoreIsPlainDecimal: decode reads scores as Redis prints them (digits, an optional
// fraction and exponent) and refuses Go-only forms: hex floats, digit separators, inf, signs
// and spaces around the number.
func TestDecodeScoreIsPlainDecimal(t *testing.T) {
	for _, s := range []string{"0x10p0", "1_000", "0b101", " 5", "5 ", "+5", "5.", ".5", "inf", "Infinity", "NaN", "1e", ""} {
		code, stdout, stderr := cli(strings.NewReader(""), "decode", "-schema", "arena.yaml", s)
		if code != exitFail || stdout != "" {
			t.Errorf("decode %q: exit %d, stdout %q, stderr %q; want it refused", s, code, stdout, stderr)
		}
		code, stdout, stderr = cli(strings.NewReader(`{"score": "`+s+`"}`+"\n"), "decode", "-schema", "arena.yaml")
		if code != exitFail || stdout != "" {
			t.Errorf("decode stdin score %q: exit %d, stdout %q, stderr %q; want it refused", s, code, stdout, stderr)
		}
	}
	for _, s := range []string{"5304274343359", "0", "5304274343359.0", "5.304274343359e12", "5.304274343359E+12"} {
		code, stdout, stderr := cli(strings.NewReader(""), "decode", "-schema", "arena.yaml", s)
		if code != exitOK || !strings.Contains(stdout, `"Points": 1234`) && s != "0" {
			t.Errorf("decode %q: exit %d, stdout %q, stderr %q", s, code, stdout, stderr)
		}
	}
}

// TestDuplicateJSONKeys: a key given twice is refused, not resolved to the last value.
func TestDuplicateJSONKeys(t *testing.T) {
	for _, c := range []struct{ cmd, schema, line string }{
		{"encode", "arena.yaml", `{"PlayerID": "a", "Points": 1, "Points": 2, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true}`},
		{"encode", "arena.yaml", `{"PlayerID": "a", "PlayerID": "b", "Points": 1, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true}`},
		{"decode", "arena.yaml", `{"score": 1, "score": 2}`},
		{"decode", "season.yaml", `{"score": 1, "member": "0001|00000000000|bob", "member": "0001|00000000000|eve"}`},
	} {
		code, stdout, stderr := cli(strings.NewReader(c.line+"\n"), c.cmd, "-schema", c.schema)
		if code != exitFail || stdout != "" || !strings.Contains(stderr, "twice") {
			t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want the duplicate key refused", c.cmd, c.line, code, stdout, stderr)
		}
	}
}

// repeat is an io.Reader of n bytes of b, so that the test itself holds no huge buffer.
type repeat struct {
	b byte
	n int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

// TestHugeInputShortError: a 50 MB member (or key, or value) is refused with a short message
// quoting only its start, and reading it does not hold it in memory.
func TestHugeInputShortError(t *testing.T) {
	const huge = 50 << 20
	for _, c := range []struct {
		cmd, schema, before, after string
	}{
		{"decode", "season.yaml", `{"score": 1, "member": "`, `"}`},
		{"encode", "arena.yaml", `{"PlayerID": "`, `", "Points": 1, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true}`},
		{"encode", "arena.yaml", `{"PlayerID": "a", "Points": 1, "ReachedAt": "2026-01-01T00:00:00Z", "Paid": true, "`, `": 1}`},
	} {
		in := io.MultiReader(strings.NewReader(c.before), &repeat{'x', huge}, strings.NewReader(c.after+"\n"+`{"score": 1}`+"\n"))
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, stdout, stderr := cli(in, c.cmd, "-schema", c.schema)
		runtime.ReadMemStats(&after)
		if code != exitFail || len(stderr) > 400 || !strings.HasPrefix(stderr, "stdin:1: ") {
			t.Errorf("%s, %d-byte value: exit %d, stderr (%d bytes) %.400q", c.cmd, huge, code, len(stderr), stderr)
		}
		if c.cmd == "decode" && !strings.Contains(stdout, `"Points"`) {
			t.Errorf("the line after the huge one is not decoded: stdout %q", stdout)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s, %d-byte value: %d KB allocated, %d-byte message", c.cmd, huge, alloc>>10, len(stderr))
		if alloc > 16<<20 {
			t.Errorf("%s, %d-byte value: %d MB allocated, want at most 16 MB", c.cmd, huge, alloc>>20)
		}
	}
	// The argument form: the member is already in memory, but the message stays short.
	code, _, stderr := cli(strings.NewReader(""), "decode", "-schema", "season.yaml", "1", "0001|00000000000|"+strings.Repeat("x", huge))
	if code != exitFail || len(stderr) > 400 {
		t.Errorf("decode, %d-byte member argument: exit %d, stderr (%d bytes) %.400q", huge, code, len(stderr), stderr)
	}
}

// TestLongDataLines: the line limit counts the layout's data fields. A 70,000-byte string
// data value (max_bytes 100000), plain or with every byte escaped, encodes, and its encoding
// decodes back; a line beyond what any entry of the layout needs is refused, and the message
// says what the limit counts.
func TestLongDataLines(t *testing.T) {
	dir := t.TempDir()
	schema := `package: notes
id:
  name: ID
  type: string
  max_bytes: 64
fields:
  - name: Points
    type: uint
    bits: 20
    order: desc
data:
  - name: Note
    type: string
    max_bytes: 100000
`
	if err := os.WriteFile(filepath.Join(dir, "notes.yaml"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := runIn(&env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, dir: dir}, args)
		return code, out.String(), errb.String()
	}
	for _, note := range []string{strings.Repeat("n", 70000), strings.Repeat("\x01", 70000)} {
		line := `{"ID": "ann", "Points": 7, "Note": ` + jsonString(note) + "}\n"
		code, encoded, stderr := run(line, "encode", "-schema", "notes.yaml")
		if code != exitOK || stderr != "" {
			t.Fatalf("encode of a %d-byte line: exit %d, stderr %.300q", len(line), code, stderr)
		}
		code, decoded, stderr := run(encoded, "decode", "-schema", "notes.yaml")
		if code != exitOK || decoded != `{"ID": "ann", "Points": 7, "Note": `+jsonString(note)+"}\n" {
			t.Fatalf("decode of a %d-byte encoding: exit %d, stdout %.100q, stderr %.300q", len(encoded), code, decoded, stderr)
		}
	}
	tooLong := `{"ID": "ann", "Points": 7, "Note": "` + strings.Repeat("\\u0001", 100001) + strings.Repeat(" ", 70<<10) + "\"}\n"
	code, _, stderr := run(tooLong, "encode", "-schema", "notes.yaml")
	want := "more than any line of this layout needs (at most 665962: its longest member and data with every byte escaped, and 65536 bytes for the rest); it starts " + strconv.Quote(tooLong[:64]) + "\n"
	if code != exitFail || !strings.HasSuffix(stderr, want) {
		t.Errorf("a %d-byte line: exit %d, stderr %.300q; want it refused with the limit", len(tooLong), code, stderr)
	}
}
