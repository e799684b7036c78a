package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
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

// TestAlertDuringATurnRingsOnTime: an alert that comes due while a turn
// waits on a slow reply rings at once and ends the turn; before, it waited
// for the turn (a node stuck on its center rang a 1-minute timer at +133 s).
func TestAlertDuringATurnRingsOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"An answer."}, delay: 2 * time.Minute}
		h := newHarness(t, rep, "a question")
		h.events <- Press
		h.events <- Press
		time.Sleep(time.Second) // thinking, for two minutes
		h.p.Ring(Alert{ID: "tea", Announcement: "Your tea timer is done."})
		synctest.Wait()
		st := h.statuses(t)
		if last := st[len(st)-1]; last.State != voice.Ringing || last.Text != "Your tea timer is done." {
			t.Fatalf("statuses %+v: want the alert ringing at once", st)
		}
		if len(rep.ends) != 1 || rep.ends[0] == nil {
			t.Errorf("the turn was not ended: %v", rep.ends)
		}
		h.events <- Stop
		synctest.Wait()
		h.stop(t)
	})
}

// TestAlertsDueWhileRingingAreAnnounced: alerts that come due while
// another rings are not dropped by the press that silences it: they are
// announced together next, and one more press silences them.
func TestAlertsDueWhileRingingAreAnnounced(t *testing.T) {
	for _, silence := range []string{"press", "long press", "stop command"} {
		t.Run(silence, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &scriptReplier{})
				h.p.Ring(Alert{ID: "pasta", Announcement: "Your pasta timer is done."})
				time.Sleep(5 * time.Second)
				h.p.Ring(Alert{ID: "eggs", Announcement: "Your eggs timer is done."})
				h.p.Ring(Alert{ID: "call", Announcement: "Reminder: call mom."})
				time.Sleep(5 * time.Second)
				synctest.Wait()
				h.statuses(t)
				switch silence {
				case "press":
					h.events <- Press
				case "long press":
					h.events <- Stop
				default:
					if !h.p.StopAlerts() {
						t.Error("StopAlerts reported nothing ringing")
					}
				}
				time.Sleep(5 * time.Second)
				st := h.statuses(t)
				if len(st) == 0 || st[len(st)-1].State != voice.Ringing || st[len(st)-1].Text != "Your eggs timer is done. Reminder: call mom." {
					t.Fatalf("after one %s: %+v, want the two others announced together", silence, st)
				}
				h.events <- Press
				synctest.Wait()
				if got := h.states(t); !slices.Equal(got, []string{"idle"}) {
					t.Errorf("after the second press: %v, want idle", got)
				}
				h.stop(t)
			})
		})
	}
}

// TestMissedAlertToldWhenSpeakerBack: an alert that rings while the speaker
// is gone rings silently (the LEDs show it); once the speaker is back, the
// box says what went off.
func TestMissedAlertToldWhenSpeakerBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		h.spk.unplug(true)
		h.p.Ring(Alert{ID: "pasta", Announcement: "Your pasta timer is done.", Missed: "While my speaker was gone, an alert went off at 12:03: Your pasta timer is done."})
		time.Sleep(time.Minute)
		synctest.Wait()
		if h.spk.frames != 0 {
			t.Fatal("played with the speaker gone")
		}
		h.events <- Press
		time.Sleep(2 * MissedProbe) // still gone: nothing said, nothing lost
		synctest.Wait()
		if st := h.statuses(t); st[len(st)-1].State != voice.Idle {
			t.Fatalf("with the speaker still gone: %+v", st)
		}
		h.spk.unplug(false)
		time.Sleep(MissedProbe + 10*time.Second)
		st := h.statuses(t)
		var told bool
		for _, s := range st {
			told = told || (s.State == voice.Speaking && strings.HasPrefix(s.Text, "While my speaker was gone, an alert went off at 12:03"))
		}
		if !told || h.spk.frames == 0 || st[len(st)-1].State != voice.Idle {
			t.Fatalf("after the speaker came back: %+v (%d frames); want the missed alert told, then idle", st, h.spk.frames)
		}
		told1 := h.spk.frames
		time.Sleep(3 * MissedProbe)
		synctest.Wait()
		if h.spk.frames != told1 {
			t.Error("told it again")
		}
		h.stop(t)
	})
}

// TestMissedAlertToldAgainWhenTellingFails: telling what rang unheard
// through a speaker that fails again (it opens, then a write fails) does
// not count it told: the failed playback is dropped, not drained, and the
// alert is kept and told at the next try.
func TestMissedAlertToldAgainWhenTellingFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const missed = "While my speaker was gone, an alert went off at 12:03: Your pasta timer is done."
		h := newHarness(t, &scriptReplier{})
		h.spk.unplug(true)
		h.p.Ring(Alert{ID: "pasta", Announcement: "Your pasta timer is done.", Missed: missed})
		time.Sleep(time.Minute)
		h.events <- Press
		synctest.Wait()
		h.statuses(t)
		h.spk.unplug(false)
		h.spk.glitch(1) // back, but its first write fails
		time.Sleep(MissedProbe + 10*time.Second)
		synctest.Wait()
		h.spk.mu.Lock()
		frames, drained := h.spk.frames, h.spk.drainedBroken
		h.spk.mu.Unlock()
		if frames != 0 || drained != 0 {
			t.Fatalf("after the failed try: %d frames played, %d failed playbacks drained; want none of either", frames, drained)
		}
		time.Sleep(MissedProbe + 10*time.Second)
		st := h.statuses(t)
		if said := spoken(st); !slices.Equal(said, []string{missed, missed}) {
			t.Errorf("said %q; want the missed alert tried, then told", said)
		}
		if h.spk.frames != len(missed)*4800 || st[len(st)-1].State != voice.Idle {
			t.Errorf("played %d frames, then %v; want the missed alert's %d, then idle", h.spk.frames, st[len(st)-1].State, len(missed)*4800)
		}
		if h.p.alerts.anyMissed() {
			t.Error("still kept as missed once told")
		}
		h.stop(t)
	})
}

// TestAlertRingsOnAfterASpeakerGlitch: one write the speaker fails (a
// stall, an xrun) does not end a ringing alarm: the speaker is opened
// again and the beeps go on until a press.
func TestAlertRingsOnAfterASpeakerGlitch(t *testing.T) {
	for _, tc := range []struct {
		name         string
		announcement string
		after        time.Duration // when the write fails; 0 fails the first
	}{
		{"the announcement", "Time to get up.", 0},
		{"after the first beeps", "", 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &scriptReplier{})
				done := 0
				if tc.after == 0 {
					h.spk.glitch(1)
				}
				h.p.Ring(Alert{ID: "wake", Announcement: tc.announcement, Done: func() { done++ }})
				if tc.after > 0 {
					time.Sleep(tc.after)
					h.spk.glitch(1)
				}
				time.Sleep(10 * time.Second)
				glitched, _ := h.spk.playedSoFar()
				time.Sleep(time.Minute)
				st := h.statuses(t)
				if len(st) == 0 || st[len(st)-1].State != voice.Ringing || done != 0 {
					t.Fatalf("a minute after one failed write: statuses %+v, Done called %d times; want still ringing", st, done)
				}
				frames, lengths := h.spk.playedSoFar()
				// A 400 ms double beep every 1.9 s.
				if beeps := (frames - glitched) / 19200; beeps < 30 {
					t.Errorf("%d beeps in the minute after the failed write, want one every 1.9 s", beeps)
				}
				// The announcement is 15 characters of 100 ms at 48 kHz.
				if tc.announcement != "" && (len(lengths) == 0 || lengths[0] != 15*4800) {
					t.Errorf("played writes of %v frames, want the announcement that failed said again first", lengths[:min(3, len(lengths))])
				}
				h.events <- Press
				synctest.Wait()
				if got := h.states(t); !slices.Equal(got, []string{"idle"}) || done != 1 {
					t.Errorf("after the press: %v, Done called %d times; want idle, done once", got, done)
				}
				h.p.alerts.mu.Lock()
				missed := len(h.p.alerts.missed)
				h.p.alerts.mu.Unlock()
				if missed != 0 {
					t.Errorf("%d alerts kept as missed; this one was heard", missed)
				}
				h.stop(t)
			})
		})
	}
}

// TestAlertSilencedWhileAnnouncedWasHeard: a press that cuts the
// announcement short silences an alert that was heard; it is not told
// again later as missed.
func TestAlertSilencedWhileAnnouncedWasHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		h.p.Ring(Alert{ID: "tea", Announcement: "Your tea timer is done.", Missed: "While my speaker was gone, your tea timer went off."})
		time.Sleep(500 * time.Millisecond)
		h.events <- Press
		time.Sleep(3 * MissedProbe)
		if said := spoken(h.statuses(t)); len(said) != 0 {
			t.Errorf("said %q after the press, want nothing", said)
		}
		h.stop(t)
	})
}

// TestAlertRingsSilentlyWhenTheSpeakerDies: a speaker that goes away while
// an alert rings is tried again for a while, not in a loop; then the alert
// rings on silently (the LEDs show it) until a press, and what rang is told
// once the speaker is back.
func TestAlertRingsSilentlyWhenTheSpeakerDies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		done := 0
		h.p.Ring(Alert{ID: "wake", Missed: "While my speaker was gone, your alarm went off at 7:00.", Done: func() { done++ }})
		time.Sleep(5 * time.Second)
		h.spk.unplug(true)
		time.Sleep(5 * time.Minute)
		st := h.statuses(t)
		if len(st) == 0 || st[len(st)-1].State != voice.Ringing || done != 0 {
			t.Fatalf("5 minutes after the speaker went: statuses %+v, Done called %d times; want ringing silently", st, done)
		}
		h.spk.mu.Lock()
		tries := h.spk.tries
		h.spk.mu.Unlock()
		if max := int(ringGiveUp/ringRetry) + 3; tries > max {
			t.Errorf("the speaker was opened %d times; want at most %d, once a second until it is given up", tries, max)
		}
		h.events <- Press
		synctest.Wait()
		if done != 1 {
			t.Errorf("after the press: Done called %d times, want once", done)
		}
		h.spk.unplug(false)
		time.Sleep(MissedProbe + 10*time.Second)
		if said := spoken(h.statuses(t)); !slices.Equal(said, []string{"While my speaker was gone, your alarm went off at 7:00."}) {
			t.Errorf("said %q once the speaker was back, want the alarm told", said)
		}
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
		time.Sleep(time.Second) // tea rings; the others come due while it does
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

// callbacks records, in order, the Unheard and Told calls of the alerts
// it makes.
type callbacks struct {
	mu  sync.Mutex
	got []string
}

func (c *callbacks) alert(id, missed string) Alert {
	note := func(what string) func() {
		return func() {
			c.mu.Lock()
			c.got = append(c.got, what+" "+id)
			c.mu.Unlock()
		}
	}
	return Alert{ID: id, Announcement: "Your " + id + " timer is done.", Missed: missed, Unheard: note("unheard"), Told: note("told")}
}

func (c *callbacks) calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

// TestMissedAlertIsReportedUnheardThenTold: an alert that rings while the
// speaker is gone is reported unheard once, before it can be told, and
// told once the speaker took the telling; not before, however long the
// speaker stays gone.
func TestMissedAlertIsReportedUnheardThenTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		var c callbacks
		h.spk.unplug(true)
		h.p.Ring(c.alert("tea", "While my speaker was gone, your tea timer went off."))
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := c.calls(); !slices.Equal(got, []string{"unheard tea"}) {
			t.Fatalf("a minute of ringing silently: %v, want it reported unheard", got)
		}
		h.events <- Press
		time.Sleep(3 * MissedProbe)
		synctest.Wait()
		if got := c.calls(); !slices.Equal(got, []string{"unheard tea"}) {
			t.Fatalf("with the speaker still gone: %v, want nothing told", got)
		}
		h.spk.unplug(false)
		time.Sleep(MissedProbe + 10*time.Second)
		synctest.Wait()
		if got := c.calls(); !slices.Equal(got, []string{"unheard tea", "told tea"}) {
			t.Errorf("once the speaker was back: %v, want it told", got)
		}
		h.stop(t)
	})
}

// TestMissedAlertWordedWhenTold: what an alert nobody heard says is
// worded when it is told, for the time then (its MissedAt), not when it
// rang: told after midnight it went off "yesterday".
func TestMissedAlertWordedWhenTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		var c callbacks
		h.spk.unplug(true)
		a := c.alert("tea", "While my speaker was gone, your tea timer went off at 11:50 PM.")
		a.MissedAt = func(now time.Time) string { return "Told at " + now.Format(time.Kitchen) + "." }
		h.p.Ring(a)
		time.Sleep(time.Minute)
		h.events <- Press
		time.Sleep(2 * time.Hour)
		back := time.Now()
		h.spk.unplug(false)
		time.Sleep(MissedProbe + 10*time.Second)
		synctest.Wait()
		var said []string
		for _, s := range h.statuses(t) {
			if s.State == voice.Speaking {
				said = append(said, s.Text)
			}
		}
		var when []string // what it says told from the speaker's return on
		for d := time.Duration(0); d <= MissedProbe+10*time.Second; d += time.Second {
			when = append(when, a.MissedAt(back.Add(d)))
		}
		if len(said) != 1 || !slices.Contains(when, said[0]) {
			t.Errorf("told %q; want it worded when told, once the speaker was back at %s", said, back.Format(time.Kitchen))
		}
		h.stop(t)
	})
}

// TestMissedAlertTooOldIsDropped: an alert nobody heard that is still not
// told when it is stale (a day after it went off, as on disk) is dropped
// at the next try, never said, and reported told so its record goes too;
// a fresh one is told.
func TestMissedAlertTooOldIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, &scriptReplier{})
		var c callbacks
		h.spk.unplug(true)
		old := c.alert("tea", "While my speaker was gone, your tea timer went off.")
		old.Stale = time.Now().Add(24 * time.Hour)
		h.p.Ring(old)
		time.Sleep(time.Minute)
		h.events <- Press
		var said []string
		speaking := func() {
			for _, s := range h.statuses(t) {
				if s.State == voice.Speaking {
					said = append(said, s.Text)
				}
			}
		}
		for range 25 { // the feed keeps a few hours of tries at a time
			time.Sleep(time.Hour)
			speaking()
		}
		fresh := c.alert("pasta", "While my speaker was gone, your pasta timer went off.")
		fresh.Stale = time.Now().Add(24 * time.Hour)
		h.p.Ring(fresh)
		time.Sleep(time.Minute)
		h.events <- Press
		time.Sleep(time.Minute)
		h.spk.unplug(false)
		time.Sleep(MissedProbe + 10*time.Second)
		speaking()
		if !slices.Equal(said, []string{fresh.Missed}) {
			t.Errorf("said %q once the speaker was back; want the pasta timer alone, the tea timer a day old", said)
		}
		if got := c.calls(); !slices.Contains(got, "told tea") || !slices.Contains(got, "told pasta") {
			t.Errorf("reported %v; want both told: the old one needs telling no more", got)
		}
		if h.p.alerts.anyMissed() {
			t.Error("an alert is still kept to be told")
		}
		h.stop(t)
	})
}

// TestAlertFromBeforeTheRunIsTold: an alert handed to Tell (it rang unheard
// before the box restarted) is told at once when the box is idle, without
// ringing, and reported told; with the speaker gone it waits for it.
func TestAlertFromBeforeTheRunIsTold(t *testing.T) {
	for _, gone := range []bool{false, true} {
		t.Run(fmt.Sprintf("speaker gone %v", gone), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const missed = "While my speaker was gone, your tea timer went off."
				h := newHarness(t, &scriptReplier{})
				var c callbacks
				h.spk.unplug(gone)
				h.p.Tell(c.alert("tea", missed))
				time.Sleep(time.Second)
				st := h.statuses(t)
				if gone {
					if said := spoken(st); len(said) != 0 || len(c.calls()) != 0 {
						t.Fatalf("with the speaker gone: said %q, %v; want nothing yet", said, c.calls())
					}
					h.spk.unplug(false)
					time.Sleep(MissedProbe + 10*time.Second)
					st = h.statuses(t)
				} else {
					time.Sleep(10 * time.Second) // the telling plays out
					st = append(st, h.statuses(t)...)
				}
				for _, s := range st {
					if s.State == voice.Ringing {
						t.Errorf("it rang: %+v", s)
					}
				}
				if said := spoken(st); !slices.Equal(said, []string{missed}) || !slices.Equal(c.calls(), []string{"told tea"}) {
					t.Errorf("said %q, %v; want it told once and reported told", said, c.calls())
				}
				h.stop(t)
			})
		})
	}
}

// failingVoice is toneSynth failing the texts that hold fail, while failing
// is set.
type failingVoice struct {
	mu      sync.Mutex
	fail    string
	failing bool
}

func (v *failingVoice) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	v.mu.Lock()
	failing := v.failing && strings.Contains(text, v.fail)
	v.mu.Unlock()
	if failing {
		return pcm.Buffer{}, errors.New("voice: espeak-ng: exit status 1")
	}
	return toneSynth{}.Synthesize(ctx, text)
}

func (v *failingVoice) set(failing bool) {
	v.mu.Lock()
	v.failing = failing
	v.mu.Unlock()
}

// TestVoiceFailureKeepsTheMissedAlerts: when the voice fails telling what
// rang unheard, what was told stays told and the rest (the one it failed
// and those after it) is kept and told at the next try; before, it was
// dropped.
func TestVoiceFailureKeepsTheMissedAlerts(t *testing.T) {
	// "one by one": the eggs and bread timers are handed over once the
	// tea timer's telling began (a box handing over what it kept one
	// alert at a time); they are told right after it, not at the next
	// probe.
	for _, handed := range []string{"together", "one by one"} {
		t.Run(handed, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &scriptReplier{})
				voice := &failingVoice{fail: "eggs", failing: true}
				h.p.opts.Synthesizer = voice
				var c callbacks
				tea, eggs, bread := "While my speaker was gone, your tea timer went off.", "While my speaker was gone, your eggs timer went off.", "While my speaker was gone, your bread timer went off."
				h.p.Tell(c.alert("tea", tea))
				if handed == "one by one" {
					synctest.Wait()
				}
				h.p.Tell(c.alert("eggs", eggs))
				h.p.Tell(c.alert("bread", bread))
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if got := c.calls(); !slices.Equal(got, []string{"told tea"}) {
					t.Fatalf("with the voice failing on the eggs: %v, want the tea told and the others kept", got)
				}
				if said := spoken(h.statuses(t)); !slices.Equal(said, []string{tea, eggs}) {
					t.Fatalf("said %q within 10 s, want the tea, and the eggs tried", said)
				}
				voice.set(false)
				time.Sleep(MissedProbe + 15*time.Second)
				st := h.statuses(t)
				if got := c.calls(); !slices.Equal(got, []string{"told tea", "told eggs", "told bread"}) {
					t.Errorf("at the next try: %v, want the eggs and bread told", got)
				}
				if said := spoken(st); !slices.Equal(said, []string{eggs, bread}) {
					t.Errorf("said %q at the next try, want the eggs and the bread", said)
				}
				h.stop(t)
			})
		})
	}
}

// TestTellingCutShort: a press while the box tells what rang unheard cuts
// it short for good (the rest is reported told: it will not be said after
// a restart either); an alert coming due cuts it short too, rings, and the
// rest is told after it.
func TestTellingCutShort(t *testing.T) {
	// "press, one by one": the eggs timer is handed over once the tea
	// timer's telling began, as a box handing over what it kept one alert
	// at a time may; the press ends it too.
	for _, by := range []string{"press", "press, one by one", "alert"} {
		t.Run(by, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := newHarness(t, &scriptReplier{})
				var c callbacks
				tea, eggs := "While my speaker was gone, your tea timer went off.", "While my speaker was gone, your eggs timer went off."
				h.p.Tell(c.alert("tea", tea))
				if by == "press, one by one" {
					time.Sleep(time.Second)
					synctest.Wait()
				}
				h.p.Tell(c.alert("eggs", eggs))
				time.Sleep(2 * time.Second) // telling the tea timer, for 5 s
				if strings.HasPrefix(by, "press") {
					h.events <- Press
					time.Sleep(3 * MissedProbe)
					if said := spoken(h.statuses(t)); !slices.Equal(said, []string{tea}) || !slices.Equal(c.calls(), []string{"told tea", "told eggs"}) {
						t.Errorf("said %q, %v; want the telling cut short for good", said, c.calls())
					}
					h.stop(t)
					return
				}
				h.p.Ring(Alert{ID: "bread", Announcement: "Your bread timer is done."})
				time.Sleep(5 * time.Second)
				st := h.statuses(t)
				if last := st[len(st)-1]; last.State != voice.Ringing || len(c.calls()) != 0 {
					t.Fatalf("after the bread timer came due: %+v, %v; want it ringing, nothing told", last, c.calls())
				}
				h.events <- Press
				time.Sleep(MissedProbe + 15*time.Second)
				if said := spoken(h.statuses(t)); !slices.Equal(said, []string{tea, eggs}) || !slices.Equal(c.calls(), []string{"told tea", "told eggs"}) {
					t.Errorf("after the bread timer: said %q, %v; want the tea and the eggs told", said, c.calls())
				}
				h.stop(t)
			})
		})
	}
}
