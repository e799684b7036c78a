package whisper

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeModel writes a small, well-formed ggml whisper file with one F32
// tensor of n values.
func fakeModel(n int32) []byte {
	var b []byte
	put := func(v int32) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	put(ggmlMagic)
	for _, v := range []int32{3, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1} {
		put(v)
	}
	put(2) // mel filters 2×3
	put(3)
	b = append(b, make([]byte, 2*3*4)...)
	put(3) // vocabulary
	for _, w := range []string{"a", "bc", "def"} {
		put(int32(len(w)))
		b = append(b, w...)
	}
	put(1) // one tensor: 1 dim, name "w", F32
	put(1)
	put(0)
	put(n)
	b = append(b, 'w')
	return append(b, make([]byte, 4*n)...)
}

func TestCheckModel(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	good := fakeModel(100)
	if err := CheckModel(write("good.bin", good)); err != nil {
		t.Errorf("a well-formed file: %v", err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut in tensor", good[:len(good)-10], "truncated (it ends in the tensor data"},
		{"cut in vocab", good[:92], "truncated (it ends in the vocabulary"},
		{"cut in tensor header", good[:106], "truncated (it ends in the tensor headers"},
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
	os.WriteFile(whisperModel, fakeModel(16), 0o644)
	for path, want := range map[string]string{
		truncated:                         "is truncated (it ends in the tensor data",
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
