package pipeline

import (
	"context"
	"errors"
	"log/slog"

	"github.com/harkbox/hark/pipeline/voice"
)

// Fallback is a Transcriber that asks Primary and, when it fails for any
// reason but silence or cancellation, Secondary: a speech-to-text server on
// the LAN first, the box's own engine when the server is down.
type Fallback struct {
	Primary, Secondary Transcriber
	Log                *slog.Logger
}

var _ Transcriber = Fallback{}

// Transcribe asks Primary, then Secondary.
func (f Fallback) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	t, err := f.Primary.Transcribe(ctx, u)
	if err == nil || errors.Is(err, voice.ErrNoSpeech) || ctx.Err() != nil || f.Secondary == nil {
		return t, err
	}
	if f.Log != nil {
		f.Log.Warn("speech-to-text failed; using the fallback", "err", err)
	}
	return f.Secondary.Transcribe(ctx, u)
}
