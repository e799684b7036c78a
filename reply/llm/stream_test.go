package llm

import (
	"bufio"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // past the reader's buffer
	r := bufio.NewReaderSize(strings.NewReader("{\"a\":1}\r\n"+long+"\nlast"), 16<<10)
	for i, want := range []string{`{"a":1}`, long, "last"} {
		got, err := readLine(r)
		if string(got) != want || (i < 2 && err != nil) {
			t.Errorf("line %d: %d bytes, %v; want %d bytes", i, len(got), err, len(want))
		}
	}
}
