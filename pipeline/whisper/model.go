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

// CheckModel reads a whisper.cpp model file through without loading it, and
// says what is wrong, so that whisper.cpp, which aborts the process or
// allocates without bound on many corruptions, never sees a bad file: the
// header's hyperparameters in sane ranges and consistent with each other,
// the mel filters, the vocabulary, and every tensor (a name whisper.cpp
// expects for these hyperparameters, once, with the exact type and shape it
// expects, its data inside the file), then the file's end. whisper.cpp
// accepts a model with no tensors at all (its test models); so does this.
func CheckModel(path string) error {
	if path == "" {
		return errors.New("whisper: no model file configured")
	}
	return checkModel(path, fileSource(path, "model"))
}

// checkModel is CheckModel over what src opens (the fuzz target's bytes).
func checkModel(path string, src source) error {
	var hp hparams
	var want map[string]tensorSpec
	return check(path, "model", src, func(r *reader) error {
		for _, v := range []*int32{&hp.vocab, &hp.audioCtx, &hp.audioState, &hp.audioHead, &hp.audioLayer,
			&hp.textCtx, &hp.textState, &hp.textHead, &hp.textLayer, &hp.mels, &hp.ftype} {
			*v = r.i32()
		}
		if r.err != nil {
			return nil
		}
		if err := hp.check(); err != nil {
			return fmt.Errorf("whisper: model %s is corrupt: %w", path, err)
		}
		r.section = "mel filters"
		nMel, nFFT := r.i32(), r.i32()
		if r.err == nil && (nMel != hp.mels || nFFT < 1 || nFFT > 4096) {
			return fmt.Errorf("whisper: model %s is corrupt: mel filters %d×%d for %d mel bands", path, nMel, nFFT, hp.mels)
		}
		r.skip(int64(nMel)*int64(nFFT)*4, "mel filters")
		r.section = "vocabulary"
		nVocab := r.i32()
		if r.err == nil && (nVocab < 0 || nVocab > hp.vocab) {
			return fmt.Errorf("whisper: model %s is corrupt: %d vocabulary entries for a vocabulary of %d", path, nVocab, hp.vocab)
		}
		for i := int32(0); i < nVocab && r.err == nil; i++ {
			n := r.i32()
			if r.err == nil && (n < 0 || n > 256) {
				return fmt.Errorf("whisper: model %s is corrupt: vocabulary entry %d is %d bytes long", path, i, n)
			}
			r.skip(int64(n), "vocabulary")
		}
		want = hp.tensors()
		return nil
	}, func(name string, typ int32, ne []int64) error {
		spec, ok := want[name]
		if !ok {
			return fmt.Errorf("unknown or repeated tensor %q", name)
		}
		delete(want, name)
		if typ != spec.typ {
			return fmt.Errorf("tensor %q has type %d, want %d", name, typ, spec.typ)
		}
		for i := range 4 {
			got := int64(1)
			if i < len(ne) {
				got = ne[i]
			}
			if got != spec.ne[i] {
				return fmt.Errorf("tensor %q has shape %v, want %v", name, ne, spec.ne)
			}
		}
		return nil
	}, func(loaded int) error {
		if loaded > 0 && len(want) > 0 {
			return fmt.Errorf("whisper: model %s is incomplete: %d of its tensors are missing", path, len(want))
		}
		return nil
	})
}

// hparams are a whisper model's hyperparameters, as the file stores them.
type hparams struct {
	vocab, audioCtx, audioState, audioHead, audioLayer int32
	textCtx, textState, textHead, textLayer, mels      int32
	ftype                                              int32
}

// ftypes maps a model's file type (modulo the quantization version) to the
// ggml type of its weight matrices, as whisper.cpp does.
var ftypes = map[int32]int32{0: 0, 1: 1, 2: 2, 3: 3, 7: 8, 8: 6, 9: 7, 10: 10, 11: 11, 12: 12, 13: 13, 14: 14}

func (h hparams) check() error {
	in := func(name string, v, lo, hi int32) error {
		if v < lo || v > hi {
			return fmt.Errorf("%s %d is outside %d..%d", name, v, lo, hi)
		}
		return nil
	}
	for _, err := range []error{
		in("vocabulary size", h.vocab, 1, 1<<18),
		in("audio context", h.audioCtx, 1, 1<<13),
		in("audio state", h.audioState, 1, 1<<13),
		in("audio heads", h.audioHead, 1, 128),
		in("audio layers", h.audioLayer, 1, 128),
		in("text context", h.textCtx, 1, 1<<13),
		in("text state", h.textState, 1, 1<<13),
		in("text heads", h.textHead, 1, 128),
		in("text layers", h.textLayer, 1, 128),
		in("mel bands", h.mels, 1, 512),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case h.textState != h.audioState:
		return fmt.Errorf("text state %d differs from audio state %d", h.textState, h.audioState)
	case h.audioState%h.audioHead != 0 || h.textState%h.textHead != 0:
		return fmt.Errorf("state %d does not divide into %d/%d heads", h.audioState, h.audioHead, h.textHead)
	}
	if _, ok := ftypes[h.ftype%1000]; !ok || h.ftype < 0 {
		return fmt.Errorf("file type %d is not one whisper.cpp knows", h.ftype)
	}
	return nil
}

// tensorSpec is the type and shape whisper.cpp expects of a tensor.
type tensorSpec struct {
	typ int32
	ne  [4]int64
}

// tensors is every tensor whisper.cpp expects for h, by name.
func (h hparams) tensors() map[string]tensorSpec {
	const f32, f16 = 0, 1
	w := ftypes[h.ftype%1000]
	conv := int32(f16)
	if w == f32 {
		conv = f32
	}
	s, ts := int64(h.audioState), int64(h.textState)
	m := map[string]tensorSpec{}
	add := func(name string, typ int32, ne ...int64) {
		spec := tensorSpec{typ: typ, ne: [4]int64{1, 1, 1, 1}}
		copy(spec.ne[:], ne)
		m[name] = spec
	}
	add("encoder.positional_embedding", f32, s, int64(h.audioCtx))
	add("encoder.conv1.weight", conv, 3, int64(h.mels), s)
	add("encoder.conv1.bias", f32, 1, s)
	add("encoder.conv2.weight", conv, 3, s, s)
	add("encoder.conv2.bias", f32, 1, s)
	add("encoder.ln_post.weight", f32, s)
	add("encoder.ln_post.bias", f32, s)
	block := func(prefix string, n int64, cross bool) {
		add(prefix+"mlp_ln.weight", f32, n)
		add(prefix+"mlp_ln.bias", f32, n)
		add(prefix+"mlp.0.weight", w, n, 4*n)
		add(prefix+"mlp.0.bias", f32, 4*n)
		add(prefix+"mlp.2.weight", w, 4*n, n)
		add(prefix+"mlp.2.bias", f32, n)
		attn := []string{"attn"}
		if cross {
			attn = append(attn, "cross_attn")
		}
		for _, a := range attn {
			add(prefix+a+"_ln.weight", f32, n)
			add(prefix+a+"_ln.bias", f32, n)
			add(prefix+a+".query.weight", w, n, n)
			add(prefix+a+".query.bias", f32, n)
			add(prefix+a+".key.weight", w, n, n)
			add(prefix+a+".value.weight", w, n, n)
			add(prefix+a+".value.bias", f32, n)
			add(prefix+a+".out.weight", w, n, n)
			add(prefix+a+".out.bias", f32, n)
		}
	}
	for i := range h.audioLayer {
		block(fmt.Sprintf("encoder.blocks.%d.", i), s, false)
	}
	add("decoder.positional_embedding", f32, ts, int64(h.textCtx))
	add("decoder.token_embedding.weight", w, ts, int64(h.vocab))
	add("decoder.ln.weight", f32, ts)
	add("decoder.ln.bias", f32, ts)
	for i := range h.textLayer {
		block(fmt.Sprintf("decoder.blocks.%d.", i), ts, true)
	}
	return m
}

// CheckVADModel does for a Silero VAD model what CheckModel does for a
// whisper model; whisper.cpp aborts the process on a file of the wrong kind.
func CheckVADModel(path string) error {
	return checkHeader(path, "VAD model", func(r *reader) error {
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

// checkHeader opens a ggml file, checks its magic, reads the
// kind-specific header with header, then walks the tensors to the end of
// the file.
func checkHeader(path, what string, header func(*reader) error) error {
	return check(path, what, fileSource(path, what), header, nil, nil)
}

// check is checkHeader over what src opens, with two more checks: tensor,
// when set, judges each tensor's name, ggml type and shape; done, when
// set, the whole once every tensor was read, given how many there were.
func check(path, what string, src source, header func(*reader) error, tensor func(name string, typ int32, ne []int64) error, done func(loaded int) error) error {
	f, size, err := src()
	if err != nil {
		return err
	}
	defer f.Close()
	r := &reader{r: bufio.NewReader(f), size: size, section: "header"}
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
	loaded := 0
	for r.err == nil && r.pos < r.size {
		nDims, nameLen, typ := r.i32(), r.i32(), r.i32()
		if r.err != nil {
			break
		}
		if nDims < 0 || nDims > 4 || nameLen < 1 || nameLen > 256 {
			return fmt.Errorf("whisper: %s %s is corrupt at byte %d (bad tensor header)", what, path, r.pos)
		}
		ne := make([]int64, nDims)
		n := int64(1)
		for i := range ne {
			ne[i] = int64(r.i32())
			if r.err == nil && (ne[i] < 1 || ne[i] > 1<<24) {
				return fmt.Errorf("whisper: %s %s is corrupt at byte %d (tensor dimension %d)", what, path, r.pos, ne[i])
			}
			n *= ne[i]
		}
		name := string(r.bytes(int(nameLen), "tensor name"))
		if r.err != nil {
			break
		}
		size, ok := tensorTypes[typ]
		if !ok {
			if tensor != nil {
				return fmt.Errorf("whisper: %s %s is corrupt: tensor %q has unknown type %d", what, path, name, typ)
			}
			break // a type this check does not know: leave the rest to whisper.cpp
		}
		if tensor != nil {
			if err := tensor(name, typ, ne); err != nil {
				return fmt.Errorf("whisper: %s %s is corrupt: %w", what, path, err)
			}
		}
		if n%size[1] != 0 {
			return fmt.Errorf("whisper: %s %s is corrupt: tensor %q has %d elements, not whole blocks of %d", what, path, name, n, size[1])
		}
		if end := r.pos + n*size[0]/size[1]; end > r.size {
			return fmt.Errorf("whisper: %s %s is truncated: tensor %q's data ends at byte %d, past the file's end at %d", what, path, name, end, r.size)
		}
		r.skip(n*size[0]/size[1], "tensor data")
		loaded++
	}
	if r.err != nil {
		if errors.Is(r.err, io.ErrUnexpectedEOF) || errors.Is(r.err, io.EOF) {
			return fmt.Errorf("whisper: %s %s is truncated (it ends in the %s at byte %d)", what, path, r.where, r.pos)
		}
		return fmt.Errorf("whisper: %s %s: %w", what, path, r.err)
	}
	if done != nil {
		return done(loaded)
	}
	return nil
}

// reader reads little-endian values and remembers the first error.
// source opens what is checked and tells its size.
type source func() (io.ReadCloser, int64, error)

// fileSource opens the file at path, a what ("model").
func fileSource(path, what string) source {
	return func() (io.ReadCloser, int64, error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("whisper: %s file %s does not exist: %w", what, path, err)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("whisper: %s: %w", what, err)
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("whisper: %s: %w", what, err)
		}
		return f, info.Size(), nil
	}
}

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
