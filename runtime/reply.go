package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/text/quote"

	"github.com/redis/go-redis/v9"
)

// Item is one entry of a field update's reply: an error, or the entry's new mixed-radix
// score integer P (the generated code turns it into the score exactly as Encode does) and
// member, with the P and member it had before the update (Existed false: it had no entry).
type Item struct {
	Err    error
	P      uint64
	Member string

	Existed     bool
	PriorP      uint64
	PriorMember string
}

// Changed reports whether the update changed the entry: it created it, or moved its P or member.
func (it Item) Changed() bool {
	return !it.Existed || it.P != it.PriorP || it.Member != it.PriorMember
}

// Items reads the reply of a field update script: n groups, each (P, member, prior P, prior
// member) on success, the prior two "" when the id had no entry, or (error text, "", "", "")
// on failure; P as an integer reply or as decimal text.
func Items(v any, n int) ([]Item, error) { return readItems(v, n, true) }

// BareItems reads the reply of a field update script of a layout whose members are bare ids: n
// pairs, each (P, prior P) on success, the prior P "" when the id had no entry, or (error
// text, "") on failure. Member and PriorMember are left empty: the member is the id sent.
func BareItems(v any, n int) ([]Item, error) { return readItems(v, n, false) }

func readItems(v any, n int, withMember bool) ([]Item, error) {
	stride := 2
	if withMember {
		stride = 4
	}
	a, ok := v.([]any)
	if !ok || len(a) != stride*n {
		return nil, badReply("update", fmt.Sprintf("%d values", stride*n), v)
	}
	items := make([]Item, n)
	for i := range items {
		it, x := &items[i], a[stride*i:stride*(i+1)]
		if err := it.read(x[0]); err != nil {
			return nil, err
		}
		if it.Err != nil {
			continue
		}
		prior := x[stride/2]
		if prior != "" {
			var before Item
			if err := before.read(prior); err != nil || before.Err != nil {
				return nil, badReply("update", "the prior P", prior)
			}
			it.Existed, it.PriorP = true, before.P
		}
		if !withMember {
			continue
		}
		m, ok1 := x[1].(string)
		pm, ok2 := x[3].(string)
		if !ok1 || !ok2 || it.Existed != (pm != "") {
			return nil, badReply("update", "a member and the prior one", x[1:])
		}
		it.Member, it.PriorMember = m, pm
	}
	return items, nil
}

// read sets it from one P-or-error value of an update reply: P as an integer reply (a whole
// number below 2^53, which a script returns exactly without formatting it) or as decimal text
// (below 2^62: a bits62 layout's, whose Decode checks it against its own bound), or the error
// text, which starts with RANKGEN_.
func (it *Item) read(x any) error {
	if n, ok := x.(int64); ok {
		if n < 0 || n >= 1<<62 {
			return badReply("update", "P, a whole number below 2^62", x)
		}
		it.P = uint64(n)
		return nil
	}
	s, ok := x.(string)
	switch {
	case !ok:
		return badReply("update", "P or error text", x)
	case s == "":
		return badReply("update", "P or error text", s)
	case s[0] >= '0' && s[0] <= '9':
		p, err := strconv.ParseUint(s, 10, 64)
		if err != nil || p >= 1<<62 {
			return badReply("update", "P, a whole number below 2^62", s)
		}
		it.P = p
	case strings.HasPrefix(s, ReplyPrefix):
		if err, ok := ParseReply(s); ok {
			it.Err = err
		} else {
			it.Err = badReply("update", "a known "+ReplyPrefix+" error code", s)
		}
	default:
		return badReply("update", "P or error text", s)
	}
	return nil
}

func scoreMember(s, m any) (float64, string, error) {
	st, ok1 := s.(string)
	mt, ok2 := m.(string)
	if !ok1 || !ok2 {
		return 0, "", badReply("range", "score and member strings", []any{s, m})
	}
	score, err := ParseScore(st)
	return score, mt, err
}

// ParseScore reads a score as Redis or a script writes it. Only strconv.ParseFloat is used:
// servers format scores differently (%.17g, shortest round-trip, integer digits), and every
// form parses back to the same double.
func ParseScore(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, &DecodeError{Input: quote.Short(s), Reason: "not a number"}
	}
	return f, nil
}

// FormatScore writes a score as plain decimal digits (never an exponent, hex or −0), the
// form every Redis version parses to the same double.
func FormatScore(f float64) string {
	if f == 0 {
		return "0"
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Pair is a member and its score, as a range reply lists them.
type Pair struct {
	Member string
	Score  float64
	Data   string // the entry's data, read by boards with data fields ("" where it has none)
}

// Pairs reads a flat member, score, member, score … reply (WITHSCORES inside a script).
func Pairs(v any) ([]Pair, error) {
	a, ok := v.([]any)
	if !ok || len(a)%2 != 0 {
		return nil, badReply("range", "member, score pairs", v)
	}
	ps := make([]Pair, len(a)/2)
	for i := range ps {
		score, member, err := scoreMember(a[2*i+1], a[2*i])
		if err != nil {
			return nil, err
		}
		ps[i] = Pair{Member: member, Score: score}
	}
	return ps, nil
}

// Window reads the reply of the around and after scripts: {start, {member, score, …}}.
func Window(v any) (start int64, ps []Pair, err error) {
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return 0, nil, badReply("window", "{start, pairs}", v)
	}
	start, ok = a[0].(int64)
	if !ok {
		return 0, nil, badReply("window", "an integer start", a[0])
	}
	ps, err = Pairs(a[1])
	return start, ps, err
}

// NotFound is the error of a read or update that names an id the board has no entry for.
func NotFound(id string) error {
	return &ScriptError{Code: "NOT_FOUND", Detail: "id " + quote.Short(id), kind: ErrNotFound}
}

// FingerprintCmd queues on c (a client or a pipeline) the read of the layout fingerprint a
// board records in its side key: GET of its meta key, or HGET of its index's field "" when
// index is true. Generated boards pipeline it before a read command until they have seen their
// own fingerprint, so that the check costs no round trip of its own.
func FingerprintCmd(ctx context.Context, c redis.Cmdable, sideKey string, index bool) *redis.StringCmd {
	if index {
		return c.HGet(ctx, sideKey, "")
	}
	return c.Get(ctx, sideKey)
}

// CheckFingerprint reads the reply of a FingerprintCmd: true when the board records fp, false
// and no error when it records none yet (a board this layout has not written), an
// ErrLayoutMismatch error when it records another layout's, or the command's own error.
func CheckFingerprint(cmd *redis.StringCmd, fp string) (bool, error) {
	have, err := cmd.Result()
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, ReplyError(err)
	case have != fp:
		return false, &ScriptError{Code: "LAYOUT_MISMATCH", Detail: "board has layout " + quote.Short(have) + ", this code reads layout " + fp, kind: ErrLayoutMismatch}
	}
	return true, nil
}

// Prior is what a write did to one of its entries, as the set, best and insert scripts reply
// it: whether it changed the board (for Best and Insert: stored the given entry), and the
// entry its id held before it, from the same script (Found false: none).
type Prior struct {
	Changed bool
	Found   bool
	Pair
}

// Priors reads the reply of the set, best and insert scripts: per entry (n), 1 or 0, then its id's
// previous score and member, both "" when it had no entry.
func Priors(v any, n int) ([]Prior, error) { return readPriors(v, n, false) }

// PriorsData reads the reply of the set, best and insert scripts of a board with data: per entry,
// 1 or 0, then its id's previous score, member and data, all "" when it had no entry.
func PriorsData(v any, n int) ([]Prior, error) { return readPriors(v, n, true) }

func readPriors(v any, n int, withData bool) ([]Prior, error) {
	stride := 3
	if withData {
		stride = 4
	}
	a, ok := v.([]any)
	if !ok || len(a) != stride*n {
		return nil, badReply("write", fmt.Sprintf("%d values", stride*n), v)
	}
	out := make([]Prior, n)
	for i := range out {
		x, p := a[stride*i:stride*(i+1)], &out[i]
		switch x[0] {
		case int64(0):
		case int64(1):
			p.Changed = true
		default:
			return nil, badReply("write", "0 or 1", x[0])
		}
		if x[1] == "" && x[2] == "" {
			continue
		}
		score, member, err := scoreMember(x[1], x[2])
		if err != nil {
			return nil, err
		}
		p.Found, p.Pair = true, Pair{Member: member, Score: score}
		if withData {
			if p.Data, ok = x[3].(string); !ok {
				return nil, badReply("write", "a data string", x[3])
			}
		}
	}
	return out, nil
}

// ZPairs converts a go-redis range reply.
func ZPairs(zs []redis.Z) []Pair {
	ps := make([]Pair, len(zs))
	for i, z := range zs {
		m, _ := z.Member.(string)
		ps[i] = Pair{Member: m, Score: z.Score}
	}
	return ps
}

// ScoreMember reads the reply {score, member} of the get script.
func ScoreMember(v any) (float64, string, error) {
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return 0, "", badReply("get", "{score, member}", v)
	}
	return scoreMember(a[0], a[1])
}

// DigitText writes digit d as the fixed-width text a member holds (width characters of
// lower-case hex or decimal). Field updates on member fields too wide for exact doubles pass
// their values to the scripts this way.
func DigitText(d uint64, width int, hex bool) string {
	b := make([]byte, width)
	if hex {
		PutHex(b, d)
	} else {
		PutDec(b, d)
	}
	return string(b)
}

// WideDelta writes an add's delta for a member field too wide for exact doubles: "hi:lo",
// the magnitude split into limbs of base 2^32 (hex fields) or 10^9 (decimal fields), with
// the sign in front.
func WideDelta(delta int64, hex bool) string {
	m := uint64(delta)
	sign := ""
	if delta < 0 {
		m, sign = -m, "-"
	}
	base := uint64(1e9)
	if hex {
		base = 1 << 32
	}
	return sign + strconv.FormatUint(m/base, 10) + ":" + strconv.FormatUint(m%base, 10)
}

// Int reads an integer reply (a count or a rank), passing err through. A reply of another type
// is an error, never a silent 0.
func Int(v any, err error) (int64, error) {
	if err != nil {
		return 0, ReplyError(err)
	}
	n, ok := v.(int64)
	if !ok {
		return 0, badReply("integer", "an integer", v)
	}
	return n, nil
}

// Entries reads the reply of the get_many script: a score and a member per id (n ids), both
// "" when the id has no entry (found[i] false).
func Entries(v any, n int) (ps []Pair, found []bool, err error) {
	a, ok := v.([]any)
	if !ok || len(a) != 2*n {
		return nil, nil, badReply("get_many", fmt.Sprintf("%d score, member pairs", n), v)
	}
	ps, found = make([]Pair, n), make([]bool, n)
	for i := range ps {
		if a[2*i] == "" && a[2*i+1] == "" {
			continue
		}
		score, member, err := scoreMember(a[2*i], a[2*i+1])
		if err != nil {
			return nil, nil, err
		}
		ps[i], found[i] = Pair{Member: member, Score: score}, true
	}
	return ps, found, nil
}

// Positions reads the reply of the rank_many script: a 0-based position per id (n ids), -1
// when the id has no entry.
func Positions(v any, n int) ([]int64, error) {
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return nil, badReply("rank_many", fmt.Sprintf("%d positions", n), v)
	}
	out := make([]int64, n)
	for i, x := range a {
		r, ok := x.(int64)
		if !ok || r < -1 {
			return nil, badReply("rank_many", "a position or -1", x)
		}
		out[i] = r
	}
	return out, nil
}

// RankedEntries reads the reply of the ranked_many script for n ids: {rank_many's reply,
// get_many's}, a position per id (-1 when absent), then its score and member.
func RankedEntries(v any, n int) (positions []int64, ps []Pair, found []bool, err error) {
	return rankedEntries(v, n, Entries)
}

// rankedEntries reads a ranked_many reply whose entries read reads.
func rankedEntries(v any, n int, read func(any, int) ([]Pair, []bool, error)) (positions []int64, ps []Pair, found []bool, err error) {
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return nil, nil, nil, badReply("ranked_many", "{positions, entries}", v)
	}
	if positions, err = Positions(a[0], n); err != nil {
		return nil, nil, nil, err
	}
	if ps, found, err = read(a[1], n); err != nil {
		return nil, nil, nil, err
	}
	return positions, ps, found, nil
}

// Standing reads the reply of the standing script: {0-based position, number of entries}.
func Standing(v any, err error) (pos, count int64, _ error) {
	if err != nil {
		return 0, 0, ReplyError(err)
	}
	a, ok := v.([]any)
	if !ok || len(a) != 2 {
		return 0, 0, badReply("standing", "{position, count}", v)
	}
	pos, ok1 := a[0].(int64)
	count, ok2 := a[1].(int64)
	if !ok1 || !ok2 || pos < 0 || count <= pos {
		return 0, 0, badReply("standing", "a position below the count", v)
	}
	return pos, count, nil
}

// AsIs passes a value on unchanged: the script argument of a field update that takes its value
// as it is (an add's delta).
func AsIs[V any](v V) (V, error) { return v, nil }
