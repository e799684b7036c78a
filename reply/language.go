package reply

import (
	"context"
	"strings"

	"github.com/harkbox/hark/locale"
)

// language decides what a turn is answered in: the language speech
// recognition heard; for typed text, the language its words read as; else
// the configured one; else English. It returns the offline core's language
// and the code the model and the commands are told ("de" of "de-CH"). A
// language Hark has no phrases for is still the model's to answer in; its
// fixed sentences are said in English, logged once per language.
func (e *Engine) language(q Query) (locale.Lang, string) {
	code := q.Language
	if code == "" {
		if l, ok := e.templatesRead(q.Text); ok {
			code = string(l) // the one language whose templates read it
		} else if l, ok := locale.Detect(q.Text); ok {
			code = string(l)
		} else {
			code = e.o.Language
		}
	}
	code, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(code)), "-")
	l, known := locale.Of(code)
	if code != "" && !known {
		if _, logged := e.unknownLangs.LoadOrStore(code, true); !logged {
			e.log.Warn("no offline phrases for this language: commands and fixed sentences are said in English", "language", code)
		}
	}
	return l, code
}

// templatesRead returns the language whose sentence templates match typed
// text, when exactly one does: "schalte das Licht aus" is German whatever
// its words look like to the detector.
func (e *Engine) templatesRead(text string) (locale.Lang, bool) {
	if e.o.Commands == nil {
		return "", false
	}
	var found []locale.Lang
	for _, l := range locale.All {
		if len(e.o.Commands.Intents(context.Background(), l, text)) > 0 {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}
