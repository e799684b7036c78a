package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/harkbox/hark/cmd/hark/internal/config"
	"github.com/harkbox/hark/device/alsa"
	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/gpio/leds"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/pipeline/whisper"
	"periph.io/x/conn/v3/gpio"
)

// devices are the box's microphone, speaker, button and LEDs, real or
// simulated, as the pipeline and the rest of the wiring need them.
type devices struct {
	mic     pipeline.Microphone
	stt     pipeline.Transcriber
	speaker pipeline.Speaker
	earcons pipeline.Earcons // none on a speaker that writes WAV files
	// events are the button's (or the keyboard's) gestures for the pipeline.
	events <-chan pipeline.Event
	// listener is the live microphone, when there is one.
	listener *endpoint.Listener
	// display animates the board's LEDs; nil in simulation, where the
	// screen shows the states.
	display *leds.Display
	// gestures are the board button's; nil without one.
	gestures chan button.Event
	// onScreen shows the states on the terminal: the simulation, and a
	// board whose keyboard stands in for its button.
	onScreen bool
	tasks    []func(ctx context.Context) // run while the pipeline runs
	// listening is what turns speech into text, for the self-test.
	listening health.Listening
	closers   []func() error
}

func (d *devices) task(f func(ctx context.Context)) { d.tasks = append(d.tasks, f) }

func (d *devices) close() error {
	var errs []error
	for i := len(d.closers) - 1; i >= 0; i-- {
		errs = append(errs, d.closers[i]())
	}
	return errors.Join(errs...)
}

// noSTT stands in for speech-to-text on a board that has none: every
// utterance fails with the reason, shown as the error pattern.
type noSTT struct{ why string }

func (n noSTT) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{}, errors.New(n.why)
}

// alsaConfig is the ALSA device name and format for a direction: the
// configured name, else the board's.
func alsaConfig(name, boardName string, f pcm.Format, log *slog.Logger) alsa.Config {
	if name == "" {
		name = boardName
	}
	return alsa.Config{Device: name, Format: f, Period: 20 * time.Millisecond, Log: log}
}

// listener is a live microphone on an ALSA capture device, with the
// configured endpointing.
func (a *app) listener(dev alsa.Config, detector endpoint.Detector) *endpoint.Listener {
	c := a.cfg.Audio
	return endpoint.New(endpoint.Options{
		Source:     endpoint.SourceFunc[*alsa.Mic](func() (*alsa.Mic, error) { return alsa.OpenMic(dev) }),
		Detector:   detector,
		PreRoll:    c.PreRoll.Duration,
		Silence:    a.cfg.Listen.Silence.Duration,
		MinSilence: a.cfg.Listen.SilenceMin.Duration,
		MaxSilence: a.cfg.Listen.SilenceMax.Duration,
		Settle:     a.cfg.Listen.Settle.Duration,
		PauseAfter: a.cfg.Listen.Pause.Duration,
		MaxLength:  c.MaxUtterance.Duration,
		Log:        a.log,
	})
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
// Silero model through whisper.cpp, or the energy detector.
func (a *app) detector() (endpoint.Detector, func() error, error) {
	mode, model := a.cfg.Listen.VAD, sileroModel(a.cfg.Whisper.VADModel, a.cfg.Whisper.Model, whisper.Built(), fileExists)
	if mode == "energy" || (mode == "auto" && (model == "" || !whisper.Built())) {
		return &endpoint.Energy{}, func() error { return nil }, nil
	}
	v, err := whisper.NewVAD(model, 1)
	if err != nil {
		if mode == "silero" {
			return nil, nil, fmt.Errorf("listen.vad = \"silero\": %w", err)
		}
		a.log.Warn("Silero VAD did not load; using the energy detector", "err", err)
		return &endpoint.Energy{}, func() error { return nil }, nil
	}
	return v, v.Close, nil
}

// openSim is the desktop: the keyboard is the button, the screen the
// LEDs; the sound card is the microphone and speaker when alsa-lib is
// built in and its default devices open, WAV files otherwise.
func (a *app) openSim(in io.Reader, screen *sim.Screen, sp speech) (*devices, error) {
	cfg := a.cfg
	term := sim.NewTerminal(in, screen)
	d := &devices{mic: term, stt: term.Transcriber(), events: term.Events(), onScreen: true,
		listening: health.Listening{Engine: "typed input (simulation: " + sp.note + ")"}}
	d.task(term.Run)
	prof, _ := board.Lookup("sim")

	if spk, ok := a.probeSpeaker(alsaConfig(cfg.Audio.Playback, prof.Playback, prof.PlaybackFormat, a.log)); ok {
		d.speaker, d.earcons = spk, earcons(cfg.Audio)
		screen.Println("speaker: ALSA " + orDefault(cfg.Audio.Playback))
	} else {
		d.speaker = sim.NewWAVSpeaker(sim.SpeakerOptions{
			Dir: a.replyDir(), Rate: cfg.Sim.SpeakerRate, Channels: cfg.Sim.SpeakerChannels,
			Realtime: cfg.Sim.Realtime, Keep: cfg.Sim.KeepReplies, Gain: a.mixer.Gain,
		})
	}

	switch {
	case sp.stt != nil && cfg.Sim.MicWAV != "":
		m, err := sim.NewWAVMic(cfg.Sim.MicWAV, cfg.Sim.Realtime)
		if err != nil {
			return nil, err
		}
		d.mic, d.stt, d.listening = m, sp.stt, health.Listening{Engine: sp.engine + ", hearing " + cfg.Sim.MicWAV}
		screen.Println(sp.note)
		screen.Println("microphone: " + cfg.Sim.MicWAV + " (played as if spoken at each press)")
	case sp.stt != nil && alsa.Built() && a.probeMic(alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, a.log)):
		det, closeDet, err := a.detector()
		if err != nil {
			return nil, err
		}
		d.closers = append(d.closers, closeDet)
		d.listener = a.listener(alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, a.log), det)
		d.mic, d.stt, d.listening = d.listener, sp.stt, health.Listening{Engine: sp.engine}
		d.task(func(ctx context.Context) { d.listener.Run(ctx) })
		screen.Println(sp.note)
		screen.Println("microphone: ALSA " + orDefault(cfg.Audio.Capture) + " (press Enter and speak)")
	case sp.stt != nil:
		screen.Println(sp.note + "; with no --mic-wav, type what you would say")
	case cfg.Sim.MicWAV != "":
		screen.Println(sp.note + ": ignoring --mic-wav; type what you would say")
	default:
		screen.Println(sp.note + ": type what you would say")
	}
	return d, nil
}

func orDefault(name string) string {
	if name == "" {
		return "default"
	}
	return name
}

// probeSpeaker returns an ALSA speaker when alsa-lib is built in and the
// device opens.
func (a *app) probeSpeaker(dev alsa.Config) (pipeline.Speaker, bool) {
	if !alsa.Built() {
		return nil, false
	}
	p, err := alsa.Open(alsa.Playback, dev)
	if err != nil {
		a.log.Debug("no ALSA speaker", "device", dev.Device, "err", err)
		return nil, false
	}
	p.Close()
	return alsa.NewSpeaker(dev, a.mixer.Gain), true
}

// probeMic reports whether the ALSA capture device opens.
func (a *app) probeMic(dev alsa.Config) bool {
	m, err := alsa.OpenMic(dev)
	if err != nil {
		a.log.Debug("no ALSA microphone", "device", dev.Device, "err", err)
		return false
	}
	m.Close()
	return true
}

// openBoard is a real board: ALSA microphone and speaker, the button and
// the LEDs through periph. On the usb profile (a development machine) the
// keyboard stands in for a button that is not there.
func (a *app) openBoard(in io.Reader, screen *sim.Screen, sp speech) (*devices, error) {
	cfg := a.cfg
	prof, err := board.Lookup(cfg.Board)
	if err != nil {
		return nil, err
	}
	if !alsa.Built() {
		return nil, fmt.Errorf("board %q: %w", cfg.Board, alsa.ErrNotBuilt)
	}
	d := &devices{speaker: alsa.NewSpeaker(alsaConfig(cfg.Audio.Playback, prof.Playback, prof.PlaybackFormat, a.log), a.mixer.Gain), earcons: earcons(cfg.Audio)}
	det, closeDet, err := a.detector()
	if err != nil {
		return nil, err
	}
	d.closers = append(d.closers, closeDet)
	d.listener = a.listener(alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, a.log), det)
	d.mic = d.listener
	d.task(func(ctx context.Context) { d.listener.Run(ctx) })
	d.stt, d.listening = sp.stt, health.Listening{Engine: sp.engine, Why: sp.note}
	if d.stt == nil {
		d.stt = noSTT{why: sp.note}
		a.log.Error("no speech-to-text: the box cannot understand speech", "why", sp.note)
	}

	// The button.
	pinName := cmpOr(cfg.Button.Pin, prof.Button)
	events := make(chan pipeline.Event)
	d.events = events
	pin, err := board.Pin(pinName)
	if err == nil {
		var b *button.Button
		b, err = button.New(pin, button.Options{
			ActiveHigh: cfg.Button.ActiveHigh, Debounce: cfg.Button.Debounce.Duration,
			Long: cfg.Button.LongPress.Duration, Double: cfg.Button.DoublePress.Duration,
			VeryLong: cfg.Button.VeryLongPress.Duration, Log: a.log,
		})
		if err == nil {
			d.gestures = make(chan button.Event, 16)
			d.task(func(ctx context.Context) { b.Run(ctx, d.gestures) })
		}
	}
	if err != nil {
		if prof.Name != "usb" {
			return nil, fmt.Errorf("board %q: button: %w", prof.Name, err)
		}
		term := sim.NewButton(in, screen)
		d.events, d.onScreen = term.Events(), true
		d.task(term.Run)
		screen.Println("no button (" + err.Error() + "): press Enter instead")
	}

	// The LEDs.
	var strip leds.Strip
	switch prof.LEDs {
	case board.APA102:
		port, err := board.SPI(prof.SPI)
		if err != nil {
			return nil, fmt.Errorf("board %q: LEDs: %w", prof.Name, err)
		}
		d.closers = append(d.closers, port.Close)
		if strip, err = leds.NewAPA102(port, prof.LEDCount, cfg.LEDs.Brightness); err != nil {
			return nil, err
		}
	case board.PlainLED:
		names := prof.LEDPins
		if len(cfg.LEDs.Pins) > 0 {
			names = cfg.LEDs.Pins
		}
		var pins []gpio.PinOut
		for _, n := range names {
			p, err := board.Pin(n)
			if err != nil {
				return nil, fmt.Errorf("board %q: LEDs: %w", prof.Name, err)
			}
			pins = append(pins, p)
		}
		if strip, err = leds.NewPins(pins...); err != nil {
			return nil, err
		}
	}
	if strip != nil {
		d.display = leds.NewDisplay(strip, leds.Options{DimIdle: cfg.LEDs.Idle == "dim", Log: a.log})
		d.task(d.display.Run)
	}

	// The mute switch.
	if cfg.Button.MutePin != "" {
		p, err := board.Pin(cfg.Button.MutePin)
		if err != nil {
			return nil, fmt.Errorf("button.mute_pin: %w", err)
		}
		sw, err := button.New(p, button.Options{Debounce: cfg.Button.Debounce.Duration, Log: a.log})
		if err != nil {
			return nil, fmt.Errorf("button.mute_pin: %w", err)
		}
		d.task(func(ctx context.Context) {
			levels := make(chan bool, 4)
			go sw.Levels(ctx, levels)
			for on := range levels {
				a.setMuted(ctx, d, on, true)
			}
		})
	}
	screen.Println(fmt.Sprintf("board %s: microphone %s, speaker %s, button %s; %s", prof.Name,
		orDefault(cmpOr(cfg.Audio.Capture, prof.Capture)), orDefault(cmpOr(cfg.Audio.Playback, prof.Playback)), pinName, sp.note))
	return d, nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// earcons are the sounds [audio] turns on: each its own key, under the
// earcons switch.
func earcons(c config.Audio) pipeline.Earcons {
	on := c.Earcons
	return pipeline.Earcons{Start: on && c.EarconStart, End: on && c.EarconEnd, Error: on && c.EarconError, Thinking: on && c.EarconThinking}
}
