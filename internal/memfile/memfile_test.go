package memfile

import (
	"io"
	"testing"
)

func TestWriteSeekBack(t *testing.T) {
	var f File
	f.Write([]byte("....body"))
	f.Seek(0, io.SeekStart)
	f.Write([]byte("HEAD"))
	f.Seek(2, io.SeekEnd)
	f.Write([]byte("!"))
	if got, want := string(f.Bytes()), "HEADbody\x00\x00!"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := f.Seek(-1, io.SeekStart); err == nil {
		t.Error("a seek before the start was allowed")
	}
}
