package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// pacedVoice streams pieces of audio: the first after first, each next
// after gap; or fails with err. It counts the sentences asked of it.
type pacedVoice struct {
	mu          sync.Mutex
	first, gap  time.Duration
	pieces      int
	err         error
	calls       int
	probeErr    error
	probes      int
	withoutLang string // the language it has no voice for
}

func (p *pacedVoice) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	return collect(func(emit func(pcm.Buffer) error, _ func()) error { return p.Stream(ctx, text, emit) })
}

func (p *pacedVoice) Stream(ctx context.Context, text string, emit func(pcm.Buffer) error) error {
	p.mu.Lock()
	p.calls++
	first, gap, pieces, err := p.first, p.gap, p.pieces, p.err
	p.mu.Unlock()
	if locale.LanguageOf(ctx) != "" && locale.LanguageOf(ctx) == p.withoutLang {
		return voice.ErrNoVoice
	}
	if err != nil {
		return err
	}
	for i := range max(pieces, 1) {
		d := gap
		if i == 0 {
			d = first
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := emit(pcm.Buffer{Rate: 22050, Channels: 1, Samples: make([]float32, 10)}); err != nil {
			return err
		}
	}
	return nil
}

func (p *pacedVoice) set(f func(p *pacedVoice)) { p.mu.Lock(); f(p); p.mu.Unlock() }
func (p *pacedVoice) asked() int                { p.mu.Lock(); defer p.mu.Unlock(); return p.calls }

// probing is a pacedVoice that can be probed.
type probing struct{ *pacedVoice }

func (p probing) Probe(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.probes++
	return p.probeErr
}

// espeak stands in for the box's own voice: 16 kHz.
type espeak struct{}

func (espeak) Synthesize(context.Context, string) (pcm.Buffer, error) {
	return pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 10)}, nil
}

// TestVoiceFallbackDeadlineIsFirstAudioThenGap: a voice that streams
// steadily past the deadline is never cut off; one whose first audio is
// late, or which stalls between pieces, is replaced for that sentence.
func TestVoiceFallbackDeadlineIsFirstAudioThenGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := &pacedVoice{first: 500 * time.Millisecond, gap: 500 * time.Millisecond, pieces: 12} // 6 s in all
		f := &VoiceFallback{Primary: primary, Backup: espeak{}, Deadline: 2 * time.Second, Gap: time.Second, Trip: 5}
		if b, err := f.Synthesize(t.Context(), "A long sentence."); err != nil || b.Rate != 22050 || len(b.Samples) != 120 {
			t.Errorf("a steady stream: rate %d, %d samples, %v; want all of the voice's", b.Rate, len(b.Samples), err)
		}
		primary.set(func(p *pacedVoice) { p.first = 3 * time.Second })
		if b, _ := f.Synthesize(t.Context(), "Hello."); b.Rate != 16000 {
			t.Errorf("late first audio: rate %d, want the fallback's", b.Rate)
		}
		primary.set(func(p *pacedVoice) { p.first, p.gap = 0, 2*time.Second })
		var got []int
		f.Stream(t.Context(), "Hello.", func(b pcm.Buffer) error { got = append(got, b.Rate); return nil })
		if len(got) != 2 || got[0] != 22050 || got[1] != 16000 {
			t.Errorf("a stall mid-sentence: pieces %v, want the voice's first, then the whole sentence from the fallback", got)
		}
	})
}

// TestVoiceFallbackStaysForTheReply: once a sentence of a reply fell
// back, the rest of that reply is the fallback's without asking the
// voice; the next reply tries the voice again.
func TestVoiceFallbackStaysForTheReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		primary := &pacedVoice{first: 5 * time.Second}
		f := &VoiceFallback{Primary: primary, Backup: espeak{}, Trip: 5}
		reply := f.ForReply()
		reply.Synthesize(t.Context(), "One.")
		primary.set(func(p *pacedVoice) { p.first = 0 })
		if b, _ := reply.Synthesize(t.Context(), "Two."); b.Rate != 16000 || primary.asked() != 1 {
			t.Errorf("second sentence: rate %d, voice asked %d times; want the fallback, voice asked once", b.Rate, primary.asked())
		}
		if b, _ := f.ForReply().Synthesize(t.Context(), "Next reply."); b.Rate != 22050 {
			t.Errorf("the next reply: rate %d, want the voice", b.Rate)
		}
	})
}

// TestVoiceFallbackCircuit: after Trip failures the voice is not asked;
// without a probe it gets one sentence after ProbeEvery; with one, the
// probe closes the circuit in the background. Outages are logged once
// each way. A barge-in is no failure.
func TestVoiceFallbackCircuit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		primary := &pacedVoice{err: errors.New("connection refused")}
		f := &VoiceFallback{Primary: primary, Backup: espeak{}, Trip: 2, ProbeEvery: 30 * time.Second, Log: slog.New(slog.NewTextHandler(&log, nil))}
		for range 5 {
			if b, err := f.Synthesize(t.Context(), "Hello."); err != nil || b.Rate != 16000 {
				t.Fatalf("%+v %v", b, err)
			}
		}
		if primary.asked() != 2 {
			t.Errorf("an open circuit: the voice was asked %d times, want 2", primary.asked())
		}
		primary.set(func(p *pacedVoice) { p.err = nil })
		time.Sleep(31 * time.Second)
		if b, _ := f.Synthesize(t.Context(), "Hello."); b.Rate != 22050 {
			t.Errorf("after ProbeEvery: rate %d, want the voice again", b.Rate)
		}
		if strings.Count(log.String(), "level=WARN") != 2 || strings.Count(log.String(), `msg="the voice answers again"`) != 1 {
			t.Errorf("log:\n%s", log.String())
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := f.Synthesize(ctx, "Hello."); !errors.Is(err, context.Canceled) {
			t.Errorf("a barge-in: %v, want no fallback", err)
		}

		pv := &pacedVoice{err: errors.New("no route to host"), probeErr: errors.New("no route to host")}
		g := &VoiceFallback{Primary: probing{pv}, Backup: espeak{}, ProbeEvery: 10 * time.Second}
		defer g.Close()
		g.Synthesize(t.Context(), "a")
		g.Synthesize(t.Context(), "b")
		time.Sleep(25 * time.Second)
		if b, _ := g.Synthesize(t.Context(), "c"); b.Rate != 16000 || pv.asked() != 2 {
			t.Errorf("probe failing: rate %d, asked %d", b.Rate, pv.asked())
		}
		pv.set(func(p *pacedVoice) { p.err, p.probeErr = nil, nil })
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if b, _ := g.Synthesize(t.Context(), "d"); b.Rate != 22050 {
			t.Errorf("after the probe answered: rate %d", b.Rate)
		}
		pv.mu.Lock()
		if pv.probes < 3 {
			t.Errorf("%d probes in 35 s every 10 s", pv.probes)
		}
		pv.mu.Unlock()
	})
}

// TestVoiceFallbackNoVoice: a language the voice has no voice for is the
// fallback's, logged once, and opens no circuit for the others.
func TestVoiceFallbackNoVoice(t *testing.T) {
	var log bytes.Buffer
	primary := &pacedVoice{withoutLang: "de"}
	f := &VoiceFallback{Primary: primary, Backup: espeak{}, Log: slog.New(slog.NewTextHandler(&log, nil))}
	for range 3 {
		if b, err := f.Synthesize(locale.WithLanguage(t.Context(), "de"), "Hallo."); err != nil || b.Rate != 16000 {
			t.Fatalf("German: rate %d, err %v; want the fallback", b.Rate, err)
		}
		if b, err := f.Synthesize(locale.WithLanguage(t.Context(), "en"), "Hello."); err != nil || b.Rate != 22050 {
			t.Fatalf("English: rate %d, err %v; want the voice", b.Rate, err)
		}
	}
	if n := strings.Count(log.String(), "level="); n != 1 || !strings.Contains(log.String(), "language=de") {
		t.Errorf("want one line about German:\n%s", log.String())
	}
}

// TestVoiceFallbackWarm: a voice found down at start is not asked for the
// first reply; the probe brings it back.
func TestVoiceFallbackWarm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pv := &pacedVoice{probeErr: errors.New("connection refused")}
		f := &VoiceFallback{Primary: probing{pv}, Backup: espeak{}, ProbeEvery: 10 * time.Second}
		defer f.Close()
		f.Warm()
		synctest.Wait()
		if b, _ := f.Synthesize(t.Context(), "Hello."); b.Rate != 16000 || pv.asked() != 0 {
			t.Errorf("a voice down at start: rate %d, asked %d times", b.Rate, pv.asked())
		}
		pv.set(func(p *pacedVoice) { p.probeErr = nil })
		time.Sleep(11 * time.Second)
		synctest.Wait()
		if b, _ := f.Synthesize(t.Context(), "Hello."); b.Rate != 22050 {
			t.Errorf("after the probe answered: rate %d", b.Rate)
		}
	})
}
