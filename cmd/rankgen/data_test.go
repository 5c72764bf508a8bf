package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/pits"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	"github.com/rankgen/rankgen/internal/testkit/redistest"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// TestDataMatchesBoard: on a real server, the generated laps and pits boards store random
// entries with random data; decode reads every stored (score, member, data hash value) back
// into the entry the package wrote, and encode of that line gives the stored bytes exactly.
func TestDataMatchesBoard(t *testing.T) {
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	for _, tc := range []struct {
		schema string
		set    func(key string, l *layout.Layout, es []layout.Entry) error
	}{
		{"laps.yaml", func(key string, l *layout.Layout, es []layout.Entry) error {
			gen := make([]laps.Entry, len(es))
			for i, e := range es {
				oracle.ToGenerated(l, e, &gen[i])
			}
			_, err := laps.NewBoard(c, key).SetMany(ctx, gen)
			return err
		}},
		{"pits.yaml", func(key string, l *layout.Layout, es []layout.Entry) error {
			gen := make([]pits.Entry, len(es))
			for i, e := range es {
				oracle.ToGenerated(l, e, &gen[i])
			}
			_, err := pits.NewBoard(c, key).SetMany(ctx, gen)
			return err
		}},
	} {
		l := loadExample(t, tc.schema)
		key := "{data:" + tc.schema + "}"
		want := map[string]layout.Entry{}
		rng := rand.New(rand.NewPCG(11, uint64(len(tc.schema))))
		var es []layout.Entry
		for i := range 300 {
			e := oracle.RandomEntry(l, rng)
			if l.IDType == layout.IDString {
				e.ID = fmt.Sprintf("id-%03d", i)
			}
			e.Data = textData(l, oracle.RandomData(l, rng), rng)
			es = append(es, e)
			want[e.ID] = e
		}
		if err := tc.set(key, l, es); err != nil {
			t.Fatal(err)
		}
		pairs, err := c.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		data, err := c.HGetAll(ctx, rankgenrt.DataKey(key)).Result()
		if err != nil || len(pairs) != len(es) {
			t.Fatalf("%s: %d pairs stored, %v", tc.schema, len(pairs), err)
		}
		for _, p := range pairs {
			member := p.Member.(string)
			e, err := l.Decode(p.Score, member)
			if err != nil {
				t.Fatal(err)
			}
			stored := data[e.ID]
			line, err := decodeJSON(l, nil, p.Score, member, true, &stored)
			if err != nil {
				t.Fatalf("%s: decode of %s: %v", tc.schema, e.ID, err)
			}
			back, err := entryFromJSON(l, nil, []byte(line))
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.schema, line, err)
			}
			if w := want[e.ID]; back.ID != w.ID || !equalKeys(back.Keys, w.Keys) {
				t.Errorf("%s: decode gave %s; the package wrote %+v", tc.schema, line, w)
			}
			obj, _ := jsonObject([]byte(line))
			again, err := dataFromJSON(l, obj)
			if err != nil || again != stored {
				t.Errorf("%s: encode of %s gives data %q, %v; the board stores %q", tc.schema, line, again, err, stored)
			}
			wantData, err := l.EncodeData(want[e.ID].Data)
			if err != nil || stored != wantData {
				t.Errorf("%s: %s: the board stores data %q; the interpreted codec writes %q (%v)", tc.schema, e.ID, stored, wantData, err)
			}
		}
	}
}

// textData makes random data values JSON can carry: strings become valid UTF-8 of the same
// length budget, drawn from runes that JSON escapes or spells in several bytes.
func textData(l *layout.Layout, vals []layout.DataValue, rng *rand.Rand) []layout.DataValue {
	runes := []rune("aZ9 \"\\\n\t\x00\u007fé€Ω𝄞😀<>&\u2028")
	for i, f := range l.Data {
		if f.Kind != layout.String {
			continue
		}
		var b strings.Builder
		for budget := len(vals[i].Text); ; {
			r := runes[rng.IntN(len(runes))]
			if b.Len()+utf8.RuneLen(r) > budget {
				break
			}
			b.WriteRune(r)
		}
		vals[i].Text = b.String()
	}
	return vals
}

func equalKeys(a, b []uint64) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func loadExample(t testing.TB, schema string) *layout.Layout {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "schemas", schema))
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.Parse(schema, src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestDataNotUTF8: one rule for a data string that is not valid UTF-8 — encode refuses it, and
// decode, given such a value stored by other code, prints its exact Go-quoted text under
// "not_utf8" instead of failing, which encode refuses as a value rather than store as other text.
func TestDataNotUTF8(t *testing.T) {
	l := loadExample(t, "pits.yaml")
	vals := l.ZeroData()
	vals[0].Text = "Ro\xffso"
	if _, err := l.EncodeData(vals); !strings.Contains(fmt.Sprint(err), `Team = "Ro\xffso" is not valid UTF-8 (byte 3`) {
		t.Errorf("EncodeData: %v; want the value refused as not UTF-8", err)
	}
	line := `{"score": 63135, "member": "0030c337200:ann", "data": "6:Ro\u00ffso1:01:01:0"}` // U+00FF is two bytes: valid
	code, valid, stderr := cli(strings.NewReader(line+"\n"), "decode", "-schema", "pits.yaml")
	if code != 0 || !strings.Contains(valid, `"Team": "Roÿso"`) {
		t.Fatalf("decode of valid text: %d %s %s", code, valid, stderr)
	}
	code, out, stderr := cli(strings.NewReader(""), "decode", "-schema", "pits.yaml", "63135", "0030c337200:ann", "5:Ro\xffso1:01:01:0")
	if want := `"Team": {"not_utf8": "\"Ro\\xffso\""}`; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("decode of stored data that is not UTF-8: %d %q %s; want %s", code, out, stderr, want)
	}
	code, _, stderr = cli(strings.NewReader(out), "encode", "-schema", "pits.yaml")
	if code == 0 || !strings.Contains(stderr, "Team: want a string") {
		t.Errorf("encode of decode's not_utf8 value: %d %s; want it refused", code, stderr)
	}
}
