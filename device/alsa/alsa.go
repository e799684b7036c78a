// Package alsa captures and plays audio through alsa-lib: the box's I2S
// microphones and speaker, USB sound cards, and in tests alsa-lib's file
// plugin. It is a thin cgo wrapper over alsa-lib's PCM API, built only with
// the "alsa" build tag (and cgo, on Linux); without it Open returns
// ErrNotBuilt.
//
// A PCM is used from one goroutine at a time. Reads and writes wait in
// poll(2) on the device and on a wake-up pipe, so a cancelled context
// releases them at once: a Speaker stops its playback within a few
// milliseconds of a barge-in (the queued audio is dropped, not drained).
// Overruns and underruns are recovered and counted, never fatal. A device
// that stops (a hung USB DAC, a stuck I2S clock) is an error wrapping
// ErrStalled, from a read or write that waited for it and from a drain
// that waited the queued audio's time and a margin: nothing waits on it
// forever.
package alsa

import (
	"errors"
	"log/slog"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// ErrNotBuilt reports a Hark built without alsa-lib.
var ErrNotBuilt = errors.New("alsa: this build has no ALSA support (build with -tags alsa and libasound2-dev)")

// ErrStalled reports a device that stopped delivering or taking audio: a
// read or write that waited stallTimeout for it, or a drain the device
// did not finish in the time of the audio queued and a margin
// (drainLimit).
var ErrStalled = errors.New("alsa: the device stopped")

// Stream is the direction of a PCM.
type Stream int

// The directions.
const (
	Capture Stream = iota + 1
	Playback
)

func (s Stream) String() string {
	if s == Capture {
		return "capture"
	}
	return "playback"
}

// Config asks for a PCM. ALSA may not give exactly the format asked for:
// a "plug" device converts to anything, a "hw" device gives what the
// hardware has. PCM.Format says what was granted.
type Config struct {
	// Device is the ALSA PCM name: "default", "hw:0,0", "hark_capture".
	Device string
	// Format is what Hark would like; zero fields take 48 kHz, 2
	// channels, S16_LE.
	Format pcm.Format
	// Period is the transfer size; default 20 ms. Periods is the buffer
	// length in periods; default 4.
	Period  time.Duration
	Periods int
	// Log receives overruns, underruns and recoveries as warnings.
	Log *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Device == "" {
		c.Device = "default"
	}
	if c.Format.Rate == 0 {
		c.Format.Rate = 48000
	}
	if c.Format.Channels == 0 {
		c.Format.Channels = 2
	}
	if c.Format.Encoding == 0 {
		c.Format.Encoding = pcm.S16LE
	}
	if c.Period == 0 {
		c.Period = 20 * time.Millisecond
	}
	if c.Periods == 0 {
		c.Periods = 4
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// stallTimeout is how long a read or write may wait for the device.
const stallTimeout = 2 * time.Second

// drainSlack is what a drain waits beyond the audio the device holds, for
// the scheduler and the wake-ups of its polling.
const drainSlack = 250 * time.Millisecond

// drainLimit is the longest a drain waits for a playback device holding
// queued frames of its buffer of buffer frames at rate: the time of the
// queued audio, then a margin of one more buffer (what a plugin's slave,
// dmix's ring or a USB DAC holds beyond the PCM's own) and drainSlack.
// A device that has not played it out by then has stopped.
func drainLimit(queued, buffer, rate int) time.Duration {
	queued = min(max(queued, 0), buffer)
	return time.Duration(queued+buffer)*time.Second/time.Duration(rate) + drainSlack
}
