package control

import "testing"

// The boot check passes a fault of the data partition (a card to repair
// or replace, which rolling the system back would not cure) and fails on
// any other.
func TestHealthyPassesDataFaults(t *testing.T) {
	for _, tc := range []struct {
		name   string
		checks []Check
		want   bool
	}{
		{"all ok", []Check{{Name: "storage", OK: true}, {Name: "microphone", OK: true}}, true},
		{"card read-only", []Check{{Name: "storage", Detail: "cannot save: read-only", Data: true}, {Name: "microphone", OK: true}}, true},
		{"storage broken by the program", []Check{{Name: "storage", Detail: "schema 9 is newer"}}, false},
		{"microphone down", []Check{{Name: "storage", Data: true}, {Name: "microphone"}}, false},
	} {
		got, why := Status{Ready: true, Checks: tc.checks}.Healthy()
		if got != tc.want {
			t.Errorf("%s: Healthy = %v (%q), want %v", tc.name, got, why, tc.want)
		}
	}
}
