package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// The fakes below are small real implementations of the pipeline's
// interfaces whose timing runs on synctest's clock.

// typedMic returns the next queued text once the button ends the utterance.
// In a follow-up window it takes the next line with a "followup:" prefix, as
// if the user spoke without pressing, and otherwise times out.
type typedMic struct {
	mu      sync.Mutex
	lines   []string
	ends    int // utterances ended by the button
	windows int // follow-up windows opened
}

func (m *typedMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	if l.FollowUp {
		m.mu.Lock()
		m.windows++
		if len(m.lines) > 0 && strings.HasPrefix(m.lines[0], "followup:") {
			line := strings.TrimPrefix(m.lines[0], "followup:")
			m.lines = m.lines[1:]
			m.mu.Unlock()
			return speech(line), nil
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return voice.Utterance{}, ctx.Err()
		case <-l.End:
		case <-time.After(l.StartTimeout):
			return voice.Utterance{}, voice.ErrNoSpeech
		}
	}
	select {
	case <-ctx.Done():
		return voice.Utterance{}, ctx.Err()
	case <-l.End:
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ends++
	if len(m.lines) == 0 {
		return voice.Utterance{}, voice.ErrNoSpeech
	}
	line := m.lines[0]
	m.lines = m.lines[1:]
	return speech(line), nil
}

type typedTranscriber struct{}

func (typedTranscriber) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{Text: textOf(u), Language: "en"}, nil
}

// words maps the audio of the test utterances to their words: the fakes'
// microphone makes an utterance of one sample, and their transcriber looks
// the words up by that sample's address.
var words sync.Map

func speech(text string) voice.Utterance {
	s := make([]float32, 1)
	words.Store(&s[0], text)
	return voice.Utterance{Audio: pcm.Buffer{Rate: 16000, Channels: 1, Samples: s}}
}

func textOf(u voice.Utterance) string {
	if len(u.Audio.Samples) == 0 {
		return ""
	}
	v, _ := words.Load(&u.Audio.Samples[0])
	s, _ := v.(string)
	return s
}

// scriptReplier says each sentence after a delay and records how it ended.
type scriptReplier struct {
	sentences []string
	delay     time.Duration
	err       error
	outcome   Outcome

	mu      sync.Mutex
	queries []Query
	langs   []string // the turn's language in each Reply's context
	ends    []error  // ctx.Err() when each Reply returned
}

func (r *scriptReplier) Reply(ctx context.Context, q Query, say func(string)) (Outcome, error) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.langs = append(r.langs, locale.LanguageOf(ctx))
	r.mu.Unlock()
	var err error
	for _, s := range r.sentences {
		select {
		case <-time.After(r.delay):
			say(s)
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = r.err
	}
	r.mu.Lock()
	r.ends = append(r.ends, ctx.Err())
	r.mu.Unlock()
	return r.outcome, err
}

// toneSynth makes 100 ms of 22.05 kHz mono audio per character.
type toneSynth struct{}

func (toneSynth) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	n := len(text) * 2205
	b := pcm.Buffer{Rate: 22050, Channels: 1, Samples: make([]float32, n)}
	for i := range b.Samples {
		b.Samples[i] = 0.25
	}
	return b, nil
}

// clockSpeaker plays in real (synctest) time, 10 ms per write step, and
// records what it played.
type clockSpeaker struct {
	mu      sync.Mutex
	frames  int // frames played
	rates   []int
	opened  int
	dropped int // playbacks closed with a cancelled context
	// sounds names each write as it began (see soundName); overlap is the
	// most writes that were playing at once.
	sounds           []string
	lengths          []int // the frames of each write, as it began
	playing, overlap int
	gone             bool // unplugged: Open and Write fail
	glitches         int  // the next writes that fail, as after a stall or an xrun
	tries            int  // calls to Open, those that failed included
	// drainedBroken counts playbacks closed with a live context after a
	// write failed: such a drain waits on an output that may never play
	// again, here until the context is done.
	drainedBroken int
}

func (s *clockSpeaker) Open(ctx context.Context) (Playback, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries++
	if s.gone {
		return nil, errors.New("speaker unplugged")
	}
	s.opened++
	return &clockPlayback{s: s}, nil
}

func (s *clockSpeaker) unplug(gone bool) {
	s.mu.Lock()
	s.gone = gone
	s.mu.Unlock()
}

// playedSoFar is the frames played so far and the length of each write.
func (s *clockSpeaker) playedSoFar() (frames int, lengths []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames, slices.Clone(s.lengths)
}

// glitch makes the next n writes fail.
func (s *clockSpeaker) glitch(n int) {
	s.mu.Lock()
	s.glitches = n
	s.mu.Unlock()
}

type clockPlayback struct {
	s      *clockSpeaker
	broken bool // a write failed
}

func (p *clockPlayback) Format() (int, int) { return 48000, 2 }

func (p *clockPlayback) Write(ctx context.Context, b pcm.Buffer) error {
	p.s.mu.Lock()
	if p.s.gone || p.s.glitches > 0 {
		p.s.glitches = max(p.s.glitches-1, 0)
		p.s.mu.Unlock()
		p.broken = true
		return errors.New("playback: Input/output error")
	}
	p.s.rates = append(p.s.rates, b.Rate*10+b.Channels)
	p.s.sounds = append(p.s.sounds, soundName(b))
	p.s.lengths = append(p.s.lengths, b.Frames())
	p.s.playing++
	p.s.overlap = max(p.s.overlap, p.s.playing)
	p.s.mu.Unlock()
	defer func() {
		p.s.mu.Lock()
		p.s.playing--
		p.s.mu.Unlock()
	}()
	step := 480
	for f := 0; f < b.Frames(); f += step {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		p.s.mu.Lock()
		p.s.frames += min(step, b.Frames()-f)
		p.s.mu.Unlock()
	}
	return nil
}

func (p *clockPlayback) Close(ctx context.Context) error {
	if p.broken && ctx.Err() == nil {
		p.s.mu.Lock()
		p.s.drainedBroken++
		p.s.mu.Unlock()
		<-ctx.Done()
		return ctx.Err()
	}
	if ctx.Err() != nil {
		p.s.mu.Lock()
		p.s.dropped++
		p.s.mu.Unlock()
	}
	return nil
}

type harness struct {
	p      *Pipeline
	feed   *Feed
	events chan Event
	mic    *typedMic
	rep    *scriptReplier
	spk    *clockSpeaker
	cancel context.CancelFunc
	done   chan error
}

func newHarness(t *testing.T, rep *scriptReplier, lines ...string) *harness {
	h := &harness{events: make(chan Event), mic: &typedMic{lines: lines}, rep: rep, spk: &clockSpeaker{}, done: make(chan error, 1)}
	p, err := New(Options{Microphone: h.mic, Transcriber: typedTranscriber{}, Replier: rep, Synthesizer: toneSynth{}, Speaker: h.spk})
	if err != nil {
		t.Fatal(err)
	}
	h.p = p
	h.feed = p.Subscribe(256)
	ctx, cancel := context.WithCancel(t.Context())
	h.cancel = cancel
	go func() { h.done <- p.Run(ctx, h.events) }()
	return h
}

// statuses reads every status published until the pipeline is quiet.
func (h *harness) statuses(t *testing.T) []voice.Status {
	t.Helper()
	synctest.Wait()
	done, cancel := context.WithCancel(context.Background())
	cancel() // Next returns what is queued, then the error
	var got []voice.Status
	for {
		s, err := h.feed.Next(done)
		if err != nil {
			return got
		}
		got = append(got, s)
	}
}

// states is the names of the states statuses reads.
func (h *harness) states(t *testing.T) []string {
	t.Helper()
	var got []string
	for _, s := range h.statuses(t) {
		got = append(got, s.State.String())
	}
	return got
}

func (h *harness) stop(t *testing.T) {
	t.Helper()
	h.cancel()
	if err := <-h.done; err != nil {
		t.Errorf("Run returned %v", err)
	}
	if d := h.feed.Dropped(); d != 0 {
		t.Errorf("feed dropped %d states", d)
	}
}

// TestQuietReplyIsThinking: a reply that goes quiet for more than a
// second between sentences (the model loading after "one moment") shows
// thinking again until the next, not speaking over silence.
func TestQuietReplyIsThinking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each sentence comes 3 s after the one before; "One moment."
		// plays for 1.1 s.
		rep := &scriptReplier{sentences: []string{"One moment.", "It is sunny."}, delay: 3 * time.Second}
		h := newHarness(t, rep, "what's the weather")
		h.events <- Press
		h.events <- Press
		time.Sleep(10 * time.Second)
		got := h.states(t)
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "thinking", "speaking", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		h.stop(t)
	})
}

func TestFullTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"Hello there.", "It is sunny."}, delay: 50 * time.Millisecond}
		h := newHarness(t, rep, "what's the weather")
		h.events <- Press // start listening
		h.events <- Press // end the utterance
		time.Sleep(10 * time.Second)
		got := h.states(t)
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "speaking", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		if len(rep.queries) != 1 || rep.queries[0].Text != "what's the weather" || rep.queries[0].Language != "en" {
			t.Errorf("replier got %+v, want one query with the typed text", rep.queries)
		}
		// 24 characters of tone at 100 ms each, converted to the speaker's 48 kHz stereo.
		if want := 24 * 4800; h.spk.frames != want {
			t.Errorf("speaker played %d frames, want %d", h.spk.frames, want)
		}
		if !slices.Equal(h.spk.rates, []int{480002, 480002}) {
			t.Errorf("speaker got buffers %v, want two at 48000 Hz stereo", h.spk.rates)
		}
		if h.spk.opened != 1 || h.spk.dropped != 0 {
			t.Errorf("speaker opened %d, dropped %d; want one playback, drained", h.spk.opened, h.spk.dropped)
		}
		h.stop(t)
	})
}

func TestBargeInWhileSpeaking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Sentences come 2 s apart: the press lands while the first (2.6 s of
		// audio) is playing and the model is still writing the second.
		rep := &scriptReplier{sentences: []string{"A long answer begins here.", "More."}, delay: 2 * time.Second}
		h := newHarness(t, rep, "tell me a story", "never mind")
		h.events <- Press
		h.events <- Press
		time.Sleep(2100 * time.Millisecond)
		synctest.Wait()
		before := h.spk.frames
		h.events <- Press // barge-in
		synctest.Wait()
		if h.spk.dropped != 1 {
			t.Errorf("playbacks dropped = %d, want 1", h.spk.dropped)
		}
		if len(rep.ends) != 1 || !errors.Is(rep.ends[0], context.Canceled) {
			t.Errorf("reply ended with %v, want the turn's context cancelled", rep.ends)
		}
		played := h.spk.frames
		if played-before > 480 {
			t.Errorf("%d frames played after the press, want playback stopped at once", played-before)
		}
		if full := 26 * 4800; played >= full {
			t.Errorf("played %d frames, the whole sentence is %d: not interrupted", played, full)
		}
		// The box listens again: the next press ends the new utterance.
		h.events <- Press
		time.Sleep(10 * time.Second)
		got := h.states(t)
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking",
			"listening", "transcribing", "thinking", "speaking", "speaking", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		if len(rep.queries) != 2 || rep.queries[1].Text != "never mind" {
			t.Errorf("second turn query = %+v", rep.queries)
		}
		h.stop(t)
	})
}

func TestBargeInWhileThinkingCancelsReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"Slow."}, delay: time.Minute}
		h := newHarness(t, rep, "hello")
		h.events <- Press
		h.events <- Press
		time.Sleep(time.Second)
		h.events <- Stop
		synctest.Wait()
		if len(rep.ends) != 1 || !errors.Is(rep.ends[0], context.Canceled) {
			t.Errorf("reply ended with %v, want cancelled", rep.ends)
		}
		got := h.states(t)
		want := []string{"idle", "listening", "transcribing", "thinking", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		if h.spk.opened != 0 {
			t.Errorf("speaker opened %d times for a cancelled reply", h.spk.opened)
		}
		h.stop(t)
	})
}

func TestReplyErrorShowsErrorThenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("model server unreachable")
		rep := &scriptReplier{sentences: []string{"I can't reach the model."}, err: boom}
		h := newHarness(t, rep, "hi")
		h.events <- Press
		h.events <- Press
		time.Sleep(10 * time.Second)
		var got []string
		var errs []error
		for _, s := range h.statuses(t) {
			got = append(got, s.State.String())
			if s.Err != nil {
				errs = append(errs, s.Err)
			}
		}
		want := []string{"idle", "listening", "transcribing", "thinking", "speaking", "error", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		if len(errs) != 1 || !errors.Is(errs[0], boom) {
			t.Errorf("error states carried %v, want the reply's error", errs)
		}
		h.stop(t)
	})
}

func TestNoSpeechEndsQuietly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{}
		h := newHarness(t, rep) // nothing typed
		h.events <- Press
		h.events <- Press
		got := h.states(t)
		want := []string{"idle", "listening", "idle"}
		if !slices.Equal(got, want) {
			t.Errorf("states = %v, want %v", got, want)
		}
		if len(rep.queries) != 0 {
			t.Errorf("replier called for silence: %+v", rep.queries)
		}
		h.stop(t)
	})
}

func TestClosedEventsLetTheTurnFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"Done."}, delay: time.Second}
		h := newHarness(t, rep, "last words")
		h.events <- Press
		h.events <- Press
		close(h.events)
		if err := <-h.done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		if len(rep.ends) != 1 || rep.ends[0] != nil {
			t.Errorf("reply ended with %v, want it to finish uncancelled", rep.ends)
		}
		if h.spk.frames != 5*4800 {
			t.Errorf("played %d frames, want the whole sentence (%d)", h.spk.frames, 5*4800)
		}
	})
}

func TestFeedNeverBlocksAndDropsOldest(t *testing.T) {
	f := newFeed(3)
	for i := range 10 {
		f.publish(voice.Status{Turn: uint64(i)})
	}
	if got := f.Dropped(); got != 7 {
		t.Errorf("Dropped = %d, want 7", got)
	}
	ctx := t.Context()
	s, _ := f.Next(ctx)
	if s.Turn != 7 {
		t.Errorf("Next after overflow = turn %d, want 7 (oldest kept)", s.Turn)
	}
	s, _ = f.Latest(ctx)
	if s.Turn != 9 {
		t.Errorf("Latest = turn %d, want 9", s.Turn)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.Next(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next on an empty feed with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestFeedWakesWaitingReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFeed(4)
		got := make(chan voice.Status, 1)
		go func() {
			s, _ := f.Latest(t.Context())
			got <- s
		}()
		synctest.Wait()
		f.publish(voice.Status{State: voice.Speaking})
		if s := <-got; s.State != voice.Speaking {
			t.Errorf("reader woke with %v, want speaking", s.State)
		}
	})
}

func TestNewRequiresParts(t *testing.T) {
	for i, o := range []Options{
		{Transcriber: typedTranscriber{}, Replier: &scriptReplier{}},
		{Microphone: &typedMic{}, Replier: &scriptReplier{}},
		{Microphone: &typedMic{}, Transcriber: typedTranscriber{}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("case %d: New accepted incomplete options", i)
		}
	}
}

func ExampleReplierFunc() {
	r := ReplierFunc(func(ctx context.Context, q Query, say func(string)) (Outcome, error) {
		say("You said: " + q.Text)
		return Outcome{}, nil
	})
	r.Reply(context.Background(), Query{Text: "hello"}, func(s string) { fmt.Println(s) })
	// Output: You said: hello
}

func TestBargeInAfterReplyWrittenCountsAsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged syncBuf
		rep := &scriptReplier{sentences: []string{"A sentence of some length."}} // written at once, 2.6 s to say
		mic := &typedMic{lines: []string{"hi"}}
		p, _ := New(Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep, Synthesizer: toneSynth{}, Speaker: &clockSpeaker{},
			Log: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		events := make(chan Event)
		go p.Run(t.Context(), events)
		events <- Press
		events <- Press
		time.Sleep(time.Second)
		events <- Stop
		synctest.Wait()
		if got := logged.String(); strings.Contains(got, "turn done") || !strings.Contains(got, "turn cancelled") {
			t.Errorf("log:\n%s\nwant the interrupted turn logged as cancelled", got)
		}
		if len(rep.ends) != 1 || rep.ends[0] != nil {
			t.Errorf("reply ended %v; it had finished before the press", rep.ends)
		}
	})
}

type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// langSynth records the language each sentence was synthesized in.
type langSynth struct {
	mu    sync.Mutex
	langs []string
}

func (s *langSynth) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	s.mu.Lock()
	s.langs = append(s.langs, locale.LanguageOf(ctx))
	s.mu.Unlock()
	return toneSynth{}.Synthesize(ctx, text)
}

func TestReplySpokenInHeardLanguage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		synth := &langSynth{}
		rep := &scriptReplier{sentences: []string{"Hallo.", "Es ist sonnig."}}
		p, err := New(Options{Microphone: &typedMic{lines: []string{"wie ist das Wetter"}}, Transcriber: typedTranscriber{},
			Replier: rep, Synthesizer: synth, Speaker: &clockSpeaker{}})
		if err != nil {
			t.Fatal(err)
		}
		events := make(chan Event)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx, events) }()
		events <- Press
		events <- Press
		time.Sleep(10 * time.Second)
		cancel()
		<-done
		if !slices.Equal(synth.langs, []string{"en", "en"}) {
			t.Errorf("sentences synthesized in %q, want the transcriber's \"en\" for both", synth.langs)
		}
		if got := locale.LanguageOf(locale.WithLanguage(t.Context(), "")); got != "" {
			t.Errorf("an empty language came back as %q", got)
		}
	})
}

// unsaidLanguage transcribes without telling the language.
type unsaidLanguage struct{}

func (unsaidLanguage) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{Text: textOf(u)}, nil
}

// A transcriber that does not tell the language: the words do, for the
// reply and for the voice alike.
func TestReplySpokenInTheWordsLanguage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		synth := &langSynth{}
		rep := &scriptReplier{sentences: []string{"Timer für 5 Minuten gestellt."}}
		events, _ := runPipeline(t, Options{Microphone: &typedMic{lines: []string{"stell einen Timer für fünf Minuten"}}, Transcriber: unsaidLanguage{},
			Replier: rep, Synthesizer: synth, Speaker: &clockSpeaker{}})
		events <- Press
		events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if !slices.Equal(rep.langs, []string{"de"}) || rep.queries[0].Language != "" || !slices.Equal(synth.langs, []string{"de"}) {
			t.Errorf("reply languages %q (queries %+v), voice languages %q; want German decided once for both, nothing heard", rep.langs, rep.queries, synth.langs)
		}
	})
}

// TestTurnsReportWhatWasSaid: each turn is reported once it is over, with
// what was heard, the sentences that began to play and the time of each
// stage; a barge-in while the first of three written sentences plays
// reports only that one, cut.
func TestTurnsReportWhatWasSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep := &scriptReplier{sentences: []string{"A long answer begins here.", "It goes on.", "And on."}}
		h := newHarness(t, rep, "tell me a story", "never mind")
		var turns []voice.Turn
		h.p.opts.Turns = func(tr voice.Turn) { turns = append(turns, tr) }
		h.events <- Press
		time.Sleep(500 * time.Millisecond)
		h.events <- Press // the end of the utterance
		time.Sleep(time.Second)
		synctest.Wait()
		h.events <- Press // barge-in, while the first sentence plays
		synctest.Wait()
		if len(turns) != 1 {
			t.Fatalf("%d turns reported after the barge-in, want 1", len(turns))
		}
		tr := turns[0]
		if tr.Heard != "tell me a story" || !slices.Equal(tr.Said, []string{"A long answer begins here."}) || !tr.Cut || tr.Err != "" {
			t.Errorf("the cut turn: heard %q, said %q, cut %v, err %q", tr.Heard, tr.Said, tr.Cut, tr.Err)
		}
		if tr.Endpoint < 500*time.Millisecond || tr.FirstAudio < 0 || tr.Transcribe < 0 || tr.ID != 1 { // time stands still in the bubble but for sleeps
			t.Errorf("the cut turn's stages: %+v", tr)
		}
		h.events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if len(turns) != 2 || turns[1].Cut || turns[1].Heard != "never mind" || len(turns[1].Said) != 3 {
			t.Errorf("the whole turn: %+v", turns[len(turns)-1])
		}
		h.stop(t)
	})
}

// TestTurnLanguageDecidedByTheWiring: the turn's language is the one
// Options.Decide makes of what was heard and the words (the offline
// core's sentence templates read short questions the word detector
// cannot), decided once for the reply and for the voice alike.
func TestTurnLanguageDecidedByTheWiring(t *testing.T) {
	templates := map[string]string{"welche Timer laufen": "de", "quels réveils": "fr", "qué alarmas tengo": "es"}
	for _, tc := range []struct {
		tr    Transcriber
		heard string
	}{{unsaidLanguage{}, ""}, {typedTranscriber{}, "en"}} {
		for text, want := range templates {
			synctest.Test(t, func(t *testing.T) {
				var asked []string
				decide := func(ctx context.Context, heard, said string) string {
					asked = append(asked, heard+"|"+said)
					return templates[said]
				}
				synth := &langSynth{}
				rep := &scriptReplier{sentences: []string{"Ja."}}
				events, _ := runPipeline(t, Options{Microphone: &typedMic{lines: []string{text}}, Transcriber: tc.tr,
					Replier: rep, Synthesizer: synth, Speaker: &clockSpeaker{}, Decide: decide})
				events <- Press
				events <- Press
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if !slices.Equal(asked, []string{tc.heard + "|" + text}) {
					t.Errorf("Decide asked %q, want once with what was heard and said", asked)
				}
				if !slices.Equal(rep.langs, []string{want}) || rep.queries[0].Language != tc.heard || !slices.Equal(synth.langs, []string{want}) {
					t.Errorf("%q heard as %q: reply languages %q (queries %+v), voice languages %q; want %q for both", text, tc.heard, rep.langs, rep.queries, synth.langs, want)
				}
			})
		}
	}
}
