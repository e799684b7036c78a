package command_test

import (
	"testing"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
)

func TestCompleteIsWhatTheOfflineCoreTakesWhole(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	if err := reg.Register(builtin.All(builtin.Deps{})...); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text, lang string
		want       bool
	}{
		// Commands of the offline core, with everything they need.
		{"Set a timer for five minutes.", "en", true},
		{"set a timer for", "en", false},
		{"set a timer", "en", false},
		{"Stop.", "en", true},
		{"cancel", "", true},
		{"What time is it?", "en", true},
		{"what time is", "en", false},
		{"Stell einen Timer für fünf Minuten.", "de", true},
		{"Stell einen Timer für", "de", false},
		{"Quelle heure est-il ?", "fr", true},
		{"¿Qué hora es?", "es", true},
		// A word that is a whole answer or control.
		{"Pause.", "en", true},
		{"yes", "en", true},
		{"No.", "en", true},
		{"next", "", true},
		{"resume", "en", true},
		{"oui", "fr", true},
		{"weiter", "de", true},
		// Whole questions, and ones still being asked.
		{"What's the weather like tomorrow?", "en", true},
		{"what's the weather like", "en", false},
		{"what is the capital of", "en", false},
		{"how far is the moon", "en", true},
		{"Wie spät ist es?", "de", true},
		// Not known to be whole: the microphone waits for the long silence.
		{"turn on the", "en", false},
		{"Turn on all the lights", "en", false},
		{"remind me to call", "en", false},
		{"play some music", "en", false},
		{"Allume la lumière", "fr", false},
		{"", "en", false},
	}
	for _, tc := range cases {
		if got := reg.Complete(t.Context(), tc.text, tc.lang); got != tc.want {
			t.Errorf("Complete(%q, %q) = %v, want %v", tc.text, tc.lang, got, tc.want)
		}
	}
}
