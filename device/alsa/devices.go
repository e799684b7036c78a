package alsa

import (
	"context"
	"errors"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
)

// Mic is a running microphone: it delivers 16 kHz mono whatever the
// device gives (an INMP441 only gives 48 kHz stereo S32_LE), converting
// with pipeline/pcm's resampler.
type Mic struct {
	pcm     *PCM
	conv    *pcm.Converter
	raw     []float32
	pending []float32
}

// OpenMic opens and starts cfg's device for capture.
func OpenMic(cfg Config) (*Mic, error) {
	p, err := Open(Capture, cfg)
	if err != nil {
		return nil, err
	}
	f := p.Format()
	return &Mic{pcm: p, conv: pcm.NewConverter(f, pcm.SpeechRate, pcm.SpeechChannels),
		raw: make([]float32, p.Period()*f.Channels)}, nil
}

// Format is what the device delivers, before conversion.
func (c *Mic) Format() pcm.Format { return c.pcm.Format() }

// Xruns counts overruns: audio lost because Hark did not read in time.
func (c *Mic) Xruns() int { return c.pcm.Xruns() }

// Read fills p with 16 kHz mono audio, waiting for at least one sample,
// and returns how many it wrote; it returns ctx.Err() when ctx is done.
// After an overrun it returns no samples: a storm of them still shows
// the capture loop alive (the watchdog follows it).
func (c *Mic) Read(ctx context.Context, p []float32) (int, error) {
	for len(c.pending) == 0 {
		n, err := c.pcm.Read(ctx, c.raw)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, nil
		}
		c.pending = append(c.pending, c.conv.Process(c.raw[:n])...)
	}
	n := copy(p, c.pending)
	c.pending = c.pending[:copy(c.pending, c.pending[n:])]
	return n, nil
}

// Close stops the capture and releases the device.
func (c *Mic) Close() error { return c.pcm.Close() }

// Speaker plays replies on an ALSA device, opening it for each one. It is
// the pipeline's Speaker.
type Speaker struct {
	cfg Config
	// Gain, when set, scales what is played: the volume.
	Gain func() float32
}

// NewSpeaker plays on cfg's device.
func NewSpeaker(cfg Config, gain func() float32) *Speaker {
	return &Speaker{cfg: cfg, Gain: gain}
}

// Open opens the device for one reply.
func (s *Speaker) Open(ctx context.Context) (pipeline.Playback, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := Open(Playback, s.cfg)
	if err != nil {
		return nil, err
	}
	return &playback{pcm: p, gain: s.Gain}, nil
}

type playback struct {
	pcm     *PCM
	gain    func() float32
	scratch []float32
}

func (p *playback) Format() (rate, channels int) {
	f := p.pcm.Format()
	return f.Rate, f.Channels
}

// Write plays b, which is already in Format's rate and channels. A
// cancelled ctx drops what is queued at once: the barge-in.
func (p *playback) Write(ctx context.Context, b pcm.Buffer) error {
	samples := b.Samples
	if p.gain != nil {
		if g := p.gain(); g != 1 {
			p.scratch = append(p.scratch[:0], samples...)
			for i := range p.scratch {
				p.scratch[i] *= g
			}
			samples = p.scratch
		}
	}
	return p.pcm.Write(ctx, samples)
}

// Close lets the queued audio play out, or drops it when ctx is done, and
// releases the device.
func (p *playback) Close(ctx context.Context) error {
	var err error
	if ctx.Err() == nil {
		err = p.pcm.Drain(ctx)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			err = nil // dropped on purpose
		}
	} else {
		p.pcm.Drop()
	}
	return errors.Join(err, p.pcm.Close())
}
