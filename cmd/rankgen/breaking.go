package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rankgen/rankgen/generator/breaking"
	"github.com/rankgen/rankgen/generator/layout"
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
the same (a field's width, order, range, unit, enum values, place or position; the score's
decimal places; the member separator; the id's type). Fields are compared by position, as the
encoding is positional, so a rename alone is not one. Whenever the layout fingerprint changes
there is at least one, and the new code refuses the old boards (ErrLayoutMismatch): migrate them
or move to a new key.

SOURCE changes break Go code that uses the generated package: a package, id, field, Board
method (an update dropped from "update:") or enum constant is gone, or a Go type changed.
Fields are compared by name.

-against is the earlier schema: a file, or git:REF for the same file at a git revision (for
example git:origin/main), read with "git show" in the schema's directory.

-format text (the default), json (an array of {category, rule, file, line, col, message}), or
github (workflow commands that annotate the pull request).

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
	newSrc, err := os.ReadFile(e.path(args[0]))
	if err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	oldName, oldSrc, err := e.earlier(against, args[0])
	if err != nil {
		e.errorf("breaking", "%v", err)
		return exitFail
	}
	oldL, err1 := layout.Parse(oldName, oldSrc)
	newL, err2 := layout.Parse(args[0], newSrc)
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
		breaking.Schema{Layout: newL, Src: newSrc, Name: args[0]})
	if err := writeChanges(e, format, changes); err != nil {
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
		return "", nil, fmt.Errorf("git show %s:./%s: %v: %s", ref, filepath.Base(path), err, strings.TrimSpace(stderr.String()))
	}
	return ref + ":" + schema, src, nil
}

func writeChanges(e *env, format string, changes []breaking.Change) error {
	switch format {
	case "json":
		if changes == nil {
			changes = []breaking.Change{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(changes)
	case "github":
		for _, c := range changes {
			// A workflow command's properties end at ",", ":" and newlines: escape them.
			fmt.Fprintf(e.stdout, "::error file=%s,line=%d,col=%d,title=%s %s::%s\n",
				ghProperty(c.File), c.Line, c.Col, c.Category, c.Rule, ghMessage(c.Message))
		}
	default:
		for _, c := range changes {
			fmt.Fprintln(e.stdout, c.String())
		}
	}
	return nil
}

func ghMessage(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
