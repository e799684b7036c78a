package endpoint_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

func TestTapEndsAfterSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 1 s of room, 1.5 s of "speech", then quiet.
		tl := &endpointtest.Timeline{Audio: endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(1500*time.Millisecond, 0.1)), Noise: 0.001}
		l := endpointtest.Listen(t, tl, endpoint.Options{})
		time.Sleep(900 * time.Millisecond) // the press comes just before the speech
		start := time.Now()
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		// Speech ends 1.6 s after the press (its last syllable 50 ms
		// before); after 1.5 s of it (1.2 s of syllables) the silence that
		// ends it is about 840 ms (of the 500-950 ms range), give or take
		// a frame.
		if took := time.Since(start); took < 2350*time.Millisecond || took > 2450*time.Millisecond {
			t.Errorf("the utterance ended %v after the press, want about 2.4 s", took)
		}
		// Everything from the start of the pre-roll (0.9 s of it: the
		// capture had run that long), the speech and 500 ms after it.
		if d := u.Audio.Duration(); d < 2850*time.Millisecond || d > 3000*time.Millisecond {
			t.Errorf("utterance of %v, want the pre-roll, 1.5 s of speech and 500 ms after it", d)
		}
		if u.Offset > -800*time.Millisecond || u.Speech[0] < 850*time.Millisecond || u.Speech[1]-u.Speech[0] < 1450*time.Millisecond {
			t.Errorf("offset %v, speech %v: want the audio from the pre-roll and the speech placed in it", u.Offset, u.Speech)
		}
		if u.Cut {
			t.Error("marked cut")
		}
	})
}

func TestPreRollKeepsTheFirstSyllable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The speech begins 200 ms before the press is handled.
		tl := &endpointtest.Timeline{Audio: endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(time.Second, 0.1))}
		l := endpointtest.Listen(t, tl, endpoint.Options{})
		time.Sleep(1200 * time.Millisecond)
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := u.Audio.Duration(); d < 1100*time.Millisecond {
			t.Errorf("utterance of %v: the speech before the press was lost", d)
		}
		// The whole second of pre-roll is kept (the speech began 800 ms
		// into it), and the speech is placed at its true start (a 20 ms
		// frame either way).
		at := pcm.FramesIn(u.Speech[0], pcm.SpeechRate)
		if u.Offset != -time.Second || u.Speech[0] < 780*time.Millisecond || u.Speech[0] > 820*time.Millisecond {
			t.Errorf("offset %v, speech placed %v into the Audio: want the whole pre-roll and the speech 800 ms in", u.Offset, u.Speech[0])
		}
		if lvl := endpoint.Loudness(u.Audio.Samples[at+320 : at+1920]); lvl < -25 {
			t.Errorf("the utterance's speech is at %.0f dBFS, want the tone", lvl)
		}
	})
}

func TestHoldEndsOnlyWithTheButton(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two phrases with a long pause: tap mode would end in the pause.
		tl := &endpointtest.Timeline{Audio: endpointtest.Cat(endpointtest.Silence(500*time.Millisecond), endpointtest.Tone(time.Second, 0.1), endpointtest.Silence(1500*time.Millisecond), endpointtest.Tone(time.Second, 0.1))}
		l := endpointtest.Listen(t, tl, endpoint.Options{})
		end := make(chan struct{})
		time.AfterFunc(4500*time.Millisecond, func() { close(end) })
		u, err := l.Record(t.Context(), voice.Listen{End: end})
		if err != nil {
			t.Fatal(err)
		}
		if d := u.Audio.Duration(); d < 3400*time.Millisecond {
			t.Errorf("utterance of %v, want both phrases", d)
		}
	})
}

func TestNoSpeechInTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tl := &endpointtest.Timeline{Noise: 0.002}
		l := endpointtest.Listen(t, tl, endpoint.Options{})
		start := time.Now()
		_, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second})
		if !errors.Is(err, voice.ErrNoSpeech) {
			t.Fatalf("err = %v, want ErrNoSpeech", err)
		}
		if took := time.Since(start); took < 4980*time.Millisecond || took > 5100*time.Millisecond {
			t.Errorf("gave up after %v, want 5 s", took)
		}
		// A press and release with nothing said is no speech too.
		end := make(chan struct{})
		time.AfterFunc(time.Second, func() { close(end) })
		if _, err := l.Record(t.Context(), voice.Listen{End: end}); !errors.Is(err, voice.ErrNoSpeech) {
			t.Errorf("an empty hold: %v", err)
		}
	})
}

func TestMaxLengthCuts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tl := &endpointtest.Timeline{Audio: endpointtest.Tone(time.Minute, 0.1)}
		l := endpointtest.Listen(t, tl, endpoint.Options{MaxLength: 15 * time.Second})
		start := time.Now()
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); !u.Cut || took < 14700*time.Millisecond || took > 15100*time.Millisecond {
			t.Errorf("cut %v after %v, want cut at 15 s (pre-roll included)", u.Cut, took)
		}
	})
}

func TestMuteClosesTheCapture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tl := &endpointtest.Timeline{Audio: endpointtest.Tone(time.Minute, 0.1)}
		l := endpointtest.Listen(t, tl, endpoint.Options{})
		rec := make(chan error, 1)
		go func() {
			_, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true})
			rec <- err
		}()
		time.Sleep(time.Second)
		l.SetMuted(true)
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		if err := <-rec; !errors.Is(err, voice.ErrMuted) {
			t.Errorf("the recording under way: %v, want ErrMuted", err)
		}
		tl.Mu.Lock()
		if tl.Closes != 1 {
			t.Errorf("stream closed %d times, want the capture closed", tl.Closes)
		}
		tl.Mu.Unlock()
		if _, err := l.Record(t.Context(), voice.Listen{}); !errors.Is(err, voice.ErrMuted) || !l.Muted() {
			t.Errorf("a recording while muted: %v", err)
		}
		l.SetMuted(false)
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		tl.Mu.Lock()
		defer tl.Mu.Unlock()
		if tl.Opens != 2 {
			t.Errorf("opened %d times, want reopened on unmute", tl.Opens)
		}
	})
}

func TestBrokenMicrophoneIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tl := &endpointtest.Timeline{Failing: errors.New("no such device")}
		l := endpointtest.Listen(t, tl, endpoint.Options{Retry: 2 * time.Second})
		if _, err := l.Record(t.Context(), voice.Listen{}); err == nil || !strings.Contains(err.Error(), "no such device") {
			t.Errorf("recording from a broken microphone: %v", err)
		}
		tl.Mu.Lock()
		tl.Failing = nil
		tl.Mu.Unlock()
		time.Sleep(2100 * time.Millisecond)
		synctest.Wait()
		tl.Mu.Lock()
		defer tl.Mu.Unlock()
		if tl.Opens != 1 {
			t.Errorf("opened %d times after the device came back", tl.Opens)
		}
	})
}

// Health is what the watchdog follows: the loop beats while it captures
// and while it is muted, and stops beating when a read hangs.
func TestHealthFollowsTheCaptureLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hang := make(chan struct{})
		var reads atomic.Int32
		src := endpoint.SourceFunc[*hangingStream](func() (*hangingStream, error) {
			return &hangingStream{hang: hang, reads: &reads}, nil
		})
		l := endpoint.New(endpoint.Options{Source: src})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go l.Run(ctx)
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		last, down := l.Health()
		if down != nil || time.Since(last) > 20*time.Millisecond {
			t.Fatalf("capturing: last beat %v ago, down %v", time.Since(last), down)
		}
		l.SetMuted(true)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		last, down = l.Health()
		if down != voice.ErrMuted || time.Since(last) > time.Second {
			t.Fatalf("muted: last beat %v ago, down %v; want ErrMuted and a beat a second", time.Since(last), down)
		}
		l.SetMuted(false)
		time.Sleep(100 * time.Millisecond)
		reads.Store(-1000) // from now on every read hangs
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if last, _ = l.Health(); time.Since(last) < 9*time.Second {
			t.Errorf("a hung read still beats: last beat %v ago", time.Since(last))
		}
		close(hang)
	})
}

type hangingStream struct {
	hang  chan struct{}
	reads *atomic.Int32
}

func (s *hangingStream) Read(ctx context.Context, p []float32) (int, error) {
	if s.reads.Add(1) <= 0 {
		<-s.hang // a driver that never returns
		return 0, errors.New("hung")
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(20 * time.Millisecond):
	}
	return copy(p, make([]float32, 320)), nil
}

func (s *hangingStream) Close() error { return nil }

// TestOwnSoundIsNotSpeech: the box's earcon heard through the microphone
// right after the press (as loud as speech, longer than a blip) is not the
// start of the utterance when the recording is told the box was sounding;
// untold, it would have ended the utterance before the user spoke.
func TestOwnSoundIsNotSpeech(t *testing.T) {
	audio := endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(300*time.Millisecond, 0.1),
		endpointtest.Silence(2*time.Second), endpointtest.Tone(time.Second, 0.1))
	for _, told := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.001}, endpoint.Options{})
			time.Sleep(time.Second)
			pressed := time.Now()
			ls := voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second}
			if told {
				ls.Echo = func(at time.Time) bool { return !at.Before(pressed) && at.Sub(pressed) < 400*time.Millisecond }
			}
			u, err := l.Record(t.Context(), ls)
			if err != nil {
				t.Fatal(err)
			}
			heard := u.Speech[1] - u.Speech[0]
			switch {
			case told && (heard < 900*time.Millisecond || heard > 1100*time.Millisecond):
				t.Errorf("told of the earcon: speech of %v, want the second of the user's", heard)
			case !told && heard > 500*time.Millisecond:
				t.Errorf("untold, the earcon should have been taken for speech and ended the utterance; heard %v", heard)
			}
		})
	}
}

// TestBoxsLastWordsAreNotTheUser: a press half a second after the box
// stopped speaking starts with the end of its answer in the audio from
// before the press; that is the box, not the start of the user's words.
func TestBoxsLastWordsAreNotTheUser(t *testing.T) {
	audio := endpointtest.Cat(endpointtest.Silence(time.Second), endpointtest.Tone(time.Second, 0.1), // the box's answer
		endpointtest.Silence(700*time.Millisecond), endpointtest.Tone(time.Second, 0.05), endpointtest.Silence(3*time.Second))
	synctest.Test(t, func(t *testing.T) {
		l := endpointtest.Listen(t, &endpointtest.Timeline{Audio: audio, Noise: 0.0005}, endpoint.Options{})
		opened := time.Now()
		answer, answered := opened.Add(time.Second), opened.Add(2*time.Second)
		time.Sleep(2500 * time.Millisecond)
		echo := func(at time.Time) bool { return !at.Before(answer) && at.Before(answered.Add(250*time.Millisecond)) }
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, Echo: echo})
		if err != nil {
			t.Fatal(err)
		}
		// The user speaks from 200 ms after the press.
		if from := u.Offset + u.Speech[0]; from < 150*time.Millisecond {
			t.Errorf("the speech starts %v after the press: the box's own answer was taken for the user's words", from)
		}
	})
}
