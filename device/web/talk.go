package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/harkbox/hark/device/control"
)

// The talk page: type a question and see (and hear) the answer as the box
// says it, through the same reply path as a spoken one; below it, the last
// turns as they went, live, with the time each stage took.

// maxQuestion bounds a typed question, in bytes.
const maxQuestion = 1000

func (s *Server) talkRoutes(handle func(string, pageHandler)) {
	handle("GET /talk", s.talkPage)
	handle("POST /talk", s.talkAsk)
	handle("GET /talk/voice", s.talkVoice)
}

// talkView is what the talk page's template gets.
type talkView struct {
	Question string
	Answer   []string
	Hint     string
	Turns    []control.Turn
	Chart    chart
	Voice    bool
}

func (s *Server) talkPage(w http.ResponseWriter, r *request) {
	v := s.page(r, "Talk to it", "talk")
	s.showTalk(w, r, v, talkView{}, http.StatusOK)
}

func (s *Server) showTalk(w http.ResponseWriter, r *request, v view, tv talkView, code int) {
	if s.o.API.Turns != nil {
		if ts, err := s.o.API.Turns.Turns(r.Context()); err == nil {
			tv.Turns = ts
		}
	}
	tv.Chart = chartOf(tv.Turns)
	tv.Voice = s.o.API.Voice != nil
	v.Data = tv
	s.render(w, code, "talk", v)
}

// talkAsk answers a typed question: as a stream of JSON lines for the
// page's script (Accept: application/x-ndjson), one sentence a line as the
// box says it, then the end; for a browser without script, the page with
// the whole answer.
func (s *Server) talkAsk(w http.ResponseWriter, r *request) {
	q := strings.TrimSpace(r.PostFormValue("q"))
	stream := strings.Contains(r.Header.Get("Accept"), "application/x-ndjson")
	v := s.page(r, "Talk to it", "talk")
	v.Form["q"] = q
	switch {
	case s.o.API.Asker == nil:
		s.unserved(w, r, "Talk to it", "talk")
		return
	case q == "" || len(q) > maxQuestion:
		v.Field["q"] = fmt.Sprintf("Type a question (at most %d characters).", maxQuestion)
		if stream {
			http.Error(w, v.Field["q"], http.StatusBadRequest)
			return
		}
		s.showTalk(w, r, v, talkView{}, http.StatusBadRequest)
		return
	}
	if !stream {
		var said []string
		_, err := s.o.API.Asker.Ask(r.Context(), control.Question{Text: q}, func(s string) { said = append(said, s) })
		tv := talkView{Question: q, Answer: said}
		if err != nil {
			tv.Hint = hintOf(err)
		}
		s.showTalk(w, r, v, tv, http.StatusOK)
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	line := func(v any) {
		enc.Encode(v)
		rc.Flush()
	}
	_, err := s.o.API.Asker.Ask(r.Context(), control.Question{Text: q}, func(sentence string) {
		line(struct {
			Sentence string `json:"sentence"`
		}{sentence})
	})
	end := struct {
		Done  bool   `json:"done"`
		Error string `json:"error,omitempty"`
		Hint  string `json:"hint,omitempty"`
	}{Done: true}
	if err != nil {
		end.Error, end.Hint = sentence(err), hintOf(err)
	}
	line(end)
}

// hintOf is what the user can do about a reply's error, when the box says.
func hintOf(err error) string {
	if h, ok := err.(*control.HintError); ok {
		return h.Hint
	}
	return ""
}

// talkVoice says one sentence of an answer in the box's voice, as WAV.
func (s *Server) talkVoice(w http.ResponseWriter, r *request) {
	text := r.URL.Query().Get("text")
	if s.o.API.Voice == nil {
		http.Error(w, "This box has no voice.", http.StatusNotFound)
		return
	}
	if text == "" || len(text) > maxQuestion {
		http.Error(w, "Nothing to say.", http.StatusBadRequest)
		return
	}
	wav, err := s.o.API.Voice.WAV(r.Context(), text, r.URL.Query().Get("lang"))
	if err != nil {
		http.Error(w, sentence(err), status(err))
		return
	}
	w.Header().Set("Content-Type", "audio/wav")
	w.Header().Set("Cache-Control", "private, max-age=600")
	w.Write(wav)
}

// chart is the last turns' stages as stacked bars, drawn on the server so
// that it shows without script (static/talk.js redraws it live).
type chart struct {
	Bars    []bar
	Width   int
	Height  int
	MaxText string // the longest turn, for the scale
}

type bar struct {
	X, W     int
	Segments []segment
	Title    string
}

type segment struct {
	Y, H  int
	Class string
}

// Stage names and their classes in the chart, in the order they happen.
var stages = []struct{ name, class string }{{"listening", "s-endpoint"}, {"transcribing", "s-transcribe"}, {"the model's first word", "s-token"}, {"the first sound", "s-audio"}}

// chartOf draws up to the last 50 turns: each a bar, its segments the
// endpoint, the transcription, the wait for the model's first word, and
// the rest of the wait for the first sound.
func chartOf(turns []control.Turn) chart {
	const width, height, gap = 500, 120, 2
	c := chart{Width: width, Height: height}
	if len(turns) == 0 {
		return c
	}
	var longest float64
	parts := make([][4]float64, len(turns))
	for i, t := range turns {
		rest := max(t.FirstAudio-t.Transcribe-t.FirstToken, 0)
		if t.Source == "typed" {
			rest = max(t.Total-t.FirstToken, 0)
		}
		parts[i] = [4]float64{t.Endpoint, t.Transcribe, t.FirstToken, rest}
		longest = max(longest, t.Endpoint+t.Transcribe+t.FirstToken+rest)
	}
	if longest <= 0 {
		longest = 1
	}
	c.MaxText = (time.Duration(longest) * time.Millisecond).Round(10 * time.Millisecond).String()
	w := width / keptChart
	for i, t := range turns {
		b := bar{X: (keptChart-len(turns)+i)*w + gap/2, W: w - gap}
		y := height
		var words []string
		for j, ms := range parts[i] {
			h := int(float64(height) * ms / longest)
			if h <= 0 {
				continue
			}
			y -= h
			b.Segments = append(b.Segments, segment{Y: y, H: h, Class: stages[j].class})
			words = append(words, fmt.Sprintf("%s %.0f ms", stages[j].name, ms))
		}
		b.Title = t.Heard + ": " + strings.Join(words, ", ")
		c.Bars = append(c.Bars, b)
	}
	return c
}

// keptChart is how many turns the chart has room for.
const keptChart = 50

// stagesText says how long a turn's stages took.
func stagesText(t control.Turn) string {
	var parts []string
	add := func(name string, ms float64) {
		if ms > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f ms", name, ms))
		}
	}
	add("listening", t.Endpoint)
	add("transcribing", t.Transcribe)
	add("first word", t.FirstToken)
	add("first sound", t.FirstAudio)
	if t.Source == "typed" {
		add("whole answer", t.Total)
	}
	return t.At.Local().Format("15:04:05") + " · " + strings.Join(parts, " · ")
}
