package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rankgen/rankgen/generator/layout"
	rankgenrt "github.com/rankgen/rankgen/runtime"
	"github.com/rankgen/rankgen/text/quote"
	"github.com/rankgen/rankgen/text/suggest"
)

// encodeHelp is encode's help text.
const encodeHelp = `Encode reads entries from stdin, one JSON object per line, keyed by the schema's names: the
id and every field. Values are written as in Go: numbers for uint and int fields (exact to
the last digit, also beyond 2^53), true/false for bool, the value's name for enum, an RFC 3339
time for time fields, in whole units of the field (a finer time is refused, as generated
Encode refuses it: never truncated). A uint64 id is a number (or a string of digits); a
string id a string.

A time with epoch: season (a periodic board's) is its offset from the season's start, as a
duration (36h0m5s). With -season S (a season id, the season's start in Unix seconds; or an
RFC 3339 time in the season) it may also be an RFC 3339 time in that season, stored as its
offset; a time or offset outside the season is refused, as that season's board refuses it.
Without -season an instant is refused: the season it is measured from is named, never
guessed. A line may name its own season with "season": ID and carry "at" instants, as decode
-season prints them; they must agree with -season and the offsets.

For each entry it prints the pair Redis stores, using the same layout the generated code is
tested against:

	{"score": 4503599627370495, "member": "alice"}

On a schema with data: fields, an entry may give them too (a string for a string field,
values as above for the others; a data field not given takes its Go zero value, as the
generated Data does), and the pair gains "data", the value the board's data hash holds for
the id ({key}:data), as generated Set writes it:

	{"score": 17528221859843, "member": "ann", "data": "3:Ann1:3"}

The score is printed so that parsing it as a float64 gives the stored double exactly. On a
bits62 layout "p": N follows it: P, the 62-bit integer whose bit pattern the double is, which
decode takes back (the score's digits, some 230 places after the point, are easily copied
wrong). Blank
lines are skipped. An entry that cannot be encoded (unknown or missing key, wrong type,
value out of range) is reported on stderr as stdin:LINE: message, and encoding goes on.

Exit status: 0 when every line encoded, 1 when any failed (or on schema errors, or a -season
that names no season), 2 on usage errors.`

// decodeHelp is decode's help text.
const decodeHelp = `Decode turns what Redis stores back into entries: with arguments, the one pair SCORE MEMBER
(as redis-cli prints them); without, JSON lines on stdin like

	{"score": 4503599627370495, "member": "alice"}

(the score may also be a string). On a bits62 layout the score is typed as P, the 62-bit
integer that encode, serve and explain show: p:N as SCORE or as the score's string, or "p": N
on a line (with "score" too, both must name the same double); a decimal only when it is
exactly a double, for a digit or an exponent typed wrong would be another entry. For each it prints the entry as one JSON object keyed by
the schema's names, in the form encode reads. On a schema with data: fields a line may carry
"data", the data hash's value for the id (HGET {key}:data ID), and a third argument DATA does
the same: the entry then has its data fields too. Without a member only the score's fields are
decoded (the answer to "what does score 108201125491 mean?").

A score or member this layout cannot have produced (not an integer, out of range, a wrong
prefix width or bad digits) is reported on stderr as stdin:LINE: message (for arguments, as
"rankgen decode: message"), and decoding goes on.

A time with epoch: season decodes to its offset from the season's start (36h0m5s). With
-season S (a season id, the season's start in Unix seconds; or an RFC 3339 time in the
season) each entry also ends with the season's id and, under "at", the instants of those
times in that season, in the calendar's zone with its UTC offset (UTC for a fixed period):

	{"PlayerID": "ann", "Points": 5, "ReachedAt": "10h0m0s", "Paid": true, "season": 1795388400, "at": {"ReachedAt": "2026-11-23T10:00:00+01:00"}}

encode reads such lines back. An offset at or past the season's end is an error: that
season's board cannot hold it.

A schema other than the one that wrote a board decodes its entries to wrong numbers without a
word. -fingerprint F (the board's layout fingerprint, as rankgen explain prints it) or -key KEY
(read from the board KEY on -redis: its meta key, or its index's field "") makes decode refuse
a schema whose fingerprint differs, saying both. An F that is not a fingerprint (16 lower-case
hex digits; "" too) is a usage error, never "no check".
-key KEY of a season's board (its base key, ":" and the season's id, as Seasons.Board names
it) also decodes in that season, as -season would (a -season naming another is an error).

Exit status: 0 when everything decoded, 1 when anything failed (or on schema errors, a
fingerprint that differs, or a -season that names no season), 2 on usage errors.`

func init() {
	register(&command{
		name:     "encode",
		args:     "< entries.jsonl",
		required: []string{"schema"},
		short:    "encode JSON entries (one per line) to scores and members",
		long:     encodeHelp,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			schema := fs.String("schema", "", "the schema `file` (required)")
			var sf seasonFlag
			sf.register(fs, "season-anchored times may be given as instants in it")
			return func(e *env, args []string) int { return runEncode(e, *schema, sf, args) }
		},
	})
	register(&command{
		name:     "decode",
		args:     "[SCORE [MEMBER [DATA]]]",
		required: []string{"schema"},
		short:    "decode scores and members back to JSON entries",
		long:     decodeHelp,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			schema := fs.String("schema", "", "the schema `file` (required)")
			var g guard
			fs.Var(&g.fingerprint, "fingerprint", "refuse to decode unless the schema's layout fingerprint is `F` (the board's)")
			fs.Var(&g.key, "key", "refuse to decode unless the schema's layout is the one the board `KEY` records")
			fs.StringVar(&g.url, "redis", "", "with -key: the server, as a redis:// `URL` (default $REDIS_URL, else redis://localhost:6379)")
			var sf seasonFlag
			sf.register(fs, "season-anchored times print also as instants in it")
			return func(e *env, args []string) int { return runDecode(e, *schema, g, sf, args) }
		},
	})
}

func runEncode(e *env, schema string, sf seasonFlag, args []string) int {
	if schema == "" {
		return usageFail(e, commands["encode"], "-schema is required")
	}
	if len(args) > 0 {
		return usageFail(e, commands["encode"], "encode reads entries from stdin and takes no arguments")
	}
	l, ok := loadSchema(e, "encode", schema)
	if !ok {
		return exitFail
	}
	season, err := sf.resolve(l)
	if err != nil {
		e.errorf("encode", "%s", err)
		return exitFail
	}
	return eachLine(e, lineLimit(l), func(line []byte) (string, error) {
		obj, err := jsonObject(line)
		if err != nil {
			return "", err
		}
		entry, err := entryFromObject(l, season, obj)
		if err != nil {
			return "", err
		}
		score, member, err := l.Encode(entry)
		if err != nil || !l.HasData() {
			return encodingJSON(l, score, member), err
		}
		data, err := dataFromJSON(l, obj)
		return encodingDataJSON(l, score, member, data), err
	})
}

func runDecode(e *env, schema string, g guard, sf seasonFlag, args []string) int {
	if schema == "" {
		return usageFail(e, commands["decode"], "-schema is required")
	}
	if len(args) > 3 {
		return usageFail(e, commands["decode"], "decode takes at most SCORE, MEMBER and DATA")
	}
	if msg := g.usage(); msg != "" {
		return usageFail(e, commands["decode"], msg)
	}
	l, ok := loadSchema(e, "decode", schema)
	if !ok {
		return exitFail
	}
	season, err := sf.resolve(l)
	if err == nil && g.key.set {
		season, err = keySeason(l, g.key.value, season)
	}
	if err != nil {
		e.errorf("decode", "%s", err)
		return exitFail
	}
	if !g.allows(e, l) {
		return exitFail
	}
	if len(args) > 0 {
		return decodeArgs(e, l, season, args)
	}
	return eachLine(e, lineLimit(l), func(line []byte) (string, error) {
		obj, err := jsonObject(line)
		if err != nil {
			return "", err
		}
		score, member, has, err := encodingFromObject(l, obj)
		if err != nil {
			return "", err
		}
		var data *string
		if l.HasData() {
			text, has, err := dataFromEncoding(obj)
			if err != nil {
				return "", err
			}
			if has {
				data = &text
			}
		}
		return decodeJSON(l, season, score, member, has, data)
	})
}

// decodeArgs decodes SCORE [MEMBER [DATA]] given as arguments.
func decodeArgs(e *env, l *layout.Layout, season *rankgenrt.Season, args []string) int {
	score, err := parseScoreFor(l, args[0])
	if err == nil {
		var out string
		member, has := "", len(args) >= 2
		if has {
			member = args[1]
		}
		var data *string
		if len(args) == 3 {
			data = &args[2]
			if !l.HasData() {
				err = errors.New("DATA given, but this layout has no data fields")
			}
		}
		if err == nil {
			out, err = decodeJSON(l, season, score, member, has, data)
		}
		if err == nil {
			fmt.Fprintln(e.stdout, out)
			return exitOK
		}
	}
	e.errorf("decode", "%s", errText(err))
	return exitFail
}

// errText drops the "rankgen: " prefix of the runtime's errors: the CLI's messages are
// already the tool's.
func errText(err error) string { return strings.TrimPrefix(err.Error(), "rankgen: ") }

// entryFromJSON reads one entry object into the interpreted codec's Entry. flagged is
// -season's season (nil without): season-anchored times are measured in it.
func entryFromJSON(l *layout.Layout, flagged *rankgenrt.Season, line []byte) (layout.Entry, error) {
	obj, err := jsonObject(line)
	if err != nil {
		return layout.Entry{}, err
	}
	return entryFromObject(l, flagged, obj)
}

// entryFromObject is entryFromJSON of a line already read as an object.
func entryFromObject(l *layout.Layout, flagged *rankgenrt.Season, obj map[string]json.RawMessage) (layout.Entry, error) {
	known := []string{l.IDName}
	for _, f := range l.Fields {
		known = append(known, f.Name)
	}
	extras := dataNames(l) // optional: a data field not given takes its zero value
	if l.Season != nil {
		extras = append(extras, "season", "at") // what decode -season adds, which encode checks
	}
	var unknown []string
	for k := range obj {
		if !slices.Contains(known, k) && !slices.Contains(extras, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		msg := fmt.Sprintf("unknown key %s", quote.Short(unknown[0]))
		if s := suggest.Closest(unknown[0], append(known, extras...)); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		} else {
			msg += "; the keys are " + strings.Join(known, ", ")
			if l.HasData() {
				msg += ", and the data fields " + strings.Join(dataNames(l), ", ")
			}
		}
		return layout.Entry{}, errors.New(msg)
	}
	var missing []string
	for _, k := range known {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return layout.Entry{}, fmt.Errorf("missing %s (an entry gives the id and every field)", strings.Join(missing, ", "))
	}
	season, err := lineSeason(l, flagged, obj["season"])
	if err != nil {
		return layout.Entry{}, err
	}
	e := layout.Entry{Keys: make([]uint64, len(l.Fields))}
	id, err := idFromJSON(l, obj[l.IDName])
	if err != nil {
		return layout.Entry{}, err
	}
	e.ID = id
	for i, f := range l.Fields {
		if f.Season {
			var v any
			if v, err = jsonValue(obj[f.Name]); err == nil {
				e.Keys[i], err = seasonKeyFromJSON(l, f, v, season)
			}
		} else {
			e.Keys[i], err = keyFromJSON(f, obj[f.Name])
		}
		if err != nil {
			return layout.Entry{}, err
		}
	}
	if err := checkInstants(l, obj["at"], season, e); err != nil {
		return layout.Entry{}, err
	}
	return e, nil
}

// jsonValue decodes one JSON value keeping numbers as their text.
func jsonValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func jsonErr(err error) string { return strings.TrimPrefix(err.Error(), "json: ") }

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case json.Number:
		return "the number " + v.String()
	case string:
		return "the string " + quote.Short(v)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		return "a list"
	}
	return "an object"
}

// numberOrString is the text of a JSON number, or a string; ok is false for any other value.
func numberOrString(v any) (text string, ok bool) {
	switch v := v.(type) {
	case json.Number:
		return v.String(), true
	case string:
		return v, true
	}
	return "", false
}

// wholeText returns the digits of a JSON number or numeric string, refusing fractions and
// exponents (which would hide rounding).
func wholeText(v any) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		return v.String(), true
	case string:
		return v, v != ""
	}
	return "", false
}

func idFromJSON(l *layout.Layout, raw json.RawMessage) (string, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %s", l.IDName, jsonErr(err))
	}
	if l.IDType == layout.IDUint64 {
		s, ok := wholeText(v)
		n, perr := strconv.ParseUint(s, 10, 64)
		if !ok || perr != nil {
			return "", fmt.Errorf("%s: want a whole number from 0 to %d, got %s", l.IDName, uint64(math.MaxUint64), describe(v))
		}
		return strconv.FormatUint(n, 10), nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %s", l.IDName, describe(v))
	}
	return s, nil
}

// keyFromJSON converts one field's JSON value to the layout's key (see layout.Field.Lo): a
// value of the field's JSON type is read as its text by the layout's own parser, which
// refuses anything the field cannot hold exactly.
func keyFromJSON(f *layout.Field, raw json.RawMessage) (uint64, error) {
	v, err := jsonValue(raw)
	if err != nil {
		return 0, fmt.Errorf("%s: %s", f.Name, jsonErr(err))
	}
	var text string
	var ok bool
	switch f.Kind {
	case layout.Uint, layout.Int:
		text, ok = wholeText(v)
	case layout.Bool:
		var b bool
		b, ok = v.(bool)
		text = strconv.FormatBool(b)
	case layout.Enum, layout.Time:
		text, ok = v.(string)
	}
	if !ok {
		return 0, fmt.Errorf("%s: want %s, got %s", f.Name, f.Want(), describe(v))
	}
	return f.Parse(text)
}

// formatScore prints a score so that strconv.ParseFloat gives it back exactly, in plain
// decimal (no exponent), as Redis accepts it.
func formatScore(score float64) string { return strconv.FormatFloat(score, 'f', -1, 64) }

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// encodingJSON prints the pair Redis stores; on a bits62 layout with P beside the score, as
// the integer (exact in JSON) that decode reads back as safely as it can be typed.
func encodingJSON(l *layout.Layout, score float64, member string) string {
	return `{"score": ` + formatScore(score) + pJSON(l, score) + `, "member": ` + jsonString(member) + `}`
}

// pJSON is `, "p": P` on a bits62 layout, else "".
func pJSON(l *layout.Layout, score float64) string {
	if l.Score != layout.ScoreBits62 {
		return ""
	}
	return `, "p": ` + strconv.FormatUint(math.Float64bits(score), 10)
}

// encodingFromJSON reads {"score": …, "member": …}; member is optional, and so is "data" when
// the layout has data fields (see dataFromEncoding). On a bits62 layout the score may be
// given as "p" (P, a whole number) instead of, or beside, "score".
func encodingFromJSON(l *layout.Layout, line []byte) (score float64, member string, has bool, err error) {
	obj, err := jsonObject(line)
	if err != nil {
		return 0, "", false, err
	}
	return encodingFromObject(l, obj)
}

// encodingFromObject is encodingFromJSON of a line already read as an object.
func encodingFromObject(l *layout.Layout, obj map[string]json.RawMessage) (score float64, member string, has bool, err error) {
	withData, bits62 := l.HasData(), l.Score == layout.ScoreBits62
	for k := range obj {
		if k != "score" && k != "member" && (k != dataKey || !withData) && (k != "p" || !bits62) {
			keys := "score and member"
			switch {
			case withData && bits62:
				keys = "score (or p), member and data"
			case withData:
				keys = "score, member and data"
			case bits62:
				keys = "score (or p) and member"
			}
			return 0, "", false, fmt.Errorf("unknown key %s; an encoding has %s", quote.Short(k), keys)
		}
	}
	rawScore, hasScore := obj["score"]
	rawP, hasP := obj["p"]
	switch {
	case hasP:
		v, err := jsonValue(rawP)
		if err != nil {
			return 0, "", false, fmt.Errorf("p: %s", jsonErr(err))
		}
		text, ok := wholeText(v)
		if !ok {
			return 0, "", false, fmt.Errorf("p: want a whole number, got %s", describe(v))
		}
		p, err := parseP(l, text)
		if err != nil {
			return 0, "", false, fmt.Errorf("p: %v", err)
		}
		score = l.ScoreOf(p)
		if hasScore { // both: they must name the same double
			v, err := jsonValue(rawScore)
			if err != nil {
				return 0, "", false, fmt.Errorf("score: %s", jsonErr(err))
			}
			text, ok := numberOrString(v)
			var given float64
			if ok {
				given, err = parseScore(text)
			}
			if !ok || err != nil || math.Float64bits(given) != p {
				return 0, "", false, fmt.Errorf("score %s is not the double of p %d: give p alone, or with the score encode printed beside it", quote.Short(string(rawScore)), p)
			}
		}
	case hasScore:
		v, err := jsonValue(rawScore)
		if err != nil {
			return 0, "", false, fmt.Errorf("score: %s", jsonErr(err))
		}
		text, ok := numberOrString(v)
		if !ok {
			return 0, "", false, fmt.Errorf("score: want a number, got %s", describe(v))
		}
		if score, err = parseScoreFor(l, text); err != nil {
			return 0, "", false, err
		}
	case bits62:
		return 0, "", false, errors.New("missing score (or p)")
	default:
		return 0, "", false, errors.New("missing score")
	}
	if raw, ok := obj["member"]; ok {
		v, err := jsonValue(raw)
		if err != nil {
			return 0, "", false, fmt.Errorf("member: %s", jsonErr(err))
		}
		s, ok := v.(string)
		if !ok {
			return 0, "", false, fmt.Errorf("member: want a string, got %s", describe(v))
		}
		return score, s, true, nil
	}
	return score, "", false, nil
}

// decodeJSON decodes (score, member) with the interpreted codec and prints the entry. Without
// a member only the score's fields are decoded: the codec is given a member with the
// smallest valid prefix and a placeholder id, and those parts are left out of the answer.
// With data (the data hash's value for the id), the data fields follow the fields. With a
// season, the entry ends with it and the instants of its season-anchored times.
func decodeJSON(l *layout.Layout, season *rankgenrt.Season, score float64, member string, hasMember bool, data *string) (string, error) {
	if !hasMember {
		var b strings.Builder
		for _, f := range l.MemberFields() {
			b.WriteString(strings.Repeat("0", f.TextWidth))
			b.WriteString(l.Separator)
		}
		b.WriteString("0")
		member = b.String()
	}
	if longest := l.MaxMemberBytes(); len(member) > longest {
		return "", fmt.Errorf("bad member %s: longer than any member of this layout (at most %d bytes)", quote.Short(member), longest)
	}
	entry, err := l.Decode(score, member)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("{")
	sep := ""
	put := func(k, v string) {
		b.WriteString(sep + jsonString(k) + ": " + v)
		sep = ", "
	}
	if hasMember {
		switch {
		case l.IDType == layout.IDUint64:
			put(l.IDName, entry.ID)
		case !utf8.ValidString(entry.ID):
			return "", fmt.Errorf("%s %s is not valid UTF-8, which JSON cannot carry exactly", l.IDName, quote.Short(entry.ID))
		default:
			put(l.IDName, jsonString(entry.ID))
		}
	}
	fields := l.Fields
	if !hasMember {
		fields = l.ScoreFields()
	}
	for i, f := range fields {
		key := entry.Keys[i]
		switch f.Kind {
		case layout.Uint, layout.Int, layout.Bool:
			put(f.Name, f.Format(key))
		default:
			put(f.Name, jsonString(f.Format(key)))
		}
	}
	if data != nil {
		if err := dataJSON(l, *data, put); err != nil {
			return "", err
		}
	}
	if season != nil {
		extras, err := seasonExtras(l, fields, entry.Keys, season)
		if err != nil {
			return "", err
		}
		b.WriteString(extras)
	}
	b.WriteString("}")
	return b.String(), nil
}
