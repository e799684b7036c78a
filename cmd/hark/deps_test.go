package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/harkbox/hark"

// cgoLeaves are the only packages allowed C code: each wraps one C library
// and imports no Hark package beyond the pipeline's types.
var cgoLeaves = map[string]bool{
	module + "/pipeline/whisper": true, // whisper.cpp
	module + "/device/alsa":      true, // alsa-lib
}

// leafMayImport is what a cgo leaf may import from Hark.
var leafMayImport = []string{module + "/pipeline", module + "/pipeline/pcm", module + "/pipeline/voice", module + "/pipeline/guard"}

// buildTags are the tag sets Hark is built with; each is checked.
var buildTags = []string{"", "whisper", "alsa", "whisper,alsa"}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
	CgoFiles   []string
}

func goList(t *testing.T, cgo, tags string) []listed {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,CgoFiles", "-tags", tags, module+"/...")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func under(pkg, dir string) bool {
	return pkg == module+"/"+dir || strings.HasPrefix(pkg, module+"/"+dir+"/")
}

// rule is one of the layering rules: check returns what p breaks of it.
type rule struct {
	name  string
	check func(p listed) []string
}

// rules keep the layers apart; DESIGN.md says why.
var rules = []rule{
	{"pipeline and reply never reach device, gpio or cmd", func(p listed) (bad []string) {
		if !under(p.ImportPath, "pipeline") && !under(p.ImportPath, "reply") {
			return nil
		}
		for _, d := range p.Deps {
			if under(d, "device") || under(d, "gpio") || under(d, "cmd") {
				bad = append(bad, p.ImportPath+" depends on "+d)
			}
		}
		return bad
	}},
	{"only cmd/hark imports device/box", func(p listed) []string {
		if p.ImportPath != module+"/cmd/hark" && slices.Contains(p.Imports, module+"/device/box") {
			return []string{p.ImportPath + " imports device/box"}
		}
		return nil
	}},
	{"device/box reaches nothing under cmd", func(p listed) (bad []string) {
		if !under(p.ImportPath, "device/box") {
			return nil
		}
		for _, d := range p.Deps {
			if under(d, "cmd") {
				bad = append(bad, p.ImportPath+" depends on "+d)
			}
		}
		return bad
	}},
	{"nothing under reply reaches the pipeline state machine", func(p listed) []string {
		if under(p.ImportPath, "reply") && slices.Contains(p.Deps, module+"/pipeline") {
			return []string{p.ImportPath + " depends on pipeline"}
		}
		return nil
	}},
	{"locale reaches nothing under reply", func(p listed) (bad []string) {
		if !under(p.ImportPath, "locale") {
			return nil
		}
		for _, d := range p.Deps {
			if under(d, "reply") {
				bad = append(bad, p.ImportPath+" depends on "+d)
			}
		}
		return bad
	}},
	{"only tests import a *test helper, and a helper only its siblings", func(p listed) (bad []string) {
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") || !helper(imp) {
				continue
			}
			if !helper(p.ImportPath) || path.Dir(imp) != path.Dir(p.ImportPath) {
				bad = append(bad, p.ImportPath+" imports "+imp)
			}
		}
		return bad
	}},
	{"only the alert service's wiring imports it", func(p listed) []string {
		if p.ImportPath != alertService && (under(p.ImportPath, "pipeline") || under(p.ImportPath, "reply")) && slices.Contains(p.Imports, alertService) {
			return []string{p.ImportPath + " imports " + alertService + "; use an interface declared where it is used"}
		}
		return nil
	}},
}

// helper reports whether pkg is a test helper package (its name ends in
// "test": replytest, rauctest, sharedtest...).
func helper(pkg string) bool { return strings.HasSuffix(path.Base(pkg), "test") }

// alertService is the one place timers, alarms and reminders are scheduled
// and rung; the rest of pipeline and reply reach it through interfaces of
// their own (builtin.Schedule, builtin.Alerts), never its concrete type.
const alertService = module + "/reply/alert"

// TestLayering fails when a package breaks a rule, under every build tag
// set.
func TestLayering(t *testing.T) {
	for _, tags := range buildTags {
		for _, p := range goList(t, "1", tags) {
			for _, r := range rules {
				for _, b := range r.check(p) {
					t.Errorf("tags %q: %s: %s", tags, r.name, b)
				}
			}
		}
	}
}

// TestRulesCatch shows each rule failing once, on a package that breaks
// it, and passing its lawful neighbour.
func TestRulesCatch(t *testing.T) {
	m := func(s string) string { return module + "/" + s }
	cases := []struct {
		breaks, keeps listed
	}{
		{listed{ImportPath: m("reply/planner"), Deps: []string{m("device/alsa")}}, listed{ImportPath: m("reply/planner"), Deps: []string{m("storage")}}},
		{listed{ImportPath: m("device/web"), Imports: []string{m("device/box")}}, listed{ImportPath: m("cmd/hark"), Imports: []string{m("device/box")}}},
		{listed{ImportPath: m("device/box"), Deps: []string{m("cmd/hark")}}, listed{ImportPath: m("device/box"), Deps: []string{m("device/box/config")}}},
		{listed{ImportPath: m("reply/alert"), Deps: []string{m("pipeline")}}, listed{ImportPath: m("reply/alert"), Deps: []string{m("reply/schedule")}}},
		{listed{ImportPath: m("locale"), Deps: []string{m("reply/utterance")}}, listed{ImportPath: m("locale"), Deps: []string{m("locale/utterance")}}},
		{listed{ImportPath: m("pipeline/endpoint/endpointtest"), Imports: []string{m("internal/sharedtest")}}, listed{ImportPath: m("reply/replytest"), Imports: []string{m("reply/ollamatest")}}},
		{listed{ImportPath: m("reply/command/builtin"), Imports: []string{alertService}}, listed{ImportPath: m("device/box"), Imports: []string{alertService}}},
	}
	if len(cases) != len(rules) {
		t.Fatalf("%d cases for %d rules: each rule is shown to fail once", len(cases), len(rules))
	}
	for i, r := range rules {
		if got := r.check(cases[i].breaks); len(got) == 0 {
			t.Errorf("%s: %+v breaks it, and it passed", r.name, cases[i].breaks)
		}
		if got := r.check(cases[i].keeps); len(got) != 0 {
			t.Errorf("%s: %+v keeps it, and it failed: %v", r.name, cases[i].keeps, got)
		}
	}
}

// TestCgoOnlyInLeaves fails when C code appears anywhere but the designated
// leaf packages, or a leaf grows into the rest of Hark.
func TestCgoOnlyInLeaves(t *testing.T) {
	for _, tags := range buildTags {
		for _, p := range goList(t, "1", tags) {
			if len(p.CgoFiles) == 0 {
				continue
			}
			if !cgoLeaves[p.ImportPath] {
				t.Errorf("tags %q: %s has cgo files %v; only %v may", tags, p.ImportPath, p.CgoFiles, keys(cgoLeaves))
				continue
			}
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module+"/") && !slices.Contains(leafMayImport, imp) {
					t.Errorf("tags %q: cgo leaf %s imports %s", tags, p.ImportPath, imp)
				}
			}
		}
	}
}

// TestBuildsWithoutCgo fails when a package stops building with
// CGO_ENABLED=0: everything but the leaves must, and the leaves must fall
// back to a stub.
func TestBuildsWithoutCgo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	cmd := exec.Command("go", "build", "./...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go build ./... failed: %v\n%s", err, out)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
