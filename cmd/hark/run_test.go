package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/alsa"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

func TestSimulatedTurn(t *testing.T) {
	needEspeak(t)
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "It is Paris. Have a nice day."})
	dir := t.TempDir()
	cfg := writeConfig(t, "[sim]\nrealtime = false\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir}), "--sim", "--data", dir, "--config", cfg)

	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "") // the button: start listening
	s.out.waitFor(t, "[leds] ● listening", 1)
	s.typeLine(t, "what is the capital of France") // what the user says; Enter ends it
	s.out.waitFor(t, "hark: Have a nice day.", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit code %d; output:\n%s", code, s.out.String())
	}

	if got, want := s.out.leds(), []string{"idle", "listening", "transcribing", "thinking", "speaking", "idle"}; !slices.Equal(got, want) {
		t.Errorf("LED states %v, want %v", got, want)
	}
	if !strings.Contains(s.out.String(), "you:  what is the capital of France") || !strings.Contains(s.out.String(), "hark: It is Paris.") {
		t.Errorf("the conversation is not shown:\n%s", s.out.String())
	}
	// The model got the question; the reply was spoken into a file.
	chats := chats(srv)
	if len(chats) != 1 || chats[0].Model != "llama3.2:3b" || !strings.HasSuffix(chats[0].Messages[len(chats[0].Messages)-1].Content, "]\nwhat is the capital of France") {
		t.Errorf("model requests %+v", chats)
	}
	files := replies(t, dir)
	if len(files) != 1 {
		t.Fatalf("%d reply files, want 1", len(files))
	}
	if f := files[0]; f.Rate != 48000 || f.Channels != 2 || f.Duration() < time.Second || !loud(f) {
		t.Errorf("reply file %d Hz %dch %v loud=%v, want over a second of 48 kHz stereo speech", f.Rate, f.Channels, f.Duration(), loud(f))
	}
	// And the exchange is in the store.
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, _ := db.Dialogue().Recent(t.Context(), time.Now().Add(-time.Hour), 5)
	if len(got) != 1 || got[0].User != "what is the capital of France" || got[0].Assistant != "It is Paris. Have a nice day." {
		t.Errorf("stored dialogue %+v", got)
	}
}

func TestBargeInCancelsSpeechAndModel(t *testing.T) {
	needEspeak(t)
	srv, m := modelServer(t)
	first := "Once upon a time there was a small speaker that liked to talk for a very long time."
	gate := make(chan struct{})
	defer close(gate)
	// The model sends the first sentence and one word more, then holds.
	m.On(replytest.Chat, ollamatest.Reply{Content: first + " It never stopped.", Gate: gate, GateAfter: len(strings.Fields(first)) + 1})
	dir := t.TempDir()
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir}), "--sim", "--data", dir)

	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "tell me a story")
	s.out.waitFor(t, "[leds] ◉ speaking", 1)
	s.typeLine(t, "") // barge-in
	s.out.waitFor(t, "[leds] ● listening", 2)
	srv.Quiet()
	cancelled := false
	for _, r := range srv.Requests() {
		if r.Chat != nil && replytest.KindOf(*r.Chat) == replytest.Chat {
			cancelled = r.Cancelled
		}
	}
	if !cancelled {
		t.Error("the chat request was not cancelled")
	}
	s.typeLine(t, "") // the new utterance ends with nothing said
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if got, want := s.out.leds(), []string{"idle", "listening", "transcribing", "thinking", "speaking", "listening", "idle"}; !slices.Equal(got, want) {
		t.Errorf("LED states %v, want %v", got, want)
	}
	// Playback stopped: the file holds much less than the sentence.
	e, _ := espeak.New(espeak.Options{})
	full, err := e.Synthesize(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	files := replies(t, dir)
	if len(files) != 1 {
		t.Fatalf("%d reply files, want 1", len(files))
	}
	if played := files[0].Duration(); played >= full.Duration()/2 {
		t.Errorf("played %v of a %v sentence before stopping", played, full.Duration())
	}
	if strings.Contains(s.out.String(), "It never stopped.") {
		t.Error("the rest of the reply was said after the barge-in")
	}
}

func TestUnreachableModelIsSpoken(t *testing.T) {
	needEspeak(t)
	dir := t.TempDir()
	cfg := writeConfig(t, "[sim]\nrealtime = false\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "who wrote Dune")
	s.out.waitFor(t, "hark: I didn't understand that, and I can't reach my language model right now.", 1) // not understood offline either
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if got, want := s.out.leds(), []string{"idle", "listening", "transcribing", "thinking", "speaking", "error", "idle"}; !slices.Equal(got, want) {
		t.Errorf("LED states %v, want %v", got, want)
	}
	if files := replies(t, dir); len(files) != 1 || !loud(files[0]) {
		t.Errorf("the apology was not spoken: %d files", len(files))
	}
}

func TestRunRefusesHardwareBoardWithoutDrivers(t *testing.T) {
	if alsa.Built() {
		t.Skip("built with alsa-lib: a board whose devices are missing runs degraded rather than refusing (device/box's controls tests); the build without it refuses")
	}
	var out output
	code := run(t.Context(), []string{"run", "--data", t.TempDir(), "--config", writeConfig(t, "board = \"respeaker-2mic\"\n")}, env{stdin: strings.NewReader(""), stdout: &out, stderr: &out, getenv: vars(nil)})
	if code != 1 || !strings.Contains(out.String(), `board "respeaker-2mic"`) {
		t.Errorf("code %d, output %q", code, out.String())
	}
}

func TestWithoutEspeakRepliesArePrinted(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no espeak-ng anywhere
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Printed, not spoken."})
	dir := t.TempDir()
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir}), "--sim", "--data", dir)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "say something")
	s.out.waitFor(t, "hark: Printed, not spoken.", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	out := s.out.String()
	if n := strings.Count(out, "speech is off"); n != 1 {
		t.Errorf("%d warnings that speech is off, want exactly one:\n%s", n, out)
	}
	if files := replies(t, dir); len(files) != 0 {
		t.Errorf("%d reply files written with speech off", len(files))
	}
}

// TestSimulatedTurnInTheLanguageTyped: a short question typed in the
// simulation is answered offline in its language, as `hark ask` answers
// it, though its few words alone do not tell the language.
func TestSimulatedTurnInTheLanguageTyped(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // printed, not spoken: the words are what is checked
	dir := t.TempDir()
	cfg := writeConfig(t, "[sim]\nrealtime = false\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	for i, tc := range []struct {
		say  string
		lang locale.Lang
		want string
	}{
		{"welche Timer laufen", locale.German, "You have no timers."},
		{"quels sont mes réveils", locale.French, "You have no alarms."},
		{"welche Timer", locale.German, "You have no timers."},
		{"quels réveils", locale.French, "You have no alarms."},
		{"qué alarmas tengo", locale.Spanish, "You have no alarms."},
	} {
		s.typeLine(t, tc.say)
		s.out.waitFor(t, "[leds] ○ idle", i+2)
		out := s.out.String()
		said := out[strings.LastIndex(out, "you:  "+tc.say):]
		if want := tc.lang.T(tc.want); !strings.Contains(said, "hark: "+want) {
			t.Errorf("typed %q: got\n%s\nwant the %s %q", tc.say, said, tc.lang, want)
		}
	}
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
