package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

func TestFollowUpWhenTheReplyAsks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"Which room?"}}
		h := newHarness(t, rep, "turn on the light", "followup:the kitchen")
		h.events <- Press
		h.events <- Press
		time.Sleep(time.Minute)
		got := h.states(t)
		// The question reopens the microphone; the answer in the window is a
		// turn, whose reply is again a question, so the window opens again
		// and closes quietly.
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking",
			"listening", "transcribing", "thinking", "speaking", "listening", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		if len(rep.queries) != 2 || rep.queries[1].Text != "the kitchen" {
			t.Errorf("queries %+v", rep.queries)
		}
		if h.mic.windows != 2 || h.mic.ends != 1 {
			t.Errorf("windows %d, button ends %d", h.mic.windows, h.mic.ends)
		}
		h.stop(t)
	})
}

func TestFollowUpWindowClosesAfterItsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// "Done." plays for half a second; then the window is open for 4 s.
		rep := &scriptReplier{sentences: []string{"Done."}, outcome: Outcome{FollowUp: true}}
		h := newHarness(t, rep, "set it up")
		h.events <- Press
		h.events <- Press
		time.Sleep(600 * time.Millisecond)
		synctest.Wait()
		st := h.statuses(t)
		if last := st[len(st)-1]; last.State != voice.Listening || !last.FollowUp {
			t.Fatalf("after the reply: %+v, want listening in the follow-up window", last)
		}
		time.Sleep(3800 * time.Millisecond)
		synctest.Wait()
		if st := h.statuses(t); len(st) != 0 {
			t.Errorf("the window closed early: %+v", st)
		}
		time.Sleep(200 * time.Millisecond)
		synctest.Wait()
		if st := h.statuses(t); len(st) != 1 || st[0].State != voice.Idle {
			t.Errorf("after 4 s of silence: %+v, want idle", st)
		}
		h.stop(t)
	})
}

func TestFollowUpPolicies(t *testing.T) {
	for _, tc := range []struct {
		policy  FollowUpPolicy
		replies []string
		windows int
	}{
		{FollowUpOff, []string{"Which room?"}, 0},
		{FollowUpWhenAsked, []string{"It is done."}, 0},
		{FollowUpAlways, []string{"It is done."}, 1},
	} {
		synctest.Test(t, func(t *testing.T) {
			rep := &scriptReplier{sentences: tc.replies}
			mic := &typedMic{lines: []string{"hello"}}
			p, err := New(Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep, FollowUp: FollowUp{Policy: tc.policy}})
			if err != nil {
				t.Fatal(err)
			}
			events := make(chan Event)
			go p.Run(t.Context(), events)
			events <- Press
			events <- Press
			time.Sleep(time.Minute)
			synctest.Wait()
			if mic.windows != tc.windows {
				t.Errorf("policy %s: %d follow-up windows, want %d", tc.policy, mic.windows, tc.windows)
			}
		})
	}
	if _, err := New(Options{Microphone: &typedMic{}, Transcriber: typedTranscriber{}, Replier: &scriptReplier{}, FollowUp: FollowUp{Policy: "sometimes"}}); err == nil {
		t.Error("an unknown policy was accepted")
	}
}

// TestSetFollowUpWhileRunning: a policy set while the box runs applies
// from the next reply: a question no longer reopens the microphone once
// the follow-up is off.
func TestSetFollowUpWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"Which room?"}}
		h := newHarness(t, rep, "turn on the light")
		if err := h.p.SetFollowUp("sometimes"); err == nil {
			t.Error("an unknown policy was taken")
		}
		if err := h.p.SetFollowUp(FollowUpOff); err != nil {
			t.Fatal(err)
		}
		h.p.SetEarcons(Earcons{Start: true})
		h.events <- Press
		h.events <- Press
		time.Sleep(time.Minute)
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "idle"}
		if got := h.states(t); !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v: the question reopened the microphone", got, want)
		}
		if e := h.p.earcons(); !e.Start || e.End {
			t.Errorf("earcons %+v after SetEarcons", e)
		}
		h.stop(t)
	})
}

// quietWindowMic is a user who says nothing in the follow-up window and
// answers with the button instead. As the endpoint listener does before
// any speech, the window's recording ends with ErrNoSpeech when the
// button ends it or its StartTimeout passes; a recording begun by a press
// takes the next line once the button ends it. It keeps how each
// recording was asked for.
type quietWindowMic struct {
	mu      sync.Mutex
	lines   []string
	listens []voice.Listen
}

func (m *quietWindowMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	m.mu.Lock()
	m.listens = append(m.listens, l)
	m.mu.Unlock()
	var timeout <-chan time.Time
	if l.FollowUp {
		timeout = time.After(l.StartTimeout)
	}
	select {
	case <-ctx.Done():
		return voice.Utterance{}, ctx.Err()
	case <-timeout:
		return voice.Utterance{}, voice.ErrNoSpeech
	case <-l.End:
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if l.FollowUp || len(m.lines) == 0 {
		return voice.Utterance{}, voice.ErrNoSpeech
	}
	line := m.lines[0]
	m.lines = m.lines[1:]
	return speech(line), nil
}

// TestAnswerWithAPressInTheFollowUpWindow: after "Which room?" the user
// answers the way the button taught them: in hold mode they press, hold
// while they say "the kitchen" (long enough for the long press to fire)
// and let go; in tap mode they press, talk and press again. The press
// before any word is not the end of an empty answer: it listens for one,
// as a press does anywhere else.
func TestAnswerWithAPressInTheFollowUpWindow(t *testing.T) {
	for _, tc := range []struct {
		talk TalkMode
		end  []Event // what the user does to end an utterance they began with a press
	}{
		{TalkHold, []Event{Stop, Release}}, // the long press fires while they hold
		{TalkTap, []Event{Press}},
	} {
		t.Run(string(tc.talk), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rep := &scriptReplier{sentences: []string{"Which room?"}}
				mic := &quietWindowMic{lines: []string{"turn on the light", "the kitchen"}}
				events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep,
					Synthesizer: toneSynth{}, Speaker: &clockSpeaker{}, Talk: tc.talk})
				talk := func() {
					events <- Press
					for _, ev := range tc.end {
						time.Sleep(time.Second)
						events <- ev
					}
				}
				talk()
				time.Sleep(3 * time.Second) // "Which room?" is said; the window opens
				synctest.Wait()
				if st := readAll(feed); len(st) == 0 || st[len(st)-1].State != voice.Listening || !st[len(st)-1].FollowUp {
					t.Fatalf("after the question: %+v, want listening in the follow-up window", st)
				}
				talk()
				time.Sleep(10 * time.Second)
				synctest.Wait()
				var states []string
				for _, s := range readAll(feed) {
					states = append(states, s.State.String())
				}
				rep.mu.Lock()
				defer rep.mu.Unlock()
				if len(rep.queries) != 2 || rep.queries[1].Text != "the kitchen" {
					t.Fatalf("queries %+v, states after the window opened %v; want the answer heard", rep.queries, states)
				}
				mic.mu.Lock()
				defer mic.mu.Unlock()
				// The first utterance, the window, the answer, the window after it.
				var asked []string
				for _, l := range mic.listens {
					asked = append(asked, fmt.Sprintf("follow-up %v, on silence %v, start timeout %v", l.FollowUp, l.EndOnSilence, l.StartTimeout))
				}
				if len(asked) != 4 || asked[2] != asked[0] {
					t.Errorf("recordings %q: want the answer recorded as the first utterance was", asked)
				}
				if want := []string{"listening", "transcribing", "thinking", "speaking", "listening", "idle"}; !slices.Equal(states, want) {
					t.Errorf("states after the window opened %v, want %v", states, want)
				}
			})
		})
	}
}

// TestAnswerReleasedBeforeItsRecordingBegins: the press in the follow-up
// window ends the window's recording, and the answer's begins once that
// turn is over; a release that comes in between ends the answer as soon
// as it begins, rather than leaving it to listen until the next press.
func TestAnswerReleasedBeforeItsRecordingBegins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"Which room?"}}
		mic := &quietWindowMic{lines: []string{"turn on the light", "the kitchen"}}
		slow := func(voice.Turn) { time.Sleep(100 * time.Millisecond) } // a turn takes a while to be over
		events, _ := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep,
			Synthesizer: toneSynth{}, Speaker: &clockSpeaker{}, Talk: TalkHold, Turns: slow})
		events <- Press
		events <- Release
		time.Sleep(3 * time.Second)
		events <- Press
		events <- Release
		time.Sleep(10 * time.Second)
		synctest.Wait()
		rep.mu.Lock()
		defer rep.mu.Unlock()
		if len(rep.queries) != 2 || rep.queries[1].Text != "the kitchen" {
			t.Errorf("queries %+v, want the answer ended by the release", rep.queries)
		}
	})
}
