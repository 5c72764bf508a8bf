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
	for _, text := range []string{"x", s + "1:", s + "1:0x", s[:len(s)-1], "0" + s,
		strings.Replace(s, "2:-3", "2:-4", 1),    // Level out of range
		strings.Replace(s, "2:-3", "2:-0", 1),    // not canonical
		strings.Replace(s, "-31:1", "-31:2", 1),  // Pro is 0 or 1
		strings.Replace(s, "3:a:b", "3:a:bc", 1), // the length says otherwise
	} {
		if _, err := l.DecodeData(text); !errors.Is(err, rankgenrt.ErrBadData) {
			t.Errorf("DecodeData(%q): %v; want ErrBadData", text, err)
		}
	}
	// Data of a schema with fewer fields (one appended since) reads the rest as their zero;
	// data of one with more (appended by a newer schema) reads the first fields.
	zero := l.ZeroData()
	short, _ := l.EncodeData(vals)
	short = short[:strings.Index(short, "1:1")]
	if back, err := l.DecodeData(short); err != nil || back[1] != vals[1] || back[2] != zero[2] || back[3] != zero[3] {
		t.Errorf("DecodeData(%q) = %v, %v; want %v then zeros", short, back, err, vals[:2])
	}
	if back, err := l.DecodeData(s + "3:abc1:0"); err != nil || back[3] != vals[3] {
		t.Errorf("DecodeData(%q) = %v, %v; want %v", s+"3:abc1:0", back, err, vals)
	}
}

// TestDataChain: the chain ends with DataFingerprint, and appending a data field extends the
// chain (so both versions share a board) while removing, reordering or retyping one does not.
func TestDataChain(t *testing.T) {
	parse := func(data string) *Layout {
		t.Helper()
		l, err := Parse("d.yaml", []byte("package: d\nid: ID\nfields:\n  - {name: Points, type: uint, bits: 8, order: desc}\ndata:\n"+data))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	nick, lvl, car := "  - {name: Nick, type: string, max_bytes: 4}\n", "  - {name: Level, type: int, min: -3, max: 3}\n", "  - {name: Car, type: enum, values: [a, b]}\n"
	v1, v2 := parse(nick+lvl), parse(nick+lvl+car)
	if len(v1.DataChain) != 2 || v1.DataChain[1] != v1.DataFingerprint || len(v2.DataChain) != 3 || v2.DataChain[2] != v2.DataFingerprint {
		t.Fatalf("chains %v, %v; want 2 and 3 ending with %s, %s", v1.DataChain, v2.DataChain, v1.DataFingerprint, v2.DataFingerprint)
	}
	if v2.DataChain[0] != v1.DataChain[0] || v2.DataChain[1] != v1.DataChain[1] {
		t.Errorf("appending Car: chain %v does not extend %v", v2.DataChain, v1.DataChain)
	}
	for name, other := range map[string]*Layout{"removed": parse(nick), "reordered": parse(lvl + nick), "retyped": parse(nick + "  - {name: Level, type: int, min: -4, max: 3}\n")} {
		if other.DataChain[len(other.DataChain)-1] == v1.DataChain[1] {
			t.Errorf("%s: chain %v still ends in v1's format", name, other.DataChain)
		}
	}
}
