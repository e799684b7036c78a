package compound

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		text, lang string
		want       []string
	}{
		{"what's the weather in Paris and what time is it in Tokyo", "en", []string{"what's the weather in Paris", "what time is it in Tokyo"}},
		{"who directed Alien, and when was it released", "", []string{"who directed Alien", "when was it released"}},
		{"do you like rock and roll", "en", nil},
		{"list the pros and cons", "en", nil},
		{"wie ist das Wetter in Berlin und wie spät ist es", "de", []string{"wie ist das Wetter in Berlin", "wie spät ist es"}},
		{"quel temps fait-il à Paris et quelle heure est-il", "fr-FR", []string{"quel temps fait-il à Paris", "quelle heure est-il"}},
		{"東京の天気と時間を教えて and more words here", "ja", nil},
		{"and then what happened to the ship", "en", nil},
	}
	for _, tt := range tests {
		if got := Split(tt.text, tt.lang); !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q, %q) = %q, want %q", tt.text, tt.lang, got, tt.want)
		}
	}
}
