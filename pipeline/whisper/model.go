package whisper

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// ggmlMagic starts every whisper.cpp model file ("ggml", little-endian).
const ggmlMagic = 0x67676d6c

// tensorType is a ggml tensor type's bytes per block and elements per block.
var tensorTypes = map[int32][2]int64{
	0: {4, 1}, 1: {2, 1}, 30: {2, 1}, // F32, F16, BF16
	2: {18, 32}, 3: {20, 32}, 6: {22, 32}, 7: {24, 32}, 8: {34, 32}, 9: {36, 32}, // Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1
	10: {84, 256}, 11: {110, 256}, 12: {144, 256}, 13: {176, 256}, 14: {210, 256}, 15: {292, 256}, // K-quants
}

// CheckModel reads a whisper.cpp model file's structure (header, mel
// filters, vocabulary, and each tensor's header and data) without loading
// it, and says what is wrong: missing, not a ggml model, or truncated.
// whisper.cpp itself accepts a file cut short in its vocabulary.
func CheckModel(path string) error {
	if path == "" {
		return errors.New("whisper: no model file configured")
	}
	return check(path, "model", func(r *reader) error {
		var hp [11]int32 // vocab, audio ctx/state/head/layer, text ctx/state/head/layer, mels, ftype
		for i := range hp {
			hp[i] = r.i32()
		}
		r.section = "mel filters"
		nMel, nFFT := r.i32(), r.i32()
		r.skip(int64(nMel)*int64(nFFT)*4, "mel filters")
		r.section = "vocabulary"
		nVocab := r.i32()
		for i := int32(0); i < nVocab && r.err == nil; i++ {
			r.skip(int64(r.i32()), "vocabulary")
		}
		if r.err == nil && (hp[0] <= 0 || hp[9] <= 0) {
			return fmt.Errorf("whisper: model %s is corrupt (vocabulary %d, mel bands %d)", path, hp[0], hp[9])
		}
		return nil
	})
}

// CheckVADModel does for a Silero VAD model what CheckModel does for a
// whisper model; whisper.cpp aborts the process on a file of the wrong kind.
func CheckVADModel(path string) error {
	return check(path, "VAD model", func(r *reader) error {
		n := r.i32()
		if r.err != nil {
			return nil
		}
		if n < 1 || n > 64 {
			return fmt.Errorf("whisper: %s is not a Silero VAD model", path)
		}
		kind := r.bytes(int(n), "model type")
		if r.err == nil && !strings.HasPrefix(string(kind), "silero") {
			return fmt.Errorf("whisper: %s is not a Silero VAD model (it is %q)", path, kind)
		}
		for range 5 { // version (3), window, context
			r.i32()
		}
		layers := r.i32()
		if r.err == nil && (layers < 1 || layers > 16) {
			return fmt.Errorf("whisper: VAD model %s is corrupt (%d encoder layers)", path, layers)
		}
		for range layers*3 + 4 { // in, out, kernel per layer; LSTM and final sizes
			r.i32()
		}
		return nil
	})
}

// check opens a ggml file, checks its magic, reads the kind-specific
// header with header, then walks the tensors to the end of the file.
func check(path, what string, header func(*reader) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("whisper: %s file %s does not exist: %w", what, path, err)
	}
	if err != nil {
		return fmt.Errorf("whisper: %s: %w", what, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("whisper: %s: %w", what, err)
	}
	r := &reader{r: bufio.NewReader(f), size: info.Size(), section: "header"}
	if r.i32() != ggmlMagic && r.err == nil {
		if what == "model" {
			return fmt.Errorf("whisper: %s is not a whisper.cpp ggml model", path)
		}
		return fmt.Errorf("whisper: %s is not a ggml %s", path, what)
	}
	if err := header(r); err != nil {
		return err
	}
	r.section = "tensor headers"
	for r.err == nil && r.pos < r.size {
		nDims, nameLen, typ := r.i32(), r.i32(), r.i32()
		if r.err != nil {
			break
		}
		if nDims < 0 || nDims > 4 || nameLen < 0 || nameLen > 1024 {
			return fmt.Errorf("whisper: %s %s is corrupt at byte %d (bad tensor header)", what, path, r.pos)
		}
		n := int64(1)
		for range nDims {
			n *= int64(r.i32())
		}
		r.skip(int64(nameLen), "tensor name")
		size, ok := tensorTypes[typ]
		if !ok {
			break // a type this check does not know: leave the rest to whisper.cpp
		}
		r.skip(n*size[0]/size[1], "tensor data")
	}
	if r.err != nil {
		if errors.Is(r.err, io.ErrUnexpectedEOF) || errors.Is(r.err, io.EOF) {
			return fmt.Errorf("whisper: %s %s is truncated (it ends in the %s at byte %d)", what, path, r.where, r.pos)
		}
		return fmt.Errorf("whisper: %s %s: %w", what, path, r.err)
	}
	return nil
}

// reader reads little-endian values and remembers the first error.
type reader struct {
	r       *bufio.Reader
	pos     int64
	size    int64
	err     error
	where   string // where the file ended
	section string // what is being read
}

func (r *reader) i32() int32 {
	if r.err != nil {
		return 0
	}
	var v int32
	if err := binary.Read(r.r, binary.LittleEndian, &v); err != nil {
		r.err, r.where = io.ErrUnexpectedEOF, r.section
		return 0
	}
	r.pos += 4
	return v
}

func (r *reader) bytes(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err, r.where = io.ErrUnexpectedEOF, what
		return nil
	}
	r.pos += int64(n)
	return b
}

func (r *reader) skip(n int64, what string) {
	if r.err != nil {
		return
	}
	if n < 0 || r.pos+n > r.size {
		r.err, r.where = io.ErrUnexpectedEOF, what
		return
	}
	if _, err := r.r.Discard(int(n)); err != nil {
		r.err, r.where = err, what
		return
	}
	r.pos += n
}
