//go:build !whisper || !cgo

package whisper

import (
	"errors"
	"testing"

	"github.com/harkbox/hark/pipeline/voice"
)

func TestStubSaysItIsNotBuilt(t *testing.T) {
	if Built() {
		t.Fatal("Built() in a build without whisper")
	}
	if _, err := New(Options{Model: "x"}); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("New = %v, want ErrNotBuilt", err)
	}
	if f := Features(); f != nil {
		t.Errorf("Features = %v in a build without whisper.cpp", f)
	}
	var e *Engine
	if _, err := e.Transcribe(t.Context(), voice.Utterance{}); !errors.Is(err, ErrNotBuilt) {
		t.Errorf("Transcribe = %v", err)
	}
	t.Log("whisper tests skipped: built without the whisper tag; these check only the stub")
}
