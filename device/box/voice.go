package box

import (
	"context"
	"fmt"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/internal/memfile"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
)

// voiceResource is the box's voice as the API serves it: what the talk
// box on the page plays.
type voiceResource struct{ synth pipeline.Synthesizer }

var _ control.Voice = voiceResource{}

// maxSpoken bounds the text one request has said.
const maxSpoken = 2000

func (v voiceResource) WAV(ctx context.Context, text, language string) ([]byte, error) {
	if v.synth == nil {
		return nil, fmt.Errorf("%w: speech is off (tts.engine = \"off\")", control.ErrUnavailable)
	}
	if len(text) > maxSpoken {
		return nil, fmt.Errorf("%w: %d characters is more than one request says (at most %d)", control.ErrInvalid, len(text), maxSpoken)
	}
	if language != "" {
		ctx = locale.WithLanguage(ctx, language)
	}
	b, err := v.synth.Synthesize(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("%w: box: say it: %v", control.ErrUnavailable, err)
	}
	var w memfile.File
	if err := pcm.WriteWAV(&w, b, 16); err != nil {
		return nil, fmt.Errorf("box: write the WAV: %w", err)
	}
	return w.Bytes(), nil
}
