package reply

import (
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
		if l, ok := locale.Detect(q.Text); ok {
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
