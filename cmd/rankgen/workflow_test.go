package main

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflow is the part of a GitHub Actions workflow file the test runs: its env and the run
// steps of its jobs.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Steps []struct {
			ID   string `yaml:"id"`
			Uses string `yaml:"uses"`
			Run  string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// stepResult is what one run step printed and returned.
type stepResult struct {
	code   int
	output string
}

// TestPRWorkflow proves the pull-request recipe of docs/migration.md: it runs the run steps of
// examples/ci/rankgen.yml, as GitHub's bash would, in a fresh module that pins rankgen with
// "go get -tool" (this checkout, offline) and keeps the arena board under git with origin/main
// as the target branch. A safe change (a doc line and a new update) passes every step with no
// annotation; a new board, listed in SCHEMAS, passes every step with a NEW notice; a WIRE and SOURCE breaking change that also lengthens the id passes check and vet
// (a warning annotation) and fails breaking with error annotations on the changed lines; a
// schema edited without go generate fails check and generate.
func TestPRWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	for _, tool := range []string{"go", "git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s command", tool)
		}
	}
	wf := readWorkflow(t)
	repo := newWorkflowRepo(t)

	repo.edit(t, "board/arena.yaml", "doc: Weekly arena ladder", "doc: The weekly arena ladder")
	repo.edit(t, "board/arena.yaml", "update: [add, max, set]", "update: [add, max, min, set]")
	repo.commitGenerated(t, "safe change")
	for id, r := range repo.runSteps(t, wf) {
		if r.code != 0 || strings.Contains(r.output, "::") {
			t.Errorf("safe change: step %s exited %d with annotations:\n%s", id, r.code, r.output)
		}
	}

	// A pull request that adds a board lists its schema in SCHEMAS: breaking finds no such
	// file on origin/main and reports it as new, a notice, and every step passes.
	weekly, err := os.ReadFile("../../examples/schemas/weekly.yaml")
	if err != nil {
		t.Fatal(err)
	}
	repo.write(t, "weekly/weekly.yaml", string(weekly))
	repo.write(t, "weekly/weekly.go", "// Package weekly keeps the weekly ladder.\npackage weekly\n\n//go:generate go tool rankgen generate weekly.yaml\n")
	repo.commitGenerated(t, "weekly board")
	added := wf
	added.Env = maps.Clone(wf.Env)
	added.Env["SCHEMAS"] += " weekly/weekly.yaml"
	steps := repo.runSteps(t, added)
	for _, id := range []string{"check", "generate", "vet"} {
		if steps[id].code != 0 {
			t.Errorf("new board: step %s exited %d:\n%s", id, steps[id].code, steps[id].output)
		}
	}
	wantLines(t, "breaking", steps["breaking"], 0,
		"::notice file=weekly/weekly.yaml,line=1,col=1,title=NEW::weekly/weekly.yaml is new: origin/main has no such file")

	repo.edit(t, "board/arena.yaml", "bits: 31", "bits: 30")
	repo.edit(t, "board/arena.yaml", "update: [add, max, min, set]", "update: [add, min, set]")
	repo.edit(t, "board/arena.yaml", "max_bytes: 64", "max_bytes: 100")
	repo.commitGenerated(t, "breaking change")
	steps = repo.runSteps(t, wf)
	for _, id := range []string{"check", "generate", "vet"} {
		if steps[id].code != 0 {
			t.Errorf("breaking change: step %s exited %d:\n%s", id, steps[id].code, steps[id].output)
		}
	}
	wantLines(t, "vet", steps["vet"], 0,
		"::warning file=board/arena.yaml,line=8,col=3,title=MEMBER_LONG::members reach 100 bytes")
	wantLines(t, "breaking", steps["breaking"], 1,
		"::error file=board/arena.yaml,line=10,col=5,title=WIRE FIELD_WEIGHT::field 1 (Points): weight 4294967296 → 2147483648",
		"::error file=board/arena.yaml,line=16,col=5,title=WIRE FIELD_RADIX::field 2 (ReachedAt): radix 2147483648 (bits 31) → 1073741824 (bits 30)",
		"::error file=board/arena.yaml,line=16,col=5,title=WIRE FIELD_RANGE::",
		"::error file=board/arena.yaml,line=10,col=5,title=SOURCE UPDATE_REMOVED::update max of Points is gone",
		"rankgen breaking: the layout fingerprint changes from ")

	repo.edit(t, "board/arena.yaml", "bits: 20", "bits: 19")
	steps = repo.runSteps(t, wf)
	wantLines(t, "check", steps["check"], 1, "rankgen check: board/arena.rankgen.go is stale")
	wantLines(t, "generate", steps["generate"], 1, "diff --git a/board/arena.rankgen.go b/board/arena.rankgen.go")
}

// wantLines checks a step's exit code and that its output has each wanted text at the start
// of a line, in order.
func wantLines(t *testing.T, id string, r stepResult, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("step %s exited %d, want %d:\n%s", id, r.code, code, r.output)
	}
	rest := "\n" + r.output
	for _, w := range want {
		i := strings.Index(rest, "\n"+w)
		if i < 0 {
			t.Errorf("step %s: no line starting %q (in order) in:\n%s", id, w, r.output)
			return
		}
		rest = rest[i+1:]
	}
}

func readWorkflow(t *testing.T) workflow {
	t.Helper()
	data, err := os.ReadFile("../../examples/ci/rankgen.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("examples/ci/rankgen.yml: %v", err)
	}
	return wf
}

// workflowRepo is a module under git, on a branch off main, whose origin/main is main.
type workflowRepo struct{ dir string }

func newWorkflowRepo(t *testing.T) *workflowRepo {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	r := &workflowRepo{dir: t.TempDir()}
	schema, err := os.ReadFile(filepath.Join(root, "examples/schemas/arena.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	r.write(t, "go.mod", "module example.com/user\n\ngo 1.26.8\n\nrequire github.com/rankgen/rankgen v0.0.0\n\nreplace github.com/rankgen/rankgen => "+root+"\n")
	r.write(t, "go.sum", string(sum))
	r.write(t, "board/arena.yaml", strings.Replace(string(schema), "package: arena", "package: board", 1))
	r.write(t, "board/board.go", "// Package board keeps the arena ladder.\npackage board\n\n//go:generate go tool rankgen generate arena.yaml\n")
	r.must(t, "go", "get", "-tool", "github.com/rankgen/rankgen/cmd/rankgen")
	r.must(t, "git", "init", "-q", "-b", "main")
	r.commitGenerated(t, "arena board")
	r.must(t, "git", "update-ref", "refs/remotes/origin/main", "main")
	r.must(t, "git", "checkout", "-q", "-b", "change")
	return r
}

func (r *workflowRepo) write(t *testing.T, name, text string) {
	t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (r *workflowRepo) edit(t *testing.T, name, old, new string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", name, old)
	}
	r.write(t, name, strings.Replace(string(data), old, new, 1))
}

// commitGenerated runs go generate and commits everything.
func (r *workflowRepo) commitGenerated(t *testing.T, msg string) {
	t.Helper()
	r.must(t, "go", "generate", "./...")
	r.must(t, "git", "add", "-A")
	r.must(t, "git", "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", msg)
}

func (r *workflowRepo) must(t *testing.T, name string, args ...string) {
	t.Helper()
	if code, out := r.run(name, args...); code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", name, strings.Join(args, " "), code, out)
	}
}

// run runs a command in the repository, offline: rankgen from the replace directive, its
// dependencies from the module cache (scripts/test.sh runs go mod download).
func (r *workflowRepo) run(name string, args ...string) (int, string) {
	cmd := exec.Command(name, args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	case err != nil:
		return -1, err.Error()
	}
	return 0, string(out)
}

// runSteps runs every run step of the workflow as GitHub does (bash -eo pipefail, the
// workflow's env), each whatever the others returned, and reports them by step id.
func (r *workflowRepo) runSteps(t *testing.T, wf workflow) map[string]stepResult {
	t.Helper()
	res := map[string]stepResult{}
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			if s.Run == "" {
				continue
			}
			if s.ID == "" {
				t.Fatalf("a run step has no id: %q", s.Run)
			}
			args := []string{"env"}
			for k, v := range wf.Env {
				args = append(args, k+"="+v)
			}
			args = append(args, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
			code, out := r.run(args[0], args[1:]...)
			res[s.ID] = stepResult{code: code, output: out}
		}
	}
	for _, id := range []string{"check", "generate", "vet", "breaking"} {
		if _, ok := res[id]; !ok {
			t.Fatalf("the workflow has no step %q", id)
		}
	}
	return res
}

// TestWorkflowDocumented: the pull-request workflow of docs/migration.md shows
// examples/ci/rankgen.yml as it is.
func TestWorkflowDocumented(t *testing.T) {
	readme := []byte(readDoc(t, "docs/migration.md"))
	wf, err := os.ReadFile("../../examples/ci/rankgen.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("```yaml\n"+string(wf)+"```\n")) {
		t.Errorf("docs/migration.md's pull-request workflow does not show examples/ci/rankgen.yml as it is:\n%s", wf)
	}
}
