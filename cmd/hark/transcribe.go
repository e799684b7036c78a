package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/pipeline/whisper"
)

// cmdTranscribe runs the box's speech-to-text on a WAV file and prints the
// text, the language and the timings: the check for a model and for audio
// recorded through the microphone chain.
func cmdTranscribe(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("transcribe", e, g)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	flagged := map[string]string{ // flag → configuration key
		"model": "whisper.model", "threads": "whisper.threads", "language": "whisper.language",
		"beam-size": "whisper.beam_size", "full-window": "whisper.full_window",
		"flash-attention": "whisper.flash_attention", "vad-model": "whisper.vad_model",
	}
	fs.String("model", "", "ggml model `file` (default: whisper.model)")
	fs.String("threads", "", "CPU threads, 0 for every core (default: whisper.threads)")
	fs.String("language", "", "language code or \"auto\" (default: whisper.language)")
	fs.String("beam-size", "", "1 for greedy decoding, more for beam search (default: whisper.beam_size)")
	fs.String("full-window", "", "true to encode whisper's whole 30 s window (default: whisper.full_window)")
	fs.String("flash-attention", "", "true for flash attention (default: whisper.flash_attention)")
	fs.String("vad-model", "", "Silero VAD model `file` to trim silence (default: whisper.vad_model)")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError(e, fs, "one WAV file to transcribe")
	}
	var overrides []override
	fs.Visit(func(f *flag.Flag) {
		if key, ok := flagged[f.Name]; ok {
			overrides = append(overrides, override{key, f.Value.String(), "--" + f.Name})
		}
	})
	cfg, _, err := loadConfig(e, g, overrides...)
	if err != nil {
		return err
	}
	audio, err := readSpeech(fs.Arg(0))
	if err != nil {
		return err
	}
	if !whisper.Built() {
		return whisper.ErrNotBuilt
	}
	if cfg.Whisper.Model == "" {
		return errors.New("no model: set whisper.model in the configuration or pass --model FILE")
	}
	// The same options as hark run's, its initial prompt too.
	o := box.WhisperOptions(cfg, newLogger(e.stderr, cfg.Log.Level, slog.LevelWarn))
	eng, err := whisper.New(o)
	if err != nil {
		return err
	}
	defer eng.Close()
	r, err := eng.Run(ctx, audio.Samples)
	if err != nil {
		return err
	}
	text, guard := o.Filter(r, voice.ErrNoSpeech)
	out := transcription{
		Text: text, Raw: r.Text, Language: r.Language,
		AudioMS: millis(audio.Duration()), LoadMS: millis(eng.LoadTime()),
		EncodeMS: millis(r.Timings.Encode), DecodeMS: millis(r.Timings.Decode), TotalMS: millis(r.Timings.Total),
		AudioContext: r.AudioContext,
	}
	if guard != nil {
		out.NoSpeech = guard.Error()
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if guard != nil {
		fmt.Fprintf(e.stdout, "text:     (none: %v)\n", guard)
	} else {
		fmt.Fprintf(e.stdout, "text:     %s\n", text)
	}
	if out.Raw != "" && out.Raw != " "+text && out.Raw != text {
		fmt.Fprintf(e.stdout, "raw:      %s\n", out.Raw)
	}
	fmt.Fprintf(e.stdout, "language: %s\n", out.Language)
	fmt.Fprintf(e.stdout, "audio:    %.1f s\n", audio.Duration().Seconds())
	fmt.Fprintf(e.stdout, "load:     %.0f ms\n", out.LoadMS)
	fmt.Fprintf(e.stdout, "encode:   %.0f ms (audio context %d of 1500)\n", out.EncodeMS, out.AudioContext)
	fmt.Fprintf(e.stdout, "decode:   %.0f ms\n", out.DecodeMS)
	fmt.Fprintf(e.stdout, "total:    %.0f ms (%.2f× real time)\n", out.TotalMS, out.TotalMS/max(out.AudioMS, 1))
	return nil
}

// transcription is what hark transcribe --json prints.
type transcription struct {
	Text         string  `json:"text"`
	Raw          string  `json:"raw"`
	NoSpeech     string  `json:"no_speech,omitempty"`
	Language     string  `json:"language"`
	AudioMS      float64 `json:"audio_ms"`
	LoadMS       float64 `json:"load_ms"`
	EncodeMS     float64 `json:"encode_ms"`
	DecodeMS     float64 `json:"decode_ms"`
	TotalMS      float64 `json:"total_ms"`
	AudioContext int     `json:"audio_context"`
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// readSpeech reads a WAV file as 16 kHz mono.
func readSpeech(path string) (pcm.Buffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return pcm.Buffer{}, err
	}
	defer f.Close()
	b, err := pcm.ReadWAV(f)
	if err != nil {
		return pcm.Buffer{}, fmt.Errorf("%s: %w", path, err)
	}
	if b.Frames() == 0 {
		return pcm.Buffer{}, fmt.Errorf("%s: the file holds no audio", path)
	}
	return pcm.ToSpeech(b), nil
}

// cmdProbeModel loads a model and transcribes a second of silence: hark run
// runs it as a child before loading the model itself, so that whisper.cpp
// aborting on a corrupt model kills only the child.
func cmdProbeModel(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("probe-model", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError(e, fs, "one model file")
	}
	if err := whisper.ProbeChild(ctx, fs.Arg(0)); err != nil {
		fmt.Fprintln(e.stderr, err)
		return errReported
	}
	return nil
}
