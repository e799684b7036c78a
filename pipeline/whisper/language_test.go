package whisper

import (
	"slices"
	"strings"
	"testing"
)

func TestCheckLanguage(t *testing.T) {
	tests := []struct {
		code, want string // want "" means an error
	}{
		{"auto", "auto"},
		{"", "auto"},
		{"en", "en"},
		{"de", "de"},
		{"yue", "yue"},
		{"haw", "haw"},
		{" FR ", "fr"},
		{"en-GB", "en"},
		{"pt_BR", "pt"},
		// Codes whisper.cpp would take for no language at all, and
		// decode with a broken prompt.
		{"nb", "no"},
		{"nb-NO", "no"},
		{"deu", "de"},
		{"ger", "de"},
		{"eng", "en"},
		{"iw", "he"},
		{"jv", "jw"},
		{"xx", ""},
		{"german", ""},
		{"vie", ""},
	}
	for _, tt := range tests {
		got, err := CheckLanguage(tt.code)
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), `"`+tt.code+`"`) {
				t.Errorf("CheckLanguage(%q) = %q, %v; want an error naming the code", tt.code, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CheckLanguage(%q) = %q, %v; want %q", tt.code, got, err, tt.want)
		}
	}
}

func TestLanguageAliasesNameKnownLanguages(t *testing.T) {
	for from, to := range aliases {
		if !slices.Contains(languages, to) {
			t.Errorf("alias %q gives %q, which whisper.cpp does not know", from, to)
		}
		if slices.Contains(languages, from) {
			t.Errorf("alias %q is one of whisper.cpp's own codes", from)
		}
	}
}
