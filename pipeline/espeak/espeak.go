// Package espeak speaks text with the espeak-ng program: small, fast on a Pi
// Zero, and in every distribution. The pipeline uses it as its Synthesizer.
package espeak

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
)

// ErrNotInstalled reports that the espeak-ng program was not found.
var ErrNotInstalled = errors.New("espeak: espeak-ng is not installed")

// Options configure an Engine. The zero value speaks English at the normal
// rate and pitch.
type Options struct {
	// Program is the espeak-ng executable; default "espeak-ng" on PATH.
	Program string
	// Voice is an espeak-ng voice or language ("en", "en-us", "de"); default "en".
	Voice string
	// Rate is the speed in words per minute (80–450); default 175.
	Rate int
	// Pitch is 0–99; default 50.
	Pitch int
	// Voices maps a language code to the espeak-ng voice that speaks it,
	// over DefaultVoices.
	Voices map[string]string
	// Log receives one line per voice espeak-ng turned out not to have.
	// Nil discards.
	Log *slog.Logger
}

// DefaultVoices are the espeak-ng voices of the languages Hark speaks
// offline besides the configured voice's own.
var DefaultVoices = map[string]string{"en": "en", "de": "de", "fr": "fr-fr", "es": "es"}

// Engine synthesizes speech by running espeak-ng once per sentence.
type Engine struct {
	path   string
	voice  string
	voices map[string]string
	args   []string
	log    *slog.Logger
	failed sync.Map // voices espeak-ng does not have, logged once
}

// New finds espeak-ng and returns an Engine, or ErrNotInstalled.
func New(o Options) (*Engine, error) {
	if o.Program == "" {
		o.Program = "espeak-ng"
	}
	if o.Voice == "" {
		o.Voice = "en"
	}
	if o.Rate == 0 {
		o.Rate = 175
	}
	if o.Pitch == 0 {
		o.Pitch = 50
	}
	path, err := exec.LookPath(o.Program)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotInstalled, err)
	}
	voices := maps.Clone(DefaultVoices)
	maps.Copy(voices, o.Voices)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Engine{path: path, voice: o.Voice, voices: voices, log: o.Log, args: []string{
		"--stdout", "--stdin", "-z", "-b", "1",
		"-s", strconv.Itoa(o.Rate), "-p", strconv.Itoa(o.Pitch),
	}}, nil
}

// voiceFor is the configured voice, or the voice of the language the turn
// was heard in (voice.Language) when that is another language: a question
// asked in German is answered in a German voice. A language without a
// voice in the map is tried by its code.
func (e *Engine) voiceFor(ctx context.Context) string {
	lang := strings.ToLower(locale.LanguageOf(ctx))
	if lang == "" || primary(lang) == primary(e.voice) {
		return e.voice
	}
	if v, ok := e.voices[lang]; ok {
		return v
	}
	if v, ok := e.voices[primary(lang)]; ok {
		return v
	}
	return lang
}

func primary(tag string) string {
	p, _, _ := strings.Cut(strings.ToLower(tag), "-")
	return p
}

// Synthesize returns text spoken, as espeak-ng makes it (22.05 kHz mono),
// in the voice of the turn's language when espeak-ng has one and the
// configured voice otherwise. The text goes in on standard input, so
// nothing in it is read as an option.
func (e *Engine) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	voice := e.voiceFor(ctx)
	b, err := e.run(ctx, voice, text)
	if err != nil && voice != e.voice && ctx.Err() == nil {
		if _, logged := e.failed.LoadOrStore(voice, true); !logged {
			e.log.Warn("espeak-ng cannot speak this voice; using the configured one", "voice", voice, "fallback", e.voice, "err", err)
		}
		return e.run(ctx, e.voice, text) // espeak-ng has no voice for that language
	}
	return b, err
}

func (e *Engine) run(ctx context.Context, voice, text string) (pcm.Buffer, error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, e.path, append(e.args, "-v", voice)...)
	cmd.Stdin = strings.NewReader(text)
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return pcm.Buffer{}, ctx.Err()
		}
		return pcm.Buffer{}, fmt.Errorf("espeak: run: %w: %s", err, strings.TrimSpace(errOut.String()))
	}
	b, err := pcm.ReadWAV(bytes.NewReader(out.Bytes()))
	if err != nil {
		return pcm.Buffer{}, fmt.Errorf("espeak: output: %w", err)
	}
	return b, nil
}
