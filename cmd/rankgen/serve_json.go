package main

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
)

// /board.json: what the page shows, with what the board holds carried as JSON values rather
// than as the page's quoted, cut text, so that it can be exported. The shape is documented in
// docs/cli.md (serve); keys are only ever added.

// boardJSONFormat is /board.json's "format".
const boardJSONFormat = 1

// boardJSON is /board.json's document.
type boardJSON struct {
	Format      int            `json:"format"`
	Schema      string         `json:"schema"`
	Key         byteString     `json:"key"`
	Fingerprint string         `json:"fingerprint"`
	Seasons     []seasonOption `json:"seasons,omitempty"`
	Season      *int64         `json:"season,omitempty"`
	Shards      int            `json:"shards,omitempty"`
	Shard       *int           `json:"shard,omitempty"` // absent: all shards, merged
	View        string         `json:"view"`
	Page        int            `json:"page"`
	ID          *byteString    `json:"id,omitempty"`
	IDName      string         `json:"id_name"`
	FieldNames  []string       `json:"field_names"`
	DataNames   []string       `json:"data_names,omitempty"`
	Entries     int64          `json:"entries"`
	MemoryBytes int64          `json:"memory_bytes"`
	Keys        []keyJSON      `json:"keys"`
	Rows        []rowJSON      `json:"rows"`
	Warning     string         `json:"warning,omitempty"`
	Error       string         `json:"error,omitempty"`
	ReadAt      string         `json:"read_at"`
}

// keyJSON is one key of the board.
type keyJSON struct {
	Role          string     `json:"role"`
	Key           byteString `json:"key"`
	Type          string     `json:"type"`
	Entries       *int64     `json:"entries,omitempty"`
	MemoryBytes   *int64     `json:"memory_bytes,omitempty"`
	TTL           string     `json:"ttl"`
	Fingerprint   string     `json:"fingerprint,omitempty"` // a sorted set's: the layout recorded, in words when it is none or no fingerprint
	FingerprintOK bool       `json:"fingerprint_ok,omitempty"`
}

// rowJSON is one entry: the stored pair and, when it decodes, the entry.
type rowJSON struct {
	Rank  int64           `json:"rank"`
	Shard *int            `json:"shard,omitempty"`
	Score json.RawMessage `json:"score"`
	P     string          `json:"p,omitempty"` // a bits62 layout's P, in decimal digits
	// Member is the stored member; MemberCut says it is only its first bytes, of MemberBytes.
	Member      byteString      `json:"member"`
	MemberCut   bool            `json:"member_cut,omitempty"`
	MemberBytes int             `json:"member_bytes,omitempty"`
	Entry       json.RawMessage `json:"entry,omitempty"`
	Error       string          `json:"error,omitempty"`
	Found       bool            `json:"found,omitempty"`
}

// maxExportMember bounds a member carried whole: a member that does not decode may be as long
// as Redis allows; one that decodes is never longer than the layout's longest.
const maxExportMember = 4096

// byteString is a string a board holds: a JSON string when it is valid UTF-8, else
// {"base64": "…"} (its bytes, standard base64), for JSON strings cannot carry other bytes.
type byteString string

func (b byteString) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(b)) {
		return json.Marshal(string(b))
	}
	return json.Marshal(map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(b))})
}

func (b *byteString) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		*b = byteString(text)
		return nil
	}
	var bytes struct{ Base64 []byte }
	if err := json.Unmarshal(data, &bytes); err != nil {
		return err
	}
	*b = byteString(bytes.Base64)
	return nil
}

// exportOf is the model as /board.json carries it.
func exportOf(l *layout.Layout, base string, m *pageModel) boardJSON {
	out := boardJSON{
		Format: boardJSONFormat, Schema: m.Schema, Key: byteString(base), Fingerprint: m.Fingerprint,
		Seasons: m.Seasons, Season: m.Season, Shards: m.Shards, Shard: m.Shard, View: m.View, Page: m.Page,
		IDName: m.IDName, FieldNames: m.FieldNames, DataNames: m.DataNames, Entries: m.Entries,
		MemoryBytes: m.MemoryBytes, Keys: []keyJSON{}, Rows: []rowJSON{}, Warning: m.Warning, Error: m.Error, ReadAt: m.ReadAt,
	}
	if m.ID != "" {
		id := byteString(m.ID)
		out.ID = &id
	}
	for _, k := range m.Keys {
		out.Keys = append(out.Keys, keyJSON{Role: k.Role, Key: byteString(k.key), Type: k.Type, Entries: k.Entries,
			MemoryBytes: k.Memory, TTL: k.TTL, Fingerprint: k.Fingerprint, FingerprintOK: k.FingerprintOK})
	}
	for _, r := range m.Rows {
		out.Rows = append(out.Rows, rowOf(l, r))
	}
	return out
}

func rowOf(l *layout.Layout, r row) rowJSON {
	out := rowJSON{Rank: r.Rank, Shard: r.Shard, Score: scoreJSON(r.score), Member: byteString(r.member), Error: r.Error, Found: r.Found}
	if l.Score == layout.ScoreBits62 {
		out.P = strconv.FormatUint(math.Float64bits(r.score), 10)
	}
	if len(r.member) > maxExportMember {
		cut := r.member[:maxExportMember]
		if utf8.ValidString(r.member) {
			cut = strings.ToValidUTF8(cut, "") // at a character's end: still text
			for !utf8.ValidString(cut) {
				cut = cut[:len(cut)-1]
			}
		}
		out.Member, out.MemberCut, out.MemberBytes = byteString(cut), true, len(r.member)
	}
	if r.entry != nil && r.Error == "" {
		out.Entry = entryJSON(l, *r.entry, r.data)
	}
	return out
}

// scoreJSON is a score as a JSON number that parses back to the stored double exactly (the
// shortest such); an infinite score, which Redis allows, as the string "inf" or "-inf".
func scoreJSON(score float64) json.RawMessage {
	switch {
	case math.IsInf(score, 1):
		return json.RawMessage(`"inf"`)
	case math.IsInf(score, -1):
		return json.RawMessage(`"-inf"`)
	}
	return json.RawMessage(strconv.FormatFloat(score, 'g', -1, 64))
}

// exact53 bounds the integers a JSON number carries exactly in every reader (a double's).
const exact53 = 1 << 53

// entryJSON is a decoded entry as one JSON object in the schema's order (the id, the fields,
// the data fields), keyed by the schema's names with values as decode prints them, except that
// an integer that can exceed 2^53 (a uint64 id, a field whose range reaches past it) is a
// string of its digits, and a string that is not UTF-8 is {"base64": "…"}.
func entryJSON(l *layout.Layout, e layout.Entry, data []layout.DataValue) json.RawMessage {
	var b strings.Builder
	b.WriteString("{")
	put := func(k string, v []byte) {
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(k) + ": ")
		b.Write(v)
	}
	str := func(s string) []byte { v, _ := byteString(s).MarshalJSON(); return v }
	put(l.IDName, str(e.ID)) // a uint64 id's digits too, a string: it can exceed 2^53
	value := func(f *layout.Field, key uint64) []byte {
		text := f.Format(key)
		switch f.Kind {
		case layout.Uint, layout.Int:
			if wide(f) {
				return str(text)
			}
			return []byte(text)
		case layout.Bool:
			return []byte(text)
		}
		return str(text)
	}
	for i, f := range l.Fields {
		put(f.Name, value(f, e.Keys[i]))
	}
	for i, f := range l.Data {
		if i >= len(data) {
			break
		}
		if f.Kind == layout.String {
			put(f.Name, str(data[i].Text))
		} else {
			put(f.Name, value(f, data[i].Key))
		}
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

// wide reports whether an integer field's range reaches past 2^53 either way: its values are
// then carried as strings, whatever each one is, so that a reader finds one type per field.
func wide(f *layout.Field) bool {
	if f.Kind == layout.Int {
		lo, hi := layout.IntOf(f.Lo), layout.IntOf(f.Hi)
		return lo < -exact53 || hi > exact53
	}
	return f.Hi > exact53
}
