package pipeline

import (
	"slices"
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
