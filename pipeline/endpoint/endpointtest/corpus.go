package endpointtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// The endpointing corpus: real recorded speech from ../shared and espeak-ng
// sentences in several voices and languages (some with a pause in the
// middle of the phrase), each mixed with noise made here (pink and brown
// noise, a fan's hum, babble of overlapping voices) at 30, 20, 10 and 5 dB
// SNR, fed through the real Listener in simulated real time, pressed 200 ms
// before the speech. For each case it tells whether the utterance was
// heard, whether it ended before the speech did, and whether more than
// 50 ms of the speech's start or end is missing from the audio handed to
// speech-to-text.

// Utterance is one utterance of the corpus with where its speech lies.
type Utterance struct {
	Name       string
	Audio      []float32
	Start, End time.Duration // of the speech, judged on the clean audio
}

var corpusOnce struct {
	sync.Once
	items  []Utterance
	babble []float32
}

// Corpus is the utterances and the babble, built once per test binary;
// it skips without espeak-ng or ../shared.
func Corpus(tb testing.TB, read Clips) ([]Utterance, []float32) {
	corpusOnce.Do(func() {
		var items []Utterance
		add := func(name string, s []float32) {
			active, _ := Activity(s)
			first, last := slices.Index(active, true), len(active)-1
			for last >= 0 && !active[last] {
				last--
			}
			if first < 0 {
				return
			}
			items = append(items, Utterance{Name: name, Audio: s,
				Start: time.Duration(first) * 10 * time.Millisecond, End: time.Duration(last+1) * 10 * time.Millisecond})
		}
		// (JFK's speech is not in it: its pauses are longer than the
		// longest end silence; TestEndpointOnSpeech has it.)
		for _, rel := range []string{"librispeech-mini/1089-134686-0000.wav", "librispeech-mini/1089-134686-0001.wav",
			"librispeech-mini/1089-134691-0000.wav", "librispeech-mini/1089-134691-0001.wav",
			"wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav", "wyoming-faster-whisper-tests/living_room_light_en.wav"} {
			add(rel, Clip(tb, read, rel))
		}
		sentences := map[string][]string{
			"en": {"What time is it?", "Cancel timer.", "Resume.", "Set a timer for ten minutes.",
				`Turn on all the lights <break time="700ms"/> on the ground floor.`, `Remind me to call <break time="500ms"/> my sister tonight.`},
			"en-us": {"Stop.", "What's the weather like tomorrow?", `Play some music <break time="600ms"/> in the kitchen.`},
			"fr":    {"Quelle heure est-il ?", "Arrête le minuteur.", `Allume la lumière <break time="600ms"/> du salon.`},
			"de":    {"Wie spät ist es?", "Stell einen Timer für fünf Minuten."},
			"es":    {"¿Qué hora es?", "Pon una alarma a las siete."},
		}
		voices := slices.Sorted(func(yield func(string) bool) {
			for v := range sentences {
				if !yield(v) {
					return
				}
			}
		})
		for _, v := range voices {
			for _, s := range sentences[v] {
				add("espeak "+v+": "+s, Espeak(tb, v, "<speak>"+s+"</speak>"))
			}
		}
		// Babble: four voices at once, none of them the speaker's words.
		var babble []float32
		for i, s := range []string{"The market opens early on Saturdays and closes at noon.", "We drove along the coast for hours without stopping.",
			"Nobody expected the meeting to last this long.", "The children were playing in the garden after school."} {
			v := Espeak(tb, []string{"en", "en-us", "en-gb", "en"}[i], s)
			for len(babble) < len(v) {
				babble = append(babble, 0)
			}
			for j, x := range v {
				babble[j] += x
			}
		}
		corpusOnce.items, corpusOnce.babble = items, babble
	})
	if len(corpusOnce.items) == 0 {
		tb.Skip("no corpus: espeak-ng or ../shared is missing")
	}
	return corpusOnce.items, corpusOnce.babble
}

// noise makes n samples of a kind of noise at unit RMS.
func noise(kind string, n int, babble []float32, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, n)
	switch kind {
	case "pink": // Paul Kellet's filter over white noise
		var b0, b1, b2, b3, b4, b5, b6 float64
		for i := range out {
			w := rng.NormFloat64()
			b0 = 0.99886*b0 + w*0.0555179
			b1 = 0.99332*b1 + w*0.0750759
			b2 = 0.96900*b2 + w*0.1538520
			b3 = 0.86650*b3 + w*0.3104856
			b4 = 0.55000*b4 + w*0.5329522
			b5 = -0.7616*b5 - w*0.0168980
			out[i] = float32(b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362)
			b6 = w * 0.115926
		}
	case "brown":
		var y float64
		for i := range out {
			y = 0.995*y + rng.NormFloat64()*0.1
			out[i] = float32(y)
		}
	case "fan": // a motor's hum and its harmonics over a soft rush
		for i := range out {
			t := float64(i) / pcm.SpeechRate
			out[i] = float32(math.Sin(2*math.Pi*100*t) + 0.5*math.Sin(2*math.Pi*200*t) + 0.3*math.Sin(2*math.Pi*300*t) + 0.3*rng.NormFloat64())
		}
	case "babble":
		off := int(seed*7919) % len(babble)
		for i := range out {
			out[i] = babble[(off+i)%len(babble)]
		}
	}
	var sum float64
	for _, v := range out {
		sum += float64(v) * float64(v)
	}
	rms := math.Sqrt(sum / float64(n))
	for i := range out {
		out[i] = float32(float64(out[i]) / rms)
	}
	return out
}

// speechRMS is the RMS of an utterance over its speech.
func speechRMS(s Utterance) float64 {
	a, b := pcm.FramesIn(s.Start, pcm.SpeechRate), min(pcm.FramesIn(s.End, pcm.SpeechRate), len(s.Audio))
	var sum float64
	for _, v := range s.Audio[a:b] {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(b-a))
}

// outcome is what the listener made of one case.
type outcome struct {
	heard, early, startLost, endLost bool
	lag                              time.Duration // from the end of speech to the end of the utterance
}

const (
	corpusLead  = 1500 * time.Millisecond // noise before the speech
	corpusPress = 200 * time.Millisecond  // the press comes this long before the speech
)

// endpointCase runs one utterance in noise at snr dB (0 for clean: the
// room tone of a quiet microphone only).
func endpointCase(t *testing.T, s Utterance, kind string, snr float64, babble []float32, det func() endpoint.Detector, seed uint64) outcome {
	lead := pcm.FramesIn(corpusLead, pcm.SpeechRate)
	tail := pcm.FramesIn(3*time.Second, pcm.SpeechRate)
	audio := Cat(make([]float32, lead), s.Audio, make([]float32, tail))
	if snr != 0 {
		level := speechRMS(s) / math.Pow(10, snr/20)
		for i, v := range noise(kind, len(audio), babble, seed) {
			audio[i] += v * float32(level)
		}
	}
	var o outcome
	synctest.Test(t, func(t *testing.T) {
		tl := &Timeline{Audio: audio, Noise: 0.0005} // a microphone's own hiss, -66 dBFS
		l := Listen(t, tl, endpoint.Options{Detector: det()})
		opened := time.Now()
		time.Sleep(corpusLead - corpusPress)
		pressed := time.Now()
		u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second})
		ended := time.Since(opened)
		if err != nil {
			return
		}
		o.heard = true
		speechStart, speechEnd := corpusLead+s.Start, corpusLead+s.End
		o.early = ended < speechEnd
		o.lag = ended - speechEnd
		audioStart := pressed.Sub(opened) + u.Offset
		audioEnd := audioStart + u.Audio.Duration()
		o.startLost = audioStart > speechStart+50*time.Millisecond
		o.endLost = audioEnd < speechEnd-50*time.Millisecond
	})
	return o
}

// Table is the corpus result per condition.
type Table struct {
	rows  []string
	cells map[string]*Row
}

// Row is one condition: cases, how many were heard, ended early, lost
// over 50 ms at the start or the end, and the lags from the end of speech
// to the end of the utterance.
type Row struct {
	Cases, Heard, Early, StartLost, EndLost int
	Lags                                    []time.Duration
}

func (tb *Table) add(cond string, o outcome) {
	if tb.cells == nil {
		tb.cells = map[string]*Row{}
	}
	r, ok := tb.cells[cond]
	if !ok {
		r = &Row{}
		tb.cells[cond] = r
		tb.rows = append(tb.rows, cond)
	}
	r.Cases++
	if !o.heard {
		return
	}
	r.Heard++
	r.Lags = append(r.Lags, o.lag)
	if o.early {
		r.Early++
	}
	if o.startLost {
		r.StartLost++
	}
	if o.endLost {
		r.EndLost++
	}
}

func (tb *Table) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %6s %6s %6s %11s %9s %10s %9s\n", "condition", "cases", "heard", "early", "start_lost", "end_lost", "lag_p50", "lag_p90")
	for _, c := range tb.rows {
		r := tb.cells[c]
		p50, p90 := quantile(r.Lags, 0.5), quantile(r.Lags, 0.9)
		fmt.Fprintf(&b, "%-16s %6d %6d %6d %11d %9d %8.0fms %7.0fms\n", c, r.Cases, r.Heard, r.Early, r.StartLost, r.EndLost, ms(p50), ms(p90))
	}
	return b.String()
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Run endpoints the whole corpus with a detector, clean and in each noise
// at each SNR; read finds the clips. Conditions: "clean", "SNR 20" (every noise), "SNR 20 pink".
func Run(t *testing.T, read Clips, det func() endpoint.Detector) *Table {
	items, babble := Corpus(t, read)
	tb := &Table{}
	for i, s := range items {
		o := endpointCase(t, s, "", 0, babble, det, uint64(i))
		tb.add("clean", o)
		if !o.heard || o.early || o.startLost || o.endLost {
			t.Logf("clean: %s: heard %v, early %v, start lost %v, end lost %v (speech %v-%v)", s.Name, o.heard, o.early, o.startLost, o.endLost, s.Start, s.End)
		}
	}
	for _, snr := range []float64{30, 20, 10, 5} {
		for _, kind := range []string{"pink", "brown", "fan", "babble"} {
			for i, s := range items {
				o := endpointCase(t, s, kind, snr, babble, det, uint64(i))
				if snr >= 10 && (!o.heard || o.early || o.startLost || o.endLost) {
					t.Logf("SNR %.0f %s: %s: heard %v, early %v, start lost %v, end lost %v", snr, kind, s.Name, o.heard, o.early, o.startLost, o.endLost)
				}
				tb.add(fmt.Sprintf("SNR %2.0f", snr), o)
				tb.add(fmt.Sprintf("SNR %2.0f %s", snr, kind), o)
			}
		}
	}
	return tb
}

// Row is the result of a condition.
func (tb *Table) Row(cond string) Row { return *tb.cells[cond] }
