//go:build whisper && cgo

package whisper

import (
	"context"
	"math"
	"math/rand/v2"
	"net/url"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/guard"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// BenchmarkSpeechEndToFirstAudio is what a user feels: from the end of
// their speech to the first sample of the answer handed to the speaker,
// in real time on this machine, through the real parts: a capture that
// plays espeak-ng's words in real time (20 ms a read, the room's hiss
// around them), the Listener with the energy detector or Silero, the
// pipeline, guard and whisper.cpp with the shared tiny test model (one
// thread), the reply engine with the built-in commands over a real store
// and the Ollama client against the test server (first token after
// 300 ms, then one every 25 ms: 40 a second), and espeak-ng's speech.
// "ahead" works ahead at the pauses and ends whole requests on a short
// silence (Speculate and the offline core's Completer); "silence" is the
// path before: the long silence, then the whole transcription.
// "model-answer-room" asks for something the offline core does not take
// for whole while another voice reads aloud in the room 12 dB under the
// user, before the press and after the user stops: working ahead, the
// room's voice is transcribed with the pause's words (Murmur) and ends
// the utterance once it holds none; else it is waited out (SoftSilence).
//
// The test model has whisper tiny's shape without its trained weights:
// whisper.cpp does the real work (and takes the real time) on the real
// audio, and the words handed on are the ones espeak-ng said. Each stage is
// reported in milliseconds from the end of speech (the capture's delivery
// of its last speech sample): ms-utterance-end (the Listener ended the
// utterance), ms-transcript (the pipeline had the words), ms-first-sentence
// (the reply's first sentence), ms-first-audio; and decodes-per-turn,
// dropped-per-turn, ms-decode (whisper.cpp's wall time per transcription
// that ran to its end) and cpu-ms-transcribing (the process's CPU time
// while transcribing, per turn, dropped transcriptions included: on a busy
// machine the closer figure to what a quiet one would take).
func BenchmarkSpeechEndToFirstAudio(b *testing.B) {
	model := shared(b, "models/for-tests-ggml-tiny.en.bin")
	silero := shared(b, "models/ggml-silero-v6.2.0.bin")
	// One thread: on this shared machine two spin against each other and
	// everyone else; one is the conservative figure.
	eng := engine(b, Options{Model: model, Threads: 1})
	reader := speech(b, "testdata/speech/librispeech-mini/1089-134686-0000.wav").Samples
	for _, c := range []struct {
		name, text string
		room       bool
	}{
		{"offline-timer", "Set a timer for five minutes.", false},
		{"model-answer", "Why is the sky blue?", false},
		{"model-answer-room", "Tell me about the moon.", true},
	} {
		words := endpointtest.Espeak(b, "en", c.text)
		var room []float32
		if c.room {
			room = reader
		}
		for _, det := range []string{"energy", "silero"} {
			for _, ahead := range []bool{true, false} {
				name := c.name + "/" + det + "/" + map[bool]string{true: "ahead", false: "silence"}[ahead]
				b.Run(name, func(b *testing.B) {
					var total stages
					for range b.N {
						total.add(pathOnce(b, eng, silero, det, ahead, words, room, c.text))
					}
					total.report(b)
				})
			}
		}
	}
}

// stages are the times of one turn from the end of speech, and what its
// transcriptions cost.
type stages struct {
	n                                             int
	uttEnd, transcript, firstSentence, firstAudio time.Duration
	decodes, dropped                              int
	decodeTime, cpu                               time.Duration
}

func (s *stages) add(o stages) {
	s.n++
	s.uttEnd += o.uttEnd
	s.transcript += o.transcript
	s.firstSentence += o.firstSentence
	s.firstAudio += o.firstAudio
	s.decodes += o.decodes
	s.dropped += o.dropped
	s.decodeTime += o.decodeTime
	s.cpu += o.cpu
}

func (s *stages) report(b *testing.B) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(s.n) }
	b.ReportMetric(per(s.uttEnd), "ms-utterance-end")
	b.ReportMetric(per(s.transcript), "ms-transcript")
	b.ReportMetric(per(s.firstSentence), "ms-first-sentence")
	b.ReportMetric(per(s.firstAudio), "ms-first-audio")
	b.ReportMetric(float64(s.decodes)/float64(s.n), "decodes-per-turn")
	b.ReportMetric(float64(s.dropped)/float64(s.n), "dropped-per-turn")
	b.ReportMetric(per(s.cpu), "cpu-ms-transcribing")
	if done := s.decodes - s.dropped; done > 0 {
		b.ReportMetric(float64(s.decodeTime.Microseconds())/1000/float64(done), "ms-decode")
	}
}

// pathOnce runs one turn and returns its stages.
// room, when set, is another voice played over the whole capture, 12 dB
// under the words.
func pathOnce(b *testing.B, eng *Engine, silero, det string, ahead bool, words, room []float32, text string) stages {
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	const lead = 1500 * time.Millisecond
	src := &liveSource{audio: endpointtest.Cat(endpointtest.Silence(lead), words, endpointtest.Silence(4*time.Second)), noise: 0.0005,
		rng: rand.New(rand.NewPCG(1, 2))}
	if room != nil {
		gain := float32(rms(words) / rms(room) / 4) // 12 dB under
		for i := range src.audio {
			src.audio[i] += room[i%len(room)] * gain
		}
	}
	active, _ := endpointtest.Activity(words)
	last := len(active) - 1
	for last > 0 && !active[last] {
		last--
	}
	src.mark = pcm.FramesIn(lead, pcm.SpeechRate) + (last+1)*160 // the end of the speech
	var d endpoint.Detector = &endpoint.Energy{}
	if det == "silero" {
		v, err := NewVAD(silero, 1)
		if err != nil {
			b.Fatal(err)
		}
		defer v.Close()
		d = endpoint.Gate(v) // as the box listens
	}
	l := endpoint.New(endpoint.Options{Source: src, Detector: d})
	go l.Run(ctx)
	rec := &heard{eng: eng, text: text}
	rep, first := pathReplier(b)
	synth, err := espeak.New(espeak.Options{})
	if err != nil {
		b.Skip(err)
	}
	spk := &firstSample{at: make(chan time.Time, 1)}
	o := pipeline.Options{Microphone: l, Transcriber: guard.Transcriber{Engine: rec}, Replier: rep, Synthesizer: synth, Speaker: spk}
	if ahead {
		o.Speculate, o.Completer = true, offlineCore(b)
	}
	p, err := pipeline.New(o)
	if err != nil {
		b.Fatal(err)
	}
	feed := p.Subscribe(64)
	events := make(chan pipeline.Event)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		p.Run(ctx, events)
	}()
	// The turn (its follow-up listening, scored by Silero) is over before
	// the detector is freed.
	defer func() {
		cancel()
		<-ran
	}()
	states := map[voice.State]time.Time{}
	var mu sync.Mutex
	go func() {
		for {
			s, err := feed.Next(ctx)
			if err != nil {
				return
			}
			mu.Lock()
			if _, ok := states[s.State]; !ok {
				states[s.State] = time.Now()
			}
			mu.Unlock()
		}
	}()
	// The press comes 200 ms before the speech.
	time.Sleep(lead - 200*time.Millisecond)
	events <- pipeline.Press
	var audio time.Time
	select {
	case audio = <-spk.at:
	case <-time.After(30 * time.Second):
		b.Fatal("no answer within 30 s")
	}
	end := src.marked()
	mu.Lock()
	defer mu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return stages{
		uttEnd:        states[voice.Transcribing].Sub(end),
		transcript:    states[voice.Thinking].Sub(end),
		firstSentence: first().Sub(end),
		firstAudio:    audio.Sub(end),
		decodes:       rec.calls,
		dropped:       rec.cancelled,
		decodeTime:    rec.took,
		cpu:           rec.cpu,
	}
}

// heard is whisper.cpp doing the real work on the real audio, with the
// words said handed on: the test model has no trained weights.
type heard struct {
	eng  *Engine
	text string

	mu               sync.Mutex
	calls, cancelled int
	took             time.Duration
	cpu              time.Duration // the process's CPU time during the transcriptions
}

func (h *heard) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	start, cpu := time.Now(), cpuTime()
	_, err := h.eng.Run(ctx, pcm.ToSpeech(u.Audio).Samples)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	h.cpu += cpuTime() - cpu
	if err != nil {
		h.cancelled++
		return voice.Transcript{}, err
	}
	h.took += time.Since(start)
	return voice.Transcript{Text: h.text, Language: "en"}, nil
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveSource plays audio in real time, 20 ms a read, with hiss under it,
// and notes when it delivered sample mark.
type liveSource struct {
	audio []float32
	noise float64
	mark  int

	mu     sync.Mutex
	rng    *rand.Rand
	pos    int
	markAt time.Time
}

func (s *liveSource) Open() (endpoint.Stream, error) { return s, nil }
func (s *liveSource) Close() error                   { return nil }

func (s *liveSource) Read(ctx context.Context, p []float32) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(20 * time.Millisecond):
	}
	n := min(len(p), 320)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range n {
		var v float32
		if s.pos < len(s.audio) {
			v = s.audio[s.pos]
		}
		p[i] = v + float32(s.rng.NormFloat64()*s.noise)
		s.pos++
		if s.pos == s.mark {
			s.markAt = time.Now()
		}
	}
	return n, nil
}

func (s *liveSource) marked() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.markAt
}

// firstSample notes when the first sample of the answer reached the speaker.
type firstSample struct{ at chan time.Time }

func (s *firstSample) Open(context.Context) (pipeline.Playback, error) {
	return &firstPlayback{s: s}, nil
}

type firstPlayback struct {
	s    *firstSample
	done bool
}

func (p *firstPlayback) Format() (int, int) { return 48000, 2 }
func (p *firstPlayback) Write(ctx context.Context, b pcm.Buffer) error {
	if !p.done && len(b.Samples) > 0 {
		p.done = true
		select {
		case p.s.at <- time.Now():
		default:
		}
	}
	return nil
}
func (p *firstPlayback) Close(context.Context) error { return nil }

// offlineCore is the reply side's judgement of whole requests.
func offlineCore(tb testing.TB) *command.Registry {
	reg := command.NewRegistry(command.Options{})
	if err := reg.Register(builtin.All(builtin.Deps{})...); err != nil {
		tb.Fatal(err)
	}
	return reg
}

// pathReplier is the reply engine over a real store with the built-in
// commands, its model the test server answering at a fixed rate; first
// reports when the first sentence was said.
func pathReplier(b *testing.B) (pipeline.Replier, func() time.Time) {
	srv := ollamatest.New(ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"}})
	b.Cleanup(srv.Close)
	m := replytest.New()
	m.Default(replytest.Chat, ollamatest.Reply{Content: "Sunlight scatters off the air, and blue light scatters most. Anything else?",
		FirstTokenDelay: 300 * time.Millisecond, TokenDelay: 25 * time.Millisecond})
	srv.Respond(m.Respond)
	db, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	sched, err := schedule.New(schedule.Options{Store: db.Schedule()})
	if err != nil {
		b.Fatal(err)
	}
	reg := command.NewRegistry(command.Options{})
	if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched})...); err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	client, err := llm.New(llm.Options{Host: u, Model: "llama3.2:3b"})
	if err != nil {
		b.Fatal(err)
	}
	meter := cost.NewMeter()
	meter.Set(cost.Key(srv.URL, "llama3.2:3b"), cost.Rates{Prompt: 5000, Gen: 40, CharsPerToken: 4})
	e, err := reply.New(reply.Options{Model: client, Info: client, ModelName: "llama3.2:3b", Server: srv.URL, Meter: meter,
		Commands: reg, Dialogue: db.Dialogue()})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var first time.Time
	return pipeline.ReplierFunc(func(ctx context.Context, q pipeline.Query, say func(string)) (pipeline.Outcome, error) {
			res, err := e.Reply(ctx, reply.Query{Text: q.Text, Language: q.Language}, func(s string) {
				mu.Lock()
				if first.IsZero() {
					first = time.Now()
				}
				mu.Unlock()
				say(s)
			})
			return pipeline.Outcome{FollowUp: res.FollowUp}, err
		}), func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return first
		}
}

// rms is the root mean square of x.
func rms(x []float32) float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(len(x), 1)))
}
