package box

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/guard"
	"github.com/harkbox/hark/pipeline/media"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/reply/center"
)

// speech is speech-to-text as the configuration asks for it.
type speech struct {
	stt   pipeline.Transcriber // nil when there is none: the simulation takes typed input
	local *whisper.Engine      // the warm whisper.cpp model, to close; nil without one
	note  string               // for the user: what listens, or why nothing does
	// engine names what listens, for the self-test; empty when nothing does.
	engine string
}

func (s speech) close() error {
	if s.local != nil {
		return s.local.Close()
	}
	return nil
}

// openSpeech loads the whisper.cpp model once (it stays warm until close)
// and puts a Wyoming server in front of it when one is configured. A model
// that will not load is reported, not fatal: typed and offline commands
// still work.
func openSpeech(cfg *config.Loaded, log *slog.Logger) speech {
	w := cfg.Whisper
	var s speech
	var why string
	switch {
	case w.Model == "":
		why = "no speech-to-text model is set (whisper.model)"
	case !whisper.Built():
		why = "this build has no whisper.cpp (make build-whisper, or go build -tags whisper)"
	default:
		o := WhisperOptions(cfg, log)
		// whisper.cpp aborts the process on some corrupt models: load it
		// in a child first, so that costs the box nothing. A model this
		// program loaded before is not probed again (the record is taken
		// back while it loads, so a crash brings the probe back).
		var record *probeRecord
		if exe, err := os.Executable(); err == nil {
			cmd := whisper.ProbeCommand{Path: exe, Args: []string{"probe-model"}, Timeout: w.LoadTimeout.Duration}
			o.Probe = cmd.Probe
			if cfg.DataDir != "" {
				record = &probeRecord{path: filepath.Join(cfg.DataDir, "whisper-probed.json"), program: exe, args: cmd.Args, probe: cmd.Probe}
				o.Probe = record.Probe
			}
		}
		e, err := whisper.New(o)
		if err != nil {
			why = "speech-to-text is off: " + err.Error()
			log.Error("speech-to-text model did not load", "model", w.Model, "err", err)
			break
		}
		if record != nil {
			record.Loaded(w.Model)
		}
		s.local, s.stt = e, e
		if len(whisper.Features()) == 0 {
			log.Warn("whisper.cpp was built without SIMD or threading: transcription will be slow; rebuild it with make whisper")
		}
		s.note = fmt.Sprintf("speech-to-text: whisper.cpp, %s, loaded in %d ms", w.Model, e.LoadTime().Milliseconds())
		s.engine = "whisper.cpp, " + w.Model + " loaded"
		if warn := englishOnly(w.Language, e.Multilingual()); warn != "" {
			log.Warn("speech-to-text: "+warn, "model", w.Model, "language", w.Language)
			s.note += "; " + warn
			s.engine += " (" + warn + ")"
		}
	}
	if w.Remote != "" {
		remote := &wyoming.Client{Addr: w.Remote, Timeout: w.RemoteTimeout.Duration}
		if w.Language != "auto" {
			remote.Language = w.Language
		}
		if s.local != nil {
			s.stt = pipeline.Fallback{Primary: remote, Secondary: s.local, Log: log}
			s.note = "speech-to-text: Wyoming server " + w.Remote + ", falling back to whisper.cpp on the box"
			s.engine = "Wyoming server " + w.Remote + ", else " + s.engine
		} else {
			s.stt = remote
			s.note = "speech-to-text: Wyoming server " + w.Remote + " (no local fallback: " + why + ")"
			s.engine = "Wyoming server " + w.Remote
		}
	}
	s = centerSpeech(cfg, log, s)
	if s.stt == nil {
		s.note = why
	} else {
		s.stt = guard.Transcriber{Engine: s.stt} // markers, sound descriptions and loops are no speech
	}
	return s
}

// WhisperOptions is the [whisper] configuration for the engine, with an
// initial prompt from the assistant's name, the user's vocabulary and the
// commands' keywords, most important first: what `hark run` and `hark
// transcribe` load.
func WhisperOptions(cfg *config.Loaded, log *slog.Logger) whisper.Options {
	w := cfg.Whisper
	words := append([]string{cfg.Assistant.Name}, w.Vocabulary...)
	for _, c := range all(parts{}) {
		words = append(words, c.Keywords...)
	}
	return whisper.Options{
		Model:          w.Model,
		Threads:        w.Threads,
		Language:       w.Language,
		Prompt:         whisper.Prompt(words...),
		FullWindow:     w.FullWindow,
		BeamSize:       w.BeamSize,
		FlashAttention: w.FlashAttention,
		VADModel:       w.VADModel,
		NoSpeech:       float32(w.NoSpeech),
		MinConfidence:  float32(w.MinConfidence),
		Log:            log,
	}
}

// synthesizer returns the configured speech engine, or nil with the reason
// speech is off.
func synthesizer(cfg *config.Loaded, log *slog.Logger) (pipeline.Synthesizer, string) {
	t := cfg.TTS
	if t.Engine == "off" {
		return nil, "speech is off (tts.engine = \"off\"): replies are printed only"
	}
	e, err := espeak.New(espeak.Options{Voice: t.Voice, Rate: t.Rate, Pitch: t.Pitch, Voices: t.EspeakVoices, Log: log})
	if t.Wyoming != "" {
		u, _ := url.Parse(t.Wyoming) // checked by config.Resolve
		v := &wyoming.Voice{Addr: u.Host, Voices: t.Voices, Log: log}
		if err != nil {
			return v, "espeak-ng is not installed: a sentence the Wyoming voice fails is not spoken (apt-get install espeak-ng)"
		}
		return &pipeline.VoiceFallback{Primary: v, Backup: e, Deadline: t.Deadline.Duration, Log: log}, ""
	}
	if err != nil {
		return nil, "espeak-ng is not installed, so speech is off: replies are printed only (apt-get install espeak-ng)"
	}
	return e, ""
}

// liveVoice is what sets the voice and rate of a running synthesizer at
// once: espeak-ng's, alone or behind a Wyoming voice (which takes its
// voices from [tts] voices, not tts.voice); nil when speech is off.
func liveVoice(s pipeline.Synthesizer) func(voice string, rate int) {
	switch v := s.(type) {
	case *espeak.Engine:
		return v.SetVoice
	case *pipeline.VoiceFallback:
		if e, ok := v.Backup.(*espeak.Engine); ok {
			return e.SetVoice
		}
	}
	return nil
}

// SileroName is the Silero VAD model's file as whisper.cpp ships it; the
// image installs it in SileroDir.
const (
	SileroName = "ggml-silero-v6.2.0.bin"
	SileroDir  = "/usr/share/hark/models"
)

// sileroModel is the Silero model to use: the configured one, or, in a
// build with whisper.cpp, the one beside the whisper model or in the
// image's shared directory, so that Silero is the default wherever it can
// run; "" for none.
func sileroModel(configured, whisperModel string, built bool, exists func(string) bool) string {
	if configured != "" || !built {
		return configured
	}
	var candidates []string
	if whisperModel != "" {
		candidates = append(candidates, filepath.Join(filepath.Dir(whisperModel), SileroName))
	}
	candidates = append(candidates, filepath.Join(SileroDir, SileroName))
	for _, c := range candidates {
		if exists(c) {
			return c
		}
	}
	return ""
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// detector is the voice activity detector [listen] vad asks for: the
// Silero model through whisper.cpp (under the energy detector's voice
// gate: Silero hears other voices in the room as speech), or the energy
// detector.
func detector(cfg *config.Loaded, log *slog.Logger) (endpoint.Detector, func() error, error) {
	mode, model := cfg.Listen.VAD, sileroModel(cfg.Whisper.VADModel, cfg.Whisper.Model, whisper.Built(), fileExists)
	if mode == "energy" || (mode == "auto" && (model == "" || !whisper.Built())) {
		return &endpoint.Energy{}, func() error { return nil }, nil
	}
	v, err := whisper.NewVAD(model, 1)
	if err != nil {
		if mode == "silero" {
			return nil, nil, fmt.Errorf("listen.vad = \"silero\": %w", err)
		}
		log.Warn("Silero VAD did not load; using the energy detector", "err", err)
		return &endpoint.Energy{}, func() error { return nil }, nil
	}
	return endpoint.Gate(v), v.Close, nil
}

// centerSpeech puts the center's speech-to-text in front of the box's own
// when [center] transcribe is set: a node too small for a whisper model
// sends its utterances up, falling back to its own model if it has one.
func centerSpeech(cfg *config.Loaded, log *slog.Logger, s speech) speech {
	c := cfg.Center
	if !c.Transcribe {
		return s
	}
	client, err := center.NewClient(center.ClientOptions{URL: c.URL, Credential: c.Key, Fingerprint: c.Fingerprint, Insecure: c.InsecureHTTP, Timeout: time.Minute})
	if err != nil {
		log.Error("the center's speech-to-text is off", "err", err)
		return s
	}
	remote := media.Remote{Center: client}
	if l := cfg.Whisper.Language; l != "auto" {
		remote.Language = l
	}
	if s.stt != nil {
		s.stt = pipeline.Fallback{Primary: remote, Secondary: s.stt, Log: log}
		s.note, s.engine = "speech-to-text: the command center's, falling back to "+s.engine, "the center "+c.URL+", else "+s.engine
		return s
	}
	s.stt, s.note, s.engine = remote, "speech-to-text: the command center's ("+c.URL+")", "the center "+c.URL
	return s
}

// englishOnly is what a model that knows only English makes of the
// language the household set (whisper.language), or "" when nothing is
// lost: it hears every language as English, so a German household gets
// English guesses at what it said.
func englishOnly(language string, multilingual bool) string {
	if multilingual || language == "en" || language == "auto" || language == "" {
		return ""
	}
	return fmt.Sprintf("the model knows only English, so speech in %q is heard as English: set a multilingual model (ggml-base.bin, not .en) for it", language)
}
