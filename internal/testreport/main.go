// Command testreport summarises `go test -json` output for `make test`: the
// output of every failed test, one line for each skipped test with its
// reason, the slowest packages, and a closing line "N passed, N failed, N
// skipped". It exits 1 when a test or a package failed.
//
//	go test -json ./... > build/test/unit.json
//	go run ./internal/testreport build/test/*.json
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	r := newReport()
	for _, path := range os.Args[1:] {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
		r.step = strings.TrimSuffix(path[strings.LastIndex(path, "/")+1:], ".json")
		err = r.read(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "testreport: %s: %v\n", path, err)
			os.Exit(2)
		}
	}
	if r.write(os.Stdout) {
		os.Exit(1)
	}
}

// event is one line of test2json.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ step, pkg, test string }

type report struct {
	step    string
	output  map[key][]string
	passed  int
	failed  []key
	skipped []key
	reasons map[key]string
	pkgs    map[key]float64 // package elapsed seconds
	pkgFail []key
}

func newReport() *report {
	return &report{output: map[key][]string{}, reasons: map[key]string{}, pkgs: map[key]float64{}}
}

func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (a build error printed by go test itself): keep it
			// with the step, to show if the step failed.
			k := key{r.step, "", ""}
			r.output[k] = append(r.output[k], string(line)+"\n")
			continue
		}
		k := key{r.step, e.Package, e.Test}
		switch e.Action {
		case "output", "build-output":
			r.output[k] = append(r.output[k], e.Output)
		case "pass":
			if e.Test != "" {
				r.passed++
			} else {
				r.pkgs[k] = e.Elapsed
			}
		case "fail":
			if e.Test != "" {
				r.failed = append(r.failed, k)
			} else {
				r.pkgs[k] = e.Elapsed
				r.pkgFail = append(r.pkgFail, k)
			}
		case "skip":
			if e.Test != "" {
				r.skipped = append(r.skipped, k)
				r.reasons[k] = reason(r.output[k])
			}
		}
	}
	return sc.Err()
}

// reason is the last line a skipped test printed before "--- SKIP".
func reason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		l := strings.TrimSpace(out[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		// "file_test.go:12: the reason" -> "the reason"
		if i := strings.Index(l, ": "); i > 0 && strings.Contains(l[:i], ".go:") {
			l = l[i+2:]
		}
		return l
	}
	return "(no reason given)"
}

// write prints the report and says whether anything failed.
func (r *report) write(w io.Writer) bool {
	for _, k := range r.failed {
		fmt.Fprintf(w, "\n=== FAILED %s %s (%s)\n%s", k.pkg, k.test, k.step, strings.Join(r.output[k], ""))
	}
	for _, k := range r.pkgFail {
		if hasFailedTest(r.failed, k) {
			continue
		}
		fmt.Fprintf(w, "\n=== FAILED package %s (%s)\n%s%s", k.pkg, k.step, strings.Join(r.output[k], ""), strings.Join(r.output[key{k.step, "", ""}], ""))
	}
	if len(r.skipped) > 0 {
		fmt.Fprintf(w, "\nSkipped (%d):\n", len(r.skipped))
		sort.Slice(r.skipped, func(i, j int) bool {
			a, b := r.skipped[i], r.skipped[j]
			return a.step+a.pkg+a.test < b.step+b.pkg+b.test
		})
		for _, k := range r.skipped {
			fmt.Fprintf(w, "  %-6s %s %s: %s\n", k.step, short(k.pkg), k.test, r.reasons[k])
		}
	}
	type slow struct {
		k key
		s float64
	}
	var slows []slow
	for k, s := range r.pkgs {
		slows = append(slows, slow{k, s})
	}
	sort.Slice(slows, func(i, j int) bool { return slows[i].s > slows[j].s })
	if len(slows) > 5 {
		slows = slows[:5]
	}
	if len(slows) > 0 {
		fmt.Fprintln(w, "\nSlowest packages:")
		for _, s := range slows {
			fmt.Fprintf(w, "  %-6s %s %v\n", s.k.step, short(s.k.pkg), time.Duration(s.s*float64(time.Second)).Round(10*time.Millisecond))
		}
	}
	failed := len(r.failed)
	if failed == 0 && len(r.pkgFail) > 0 {
		failed = len(r.pkgFail)
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped\n", r.passed, failed, len(r.skipped))
	return len(r.failed) > 0 || len(r.pkgFail) > 0
}

func hasFailedTest(failed []key, pkg key) bool {
	for _, k := range failed {
		if k.step == pkg.step && k.pkg == pkg.pkg {
			return true
		}
	}
	return false
}

func short(pkg string) string { return strings.TrimPrefix(pkg, "github.com/harkbox/hark/") }
