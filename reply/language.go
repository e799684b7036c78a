package reply

import (
	"context"

	"github.com/harkbox/hark/locale"
)

// language is the turn's language: the one decided at its start and
// carried in ctx (locale.WithLanguage), or, for a caller that decided none,
// the commands' Decide from what was heard (taken as said: a caller whose
// recognition guessed decides before), the sentence templates, the words
// and the configured one.
// It returns the offline core's language and the code the model and the
// commands are told. A language Hark has no phrases for is still the
// model's to answer in; its fixed sentences are said in English, logged
// once per language.
func (e *Engine) language(ctx context.Context, q Query) (locale.Lang, string) {
	code := locale.LanguageOf(ctx)
	if code == "" {
		code = e.o.Commands.Decide(ctx, q.Language, q.Text, locale.Lang(e.o.Language), false)
	}
	l, known := locale.Of(code)
	if code != "" && !known {
		if _, logged := e.unknownLangs.LoadOrStore(code, true); !logged {
			e.log.Warn("no offline phrases for this language: commands and fixed sentences are said in English", "language", code)
		}
	}
	return l, code
}
