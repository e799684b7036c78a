package box

import (
	"testing"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/pipeline"
)

func TestEarconsFromConfig(t *testing.T) {
	def := config.Default().Audio
	for _, tc := range []struct {
		name string
		edit func(*config.Audio)
		want pipeline.Earcons
	}{
		{"defaults", func(*config.Audio) {}, pipeline.Earcons{Start: true, End: true, Error: true}},
		{"thinking on", func(a *config.Audio) { a.EarconThinking = true }, pipeline.Earcons{Start: true, End: true, Error: true, Thinking: true}},
		{"error off", func(a *config.Audio) { a.EarconError = false }, pipeline.Earcons{Start: true, End: true}},
		{"all off", func(a *config.Audio) { a.Earcons, a.EarconThinking = false, true }, pipeline.Earcons{}},
	} {
		a := def
		tc.edit(&a)
		if got := earcons(a); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
