package luaemit

import (
	"regexp"
	"strings"
)

// definition is the first code line of a top-level definition prune may drop: a local
// function, or a local constant on one line.
var definition = regexp.MustCompile(`^local (?:function ([A-Za-z_][A-Za-z0-9_]*)\(|([A-Za-z_][A-Za-z0-9_]*) = .*$)`)

// prune drops from a library's text the top-level definitions nothing calls: the head defines
// what every layout's functions may share, and a layout keeps only what its own use (no season
// clock without a season or a stamp, no lookup of stored entries without an update). A
// definition is a paragraph (the text between blank lines) of comment lines and one local
// function, or one local constant; it is used when its name appears outside its paragraph in
// code (not in comments). Dropping one may leave another unused: prune repeats until none is.
func prune(src string) string {
	paras := strings.Split(src, "\n\n")
	for {
		dropped := false
		for i, p := range paras {
			name := defines(p)
			if name == "" {
				continue
			}
			word := regexp.MustCompile(`\b` + name + `\b`)
			used := false
			for j, q := range paras {
				if j != i && word.MatchString(code(q)) {
					used = true
					break
				}
			}
			if !used {
				paras = append(paras[:i], paras[i+1:]...)
				dropped = true
				break
			}
		}
		if !dropped {
			return strings.Join(paras, "\n\n")
		}
	}
}

// defines returns the name paragraph p defines, when p is one definition prune may drop, else "".
func defines(p string) string {
	lines := strings.Split(strings.Trim(p, "\n"), "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "--") {
		lines = lines[1:]
	}
	if len(lines) == 0 {
		return ""
	}
	m := definition.FindStringSubmatch(lines[0])
	switch {
	case m == nil:
		return ""
	case m[2] != "": // a constant: its one line
		if len(lines) != 1 {
			return ""
		}
		return m[2]
	}
	// A function: its lines are indented up to its closing end, and nothing follows.
	for _, line := range lines[1 : len(lines)-1] {
		if line != "" && !strings.HasPrefix(line, " ") {
			return ""
		}
	}
	if lines[len(lines)-1] != "end" {
		return ""
	}
	return m[1]
}

// code is p without its comment lines.
func code(p string) string {
	var b strings.Builder
	for _, line := range strings.Split(p, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
