package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
)

// FuzzCodecLines feeds arbitrary input lines to encode and decode (on the season schema:
// enum, time, a hex member prefix and a custom separator) and decode's SCORE MEMBER
// arguments: errors are reported per line, never a panic, and every line either prints
// exactly one result or one error.
func FuzzCodecLines(f *testing.F) {
	src, err := os.ReadFile("../../examples/schemas/season.yaml")
	if err != nil {
		f.Fatal(err)
	}
	l, err := layout.Parse("season.yaml", src)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`{"UserID": "bob", "Points": 1, "Tier": "gold", "Wins": 2, "ReachedAt": "2026-01-01T00:00:00Z"}`,
		`{"score": 108201125491, "member": "0001|00000000000|bob"}`,
		`{"score": "1e400"}`, `{"score": -0}`, `{"Points": 1e99999}`, `[1,2]`, `{"UserID": 7}`,
		`{"score": 1, "member": "\u0000\u00ff"}`, "\xff\xfe", `108201125491`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") || strings.TrimSpace(line) == "" {
			return
		}
		for _, run := range []func([]byte) (string, error){
			func(b []byte) (string, error) {
				e, err := entryFromJSON(l, nil, b)
				if err != nil {
					return "", err
				}
				score, member, err := l.Encode(e)
				if err != nil {
					return "", err
				}
				return encodingJSON(l, score, member), nil
			},
			func(b []byte) (string, error) {
				score, member, has, err := encodingFromJSON(l, b)
				if err != nil {
					return "", err
				}
				return decodeJSON(l, nil, score, member, has, nil)
			},
		} {
			var stdout, stderr bytes.Buffer
			code := eachLine(&env{stdin: strings.NewReader(line), stdout: &stdout, stderr: &stderr}, lineLimit(l), run)
			lines := strings.Count(stdout.String(), "\n") + strings.Count(stderr.String(), "\n")
			if lines != 1 || (code == 0) != (stderr.Len() == 0) {
				t.Fatalf("line %q: exit %d, stdout %q, stderr %q", line, code, stdout.String(), stderr.String())
			}
		}
		if score, member, ok := strings.Cut(line, " "); ok {
			var stdout, stderr bytes.Buffer
			runIn(&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: "../../examples/schemas"},
				[]string{"decode", "-schema", "season.yaml", score, member})
		}
	})
}
