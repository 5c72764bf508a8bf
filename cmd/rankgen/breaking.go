package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/rankgen/rankgen/generator/breaking"
	"github.com/rankgen/rankgen/generator/layout"
	"github.com/rankgen/rankgen/migrate"
)

func init() {
	register(&command{
		name:     "breaking",
		args:     "schema.yaml",
		required: []string{"against"},
		short:    "report the changes to a schema that break stored boards or Go callers",
		long: `Breaking compares schema.yaml with an earlier version of it (-against) and reports every change
that breaks what the earlier one built, one per line as file:line:col: CATEGORY RULE: message.

WIRE changes break stored boards: the entries the old layout wrote no longer decode or order
the same (a field inserted, removed or moved; a field's width, order, range, unit, enum values,
place or type; the score's decimal places; the member separator; the id's type). Fields are
matched by name, as rankgen migrate maps them, so an inserted field is one finding with its
name and position; a removed and an inserted field of the same Go type may be a rename, which
the findings suggest (-rename Old=New). Whenever the layout fingerprint changes there is at
least one, and the new code refuses the old boards (ErrLayoutMismatch): migrate them or move
to a new key. After WIRE changes, a MIGRATE finding gives the rankgen migrate command with the
-default, -drop and -rename flags the change needs (the defaults are values each field holds,
for you to choose), the live season boards of a periodic board, and the shard keys of a
sharded one; or says why migrate has no mapping.

COMPATIBLE findings break nothing and say why: data fields appended at the end of data: need
no migration, as code of both versions reads and writes the same board (the older keeps the
values of fields it does not know; the newer reads an entry written without them as their zero).
Removing, reordering or retyping a data field stays a WIRE change.

SOURCE changes break Go code that uses the generated package: a package, id, field, Board
method (an update dropped from "update:") or enum constant is gone, or a Go type changed.
Fields are compared by name.

-against is the earlier schema: a file, or git:REF for the same file at a git revision (for
example git:origin/main), read with "git show" in the schema's directory. A schema the
revision lacks is new: it is reported as NEW and breaks nothing (exit 0).

A package file (a boards: key) is compared board by board with the earlier package file's
boards of the same name (read beside it, or at the same revision): each finding names its
board, a board gone is BOARD_REMOVED, a board added breaks nothing.

-format text (the default), json (an array of {category, rule, file, line, col, message}; a
MIGRATE item adds command and notes), or github (workflow commands that annotate the pull
request: errors for WIRE and SOURCE, notices for NEW, COMPATIBLE and MIGRATE).

-list prints every rule instead, one per line with its category and purpose (-format json:
an array of {id, category, purpose}), in the order changes are reported; it takes no schema.

Exit status: 0 when nothing breaks, 1 when something does (or on schema or git errors), 2 on
usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			against := fs.String("against", "", "the earlier schema: a `file`, or git:REF (required)")
			format := fs.String("format", "text", "output `format`: text, json or github")
			list := fs.Bool("list", false, "print every rule (ID, category, purpose) instead")
			return func(e *env, args []string) int {
				if *list {
					return listRules(e, *against, *format, args)
				}
				return runBreaking(e, *against, *format, args)
			}
		},
	})
}

func runBreaking(e *env, against, format string, args []string) int {
	c := commands["breaking"]
	if against == "" {
		return usageFail(e, c, "-against is required")
	}
	if len(args) != 1 {
		return usageFail(e, c, "breaking takes exactly one schema")
	}
	if format != "text" && format != "json" && format != "github" {
		return usageFail(e, c, fmt.Sprintf("-format must be text, json or github, not %q", format))
	}
	schema := args[0]
	newSrc, err := os.ReadFile(e.path(schema))
	if err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	if layout.IsBoards(newSrc) {
		return runBreakingBoards(e, against, format, schema, newSrc)
	}
	oldName, oldSrc, err := e.earlier(against, schema)
	var absent *notAtRefError
	if errors.As(err, &absent) {
		// A schema added by the change under review breaks nothing: nothing was built from it.
		if _, err := layout.Parse(schema, newSrc); err != nil {
			printError(e, "breaking", err)
			return exitFail
		}
		return reportNew(e, format, schema, absent)
	}
	if err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	oldL, err1 := layout.Parse(oldName, oldSrc)
	newL, err2 := layout.Parse(schema, newSrc)
	if err1 != nil || err2 != nil {
		for _, err := range []error{err1, err2} {
			if err != nil {
				printError(e, "breaking", err)
			}
		}
		return exitFail
	}
	changes := breaking.Compare(
		breaking.Schema{Layout: oldL, Src: oldSrc, Name: oldName},
		breaking.Schema{Layout: newL, Src: newSrc, Name: schema})
	var findings []breakingFinding
	for _, c := range breaking.CompatibleChanges(
		breaking.Schema{Layout: oldL, Src: oldSrc, Name: oldName},
		breaking.Schema{Layout: newL, Src: newSrc, Name: schema}) {
		// Compatible changes inform, as NEW and MIGRATE do: no rule, never an error.
		findings = append(findings, breakingFinding{Category: string(c.Category), File: c.File, Line: c.Line, Col: c.Col, Message: c.Message})
	}
	for _, c := range changes {
		findings = append(findings, breakingFinding{Category: string(c.Category), Rule: c.Rule, File: c.File, Line: c.Line, Col: c.Col, Message: c.Message})
	}
	if m := breaking.Migrate(oldL, newL); m != nil {
		findings = append(findings, migrationFinding(e, m, against, schema, oldL, newL))
	}
	if err := writeBreaking(e, format, findings); err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	if len(changes) == 0 {
		return exitOK
	}
	if oldL.Fingerprint != newL.Fingerprint {
		fmt.Fprintf(e.stderr, "rankgen breaking: the layout fingerprint changes from %s to %s: boards the old layout wrote are refused (ErrLayoutMismatch) until migrated; or use a new key\n", oldL.Fingerprint, newL.Fingerprint)
	}
	return exitFail
}

// reportNew reports a schema (or package file) the -against revision lacks: new, it breaks
// nothing, as nothing was built from it.
func reportNew(e *env, format, schema string, absent *notAtRefError) int {
	msg := fmt.Sprintf("%s is new: %s has no such file, so there is no stored board or Go caller of it to break", schema, absent.ref)
	if err := writeBreaking(e, format, []breakingFinding{{Category: "NEW", File: schema, Line: 1, Col: 1, Message: msg}}); err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	return exitOK
}

// runBreakingBoards is breaking for a package file: its boards compared by name with those of
// the earlier package file, each finding naming its board (breaking.CompareBoards), with a
// MIGRATE finding for each board whose stored layout changes.
func runBreakingBoards(e *env, against, format, schema string, newSrc []byte) int {
	newPkg, ok := breakingPackage(e, schema, schema, newSrc, func(path string) (string, []byte, error) {
		src, err := os.ReadFile(e.path(path))
		return path, src, err
	})
	oldName, oldSrc, err := e.earlier(against, schema)
	var absent *notAtRefError
	if errors.As(err, &absent) {
		if !ok {
			return exitFail
		}
		return reportNew(e, format, schema, absent)
	}
	if err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	// The earlier package's boards are read where the earlier package file is: at the revision,
	// or beside the -against file.
	oldPkg, oldOK := breakingPackage(e, oldName, schema, oldSrc, func(path string) (string, []byte, error) {
		if strings.HasPrefix(against, "git:") {
			return e.earlier(against, path)
		}
		rel, err := filepath.Rel(filepath.Dir(schema), path)
		if err != nil {
			return "", nil, err
		}
		old := filepath.Join(filepath.Dir(against), rel)
		src, err := os.ReadFile(e.path(old))
		return old, src, err
	})
	if !ok || !oldOK {
		return exitFail
	}
	var findings []breakingFinding
	for _, c := range breaking.CompatibleBoardChanges(oldPkg, newPkg) {
		findings = append(findings, breakingFinding{Category: string(c.Category), File: c.File, Line: c.Line, Col: c.Col, Message: c.Message})
	}
	changes := breaking.CompareBoards(oldPkg, newPkg)
	for _, c := range changes {
		findings = append(findings, breakingFinding{Category: string(c.Category), Rule: c.Rule, File: c.File, Line: c.Line, Col: c.Col, Message: c.Message})
	}
	for _, b := range newPkg.Boards.Boards {
		before, ok := oldPkg.Schemas[b.Name]
		if !ok {
			continue
		}
		now := newPkg.Schemas[b.Name]
		if m := breaking.Migrate(before.Layout, now.Layout); m != nil {
			from := against
			if !strings.HasPrefix(against, "git:") {
				from = before.Name
			}
			f := migrationFinding(e, m, from, now.Name, before.Layout, now.Layout)
			f.Message = "board " + b.Name + ": " + f.Message
			findings = append(findings, f)
		}
		if before.Layout.Fingerprint != now.Layout.Fingerprint {
			fmt.Fprintf(e.stderr, "rankgen breaking: board %s: the layout fingerprint changes from %s to %s: boards the old layout wrote are refused (ErrLayoutMismatch) until migrated; or use a new key\n", b.Name, before.Layout.Fingerprint, now.Layout.Fingerprint)
		}
	}
	if err := writeBreaking(e, format, findings); err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	if len(changes) > 0 {
		return exitFail
	}
	return exitOK
}

// breakingPackage parses one version of a package file (src, named name in findings; its
// boards' schemas read by read, given their path beside at) for CompareBoards.
func breakingPackage(e *env, name, at string, src []byte, read func(path string) (string, []byte, error)) (breaking.Package, bool) {
	names := map[string]string{}
	srcs := map[string][]byte{}
	p, err := layout.ParseBoards(at, src, func(path string) ([]byte, error) {
		n, s, err := read(path)
		names[path], srcs[path] = n, s
		return s, err
	})
	if err != nil {
		printError(e, "breaking", err)
		return breaking.Package{}, false
	}
	pkg := breaking.Package{Boards: p, Src: src, Name: name, Schemas: map[string]breaking.Schema{}}
	for _, b := range p.Boards {
		path := filepath.Join(filepath.Dir(at), filepath.FromSlash(b.Schema))
		pkg.Schemas[b.Name] = breaking.Schema{Layout: b.Layout, Src: srcs[path], Name: names[path]}
	}
	return pkg, true
}

// breakingFinding is one item of breaking's report: a breaking change (category WIRE or SOURCE, with
// its rule), the schema being new at the -against revision (NEW), or how to migrate the boards
// the old layout wrote (MIGRATE: the rankgen migrate command, and notes on it).
type breakingFinding struct {
	Category string   `json:"category"`
	Rule     string   `json:"rule,omitempty"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Message  string   `json:"message"`
	Command  string   `json:"command,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// migrationFinding says how rankgen migrate carries the old layout's boards to the new one:
// the command, with the flags the mapping needs, checked by migrate's own NewPlan so that it
// is one migrate accepts; or, when migrate has no mapping, why.
func migrationFinding(e *env, m *breaking.Migration, against, schema string, oldL, newL *layout.Layout) breakingFinding {
	f := breakingFinding{Category: "MIGRATE", File: schema, Line: 1, Col: 1}
	mapping := migrate.Mapping{Renames: map[string]string{}, Defaults: map[string]string{}, Drops: m.Drops}
	cmd := []string{"rankgen", "migrate", "-from", against, "-to", schema}
	for _, r := range m.Renames {
		mapping.Renames[r.Old] = r.New
		cmd = append(cmd, "-rename", r.Old+"="+r.New)
		f.Notes = append(f.Notes, fmt.Sprintf("-rename %s=%s is a guess (they have the same Go type): if %s is not %s renamed, use -drop %s -default %s=VALUE instead", r.Old, r.New, r.New, r.Old, r.Old, r.New))
	}
	for _, d := range m.Defaults {
		mapping.Defaults[d.Field] = d.Value
		cmd = append(cmd, "-default", d.Field+"="+d.Value)
		field := newL.Field(d.Field)
		if field == nil {
			field = dataField(newL, d.Field)
		}
		f.Notes = append(f.Notes, fmt.Sprintf("-default %s=%s (%s) is only a start: choose the value every stored entry gets (%s holds %s)", d.Field, d.Value, d.Why, d.Field, field.Range()))
	}
	for _, name := range m.Drops {
		cmd = append(cmd, "-drop", name)
	}
	cmd = append(cmd, "KEY")
	if _, err := migrate.NewPlan(oldL, newL, mapping); err != nil {
		var nm *migrate.NoMappingError
		errors.As(err, &nm)
		f.Message = "rankgen migrate has no mapping for this change: start the new layout under a new key"
		f.Notes = nm.Problems
		return f
	}
	f.Message = "to migrate each board the old layout wrote (rankgen migrate maps fields by name), run:"
	f.Command = shellJoin(cmd)
	if pr := newL.Previous; pr != nil {
		f.Notes = append(f.Notes, fmt.Sprintf("%s names its previous schema (%s): deploy it while the old code runs, then run rankgen migrate -to %s KEY, which takes the mapping from previous: (docs/schema-changes.md#a-rolling-deploy-of-a-layout-change)", schema, pr.Schema, schema))
	} else if oldL.IDType == newL.IDType && (oldL.Season == nil) == (newL.Season == nil) && (oldL.Season == nil || oldL.Season.Canonical() == newL.Season.Canonical()) {
		f.Notes = append(f.Notes, "to deploy the new code while the old code still runs, and migrate after, name the old schema and this mapping in previous: (docs/schema-changes.md#a-rolling-deploy-of-a-layout-change)")
	}
	if m.Season != nil {
		f.Notes = append(f.Notes, liveSeasons(e, m.Season))
	}
	if oldL.Sharded { // only then can the old code have written a ShardedBoard
		f.Notes = append(f.Notes, "a board used as a ShardedBoard of S shards is S boards: add -shards S, and the run migrates each shard's key (rankgenrt.ShardKeys(KEY, S))")
	}
	return f
}

// liveSeasons says which boards of a periodic layout are live, and so must be migrated: the
// current season's and the keep finished before it, each under its own key.
func liveSeasons(e *env, s *layout.Season) string {
	cur := s.Calendar.At(e.clock())
	ids := []string{fmt.Sprint(cur.ID)}
	for prev, i := cur, 0; i < s.Keep; i++ {
		prev = s.Calendar.Prev(prev)
		ids = append(ids, fmt.Sprint(prev.ID))
	}
	if len(ids) > 6 {
		ids = append(ids[:3], "…", ids[len(ids)-1])
	}
	return fmt.Sprintf("the board is periodic: with KEY = its base, the run migrates its keep+1 = %d live boards (the current season and the %d kept), for the seasons %s as of now, and skips those absent",
		s.Keep+1, s.Keep, strings.Join(ids, ", "))
}

func dataField(l *layout.Layout, name string) *layout.Field {
	for _, f := range l.Data {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// shellJoin writes a command line a POSIX shell splits back into args: an argument with
// anything but safe characters is single-quoted.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if a == "" || strings.IndexFunc(a, func(r rune) bool { return !safeInShell(r) }) >= 0 {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

func safeInShell(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,/:+@%", r)
}

// listRules prints the rule registry.
func listRules(e *env, against, format string, args []string) int {
	c := commands["breaking"]
	switch {
	case against != "" || len(args) > 0:
		return usageFail(e, c, "-list takes no -against and no schema")
	case format == "json":
		rules := breaking.Rules()
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rules); err != nil {
			e.errorf("breaking", "%v", err)
			return exitFail
		}
	case format == "text":
		w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tCATEGORY\tPURPOSE")
		for _, r := range breaking.Rules() {
			fmt.Fprintf(w, "%s\t%s\t%s\n", r.ID, r.Category, r.Purpose)
		}
		if err := w.Flush(); err != nil {
			e.errorf("breaking", "%v", err)
			return exitFail
		}
	default:
		return usageFail(e, c, fmt.Sprintf("-list prints -format text or json, not %q", format))
	}
	return exitOK
}

// earlier reads the schema given to -against: a file, or git:REF for schema at that revision.
// It returns the name to report positions in, and the source.
func (e *env) earlier(against, schema string) (string, []byte, error) {
	ref, ok := strings.CutPrefix(against, "git:")
	if !ok {
		src, err := os.ReadFile(e.path(against))
		return against, src, err
	}
	if ref == "" {
		return "", nil, fmt.Errorf("-against git:REF needs a revision, as in git:origin/main")
	}
	path := e.path(schema)
	cmd := exec.Command("git", "show", ref+":./"+filepath.Base(path))
	cmd.Dir = filepath.Dir(path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	src, err := cmd.Output()
	if err != nil {
		if absentAt(ref, path) {
			return "", nil, &notAtRefError{ref: ref, schema: schema}
		}
		return "", nil, fmt.Errorf("git show %s:./%s: %v: %s", ref, filepath.Base(path), err, strings.TrimSpace(stderr.String()))
	}
	return ref + ":" + schema, src, nil
}

// notAtRefError: the schema is not in the revision -against git:REF names (it is new there).
type notAtRefError struct{ ref, schema string }

func (e *notAtRefError) Error() string {
	return fmt.Sprintf("%s is not in %s (a schema new since then)", e.schema, e.ref)
}

// absentAt reports whether the revision ref exists and lacks the file path, asked of git
// directly rather than read from git show's message, which varies with git's version.
func absentAt(ref, path string) bool {
	git := func(args ...string) bool {
		cmd := exec.Command("git", args...)
		cmd.Dir = filepath.Dir(path)
		return cmd.Run() == nil
	}
	return git("rev-parse", "--verify", "--quiet", ref+"^{commit}") && !git("cat-file", "-e", ref+":./"+filepath.Base(path))
}

func writeBreaking(e *env, format string, findings []breakingFinding) error {
	switch format {
	case "json":
		if findings == nil {
			findings = []breakingFinding{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(findings)
	case "github":
		for _, f := range findings {
			// A workflow command's properties end at ",", ":" and newlines: escape them.
			level, title, text := "error", f.Category+" "+f.Rule, f.Message
			if f.Rule == "" { // NEW, COMPATIBLE and MIGRATE inform; they break nothing
				level, title = "notice", f.Category
				text = strings.Join(slices.Concat([]string{f.Message}, nonEmpty(f.Command), f.Notes), "\n")
			}
			fmt.Fprintf(e.stdout, "::%s file=%s,line=%d,col=%d,title=%s::%s\n",
				level, ghProperty(f.File), f.Line, f.Col, ghProperty(title), ghMessage(text))
		}
	default:
		for _, f := range findings {
			category := f.Category
			if f.Rule != "" {
				category += " " + f.Rule
			}
			fmt.Fprintf(e.stdout, "%s:%d:%d: %s: %s\n", f.File, f.Line, f.Col, category, f.Message)
			for _, line := range nonEmpty(f.Command) {
				fmt.Fprintf(e.stdout, "    %s\n", line)
			}
			for _, note := range f.Notes {
				fmt.Fprintf(e.stdout, "  note: %s\n", note)
			}
		}
	}
	return nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func ghMessage(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
