package box

import (
	"testing"

	"github.com/harkbox/hark/pipeline"
)

// TestSettingsLive: the settings page shows the volume the speaker plays
// at, however it was set; in a running daemon the follow-up, the earcons
// and the name and place apply at once, and the page lists them as in use.
func TestSettingsLive(t *testing.T) {
	srv, _ := modelServer(t)
	cfg, res := configure(t, "[tts]\nengine = \"off\"\n", map[string]string{"OLLAMA_HOST": srv.URL})
	b, err := Open(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := pipeline.New(pipeline.Options{Microphone: silentMic{}, Transcriber: noWords{}, Replier: pipeline.ReplierFunc(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var persona [2]string
	lv := &live{restart: func() {}, pipe: p, earcons: true, persona: func(n, pl string) { persona = [2]string{n, pl} }}
	s := b.api(nil, nil, &page{}, lv, nil).Settings
	ctx := t.Context()
	if err := b.mixer.SetVolume(ctx, 30, false); err != nil { // "volume 30", said aloud
		t.Fatal(err)
	}
	value := func(key string) (string, string) {
		t.Helper()
		list, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range list {
			if st.Key == key {
				return st.Value, st.Saved
			}
		}
		t.Fatalf("no setting %s", key)
		return "", ""
	}
	if v, _ := value("audio.volume"); v != "30" {
		t.Errorf("the page shows volume %s, the speaker plays at 30", v)
	}
	for _, kv := range [][2]string{{"pipeline.follow_up", "off"}, {"audio.earcon_thinking", "true"}, {"assistant.room", "kitchen"}, {"assistant.name", "Ada"}, {"listen.mode", "hold"}} {
		if err := s.Set(ctx, kv[0], kv[1]); err != nil {
			t.Fatalf("%s = %s: %v", kv[0], kv[1], err)
		}
	}
	for _, key := range []string{"pipeline.follow_up", "audio.earcon_thinking", "assistant.room", "assistant.name"} {
		if _, saved := value(key); saved != "" {
			t.Errorf("%s waits for a restart (%q)", key, saved)
		}
	}
	if _, saved := value("listen.mode"); saved != "hold" {
		t.Errorf("listen.mode is said to be in use: saved %q", saved)
	}
	if persona != [2]string{"Ada", "the kitchen speaker"} {
		t.Errorf("the engine was given %q", persona)
	}
	if err := s.Set(ctx, "ollama.host", "not a host::"); err == nil {
		t.Error("an address that is not one was kept")
	}
}
