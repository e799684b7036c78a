// Package memfile is a file in memory: an io.WriteSeeker for encoders that
// go back to finish a header, such as a WAV file's, when the file is sent
// over the wire rather than kept on disk.
package memfile

import (
	"errors"
	"io"
)

// File is an in-memory io.WriteSeeker; its zero value is empty and ready.
type File struct {
	b   []byte
	off int
}

// Bytes is what was written, sharing File's storage.
func (f *File) Bytes() []byte { return f.b }

// Write writes p at the offset, growing the file as needed.
func (f *File) Write(p []byte) (int, error) {
	if need := f.off + len(p); need > len(f.b) {
		f.b = append(f.b, make([]byte, need-len(f.b))...)
	}
	copy(f.b[f.off:], p)
	f.off += len(p)
	return len(p), nil
}

// Seek moves the offset, as io.Seeker does; past the end is allowed and
// a later Write fills the gap with zeros.
func (f *File) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += int64(f.off)
	case io.SeekEnd:
		off += int64(len(f.b))
	}
	if off < 0 {
		return 0, errors.New("memfile: seek before the start")
	}
	f.off = int(off)
	return off, nil
}
