package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
)

// WAVSpeaker is a speaker that writes each reply to a WAV file in a
// directory, keeping the newest few.
type WAVSpeaker struct {
	o SpeakerOptions
}

// SpeakerOptions configure a WAVSpeaker.
type SpeakerOptions struct {
	// Dir receives the files, named reply-<time>.wav.
	Dir string
	// Rate and Channels are the speaker's format; default 48000 Hz stereo, as
	// a board's DAC takes it, so replies go through the same conversion.
	Rate, Channels int
	// Realtime makes playback take as long as the audio, so a press can cut
	// a reply short; otherwise writing is immediate.
	Realtime bool
	// Keep is how many reply files to keep; default 20.
	Keep int
	// Now is the clock for file names; default time.Now.
	Now func() time.Time
	// Gain scales what is played: the volume. Nil plays at full scale.
	Gain func() float32
	// MaxLength caps what one file keeps (a ringing alert can play for 15
	// minutes); playback goes on, unrecorded. Default 2 minutes.
	MaxLength time.Duration
}

var _ pipeline.Speaker = (*WAVSpeaker)(nil)

// NewWAVSpeaker returns a speaker writing into o.Dir.
func NewWAVSpeaker(o SpeakerOptions) *WAVSpeaker {
	if o.Rate == 0 {
		o.Rate = 48000
	}
	if o.Channels == 0 {
		o.Channels = 2
	}
	if o.Keep == 0 {
		o.Keep = 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxLength == 0 {
		o.MaxLength = 2 * time.Minute
	}
	return &WAVSpeaker{o: o}
}

// Open starts a new reply file. Where none can be written (the data
// directory on a card that turned read-only) it plays unrecorded: the
// simulated speaker is not the card.
func (s *WAVSpeaker) Open(ctx context.Context) (pipeline.Playback, error) {
	if err := os.MkdirAll(s.o.Dir, 0o755); err != nil {
		return &wavPlayback{s: s}, nil
	}
	name := filepath.Join(s.o.Dir, "reply-"+s.o.Now().Format("20060102-150405.000")+".wav")
	f, err := os.Create(name)
	if err != nil {
		return &wavPlayback{s: s}, nil
	}
	w, err := pcm.NewWAVWriter(f, s.o.Rate, s.o.Channels, 16)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sim: speaker: %w", err)
	}
	return &wavPlayback{s: s, f: f, w: w}, nil
}

type wavPlayback struct {
	s       *WAVSpeaker
	f       *os.File
	w       *pcm.WAVWriter
	written int // frames in the file
}

func (p *wavPlayback) Format() (int, int) { return p.s.o.Rate, p.s.o.Channels }

// Write plays b into the file. In real time it writes 20 ms at a time and
// waits while each plays, stopping at once, with only what was heard written,
// when ctx is done.
func (p *wavPlayback) Write(ctx context.Context, b pcm.Buffer) error {
	if b.Rate != p.s.o.Rate || b.Channels != p.s.o.Channels {
		return fmt.Errorf("sim: speaker: got %d Hz %dch audio, plays %d Hz %dch", b.Rate, b.Channels, p.s.o.Rate, p.s.o.Channels)
	}
	if g := p.s.o.Gain; g != nil {
		gain := g()
		scaled := pcm.Buffer{Rate: b.Rate, Channels: b.Channels, Samples: make([]float32, len(b.Samples))}
		for i, v := range b.Samples {
			scaled.Samples[i] = v * gain
		}
		b = scaled
	}
	if !p.s.o.Realtime {
		if err := ctx.Err(); err != nil {
			return err
		}
		return p.record(b)
	}
	step := pcm.FramesIn(chunk, b.Rate)
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	for f := 0; f < b.Frames(); f += step {
		if err := p.record(b.Slice(f, min(f+step, b.Frames()))); err != nil {
			return err
		}
		timer.Reset(chunk)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
	return nil
}

// record appends b to the file, up to MaxLength.
func (p *wavPlayback) record(b pcm.Buffer) error {
	if p.w == nil {
		return nil
	}
	room := pcm.FramesIn(p.s.o.MaxLength, b.Rate) - p.written
	if room <= 0 {
		return nil
	}
	if b.Frames() > room {
		b = b.Slice(0, room)
	}
	p.written += b.Frames()
	return p.w.Write(b)
}

// Close finishes the file, which holds what was played, and prunes old ones.
func (p *wavPlayback) Close(ctx context.Context) error {
	if p.w == nil {
		return nil
	}
	err := p.w.Close()
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sim: speaker: %w", err)
	}
	return p.s.prune()
}

func (s *WAVSpeaker) prune() error {
	entries, err := os.ReadDir(s.o.Dir)
	if err != nil {
		return fmt.Errorf("sim: speaker: %w", err)
	}
	var replies []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "reply-") && strings.HasSuffix(e.Name(), ".wav") {
			replies = append(replies, e.Name())
		}
	}
	slices.Sort(replies)
	for len(replies) > s.o.Keep {
		if err := os.Remove(filepath.Join(s.o.Dir, replies[0])); err != nil {
			return fmt.Errorf("sim: speaker: %w", err)
		}
		replies = replies[1:]
	}
	return nil
}
