package whisper

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tiny is a whisper model's hyperparameters, shrunk: every tensor
// whisper.cpp expects, a few bytes each.
var tiny = hparams{vocab: 3, audioCtx: 2, audioState: 4, audioHead: 2, audioLayer: 1,
	textCtx: 2, textState: 4, textHead: 2, textLayer: 1, mels: 2, ftype: 1}

// fakeModel writes a well-formed ggml whisper file with hyperparameters h
// and every tensor it needs, zero-filled, in name order.
func fakeModel(h hparams, skip ...string) []byte {
	var b []byte
	put := func(v int32) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	put(ggmlMagic)
	for _, v := range []int32{h.vocab, h.audioCtx, h.audioState, h.audioHead, h.audioLayer, h.textCtx, h.textState, h.textHead, h.textLayer, h.mels, h.ftype} {
		put(v)
	}
	put(h.mels) // mel filters mels×3
	put(3)
	b = append(b, make([]byte, int(h.mels)*3*4)...)
	put(3) // vocabulary
	for _, w := range []string{"a", "bc", "def"} {
		put(int32(len(w)))
		b = append(b, w...)
	}
	specs := h.tensors()
	names := slices.Sorted(maps.Keys(specs))
	for _, name := range names {
		if slices.Contains(skip, name) {
			continue
		}
		s := specs[name]
		dims := 4
		for dims > 1 && s.ne[dims-1] == 1 {
			dims--
		}
		put(int32(dims))
		put(int32(len(name)))
		put(s.typ)
		n := int64(1)
		for _, d := range s.ne[:dims] {
			put(int32(d))
			n *= d
		}
		b = append(b, name...)
		size := tensorTypes[s.typ]
		b = append(b, make([]byte, n*size[0]/size[1])...)
	}
	return b
}

func TestCheckModel(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	good := fakeModel(tiny)
	tensorsStart := 4 + 11*4 + 8 + int(tiny.mels)*3*4 + 4 + (4 + 1) + (4 + 2) + (4 + 3)
	if err := CheckModel(write("good.bin", good)); err != nil {
		t.Errorf("a well-formed file: %v", err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut in tensor", good[:len(good)-10], "is truncated: tensor \"encoder.positional_embedding\"'s data ends at byte"},
		{"cut in vocab", good[:tensorsStart-2], "truncated (it ends in the vocabulary"},
		{"cut in tensor header", good[:tensorsStart+6], "truncated (it ends in the tensor headers"},
		{"cut in header", good[:20], "truncated (it ends in the header"},
		{"not a model", []byte("GGUF and other things entirely"), "is not a whisper.cpp ggml model"},
		{"empty", nil, "truncated"},
	} {
		err := CheckModel(write(tt.name, tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := CheckModel(filepath.Join(dir, "missing.bin")); err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing: %v", err)
	}
}

// TestCheckModelCatchesWhatWhisperAbortsOn: corruptions that make
// whisper.cpp abort, allocate without bound or misread are named.
func TestCheckModelCatchesWhatWhisperAbortsOn(t *testing.T) {
	dir := t.TempDir()
	with := func(f func(h *hparams)) []byte { h := tiny; f(&h); return fakeModel(h) }
	good := fakeModel(tiny)
	setI32 := func(b []byte, at int, v int32) []byte {
		c := slices.Clone(b)
		binary.LittleEndian.PutUint32(c[at:], uint32(v))
		return c
	}
	tensorsStart := 4 + 11*4 + 8 + int(tiny.mels)*3*4 + 4 + (4 + 1) + (4 + 2) + (4 + 3)
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"huge audio context", setI32(good, 8, 1<<30), "audio context 1073741824 is outside"},
		{"negative layers", setI32(good, 20, -3), "audio layers -3 is outside"},
		{"heads that do not divide", with(func(h *hparams) { h.audioHead = 3 }), "does not divide"},
		{"text state unlike audio", setI32(good, 28, 8), "text state 8 differs"},
		{"unknown file type", setI32(good, 44, 5), "file type 5"},
		{"mel filters for other bands", setI32(good, 48, 3), "mel filters 3×3 for 2 mel bands"},
		{"vocabulary larger than declared", setI32(good, 4+11*4+8+int(tiny.mels)*3*4, 70000), "70000 vocabulary entries"},
		{"token of absurd length", setI32(good, 4+11*4+8+int(tiny.mels)*3*4+4, 1<<28), "entry 0 is 268435456 bytes long"},
		{"tensor of the wrong type", setI32(good, tensorsStart+8, 0), "has type 0, want 1"},
		{"tensor of unknown type", setI32(good, tensorsStart+8, 99), "unknown type 99"},
		{"tensor of the wrong shape", setI32(good, tensorsStart+12, 5), "has shape [5"},
		{"tensor dimension zero", setI32(good, tensorsStart+12, 0), "tensor dimension 0"},
		{"too many dimensions", setI32(good, tensorsStart, 7), "bad tensor header"},
		{"tensor missing", fakeModel(tiny, "decoder.ln.bias"), "incomplete: 1 of its tensors are missing"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
		os.WriteFile(path, tt.data, 0o644)
		if err := CheckModel(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// Renamed: a tensor whisper.cpp does not know, and then one repeated.
	renamed := slices.Clone(good)
	i := bytes.Index(renamed, []byte("decoder.ln.bias"))
	copy(renamed[i:], "decoder.xx.bias")
	os.WriteFile(filepath.Join(dir, "renamed"), renamed, 0o644)
	if err := CheckModel(filepath.Join(dir, "renamed")); err == nil || !strings.Contains(err.Error(), `unknown or repeated tensor "decoder.xx.bias"`) {
		t.Errorf("renamed tensor: %v", err)
	}
}

// FuzzCheckModel mutates small models (a header, the mel filters, the
// vocabulary and a few tensors) in memory, thousands a second: CheckModel
// must never panic or run away on any of them.
func FuzzCheckModel(f *testing.F) {
	f.Add(fakeModel(tiny))
	good := fakeModel(tiny)
	f.Add(good[:len(good)/2])
	f.Add([]byte("lmgg"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkModel("fuzz", func() (io.ReadCloser, int64, error) {
			return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
		})
	})
}

func TestCheckSharedTestModels(t *testing.T) {
	for _, name := range []string{"for-tests-ggml-tiny.en.bin", "for-tests-ggml-tiny.bin"} {
		path := filepath.Join("..", "..", "..", "shared", "models", name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("%s not available: %v", name, err)
		}
		if err := CheckModel(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		cut := filepath.Join(t.TempDir(), name)
		os.WriteFile(cut, data[:len(data)/3], 0o644)
		if err := CheckModel(cut); err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s cut to a third: %v", name, err)
		}
	}
}

func TestCheckVADModel(t *testing.T) {
	vad := filepath.Join("..", "..", "..", "shared", "models", "ggml-silero-v6.2.0.bin")
	data, err := os.ReadFile(vad)
	if err != nil {
		t.Skipf("Silero VAD model not available: %v", err)
	}
	if err := CheckVADModel(vad); err != nil {
		t.Fatalf("the real VAD model: %v", err)
	}
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.bin")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	whisperModel := filepath.Join(dir, "ggml-tiny.bin")
	os.WriteFile(whisperModel, fakeModel(tiny), 0o644)
	for path, want := range map[string]string{
		truncated:                         "is truncated: tensor",
		whisperModel:                      "is not a Silero VAD model",
		filepath.Join(dir, "missing.bin"): "does not exist",
	} {
		if err := CheckVADModel(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
		}
	}
	if err := CheckModel(vad); err == nil {
		t.Error("the VAD model passed as a whisper model")
	}
}
