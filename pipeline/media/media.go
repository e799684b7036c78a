// Package media lends the box's speech engines to whoever sends whole
// recordings and texts over the wire: a WAV file in, its words out
// (whisper.cpp); a text in, 16-bit PCM out (espeak-ng or a Wyoming voice).
// The command center serves its nodes with Transcriber and Voice, which
// satisfy reply/center's interfaces of the same names; a node without
// speech-to-text of its own sends its utterances to the center through
// Remote, a pipeline Transcriber.
package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/harkbox/hark/internal/memfile"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Engine is a speech-to-text engine: the box's whisper.cpp engine, or the
// guarded one around it.
type Engine interface {
	// Transcribe returns the words of u, or voice.ErrNoSpeech.
	Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error)
}

// Transcriber transcribes WAV files with an Engine. The engine's own
// language setting rules; the caller's hint is not used.
type Transcriber struct {
	Engine Engine
	// MaxAudio bounds a recording; default 60 s.
	MaxAudio time.Duration
}

// ErrTooLong reports a recording over MaxAudio.
var ErrTooLong = errors.New("media: the recording is too long")

// Transcribe returns the words of wav and their language; no speech is an
// empty text.
func (t Transcriber) Transcribe(ctx context.Context, wav []byte, _ string) (text, language string, err error) {
	b, err := pcm.ReadWAV(bytes.NewReader(wav))
	if err != nil {
		return "", "", fmt.Errorf("media: %w", err)
	}
	limit := t.MaxAudio
	if limit == 0 {
		limit = time.Minute
	}
	if b.Duration() > limit {
		return "", "", fmt.Errorf("%w: %.1f s, over %v", ErrTooLong, b.Duration().Seconds(), limit)
	}
	tr, err := t.Engine.Transcribe(ctx, voice.Utterance{Audio: pcm.ToSpeech(b)})
	if errors.Is(err, voice.ErrNoSpeech) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("media: transcribe: %w", err)
	}
	return tr.Text, tr.Language, nil
}

// Synthesizer is a voice: espeak-ng, a Wyoming server, or the one that
// falls back from the second to the first.
type Synthesizer interface {
	// Synthesize returns text spoken, at the engine's own rate.
	Synthesize(ctx context.Context, text string) (pcm.Buffer, error)
}

// Voice speaks text with a Synthesizer, always at one rate, mono.
type Voice struct {
	Synth Synthesizer
	// Rate is the rate of every answer; default 22050 Hz, espeak-ng's and
	// Piper's own.
	Rate int
}

// Speak writes text spoken to w as 16-bit little-endian mono PCM.
func (v Voice) Speak(ctx context.Context, text string, w io.Writer) (rate, channels int, err error) {
	rate = v.Rate
	if rate == 0 {
		rate = 22050
	}
	b, err := v.Synth.Synthesize(ctx, text)
	if err != nil {
		return 0, 0, fmt.Errorf("media: speak: %w", err)
	}
	b = pcm.Convert(b, rate, 1)
	if _, err := w.Write(pcm.Encode(nil, b.Samples, pcm.S16LE)); err != nil {
		return 0, 0, fmt.Errorf("media: speak: %w", err)
	}
	return rate, 1, nil
}

// Center is the command center's speech-to-text, as reply/center's Client
// offers it.
type Center interface {
	Transcribe(ctx context.Context, wav []byte, language string) (text, detected string, err error)
}

// Remote is speech-to-text on the command center, for a node that has
// none of its own: each utterance goes up as a 16 kHz 16-bit WAV file.
type Remote struct {
	Center Center
	// Language is a hint for the center; "" to let it detect.
	Language string
}

// Transcribe returns the words of u as the center heard them, or
// voice.ErrNoSpeech.
func (r Remote) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	var f memfile.File
	if err := pcm.WriteWAV(&f, pcm.ToSpeech(u.Audio), 16); err != nil {
		return voice.Transcript{}, fmt.Errorf("media: %w", err)
	}
	text, lang, err := r.Center.Transcribe(ctx, f.Bytes(), r.Language)
	switch {
	case err != nil:
		return voice.Transcript{}, fmt.Errorf("media: the center's speech-to-text: %w", err)
	case text == "":
		return voice.Transcript{}, voice.ErrNoSpeech
	}
	return voice.Transcript{Text: text, Language: lang}, nil
}
