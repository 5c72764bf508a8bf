package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// FuzzDataLines feeds arbitrary lines, and arbitrary data hash values, to encode and decode on
// the pits schema (a string, an enum, a bool and an int of data, on a member-prefix board):
// never a panic; an entry that encodes decodes, with its data, to a line that encodes to the
// same score, member and data; and decoded data encodes back to the bytes it was read from
// (extended by the zero of fields an older format lacks, or cut where a newer one appended
// fields), unless a string in it is not UTF-8 (read as it is, refused when written).
func FuzzDataLines(f *testing.F) {
	l := loadExample(f, "pits.yaml")
	for _, s := range []string{
		`{"Crew": "ann", "StopMs": 2400, "At": "2026-06-01T12:00:00Z", "Team": "Rosso \"Corsa\"", "Tyre": "hard", "Pro": true, "Stops": -3}`,
		`{"Crew": "bo", "StopMs": 1, "At": "2026-06-01T12:00:00Z", "Team": "Ω😀", "Stops": 100000}`,
		`{"Crew": "cy", "StopMs": 1, "At": "2026-06-01T12:00:00Z"}`,
		`{"score": 63135, "member": "0030c337200:ann", "data": "13:Rosso \"Corsa\"1:21:12:-3"}`,
		`{"score": 63135, "member": "0030c337200:ann", "data": ""}`,
		`{"score": 63135, "member": "0030c337200:ann", "data": 5}`,
		`13:Rosso "Corsa"1:21:12:-3`, `0:1:01:01:0`, `2:é1:9`, `99999999999999999999:x`, "3:R\xffs1:01:01:0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if vals, err := l.DecodeData(line); err == nil && line != "" {
			again, err := l.EncodeData(vals)
			var te *rankgenrt.TextError
			if errors.As(err, &te) && !utf8.ValidString(line) {
				return
			}
			// The bytes read come back, extended by the zero of the fields an older format lacks
			// or cut to this format's fields where a newer one appended some, and they decode
			// to the same data.
			if err != nil || !strings.HasPrefix(again, line) && !strings.HasPrefix(line, again) {
				t.Fatalf("data %q decodes, but encodes to %q, %v", line, again, err)
			}
			if back, err := l.DecodeData(again); err != nil || !reflect.DeepEqual(back, vals) {
				t.Fatalf("data %q decodes to %v, which encodes to %q, which decodes to %v, %v", line, vals, again, back, err)
			}
		}
		e, err := entryFromJSON(l, nil, []byte(line))
		if err != nil {
			decodeLine(l, nil, line)
			return
		}
		obj, _ := jsonObject([]byte(line))
		data, err := dataFromJSON(l, obj)
		if err != nil {
			return
		}
		score, member, err := l.Encode(e)
		if err != nil {
			return
		}
		out, err := decodeJSON(l, nil, score, member, true, &data)
		if err != nil {
			return // a string JSON cannot carry exactly (not UTF-8) is refused, never altered
		}
		back, err := entryFromJSON(l, nil, []byte(out))
		if err != nil {
			t.Fatalf("decode prints %s, which encode refuses: %v", out, err)
		}
		backObj, _ := jsonObject([]byte(out))
		data2, err := dataFromJSON(l, backObj)
		score2, member2, err2 := l.Encode(back)
		if err != nil || err2 != nil || score2 != score || member2 != member || data2 != data {
			t.Fatalf("%s → (%v, %q, %q) → %s → (%v, %q, %q, %v, %v)", line, score, member, data, out, score2, member2, data2, err, err2)
		}
	})
}
