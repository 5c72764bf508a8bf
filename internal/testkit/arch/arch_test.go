package arch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/rankgen/rankgen"

// rule is one row of the table: a package (or a pattern with *) and what it may import.
type rule struct {
	pkg   string
	may   []string
	where int // line in ARCHITECTURE.md
}

// readRules parses the rows between the imports:begin and imports:end markers.
func readRules(t *testing.T) []rule {
	t.Helper()
	data, err := os.ReadFile("../../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile("`([^`]+)`")
	var rules []rule
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.Contains(line, "<!-- imports:begin -->"):
			in = true
		case strings.Contains(line, "<!-- imports:end -->"):
			in = false
		case in && strings.HasPrefix(line, "| `"):
			cols := strings.Split(line, "|")
			pkg := cell.FindStringSubmatch(cols[1])
			r := rule{pkg: pkg[1], where: n}
			for _, m := range cell.FindAllStringSubmatch(cols[2], -1) {
				r.may = append(r.may, m[1])
			}
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		t.Fatal("ARCHITECTURE.md has no import table between <!-- imports:begin --> and <!-- imports:end -->")
	}
	return rules
}

func (r rule) matches(pkg string) bool {
	ok, _ := path.Match(r.pkg, pkg)
	return ok
}

// onRow reports whether dep is listed on pkg's own row: what a package imports directly.
func onRow(rules []rule, pkg, dep string) bool {
	for _, r := range rules {
		if r.matches(pkg) && slices.ContainsFunc(r.may, func(m string) bool { ok, _ := path.Match(m, dep); return ok }) {
			return true
		}
	}
	return false
}

// allows reports whether pkg may depend on dep: dep is on its row, or (transitively) on the
// row of a package its row allows.
func allows(rules []rule, pkg, dep string, seen map[string]bool) bool {
	if seen[pkg] {
		return false
	}
	seen[pkg] = true
	for _, r := range rules {
		if !r.matches(pkg) {
			continue
		}
		for _, m := range r.may {
			if ok, _ := path.Match(m, dep); ok {
				return true
			}
		}
		for _, m := range r.may {
			if !strings.Contains(m, "*") && allows(rules, m, dep, seen) {
				return true
			}
		}
	}
	return false
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// TestImports: every package of the module has a row, imports only what its row lists, and
// depends (go list -deps) only on what its row allows transitively.
func TestImports(t *testing.T) {
	rules := readRules(t)
	out, err := exec.Command("go", "list", "-deps=false", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var n int
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if pkg == "" {
			pkg = "."
		}
		if !slices.ContainsFunc(rules, func(r rule) bool { return r.matches(pkg) }) {
			t.Errorf("%s has no row in ARCHITECTURE.md's import table: add one", pkg)
			continue
		}
		for _, d := range p.Deps {
			dep, ok := strings.CutPrefix(d, module+"/")
			if !ok {
				continue
			}
			if slices.Contains(p.Imports, d) && !onRow(rules, pkg, dep) {
				t.Errorf("%s imports %s, which its row in ARCHITECTURE.md does not list", pkg, dep)
			} else if !allows(rules, pkg, dep, map[string]bool{}) {
				t.Errorf("%s depends on %s, which ARCHITECTURE.md does not allow", pkg, dep)
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list found %d packages; want the whole module", n)
	}
}

// TestRulesBite: the checker refuses what the table forbids (the emitters importing each
// other, the model importing an emitter), so a passing TestImports means something.
func TestRulesBite(t *testing.T) {
	rules := readRules(t)
	for _, c := range []struct {
		pkg, dep string
		want     bool
	}{
		{"generator/goemit", "generator/luaemit", false},
		{"generator/luaemit", "generator/goemit", false},
		{"internal/testkit/boardmodel", "generator/luaemit", false},
		{"internal/testkit/boardmodel", "generator/goemit", false},
		{"generator/catalog", "generator/goemit", false},
		{"generator/catalog", "generator/luaemit", false},
		{"runtime", "generator/layout", false},
		{"generator/goemit", "generator/layout", true},
		{"generator", "runtime", true},         // through goemit
		{"generator/catalog", "runtime", true}, // directly: the write head and batch suffix are the runtime's
		{"runtime", "generator/catalog", false},
		{"examples/generated/arena", "runtime", true},
		{"examples/generated/arena", "generator/layout", false},
	} {
		if got := allows(rules, c.pkg, c.dep, map[string]bool{}); got != c.want {
			t.Errorf("allows(%s → %s) = %v, want %v", c.pkg, c.dep, got, c.want)
		}
	}
	if !onRow(rules, "generator/catalog", "runtime") {
		t.Errorf("generator/catalog imports runtime directly (ManySuffix is rankgenrt.BatchSuffix), and its row must say so")
	}
}

// TestShippingApartFromTestKit: no package that ships (any but the test kit's under internal/
// and the examples) depends on a package under internal/, the test kit's folder: a shipping
// helper lives in a room of its own (text/…), never beside test support.
func TestShippingApartFromTestKit(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if strings.HasPrefix(pkg, "internal/") || strings.HasPrefix(pkg, "examples") {
			continue
		}
		for _, d := range p.Deps {
			if dep, ok := strings.CutPrefix(d, module+"/"); ok && strings.HasPrefix(dep, "internal/") {
				t.Errorf("%s ships but depends on %s, in the test kit's folder internal/", pkg, dep)
			}
		}
	}
}
