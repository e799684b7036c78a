//go:build whisper && cgo

package whisper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// shared is a file in ../shared beside the repository, or a skip.
func shared(tb testing.TB, rel string) string { return sharedtest.Path(tb, rel) }

func speech(tb testing.TB, rel string) pcm.Buffer { return pcm.ToSpeech(sharedtest.WAV(tb, rel)) }

func engine(t testing.TB, o Options) *Engine {
	t.Helper()
	if o.Model == "" {
		o.Model = shared(t, "models/for-tests-ggml-tiny.en.bin")
	}
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestLoadAndTranscribeJFK(t *testing.T) {
	e := engine(t, Options{Threads: 2})
	if !Built() || e.LoadTime() <= 0 || !strings.Contains(Version(), "whisper.cpp ") || len(Features()) == 0 {
		t.Errorf("built %v, load %v, version %q, features %v", Built(), e.LoadTime(), Version(), Features())
	}
	jfk := speech(t, "testdata/speech/jfk.wav")
	r, err := e.Run(t.Context(), jfk.Samples)
	if err != nil {
		t.Fatal(err)
	}
	// The test model has whisper tiny's shape but no trained weights: it runs
	// the whole path and transcribes nothing useful.
	if r.Timings.Encode <= 0 || r.Timings.Total <= 0 {
		t.Errorf("timings %+v", r.Timings)
	}
	if e.Multilingual() || r.Language != "en" {
		t.Errorf("an English-only model: multilingual %v, language %q", e.Multilingual(), r.Language)
	}
	tr, err := e.Transcribe(t.Context(), voice.Utterance{Audio: jfk})
	if err != nil && !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("Transcribe: %v", err)
	}
	t.Logf("untrained transcript %q (%v); encode %v decode %v", tr.Text, err, r.Timings.Encode, r.Timings.Decode)
}

func TestMultilingualModelDetectsLanguage(t *testing.T) {
	e := engine(t, Options{Model: shared(t, "models/for-tests-ggml-tiny.bin"), Language: "auto"})
	r, err := e.Run(t.Context(), speech(t, "testdata/speech/jfk.wav").Samples[:16000*3])
	if err != nil {
		t.Fatal(err)
	}
	if !e.Multilingual() || r.Language == "" {
		t.Errorf("multilingual %v, detected %q", e.Multilingual(), r.Language)
	}
}

// TestLanguagesAreWhisperCpps: the Go list the configuration is checked
// against is whisper.cpp's own, code for code and in the order of its ids.
func TestLanguagesAreWhisperCpps(t *testing.T) {
	if got, want := langMaxID(), len(languages)-1; got != want {
		t.Errorf("whisper.cpp's largest language id is %d, the Go list's %d", got, want)
	}
	for id, code := range languages {
		if got := langID(code); got != id {
			t.Errorf("whisper_lang_id(%q) = %d, want %d", code, got, id)
		}
	}
	for id := range langMaxID() + 1 {
		if code := langCode(id); !slices.Contains(languages, code) {
			t.Errorf("whisper.cpp's language %d, %q, is not in the Go list", id, code)
		}
	}
}

// TestLanguageCodes: whisper.cpp has no language for "nb" or "deu" and would
// put a second start-of-transcript token where the language belongs; the
// engine runs such a code as the language meant, and refuses one it does not
// know at all.
func TestLanguageCodes(t *testing.T) {
	model := shared(t, "models/for-tests-ggml-tiny.bin")
	clip := speech(t, "testdata/speech/jfk.wav").Samples[:16000*2]
	for code, want := range map[string]string{"nb": "no", "deu": "de", "en-GB": "en"} {
		e := engine(t, Options{Model: model, Language: code, Threads: 2})
		r, err := e.Run(t.Context(), clip)
		if err != nil || r.Language != want {
			t.Errorf("language %q: transcribed in %q, %v; want %q", code, r.Language, err, want)
		}
	}
	if e, err := New(Options{Model: model, Language: "xx"}); err == nil || !strings.Contains(err.Error(), `"xx"`) {
		if e != nil {
			e.Close()
		}
		t.Errorf("language \"xx\": New = %v, want an error naming the code", err)
	}
}

func TestAbortMidTranscription(t *testing.T) {
	// Beam search over the full window on one thread: seconds of work.
	e := engine(t, Options{Threads: 1, FullWindow: true, BeamSize: 5})
	jfk := speech(t, "testdata/speech/jfk.wav").Samples
	ctx, cancel := context.WithCancel(t.Context())
	go func() { // the press comes once whisper.cpp is at work
		for atomic.LoadInt64((*int64)(unsafe.Pointer(&e.flags.running))) == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := e.Run(ctx, jfk); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want cancelled", err)
	}
	// The next transcription waits for whisper.cpp to stop, then runs.
	if _, err := e.Run(t.Context(), jfk[:16000]); err != nil {
		t.Fatalf("after an abort: %v", err)
	}
	if n := e.aborted.Load(); n != 1 {
		t.Errorf("whisper.cpp stopped %d transcriptions early, want the cancelled one", n)
	}
	// Cancelled before it starts: no work at all.
	done, stop := context.WithCancel(t.Context())
	stop()
	if _, err := e.Run(done, jfk); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled context: %v", err)
	}
	if n := e.aborted.Load(); n != 1 {
		t.Errorf("a transcription cancelled before it began reached whisper.cpp")
	}
}

func TestRejectBadModels(t *testing.T) {
	good := shared(t, "models/for-tests-ggml-tiny.en.bin")
	dir := t.TempDir()
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.bin")
	os.WriteFile(truncated, data[:len(data)/3], 0o644)
	notModel := filepath.Join(dir, "notes.bin")
	os.WriteFile(notModel, []byte("these are not the weights you are looking for"), 0o644)
	empty := filepath.Join(dir, "empty.bin")
	os.WriteFile(empty, nil, 0o644)
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.bin"), "no such file"},
		{truncated, "is truncated"},
		{notModel, "is not a whisper.cpp ggml model"},
		{empty, "is truncated"},
	} {
		_, err := New(Options{Model: tt.path})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%s) = %v, want an error containing %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}

func TestOneTranscriptionAtATime(t *testing.T) {
	e := engine(t, Options{Threads: 1})
	clip := speech(t, "testdata/speech/jfk.wav").Samples[:16000*2]
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			_, err := e.Run(t.Context(), clip)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestVADTrimming(t *testing.T) {
	e := engine(t, Options{VADModel: shared(t, "models/ggml-silero-v6.2.0.bin")})
	jfk := speech(t, "testdata/speech/jfk.wav").Samples
	padded := append(append(make([]float32, 16000*3), jfk...), make([]float32, 16000*3)...)
	r, err := e.Run(t.Context(), padded)
	if err != nil {
		t.Fatal(err)
	}
	// 17 s went in; the 6 s of silence around the speech did not reach the
	// encoder, and the audio context was sized to what did.
	if r.Speech <= 5*time.Second || r.Speech > 11*time.Second || r.AudioContext != AudioContext(int(r.Speech.Seconds()*16000)) {
		t.Errorf("VAD kept %v of 17 s, audio context %d", r.Speech, r.AudioContext)
	}
	// Silence alone never reaches the encoder, and is no speech.
	r, err = e.Run(t.Context(), make([]float32, 16000*4))
	if err != nil {
		t.Fatal(err)
	}
	if r.Speech != 0 || r.Timings.Encode != 0 {
		t.Errorf("silence: kept %v, encoder %v", r.Speech, r.Timings.Encode)
	}
	if _, err := e.Transcribe(t.Context(), voice.Utterance{Audio: pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 16000*4)}}); !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("silence transcribed: %v", err)
	}
}

func TestBadVADModel(t *testing.T) {
	model := shared(t, "models/for-tests-ggml-tiny.en.bin")
	if _, err := New(Options{Model: model, VADModel: filepath.Join(t.TempDir(), "silero.bin")}); err == nil || !strings.Contains(err.Error(), "VAD model") {
		t.Errorf("a missing VAD model: %v", err)
	}
	if _, err := New(Options{Model: model, VADModel: model}); err == nil || !strings.Contains(err.Error(), "is not a Silero VAD model") {
		t.Errorf("a whisper model as the VAD model: %v", err)
	}
}

// speechClip reads a clip of ../shared/testdata/speech for endpointtest.
func speechClip(tb testing.TB, rel string) pcm.Buffer {
	return sharedtest.WAV(tb, "testdata/speech/"+rel)
}
