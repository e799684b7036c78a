package pcm

// Mix returns b with its channel count changed to channels. Fewer channels are
// made by averaging (a stereo microphone pair becomes one mono signal); more
// are made by repeating the mono mix into every channel.
func Mix(b Buffer, channels int) Buffer {
	if channels == b.Channels {
		return Buffer{Rate: b.Rate, Channels: channels, Samples: append([]float32(nil), b.Samples...)}
	}
	frames := b.Frames()
	out := Buffer{Rate: b.Rate, Channels: channels, Samples: make([]float32, frames*channels)}
	for f := range frames {
		in := b.Samples[f*b.Channels : (f+1)*b.Channels]
		var mono float32
		if b.Channels == 1 {
			mono = in[0]
		} else {
			var sum float32
			for _, v := range in {
				sum += v
			}
			mono = sum / float32(b.Channels)
		}
		for c := range channels {
			out.Samples[f*channels+c] = mono
		}
	}
	return out
}

// Convert returns b at the given rate and channel count. Channels are mixed
// before resampling when that leaves fewer channels to filter, after otherwise.
func Convert(b Buffer, rate, channels int) Buffer {
	if channels <= b.Channels {
		return Resample(Mix(b, channels), rate)
	}
	return Mix(Resample(b, rate), channels)
}

// ToSpeech converts b to what speech recognition wants: 16 kHz mono.
func ToSpeech(b Buffer) Buffer { return Convert(b, SpeechRate, SpeechChannels) }

// Converter changes a live stream's rate and channel count piece by piece,
// keeping the resampler's history between pieces: what a capture device
// delivers becomes 16 kHz mono speech as it arrives. Not safe for
// concurrent use.
type Converter struct {
	fromCh, toCh int
	rs           *Resampler
}

// NewConverter converts interleaved audio of from to rate and channels.
func NewConverter(from Format, rate, channels int) *Converter {
	return &Converter{fromCh: from.Channels, toCh: channels, rs: NewResampler(from.Rate, rate, min(from.Channels, channels))}
}

// Process returns the converted samples of in (interleaved, whole frames)
// that are ready; the resampler holds back a few milliseconds until the
// next piece.
func (c *Converter) Process(in []float32) []float32 {
	b := Buffer{Channels: c.fromCh, Samples: in}
	if c.toCh <= c.fromCh {
		return c.rs.Process(Mix(b, c.toCh).Samples)
	}
	return Mix(Buffer{Channels: c.fromCh, Samples: c.rs.Process(in)}, c.toCh).Samples
}
