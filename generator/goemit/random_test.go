package goemit

import (
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/generator/luaemit"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// randomSchemas is how many random schemas TestRandomSchemas generates code for; building
// them (each with its board) is most of the test's time, about 1.5 s of CPU per package.
const randomSchemas = 12

// TestRandomSchemas generates code for random valid schemas into one module, with a driver
// program that answers encode, decode and compare requests through the generated packages,
// and checks every answer against the interpreted codec: encodings bit for bit, decodings
// (also of damaged input) entry for entry or error kind for error kind, and Compare's sign.
func TestRandomSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program over generated packages; skipped with -short")
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	dir := tempModule(t)
	var ls []*layout.Layout
	refusedByLua := 0
	for i := 0; i < randomSchemas; {
		pkg := fmt.Sprintf("p%02d", i)
		src := oracle.RandomSchema(rng, pkg)
		if i%3 == 2 { // a third of them with score: bits62
			src = oracle.RandomBits62Schema(rng, pkg)
		}
		l, err := layout.Parse(pkg+".yaml", src)
		if err != nil {
			t.Fatalf("RandomSchema gave an invalid schema: %v\n%s", err, src)
		}
		l.Sharded = true // build every random layout's ShardedBoard too
		// The board embeds the Lua library, so a schema luaemit refuses (an update it cannot
		// do exactly) has no complete package; draw another.
		lib, err := luaemit.Render(l)
		if err != nil {
			refusedByLua++
			continue
		}
		out, err := Generate(l)
		if err != nil {
			t.Fatalf("%s: %v\n%s", pkg, err, src)
		}
		write(t, filepath.Join(dir, pkg, l.GoFile()), out)
		write(t, filepath.Join(dir, pkg, pkg+".yaml"), src)
		write(t, filepath.Join(dir, pkg, lib.File), []byte(lib.Part))
		ls = append(ls, l)
		i++
	}
	write(t, filepath.Join(dir, "driver", "main.go"), []byte(driverSource(ls)))

	var in strings.Builder
	var want []string // the oracle's answer to each request line
	for i, l := range ls {
		reqs, answers := requests(rng, i, l)
		in.WriteString(reqs)
		want = append(want, answers...)
	}
	start := time.Now()
	if out, err := goCmd(t, dir, "build", "-o", "driver.bin", "./driver"); err != nil {
		t.Fatalf("building the driver over the generated packages: %v\n%s", err, out)
	}
	t.Logf("driver built in %v", time.Since(start).Round(time.Millisecond))
	cmd := exec.Command(filepath.Join(dir, "driver.bin"))
	cmd.Stdin = strings.NewReader(in.String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(string(outb), "\n"), "\n")
	// RANKGEN_DUMP=/path/prefix keeps the requests, answers and expected answers for debugging.
	if dump := os.Getenv("RANKGEN_DUMP"); dump != "" {
		os.WriteFile(dump+".in", []byte(in.String()), 0o644)
		os.WriteFile(dump+".out", outb, 0o644)
		os.WriteFile(dump+".want", []byte(strings.Join(want, "\n")+"\n"), 0o644)
	}
	if len(got) != len(want) {
		t.Fatalf("driver answered %d requests, want %d", len(got), len(want))
	}
	reqLines := strings.Split(in.String(), "\n")
	failures := 0
	for i := range want {
		if got[i] != want[i] {
			pkg := strings.Fields(reqLines[i])[1]
			n, _ := strconv.Atoi(strings.TrimPrefix(pkg, "p"))
			t.Errorf("%s request %q:\n  generated:   %s\n  interpreted: %s\n%s", pkg, reqLines[i], got[i], want[i], ls[n].Canonical)
			if failures++; failures > 10 {
				t.FailNow()
			}
		}
	}
	t.Logf("%d requests over %d random schemas (%d more drawn and refused by luaemit), generated == interpreted; %s",
		len(want), len(ls), refusedByLua, coverage(ls))
}

// requests writes the request lines for schema i and the oracle's answers:
//
// Ids and members are written in hex after an "x" (so that an empty one is still a token).
//
//	E <pkg> <id hex> <keys…>             → ok <score bits> <member hex> | range
//	D <pkg> <score bits> <member hex>    → ok <id hex> <keys…> | score | member
//	C <pkg> <id hex> <keys…> <id hex> <keys…> → -1 | 0 | 1
func requests(rng *rand.Rand, i int, l *layout.Layout) (string, []string) {
	pkg := fmt.Sprintf("p%02d", i)
	var b strings.Builder
	var answers []string
	entry := func(e layout.Entry) string {
		s := "x" + hex.EncodeToString([]byte(e.ID))
		for _, k := range e.Keys {
			s += " " + strconv.FormatUint(k, 10)
		}
		return s
	}
	encode := func(e layout.Entry) {
		fmt.Fprintf(&b, "E %s %s\n", pkg, entry(e))
		score, member, err := l.Encode(e)
		switch {
		case errors.Is(err, rankgenrt.ErrOutOfRange):
			answers = append(answers, "range")
		case err != nil:
			answers = append(answers, "error "+err.Error())
		default:
			answers = append(answers, fmt.Sprintf("ok %d %x", math.Float64bits(score), member))
		}
	}
	decode := func(score float64, member string) {
		fmt.Fprintf(&b, "D %s %d x%x\n", pkg, math.Float64bits(score), member)
		e, err := l.Decode(score, member)
		switch {
		case errors.Is(err, rankgenrt.ErrBadScore):
			answers = append(answers, "score")
		case errors.Is(err, rankgenrt.ErrBadMember):
			answers = append(answers, "member")
		case err != nil:
			answers = append(answers, "error "+err.Error())
		default:
			answers = append(answers, "ok "+entry(e))
		}
	}
	compare := func(x, y layout.Entry) {
		fmt.Fprintf(&b, "C %s %s %s\n", pkg, entry(x), entry(y))
		answers = append(answers, strconv.Itoa(cmp.Compare(l.Compare(x, y), 0)))
	}

	type enc struct {
		e      layout.Entry
		score  float64
		member string
	}
	var encs []enc
	for j := range 2000 {
		e := oracle.RandomEntry(l, rng)
		if j > 0 && rng.IntN(4) == 0 { // a near tie of an earlier entry
			prev := encs[rng.IntN(len(encs))].e
			e.Keys = slices.Clone(prev.Keys)
			if len(l.Fields) > 0 && rng.IntN(2) == 0 {
				f := rng.IntN(len(l.Fields))
				e.Keys[f] = oracle.RandomKey(l.Fields[f], rng)
				e.ID = prev.ID
			}
		}
		encode(e)
		score, member, _ := l.Encode(e)
		encs = append(encs, enc{e, score, member})
		decode(score, member)
		decode(oracle.Damage(rng, l, score, member))
	}
	// Compare: neighbours in Redis order (the closest calls), then random pairs.
	slices.SortFunc(encs, func(x, y enc) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return strings.Compare(y.member, x.member)
	})
	for j := 1; j < len(encs); j++ {
		compare(encs[j-1].e, encs[j].e)
		compare(encs[j].e, encs[j-1].e)
	}
	for range 500 {
		compare(encs[rng.IntN(len(encs))].e, encs[rng.IntN(len(encs))].e)
	}
	// Out of range, field by field, and bad ids.
	for f, fd := range l.Fields {
		for _, k := range oracle.OutOfRange(fd) {
			e := oracle.RandomEntry(l, rng)
			e.Keys[f] = k
			encode(e)
		}
	}
	if l.IDType == layout.IDString {
		e := oracle.RandomEntry(l, rng)
		e.ID = ""
		encode(e)
		if l.MaxBytes < 1<<16 {
			e.ID = strings.Repeat("z", l.MaxBytes+1)
			encode(e)
		}
	}
	return b.String(), answers
}

// driverSource is a program that answers requests (see requests) through the generated
// packages. Keys become Go values the way oracle.ToGenerated converts them, written out here
// because a program outside this module cannot import internal/testkit/oracle.
func driverSource(ls []*layout.Layout) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("package main\n")
	p("import (")
	for _, s := range []string{"bufio", "encoding/hex", "errors", "fmt", "math", "os", "strconv", "strings", "time"} {
		p("\t%q", s)
	}
	p("\trankgenrt %q", "github.com/rankgen/rankgen/runtime")
	for i := range ls {
		p("\tp%02d %q", i, fmt.Sprintf("rankgen.test/generated/p%02d", i))
	}
	p(")\n")
	p("var _ = time.Unix // not every schema has a time field\n")
	p(`type codec struct {
	nf      int
	encode  func(id string, k []uint64) (float64, string, error)
	decode  func(score float64, member string) (string, []uint64, error)
	compare func(ida string, ka []uint64, idb string, kb []uint64) int
}
`)
	for i, l := range ls {
		pkg := fmt.Sprintf("p%02d", i)
		p("func entry%d(id string, k []uint64) %s.Entry {", i, pkg)
		p("\tvar e %s.Entry", pkg)
		if l.IDType == layout.IDUint64 {
			p("\te.%s, _ = strconv.ParseUint(id, 10, 64)", l.IDName)
		} else {
			p("\te.%s = id", l.IDName)
		}
		for j, f := range l.Fields {
			switch f.Kind {
			case layout.Uint:
				p("\te.%s = %s(k[%d])", f.Name, f.GoType, j)
			case layout.Int:
				p("\te.%s = %s(int64(k[%d] ^ 1<<63))", f.Name, f.GoType, j)
			case layout.Bool:
				p("\te.%s = k[%d] != 0", f.Name, j)
			case layout.Enum:
				p("\te.%s = %s.%s(k[%d])", f.Name, pkg, f.GoType, j)
			case layout.Time:
				switch f.Unit {
				case layout.Second:
					p("\te.%s = time.Unix(int64(k[%d]^1<<63), 0).UTC()", f.Name, j)
				case layout.Milli:
					p("\te.%s = time.UnixMilli(int64(k[%d]^1<<63)).UTC()", f.Name, j)
				default:
					p("\te.%s = time.UnixMicro(int64(k[%d]^1<<63)).UTC()", f.Name, j)
				}
			}
		}
		p("\treturn e\n}\n")
		p("func keys%d(e %s.Entry) (string, []uint64) {", i, pkg)
		p("\tk := make([]uint64, %d)", len(l.Fields))
		for j, f := range l.Fields {
			switch f.Kind {
			case layout.Uint, layout.Enum:
				p("\tk[%d] = uint64(e.%s)", j, f.Name)
			case layout.Int:
				p("\tk[%d] = uint64(int64(e.%s)) ^ 1<<63", j, f.Name)
			case layout.Bool:
				p("\tif e.%s {\n\t\tk[%d] = 1\n\t}", f.Name, j)
			case layout.Time:
				method := map[layout.Unit]string{layout.Second: "Unix", layout.Milli: "UnixMilli", layout.Micro: "UnixMicro"}[f.Unit]
				p("\tk[%d] = uint64(e.%s.%s()) ^ 1<<63", j, f.Name, method)
			}
		}
		if l.IDType == layout.IDUint64 {
			p("\treturn strconv.FormatUint(e.%s, 10), k\n}\n", l.IDName)
		} else {
			p("\treturn e.%s, k\n}\n", l.IDName)
		}
	}
	p("var codecs = []codec{")
	for i, l := range ls {
		pkg := fmt.Sprintf("p%02d", i)
		p(`	{%d,
		func(id string, k []uint64) (float64, string, error) { return entry%d(id, k).Encode() },
		func(s float64, m string) (string, []uint64, error) {
			e, err := %s.Decode(s, m)
			if err != nil {
				return "", nil, err
			}
			id, k := keys%d(e)
			return id, k, nil
		},
		func(ia string, ka []uint64, ib string, kb []uint64) int { return %s.Compare(entry%d(ia, ka), entry%d(ib, kb)) },
	},`, len(l.Fields), i, pkg, i, pkg, i, i)
	}
	p("}\n")
	b.WriteString(`func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<22)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		tok := strings.Fields(in.Text())
		n, _ := strconv.Atoi(strings.TrimPrefix(tok[1], "p"))
		c := codecs[n]
		entry := func(tok []string) (string, []uint64) {
			id, _ := hex.DecodeString(tok[0][1:])
			k := make([]uint64, c.nf)
			for i := range k {
				k[i], _ = strconv.ParseUint(tok[1+i], 10, 64)
			}
			return string(id), k
		}
		format := func(id string, k []uint64) string {
			s := "x" + hex.EncodeToString([]byte(id))
			for _, v := range k {
				s += " " + strconv.FormatUint(v, 10)
			}
			return s
		}
		switch tok[0] {
		case "E":
			score, member, err := c.encode(entry(tok[2:]))
			switch {
			case errors.Is(err, rankgenrt.ErrOutOfRange):
				fmt.Fprintln(out, "range")
			case err != nil:
				fmt.Fprintln(out, "error", err)
			default:
				fmt.Fprintf(out, "ok %d %x\n", math.Float64bits(score), member)
			}
		case "D":
			bits, _ := strconv.ParseUint(tok[2], 10, 64)
			member, _ := hex.DecodeString(tok[3][1:])
			id, k, err := c.decode(math.Float64frombits(bits), string(member))
			switch {
			case errors.Is(err, rankgenrt.ErrBadScore):
				fmt.Fprintln(out, "score")
			case errors.Is(err, rankgenrt.ErrBadMember):
				fmt.Fprintln(out, "member")
			case err != nil:
				fmt.Fprintln(out, "error", err)
			default:
				fmt.Fprintln(out, "ok", format(id, k))
			}
		case "C":
			ia, ka := entry(tok[2:])
			ib, kb := entry(tok[3+c.nf:])
			r := c.compare(ia, ka, ib, kb)
			switch {
			case r < 0:
				r = -1
			case r > 0:
				r = 1
			}
			fmt.Fprintln(out, r)
		}
	}
}
`)
	return b.String()
}

// coverage summarizes what the random layouts exercised.
func coverage(ls []*layout.Layout) string {
	var kinds [5][2][2]int // kind, place, order
	decimal, bits62, uint64IDs, prefixed := 0, 0, 0, 0
	for _, l := range ls {
		if l.Score == layout.ScoreDecimal {
			decimal++
		}
		if l.Score == layout.ScoreBits62 {
			bits62++
		}
		if l.IDType == layout.IDUint64 {
			uint64IDs++
		}
		if l.HasPrefix() {
			prefixed++
		}
		for _, f := range l.Fields {
			kinds[f.Kind][f.Place][f.Order]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d decimal scores, %d bits62 scores, %d uint64 ids, %d with a member prefix; fields (score desc/asc, member desc/asc):", decimal, bits62, uint64IDs, prefixed)
	for k, byPlace := range kinds {
		fmt.Fprintf(&b, " %s %d/%d %d/%d", layout.Kind(k), byPlace[0][0], byPlace[0][1], byPlace[1][0], byPlace[1][1])
	}
	return b.String()
}
