package reply

import (
	"fmt"
	"strings"
	"time"
)

// systemPrompt is the persona and the facts the model needs on every turn.
// Its wording is Hark's own; the golden files in testdata pin it.
func (e *Engine) systemPrompt(now time.Time, language string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are %s, the voice assistant inside a small speaker in someone's home. ", e.o.Name)
	b.WriteString("Everything you write is read aloud by a speech synthesizer, so answer the way a person talks: ")
	b.WriteString("usually one to three short sentences, no lists, no markdown, no emoji, no links, and numbers written as they are said. ")
	b.WriteString("What the user says reaches you through speech recognition and may contain misheard words; ")
	b.WriteString("answer what they most likely meant, and if you really cannot tell, ask one short question back.\n")
	t := now.In(e.o.Location)
	fmt.Fprintf(&b, "It is now %s, %s (%s).", t.Format("Monday 2 January 2006"), t.Format("15:04"), t.Format("MST"))
	if language != "" && !strings.HasPrefix(language, "en") {
		fmt.Fprintf(&b, "\nThe user is speaking the language with code %q; answer in it.", language)
	}
	return b.String()
}
