// Package leds shows the box's state on its LEDs: APA102 pixels over SPI
// (the ReSpeaker HAT's three) or plain LEDs on GPIO lines. One pattern per
// state, picked by a fixed priority (error, muted, updating, ringing,
// speaking, thinking, listening, idle); animations run on their own
// goroutine, fed through a latest-value mailbox, so the pipeline never
// waits for the LEDs.
package leds

import (
	"math"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

// Color is an RGB colour at full brightness.
type Color struct{ R, G, B uint8 }

// scale returns c at level (0 to 1).
func (c Color) scale(level float64) Color {
	f := func(v uint8) uint8 { return uint8(math.Round(float64(v) * max(0, min(1, level)))) }
	return Color{f(c.R), f(c.G), f(c.B)}
}

// Animation is how a pattern moves.
type Animation int

// The animations.
const (
	Solid Animation = iota // steady
	Pulse                  // breathes between 30 % and 100 %
	Spin                   // one LED lit, going round
	Blink                  // on and off
)

// Pattern is how the LEDs look in one state.
type Pattern struct {
	Name   string
	Color  Color
	Anim   Animation
	Period time.Duration // of one pulse, turn or blink
	Level  float64       // 0 to 1
}

// The patterns, by state. Idle is off unless Options.DimIdle.
var (
	Off       = Pattern{Name: "off"}
	DimIdle   = Pattern{Name: "idle", Color: Color{255, 255, 255}, Level: 0.04}
	Listening = Pattern{Name: "listening", Color: Color{0, 90, 255}, Level: 1}
	FollowUp  = Pattern{Name: "follow-up", Color: Color{0, 90, 255}, Level: 0.5}
	Thinking  = Pattern{Name: "thinking", Color: Color{0, 220, 200}, Anim: Spin, Period: 900 * time.Millisecond, Level: 1}
	Speaking  = Pattern{Name: "speaking", Color: Color{200, 200, 255}, Anim: Pulse, Period: 1200 * time.Millisecond, Level: 1}
	Ringing   = Pattern{Name: "ringing", Color: Color{255, 120, 0}, Anim: Blink, Period: time.Second, Level: 1}
	Updating  = Pattern{Name: "updating", Color: Color{160, 0, 255}, Anim: Spin, Period: 1500 * time.Millisecond, Level: 1}
	Muted     = Pattern{Name: "muted", Color: Color{255, 0, 0}, Level: 0.6}
	Error     = Pattern{Name: "error", Color: Color{255, 0, 0}, Anim: Blink, Period: 400 * time.Millisecond, Level: 1}
	// Full is the idle box whose storage is full: a slow amber pulse
	// instead of idle, so the box still shows what it is doing.
	Full = Pattern{Name: "storage-full", Color: Color{255, 80, 0}, Anim: Pulse, Period: 3 * time.Second, Level: 0.3}
	// StorageFault is the idle box whose storage card cannot save (or
	// held damaged files): a slow red pulse, brighter than a full one.
	StorageFault = Pattern{Name: "storage-fault", Color: Color{255, 20, 0}, Anim: Pulse, Period: 2 * time.Second, Level: 0.5}
)

// Status is everything the LEDs reflect.
type Status struct {
	State    voice.State
	FollowUp bool // Listening in the follow-up window
	Muted    bool // the microphone is off
	Updating bool // an update is being installed
	Full     bool // the storage is full: nothing new can be remembered
	// StorageFault: the storage card cannot save, or held damaged files.
	StorageFault bool
	// Failed holds the error pattern on after a failed turn, which the
	// pipeline reports only for a moment.
	Failed bool
}

// Choose is the pattern for s, by the fixed priority: error, muted,
// updating, ringing, speaking, thinking, listening, storage fault, storage
// full, idle.
func Choose(s Status, dimIdle bool) Pattern {
	switch {
	case s.State == voice.Error || s.Failed:
		return Error
	case s.Muted:
		return Muted
	case s.Updating:
		return Updating
	case s.State == voice.Ringing:
		return Ringing
	case s.State == voice.Speaking:
		return Speaking
	case s.State == voice.Thinking || s.State == voice.Transcribing:
		return Thinking
	case s.State == voice.Listening && s.FollowUp:
		return FollowUp
	case s.State == voice.Listening:
		return Listening
	case s.StorageFault:
		return StorageFault
	case s.Full:
		return Full
	case dimIdle:
		return DimIdle
	}
	return Off
}

// Frame is the pattern on n LEDs, t into it. The strip applies the
// overall brightness.
func (p Pattern) Frame(n int, t time.Duration) []Color {
	out := make([]Color, n)
	level := p.Level
	phase := 0.0
	if p.Period > 0 {
		phase = float64(t%p.Period) / float64(p.Period)
	}
	switch p.Anim {
	case Solid:
		for i := range out {
			out[i] = p.Color.scale(level)
		}
	case Pulse:
		l := level * (0.65 - 0.35*math.Cos(2*math.Pi*phase)) // 30 % to 100 %
		for i := range out {
			out[i] = p.Color.scale(l)
		}
	case Spin:
		lit := int(phase * float64(n))
		for i := range out {
			if i == lit {
				out[i] = p.Color.scale(level)
			} else {
				out[i] = p.Color.scale(level * 0.1)
			}
		}
	case Blink:
		if phase < 0.5 {
			for i := range out {
				out[i] = p.Color.scale(level)
			}
		}
	}
	return out
}

// Animated reports whether the pattern changes with time.
func (p Pattern) Animated() bool { return p.Anim != Solid }
