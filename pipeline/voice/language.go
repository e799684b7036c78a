package voice

import "context"

type languageKey struct{}

// WithLanguage marks ctx as belonging to a turn spoken in lang (a BCP 47
// code from speech recognition), so the Synthesizer can answer in the
// user's language.
func WithLanguage(ctx context.Context, lang string) context.Context {
	if lang == "" {
		return ctx
	}
	return context.WithValue(ctx, languageKey{}, lang)
}

// Language is the language WithLanguage put in ctx, or "".
func Language(ctx context.Context) string {
	lang, _ := ctx.Value(languageKey{}).(string)
	return lang
}
