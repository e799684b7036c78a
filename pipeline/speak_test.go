package pipeline

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

// TestReplyWriteFailureDropsTheSpeaker: a write the speaker fails partway
// through a reply (a stall, an xrun it did not recover from) ends that
// playback at once, dropped rather than drained: a drain waits on an
// output that may never play again. The rest of the reply is published as
// text, and the turn ends failed with the write's error.
func TestReplyWriteFailureDropsTheSpeaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"The first sentence.", "The second one?"}}
		h := newHarness(t, rep, "tell me")
		var turns []voice.Turn
		h.p.opts.Turns = func(tr voice.Turn) { turns = append(turns, tr) }
		h.events <- Press
		h.events <- Press
		time.Sleep(500 * time.Millisecond) // the first sentence plays, 1.9 s long
		h.spk.glitch(1)                    // the second's write fails
		time.Sleep(10 * time.Second)
		got := h.states(t)
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "speaking", "error", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v: the turn ends, failed", got, want)
		}
		h.spk.mu.Lock()
		drained, dropped, frames := h.spk.drainedBroken, h.spk.dropped, h.spk.frames
		h.spk.mu.Unlock()
		if drained != 0 || dropped != 1 {
			t.Errorf("after the failed write: %d drains of the failed playback, %d dropped; want it dropped, never drained", drained, dropped)
		}
		if want := 19 * 4800; frames != want {
			t.Errorf("played %d frames, want the first sentence's %d", frames, want)
		}
		if len(turns) != 1 || !strings.Contains(turns[0].Err, "Input/output error") || len(turns[0].Said) != 2 {
			t.Errorf("turns reported %+v; want one, with the write's error and both sentences said", turns)
		}
		h.stop(t)
	})
}

// TestAnnounceThroughASpeakerThatFails: an announcement (the box's own
// sentence outside a turn: the reset countdown, a storage notice) whose
// write the speaker fails is dropped, not drained, and said again from
// the start on the speaker opened anew; a speaker that fails again is an
// error, not a sentence reported said.
func TestAnnounceThroughASpeakerThatFails(t *testing.T) {
	const text = "Resetting." // 10 characters, 100 ms each
	for _, tc := range []struct {
		name    string
		glitch  int  // writes that fail
		gone    bool // the speaker does not open
		wantErr string
		frames  int // played in the end
		opened  int // tries to open the speaker
	}{
		{"a speaker that works", 0, false, "", 10 * 4800, 1},
		{"one failed write", 1, false, "", 10 * 4800, 2},
		{"two failed writes", 2, false, "Input/output error", 0, 2},
		{"a speaker gone", 0, true, "speaker unplugged", 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				spk := &clockSpeaker{}
				spk.glitch(tc.glitch)
				spk.unplug(tc.gone)
				done := make(chan error, 1)
				go func() { done <- Announce(t.Context(), toneSynth{}, spk, text) }()
				time.Sleep(time.Minute)
				synctest.Wait()
				var err error
				select {
				case err = <-done:
				default:
					t.Fatal("Announce had not returned a minute later")
				}
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("Announce = %v, want it said", err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "pipeline: announce")):
					t.Errorf("Announce = %v, want an error from pipeline: announce saying %q", err, tc.wantErr)
				}
				spk.mu.Lock()
				defer spk.mu.Unlock()
				if spk.frames != tc.frames || spk.tries != tc.opened || spk.drainedBroken != 0 {
					t.Errorf("played %d frames, opened the speaker %d times, drained %d failed playbacks; want %d, %d, none",
						spk.frames, spk.tries, spk.drainedBroken, tc.frames, tc.opened)
				}
			})
		})
	}
}

// TestAnnounceWithoutSpeechSaysNothing: without a synthesizer or a
// speaker there is nothing to say it with, and nothing failed.
func TestAnnounceWithoutSpeechSaysNothing(t *testing.T) {
	if err := Announce(t.Context(), nil, &clockSpeaker{}, "Hello."); err != nil {
		t.Errorf("without a synthesizer: %v", err)
	}
	if err := Announce(t.Context(), toneSynth{}, nil, "Hello."); err != nil {
		t.Errorf("without a speaker: %v", err)
	}
}
