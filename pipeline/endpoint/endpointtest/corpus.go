package endpointtest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// The endpointing corpus: real recorded speech from ../shared (whole
// clips, and single words cut from them with their own room around them),
// espeak-ng sentences in several voices and languages (some with a pause
// in the middle of the phrase), and the one-word commands ("stop",
// "pause", "next", "resume", "yes", "no", "cancel") said by espeak-ng in
// several voices, pitches, rates and loudnesses, some with their onset
// cut off. Run (run.go) mixes each with noise and feeds it through the
// real Listener.

// Utterance is one utterance of the corpus with where its speech lies.
type Utterance struct {
	Name       string
	Audio      []float32
	Start, End time.Duration // of the speech, judged on the clean audio
	// Lang is the language it is said in (an ISO 639-1 code); Words are
	// its words, as a recognizer would write them, each with where in
	// Audio it has been said; none when they are not known.
	Lang  string
	Words []Word
	// Room is the recording's own background (a stretch of it without
	// speech), for a real recording; nil for synthetic speech.
	Room []float32
	// OneWord marks the one-word commands.
	OneWord bool
}

// Word is a word of an utterance and where it ends.
type Word struct {
	Text string
	End  time.Duration
}

// Heard is what a recognizer that misses nothing would write for the
// audio up to at: the words said by then.
func (u Utterance) Heard(at time.Duration) string {
	var out []string
	for _, w := range u.Words {
		if w.End > at {
			break
		}
		out = append(out, w.Text)
	}
	return strings.Join(out, " ")
}

var corpusOnce struct {
	sync.Once
	items  []Utterance
	babble []float32
}

// oneWords are the one-word commands the box must hear.
var oneWords = []string{"stop", "pause", "next", "resume", "yes", "no", "cancel"}

// wordVariant is a way espeak-ng says a one-word command.
type wordVariant struct {
	name string
	args []string
	trim time.Duration // cut off the start of the word
}

var wordVariants = []wordVariant{
	{name: "en", args: []string{"-v", "en"}},
	{name: "en-us high fast", args: []string{"-v", "en-us", "-p", "80", "-s", "230"}},
	{name: "en low slow quiet", args: []string{"-v", "en", "-p", "20", "-s", "120", "-a", "25"}},
	{name: "en-gb onset cut", args: []string{"-v", "en-gb"}, trim: 40 * time.Millisecond},
}

// realText are the reference transcripts of the shared clips, written as
// a recognizer would.
var realText = map[string]string{
	"librispeech-mini/1089-134686-0000.wav":                         "He hoped there would be stew for dinner, turnips and carrots and bruised potatoes and fat mutton pieces to be ladled out in thick peppered flour fattened sauce.",
	"librispeech-mini/1089-134686-0001.wav":                         "Stuff it into you, his belly counselled him.",
	"librispeech-mini/1089-134691-0000.wav":                         "He could wait no longer.",
	"librispeech-mini/1089-134691-0001.wav":                         "For a full hour he had paced up and down, waiting, but he could wait no longer.",
	"wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav": "Turn on the living room lamp.",
	"wyoming-faster-whisper-tests/living_room_light_en.wav":         "Turn on the living room light.",
}

// realWords are single words cut from the shared clips with the room
// around them: real onsets and endings, in a real room's noise.
var realWords = []struct {
	clip     string
	from, to time.Duration
	text     string
}{
	{"jfk.wav", 3100 * time.Millisecond, 3850 * time.Millisecond, "Ask"},
	{"jfk.wav", 3800 * time.Millisecond, 4600 * time.Millisecond, "not"},
	{"librispeech-mini/1089-134686-0001.wav", 0, 540 * time.Millisecond, "Stuff"},
	{"librispeech-mini/1089-134691-0000.wav", 1070 * time.Millisecond, 2085 * time.Millisecond, "No longer."},
}

// Corpus is the utterances and the babble, built once per test binary;
// it skips without espeak-ng or ../shared.
func Corpus(tb testing.TB, read Clips) ([]Utterance, []float32) {
	corpusOnce.Do(func() {
		var items []Utterance
		// (JFK's speech is not in it whole: its pauses are longer than the
		// longest end silence; TestEndpointOnSpeech has it.)
		for _, rel := range []string{"librispeech-mini/1089-134686-0000.wav", "librispeech-mini/1089-134686-0001.wav",
			"librispeech-mini/1089-134691-0000.wav", "librispeech-mini/1089-134691-0001.wav",
			"wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav", "wyoming-faster-whisper-tests/living_room_light_en.wav"} {
			s := Clip(tb, read, rel)
			items = appendItem(items, Utterance{Name: rel, Audio: s, Lang: "en", Room: room(s)}, realText[rel])
		}
		for _, w := range realWords {
			s := Clip(tb, read, w.clip)
			cut := s[pcm.FramesIn(w.from, pcm.SpeechRate):min(pcm.FramesIn(w.to, pcm.SpeechRate), len(s))]
			items = appendItem(items, Utterance{Name: fmt.Sprintf("real word: %s %v-%v", w.clip, w.from, w.to),
				Audio: cut, Lang: "en", Room: room(s), OneWord: true}, w.text)
		}
		sentences := map[string][]string{
			"en": {"What time is it?", "Cancel timer.", "Resume.", "Set a timer for ten minutes.",
				`Turn on all the lights <break time="700ms"/> on the ground floor.`, `Remind me to call <break time="500ms"/> my sister tonight.`},
			"en-us": {"Stop.", "What's the weather like tomorrow?", `Play some music <break time="600ms"/> in the kitchen.`},
			"fr":    {"Quelle heure est-il ?", "Arrête le minuteur.", `Allume la lumière <break time="600ms"/> du salon.`},
			"de":    {"Wie spät ist es?", "Stell einen Timer für fünf Minuten."},
			"es":    {"¿Qué hora es?", "Pon una alarma a las siete."},
		}
		for _, v := range slices.Sorted(func(yield func(string) bool) {
			for v := range sentences {
				if !yield(v) {
					return
				}
			}
		}) {
			for _, s := range sentences[v] {
				items = appendItem(items, Utterance{Name: "espeak " + v + ": " + s, Audio: Espeak(tb, v, "<speak>"+s+"</speak>"),
					Lang: v[:2]}, s)
			}
		}
		for _, w := range oneWords {
			for _, v := range wordVariants {
				s := espeak(tb, append(slices.Clone(v.args), "-m"), "<speak>"+w+"</speak>")
				if v.trim > 0 {
					s = trimOnset(s, v.trim)
				}
				items = appendItem(items, Utterance{Name: "espeak " + v.name + ": " + w, Audio: s, Lang: "en", OneWord: true}, w)
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

// appendItem places u's speech and its words (text, SSML breaks marking
// its pauses) and appends it to items; audio without speech is left out.
func appendItem(items []Utterance, u Utterance, text string) []Utterance {
	active, _ := Activity(u.Audio)
	first, last := slices.Index(active, true), len(active)-1
	for last >= 0 && !active[last] {
		last--
	}
	if first < 0 {
		return items
	}
	const frame = 10 * time.Millisecond
	u.Start, u.End = time.Duration(first)*frame, time.Duration(last+1)*frame
	u.Words = placeWords(text, active[first:last+1], u.Start)
	return append(items, u)
}

// placeWords spreads the words of each phrase of text (phrases are
// separated by SSML breaks) over that phrase's speech, by their length:
// the phrases are the speech between the longest pauses, one pause per
// break. at is where active starts.
func placeWords(text string, active []bool, at time.Duration) []Word {
	var phrases [][]string
	for _, p := range strings.Split(breakRE(text), "|") {
		if w := strings.Fields(p); len(w) > 0 {
			phrases = append(phrases, w)
		}
	}
	if len(phrases) == 0 {
		return nil
	}
	// The pauses, longest first; the phrases lie between the longest ones.
	type gap struct{ from, to int }
	var gaps []gap
	for i := 0; i < len(active); {
		j := i
		for j < len(active) && active[j] == active[i] {
			j++
		}
		if !active[i] {
			gaps = append(gaps, gap{i, j})
		}
		i = j
	}
	slices.SortFunc(gaps, func(a, b gap) int { return (b.to - b.from) - (a.to - a.from) })
	gaps = gaps[:min(len(phrases)-1, len(gaps))]
	slices.SortFunc(gaps, func(a, b gap) int { return a.from - b.from })
	bounds := [][2]int{}
	from := 0
	for _, g := range gaps {
		bounds = append(bounds, [2]int{from, g.from})
		from = g.to
	}
	bounds = append(bounds, [2]int{from, len(active)})
	const frame = 10 * time.Millisecond
	var words []Word
	for i, p := range phrases {
		b := bounds[min(i, len(bounds)-1)]
		total := 0
		for _, w := range p {
			total += len(w)
		}
		done := 0
		for _, w := range p {
			done += len(w)
			end := at + time.Duration(b[0])*frame + time.Duration(float64(b[1]-b[0])*float64(done)/float64(total))*frame
			words = append(words, Word{Text: w, End: end})
		}
	}
	return words
}

// breakRE replaces SSML breaks with "|".
func breakRE(text string) string {
	for {
		i := strings.Index(text, "<break")
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], "/>")
		if j < 0 {
			return text
		}
		text = text[:i] + "|" + text[i+j+2:]
	}
}

// room is the longest stretch of a recording without speech, less 30 ms
// at each side, when it is at least 150 ms long: the recording's own
// background.
func room(s []float32) []float32 {
	active, _ := Activity(s)
	best, bestLen := 0, 0
	for i := 0; i < len(active); {
		j := i
		for j < len(active) && active[j] == active[i] {
			j++
		}
		if !active[i] && j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	if bestLen < 21 {
		return nil
	}
	return slices.Clone(s[(best+3)*160 : (best+bestLen-3)*160])
}

// loopFade is loop's crossfade at each seam: 10 ms.
const loopFade = 160

// loop fills n samples with bed repeated, crossfading loopFade samples at
// each seam so that the seams do not click.
func loop(bed []float32, n int) []float32 {
	out := make([]float32, n)
	if len(bed) <= 2*loopFade {
		return out
	}
	period := len(bed) - loopFade
	for i := range out {
		k := i % period
		v := bed[k]
		if k < loopFade && i >= period { // the tail of the previous pass fades out
			f := float32(k) / loopFade
			v = v*f + bed[period+k]*(1-f)
		}
		out[i] = v
	}
	return out
}

// trimOnset cuts d off the start of the speech in s.
func trimOnset(s []float32, d time.Duration) []float32 {
	active, _ := Activity(s)
	first := slices.Index(active, true)
	if first < 0 {
		return s
	}
	at := first*160 + pcm.FramesIn(d, pcm.SpeechRate)
	return slices.Concat(make([]float32, first*160), s[min(at, len(s)):])
}

// noise makes past+n samples of a kind of noise at unit RMS: the last n
// are the same whatever past is. Babble goes back in time, at the same
// level; other noise is drawn anew for the past.
func noise(kind string, n, past int, babble []float32, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, n)
	switch kind {
	case "pink": // Paul Kellet's filter over white noise
		pink(rng, out)
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
	case "bed": // 400 ms of a room's pink noise and mains hum, looped
		bed := make([]float32, pcm.SpeechRate*2/5)
		pink(rng, bed)
		for i := range bed {
			bed[i] += float32(0.5 * math.Sin(2*math.Pi*50*float64(i)/pcm.SpeechRate))
		}
		out = loop(bed, n)
	}
	var sum float64
	for _, v := range out {
		sum += float64(v) * float64(v)
	}
	rms := math.Sqrt(sum / float64(n))
	for i := range out {
		out[i] = float32(float64(out[i]) / rms)
	}
	if past == 0 {
		return out
	}
	var before []float32
	if kind == "babble" {
		before = make([]float32, past)
		off := int(seed*7919) % len(babble)
		for i := range before {
			before[i] = float32(float64(babble[((off-past+i)%len(babble)+len(babble))%len(babble)]) / rms)
		}
	} else {
		before = noise(kind, past, 0, babble, seed+1<<32)
	}
	return append(before, out...)
}

func pink(rng *rand.Rand, out []float32) {
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
