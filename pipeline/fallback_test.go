package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/harkbox/hark/pipeline/voice"
)

type fixedTranscriber struct {
	t     voice.Transcript
	err   error
	calls int
}

func (f *fixedTranscriber) Transcribe(context.Context, voice.Utterance) (voice.Transcript, error) {
	f.calls++
	return f.t, f.err
}

func TestFallback(t *testing.T) {
	down := &fixedTranscriber{err: errors.New("connection refused")}
	local := &fixedTranscriber{t: voice.Transcript{Text: "hello"}}
	got, err := Fallback{Primary: down, Secondary: local}.Transcribe(t.Context(), voice.Utterance{})
	if err != nil || got.Text != "hello" || local.calls != 1 {
		t.Errorf("got %+v, %v", got, err)
	}
	silent := &fixedTranscriber{err: voice.ErrNoSpeech}
	local.calls = 0
	if _, err := (Fallback{Primary: silent, Secondary: local}).Transcribe(t.Context(), voice.Utterance{}); !errors.Is(err, voice.ErrNoSpeech) || local.calls != 0 {
		t.Errorf("silence went to the fallback: %v, %d calls", err, local.calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Fallback{Primary: down, Secondary: local}).Transcribe(ctx, voice.Utterance{}); local.calls != 0 || err == nil {
		t.Errorf("a cancelled turn went to the fallback")
	}
}
