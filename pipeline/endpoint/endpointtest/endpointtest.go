// Package endpointtest is the test harness of package endpoint, shared with
// the tests of other detectors (pipeline/whisper's Silero): a microphone
// that plays audio in synctest's simulated real time, real speech from
// ../shared and espeak-ng, an offline reference of where speech lies, and
// the endpointing corpus (corpus.go).
package endpointtest

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
)

// Timeline is a microphone that plays Audio in (synctest) real time, 20 ms
// per read, from the moment it is opened, then silence; Noise is the RMS
// of white noise under everything and after it. Opening fails with Failing
// while it is set. Lock Mu to read or change the fields once it runs.
type Timeline struct {
	Audio   []float32
	Noise   float64
	Failing error
	// Opens and Closes count the streams opened and closed.
	Opens, Closes int
	Mu            sync.Mutex
}

// Open starts a stream at the beginning of Audio.
func (tl *Timeline) Open() (endpoint.Stream, error) {
	tl.Mu.Lock()
	defer tl.Mu.Unlock()
	if tl.Failing != nil {
		return nil, tl.Failing
	}
	tl.Opens++
	return &timelineStream{tl: tl, rng: rand.New(rand.NewPCG(1, 2))}, nil
}

type timelineStream struct {
	tl  *Timeline
	pos int
	rng *rand.Rand
}

func (s *timelineStream) Read(ctx context.Context, p []float32) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(20 * time.Millisecond):
	}
	n := min(len(p), 320)
	for i := range n {
		var v float32
		if s.pos < len(s.tl.Audio) {
			v = s.tl.Audio[s.pos]
		}
		if s.tl.Noise > 0 {
			v += float32(s.rng.NormFloat64() * s.tl.Noise)
		}
		p[i] = v
		s.pos++
	}
	return n, nil
}

func (s *timelineStream) Close() error {
	s.tl.Mu.Lock()
	s.tl.Closes++
	s.tl.Mu.Unlock()
	return nil
}

// Listen runs a Listener over tl, with tl as its source, inside a synctest
// bubble, and returns it once the capture is up.
func Listen(t *testing.T, tl *Timeline, o endpoint.Options) *endpoint.Listener {
	t.Helper()
	o.Source = tl
	l := endpoint.New(o)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	time.Sleep(time.Millisecond)
	synctest.Wait()
	return l
}

// Tone is speech-like: a 200 Hz tone at level RMS, d long, in syllables of
// 200 ms with 50 ms gaps between them, as between words.
func Tone(d time.Duration, level float64) []float32 {
	out := make([]float32, pcm.FramesIn(d, pcm.SpeechRate))
	syllable := pcm.FramesIn(250*time.Millisecond, pcm.SpeechRate)
	for i := range out {
		env := 1.0
		if i%syllable >= syllable*4/5 {
			env = 0.05
		}
		out[i] = float32(env * level * math.Sqrt2 * math.Sin(2*math.Pi*200*float64(i)/pcm.SpeechRate))
	}
	return out
}

// Silence is d of digital silence.
func Silence(d time.Duration) []float32 { return make([]float32, pcm.FramesIn(d, pcm.SpeechRate)) }

// Cat joins audio.
func Cat(parts ...[]float32) []float32 {
	var out []float32
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// Clips reads a speech clip by its path under ../shared/testdata/speech,
// or skips the test: the caller's sharedtest.WAV with that prefix, so this
// harness needs no idea where ../shared is.
type Clips func(tb testing.TB, rel string) pcm.Buffer

// Clip is a clip read by read, as 16 kHz mono.
func Clip(tb testing.TB, read Clips, rel string) []float32 {
	return pcm.ToSpeech(read(tb, rel)).Samples
}

// Espeak says text (SSML allowed) in voice ("" for espeak-ng's default) as
// 16 kHz mono, or skips when espeak-ng is not installed.
func Espeak(tb testing.TB, voice, text string) []float32 {
	args := []string{"-m"}
	if voice != "" {
		args = append(args, "-v", voice)
	}
	return espeak(tb, args, text)
}

// espeak says text with espeak-ng's arguments args.
func espeak(tb testing.TB, args []string, text string) []float32 {
	tb.Helper()
	path, err := exec.LookPath("espeak-ng")
	if err != nil {
		tb.Skip("espeak-ng is not installed (apt-get install espeak-ng)")
	}
	out, err := exec.Command(path, append(append(slices.Clone(args), "--stdout"), text)...).Output()
	if err != nil {
		tb.Fatalf("espeak-ng %v: %v", args, err)
	}
	b, err := pcm.ReadWAV(bytes.NewReader(out))
	if err != nil {
		tb.Fatal(err)
	}
	return pcm.ToSpeech(b).Samples
}

// Activity is a reference for where a clip's speech is, judged offline on
// the whole clip: its 10 ms frames more than 12 dB above the clip's noise
// floor (its quietest tenth), in runs of at least 30 ms. It also returns
// that floor.
func Activity(s []float32) (speech []bool, floor float64) {
	const frame = 160
	var levels []float64
	for i := 0; i+frame <= len(s); i += frame {
		levels = append(levels, endpoint.Loudness(s[i:i+frame]))
	}
	sorted := slices.Clone(levels)
	slices.Sort(sorted)
	floor = sorted[len(sorted)/10]
	for _, l := range levels {
		speech = append(speech, l > floor+12)
	}
	// A click or a breath is not speech: only runs of 30 ms count.
	for i := 0; i < len(speech); {
		j := i
		for j < len(speech) && speech[j] == speech[i] {
			j++
		}
		if speech[i] && j-i < 3 {
			for k := i; k < j; k++ {
				speech[k] = false
			}
		}
		i = j
	}
	return speech, floor
}

// ExpectedEnd is where an endpointer that waits a fixed silence should
// end: the first pause of at least silence after speech began, or the end
// of the last speech frame plus silence.
func ExpectedEnd(speech []bool, silence time.Duration) time.Duration {
	const frame = 10 * time.Millisecond
	began, last := false, -1
	for i, s := range speech {
		if s {
			if began && time.Duration(i-last-1)*frame >= silence {
				return time.Duration(last+1)*frame + silence
			}
			began, last = true, i
		}
	}
	return time.Duration(last+1)*frame + silence
}
