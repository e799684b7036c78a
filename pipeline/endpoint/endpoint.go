// Package endpoint decides when the user has finished speaking. It holds
// the voice activity detectors (an energy detector that follows the room's
// noise floor, and any Detector such as whisper.cpp's Silero model), the
// Endpointer that turns per-frame speech scores into "speech began" and
// "the utterance is over", and the Listener: the pipeline's Microphone
// over a live capture stream, with a pre-roll, a length cap, and the
// silence around speech trimmed before transcription.
package endpoint

import (
	"math"
	"slices"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Detector scores audio for speech.
type Detector interface {
	// FrameSize is the number of 16 kHz samples Speech takes.
	FrameSize() int
	// Speech returns how likely the frame is speech, from 0 to 1. Frames
	// come in order; Reset starts a new stream.
	Speech(frame []float32) float32
	Reset()
}

// Energy is a voice activity detector on loudness in the voice band: a
// frame is speech when its energy between 100 Hz and 7 kHz stands far
// enough above the noise floor. Band-limiting leaves out what rooms are
// most noisy with (hum, fans, traffic rumble) and none of a voice, its
// fricatives included.
// The floor is the quietest frame of the last second and a half (the gaps
// between words fall back to it), so it follows a fan switched on or a
// window opened without being told. The margin over it shrinks as the
// floor rises: in a quiet room a voice stands far above it and 12 dB keeps
// breaths and clicks out; in a loud one even a clear voice stands only a
// few decibels above, and 6 dB still hears it.
// Other voices in the room (a television, people talking) are no steady
// floor: their syllables rise above it as the user's do. Against them the
// detector also measures the user: a frame more than voiceGate below the
// level the user's speech held lately is not theirs, so babble 20 dB under
// the user's voice no longer holds the utterance open. A knock or a click
// is too short to set that level.
type Energy struct {
	// Margin, when set, is a fixed margin over the floor in dB instead of
	// the adaptive one.
	Margin float64
	// Quietest is the loudness below which nothing is speech, however
	// quiet the room; default -55 dBFS.
	Quietest float64

	recent []float64 // band loudness of the last floorWindow frames, a ring
	voice  voiceLevel
	next   int
	band   [2]biquad // high-pass, low-pass
	buf    []float32
}

var _ Detector = (*Energy)(nil)

const (
	// energyFrame is 20 ms.
	energyFrame = pcm.SpeechRate / 50
	// floorWindow is how many frames the floor is the minimum of: 1.5 s.
	floorWindow = 75
	// floorMin is the lowest floor: a microphone's own noise, however
	// silent the digital input.
	floorMin = -75.0
	// The adaptive margin: quietMargin over a floor at or below quietFloor,
	// down to loudMargin over one at or above loudFloor.
	quietMargin, loudMargin = 12.0, 6.0
	quietFloor, loudFloor   = -60.0, -35.0
	// voiceGate is how far below the user's held speech level lately a
	// frame is no longer theirs. Real speech ends quieter than espeak's:
	// at 20 dB the recorded LibriSpeech clips (TestEndpointOnSpeech) lost
	// their last word's tail, at 22 dB none did. Against babble 20 dB
	// below the user, the corpus's lag median falls from 1.6 s to 1.1 s;
	// a closer gate (16 dB: 0.5 s) would cut real people short.
	voiceGate = 22.0
	// voiceFall is how fast the held level is forgotten, in dB a second:
	// a user who turns away or lowers their voice is followed.
	voiceFall = 2.5
	// voiceHold is how long a sound must keep its level to count as the
	// user's speech level: a vowel does, a knock or a click does not.
	voiceHold = 80 * time.Millisecond
	// notVoice is the score of a frame under the gate: below keepLevel,
	// so it neither starts nor holds speech.
	notVoice = 0.3
)

// FrameSize is 20 ms.
func (e *Energy) FrameSize() int { return energyFrame }

// Reset forgets the floor and the filters' state.
func (e *Energy) Reset() {
	e.recent, e.next = e.recent[:0], 0
	e.voice = newVoiceLevel(energyFrame)
	e.band = voiceBand()
}

// margin is how far above floor speech must stand.
func (e *Energy) margin(floor float64) float64 {
	if e.Margin != 0 {
		return e.Margin
	}
	f := min(max((floor-quietFloor)/(loudFloor-quietFloor), 0), 1)
	return quietMargin - f*(quietMargin-loudMargin)
}

// Speech scores a frame: a soft step from 0 to 1 across the margin.
func (e *Energy) Speech(frame []float32) float32 {
	quietest := e.Quietest
	if quietest == 0 {
		quietest = -55
	}
	if e.band[0].b0 == 0 {
		e.band, e.voice = voiceBand(), newVoiceLevel(energyFrame)
	}
	e.buf = append(e.buf[:0], frame...)
	e.band[0].run(e.buf)
	e.band[1].run(e.buf)
	db := Loudness(e.buf)
	if len(e.recent) < floorWindow {
		e.recent = append(e.recent, db)
	} else {
		e.recent[e.next] = db
		e.next = (e.next + 1) % floorWindow
	}
	floor := max(slices.Min(e.recent), floorMin)
	if db < quietest {
		return 0
	}
	p := float32(1 / (1 + math.Exp(-(db-floor-e.margin(floor))*0.8)))
	return e.voice.gate(db, p)
}

// voiceLevel is the level the user's speech held lately, and the gate
// under it: a frame far below it is not the user's, whatever a detector
// scores it.
type voiceLevel struct {
	level  float64   // dBFS
	fall   float64   // dB a frame
	recent []float64 // the last frames' loudness, the oldest first
	hold   int       // frames in voiceHold
}

// noLevel is the level of a voice not yet heard.
const noLevel = -100.0

// newVoiceLevel is a level not yet heard, for frames of n samples.
func newVoiceLevel(n int) voiceLevel {
	frame := time.Duration(n) * time.Second / pcm.SpeechRate
	hold := max(int((voiceHold+frame-1)/frame), 1)
	return voiceLevel{level: noLevel, fall: voiceFall * frame.Seconds(), hold: hold, recent: make([]float64, 0, hold)}
}

// gate takes a frame's loudness db and a detector's score p for it, and
// returns the score: p, or at most notVoice under the gate.
func (v *voiceLevel) gate(db float64, p float32) float32 {
	if len(v.recent) == v.hold {
		v.recent = append(v.recent[:0], v.recent[1:]...)
	}
	v.recent = append(v.recent, db)
	v.level -= v.fall
	if held := slices.Min(v.recent); p > startLevel && len(v.recent) == v.hold && held > v.level {
		v.level = held
	}
	if db < v.level-voiceGate {
		return min(p, notVoice)
	}
	return p
}

// Gated is a detector (whisper.cpp's Silero model, on a box) steadied by
// the energy detector, which runs beside it on the same audio:
//   - the voice gate: a frame more than voiceGate below the level the
//     user's speech held lately is not theirs, however speech-like (other
//     voices in the room);
//   - a frame the energy detector scores as the room's floor does not hold
//     speech (in steady noise Silero's score lingers for a frame or more
//     after the last word);
//   - until the user's voice has been heard, a frame the energy detector
//     is sure of counts as speech when the detector gives it a little
//     chance (uncertainHeard): Silero scores some real short words
//     ("Stuff", 140 ms) under its own threshold in noise or when pressed
//     late;
//   - once it has, a word's last sounds the energy detector is sure of
//     hold the speech for up to wordTail where the detector lets go:
//     Silero drops a word's closing fricative ("lights") a frame or
//     several before it ends, which lengthened the pauses in a phrase
//     and cut one after a late press.
type Gated struct {
	d       Detector
	v       voiceLevel
	e       Energy
	pending []float32     // audio not yet a whole energy frame
	floor   float32       // the energy detector's score of the last whole frame
	held    bool          // the last frame was scored as speech
	tail    time.Duration // of this word's tail, held by the energy detector alone
}

var _ Detector = (*Gated)(nil)

// The energy detector's scores Gated trusts, and the least score of the
// detector it lets the energy detector's certainty take to speech.
const (
	energyFloor    = 0.2  // under it, a frame is the room's floor
	energySure     = 0.9  // over it, a frame is loud enough to be a word
	uncertainHeard = 0.05 // what the detector gives a word it is unsure of
	// wordTail is the most of a word's end the energy detector holds
	// alone: a closing fricative or plosive, not a word of its own.
	wordTail = 200 * time.Millisecond
)

// Gate puts the voice gate and the energy detector's judgement on d.
func Gate(d Detector) *Gated { return &Gated{d: d, v: newVoiceLevel(d.FrameSize())} }

// FrameSize is d's.
func (g *Gated) FrameSize() int { return g.d.FrameSize() }

// Speech is d's score, under the gate and steadied by the energy detector.
func (g *Gated) Speech(frame []float32) float32 {
	g.pending = append(g.pending, frame...)
	var pe float32
	whole := false
	for len(g.pending) >= energyFrame {
		pe = max(pe, g.e.Speech(g.pending[:energyFrame]))
		g.pending, whole = g.pending[energyFrame:], true
	}
	if whole {
		g.floor = pe
	}
	unheard := g.v.level <= noLevel
	raw := g.d.Speech(frame)
	p := g.v.gate(Loudness(frame), raw)
	switch {
	case g.floor < energyFloor:
		p = min(p, notVoice)
	case unheard && g.floor >= energySure && p >= uncertainHeard:
		p = max(p, startLevel)
	case !unheard && g.held && g.floor >= energySure && p < keepLevel && g.tail < wordTail:
		p = keepLevel
		g.tail += time.Duration(len(frame)) * time.Second / pcm.SpeechRate
	}
	if raw >= keepLevel {
		g.tail = 0
	}
	g.held = p >= keepLevel
	return p
}

// Reset starts a new stream.
func (g *Gated) Reset() {
	g.d.Reset()
	g.e.Reset()
	g.v = newVoiceLevel(g.d.FrameSize())
	g.pending, g.floor, g.held, g.tail = g.pending[:0], 0, false, 0
}

// biquad is a second-order filter section (direct form I).
type biquad struct {
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
}

func (q *biquad) run(s []float32) {
	for i, v := range s {
		x := float64(v)
		y := q.b0*x + q.b1*q.x1 + q.b2*q.x2 - q.a1*q.y1 - q.a2*q.y2
		q.x2, q.x1, q.y2, q.y1 = q.x1, x, q.y1, y
		s[i] = float32(y)
	}
}

// voiceBand is a 100 Hz high-pass and a 7 kHz low-pass at 16 kHz, each a
// Butterworth section (the audio EQ cookbook's formulas).
func voiceBand() [2]biquad {
	section := func(f float64, high bool) biquad {
		w := 2 * math.Pi * f / pcm.SpeechRate
		alpha := math.Sin(w) / math.Sqrt2 // sin(w) / 2Q, Q = 1/sqrt(2)
		cos := math.Cos(w)
		a0 := 1 + alpha
		var b0, b1 float64
		if high {
			b0, b1 = (1+cos)/2, -(1 + cos)
		} else {
			b0, b1 = (1-cos)/2, 1-cos
		}
		return biquad{b0: b0 / a0, b1: b1 / a0, b2: b0 / a0, a1: -2 * cos / a0, a2: (1 - alpha) / a0}
	}
	return [2]biquad{section(100, true), section(7000, false)}
}

// Loudness is a frame's RMS level in dBFS (-100 for silence).
func Loudness(frame []float32) float64 {
	var sum float64
	for _, v := range frame {
		sum += float64(v) * float64(v)
	}
	if len(frame) == 0 || sum == 0 {
		return -100
	}
	return max(10*math.Log10(sum/float64(len(frame))), -100)
}

// Decision is what an Endpointer concluded from a frame.
type Decision int

// The decisions.
const (
	Continue  Decision = iota // nothing new
	Began                     // speech began
	Ended                     // speech was followed by enough silence
	NoSpeech                  // no speech began in time
	TooLong                   // the utterance reached the length cap
	Paused                    // the speech paused for PauseAfter: a moment to work ahead
	Resumed                   // the speech went on after a Paused
	Murmuring                 // soft sounds go on in the pause: a moment to ask whether they hold words
)

func (d Decision) String() string {
	return [...]string{"continue", "began", "ended", "no speech", "too long", "paused", "resumed", "murmuring"}[d]
}

// Endpointer turns per-frame speech scores into decisions. Times are
// audio time: the frames' own duration, not the wall clock.
//
// Speech begins where a run of frames scoring at least 0.5 lasts MinSpeech,
// and is placed back to where that run first rose above 0.2 (a detector's
// score climbs over the first syllable); it goes on while frames score at
// least 0.35. A run above 0.2 that lasts 200 ms with a mean score of 0.35
// or more begins it too: a short word a detector is unsure of in noise.
// Once it has begun, a sound more than quickGap into a silence takes it up
// again only when it lasts resumeSpeech: a click, a knock or a peak of the
// room's noise is part of the silence.
//
// The silence that ends it depends on what came before: the longest wait
// (MaxSilence) after a word or two, or after a last burst too short to be
// more than a trailing syllable, and less the longer the speech (down to
// MinSilence after four seconds of it), so a command with a pause in it
// survives and a long one ends fast; and only Settle once the words so far
// are known to make a whole request (Complete). After PauseAfter of
// silence it says Paused, once per pause, and Resumed when the speech goes
// on after that.
//
// A frame pushed with PushSoft is one a detector took for speech that is
// no louder than the other voices in the room: silence for Paused and for
// Settle, so a whole request said over a television still ends soon, but a
// silence made of such frames ends the utterance on its own only after
// SoftSilence, since the user's own quiet words sound the same. Words
// tell them apart: when such frames have gone on for murmurSoft in a
// pause whose words are not whole, murmurAfter into the silence, the
// endpointer says Murmuring, once per pause; told that they hold no words
// (Hushed), it counts them as silence from then on.
//
// A frame pushed with PushQuiet is one a detector took for speech that is
// louder than those voices but well under the user's own: the room's
// voices turned up, or the user's quiet words. Words alone tell them
// apart, so it is silence for Paused and for Settle (a whole request said
// over it still ends soon, the quiet frames after it taken for the
// room's), and speech for the silence that ends without them. When such
// speech comes after a pause whose words are not whole (Incomplete) and
// pauses in turn, the endpointer says Resumed and then Paused again, so
// that the words are worked out anew with it.
//
// (The box's own earcon heard through the microphone is the Listener's to
// ignore, and a click is shorter than MinSpeech: a short word said at the
// press is the user, never forgotten.)
type Endpointer struct {
	// MinSilence and MaxSilence bound the silence after speech that ends
	// the utterance; defaults 500 ms and 950 ms. Silence, when set, is a
	// fixed wait instead.
	MinSilence, MaxSilence time.Duration
	Silence                time.Duration
	// Settle is the silence that ends an utterance whose words are known to
	// make a whole request; default 300 ms.
	Settle time.Duration
	// PauseAfter is the silence after which the speech counts as paused;
	// default 250 ms.
	PauseAfter time.Duration
	// SoftSilence is the silence, soft frames (PushSoft) counted, that ends
	// an utterance whose words are not known to be a whole request;
	// default 1.5 s.
	SoftSilence time.Duration
	// StartTimeout ends an utterance in which no speech began; 0 waits.
	StartTimeout time.Duration
	// MaxLength caps an utterance; default 15 s.
	MaxLength time.Duration
	// MinSpeech is how much speech must come before it counts as begun,
	// so a click is not; default 90 ms (a short word scores above 0.5 for
	// little more than that in noise).
	MinSpeech time.Duration
	// PressAt is where in the audio the press came (after the pre-roll):
	// StartTimeout counts from there.
	PressAt time.Duration

	elapsed, speechRun, silenceRun time.Duration
	hush                           time.Duration // the silence for Paused and Settle: quiet frames counted
	loudResume                     time.Duration // a sound not quiet in the hush, not yet taken for speech
	softRun                        time.Duration // the soft frames in the silence
	spoken, lastRun                time.Duration // speech so far; the last run before the silence
	resume                         time.Duration // a sound in the silence, not yet taken for speech
	weak                           time.Duration // the current run above onsetLevel
	weakSum                        float64       // its scores times their durations
	began, rising                  bool
	paused, complete               bool          // this silence said Paused; its words are a whole request
	murmured, hushed               bool          // this pause said Murmuring; its soft frames hold no words
	stale                          bool          // quiet speech came after Paused: the pause's words may lack it
	judging                        bool          // Paused, and no verdict on its words yet
	onset                          time.Duration // where the current rise above onsetLevel began
	start, end                     time.Duration // speech bounds, audio time
}

// The score levels: speech starts at startLevel, goes on down to
// keepLevel, and its start is traced back to where it rose above
// onsetLevel.
const (
	startLevel = 0.5
	keepLevel  = 0.35
	onsetLevel = 0.2
	// resumeSpeech is how long a sound in the silence after speech must
	// last to take the speech up again.
	resumeSpeech = 60 * time.Millisecond
	// quickGap is the start of a silence in which any sound takes the
	// speech up again at once.
	quickGap = 100 * time.Millisecond
	// weakSpeech is how long a run above onsetLevel whose mean score is
	// keepLevel or more must last to begin speech as well: a short word a
	// detector is unsure of in noise.
	weakSpeech = 200 * time.Millisecond
	// murmurAfter is the silence, and murmurSoft the soft frames in it,
	// after which a pause whose words are not whole says Murmuring: time
	// enough for the user's quiet words after a pause to have begun.
	murmurAfter = 500 * time.Millisecond
	murmurSoft  = 200 * time.Millisecond
)

// over reports a silence long enough to end the utterance: Settle once
// its words are a whole request, else the long wait, soft frames left out,
// or SoftSilence with them (never less than the long wait), or the
// longest wait with them once they are known to hold no words.
func (e *Endpointer) over() bool {
	if e.complete {
		return e.loudResume == 0 && e.hush >= min(e.settle(), e.long())
	}
	if e.resume > 0 {
		return false
	}
	// Soft frames after those Murmuring handed over may be the user's
	// next words coming in softly: the longest wait outlasts a pause.
	if _, hi := e.waits(); e.hushed && e.silenceRun >= hi {
		return true
	}
	return e.silenceRun-e.softRun >= e.long() || e.softRun > 0 && e.silenceRun >= max(e.softSilence(), e.long())
}

func (e *Endpointer) softSilence() time.Duration {
	if e.SoftSilence == 0 {
		return 1500 * time.Millisecond
	}
	return e.SoftSilence
}

func (e *Endpointer) settle() time.Duration {
	if e.Settle == 0 {
		return 300 * time.Millisecond
	}
	return e.Settle
}

func (e *Endpointer) pauseAfter() time.Duration {
	if e.PauseAfter == 0 {
		return 250 * time.Millisecond
	}
	return e.PauseAfter
}

// long is the wait that ends the utterance on silence alone.
func (e *Endpointer) long() time.Duration {
	lo, hi := e.waits()
	// A word or two, or a last burst of a syllable: the user may be
	// pausing mid-phrase.
	if e.spoken < 400*time.Millisecond || e.lastRun < 200*time.Millisecond {
		return hi
	}
	// The longer the speech so far, the more likely it is complete: the
	// wait shrinks to lo over four seconds of it.
	f := min(float64(e.spoken-400*time.Millisecond)/float64(3600*time.Millisecond), 1)
	return hi - time.Duration(f*float64(hi-lo))
}

// waits are the shortest and the longest silence that end the utterance
// on silence alone.
func (e *Endpointer) waits() (lo, hi time.Duration) {
	if e.Silence > 0 {
		return e.Silence, e.Silence
	}
	lo, hi = e.MinSilence, e.MaxSilence
	if lo == 0 {
		lo = 500 * time.Millisecond
	}
	if hi == 0 {
		// Above the longest pause mid-phrase the corpus holds (700 ms,
		// heard as up to 900 ms at 10 dB SNR, where a word's edges sink
		// into the noise), and under the 1 s a user feels as a wait.
		hi = 950 * time.Millisecond
	}
	return lo, max(hi, lo)
}

func (e *Endpointer) maxLength() time.Duration {
	if e.MaxLength == 0 {
		return 15 * time.Second
	}
	return e.MaxLength
}

func (e *Endpointer) minSpeech() time.Duration {
	if e.MinSpeech == 0 {
		return 90 * time.Millisecond
	}
	return e.MinSpeech
}

// Push takes the next frame's speech score and length.
func (e *Endpointer) Push(p float32, d time.Duration) Decision { return e.push(p, d, loud) }

// PushSoft takes the next frame's length: a frame a detector took for
// speech that is no louder than the other voices in the room (see
// Endpointer).
func (e *Endpointer) PushSoft(d time.Duration) Decision { return e.push(0, d, soft) }

// PushQuiet takes the next frame's speech score and length: a frame that
// may be the user's quiet words or the room's louder voices (see
// Endpointer).
func (e *Endpointer) PushQuiet(p float32, d time.Duration) Decision { return e.push(p, d, quiet) }

// frameKind is how a frame is pushed.
type frameKind int

const (
	loud  frameKind = iota // Push: the user's, or silence
	soft                   // PushSoft
	quiet                  // PushQuiet
)

func (e *Endpointer) push(p float32, d time.Duration, kind frameKind) Decision {
	at := e.elapsed
	e.elapsed += d
	if p >= onsetLevel {
		if !e.rising {
			e.rising, e.onset, e.weak, e.weakSum = true, at, 0, 0
		}
		e.weak += d
		e.weakSum += float64(p) * d.Seconds()
	} else {
		e.rising = false
	}
	inRun := e.speechRun > 0
	speech := p >= startLevel || (inRun || e.resume > 0) && p >= keepLevel
	resumed := false
	// The hush goes on through quiet frames; the user's own speech takes
	// it up again as it does the silence.
	switch {
	case speech && kind != quiet:
		if e.hush == 0 {
			break
		}
		e.loudResume += d
		e.hush += d
		if e.loudResume >= resumeSpeech || e.hush-e.loudResume < quickGap {
			e.hush, e.loudResume = 0, 0
			if e.paused {
				resumed = true
				e.unpause()
			}
		}
	case speech || p < keepLevel:
		e.hush += d
		e.loudResume = 0
	}
	switch {
	case speech && e.began && !inRun:
		// A sound in the silence: speech again once it lasts, or at once
		// in the silence's first moment (a word's last sound).
		e.resume += d
		e.silenceRun += d
		if e.resume >= resumeSpeech || e.silenceRun-e.resume < quickGap {
			e.speechRun, e.spoken, e.silenceRun, e.softRun, e.end = e.resume, e.spoken+e.resume, 0, 0, e.elapsed
			e.resume, e.stale = 0, e.paused
		}
	case speech:
		if !inRun && !e.began {
			e.start = e.onset
		}
		e.stale = e.stale || e.paused
		e.speechRun += d
		e.spoken += d
		e.silenceRun, e.softRun = 0, 0
		e.end = e.elapsed
	case p < keepLevel:
		if inRun {
			e.lastRun = e.speechRun
		}
		e.speechRun, e.resume = 0, 0
		e.silenceRun += d
		if kind == soft {
			e.softRun += d
		}
		if !e.began {
			e.spoken = 0
		}
	}
	switch {
	case !e.began && e.speechRun >= e.minSpeech():
		e.began = true
		return Began
	case !e.began && e.rising && e.weak >= weakSpeech && e.weakSum/e.weak.Seconds() >= keepLevel:
		// The silence before the speech is no silence after it.
		e.began, e.start, e.end, e.spoken, e.lastRun = true, e.onset, e.elapsed, e.weak, e.weak
		e.silenceRun, e.softRun, e.hush = 0, 0, 0
		return Began
	case resumed:
		return Resumed
	case e.began && e.over():
		return Ended
	case e.stale && !e.judging && !e.complete && e.speechRun == 0 && e.resume == 0 && e.silenceRun >= e.pauseAfter():
		// Quiet speech went on after a pause whose words are not whole,
		// and has paused in turn: the words worked out at the pause may
		// lack it, so they are dropped (Resumed), and worked out again
		// (Paused, next frame).
		e.unpause()
		return Resumed
	case e.began && !e.paused && e.hush >= e.pauseAfter():
		e.paused, e.judging = true, true
		return Paused
	case e.paused && !e.complete && !e.judging && !e.murmured && e.resume == 0 && e.softRun >= murmurSoft && e.silenceRun >= murmurAfter:
		e.murmured = true
		return Murmuring
	case !e.began && e.StartTimeout > 0 && e.elapsed-e.PressAt >= e.StartTimeout:
		return NoSpeech
	case e.elapsed >= e.maxLength():
		return TooLong
	}
	return Continue
}

// Complete tells the endpointer that the words up to the current pause
// make a whole request: the silence that ends the utterance is Settle. It
// returns Ended when that much silence has passed already. It does nothing
// when the speech is not paused.
func (e *Endpointer) Complete() Decision {
	if !e.began || !e.paused {
		return Continue
	}
	e.complete, e.judging = true, false
	if e.over() {
		return Ended
	}
	return Continue
}

// unpause ends the current pause: the speech went on after it.
func (e *Endpointer) unpause() {
	e.paused, e.complete, e.stale, e.judging, e.murmured, e.hushed = false, false, false, false, false, false
}

// Hushed tells the endpointer that the soft frames since the current
// pause (Murmuring) hold no words: they are the room's, and count as
// silence. It returns Ended when that much silence has passed already.
// It does nothing when the pause has not said Murmuring.
func (e *Endpointer) Hushed() Decision {
	if !e.paused || !e.murmured {
		return Continue
	}
	e.hushed = true
	if e.over() {
		return Ended
	}
	return Continue
}

// pausing reports a silence after speech that has lasted PauseAfter.
func (e *Endpointer) pausing() bool {
	return e.began && e.speechRun == 0 && e.silenceRun >= e.pauseAfter()
}

// Incomplete tells the endpointer that the words up to the current pause
// are not known to make a whole request (or that no verdict will come).
func (e *Endpointer) Incomplete() {
	if e.paused {
		e.judging = false
	}
}

// Stale reports quiet speech (PushQuiet) after the last Paused: the words
// worked out at that pause may lack it. An utterance that ends on those
// words (Ended once they are whole) takes the quiet speech for the room's;
// one ended otherwise (a press, the length cap) must work its words out
// anew.
func (e *Endpointer) Stale() bool { return e.stale }

// HasBegun reports whether speech has begun.
func (e *Endpointer) HasBegun() bool { return e.began }

// Speech is where the speech lies in the audio pushed so far: from its
// first frame to the end of its last; zero before it began.
func (e *Endpointer) Speech() (from, to time.Duration) {
	if !e.began {
		return 0, 0
	}
	return e.start, e.end
}
