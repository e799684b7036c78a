package box

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/harkbox/hark/device/control"
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
	var w memFile
	if err := pcm.WriteWAV(&w, b, 16); err != nil {
		return nil, fmt.Errorf("box: write the WAV: %w", err)
	}
	return w.b, nil
}

// memFile is an io.WriteSeeker in memory, for a WAV whose header is
// written last.
type memFile struct {
	b   []byte
	off int64
}

func (m *memFile) Write(p []byte) (int, error) {
	if end := m.off + int64(len(p)); end > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, end-int64(len(m.b)))...)
	}
	copy(m.b[m.off:], p)
	m.off += int64(len(p))
	return len(p), nil
}

func (m *memFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += m.off
	case io.SeekEnd:
		offset += int64(len(m.b))
	}
	if offset < 0 {
		return 0, errors.New("box: seek before the start")
	}
	m.off = offset
	return offset, nil
}
