package pipeline

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

func TestAlertRingsUntilPressed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		h.p.Ring(Alert{ID: "t1", Announcement: "Your tea timer is done."})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		st := h.statuses(t)
		if len(st) != 2 || st[1].State != voice.Ringing || st[1].Text != "Your tea timer is done." {
			t.Fatalf("statuses %+v, want idle then ringing with the announcement", st)
		}
		// The announcement (23 characters of 100 ms), then a 400 ms double
		// beep every 1.9 s.
		if played := h.spk.frames; played < 23*4800+3*19200 {
			t.Errorf("played %d frames in 10 s of ringing", played)
		}
		h.events <- Press // silences it, and does not start listening
		synctest.Wait()
		if got := h.states(t); !slices.Equal(got, []string{"idle"}) {
			t.Errorf("after the press: %v, want idle", got)
		}
		silenced := h.spk.frames
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.spk.frames != silenced {
			t.Errorf("played %d frames after the press", h.spk.frames-silenced)
		}
		if h.mic.ends != 0 {
			t.Error("the press that stopped the alert also ended an utterance")
		}
		h.stop(t)
	})
}

func TestAlertStopsByItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		h.p.opts.RingFor = time.Minute
		start := time.Now()
		h.p.Ring(Alert{ID: "a"})
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		st := h.statuses(t)
		if got := st[len(st)-1].State; got != voice.Idle {
			t.Errorf("after RingFor: %v", got)
		}
		if played := h.spk.frames; played > 33*19200 { // a 400 ms double beep every 1.9 s
			t.Errorf("played %d frames after %v", played, time.Since(start))
		}
		stopped := h.spk.frames
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.spk.frames != stopped {
			t.Error("still ringing after RingFor")
		}
		h.stop(t)
	})
}

func TestStopAlertsFromACommand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		if h.p.StopAlerts() {
			t.Error("StopAlerts reported ringing with nothing ringing")
		}
		h.p.Ring(Alert{ID: "a"})
		time.Sleep(time.Second)
		if !h.p.StopAlerts() {
			t.Error("StopAlerts did not report the ringing alert")
		}
		synctest.Wait()
		st := h.statuses(t)
		if st[len(st)-1].State != voice.Idle {
			t.Errorf("after StopAlerts: %v", st[len(st)-1].State)
		}
		h.stop(t)
	})
}

func TestAlertDuringATurnWaitsForIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"An answer."}, delay: 2 * time.Second}
		h := newHarness(t, rep, "a question")
		h.events <- Press
		h.events <- Press
		time.Sleep(time.Second) // thinking
		h.p.Ring(Alert{ID: "late", Announcement: "Reminder: call mom."})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		got := h.states(t)
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "ringing"}
		if !slices.Equal(got, want) {
			t.Errorf("states %v, want %v", got, want)
		}
		if len(rep.ends) != 1 || rep.ends[0] != nil {
			t.Errorf("the turn was disturbed: %v", rep.ends)
		}
		h.events <- Stop
		synctest.Wait()
		h.stop(t)
	})
}

// TestStopAlertByID: StopAlert silences only the alert of its id, ringing
// or waiting, and every alert's Done is called once it stops, however it
// stops.
func TestStopAlertByID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		done := map[string]int{}
		ring := func(id string) { h.p.Ring(Alert{ID: id, Done: func() { done[id]++ }}) }
		ring("tea")
		ring("eggs")
		ring("bread")
		time.Sleep(time.Second)
		synctest.Wait()
		if h.p.StopAlert("nothing") {
			t.Error("StopAlert reported an id that does not ring")
		}
		if !h.p.StopAlert("eggs") { // waiting behind tea
			t.Error("StopAlert did not find the waiting alert")
		}
		synctest.Wait()
		if done["eggs"] != 1 || done["tea"] != 0 {
			t.Errorf("after stopping the waiting eggs: done %v", done)
		}
		if !h.p.StopAlert("tea") { // ringing
			t.Error("StopAlert did not find the ringing alert")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if done["tea"] != 1 {
			t.Errorf("after stopping the ringing tea: done %v", done)
		}
		st := h.statuses(t)
		if st[len(st)-1].State != voice.Ringing {
			t.Errorf("bread does not ring after tea stopped: %v", st[len(st)-1].State)
		}
		h.events <- Press
		synctest.Wait()
		if done["tea"] != 1 || done["eggs"] != 1 || done["bread"] != 1 {
			t.Errorf("after the press: done %v, want each once", done)
		}
		h.stop(t)
	})
}
