package pipeline

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// soundName names what b is: one of the earcons, or "speech".
func soundName(b pcm.Buffer) string {
	for k, name := range []string{"start", "end", "error", "thinking", "ready"} {
		if slices.Equal(b.Samples, earconSound(earcon(k), b.Rate, b.Channels).Samples) {
			return name
		}
	}
	return "speech"
}

// played is what spk has begun to play, in order, and the most sounds
// that played at once.
func played(spk *clockSpeaker) ([]string, int) {
	spk.mu.Lock()
	defer spk.mu.Unlock()
	return slices.Clone(spk.sounds), spk.overlap
}

var allEarcons = Earcons{Start: true, End: true, Error: true, Thinking: true}

func TestEarconsEchoAndLength(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mic := &listenMic{answers: []micAnswer{{u: speech("hello")}}}
		spk := &clockSpeaker{}
		events, _ := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: &scriptReplier{}, Speaker: spk,
			Earcons: Earcons{Start: true, End: true}})
		events <- Press
		// While the start earcon plays, and its echo lasts, the microphone
		// is told that what it hears is the box; then no longer.
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		mic.mu.Lock()
		echo := mic.listens[0].Echo
		mic.mu.Unlock()
		if echo == nil || !echo(time.Now()) {
			t.Error("during the earcon the microphone was not told the box is sounding")
		}
		time.Sleep(400 * time.Millisecond)
		if echo != nil && echo(time.Now()) {
			t.Error("400 ms after the 120 ms earcon the microphone still ignores what it hears")
		}
		events <- Press
		time.Sleep(5 * time.Second)
		synctest.Wait()
		spk.mu.Lock()
		defer spk.mu.Unlock()
		// Two notes of 60 ms at 48 kHz, once as listening starts and once
		// as it ends.
		if spk.opened != 2 || spk.frames != 2*2*2880 {
			t.Errorf("speaker opened %d times, played %d frames; want two earcons of %d frames", spk.opened, spk.frames, 2*2880)
		}
	})
}

func TestEarconSounds(t *testing.T) {
	names := []string{"start", "end", "error", "thinking", "ready"}
	want := []time.Duration{120 * time.Millisecond, 120 * time.Millisecond, 250 * time.Millisecond, 100 * time.Millisecond, 270 * time.Millisecond}
	var sounds []pcm.Buffer
	for k, name := range names {
		b := earconSound(earcon(k), 16000, 1)
		if b.Duration() != want[k] {
			t.Errorf("%s lasts %v, want %v", name, b.Duration(), want[k])
		}
		for i, o := range sounds {
			if slices.Equal(o.Samples, b.Samples) {
				t.Errorf("%s sounds the same as %s", name, names[i])
			}
		}
		sounds = append(sounds, b)
	}
	peak := func(b pcm.Buffer) float32 { return max(slices.Max(b.Samples), -slices.Min(b.Samples)) }
	if th, st := peak(sounds[earconThinking]), peak(sounds[earconStart]); th > st/2 {
		t.Errorf("the thinking pulse peaks at %.2f, the start earcon at %.2f: want it much softer", th, st)
	}
	if e := peak(sounds[earconError]); e > 0.25 {
		t.Errorf("the error earcon peaks at %.2f: want it soft", e)
	}
	if r := peak(sounds[earconReady]); r > 0.25 {
		t.Errorf("the ready chime peaks at %.2f: want it soft", r)
	}
}

// TestChimePlaysTheReadyEarcon: the chime outside a turn is the ready
// earcon, played once; without a speaker it does nothing.
func TestChimePlaysTheReadyEarcon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spk := &clockSpeaker{}
		if err := Chime(t.Context(), spk); err != nil {
			t.Fatal(err)
		}
		if got, _ := played(spk); !slices.Equal(got, []string{"ready"}) || spk.opened != 1 {
			t.Errorf("played %q on %d openings; want the ready earcon once", got, spk.opened)
		}
		if err := Chime(t.Context(), nil); err != nil {
			t.Errorf("without a speaker: %v", err)
		}
	})
}

// TestEarconsEachOnOff takes the same failing turn (a reply that says a
// sentence after 2 s, then fails) with each earcon on alone, none, and
// all: each plays when it is on, where it belongs, and never over another
// sound.
func TestEarconsEachOnOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		on   Earcons
		want []string
	}{
		{"none", Earcons{}, []string{"speech"}},
		{"start", Earcons{Start: true}, []string{"start", "speech"}},
		{"end", Earcons{End: true}, []string{"end", "speech"}},
		{"thinking", Earcons{Thinking: true}, []string{"thinking", "speech"}},
		{"error", Earcons{Error: true}, []string{"speech", "error"}},
		{"all", allEarcons, []string{"start", "end", "thinking", "speech", "error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mic := &listenMic{answers: []micAnswer{{u: speech("hi")}}}
				rep := &scriptReplier{sentences: []string{"No."}, delay: 2 * time.Second, err: errors.New("model server unreachable")}
				spk := &clockSpeaker{}
				events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep,
					Synthesizer: toneSynth{}, Speaker: spk, Earcons: tc.on})
				events <- Press
				time.Sleep(time.Second)
				events <- Press
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if got, overlap := played(spk); !slices.Equal(got, tc.want) || overlap > 1 {
					t.Errorf("played %q, %d at once; want %q, one at a time", got, overlap, tc.want)
				}
				if !slices.ContainsFunc(readAll(feed), func(s voice.Status) bool { return s.State == voice.Error }) {
					t.Error("the turn did not fail")
				}
			})
		})
	}
}

// brokenTranscriber fails.
type brokenTranscriber struct{}

func (brokenTranscriber) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{}, errors.New("whisper: model not loaded")
}

// TestErrorEarconOnlyOnFailure: a turn that fails sounds the error, after
// the start earcon rather than over it and once the thinking pulse is
// quiet; one that is stopped or hears nothing does not.
func TestErrorEarconOnlyOnFailure(t *testing.T) {
	slow := &scriptReplier{sentences: []string{"Slow."}, delay: time.Minute}
	unsaid := ReplierFunc(func(ctx context.Context, q Query, say func(string)) (Outcome, error) {
		time.Sleep(2 * time.Second)
		return Outcome{}, errors.New("model server unreachable")
	})
	for _, tc := range []struct {
		name string
		mic  micAnswer
		stt  Transcriber
		rep  Replier
		stop bool // stop the turn while the reply is worked out
		want []string
	}{
		{"recording fails", micAnswer{err: errors.New("capture: device gone")}, typedTranscriber{}, slow, false, []string{"start", "error"}},
		{"transcription fails", micAnswer{u: speech("hi")}, brokenTranscriber{}, slow, false, []string{"start", "end", "error"}},
		{"reply fails unsaid", micAnswer{u: speech("hi")}, typedTranscriber{}, unsaid, false, []string{"start", "end", "thinking", "error"}},
		{"no speech", micAnswer{err: voice.ErrNoSpeech}, typedTranscriber{}, slow, false, []string{"start"}},
		{"stopped", micAnswer{u: speech("hi")}, typedTranscriber{}, slow, true, []string{"start", "end", "thinking"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mic := &listenMic{answers: []micAnswer{tc.mic}}
				spk := &clockSpeaker{}
				events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: tc.stt, Replier: tc.rep,
					Synthesizer: toneSynth{}, Speaker: spk, Earcons: allEarcons})
				events <- Press
				time.Sleep(time.Second)
				if tc.mic.err == nil {
					events <- Press
					time.Sleep(1700 * time.Millisecond) // one thinking pulse, at 1.5 s
				}
				if tc.stop {
					events <- Stop
				}
				time.Sleep(5 * time.Second)
				synctest.Wait()
				if got, overlap := played(spk); !slices.Equal(got, tc.want) || overlap > 1 {
					t.Errorf("played %q, %d at once; want %q, one at a time", got, overlap, tc.want)
				}
				states := readAll(feed)
				failed := slices.ContainsFunc(states, func(s voice.Status) bool { return s.State == voice.Error })
				if wantFail := slices.Contains(tc.want, "error"); failed != wantFail {
					t.Errorf("error state %v, want %v", failed, wantFail)
				}
				if last := states[len(states)-1].State; last != voice.Idle {
					t.Errorf("the turn ended in %v, want idle", last)
				}
			})
		})
	}
}

// TestThinkingPulse: while the reply is worked out a pulse sounds every
// 1.5 s, until the first sentence plays or the turn is stopped or barged
// in on, which cuts a pulse short.
func TestThinkingPulse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		delay   time.Duration // before the reply's sentence
		event   Event         // sent 3.04 s after listening ended, during the second pulse
		want    []string
		dropped int
	}{
		{"quick reply", time.Second, 0, []string{"speech"}, 0},
		{"slow reply", 5 * time.Second, 0, []string{"thinking", "thinking", "thinking", "speech"}, 0},
		{"stopped", time.Minute, Stop, []string{"thinking", "thinking"}, 1},
		{"barge-in", time.Minute, Press, []string{"thinking", "thinking"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mic := &listenMic{answers: []micAnswer{{u: speech("hi")}}}
				rep := &scriptReplier{sentences: []string{"Yes, it is."}, delay: tc.delay} // 1.1 s of speech
				spk := &clockSpeaker{}
				events, _ := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep,
					Synthesizer: toneSynth{}, Speaker: spk, Earcons: Earcons{Thinking: true}})
				events <- Press
				events <- Press
				time.Sleep(3040 * time.Millisecond)
				if tc.event != 0 {
					events <- tc.event
					synctest.Wait()
					spk.mu.Lock()
					dropped := spk.dropped
					spk.mu.Unlock()
					if dropped != tc.dropped {
						t.Errorf("%d playbacks dropped, want the pulse that was playing cut", dropped)
					}
				}
				time.Sleep(20 * time.Second)
				synctest.Wait()
				if got, overlap := played(spk); !slices.Equal(got, tc.want) || overlap > 1 {
					t.Errorf("played %q, %d at once; want %q, one at a time", got, overlap, tc.want)
				}
				spk.mu.Lock()
				defer spk.mu.Unlock()
				if spk.dropped != tc.dropped {
					t.Errorf("%d playbacks dropped, want %d", spk.dropped, tc.dropped)
				}
			})
		})
	}
}

// TestEarconWriteFailureDoesNotHoldTheTurn: an earcon the speaker fails
// to play is dropped, not drained: the turn, which waits for its earcons,
// goes on to the reply and ends.
func TestEarconWriteFailureDoesNotHoldTheTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mic := &listenMic{answers: []micAnswer{{u: speech("hi")}}}
		rep := &scriptReplier{sentences: []string{"Yes, it is."}}
		spk := &clockSpeaker{}
		events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep,
			Synthesizer: toneSynth{}, Speaker: spk, Earcons: Earcons{Start: true}})
		spk.glitch(1) // the start earcon's write fails
		events <- Press
		events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		var got []string
		for _, s := range readAll(feed) {
			got = append(got, s.State.String())
		}
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		spk.mu.Lock()
		defer spk.mu.Unlock()
		if spk.drainedBroken != 0 || spk.dropped != 1 {
			t.Errorf("the failed earcon: %d drains, %d drops; want it dropped, never drained", spk.drainedBroken, spk.dropped)
		}
	})
}
