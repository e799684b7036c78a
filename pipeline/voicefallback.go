package pipeline

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Streamer is a Synthesizer that hands audio over as it is made, so a
// sentence starts playing before it is whole.
type Streamer interface {
	Synthesizer
	// Stream speaks text, calling emit with each piece of audio in order
	// as it arrives; an error from emit stops it and is returned.
	Stream(ctx context.Context, text string, emit func(pcm.Buffer) error) error
}

// Prober is a voice that can tell, without speaking, whether it answers.
type Prober interface {
	Probe(ctx context.Context) error
}

// ReplyVoice is a Synthesizer that keeps state across the sentences of
// one reply; the pipeline asks it for the reply's voice before the first.
type ReplyVoice interface {
	ForReply() Synthesizer
}

// VoiceFallback speaks with Primary (a neural voice on the LAN) and, whenever
// it fails, with Backup (espeak-ng on the box): a reply is never silent.
// Primary has Deadline to send its first audio and Gap between two pieces
// of it, so a server that streams steadily is never cut off. A reply that
// fell back once stays with Backup (ForReply), so it does not switch
// voices mid-way. After Trip failures in a row the circuit opens: Backup
// speaks every sentence at once, and a background probe (Prober's Probe,
// every ProbeEvery) closes it when Primary answers again. A language
// Primary has no voice for (voice.ErrNoVoice) goes to Backup without
// counting as a failure. Outages are logged once when they start and once
// when they end.
type VoiceFallback struct {
	Primary, Backup Synthesizer
	// Deadline bounds the wait for Primary's first audio of a sentence;
	// default 3 s.
	Deadline time.Duration
	// Gap bounds the wait for each next piece of audio; default 1 s.
	Gap time.Duration
	// Trip is how many sentences in a row may fail before the circuit
	// opens; default 2.
	Trip int
	// ProbeEvery is how often an open circuit's probe asks Primary;
	// default 30 s. Without a Prober, the circuit lets one sentence try
	// Primary again after it.
	ProbeEvery time.Duration
	Log        *slog.Logger

	mu       sync.Mutex
	failures int
	open     bool
	opened   time.Time
	noVoice  map[string]bool
	probing  bool
	stop     chan struct{} // closed by Close
	probes   sync.WaitGroup
	closed   bool
	closeOne sync.Once
}

// Synthesize speaks text with Primary, or Backup when it cannot, whole.
func (f *VoiceFallback) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	return collect(func(emit func(pcm.Buffer) error, reset func()) error {
		_, err := f.stream(ctx, text, emit, reset)
		return err
	})
}

// Stream speaks text with Primary as its audio arrives, or with Backup
// when Primary fails. A sentence Primary fails after some of its audio
// was emitted is said again, whole, by Backup.
func (f *VoiceFallback) Stream(ctx context.Context, text string, emit func(pcm.Buffer) error) error {
	_, err := f.stream(ctx, text, emit, nil)
	return err
}

// stream is Stream, reporting whether Backup spoke; reset, unless nil,
// drops what Primary emitted before Backup speaks.
func (f *VoiceFallback) stream(ctx context.Context, text string, emit func(pcm.Buffer) error, reset func()) (fellBack bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err // a barge-in: nothing more is said
	}
	if !f.tryPrimary() {
		return true, f.backup(ctx, text, emit)
	}
	err = f.primary(ctx, text, emit)
	if err == nil {
		f.succeeded()
		return false, nil
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if errors.Is(err, voice.ErrNoVoice) {
		f.mu.Lock()
		lang := locale.LanguageOf(ctx)
		if f.noVoice == nil {
			f.noVoice = map[string]bool{}
		}
		first := !f.noVoice[lang]
		f.noVoice[lang] = true
		f.mu.Unlock()
		if first && f.Log != nil {
			f.Log.Info("the voice has no voice for the language; the box's own voice speaks it", "language", lang)
		}
	} else {
		f.failed(err)
	}
	if reset != nil {
		reset()
	}
	return true, f.backup(ctx, text, emit)
}

func (f *VoiceFallback) backup(ctx context.Context, text string, emit func(pcm.Buffer) error) error {
	b, err := f.Backup.Synthesize(ctx, text)
	if err != nil {
		return err
	}
	return emit(b)
}

// primary runs Primary under the deadline and the gap: a watchdog cancels
// it when its next audio is late.
func (f *VoiceFallback) primary(ctx context.Context, text string, emit func(pcm.Buffer) error) error {
	deadline, gap := f.Deadline, f.Gap
	if deadline <= 0 {
		deadline = 3 * time.Second
	}
	if gap <= 0 {
		gap = time.Second
	}
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	late := errors.New("the voice's audio came too late")
	watchdog := time.AfterFunc(deadline, func() { cancel(late) })
	defer watchdog.Stop()
	forward := func(b pcm.Buffer) error {
		watchdog.Reset(gap) // counted from each piece of audio
		return emit(b)
	}
	var err error
	if s, ok := f.Primary.(Streamer); ok {
		err = s.Stream(pctx, text, forward)
	} else {
		var b pcm.Buffer
		if b, err = f.Primary.Synthesize(pctx, text); err == nil {
			err = forward(b)
		}
	}
	if err != nil && context.Cause(pctx) == late && ctx.Err() == nil {
		return late
	}
	return err
}

// tryPrimary reports whether Primary is asked: the circuit is closed, or
// it has no probe and ProbeEvery has passed (one sentence tries).
func (f *VoiceFallback) tryPrimary() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.open {
		return true
	}
	if _, ok := f.Primary.(Prober); !ok && time.Since(f.opened) >= f.probeEvery() {
		f.opened = time.Now() // one try per period
		return true
	}
	return false
}

func (f *VoiceFallback) probeEvery() time.Duration {
	if f.ProbeEvery <= 0 {
		return 30 * time.Second
	}
	return f.ProbeEvery
}

func (f *VoiceFallback) succeeded() {
	f.mu.Lock()
	was := f.open || f.failures > 0
	f.failures, f.open = 0, false
	f.mu.Unlock()
	if was && f.Log != nil {
		f.Log.Info("the voice answers again")
	}
}

func (f *VoiceFallback) failed(err error) {
	trip := f.Trip
	if trip <= 0 {
		trip = 2
	}
	f.mu.Lock()
	f.failures++
	first := f.failures == 1
	opens := !f.open && f.failures >= trip
	if opens {
		f.open, f.opened = true, time.Now()
	}
	f.mu.Unlock()
	if f.Log != nil && first {
		f.Log.Warn("the voice failed; the box's own voice speaks instead", "err", err)
	}
	if opens {
		if f.Log != nil {
			f.Log.Warn("the voice keeps failing; the box's own voice speaks until it answers again", "failures", trip)
		}
		f.startProbe()
	}
}

// startProbe asks Primary, in the background, every ProbeEvery whether it
// answers, and closes the circuit when it does; Close stops it.
func (f *VoiceFallback) startProbe() {
	p, ok := f.Primary.(Prober)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.probing || f.closed {
		return
	}
	if f.stop == nil {
		f.stop = make(chan struct{})
	}
	f.probing = true
	stop := f.stop
	f.probes.Go(func() {
		defer func() { f.mu.Lock(); f.probing = false; f.mu.Unlock() }()
		t := time.NewTicker(f.probeEvery())
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			ctx, cancel := f.probeContext(stop)
			err := p.Probe(ctx)
			cancel()
			if err == nil {
				f.succeeded()
				return
			}
		}
	})
}

// Warm asks Primary in the background, once, whether it answers (a
// Prober's probe; a Wyoming voice then warns about configured voices its
// server lacks), so a voice that is down at start is known before the
// first reply. Close waits for it.
func (f *VoiceFallback) Warm() {
	p, ok := f.Primary.(Prober)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if f.stop == nil {
		f.stop = make(chan struct{})
	}
	stop := f.stop
	f.probes.Go(func() {
		ctx, cancel := f.probeContext(stop)
		defer cancel()
		if err := p.Probe(ctx); err != nil && ctx.Err() == nil {
			f.mu.Lock()
			f.failures = max(f.Trip, 2) - 1 // this failure opens the circuit
			f.mu.Unlock()
			f.failed(err)
		}
	})
}

// probeContext bounds one probe by ProbeEvery and by Close (stop).
func (f *VoiceFallback) probeContext(stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), f.probeEvery())
	go func() { // ends with ctx, which the caller cancels
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Close stops the probe and waits for it.
func (f *VoiceFallback) Close() error {
	f.closeOne.Do(func() {
		f.mu.Lock()
		f.closed = true
		if f.stop != nil {
			close(f.stop)
		}
		f.mu.Unlock()
		f.probes.Wait()
	})
	return nil
}

// ForReply is the voice of one reply: once a sentence of it fell back,
// the rest of the reply is spoken by Backup.
func (f *VoiceFallback) ForReply() Synthesizer { return &replyVoice{f: f} }

type replyVoice struct {
	f        *VoiceFallback
	fellBack bool
}

func (r *replyVoice) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	return collect(func(emit func(pcm.Buffer) error, reset func()) error { return r.stream(ctx, text, emit, reset) })
}

func (r *replyVoice) Stream(ctx context.Context, text string, emit func(pcm.Buffer) error) error {
	return r.stream(ctx, text, emit, nil)
}

func (r *replyVoice) stream(ctx context.Context, text string, emit func(pcm.Buffer) error, reset func()) error {
	if r.fellBack {
		return r.f.backup(ctx, text, emit)
	}
	fell, err := r.f.stream(ctx, text, emit, reset)
	r.fellBack = r.fellBack || fell
	return err
}

// collect gathers the audio run emits into one buffer; reset empties it.
func collect(run func(emit func(pcm.Buffer) error, reset func()) error) (pcm.Buffer, error) {
	var out pcm.Buffer
	err := run(func(b pcm.Buffer) error {
		if out.Rate != 0 && (b.Rate != out.Rate || b.Channels != out.Channels) {
			b = pcm.Convert(b, out.Rate, out.Channels)
		}
		out.Rate, out.Channels = b.Rate, b.Channels
		out.Samples = append(out.Samples, b.Samples...)
		return nil
	}, func() { out = pcm.Buffer{} })
	if err != nil {
		return pcm.Buffer{}, err
	}
	return out, nil
}
