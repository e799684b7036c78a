package pipeline

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// The box's own sound is known to the microphone for as long as it plays,
// queued writes included, and echoTail after; a playback dropped on a
// barge-in stops it at once.
func TestEchoFollowsThePlayback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := &echo{}
		spk := echoSpeaker{Speaker: &clockSpeaker{}, e: e}
		pb, _ := spk.Open(t.Context())
		second := pcm.Buffer{Rate: 48000, Channels: 2, Samples: make([]float32, 2*48000)}
		go func() {
			pb.Write(t.Context(), second)
			pb.Write(t.Context(), second)
			pb.Close(t.Context())
		}()
		time.Sleep(1900 * time.Millisecond)
		if !e.heard(time.Now()) {
			t.Error("sounding ended during the second second of audio")
		}
		time.Sleep(300 * time.Millisecond) // 2.2 s: the tail
		if !e.heard(time.Now()) {
			t.Error("sounding ended before the tail after the audio")
		}
		time.Sleep(100 * time.Millisecond) // 2.3 s
		if e.heard(time.Now()) {
			t.Error("still sounding after the audio and its tail")
		}

		ctx, cancel := context.WithCancel(t.Context())
		dropped, _ := spk.Open(ctx)
		done := make(chan struct{})
		go func() { dropped.Write(ctx, second); dropped.Close(ctx); close(done) }()
		time.Sleep(100 * time.Millisecond)
		cancel() // barge-in: the rest is dropped
		<-done
		time.Sleep(echoTail + 10*time.Millisecond)
		if e.heard(time.Now()) {
			t.Error("a dropped playback still counts as sounding")
		}
	})
}

// What the microphone caught before a press is judged by when it was
// caught: during an earlier sound and its tail, it is the box; before that
// sound began or after its tail, it is not.
func TestEchoHeardAtAMoment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := &echo{}
		start := time.Now()
		time.Sleep(time.Second)
		e.played(time.Second) // from 1 s to 2 s
		time.Sleep(2 * time.Second)
		e.played(500 * time.Millisecond) // from 3 s to 3.5 s
		time.Sleep(2 * time.Second)
		for _, tc := range []struct {
			at   time.Duration
			want bool
		}{{500 * time.Millisecond, false}, {1500 * time.Millisecond, true}, {2200 * time.Millisecond, true}, {2300 * time.Millisecond, false},
			{2900 * time.Millisecond, false}, {3200 * time.Millisecond, true}, {3800 * time.Millisecond, false}} {
			if got := e.heard(start.Add(tc.at)); got != tc.want {
				t.Errorf("caught %v in: heard %v, want %v", tc.at, got, tc.want)
			}
		}
		if e.heard(time.Now()) {
			t.Error("sounding 2 s after the sound's tail")
		}
		// Sounds older than echoKeep are forgotten when the next plays.
		time.Sleep(echoKeep)
		e.played(time.Second)
		if e.heard(start.Add(1500*time.Millisecond)) || len(e.spans) != 1 {
			t.Errorf("%d sounds remembered %v after the first; want only the last", len(e.spans), echoKeep)
		}
	})
}
