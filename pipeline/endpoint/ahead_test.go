package endpoint_test

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// run is n frames of 20 ms scoring p, or soft ones when p is soft.
type run struct {
	n int
	p float32
}

// soft and quiet mark runs of soft frames (Endpointer.PushSoft) and of
// quiet ones scoring 1 (Endpointer.PushQuiet).
const (
	soft  = -1
	quiet = -2
)

func TestEndpointerPausesAndResumes(t *testing.T) {
	cases := []struct {
		name       string
		steps      []run
		complete   int           // the frame after which Complete is called; 0 for never
		incomplete int           // the frame after which Incomplete is called; 0 for never
		hushed     int           // the frame after which Hushed is called; 0 for never
		silence    time.Duration // the Endpointer's fixed Silence; 0 for the range
		want       map[int]endpoint.Decision
	}{
		{
			name:  "a pause, then speech again, then the long silence",
			steps: []run{{10, 1}, {20, 0}, {10, 1}, {60, 0}},
			want:  map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 32: endpoint.Resumed, 52: endpoint.Paused, 87: endpoint.Ended},
		},
		{
			// A sound of 40 ms in the silence is a click, not the user:
			// the silence goes on counting through it.
			name:  "a click in the silence",
			steps: []run{{10, 1}, {20, 0}, {2, 1}, {30, 0}},
			want:  map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 57: endpoint.Ended},
		},
		{
			// Whole words: the utterance ends at 300 ms of silence.
			name:     "complete at the pause",
			steps:    []run{{10, 1}, {13, 0}, {30, 0}},
			complete: 23,
			want:     map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 24: endpoint.Ended},
		},
		{
			// The verdict comes late, when 300 ms have passed: it ends at
			// once (Complete says so).
			name:     "complete after the settle",
			steps:    []run{{10, 1}, {20, 0}, {30, 0}},
			complete: 30,
			want:     map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 30: endpoint.Ended},
		},
		{
			// Other voices where the user's stopped: a pause, but the end
			// waits 1.5 s, not the long silence's 950 ms.
			name:  "soft frames end only after the soft silence",
			steps: []run{{10, 1}, {100, soft}},
			want:  map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 84: endpoint.Ended},
		},
		{
			// Words not whole: 500 ms into the silence, 200 ms of it soft,
			// the endpointer asks whether the soft frames hold words ...
			name:       "soft frames after words not whole",
			steps:      []run{{10, 1}, {100, soft}},
			incomplete: 30,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 34: endpoint.Murmuring, 84: endpoint.Ended},
		},
		{
			// ... and when they hold none, they are silence: the longest
			// wait (950 ms) ends the utterance.
			name:       "soft frames that hold no words",
			steps:      []run{{10, 1}, {100, soft}},
			incomplete: 30,
			hushed:     40,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 34: endpoint.Murmuring, 57: endpoint.Ended},
		},
		{
			// The answer comes late, the longest wait past: it ends at once.
			name:       "soft frames that hold no words, the answer late",
			steps:      []run{{10, 1}, {100, soft}},
			incomplete: 30,
			hushed:     70,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 34: endpoint.Murmuring, 70: endpoint.Ended},
		},
		{
			// The user's speech after them begins a new pause, whose soft
			// frames are not known to hold no words.
			name:       "speech after soft frames that held none",
			steps:      []run{{10, 1}, {30, soft}, {10, 1}, {100, soft}},
			incomplete: 30,
			hushed:     36,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 34: endpoint.Murmuring, 42: endpoint.Resumed, 62: endpoint.Paused, 124: endpoint.Ended},
		},
		{
			// After four seconds of speech the long wait is 500 ms of true
			// silence: a burst of the room's voices in the pause, known to
			// hold no words, does not make the end come later ...
			name:       "a burst of soft frames after long speech, then silence",
			steps:      []run{{210, 1}, {15, 0}, {12, soft}, {40, 0}},
			incomplete: 224,
			hushed:     236,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 222: endpoint.Paused, 234: endpoint.Murmuring, 246: endpoint.Ended},
		},
		{
			// ... than with no answer.
			name:       "a burst of soft frames after long speech, no answer",
			steps:      []run{{210, 1}, {15, 0}, {12, soft}, {40, 0}},
			incomplete: 224,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 222: endpoint.Paused, 234: endpoint.Murmuring, 246: endpoint.Ended},
		},
		{
			// No soft frames: no question; silence ends it as ever.
			name:       "silence after words not whole",
			steps:      []run{{10, 1}, {60, 0}},
			incomplete: 30,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 57: endpoint.Ended},
		},
		{
			// A fixed silence longer than the soft one: soft frames never
			// end the utterance sooner than silence would.
			name:    "soft frames under a longer fixed silence",
			silence: 2 * time.Second,
			steps:   []run{{10, 1}, {120, soft}},
			want:    map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 109: endpoint.Ended},
		},
		{
			name:     "whole words settle in soft frames",
			steps:    []run{{10, 1}, {13, soft}, {30, soft}},
			complete: 23,
			want:     map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 24: endpoint.Ended},
		},
		{
			// A true silence after the soft frames still ends at the long
			// wait counted in true silence alone.
			name:  "soft frames, then silence",
			steps: []run{{10, 1}, {20, soft}, {60, 0}},
			want:  map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 77: endpoint.Ended},
		},
		{
			// A word the detector is unsure of, after a second of silence
			// before it: the silence after it counts from its end.
			name:  "a weak word after a long silence",
			steps: []run{{60, 0}, {12, 0.4}, {60, 0}},
			want:  map[int]endpoint.Decision{69: endpoint.Began, 84: endpoint.Paused, 119: endpoint.Ended},
		},
		{
			// Voices louder than the room's but well under the user's:
			// whole words end as in silence ...
			name:     "whole words settle in quiet frames",
			steps:    []run{{10, 1}, {13, quiet}, {30, quiet}},
			complete: 23,
			want:     map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 24: endpoint.Ended},
		},
		{
			// ... and the user's speech going on after them is told.
			name:     "speech after quiet frames resumes",
			steps:    []run{{10, 1}, {13, quiet}, {5, 1}, {60, 0}},
			complete: 23,
			want:     map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 25: endpoint.Resumed, 40: endpoint.Paused, 74: endpoint.Ended},
		},
		{
			// Other words wait them out: they may be the user's quiet ones.
			// When they pause in turn, the words worked out at the first
			// pause may lack them: they are dropped and worked out anew.
			name:       "quiet frames hold words not whole",
			steps:      []run{{10, 1}, {100, quiet}, {60, 0}},
			incomplete: 30,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 122: endpoint.Resumed, 123: endpoint.Paused, 146: endpoint.Ended},
		},
		{
			name:       "quiet frames after a pause",
			steps:      []run{{10, 1}, {15, 0}, {10, quiet}, {60, 0}},
			incomplete: 30,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 47: endpoint.Resumed, 48: endpoint.Paused, 82: endpoint.Ended},
		},
		{
			// Until the verdict on the pause's words comes, they are not
			// dropped: whole, they end the utterance.
			name:       "quiet frames after a pause, the verdict late",
			steps:      []run{{10, 1}, {15, 0}, {10, quiet}, {60, 0}},
			incomplete: 55,
			want:       map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 55: endpoint.Resumed, 56: endpoint.Paused, 82: endpoint.Ended},
		},
		{
			name:     "quiet frames after a pause, the words whole late",
			steps:    []run{{10, 1}, {15, 0}, {10, quiet}, {60, 0}},
			complete: 55,
			want:     map[int]endpoint.Decision{4: endpoint.Began, 22: endpoint.Paused, 55: endpoint.Ended},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := &endpoint.Endpointer{Silence: tc.silence}
			got := map[int]endpoint.Decision{}
			at := 0
			for _, s := range tc.steps {
				for range s.n {
					if tc.complete > 0 && at == tc.complete {
						if d := e.Complete(); d != endpoint.Continue {
							got[at] = d
						}
					}
					if tc.incomplete > 0 && at == tc.incomplete {
						e.Incomplete()
					}
					if tc.hushed > 0 && at == tc.hushed {
						if d := e.Hushed(); d != endpoint.Continue {
							got[at] = d
						}
					}
					if _, ended := got[at]; ended && got[at] == endpoint.Ended {
						break
					}
					push := e.Push
					switch s.p {
					case soft:
						push = func(_ float32, d time.Duration) endpoint.Decision { return e.PushSoft(d) }
					case quiet:
						push = func(_ float32, d time.Duration) endpoint.Decision { return e.PushQuiet(1, d) }
					}
					if d := push(s.p, 20*time.Millisecond); d != endpoint.Continue {
						got[at] = d
					}
					at++
				}
			}
			// Only the first Ended counts: frames after it are not heard.
			for i := range at {
				if got[i] == endpoint.Ended {
					for j := i + 1; j < at; j++ {
						delete(got, j)
					}
				}
			}
			for i := range at {
				if got[i] != tc.want[i] {
					t.Errorf("frame %d: got %v, want %v (all: %v)", i, got[i], tc.want[i], got)
					break
				}
			}
		})
	}
}

// pauses is a voice.Pauses that answers each pause with verdict, and each
// murmur with hushed, after delay, and records what it was told.
type pauses struct {
	verdict, hushed bool
	delay           time.Duration
	mu              sync.Mutex
	told            []string
	last            voice.Utterance
}

func (p *pauses) Pause(ctx context.Context, u voice.Utterance) <-chan bool {
	return p.answer("pause", u, p.verdict)
}

func (p *pauses) Murmur(ctx context.Context, u voice.Utterance) <-chan bool {
	return p.answer("murmur", u, p.hushed)
}

// answer records being told what with u, and sends v after delay.
func (p *pauses) answer(what string, u voice.Utterance, v bool) <-chan bool {
	p.mu.Lock()
	p.told = append(p.told, what)
	p.last = u
	p.mu.Unlock()
	ch := make(chan bool, 1)
	go func() {
		time.Sleep(p.delay)
		ch <- v
	}()
	return ch
}

func (p *pauses) Resume() {
	p.mu.Lock()
	p.told = append(p.told, "resume")
	p.mu.Unlock()
}

// The words said so far decide the silence that ends the utterance: 300
// ms once they are whole (the verdict took 100 ms after the 250 ms pause:
// it ends on the verdict, 350 ms into the silence), the long wait when not.
func TestListenerEndsOnWholeWords(t *testing.T) {
	for _, tc := range []struct {
		whole    bool
		from, to time.Duration // the silence before the end
	}{{true, 340 * time.Millisecond, 380 * time.Millisecond}, {false, 900 * time.Millisecond, 1100 * time.Millisecond}} {
		synctest.Test(t, func(t *testing.T) {
			tl := &endpointtest.Timeline{Audio: endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(time.Second, 0.1)), Noise: 0.001}
			l := endpointtest.Listen(t, tl, endpoint.Options{})
			time.Sleep(900 * time.Millisecond)
			p := &pauses{verdict: tc.whole, delay: 100 * time.Millisecond}
			start := time.Now()
			u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p})
			if err != nil {
				t.Fatal(err)
			}
			// The tone ends 1.1 s after the press, its last syllable 50 ms
			// before that.
			quiet := time.Since(start) - 1050*time.Millisecond
			if quiet < tc.from || quiet > tc.to {
				t.Errorf("whole %v: ended %v into the silence, want %v-%v", tc.whole, quiet, tc.from, tc.to)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.told) != 1 || p.told[0] != "pause" {
				t.Errorf("told %v, want one pause", p.told)
			}
			if d := p.last.Speech[1] - p.last.Speech[0]; d < 900*time.Millisecond || p.last.Audio.Duration() > u.Audio.Duration() {
				t.Errorf("the pause was handed %v of speech in %v of audio; want the whole tone, no more audio than the end's %v", d, p.last.Audio.Duration(), u.Audio.Duration())
			}
		})
	}
}

// Speech that goes on after a pause is told: the pause's work is dropped,
// and a whole-words verdict arriving after it changes nothing.
func TestListenerResumesAfterAPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		audio := endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(time.Second, 0.1),
			endpointtest.Silence(400*time.Millisecond), endpointtest.Tone(time.Second, 0.1))
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.001}, endpoint.Options{})
		time.Sleep(900 * time.Millisecond)
		p := &pauses{verdict: true, delay: 500 * time.Millisecond} // slower than the pause
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p})
		if err != nil {
			t.Fatal(err)
		}
		if d := u.Speech[1] - u.Speech[0]; d < 2300*time.Millisecond {
			t.Errorf("speech of %v: the utterance ended in the pause", d)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.told) != 3 || p.told[0] != "pause" || p.told[1] != "resume" || p.told[2] != "pause" {
			t.Errorf("told %v, want pause, resume, pause", p.told)
		}
	})
}

// Room tone after speech ends the utterance as silence does: another voice
// 25 dB below the user's, or the room's own sounds, going on after they
// stopped, is not them.
func TestQuieterVoiceAfterSpeechIsSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		audio := endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(1500*time.Millisecond, 0.1),
			endpointtest.Tone(5*time.Second, 0.1/18)) // 25 dB down
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
		time.Sleep(900 * time.Millisecond)
		start := time.Now()
		if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("the utterance ended %v after the press: the quieter voice kept it going", took)
		}
	})
}

// scores runs audio through d and returns the score of each frame.
func scores(d endpoint.Detector, audio []float32) []float32 {
	n := d.FrameSize()
	var out []float32
	for i := 0; i+n <= len(audio); i += n {
		out = append(out, d.Speech(audio[i:i+n]))
	}
	return out
}

// TestOtherVoicesUnderTheUserAreNotSpeech: after the user's speech, other
// voices 26 dB below it, in bursts with gaps between (no steady floor to
// learn), score under the level that holds speech; a knock far louder
// than the user, before they speak, does not hide their voice.
func TestOtherVoicesUnderTheUserAreNotSpeech(t *testing.T) {
	const user = 0.05 // about -29 dBFS
	var babble [][]float32
	for range 6 {
		babble = append(babble, endpointtest.Tone(200*time.Millisecond, user/20), endpointtest.Silence(150*time.Millisecond))
	}
	audio := endpointtest.Cat(endpointtest.Silence(500*time.Millisecond), endpointtest.Tone(1500*time.Millisecond, user),
		endpointtest.Cat(babble...))
	got := scores(&endpoint.Energy{}, audio)
	for i, p := range got[100:] { // from 2 s: the other voices
		if p >= 0.35 {
			t.Fatalf("frame %d of the other voices scores %.2f: they would hold the utterance open", 100+i, p)
		}
	}
	knock := endpointtest.Tone(20*time.Millisecond, 0.9)
	audio = endpointtest.Cat(endpointtest.Silence(500*time.Millisecond), knock, endpointtest.Silence(300*time.Millisecond),
		endpointtest.Tone(time.Second, user))
	got = scores(&endpoint.Energy{}, audio)
	high := 0
	for _, p := range got[41:] { // the user's second
		if p >= 0.5 {
			high++
		}
	}
	if high < 40 {
		t.Errorf("%d of the user's 50 frames after a knock score as speech", high)
	}
}

// TestRoomVoicesDoNotHoldTheUtterance: in a room where other voices were
// already talking before the press (bursts 12 dB under the user, which
// the detector takes for speech), they do not hold the utterance open
// once the user stops: whole words end it as in a quiet room, other words
// after 1.5 s of the room's voices alone.
func TestRoomVoicesDoNotHoldTheUtterance(t *testing.T) {
	const user = 0.05 // about -29 dBFS
	said := endpointtest.Tone(1500*time.Millisecond, user)
	roomVoicesEnd(t, roomVoices(1500*time.Millisecond, user/4), said, roomVoices(6*time.Second, user/4), 1400*time.Millisecond, 1800*time.Millisecond)
}

// TestRoomVoicesBeforeALull: voices that fell silent for more than a
// second just before the press (a lull in a television's dialogue) are
// still the room's when they go on: the room is judged over the last four
// seconds, not only the pre-roll.
func TestRoomVoicesBeforeALull(t *testing.T) {
	const user = 0.05 // about -29 dBFS
	said := endpointtest.Tone(1500*time.Millisecond, user)
	before := endpointtest.Cat(roomVoices(3*time.Second, user/4), endpointtest.Silence(1200*time.Millisecond))
	roomVoicesEnd(t, before, said, roomVoices(6*time.Second, user/4), 1400*time.Millisecond, 1800*time.Millisecond)
}

// TestRoomVoicesHoldingNoWords: after words not whole, the room's voices
// go on where the user stopped. Handed over with them (Murmur), the words
// are the pause's: the voices are silence, and the longest wait (950 ms)
// ends the utterance instead of SoftSilence (1.5 s).
func TestRoomVoicesHoldingNoWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := wordsInARoom(t)
		start := time.Now()
		p := &pauses{hushed: true, delay: 100 * time.Millisecond}
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p})
		if err != nil {
			t.Fatal(err)
		}
		// The user stops 1.7 s after the press.
		if after := time.Since(start) - 1700*time.Millisecond; after < 900*time.Millisecond || after > 1150*time.Millisecond {
			t.Errorf("ended %v after the user stopped, want 900 ms-1.15 s", after)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !slices.Equal(p.told, []string{"pause", "murmur"}) {
			t.Errorf("told %v, want pause, murmur", p.told)
		}
		if end := p.last.Offset + p.last.Audio.Duration(); end < 2150*time.Millisecond {
			t.Errorf("the murmur was handed audio up to %v after the press, want the room's voices to 2.15 s in it", end)
		}
		if end := u.Offset + u.Audio.Duration(); end > 2300*time.Millisecond {
			t.Errorf("the utterance ends %v after the press, want the user's words and their margin (500 ms) only", end)
		}
	})
}

// wordsInARoom has the user say 1.5 s of words (about -29 dBFS) between
// the room's voices 12 dB under them, and returns at the press, 200 ms
// before the words: they end 1.7 s after it.
func wordsInARoom(t *testing.T) *endpoint.Listener {
	const user = 0.05
	audio := endpointtest.Cat(roomVoices(1500*time.Millisecond, user/4), endpointtest.Tone(1500*time.Millisecond, user), roomVoices(6*time.Second, user/4))
	l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
	time.Sleep(1300 * time.Millisecond)
	return l
}

// TestNoMurmurWhileHeld: while the button is held only the press ends
// the utterance: the room's voices are never transcribed for an end that
// silence cannot bring.
func TestNoMurmurWhileHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := wordsInARoom(t)
		p := &pauses{hushed: true, delay: 100 * time.Millisecond}
		end := make(chan struct{})
		time.AfterFunc(4*time.Second, func() { close(end) })
		if _, err := l.Record(t.Context(), voice.Listen{End: end, Pauses: p}); err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !slices.Equal(p.told, []string{"pause"}) {
			t.Errorf("told %v, want pause alone", p.told)
		}
	})
}

// TestRoomVoicesLouderAfterThePress: other voices that grow louder after
// the press than they were before it (a television turned up, someone
// coming closer) but stay 20 dB or more under the user's loudest are the
// room's, not the user's: the utterance ends as in a quiet room.
func TestRoomVoicesLouderAfterThePress(t *testing.T) {
	const user = 0.2 // about -17 dBFS
	// The user's request, with one stressed syllable 6 dB over the rest.
	said := endpointtest.Cat(endpointtest.Tone(700*time.Millisecond, user), endpointtest.Tone(150*time.Millisecond, 2*user), endpointtest.Tone(650*time.Millisecond, user))
	// 30 dB under the user before the press, 19 dB under after.
	roomVoicesEnd(t, roomVoices(1500*time.Millisecond, user/30), said, roomVoices(6*time.Second, user/9), 700*time.Millisecond, 1200*time.Millisecond)
}

// TestRoomVoicesLouderButUnderTheUser: voices turned up after the press
// to 14 dB under the user, louder than the room's were but well under the
// user's own, may be the user's quiet words: whole words end the
// utterance as in a quiet room, other words wait them out.
func TestRoomVoicesLouderButUnderTheUser(t *testing.T) {
	const user = 0.2 // about -17 dBFS
	said := endpointtest.Tone(1500*time.Millisecond, user)
	roomVoicesEnd(t, roomVoices(1500*time.Millisecond, user/30), said, roomVoices(6*time.Second, user/5), 6*time.Second, 7500*time.Millisecond)
}

// TestQuietWordsAfterAPauseAreTranscribed: words said well under the
// user's loudest after a pause, in a room with voices, may be theirs: the
// words worked out at the pause are dropped once those words pause in
// turn, and worked out again with them.
func TestQuietWordsAfterAPauseAreTranscribed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: quietWordsAfterAPause(), Noise: 0.0005}, endpoint.Options{})
		time.Sleep(1300 * time.Millisecond)
		p := &pauses{delay: 100 * time.Millisecond}
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p})
		if err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !slices.Equal(p.told, []string{"pause", "resume", "pause"}) {
			t.Errorf("told %v, want pause, resume, pause", p.told)
		}
		// The quiet words end 2.9 s after the press.
		if end := p.last.Offset + p.last.Audio.Duration(); end < 2900*time.Millisecond {
			t.Errorf("the last pause was handed audio up to %v after the press, want the quiet words' end (2.9 s) in it", end)
		}
		if end := u.Offset + u.Audio.Duration(); end < 2900*time.Millisecond {
			t.Errorf("the utterance ends %v after the press, before the quiet words did (2.9 s)", end)
		}
	})
}

// A press that ends the utterance after such words, before they paused
// or (holding the button) after words that were whole, drops the words
// worked out at the pause too: they lack the quiet ones; so does the
// length cap.
func TestQuietWordsCutByThePressAreTranscribed(t *testing.T) {
	for _, tc := range []struct {
		whole bool
		end   time.Duration // after the press
		max   time.Duration // the length cap, the second of pre-roll included
	}{{false, 2600 * time.Millisecond, 0}, {true, 4 * time.Second, 0}, {false, 5 * time.Second, 3500 * time.Millisecond}} {
		synctest.Test(t, func(t *testing.T) {
			l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: quietWordsAfterAPause(), Noise: 0.0005}, endpoint.Options{MaxLength: tc.max})
			time.Sleep(1300 * time.Millisecond)
			p := &pauses{verdict: tc.whole, delay: 100 * time.Millisecond}
			end := make(chan struct{})
			time.AfterFunc(tc.end, func() { close(end) })
			if _, err := l.Record(t.Context(), voice.Listen{End: end, Pauses: p}); err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if !slices.Equal(p.told, []string{"pause", "resume"}) {
				t.Errorf("whole %v, the press %v after, the cap %v: told %v, want pause, resume", tc.whole, tc.end, tc.max, p.told)
			}
		})
	}
}

// TestWholeWordsWaitForTheirVerdict: the room's louder voices pausing
// now and then (400 ms on, 300 ms off) do not drop the words worked out at
// the user's pause while their verdict is still coming: whole, they end
// the utterance when it comes.
func TestWholeWordsWaitForTheirVerdict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const user = 0.2 // about -17 dBFS
		var after [][]float32
		for range 10 {
			after = append(after, endpointtest.Tone(400*time.Millisecond, user/5), endpointtest.Silence(300*time.Millisecond))
		}
		audio := endpointtest.Cat(roomVoices(1500*time.Millisecond, user/30), endpointtest.Tone(1500*time.Millisecond, user), endpointtest.Cat(after...))
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
		time.Sleep(1300 * time.Millisecond)
		start := time.Now()
		p := &pauses{verdict: true, delay: 800 * time.Millisecond}
		if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p}); err != nil {
			t.Fatal(err)
		}
		if after := time.Since(start) - 1700*time.Millisecond; after > 1400*time.Millisecond {
			t.Errorf("ended %v after the user stopped, want the verdict's 1.05 s", after)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if !slices.Equal(p.told, []string{"pause"}) {
			t.Errorf("told %v, want one pause", p.told)
		}
	})
}

// quietWordsAfterAPause is a room's voices 30 dB under the user, then the
// user's words (from 1.5 s), a pause of 600 ms, and words 14 dB quieter
// (from 3.6 s to 4.2 s), then the room's voices again.
func quietWordsAfterAPause() []float32 {
	const user = 0.2 // about -17 dBFS
	return endpointtest.Cat(roomVoices(1500*time.Millisecond, user/30), endpointtest.Tone(1500*time.Millisecond, user),
		roomVoices(600*time.Millisecond, user/30), endpointtest.Tone(600*time.Millisecond, user/5), roomVoices(4*time.Second, user/30))
}

// roomVoices is d of other voices at level: bursts with gaps between.
func roomVoices(d time.Duration, level float64) []float32 {
	var parts [][]float32
	for range int(d / (300 * time.Millisecond)) {
		parts = append(parts, endpointtest.Tone(200*time.Millisecond, level), endpointtest.Silence(100*time.Millisecond))
	}
	return endpointtest.Cat(parts...)
}

// roomVoicesEnd has the user say 1.5 s of words between the room's voices
// before and after, pressing 200 ms before them, and checks when the
// utterance ends after they stop: within 300-700 ms when the words are a
// whole request, within from-to when they are not.
func roomVoicesEnd(t *testing.T, before, said, after []float32, from, to time.Duration) {
	t.Helper()
	for _, tc := range []struct {
		whole    bool
		from, to time.Duration // after the user stopped
	}{{true, 300 * time.Millisecond, 700 * time.Millisecond}, {false, from, to}} {
		synctest.Test(t, func(t *testing.T) {
			audio := endpointtest.Cat(before, said, after)
			l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
			time.Sleep(time.Duration(len(before))*time.Second/pcm.SpeechRate - 200*time.Millisecond)
			start := time.Now()
			p := &pauses{verdict: tc.whole, delay: 100 * time.Millisecond}
			if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p}); err != nil {
				t.Fatal(err)
			}
			if after := time.Since(start) - 1700*time.Millisecond; after < tc.from || after > tc.to {
				t.Errorf("whole %v: ended %v after the user stopped, want %v-%v", tc.whole, after, tc.from, tc.to)
			}
		})
	}
}

// fixed is a detector that gives every frame the same score.
type fixed float32

func (fixed) FrameSize() int                   { return 512 }
func (f fixed) Speech(frame []float32) float32 { return float32(f) }
func (fixed) Reset()                           {}

// TestGateSteadiesTheDetector: under the gate, a detector's score does
// not hold speech where the energy detector hears only the room's steady
// floor (a hum 10 dB under the user, within the voice gate), and a short
// loud word the detector gives a little chance counts as speech until the
// user's voice has been heard, and not when it gives none.
func TestGateSteadiesTheDetector(t *testing.T) {
	const user = 0.05
	hum := func(d time.Duration) []float32 {
		out := make([]float32, pcm.FramesIn(d, pcm.SpeechRate))
		for i := range out {
			out[i] = float32(user / 3 * math.Sqrt2 * math.Sin(2*math.Pi*150*float64(i)/pcm.SpeechRate))
		}
		return out
	}
	audio := hum(5 * time.Second) // the room's, under the user's second from 2 s
	for i, v := range endpointtest.Tone(time.Second, user) {
		audio[2*pcm.SpeechRate+i] += v
	}
	got := scores(endpoint.Gate(fixed(0.9)), audio)
	perSec := len(got) / 5
	if held := slices.Max(got[3*perSec+perSec/5:]); held >= 0.35 {
		t.Errorf("the room's hum after the user scores up to %.2f: it would hold the utterance open", held)
	}
	if n := slices.Index(got[2*perSec:3*perSec], 0.9); n < 0 || slices.Max(got[2*perSec:3*perSec]) != 0.9 {
		t.Errorf("the user's voice never scores the detector's 0.9: %v", got[2*perSec:3*perSec])
	}
	var voiced int
	for _, p := range got[2*perSec : 3*perSec] {
		if p == 0.9 {
			voiced++
		}
	}
	if voiced < perSec*7/10 {
		t.Errorf("%d of the user's %d frames keep the detector's score", voiced, perSec)
	}
	word := endpointtest.Cat(endpointtest.Silence(500*time.Millisecond), endpointtest.Tone(140*time.Millisecond, user), endpointtest.Silence(300*time.Millisecond))
	for _, tc := range []struct {
		chance float32
		heard  bool
	}{{0.1, true}, {0.01, false}} {
		got := scores(endpoint.Gate(fixed(tc.chance)), word)
		if heard := slices.Max(got) >= 0.5; heard != tc.heard {
			t.Errorf("a short word the detector gives %.2f: scored up to %.2f, heard %v, want %v", tc.chance, slices.Max(got), heard, tc.heard)
		}
	}
	// Once the detector has heard the user, it alone says what speech is.
	g := endpoint.Gate(&firstThen{n: int(time.Second / (32 * time.Millisecond)), first: 0.9, then: 0.1})
	got = scores(g, endpointtest.Cat(endpointtest.Tone(time.Second, user), word))
	if late := slices.Max(got[len(got)-len(word)/512:]); late >= 0.5 {
		t.Errorf("a short word after the user's voice was heard scores %.2f, want the detector's 0.1", late)
	}
	// A word's last sounds the detector lets go of (a closing fricative)
	// hold the speech while the energy detector is sure of them, for a
	// word's tail and no longer.
	const frame = 32 * time.Millisecond
	vowel := hum(1100 * time.Millisecond) // a steady sound from 0.5 s, 3 times the room's hum
	for i := range vowel {
		vowel[i] *= 3
	}
	g = endpoint.Gate(&firstThen{n: int(time.Second / frame), first: 0.9, then: 0.1})
	got = scores(g, endpointtest.Cat(endpointtest.Silence(500*time.Millisecond), vowel, endpointtest.Silence(300*time.Millisecond)))
	let := int(time.Second / frame) // the first frame the detector lets go of
	if tail := slices.Min(got[let : let+int(150*time.Millisecond/frame)]); tail < 0.35 {
		t.Errorf("the word's tail after the detector let go scores down to %.2f: the speech ends before the word does", tail)
	}
	if on := slices.Max(got[let+int(250*time.Millisecond/frame):]); on >= 0.35 {
		t.Errorf("a sound the detector does not take for speech scores %.2f 250 ms on: the energy detector holds it alone", on)
	}
}

// firstThen scores the first n frames first, the others then.
type firstThen struct {
	n           int
	first, then float32
	seen        int
}

func (f *firstThen) FrameSize() int { return 512 }
func (f *firstThen) Speech(frame []float32) float32 {
	f.seen++
	if f.seen <= f.n {
		return f.first
	}
	return f.then
}
func (f *firstThen) Reset() { f.seen = 0 }

// TestBoxsOwnSoundIsNotTheRoom: the box's own sound is neither the
// user's nor the room's voices. The start earcon, heard 12 dB over the
// user through the microphone in a room with voices, is not the user's
// loudest: their words after it are theirs, and a whole request is not
// ended inside them. And the box's last answer, in the seconds before the
// press in a quiet room, is not other voices: the user's quieter words
// after their loud ones are theirs, and a whole request is not ended
// inside them either.
func TestBoxsOwnSoundIsNotTheRoom(t *testing.T) {
	const user = 0.2 // about -17 dBFS
	for _, tc := range []struct {
		name   string
		answer bool    // the box answered from 3.7 s to 1.2 s before the press
		room   float64 // the room's voices
		said   []float32
	}{
		{"earcon", false, user / 4, endpointtest.Tone(1500*time.Millisecond, user)},
		{"answer", true, 0, endpointtest.Cat(endpointtest.Tone(1500*time.Millisecond, user), endpointtest.Tone(time.Second, user/4))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				before := roomVoices(4*time.Second, tc.room)
				if tc.answer {
					for i, v := range endpointtest.Tone(2500*time.Millisecond, user*2) {
						before[pcm.FramesIn(300*time.Millisecond, pcm.SpeechRate)+i] += v
					}
				}
				audio := endpointtest.Cat(before, endpointtest.Tone(150*time.Millisecond, user*4), // the earcon
					endpointtest.Silence(50*time.Millisecond), tc.said, roomVoices(4*time.Second, tc.room))
				l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
				opened := time.Now()
				time.Sleep(4 * time.Second)
				pressed := time.Now()
				echo := func(at time.Time) bool {
					earcon := !at.Before(pressed) && at.Sub(pressed) < 200*time.Millisecond
					answer := tc.answer && at.Sub(opened) >= 300*time.Millisecond && at.Sub(opened) < 2800*time.Millisecond
					return earcon || answer
				}
				p := &pauses{verdict: true, delay: 100 * time.Millisecond}
				if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p, Echo: echo}); err != nil {
					t.Fatal(err)
				}
				stopped := 200*time.Millisecond + time.Duration(len(tc.said))*time.Second/pcm.SpeechRate
				if after := time.Since(pressed) - stopped; after < 150*time.Millisecond || after > 700*time.Millisecond {
					t.Errorf("ended %v after the user stopped, want 150-700 ms (told %v)", after, p.told)
				}
			})
		})
	}
}

// TestRoomBeforeTheLastRequest: only the user's words are set aside from
// the room, not the rest of the last recording: pressed again a moment
// after a short request, in a lull of the television that talked before
// and around it, the television is still the room's.
func TestRoomBeforeTheLastRequest(t *testing.T) {
	const user = 0.05 // about -29 dBFS
	tv := func(d time.Duration) []float32 { return roomVoices(d, user/4) }
	stop := endpointtest.Tone(600*time.Millisecond, user)
	audio := endpointtest.Cat(tv(4200*time.Millisecond), stop, tv(600*time.Millisecond), // "stop" from 4.2 s, pressed at 4 s
		endpointtest.Silence(1300*time.Millisecond), endpointtest.Tone(1500*time.Millisecond, user), // a lull; pressed again at 6.5 s
		tv(6*time.Second))
	synctest.Test(t, func(t *testing.T) {
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
		opened := time.Now()
		time.Sleep(4 * time.Second)
		if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: &pauses{verdict: true, delay: 100 * time.Millisecond}}); err != nil {
			t.Fatal(err)
		}
		if ended := time.Since(opened); ended > 6500*time.Millisecond {
			t.Fatalf("\"stop\" ended at %v", ended)
		}
		time.Sleep(6500*time.Millisecond - time.Since(opened))
		p := &pauses{verdict: true, delay: 100 * time.Millisecond}
		if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p}); err != nil {
			t.Fatal(err)
		}
		if after := time.Since(opened) - 8200*time.Millisecond; after < 250*time.Millisecond || after > 700*time.Millisecond {
			t.Errorf("ended %v after the user stopped, want 250-700 ms (told %v)", after, p.told)
		}
	})
}

// TestLastRequestIsNotTheRoom: the user's last request, heard by the
// recording that took it a moment before the press, is not other voices
// in the room: after a short reply, the quieter words of the next request
// are the user's, and a whole request is not ended inside them.
func TestLastRequestIsNotTheRoom(t *testing.T) {
	const user = 0.2                                                                                             // about -17 dBFS
	audio := endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(1500*time.Millisecond, user), // the last request
		endpointtest.Silence(2*time.Second),                                                                                                // the box says "Done." from 3.5 s to 4 s
		endpointtest.Silence(200*time.Millisecond), endpointtest.Tone(1500*time.Millisecond, user), endpointtest.Tone(time.Second, user/4), // pressed at 4.5 s
		endpointtest.Silence(3*time.Second))
	synctest.Test(t, func(t *testing.T) {
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
		opened := time.Now()
		echo := func(at time.Time) bool {
			return at.Sub(opened) >= 3500*time.Millisecond && at.Sub(opened) < 4*time.Second
		}
		time.Sleep(800 * time.Millisecond)
		if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Echo: echo}); err != nil {
			t.Fatal(err)
		}
		if ended := time.Since(opened); ended > 4500*time.Millisecond {
			t.Fatalf("the last request ended at %v", ended)
		}
		time.Sleep(4500*time.Millisecond - time.Since(opened))
		p := &pauses{verdict: true, delay: 100 * time.Millisecond}
		if _, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Pauses: p, Echo: echo}); err != nil {
			t.Fatal(err)
		}
		if after := time.Since(opened) - 7200*time.Millisecond; after < 150*time.Millisecond || after > 700*time.Millisecond {
			t.Errorf("ended %v after the user stopped, want 150-700 ms (told %v)", after, p.told)
		}
	})
}

// TestEndpointerMurmursEachPause: a pause after the speech went on asks
// anew whether the room's voices in it hold words, once its own words are
// known not to be whole.
func TestEndpointerMurmursEachPause(t *testing.T) {
	e := &endpoint.Endpointer{}
	var murmurs []int
	at := 0
	push := func(n int, soft bool) {
		for range n {
			switch at {
			case 30, 64: // the verdicts on the two pauses' words
				e.Incomplete()
			case 36:
				e.Hushed()
			}
			var d endpoint.Decision
			if soft {
				d = e.PushSoft(20 * time.Millisecond)
			} else {
				d = e.Push(1, 20*time.Millisecond)
			}
			if d == endpoint.Murmuring {
				murmurs = append(murmurs, at)
			}
			at++
		}
	}
	push(10, false)
	push(30, true)
	push(10, false)
	push(100, true)
	if !slices.Equal(murmurs, []int{34, 74}) {
		t.Errorf("Murmuring at frames %v, want 34, 74", murmurs)
	}
}
