//go:build whisper && cgo

package main

import (
	"testing"
)

// With the Wyoming server down, the box's own whisper.cpp hears the
// microphone instead. The test model has no trained weights, so the turn
// ends in "no speech" or in gibberish; what matters is that the audio went
// through the engine and the box came back to idle.
func TestLocalWhisperIsTheFallback(t *testing.T) {
	needEspeak(t)
	model := sharedFile(t, "models/for-tests-ggml-tiny.en.bin")
	jfk := sharedFile(t, "testdata/speech/jfk.wav")
	dir := t.TempDir()
	remote := deadPort(t)
	cfg := writeConfig(t, "[sim]\nrealtime = false\n[whisper]\nthreads = 2\nmodel = \""+model+"\"\nremote = \""+remote+"\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--verbose", "--data", dir, "--config", cfg, "--mic-wav", jfk)
	s.out.waitFor(t, "speech-to-text: Wyoming server "+remote+", falling back to whisper.cpp on the box", 1)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "")
	s.out.waitFor(t, "[leds] ◐ transcribing", 1)
	s.out.waitFor(t, "speech-to-text failed; using the fallback", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestEnglishOnlyModelUnderGerman: a box set to German with a model that
// knows only English says so when it starts, rather than hearing German as
// English guesses without a word.
func TestEnglishOnlyModelUnderGerman(t *testing.T) {
	model := sharedFile(t, "models/for-tests-ggml-tiny.en.bin")
	dir := t.TempDir()
	cfg := writeConfig(t, "[sim]\nrealtime = false\n[whisper]\nthreads = 2\nlanguage = \"de\"\nmodel = \""+model+"\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--verbose", "--data", dir, "--config", cfg)
	s.out.waitFor(t, `the model knows only English, so speech in "de" is heard as English`, 1)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
