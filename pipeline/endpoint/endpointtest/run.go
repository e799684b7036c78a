package endpointtest

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Run feeds each utterance of the corpus through the real Listener in
// synctest's simulated real time: clean; pressed late (after the speech
// began); real recordings in their own room's background looped around
// them instead of digital silence; and mixed with noise made here (pink
// and brown noise, a fan's hum, babble of overlapping voices, a short bed
// of room noise looped) at 30, 20, 10 and 5 dB SNR. The press comes 200 ms
// before the speech unless it is late. For each case it tells whether the
// utterance was heard, whether it ended before the speech did, whether
// more than 50 ms of the speech's start or end is missing from the audio
// handed to speech-to-text, and how long after the speech it ended.

// Options change how Run listens.
type Options struct {
	// Complete, when set, judges whether words make a whole request: each
	// recording then works ahead at its pauses through a
	// pipeline.Speculator, whose recognizer is a stand-in that writes the
	// words said so far (Utterance.Heard) after Decode, and ends on
	// Complete's verdict as it would on a box.
	Complete pipeline.Completer
	// Decode is how long the stand-in recognizer takes; default 200 ms.
	Decode time.Duration
	// Listener configures the listener; Run sets its Source and Detector.
	Listener endpoint.Options
}

// outcome is what the listener made of one case.
type outcome struct {
	heard, early, startLost, endLost bool
	lag                              time.Duration // from the end of speech to the end of the utterance
	ahead, dropped                   int           // transcriptions worked ahead, and dropped
}

const (
	corpusLead = 1500 * time.Millisecond // noise before the speech
	// corpusPast is more of the same noise before that, heard only as the
	// room before the press (Options.RoomHistory): the noise under and
	// around the speech is the same with it as without it.
	corpusPast  = 3 * time.Second
	corpusPress = 200 * time.Millisecond // the press comes this long before the speech
	latePress   = 150 * time.Millisecond // a late press comes this long after the speech began
)

// condition is how one case is heard.
type condition struct {
	kind  string  // the noise; "" for none
	snr   float64 // dB; 0 for none
	late  bool    // pressed after the speech began
	room  bool    // in the recording's own background instead of silence
	seed  uint64
	det   func() endpoint.Detector
	opts  Options
	label string
}

// endpointCase runs one utterance in one condition.
func endpointCase(t *testing.T, s Utterance, c condition, babble []float32) outcome {
	past := pcm.FramesIn(corpusPast, pcm.SpeechRate)
	lead := pcm.FramesIn(corpusLead, pcm.SpeechRate)
	tail := pcm.FramesIn(3*time.Second, pcm.SpeechRate)
	before, after := make([]float32, past+lead), make([]float32, tail)
	if c.room {
		if period := len(s.Room) - loopFade; period > loopFade {
			past = (past + period - 1) / period * period // the bed's loop stays where it was under the speech
		}
		bed := loop(s.Room, past+lead+tail)
		before, after = bed[:past+lead], bed[past+lead:]
	}
	audio := Cat(before, s.Audio, after)
	if c.snr != 0 {
		level := speechRMS(s) / math.Pow(10, c.snr/20)
		for i, v := range noise(c.kind, len(audio)-past, past, babble, c.seed) {
			audio[i] += v * float32(level)
		}
	}
	clipAt := time.Duration(past)*time.Second/pcm.SpeechRate + corpusLead
	speechStart, speechEnd := clipAt+s.Start, clipAt+s.End
	pressAt := speechStart - corpusPress
	if c.late {
		pressAt = speechStart + latePress
	}
	var o outcome
	synctest.Test(t, func(t *testing.T) {
		tl := &Timeline{Audio: audio, Noise: 0.0005} // a microphone's own hiss, -66 dBFS
		lo := c.opts.Listener
		lo.Detector = c.det()
		l := Listen(t, tl, lo)
		opened := time.Now()
		time.Sleep(pressAt)
		pressed := time.Now()
		ls := voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second}
		var spec *pipeline.Speculator
		if c.opts.Complete != nil {
			decode := c.opts.Decode
			if decode == 0 {
				decode = 200 * time.Millisecond
			}
			ref := reference{u: s, clipAt: clipAt, pressAt: pressed.Sub(opened), decode: decode}
			spec = pipeline.NewSpeculator(ref, c.opts.Complete)
			ls.Pauses = spec
		}
		u, err := l.Record(t.Context(), ls)
		ended := time.Since(opened)
		if spec != nil {
			o.ahead, o.dropped = spec.Close()
		}
		if err != nil {
			return
		}
		o.heard = true
		o.early = ended < speechEnd
		o.lag = ended - speechEnd
		audioStart := pressed.Sub(opened) + u.Offset
		audioEnd := audioStart + u.Audio.Duration()
		o.startLost = audioStart > speechStart+50*time.Millisecond
		o.endLost = audioEnd < speechEnd-50*time.Millisecond
	})
	return o
}

// reference stands in for a recognizer that hears every word: it takes
// decode, then writes the words said by the end of the audio it is given.
type reference struct {
	u       Utterance
	clipAt  time.Duration // where the utterance's audio starts in the timeline
	pressAt time.Duration // where the press came in the timeline
	decode  time.Duration
}

func (r reference) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	select {
	case <-ctx.Done():
		return voice.Transcript{}, ctx.Err()
	case <-time.After(r.decode):
	}
	text := r.u.Heard(r.pressAt + u.Offset + u.Audio.Duration() - r.clipAt)
	if text == "" {
		return voice.Transcript{}, voice.ErrNoSpeech
	}
	return voice.Transcript{Text: text, Language: r.u.Lang}, nil
}

// Table is the corpus result per condition.
type Table struct {
	rows  []string
	cells map[string]*Row
	ahead bool // the recordings worked ahead
}

// Row is one condition: cases, how many were heard, ended early, lost
// over 50 ms at the start or the end, the lags from the end of speech to
// the end of the utterance, and the transcriptions worked ahead and
// dropped.
type Row struct {
	Cases, Heard, Early, StartLost, EndLost int
	Lags                                    []time.Duration
	Ahead, Dropped                          int
}

// Lag is the q quantile of the lags.
func (r Row) Lag(q float64) time.Duration { return quantile(r.Lags, q) }

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
	r.Ahead += o.ahead
	r.Dropped += o.dropped
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
	fmt.Fprintf(&b, "%-28s %6s %6s %6s %11s %9s %10s %9s", "condition", "cases", "heard", "early", "start_lost", "end_lost", "lag_p50", "lag_p90")
	if tb.ahead {
		fmt.Fprintf(&b, " %9s %8s", "ahead/cs", "dropped")
	}
	b.WriteString("\n")
	for _, c := range tb.rows {
		r := tb.cells[c]
		fmt.Fprintf(&b, "%-28s %6d %6d %6d %11d %9d %8.0fms %7.0fms", c, r.Cases, r.Heard, r.Early, r.StartLost, r.EndLost, ms(r.Lag(0.5)), ms(r.Lag(0.9)))
		if tb.ahead {
			fmt.Fprintf(&b, " %9.2f %8d", float64(r.Ahead)/float64(r.Cases), r.Dropped)
		}
		b.WriteString("\n")
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

// noises are the kinds of noise of the SNR conditions.
var noises = []string{"pink", "brown", "fan", "babble", "bed"}

// Run endpoints the whole corpus with a detector in every condition; read
// finds the clips. Its rows: "clean", "late press", "own room", "SNR 20"
// (every noise), "SNR 20 pink", "late press SNR 10" (every noise), and
// the same for the one-word commands alone ("one-word clean", "one-word
// SNR 20"...). HARK_CORPUS_ONLY, when set, runs only the utterances whose
// name holds it, each in the noise it has in the whole run, to look into
// one (the floors then fail: their rows are not all there).
func Run(t *testing.T, read Clips, det func() endpoint.Detector, o Options) *Table {
	items, babble := Corpus(t, read)
	only := os.Getenv("HARK_CORPUS_ONLY")
	tb := &Table{ahead: o.Complete != nil}
	run := func(s Utterance, i int, c condition, rows ...string) {
		if !strings.Contains(s.Name, only) {
			return // looking into others (the seed stays the utterance's)
		}
		c.seed, c.det, c.opts = uint64(i), det, o
		out := endpointCase(t, s, c, babble)
		if c.snr == 0 || c.snr >= 10 {
			if !out.heard || out.early || out.startLost || out.endLost {
				t.Logf("%s: %s: heard %v, early %v, start lost %v, end lost %v (speech %v-%v)", c.label, s.Name, out.heard, out.early, out.startLost, out.endLost, s.Start, s.End)
			}
		}
		for _, r := range rows {
			tb.add(r, out)
		}
		if s.OneWord {
			tb.add("one-word "+rows[0], out)
		}
	}
	for i, s := range items {
		run(s, i, condition{label: "clean"}, "clean")
	}
	for i, s := range items {
		run(s, i, condition{late: true, label: "late press"}, "late press")
	}
	for i, s := range items {
		if s.Room != nil {
			run(s, i, condition{room: true, label: "own room"}, "own room")
		}
	}
	for _, snr := range []float64{30, 20, 10, 5} {
		for _, kind := range noises {
			for i, s := range items {
				row := fmt.Sprintf("SNR %2.0f", snr)
				run(s, i, condition{kind: kind, snr: snr, label: row + " " + kind}, row, row+" "+kind)
			}
		}
	}
	for _, kind := range noises {
		for i, s := range items {
			run(s, i, condition{kind: kind, snr: 10, late: true, label: "late press SNR 10 " + kind}, "late press SNR 10")
		}
	}
	return tb
}

// Row is the result of a condition.
func (tb *Table) Row(cond string) Row { return *tb.cells[cond] }
