package layout

import (
	"errors"
	"os"
	"strings"
	"testing"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestDataFingerprints: data fields leave the layout fingerprint (and the canonical form) as
// they are, and change the stored-format and data fingerprints; without data the stored-format
// fingerprint is the layout's.
func TestDataFingerprints(t *testing.T) {
	src, err := os.ReadFile("../../examples/schemas/laps.yaml")
	if err != nil {
		t.Fatal(err)
	}
	with, err := Parse("laps.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Parse("laps.yaml", []byte(string(src)[:strings.Index(string(src), "# Entry data")]))
	if err != nil {
		t.Fatal(err)
	}
	if !with.HasData() || plain.HasData() {
		t.Fatalf("HasData: %v with data, %v without", with.HasData(), plain.HasData())
	}
	if with.Fingerprint != plain.Fingerprint || with.Canonical != plain.Canonical {
		t.Errorf("data changed the layout fingerprint: %s vs %s", with.Fingerprint, plain.Fingerprint)
	}
	if plain.StoreFingerprint != plain.Fingerprint || plain.DataFingerprint != "" {
		t.Errorf("without data: store fingerprint %s, data fingerprint %q; want %s and none", plain.StoreFingerprint, plain.DataFingerprint, plain.Fingerprint)
	}
	if with.StoreFingerprint == with.Fingerprint || with.DataFingerprint == "" || with.DataFingerprint == with.StoreFingerprint {
		t.Errorf("with data: store %s, data %s, layout %s; want three different fingerprints", with.StoreFingerprint, with.DataFingerprint, with.Fingerprint)
	}
}

// TestDataCodecRoundTrip: the interpreted data codec reads back what it writes, refuses a
// string over max_bytes and a value out of range (ErrOutOfRange) and any text it cannot have
// written (ErrBadData).
func TestDataCodecRoundTrip(t *testing.T) {
	l, err := Parse("d.yaml", []byte(`package: d
id: ID
fields:
  - {name: Points, type: uint, bits: 8, order: desc}
data:
  - {name: Nick, type: string, max_bytes: 4}
  - {name: Level, type: int, min: -3, max: 3}
  - {name: Pro, type: bool}
  - {name: Since, type: time, unit: ms, epoch: 2020-01-01T00:00:00Z, bits: 40}
`))
	if err != nil {
		t.Fatal(err)
	}
	since := l.Data[3]
	vals := []DataValue{{Text: "a:b"}, {Key: IntKey(-3)}, {Key: 1}, {Key: since.Hi}}
	s, err := l.EncodeData(vals)
	if err != nil {
		t.Fatal(err)
	}
	back, err := l.DecodeData(s)
	if err != nil || len(back) != 4 || back[0] != vals[0] || back[1] != vals[1] || back[2] != vals[2] || back[3] != vals[3] {
		t.Fatalf("DecodeData(EncodeData(%v) = %q) = %v, %v", vals, s, back, err)
	}
	for _, bad := range [][]DataValue{
		{{Text: "12345"}, vals[1], vals[2], vals[3]},
		{vals[0], {Key: IntKey(4)}, vals[2], vals[3]},
		{vals[0], vals[1], vals[2], {Key: since.Lo - 1}},
	} {
		if _, err := l.EncodeData(bad); !errors.Is(err, rankgenrt.ErrOutOfRange) {
			t.Errorf("EncodeData(%v): %v; want ErrOutOfRange", bad, err)
		}
	}
	for _, text := range []string{"x", s + "1:0", s[:len(s)-1], "0" + s,
		strings.Replace(s, "2:-3", "2:-4", 1),    // Level out of range
		strings.Replace(s, "2:-3", "2:-0", 1),    // not canonical
		strings.Replace(s, "-31:1", "-31:2", 1),  // Pro is 0 or 1
		strings.Replace(s, "3:a:b", "3:a:bc", 1), // the length says otherwise
	} {
		if _, err := l.DecodeData(text); !errors.Is(err, rankgenrt.ErrBadData) {
			t.Errorf("DecodeData(%q): %v; want ErrBadData", text, err)
		}
	}
}
