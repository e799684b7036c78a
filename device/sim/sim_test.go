package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

func TestTerminalPressesAndTypedSpeech(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		term := NewTerminal(pr, NewScreen(io.Discard, false))
		go term.Run(t.Context())

		stt := term.Transcriber()
		heard := func(u voice.Utterance) string {
			tr, err := stt.Transcribe(t.Context(), u)
			if err != nil {
				return "error: " + err.Error()
			}
			return tr.Text
		}
		// Typed while idle: a press with words, and the text for the Record
		// that follows.
		io.WriteString(pw, "what time is it\n")
		if ev := <-term.Events(); ev != pipeline.Talk {
			t.Fatalf("event %v, want talk", ev)
		}
		u, err := term.Record(t.Context(), voice.Listen{})
		if err != nil || heard(u) != "what time is it" || len(u.Audio.Samples) != 0 {
			t.Fatalf("Record = %+v, %v", u, err)
		}

		// Enter alone is a press; the next line, typed while listening, is the
		// utterance and ends it without another press.
		io.WriteString(pw, "\n")
		if ev := <-term.Events(); ev != pipeline.Press {
			t.Fatalf("event %v, want press", ev)
		}
		got := make(chan voice.Utterance)
		go func() {
			u, _ := term.Record(t.Context(), voice.Listen{})
			got <- u
		}()
		synctest.Wait()
		io.WriteString(pw, "set a timer\n")
		if u := <-got; heard(u) != "set a timer" {
			t.Errorf("utterance %q, want the typed line", heard(u))
		}
		synctest.Wait()
		select {
		case ev := <-term.Events():
			t.Errorf("the line that ended the utterance also sent %v", ev)
		default:
		}

		io.WriteString(pw, "/stop\n")
		if ev := <-term.Events(); ev != pipeline.Stop {
			t.Errorf("/stop sent %v, want stop", ev)
		}
		pw.Close()
		if _, ok := <-term.Events(); ok {
			t.Error("events still open after input ended")
		}
	})
}

func TestTerminalRecordEndedByButton(t *testing.T) {
	term := NewTerminal(strings.NewReader(""), NewScreen(io.Discard, false))
	end := make(chan struct{})
	close(end)
	if _, err := term.Record(t.Context(), voice.Listen{End: end}); !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("Record ended before typing = %v, want ErrNoSpeech", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := term.Record(ctx, voice.Listen{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Record cancelled = %v", err)
	}
}

func TestTerminalQuit(t *testing.T) {
	term := NewTerminal(strings.NewReader("/quit\nnever read\n"), NewScreen(io.Discard, false))
	go term.Run(t.Context())
	if _, ok := <-term.Events(); ok {
		t.Error("/quit sent an event instead of closing")
	}
}

// TestTerminalQuitWhileListening: Enter, then /stop or /quit while the
// box listens, is the long press or leaving, as at any other moment; never
// words for the model.
func TestTerminalQuitWhileListening(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		term := NewTerminal(pr, NewScreen(io.Discard, false))
		go term.Run(t.Context())
		io.WriteString(pw, "\n")
		if ev := <-term.Events(); ev != pipeline.Press {
			t.Fatalf("event %v, want press", ev)
		}
		done := make(chan error, 1)
		go func() {
			u, err := term.Record(t.Context(), voice.Listen{})
			if err == nil {
				tr, _ := term.Transcriber().Transcribe(t.Context(), u)
				err = errors.New("heard " + tr.Text)
			}
			done <- err
		}()
		synctest.Wait()
		io.WriteString(pw, "/stop\n")
		select {
		case ev := <-term.Events():
			if ev != pipeline.Stop {
				t.Errorf("/stop while listening sent %v, want stop", ev)
			}
		case err := <-done:
			t.Fatalf("/stop while listening: the recording ended with %v, and no stop was sent", err)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		term := NewTerminal(pr, NewScreen(io.Discard, false))
		go term.Run(t.Context())
		io.WriteString(pw, "\n")
		if ev := <-term.Events(); ev != pipeline.Press {
			t.Fatalf("event %v, want press", ev)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := term.Record(ctx, voice.Listen{})
			done <- err
		}()
		synctest.Wait()
		io.WriteString(pw, "/quit\n")
		select {
		case ev, ok := <-term.Events():
			if ok {
				t.Errorf("/quit while listening sent %v instead of closing", ev)
			}
		case err := <-done:
			t.Fatalf("/quit while listening was taken as speech (%v), and the terminal did not close", err)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("/quit while listening was taken as speech: %v", err)
		}
	})
}

// TestTerminalConsoleCommands: a console command runs and shows its line
// (or its error), and is neither a press nor speech.
func TestTerminalConsoleCommands(t *testing.T) {
	var out strings.Builder
	term := NewTerminal(strings.NewReader("/clock sync\n/clock soon\n/quit\n"), NewScreen(&out, false))
	var args []string
	term.Handle("/clock", func(arg string) (string, error) {
		args = append(args, arg)
		if arg != "sync" {
			return "", errors.New("not a time")
		}
		return "clock: set", nil
	})
	go term.Run(t.Context())
	if _, ok := <-term.Events(); ok {
		t.Error("a console command sent an event")
	}
	if !slices.Equal(args, []string{"sync", "soon"}) || !strings.Contains(out.String(), "clock: set\n") || !strings.Contains(out.String(), "not a time\n") {
		t.Errorf("ran %q; screen:\n%s", args, out.String())
	}
}

func writeWAV(t *testing.T, path string, b pcm.Buffer) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pcm.WriteWAV(f, b, 16); err != nil {
		t.Fatal(err)
	}
}

func tone(rate, ch int, d time.Duration) pcm.Buffer {
	n := pcm.FramesIn(d, rate) * ch
	b := pcm.Buffer{Rate: rate, Channels: ch, Samples: make([]float32, n)}
	for i := range b.Samples {
		b.Samples[i] = 0.3
	}
	return b
}

func TestWAVMicPlaysInRealTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "say.wav")
	writeWAV(t, path, tone(44100, 2, 2*time.Second))
	synctest.Test(t, func(t *testing.T) {
		mic, err := NewWAVMic(path, true)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		u, err := mic.Record(t.Context(), voice.Listen{})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != 2*time.Second {
			t.Errorf("recording took %v, want the clip's 2s", took)
		}
		if u.Audio.Rate != 16000 || u.Audio.Channels != 1 || u.Audio.Frames() != 32000 {
			t.Errorf("audio %d Hz %dch %d frames, want 16 kHz mono 32000 frames", u.Audio.Rate, u.Audio.Channels, u.Audio.Frames())
		}

		// The button ends it early with what was heard so far.
		end := make(chan struct{})
		go func() {
			time.Sleep(500 * time.Millisecond)
			close(end)
		}()
		u, err = mic.Record(t.Context(), voice.Listen{End: end})
		if err != nil {
			t.Fatal(err)
		}
		if d := u.Audio.Duration(); d < 480*time.Millisecond || d > 520*time.Millisecond {
			t.Errorf("ended after 500ms with %v of audio", d)
		}
	})
}

func TestWAVMicRejectsCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.wav")
	os.WriteFile(path, []byte("RIFF....WAVEjunk"), 0o644)
	_, err := NewWAVMic(path, false)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming the file", err)
	}
	if _, err := NewWAVMic(filepath.Join(t.TempDir(), "missing.wav"), false); err == nil {
		t.Error("a missing file gave no error")
	}
}

func TestWAVSpeakerWritesReplies(t *testing.T) {
	dir := t.TempDir()
	n := 0
	spk := NewWAVSpeaker(SpeakerOptions{Dir: dir, Keep: 2, Now: func() time.Time {
		n++
		return time.Date(2026, 11, 22, 10, 0, n, 0, time.UTC)
	}})
	for range 3 {
		pb, err := spk.Open(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		rate, ch := pb.Format()
		if rate != 48000 || ch != 2 {
			t.Fatalf("format %d/%d, want 48000 Hz stereo by default", rate, ch)
		}
		if err := pb.Write(t.Context(), tone(48000, 2, 100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if err := pb.Write(t.Context(), tone(16000, 1, 10*time.Millisecond)); err == nil {
			t.Error("a buffer in the wrong format was accepted")
		}
		if err := pb.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "reply-*.wav"))
	if len(files) != 2 || !strings.HasSuffix(files[0], "100002.000.wav") {
		t.Fatalf("files %v, want the newest two", files)
	}
	f, _ := os.Open(files[1])
	defer f.Close()
	b, err := pcm.ReadWAV(f)
	if err != nil {
		t.Fatal(err)
	}
	if b.Rate != 48000 || b.Channels != 2 || b.Frames() != 4800 {
		t.Errorf("reply file %d Hz %dch %d frames", b.Rate, b.Channels, b.Frames())
	}
}

func TestWAVSpeakerStopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		spk := NewWAVSpeaker(SpeakerOptions{Dir: dir, Realtime: true})
		pb, _ := spk.Open(t.Context())
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			time.Sleep(300 * time.Millisecond)
			cancel()
		}()
		start := time.Now()
		err := pb.Write(ctx, tone(48000, 2, 3*time.Second))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Write = %v, want cancelled", err)
		}
		if took := time.Since(start); took != 300*time.Millisecond {
			t.Errorf("stopped after %v, want at the press (300ms)", took)
		}
		pb.Close(ctx)
	})
	files, _ := filepath.Glob(filepath.Join(dir, "reply-*.wav"))
	f, _ := os.Open(files[0])
	defer f.Close()
	b, _ := pcm.ReadWAV(f)
	if d := b.Duration(); d < 280*time.Millisecond || d > 320*time.Millisecond {
		t.Errorf("file holds %v, want what played before the press", d)
	}
}

func TestScreen(t *testing.T) {
	var tty, plain bytes.Buffer
	for _, s := range []*Screen{NewScreen(&tty, true), NewScreen(&plain, false)} {
		s.Status("● listening")
		s.Status("● listening") // unchanged: not redrawn
		s.Println("hark: hi")
	}
	if got, want := tty.String(), "\r\033[K● listening › \r\033[Khark: hi\n● listening › "; got != want {
		t.Errorf("tty output %q, want %q", got, want)
	}
	if got, want := plain.String(), "[leds] ● listening\nhark: hi\n"; got != want {
		t.Errorf("plain output %q, want %q", got, want)
	}
}

func TestTypedTranscriber(t *testing.T) {
	term := NewTerminal(strings.NewReader(""), NewScreen(io.Discard, false))
	stt := term.Transcriber()
	if _, err := stt.Transcribe(t.Context(), voice.Utterance{Audio: tone(16000, 1, time.Second)}); !errors.Is(err, ErrNoEngine) {
		t.Errorf("audio without an engine = %v, want ErrNoEngine", err)
	}
	if _, err := stt.Transcribe(t.Context(), voice.Utterance{}); !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("nothing = %v, want ErrNoSpeech", err)
	}
}

// TestLineTypedWhileRinging is the regression for lines answered one
// behind: a line typed while an alert rings silences it and is answered,
// and the next line gets its own answer, each sent to the replier once.
func TestLineTypedWhileRinging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		term := NewTerminal(pr, NewScreen(io.Discard, false))
		var mu sync.Mutex
		var asked []string
		p, err := pipeline.New(pipeline.Options{
			Microphone:  term,
			Transcriber: term.Transcriber(),
			Replier: pipeline.ReplierFunc(func(ctx context.Context, q pipeline.Query, say func(string)) (pipeline.Outcome, error) {
				mu.Lock()
				asked = append(asked, q.Text)
				mu.Unlock()
				say("answer to " + q.Text)
				return pipeline.Outcome{}, nil
			}),
			RingFor: time.Hour,
		})
		if err != nil {
			t.Fatal(err)
		}
		feed := p.Subscribe(64)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go term.Run(ctx)
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx, term.Events()) }()
		synctest.Wait()

		p.Ring(pipeline.Alert{ID: "t1", Announcement: "Your timer is done."})
		synctest.Wait()
		if st := latest(t, feed); st.State != voice.Ringing {
			t.Fatalf("state %v, want ringing", st.State)
		}
		io.WriteString(pw, "what's 2 plus 2\n")
		synctest.Wait()
		io.WriteString(pw, "what time is it\n")
		synctest.Wait()
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"what's 2 plus 2", "what time is it"}; !slices.Equal(asked, want) {
			t.Errorf("the replier was asked %q, want %q: every line once, in order", asked, want)
		}
	})
}

// latest is the newest state the feed holds.
func latest(t *testing.T, f *pipeline.Feed) voice.Status {
	t.Helper()
	st, err := f.Latest(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestTerminalFollowUpWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		term := NewTerminal(strings.NewReader(""), NewScreen(io.Discard, false))
		start := time.Now()
		_, err := term.Record(t.Context(), voice.Listen{StartTimeout: 4 * time.Second})
		if !errors.Is(err, voice.ErrNoSpeech) || time.Since(start) != TypingWindow {
			t.Errorf("window closed after %v with %v, want ErrNoSpeech after the typing window", time.Since(start), err)
		}
	})
}

func TestWAVMicSaysNothingInAFollowUpWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "say.wav")
	writeWAV(t, path, tone(16000, 1, time.Second))
	synctest.Test(t, func(t *testing.T) {
		mic, _ := NewWAVMic(path, true)
		if _, err := mic.Record(t.Context(), voice.Listen{StartTimeout: 4 * time.Second, FollowUp: true}); !errors.Is(err, voice.ErrNoSpeech) {
			t.Errorf("follow-up window: %v", err)
		}
	})
}

// TestLightsShowTheModelLoading: while the model loads, the ring's line
// says so over idle and thinking, as the board's ring does, but not over
// listening; it goes back to the state when the load ends.
func TestLightsShowTheModelLoading(t *testing.T) {
	var out bytes.Buffer
	l := NewLights(NewScreen(&out, false))
	l.SetStarting(true) // nothing drawn before the pipeline's first state
	l.show(voice.Idle, false)
	l.show(voice.Listening, false)
	l.show(voice.Thinking, false)
	l.SetStarting(false)
	want := "[leds] ◌ starting: the model is loading\n" +
		"[leds] ● listening: type what you say, Enter ends it\n" +
		"[leds] ◌ starting: the model is loading\n" +
		"[leds] ◑ thinking: Enter cancels\n"
	if got := out.String(); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}
