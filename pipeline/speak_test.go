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
