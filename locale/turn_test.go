package locale

import (
	"context"
	"testing"
)

// TestDecide: what recognition heard wins; typed text goes by its words;
// text too short to tell takes the box's own language; regions and case
// are dropped.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		heard, text string
		fallback    Lang
		want        string
	}{
		{"de", "set a timer for five minutes", English, "de"},
		{"", "stell einen Timer auf fünf Minuten", English, "de"},
		{"", "mets un minuteur de cinq minutes", English, "fr"},
		{"", "pon un temporizador de cinco minutos", French, "es"},
		{"", "ok", French, "fr"},
		{"", "", German, "de"},
		{"pt-BR", "", English, "pt"},
		{" DE_ch ", "", English, "de"},
	} {
		if got := Decide(tc.heard, tc.text, tc.fallback); got != tc.want {
			t.Errorf("Decide(%q, %q, %q) = %q, want %q", tc.heard, tc.text, tc.fallback, got, tc.want)
		}
	}
}

// TestLanguageCarried: the turn's language rides the context; an empty one
// leaves it as it was.
func TestLanguageCarried(t *testing.T) {
	ctx := WithLanguage(context.Background(), "fr")
	if got := LanguageOf(ctx); got != "fr" {
		t.Errorf("LanguageOf = %q, want fr", got)
	}
	if got := LanguageOf(WithLanguage(ctx, "")); got != "fr" {
		t.Errorf("after an empty WithLanguage: %q, want fr", got)
	}
}
