package luaemit

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/internal/testkit/oracle"
)

// TestLeanLibraries renders the libraries of every example schema and of random ones, and
// checks that each carries only what its layout uses: every top-level local function and
// constant is called, no data hash's code without data fields, no season's without a season,
// no bits62 codec on another score mode, and no template leftover (an empty argument passed
// for a member prefix the layout lacks, a shared update named by its index).
func TestLeanLibraries(t *testing.T) {
	schemas, err := filepath.Glob(filepath.Join("..", "..", "examples", "schemas", "*.yaml"))
	if err != nil || len(schemas) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	var layouts []*layout.Layout
	for _, path := range schemas {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.Parse(filepath.Base(path), src)
		if err != nil {
			t.Fatal(err)
		}
		layouts = append(layouts, l)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		for _, src := range [][]byte{
			oracle.RandomSchema(rand.New(rand.NewPCG(seed, 7)), "lean"),
			oracle.RandomBits62Schema(rand.New(rand.NewPCG(seed, 7)), "lean"),
		} {
			if l, err := layout.Parse("lean.yaml", src); err == nil {
				layouts = append(layouts, l)
			}
		}
	}
	defined := regexp.MustCompile(`(?m)^local (?:function ([A-Za-z_]\w*)\(|([A-Za-z_]\w*) = )`)
	for _, l := range layouts {
		lib, err := Render(l)
		if err != nil {
			t.Fatalf("%s: %v", l.File, err)
		}
		src := lib.Part // the head, the same for every layout, is not the layout's to trim
		code := code(src)
		for _, m := range defined.FindAllStringSubmatch(src, -1) {
			name := m[1] + m[2]
			if n := len(regexp.MustCompile(`\b`+name+`\b`).FindAllString(code, -1)); n < 2 {
				t.Errorf("%s: %s is defined but never used", l.File, name)
			}
		}
		absent := map[string]bool{
			"dkey":           !l.HasData(),
			"season_from":    l.Season == nil,
			"rankgen_season": l.Season == nil,
			"struct.":        l.Score != layout.ScoreBits62,
			"score_text(":    l.Score == layout.ScoreInteger,
		}
		for word, must := range absent {
			if must && strings.Contains(strings.ToLower(code), word) {
				t.Errorf("%s: the library has %q, which its layout does not use", l.File, word)
			}
		}
		if !l.HasPrefix() && regexp.MustCompile(`\b(zrem|hset)\b`).MatchString(code) {
			t.Errorf("%s: the library keeps replaced members (zrem, hset), which a layout without a member prefix has none of", l.File)
		}
		if regexp.MustCompile(`\bstamp_(digit_)?[0-9]`).MatchString(src) {
			t.Errorf("%s: a stamp's function is named by its field's index, not the field", l.File)
		}
		for _, leftover := range []string{"set_digit('", "add_digit('"} { // a field's range is said once, F.range_<n>
			if strings.Contains(src, leftover) {
				t.Errorf("%s: the library repeats a field's range in %q", l.File, leftover)
			}
		}
		for _, leftover := range []string{" and a or a", "nil, zadd, nil", "update_1", "update_2", "store(board, aux, fp, zrem, zadd, hset)"} {
			if !l.HasPrefix() && strings.Contains(src, leftover) {
				t.Errorf("%s: the library has the leftover %q", l.File, leftover)
			}
		}
	}
}

// TestPrune drops the definitions nothing calls, repeatedly, and keeps the rest whole.
func TestPrune(t *testing.T) {
	src := `-- head
local FINGERPRINT = 'x'

-- a is called by b only.
local function a()
  return 1
end

-- b is called by nothing (this comment names c, which does not count).
local function b()
  return a()
end

local C = 2

-- c is registered.
local function c()
  return C .. FINGERPRINT
end

redis.register_function{function_name = 'c', callback = c}
`
	want := `-- head
local FINGERPRINT = 'x'

local C = 2

-- c is registered.
local function c()
  return C .. FINGERPRINT
end

redis.register_function{function_name = 'c', callback = c}
`
	if got := prune(src); got != want {
		t.Errorf("prune:\n%s\nwant:\n%s", got, want)
	}
}
