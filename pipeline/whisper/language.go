package whisper

import (
	"fmt"
	"slices"
	"strings"
)

// languages are whisper.cpp's language codes in the order of its language
// ids: the only values its language parameter takes besides "auto". An
// unknown code is not an error there: whisper.cpp puts a wrong token where
// the language belongs and decodes with a broken prompt. This list lets
// the configuration be checked without cgo; a test built with whisper.cpp
// checks it against the library's own (whisper_lang_id), so the two cannot
// drift apart.
var languages = []string{
	"en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr",
	"pl", "ca", "nl", "ar", "sv", "it", "id", "hi", "fi", "vi",
	"he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no",
	"th", "ur", "hr", "bg", "lt", "la", "mi", "ml", "cy", "sk",
	"te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk",
	"br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
	"gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc",
	"ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo",
	"ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl",
	"mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue",
}

// aliases are other codes in common use for languages whisper.cpp knows
// by another: Norwegian Bokmål as locales name it, codes ISO 639 has
// since replaced, and the three-letter ISO 639-2 codes of common
// languages.
var aliases = map[string]string{
	"nb": "no", "nob": "no", "nor": "no", "nno": "nn",
	"iw": "he", "in": "id", "ji": "yi", "jv": "jw",
	"eng": "en", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr",
	"spa": "es", "ita": "it", "por": "pt", "nld": "nl", "dut": "nl",
	"cat": "ca", "swe": "sv", "dan": "da", "fin": "fi", "pol": "pl",
	"ces": "cs", "cze": "cs", "hun": "hu", "ron": "ro", "rum": "ro",
	"ell": "el", "gre": "el", "rus": "ru", "ukr": "uk", "tur": "tr",
	"ara": "ar", "heb": "he", "jpn": "ja", "kor": "ko", "zho": "zh",
	"chi": "zh",
}

// CheckLanguage returns the code whisper.cpp knows for a language: "auto"
// (also for ""), one of whisper.cpp's own codes, or the one meant by a
// common other code ("nb" is "no", "deu" is "de") or a locale ("en-GB" is
// "en"). Any other code is an error that names it.
func CheckLanguage(code string) (string, error) {
	c := strings.ToLower(strings.TrimSpace(code))
	if c == "" || c == "auto" {
		return "auto", nil
	}
	base, _, _ := strings.Cut(c, "-")
	base, _, _ = strings.Cut(base, "_")
	if slices.Contains(languages, base) {
		return base, nil
	}
	if to, ok := aliases[base]; ok {
		return to, nil
	}
	return "", fmt.Errorf("whisper: language %q is not one whisper.cpp knows: give its two-letter code (\"de\" for German, \"no\" for Norwegian) or \"auto\"", code)
}
