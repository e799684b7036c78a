package box

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/device/alsa"
	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/gpio/leds"
	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
	"periph.io/x/conn/v3/gpio"
)

// SmokeOptions are the smoke test's choices.
type SmokeOptions struct {
	// Skip names checks to leave out: mic, speaker, button, leds.
	Skip []string
	// Listen is how long the microphone check listens; Wait how long the
	// button check waits for a press.
	Listen, Wait time.Duration
}

// Smoketest checks the board's hardware the way go test cannot: the
// microphone's level, a tone on the speaker, a press of the button, and a
// turn of the LEDs, each with a PASS, FAIL or SKIP line on out.
func Smoketest(ctx context.Context, cfg *config.Loaded, o SmokeOptions, out io.Writer) error {
	if cfg.Board == "sim" {
		return errors.New(`this needs a board: it checks the microphone, speaker, button and LEDs of the box; this computer runs board = "sim" (set board in the configuration on a box)`)
	}
	prof, err := board.Lookup(cfg.Board)
	if err != nil {
		return err
	}
	skipped := o.Skip
	fmt.Fprintf(out, "smoke test of board %s: %s\n", prof.Name, prof.Description)
	failed := 0
	report := func(check string, err error, detail string) {
		switch {
		case errors.Is(err, errSkip):
			fmt.Fprintf(out, "SKIP %-7s %s\n", check, detail)
		case err != nil:
			failed++
			fmt.Fprintf(out, "FAIL %-7s %v\n", check, err)
		default:
			fmt.Fprintf(out, "PASS %-7s %s\n", check, detail)
		}
	}
	run := func(check string, f func() (string, error)) {
		if slices.Contains(skipped, check) {
			report(check, errSkip, "left out (--skip)")
			return
		}
		detail, err := f()
		if errors.Is(err, errSkip) {
			detail = err.Error()
		}
		report(check, err, detail)
	}
	capture := alsaConfig(cfg.Audio.Capture, prof.Capture, prof.CaptureFormat, nil)
	playback := alsaConfig(cfg.Audio.Playback, prof.Playback, prof.PlaybackFormat, nil)
	run("mic", func() (string, error) { return micCheck(ctx, out, capture, o.Listen) })
	run("speaker", func() (string, error) { return speakerCheck(ctx, playback, float32(cfg.Audio.Volume)/100) })
	// The usb profile's button is optional; a HAT's missing button or LEDs
	// are a failure.
	optional := prof.Name == "usb"
	run("button", func() (string, error) {
		return buttonCheck(ctx, out, cmpOr(cfg.Button.Pin, prof.Button), cfg.Button.ActiveHigh, o.Wait, optional)
	})
	run("leds", func() (string, error) { return ledCheck(ctx, prof, cfg.LEDs.Pins, cfg.LEDs.Brightness) })
	if failed > 0 {
		return fmt.Errorf("%d check(s) failed", failed)
	}
	return nil
}

// errSkip marks a check that cannot run on this machine; its message says
// why.
var errSkip = errors.New("skip")

type skipError string

func (s skipError) Error() string        { return string(s) }
func (s skipError) Is(target error) bool { return target == errSkip }

// micCheck listens and draws a level meter: a dead microphone (or an I2S
// link that is not set up) gives exact digital silence.
func micCheck(ctx context.Context, out io.Writer, dev alsa.Config, d time.Duration) (string, error) {
	if !alsa.Built() {
		return "", skipError("this build has no ALSA (-tags alsa)")
	}
	m, err := alsa.OpenMic(dev)
	if err != nil {
		return "", err
	}
	defer m.Close()
	buf := make([]float32, pcm.SpeechRate/5) // 200 ms
	var got int
	peak, loudest := 0.0, -100.0
	for got < pcm.FramesIn(d, pcm.SpeechRate) {
		n := 0
		for n < len(buf) {
			k, err := m.Read(ctx, buf[n:])
			if err != nil {
				return "", fmt.Errorf("after %v: %w", time.Duration(got)*time.Second/pcm.SpeechRate, err)
			}
			n += k
		}
		got += n
		level := endpoint.Loudness(buf[:n])
		loudest = max(loudest, level)
		for _, v := range buf[:n] {
			peak = max(peak, math.Abs(float64(v)))
		}
		bar := int(max(0, (level+80)/4)) // -80..0 dBFS in 20 steps
		fmt.Fprintf(out, "     mic     %6.1f dBFS |%-20s|\n", level, strings.Repeat("#", min(bar, 20)))
	}
	detail := fmt.Sprintf("%s, %v heard, loudest %.1f dBFS, %d overruns", m.Format(), d, loudest, m.Xruns())
	if peak == 0 {
		return "", fmt.Errorf("%s: only digital silence (is the microphone wired and its overlay loaded?)", detail)
	}
	return detail, nil
}

// speakerCheck plays a second of 440 Hz at the configured volume. Whether
// it was heard is for the person at the box to say.
func speakerCheck(ctx context.Context, dev alsa.Config, volume float32) (string, error) {
	if !alsa.Built() {
		return "", skipError("this build has no ALSA (-tags alsa)")
	}
	spk := alsa.NewSpeaker(dev, func() float32 { return volume * volume })
	pb, err := spk.Open(ctx)
	if err != nil {
		return "", err
	}
	rate, ch := pb.Format()
	tone := pcm.Buffer{Rate: rate, Channels: ch, Samples: make([]float32, rate*ch)}
	for i := range tone.Samples {
		f := i / ch
		fade := math.Min(1, math.Min(float64(f), float64(rate-1-f))/float64(rate/50))
		tone.Samples[i] = float32(0.5 * fade * math.Sin(2*math.Pi*440*float64(f)/float64(rate)))
	}
	if err := pb.Write(ctx, tone); err != nil {
		pb.Close(ctx)
		return "", err
	}
	if err := pb.Close(ctx); err != nil {
		return "", err
	}
	return fmt.Sprintf("1 s of 440 Hz played at %d Hz %dch: did you hear it?", rate, ch), nil
}

// buttonCheck waits for a press and its release.
func buttonCheck(ctx context.Context, out io.Writer, name string, activeHigh bool, wait time.Duration, optional bool) (string, error) {
	if name == "" {
		return "", skipError("the board has no button")
	}
	pin, err := board.Pin(name)
	if err != nil && optional {
		return "", skipError(err.Error())
	}
	if err != nil {
		return "", err
	}
	b, err := button.New(pin, button.Options{ActiveHigh: activeHigh})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(out, "     button  press the button (%s) within %v\n", name, wait)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	events := make(chan button.Event, 8)
	go b.Run(ctx, events)
	var pressed time.Time
	for {
		select {
		case <-ctx.Done():
			if pressed.IsZero() {
				return "", fmt.Errorf("no press on %s in %v", name, wait)
			}
			return "", fmt.Errorf("%s pressed but not released in %v", name, wait)
		case ev := <-events:
			switch ev.Gesture {
			case button.Press:
				pressed = ev.At
			case button.Release:
				return fmt.Sprintf("%s pressed and released (held %v)", name, ev.At.Sub(pressed).Round(time.Millisecond)), nil
			}
		}
	}
}

// ledCheck shows every pattern for half a second.
func ledCheck(ctx context.Context, prof board.Profile, pinNames []string, brightness float64) (string, error) {
	var strip leds.Strip
	switch prof.LEDs {
	case board.APA102:
		port, err := board.SPI(prof.SPI)
		if err != nil {
			return "", err
		}
		defer port.Close()
		if strip, err = leds.NewAPA102(port, prof.LEDCount, brightness); err != nil {
			return "", err
		}
	case board.PlainLED:
		if len(pinNames) == 0 {
			pinNames = prof.LEDPins
		}
		var ps []gpio.PinOut
		for _, n := range pinNames {
			p, err := board.Pin(n)
			if err != nil {
				return "", err
			}
			ps = append(ps, p)
		}
		var err error
		if strip, err = leds.NewPins(ps...); err != nil {
			return "", err
		}
	default:
		return "", skipError("the board has no LEDs")
	}
	patterns := []leds.Pattern{leds.Listening, leds.Thinking, leds.Speaking, leds.Ringing, leds.Muted, leds.Error, leds.Updating, leds.Off}
	for _, p := range patterns {
		for t := time.Duration(0); t < 500*time.Millisecond; t += 40 * time.Millisecond {
			if err := strip.Show(p.Frame(strip.Len(), t)); err != nil {
				return "", err
			}
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(40 * time.Millisecond):
			}
		}
	}
	return fmt.Sprintf("%d patterns shown on %d LEDs: did each state look right?", len(patterns), strip.Len()), nil
}
