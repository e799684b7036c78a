package reply

import (
	"strings"

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
// never spoken.
type output struct {
	t       *turn
	stream  speech.Stream
	all     strings.Builder
	start   strings.Builder
	decided bool
	held    bool
}

func (o *output) write(s string) {
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
func (o *output) restart() { *o = output{t: o.t} }

func (o *output) decide() {
	o.decided = true
	o.held = speech.Suspicious(o.start.String())
}

func (o *output) finish() {
	if !o.decided {
		o.decide()
		if !o.held {
			o.say(o.stream.Write(o.start.String()))
		}
	}
	if !o.held {
		o.say(o.stream.Flush())
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
	var s speech.Stream
	o.say(s.Write(text))
	o.say(s.Flush())
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
	}
}
