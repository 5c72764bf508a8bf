package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/rankgen/rankgen/generator/vet"
)

func init() {
	register(&command{
		name:  "vet",
		args:  "schema.yaml…",
		short: "report schemas that are legal but risky, each with a fix",
		long: `Vet reports what is legal in a schema but risky, one finding per line as
file:line:col: SEVERITY RULE: message; fix: what to do. The rules (rankgen vet -list):
a time range that has ended (an error: every write of a current time fails) or ends within
-years years; an add field in a score with under 1 bit left; a member longer than 64 bytes
(small boards leave Redis's compact listpack encoding); a decimal score at its exactness
bound; fields spilling into the member that would all fit a 62-bit score.

-format text (the default), json (an array of {rule, severity, file, line, col, message,
fix}), or github (workflow commands that annotate the pull request: ::warning or ::error).

-list prints every rule instead (ID, severity, purpose, fix; -format json for an array).

A package file (a boards: key) stands for its boards' schemas; each finding names its board.

Exit status: 1 when a finding is at least as severe as -fail-on (error by default; warning
makes every finding fail), or on schema errors; 0 otherwise; 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			format := fs.String("format", "text", "output `format`: text, json or github")
			failOn := fs.String("fail-on", "error", "exit 1 on findings of this `severity` or worse: warning or error")
			years := fs.Int("years", vet.DefaultYears, "report time ranges that end within this many `years`")
			list := fs.Bool("list", false, "print every rule (ID, severity, purpose, fix) instead")
			return func(e *env, args []string) int {
				if *list {
					return listVetRules(e, *format, args)
				}
				return runVet(e, vetRun{format: *format, failOn: vet.Severity(*failOn), years: *years}, args)
			}
		},
	})
}

type vetRun struct {
	format string
	failOn vet.Severity
	years  int
}

func runVet(e *env, r vetRun, args []string) int {
	c := commands["vet"]
	switch {
	case len(args) == 0:
		return usageFail(e, c, "no schema given")
	case r.format != "text" && r.format != "json" && r.format != "github":
		return usageFail(e, c, fmt.Sprintf("-format must be text, json or github, not %q", r.format))
	case r.failOn != vet.Warning && r.failOn != vet.Error:
		return usageFail(e, c, fmt.Sprintf("-fail-on must be warning or error, not %q", r.failOn))
	case r.years < 1:
		return usageFail(e, c, fmt.Sprintf("-years must be at least 1, not %d", r.years))
	}
	code := exitOK
	findings := []vet.Finding{}
	for _, arg := range args {
		schemas, _, ok := schemasOf(e, "vet", arg)
		if !ok {
			code = exitFail
			continue
		}
		for _, s := range schemas {
			for _, f := range vet.Check(vet.Schema{Layout: s.l, Src: s.src, Name: s.path}, vet.Options{Now: e.clock(), Years: r.years}) {
				f.Message = s.label() + f.Message
				findings = append(findings, f)
			}
		}
	}
	writeFindings(e, r.format, findings)
	for _, f := range findings {
		if f.Severity.Rank() >= r.failOn.Rank() {
			code = exitFail
		}
	}
	return code
}

func writeFindings(e *env, format string, findings []vet.Finding) {
	switch format {
	case "json":
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(findings) // a slice of plain structs always encodes
	case "github":
		for _, f := range findings {
			fmt.Fprintf(e.stdout, "::%s file=%s,line=%d,col=%d,title=%s::%s\n",
				f.Severity, ghProperty(f.File), f.Line, f.Col, f.Rule, ghMessage(f.Message+"; fix: "+f.Fix))
		}
	default:
		for _, f := range findings {
			fmt.Fprintln(e.stdout, f.String())
		}
	}
}

// listVetRules prints the rule registry.
func listVetRules(e *env, format string, args []string) int {
	c := commands["vet"]
	switch {
	case len(args) > 0:
		return usageFail(e, c, "-list takes no schema")
	case format == "json":
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(vet.Rules())
	case format == "text":
		w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSEVERITY\tPURPOSE\tFIX")
		for _, r := range vet.Rules() {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Purpose, r.Fix)
		}
		_ = w.Flush()
	default:
		return usageFail(e, c, fmt.Sprintf("-list prints -format text or json, not %q", format))
	}
	return exitOK
}
