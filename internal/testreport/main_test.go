package main

import (
	"strings"
	"testing"
)

const events = `{"Action":"run","Package":"p/a","Test":"TestOK"}
{"Action":"pass","Package":"p/a","Test":"TestOK","Elapsed":0.1}
{"Action":"run","Package":"p/a","Test":"TestSkip"}
{"Action":"output","Package":"p/a","Test":"TestSkip","Output":"=== RUN   TestSkip\n"}
{"Action":"output","Package":"p/a","Test":"TestSkip","Output":"    a_test.go:12: no libwhisper in build/whisper/host\n"}
{"Action":"output","Package":"p/a","Test":"TestSkip","Output":"--- SKIP: TestSkip (0.00s)\n"}
{"Action":"skip","Package":"p/a","Test":"TestSkip"}
{"Action":"pass","Package":"p/a","Elapsed":1.5}
{"Action":"run","Package":"p/b","Test":"TestBad"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"    b_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p/b","Test":"TestBad"}
{"Action":"fail","Package":"p/b","Elapsed":0.2}
{"Action":"skip","Package":"p/c"}
`

func TestReport(t *testing.T) {
	r := newReport()
	r.step = "unit"
	if err := r.read(strings.NewReader(events)); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	failed := r.write(&out)
	got := out.String()
	if !failed {
		t.Error("a failed test must fail the report")
	}
	for _, want := range []string{
		"=== FAILED p/b TestBad (unit)\n    b_test.go:3: got 1, want 2\n",
		"  unit   p/a TestSkip: no libwhisper in build/whisper/host\n",
		"Slowest packages:\n  unit   p/a 1.5s\n",
		"\n1 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}

func TestBuildFailureFails(t *testing.T) {
	r := newReport()
	r.step = "unit"
	in := "# p/d\nd.go:1: syntax error\n" + `{"Action":"fail","Package":"p/d","Elapsed":0}` + "\n"
	if err := r.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if !r.write(&out) || !strings.Contains(out.String(), "syntax error") || !strings.Contains(out.String(), "0 passed, 1 failed") {
		t.Errorf("a package that did not build must fail and show why:\n%s", out.String())
	}
}
