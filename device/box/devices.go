package box

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/harkbox/hark/device/alsa"
	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/clock"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/mixer"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/gpio/leds"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
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
	// lights show the states on the terminal: the simulation, and a
	// board whose keyboard stands in for its button; nil elsewhere.
	lights *sim.Lights
	tasks  []func(ctx context.Context) // run while the pipeline runs
	// listening is what turns speech into text, for the self-test.
	listening health.Listening
	// faults are the devices that did not open: the box runs without
	// them, and the self-test names them.
	faults  []control.Check
	closers []func() error
}

// fault notes a device that did not open: the box runs on without it
// (it still rings, answers hark ask, the page and the talk box).
func (d *devices) fault(log *slog.Logger, name string, err error) {
	d.faults = append(d.faults, control.Check{Name: name, Detail: err.Error()})
	log.Error("a device did not open; the box runs on without it", "device", name, "err", err)
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

// deviceKit is what opening the devices needs.
type deviceKit struct {
	// lines opens the board's GPIO lines and SPI devices; zero for the
	// real ones (board.Pin, board.SPI).
	lines  lines
	cfg    *config.Loaded
	log    *slog.Logger
	mixer  *mixer.Mixer
	mute   *muter
	in     io.Reader // the keyboard, where it stands in for the button
	screen *sim.Screen
	speech speech
	clock  *clock.Sim            // the simulated board's clock, set from the console
	loc    func() *time.Location // the household's zone now
}

// replyDir keeps the simulation's spoken replies.
func replyDir(dataDir string) string { return filepath.Join(dataDir, "replies") }

// listener is a live microphone on an ALSA capture device, with the
// configured endpointing.
func (k deviceKit) listener(dev alsa.Config, detector endpoint.Detector) *endpoint.Listener {
	c := k.cfg.Audio
	return endpoint.New(endpoint.Options{
		Source:      endpoint.SourceFunc[*alsa.Mic](func() (*alsa.Mic, error) { return alsa.OpenMic(dev) }),
		Detector:    detector,
		PreRoll:     c.PreRoll.Duration,
		Silence:     k.cfg.Listen.Silence.Duration,
		MinSilence:  k.cfg.Listen.SilenceMin.Duration,
		MaxSilence:  k.cfg.Listen.SilenceMax.Duration,
		SoftSilence: k.cfg.Listen.SilenceSoft.Duration,
		Settle:      k.cfg.Listen.Settle.Duration,
		PauseAfter:  k.cfg.Listen.Pause.Duration,
		MaxLength:   c.MaxUtterance.Duration,
		Log:         k.log,
	})
}

// openSim is the desktop: the keyboard is the button, the screen the
// LEDs; the sound card is the microphone and speaker when alsa-lib is
// built in and its default devices open, WAV files otherwise.
func (k deviceKit) openSim() (*devices, error) {
	cfg, in, screen, sp := k.cfg, k.in, k.screen, k.speech
	term := sim.NewTerminal(in, screen)
	d := &devices{mic: term, stt: term.Transcriber(), events: term.Events(), lights: sim.NewLights(screen),
		listening: health.Listening{Engine: "typed input (simulation: " + sp.note + ")"}}
	if k.clock != nil {
		term.Handle("/clock", func(arg string) (string, error) { return k.clock.Command(arg, k.loc()) })
	}
	d.task(term.Run)
	prof, _ := board.Lookup("sim")

	if spk, ok := k.probeSpeaker(alsaConfig(cfg.Audio.Playback, prof.Playback, prof.PlaybackFormat, k.log)); ok {
		d.speaker, d.earcons = spk, earcons(cfg.Audio)
		screen.Println("speaker: ALSA " + orDefault(cfg.Audio.Playback))
	} else {
		d.speaker = sim.NewWAVSpeaker(sim.SpeakerOptions{
			Dir: replyDir(cfg.DataDir), Rate: cfg.Sim.SpeakerRate, Channels: cfg.Sim.SpeakerChannels,
			Realtime: cfg.Sim.Realtime, Keep: cfg.Sim.KeepReplies, Gain: k.mixer.Gain,
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
	case sp.stt != nil && alsa.Built() && k.probeMic(alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, k.log)):
		det, closeDet, err := detector(k.cfg, k.log)
		if err != nil {
			return nil, err
		}
		d.closers = append(d.closers, closeDet)
		d.listener = k.listener(alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, k.log), det)
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
func (k deviceKit) probeSpeaker(dev alsa.Config) (pipeline.Speaker, bool) {
	if !alsa.Built() {
		return nil, false
	}
	p, err := alsa.Open(alsa.Playback, dev)
	if err != nil {
		k.log.Debug("no ALSA speaker", "device", dev.Device, "err", err)
		return nil, false
	}
	p.Close()
	return alsa.NewSpeaker(dev, k.mixer.Gain), true
}

// probeMic reports whether the ALSA capture device opens.
func (k deviceKit) probeMic(dev alsa.Config) bool {
	m, err := alsa.OpenMic(dev)
	if err != nil {
		k.log.Debug("no ALSA microphone", "device", dev.Device, "err", err)
		return false
	}
	m.Close()
	return true
}

// openBoard is a real board: ALSA microphone and speaker, the button and
// the LEDs through periph. On the usb profile (a development machine) the
// keyboard stands in for a button that is not there.
func (k deviceKit) openBoard() (*devices, error) {
	cfg, screen, sp := k.cfg, k.screen, k.speech
	prof, err := board.Lookup(cfg.Board)
	if err != nil {
		return nil, err
	}
	if !alsa.Built() {
		return nil, fmt.Errorf("board %q: %w", cfg.Board, alsa.ErrNotBuilt)
	}
	d := &devices{speaker: alsa.NewSpeaker(alsaConfig(cfg.Audio.Playback, prof.Playback, prof.PlaybackFormat, k.log), k.mixer.Gain), earcons: earcons(cfg.Audio)}
	det, closeDet, err := detector(k.cfg, k.log)
	if err != nil {
		return nil, err
	}
	d.closers = append(d.closers, closeDet)
	d.listener = k.listener(alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, k.log), det)
	d.mic = d.listener
	d.task(func(ctx context.Context) { d.listener.Run(ctx) })
	d.stt, d.listening = sp.stt, health.Listening{Engine: sp.engine, Why: sp.note}
	if d.stt == nil {
		d.stt = noSTT{why: sp.note}
		k.log.Error("no speech-to-text: the box cannot understand speech", "why", sp.note)
	}

	k.openControls(d, prof)
	screen.Println(fmt.Sprintf("board %s: microphone %s, speaker %s, button %s; %s", prof.Name,
		orDefault(cmpOr(cfg.Audio.Capture, prof.Capture)), orDefault(cmpOr(cfg.Audio.Playback, prof.Playback)), cmpOr(cfg.Button.Pin, prof.Button), sp.note))
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
	return pipeline.Earcons{Start: on && c.EarconStart, End: on && c.EarconEnd, Error: on && c.EarconError, Thinking: on && c.EarconThinking,
		Ready: on && c.EarconReady}
}
