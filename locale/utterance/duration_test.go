package utterance

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		n    int
	}{
		{"five minutes", 5 * time.Minute, 2},
		{"5 minutes please", 5 * time.Minute, 2},
		{"an hour and a half", 90 * time.Minute, 5},
		{"a minute and a half", 90 * time.Second, 5},
		{"1 hour 30 minutes", 90 * time.Minute, 4},
		{"2 hours and 15 minutes", 135 * time.Minute, 5},
		{"half an hour", 30 * time.Minute, 3},
		{"a quarter of an hour", 15 * time.Minute, 5},
		{"quarter hour", 15 * time.Minute, 2},
		{"three quarters of an hour", 45 * time.Minute, 5},
		{"three quarter hour", 45 * time.Minute, 3},
		{"3 quarters of an hour", 45 * time.Minute, 5},
		{"a minute and a half", 90 * time.Second, 5},
		{"minute and a half", 90 * time.Second, 4},
		{"two and a half hours", 150 * time.Minute, 5},
		{"90 seconds", 90 * time.Second, 2},
		{"ten mins", 10 * time.Minute, 2},
		{"1h30m", 90 * time.Minute, 1},
		{"45s", 45 * time.Second, 1},
		{"twenty five minutes", 25 * time.Minute, 3},
		{"a day", 24 * time.Hour, 2},
		{"one hour fifteen minutes and ten seconds", time.Hour + 15*time.Minute + 10*time.Second, 7},
	}
	for _, tt := range tests {
		d, n, ok := Duration(Words(tt.in))
		if !ok || d != tt.want || n != tt.n {
			t.Errorf("Duration(%q) = %v, %d, %v; want %v, %d", tt.in, d, n, ok, tt.want, tt.n)
		}
	}
	for _, in := range []string{"five", "minutes", "half", "a timer", "zero minutes", "m"} {
		if d, _, ok := Duration(Words(in)); ok {
			t.Errorf("Duration(%q) = %v, want none", in, d)
		}
	}
}

func TestFindDuration(t *testing.T) {
	d, at, n, ok := FindDuration(Words("set a pasta timer for eight minutes"))
	if !ok || d != 8*time.Minute || at != 5 || n != 2 {
		t.Errorf("got %v at %d (%d), %v", d, at, n, ok)
	}
}
