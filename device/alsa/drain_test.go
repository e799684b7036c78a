package alsa

import (
	"testing"
	"time"
)

// A drain waits for the audio the device still holds, then one more
// buffer and drainSlack: never less than what is queued, never unbounded.
func TestDrainLimit(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		queued, buffer, rate int
		want                 time.Duration
	}{
		{"a full default buffer (4 periods of 20 ms)", 3840, 3840, 48000, 80*time.Millisecond + 80*time.Millisecond + drainSlack},
		{"half of it", 1920, 3840, 48000, 40*time.Millisecond + 80*time.Millisecond + drainSlack},
		{"nothing queued", 0, 3840, 48000, 80*time.Millisecond + drainSlack},
		{"a device that reports more than its buffer", 9000, 3840, 48000, 160*time.Millisecond + drainSlack},
		{"a device that reports less than nothing", -5, 3840, 48000, 80*time.Millisecond + drainSlack},
		{"a 500 ms buffer at 16 kHz", 8000, 8000, 16000, time.Second + drainSlack},
	} {
		if got := drainLimit(tc.queued, tc.buffer, tc.rate); got != tc.want {
			t.Errorf("%s: drainLimit(%d, %d, %d) = %v, want %v", tc.name, tc.queued, tc.buffer, tc.rate, got, tc.want)
		}
	}
}
