package locale

import (
	"context"
	"strings"
)

// Decide is the language a turn is answered and spoken in, decided once at
// the turn's start: heard, the language speech recognition heard; for typed
// text or a transcriber that does not tell, the language text's words read
// as; else fallback, the box's own. It returns the code without its region
// ("de" of "de-CH"), which may name a language Hark has no phrases for (the
// model still answers in it; Of says English for the fixed sentences).
func Decide(heard, text string, fallback Lang) string {
	code := heard
	if code == "" {
		if l, ok := Detect(text); ok {
			code = string(l)
		} else {
			code = string(fallback)
		}
	}
	code, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(code)), "-")
	code, _, _ = strings.Cut(code, "_")
	return code
}

type languageKey struct{}

// WithLanguage returns ctx carrying the turn's language (a code from
// Decide). It is the one carrier of a turn's language: the reply engine,
// the commands, the schedule, the node and the voice read it with
// LanguageOf.
func WithLanguage(ctx context.Context, code string) context.Context {
	if code == "" {
		return ctx
	}
	return context.WithValue(ctx, languageKey{}, code)
}

// LanguageOf is the language WithLanguage put in ctx, or "".
func LanguageOf(ctx context.Context) string {
	s, _ := ctx.Value(languageKey{}).(string)
	return s
}

// Speaking is the language fixed sentences are said in under ctx: the
// turn's, when Hark has phrases for it, else English.
func Speaking(ctx context.Context) Lang {
	l, _ := Of(LanguageOf(ctx))
	return l
}
