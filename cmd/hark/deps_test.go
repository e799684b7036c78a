package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
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

// TestLayering fails when pipeline or reply reach the hardware, the OS edges
// or the command: they declare interfaces that those packages satisfy.
func TestLayering(t *testing.T) {
	for _, tags := range buildTags {
		for _, p := range goList(t, "1", tags) {
			if !under(p.ImportPath, "pipeline") && !under(p.ImportPath, "reply") {
				continue
			}
			for _, d := range p.Deps {
				if under(d, "device") || under(d, "gpio") || under(d, "cmd") {
					t.Errorf("tags %q: %s depends on %s; pipeline and reply must not reach device, gpio or cmd", tags, p.ImportPath, d)
				}
			}
		}
	}
}

// alertService is the one place timers, alarms and reminders are scheduled
// and rung; the rest of pipeline and reply reach it through interfaces of
// their own (builtin.Schedule, builtin.Alerts), never its concrete type.
const alertService = module + "/reply/alert"

// TestAlertServiceOnlyWiredByCmd fails when a package under pipeline/ or
// reply/ other than the service itself imports the alert service.
func TestAlertServiceOnlyWiredByCmd(t *testing.T) {
	for _, tags := range buildTags {
		for _, p := range goList(t, "1", tags) {
			if p.ImportPath == alertService || !under(p.ImportPath, "pipeline") && !under(p.ImportPath, "reply") {
				continue
			}
			if slices.Contains(p.Imports, alertService) {
				t.Errorf("tags %q: %s imports %s; use an interface declared where it is used", tags, p.ImportPath, alertService)
			}
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
