// Package vet reports schemas that are legal but risky: a time range that has ended or ends
// soon, a counter with no room to grow, members too long for Redis's compact encoding, a
// decimal score at its exactness bound, a member prefix that a wider score mode would avoid.
//
// Every finding names a rule with a stable ID (TIME_ENDED, MEMBER_LONG, …) that scripts and
// CI configuration can match, a severity, a message that says what and when, and a fix.
// Rules lists them all.
package vet

import (
	"fmt"
	"time"

	"github.com/rankgen/rankgen/generator/layout"
)

// Severity says whether a finding makes the schema unusable (error) or risky (warning).
type Severity string

const (
	Warning Severity = "warning"
	Error   Severity = "error"
)

// Rank orders severities: a finding fails a run whose threshold is at most its rank.
func (s Severity) Rank() int {
	if s == Error {
		return 2
	}
	return 1
}

// Finding is one risk, positioned in the schema.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s %s: %s; fix: %s", f.File, f.Line, f.Col, f.Severity, f.Rule, f.Message, f.Fix)
}

// Schema is the schema to vet: its layout, its source (which positions findings on keys such
// as the id) and the name to report positions under (Layout.File when empty).
type Schema struct {
	Layout *layout.Layout
	Src    []byte
	Name   string
}

// Options are the thresholds of the rules that depend on the calendar.
type Options struct {
	Now   time.Time // the date time ranges are measured from
	Years int       // a time range ending within this many years of Now is reported
}

// DefaultYears is the horizon of TIME_ENDS_SOON when none is given.
const DefaultYears = 5

// Check runs every rule on s and returns the findings, in rule order, then schema order.
func Check(s Schema, opts Options) []Finding {
	return run(s, opts, ruleTable)
}

// TimeRanges runs only the time range rules: what generate and explain report on their own.
func TimeRanges(s Schema, opts Options) []Finding {
	var rules []Rule
	for _, r := range ruleTable {
		if r.timeRange {
			rules = append(rules, r)
		}
	}
	return run(s, opts, rules)
}

func run(s Schema, opts Options, rules []Rule) []Finding {
	if opts.Years <= 0 {
		opts.Years = DefaultYears
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	var out []Finding
	for i := range rules {
		p := &probe{s: s, opts: opts, rule: &rules[i]}
		rules[i].check(p)
		out = append(out, p.out...)
	}
	return out
}

// probe is what a rule's check sees: the schema, the options, and ways to report a finding
// under the rule.
type probe struct {
	s    Schema
	opts Options
	rule *Rule
	out  []Finding
}

func (p *probe) l() *layout.Layout { return p.s.Layout }

func (p *probe) name() string {
	if p.s.Name != "" {
		return p.s.Name
	}
	return p.s.Layout.File
}

func (p *probe) add(line, col int, fix, format string, args ...any) {
	p.out = append(p.out, Finding{Rule: p.rule.ID, Severity: p.rule.Severity, File: p.name(), Line: line, Col: col, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// atField reports a finding on a field.
func (p *probe) atField(f *layout.Field, fix, format string, args ...any) {
	p.add(f.Line, f.Col, fix, format, args...)
}

// atKey reports a finding on a key of the schema (path: "id", "max_bytes").
func (p *probe) atKey(path []string, fix, format string, args ...any) {
	line, col := layout.KeyPos(p.s.Src, path...)
	p.add(line, col, fix, format, args...)
}
