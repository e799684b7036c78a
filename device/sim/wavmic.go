package sim

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// WAVMic is a microphone that plays a WAV file as if it were spoken into it.
type WAVMic struct {
	audio    pcm.Buffer // 16 kHz mono
	realtime bool
}

var _ pipeline.Microphone = (*WAVMic)(nil)

// chunk is how much audio the simulated microphone delivers at a time.
const chunk = 20 * time.Millisecond

// NewWAVMic reads path and converts it to speech format. With realtime set,
// each Record takes as long as the speech lasts, so the button can end it
// early; otherwise Record returns the whole file at once.
func NewWAVMic(path string, realtime bool) (*WAVMic, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sim: microphone file: %w", err)
	}
	defer f.Close()
	b, err := pcm.ReadWAV(f)
	if err != nil {
		return nil, fmt.Errorf("sim: microphone file %s: %w", path, err)
	}
	return &WAVMic{audio: pcm.ToSpeech(b), realtime: realtime}, nil
}

// Record delivers the file from the start until it ends, the button ends the
// utterance (returning what was heard so far), or ctx is done. In a
// follow-up window the simulated user says nothing: the window passes
// quietly.
func (m *WAVMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	end := l.End
	if l.FollowUp {
		timer := time.NewTimer(l.StartTimeout)
		defer timer.Stop()
		select {
		case <-ctx.Done():
			return voice.Utterance{}, ctx.Err()
		case <-end:
		case <-timer.C:
		}
		return voice.Utterance{}, voice.ErrNoSpeech
	}
	total := m.audio.Frames()
	if !m.realtime {
		if err := ctx.Err(); err != nil {
			return voice.Utterance{}, err
		}
		return voice.Utterance{Audio: m.audio}, nil
	}
	step := pcm.FramesIn(chunk, m.audio.Rate)
	tick := time.NewTicker(chunk)
	defer tick.Stop()
	heard := 0
	for heard < total {
		select {
		case <-ctx.Done():
			return voice.Utterance{}, ctx.Err()
		case <-end:
			return m.heard(heard)
		case <-tick.C:
			heard = min(heard+step, total)
		}
	}
	return m.heard(heard)
}

func (m *WAVMic) heard(frames int) (voice.Utterance, error) {
	if frames == 0 {
		return voice.Utterance{}, voice.ErrNoSpeech
	}
	return voice.Utterance{Audio: m.audio.Slice(0, frames)}, nil
}
