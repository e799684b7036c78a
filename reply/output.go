package reply

import (
	"strings"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
	"github.com/harkbox/hark/reply/tooltext"
)

// speechStream is the speech cleaner the engine streams through.
type speechStream = speech.Stream

func speechMalformed(s string) bool { return speech.Malformed(s) }

// holdAt is how many characters of an answer decide whether it can be
// spoken as it streams.
const holdAt = 16

// output speaks one model answer as it streams: cleaned for speech, and
// held back whole when its start looks like data, so a malformed answer is
// never spoken. Inline reasoning (<think>…</think>) is taken out first:
// it is never said, nothing after it is said until it closes, and it
// decides nothing.
type output struct {
	t         *turn
	reasoning speech.Reasoning
	stream    speech.Stream
	all       strings.Builder
	start     strings.Builder
	decided   bool
	held      bool
	said      int // sentences said of this answer
}

// newOutput is a turn's output, its units said in the turn's language.
func newOutput(t *turn) *output {
	return &output{t: t, stream: speechStream{Language: t.q.Language}}
}

func (o *output) write(s string) {
	if s = o.reasoning.Write(s); s != "" {
		o.add(s)
	}
}

// add takes the answer's text, its reasoning already taken out.
func (o *output) add(s string) {
	o.all.WriteString(s)
	if !o.decided {
		o.start.WriteString(s)
		if len(strings.TrimSpace(o.start.String())) < holdAt {
			return
		}
		o.decide()
		s = o.start.String()
	}
	if !o.held {
		o.say(o.stream.Write(s))
	}
}

// restart forgets an answer that broke off: its unsaid rest is never
// said, and what follows is a new answer.
func (o *output) restart() { *o = *newOutput(o.t) }

func (o *output) decide() {
	o.decided = true
	o.held = speech.Suspicious(o.start.String())
}

// finish says the rest of the answer. With cut, the answer stopped at its
// token bound, in the middle of a sentence: that sentence is left unsaid,
// unless none of the answer was said.
func (o *output) finish(cut bool) {
	if rest := o.reasoning.Flush(); rest != "" {
		o.add(rest)
	}
	if !o.decided {
		o.decide()
		if !o.held {
			o.say(o.stream.Write(o.start.String()))
		}
	}
	if !o.held {
		if rest := o.stream.Flush(); !cut || o.said == 0 {
			o.say(rest)
		}
		return
	}
	text := o.all.String()
	if o.t.text {
		_, rest, _ := tooltext.Parse(text)
		text = rest
	}
	if speech.Malformed(text) {
		o.t.malformed = true
		return
	}
	s := speechStream{Language: o.t.q.Language}
	o.say(s.Write(text))
	o.say(s.Flush())
}

// withoutReasoning moves the inline reasoning of a model's answer from its
// content to its thinking, where a server that parses reasoning out puts
// it: kept in the history, never said, and an answer that was reasoning
// only is empty, as the loop expects. inline reports whether there was
// any.
func withoutReasoning(resp llm.Response) (_ llm.Response, inline bool) {
	answer, thought := speech.SplitReasoning(resp.Message.Content)
	resp.Message.Content = answer
	if thought != "" {
		resp.Message.Thinking = strings.TrimSpace(resp.Message.Thinking + "\n\n" + thought)
	}
	return resp, thought != ""
}

// say speaks sentences, dropping any that are data rather than speech.
func (o *output) say(sentences []string) {
	for _, s := range sentences {
		if speech.Malformed(s) {
			o.t.malformed = true
			continue
		}
		o.t.speak(s)
		o.t.lastSaid = s
		o.said++
	}
}
