package pipeline

import (
	"context"
	"errors"
	"testing"
)

type fixedTranscriber struct {
	t     Transcript
	err   error
	calls int
}

func (f *fixedTranscriber) Transcribe(context.Context, Utterance) (Transcript, error) {
	f.calls++
	return f.t, f.err
}

func TestFallback(t *testing.T) {
	down := &fixedTranscriber{err: errors.New("connection refused")}
	local := &fixedTranscriber{t: Transcript{Text: "hello"}}
	got, err := Fallback{Primary: down, Secondary: local}.Transcribe(t.Context(), Utterance{})
	if err != nil || got.Text != "hello" || local.calls != 1 {
		t.Errorf("got %+v, %v", got, err)
	}
	silent := &fixedTranscriber{err: ErrNoSpeech}
	local.calls = 0
	if _, err := (Fallback{Primary: silent, Secondary: local}).Transcribe(t.Context(), Utterance{}); !errors.Is(err, ErrNoSpeech) || local.calls != 0 {
		t.Errorf("silence went to the fallback: %v, %d calls", err, local.calls)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Fallback{Primary: down, Secondary: local}).Transcribe(ctx, Utterance{}); local.calls != 0 || err == nil {
		t.Errorf("a cancelled turn went to the fallback")
	}
}
