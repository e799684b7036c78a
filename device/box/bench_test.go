package box

import (
	"context"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// stampMic hands over a typed utterance and stamps the end of input.
type stampMic struct{ end chan time.Time }

func (m stampMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	select {
	case <-l.End:
	case <-ctx.Done():
		return voice.Utterance{}, ctx.Err()
	}
	m.end <- time.Now()
	return voice.Utterance{}, nil
}

// fixedText hears every utterance as the same question.
type fixedText string

func (f fixedText) Transcribe(context.Context, voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{Text: string(f)}, nil
}

// stampSpeaker stamps the first audio sample handed to the output.
type stampSpeaker struct{ first chan time.Time }

func (s stampSpeaker) Open(context.Context) (pipeline.Playback, error) {
	return &stampPlayback{first: s.first}, nil
}

type stampPlayback struct {
	first   chan time.Time
	stamped bool
}

func (p *stampPlayback) Format() (int, int) { return 48000, 2 }
func (p *stampPlayback) Write(ctx context.Context, b pcm.Buffer) error {
	if !p.stamped && len(b.Samples) > 0 {
		p.stamped = true
		p.first <- time.Now()
	}
	return nil
}
func (p *stampPlayback) Close(context.Context) error { return nil }

// fixedSynth returns half a second of tone at once, to leave speech synthesis
// out of the measurement.
type fixedSynth struct{}

func (fixedSynth) Synthesize(context.Context, string) (pcm.Buffer, error) {
	return pcm.Buffer{Rate: 22050, Channels: 1, Samples: make([]float32, 11025)}, nil
}

// BenchmarkEndOfInputToFirstAudio measures a whole simulated turn, from the
// end of the utterance to the first sample handed to the speaker, with the
// real reply engine, store and Ollama client and a test server that answers
// at once. "espeak" includes synthesizing the first sentence; "instant-tts"
// leaves only the pipeline's and the reply path's own overhead.
func BenchmarkEndOfInputToFirstAudio(b *testing.B) {
	for _, tc := range []struct {
		name  string
		synth func() (pipeline.Synthesizer, error)
	}{
		{"espeak", func() (pipeline.Synthesizer, error) { return espeak.New(espeak.Options{}) }},
		{"instant-tts", func() (pipeline.Synthesizer, error) { return fixedSynth{}, nil }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			synth, err := tc.synth()
			if err != nil {
				b.Skip(err)
			}
			srv, m := modelServer(b)
			m.Default(replytest.Chat, ollamatest.Reply{Content: "It is a fine day for it. Anything else?"})
			l, res := configure(b, "", map[string]string{"OLLAMA_HOST": srv.URL})
			box, err := Open(l, res, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer box.Close()
			r := &running{daemon: &daemon{log: box.log}, b: box}
			mic := stampMic{end: make(chan time.Time, 2)}
			spk := stampSpeaker{first: make(chan time.Time, 1)}
			p, err := pipeline.New(pipeline.Options{Microphone: mic, Transcriber: fixedText("what time is it"), Replier: pipeline.ReplierFunc(r.reply), Synthesizer: synth, Speaker: spk})
			if err != nil {
				b.Fatal(err)
			}
			feed := p.Subscribe(64)
			events := make(chan pipeline.Event)
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			go p.Run(ctx, events)
			var total time.Duration
			for b.Loop() {
				events <- pipeline.Press
				events <- pipeline.Press
				end := <-mic.end
				// The reply ends in a question, so a follow-up window opens:
				// the press here closes it, as a user's silence would.
				total += (<-spk.first).Sub(end)
				for { // wait for the turn, and the follow-up window, to finish
					st, _ := feed.Next(ctx)
					if st.State == voice.Listening && st.FollowUp {
						events <- pipeline.Press
					}
					if st.State == voice.Idle && st.Turn > 0 {
						break
					}
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-first-audio")
		})
	}
}
