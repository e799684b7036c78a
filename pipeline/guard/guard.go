// Package guard keeps speech recognizers' habits on noise from reaching the
// reply. Text that is only blank-audio markers or bracketed sound
// descriptions ("[BLANK_AUDIO]", "(wind blowing)", "♪"), only a caption
// learned from video subtitles ("Thanks for watching!"), or one phrase
// repeated over and over, is voice.ErrNoSpeech: the box goes back to idle
// instead of answering noise. Transcriber wraps any speech-to-text engine
// (whisper.cpp in process, a Wyoming server) with these checks; an engine
// that knows more (whisper's no-speech probabilities) checks that itself.
package guard

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/harkbox/hark/pipeline/voice"
)

var (
	// blankRE matches the markers recognizers write for silence and noise.
	blankRE = regexp.MustCompile(`(?i)^\s*[\[(*]?\s*(blank[_ ]audio|silence|no speech|inaudible|music|noise|applause|laughter|sound|wind)\s*[\])*]?\s*$`)
	// bracketedRE matches text made only of bracketed descriptions:
	// "[laughs]", "(wind blowing)", "*music plays*", "♪".
	bracketedRE = regexp.MustCompile(`^(\s*(\[[^\]]*\]|\([^)]*\)|\*[^*]*\*|♪+|♫+|-+))+\s*$`)
	wordRE      = regexp.MustCompile(`[\p{L}\p{N}']+`)
)

// Blank reports text that holds no words: empty, a blank-audio marker, or
// only bracketed sound descriptions.
func Blank(text string) bool {
	text = strings.TrimSpace(text)
	return text == "" || blankRE.MatchString(text) || bracketedRE.MatchString(text)
}

// Looping reports the repetition failure of recognizers: one phrase said
// over and over, covering at least half the text, whatever its case and
// punctuation. A phrase of up to four words must come four times in a row
// ("thank you thank you thank you thank you"), so people repeating a word
// or two ("no, no, no", "very very good") are not a loop; a longer one,
// often a whole sentence ("I'll see you next time." until the window
// ends), three times, which people do not say. The engine decodes without
// temperature fallback, so this is what catches a loop.
func Looping(text string) bool {
	words := wordRE.FindAllString(strings.ToLower(text), -1)
	for size := 1; size*3 <= len(words); size++ {
		need := 4 // repeats of a short phrase
		if size > 4 {
			need = 3
		}
		if size*need > len(words) || (size <= 4 && len(words) < 8) {
			continue
		}
		// same counts the words in a row that equal the word size
		// places before them: a phrase repeated n times is a run of
		// (n-1)*size such words.
		same := 0
		for i := size; i < len(words); i++ {
			if words[i] != words[i-size] {
				same = 0
				continue
			}
			same++
			if repeats := same/size + 1; repeats >= need && repeats*size*2 >= len(words) {
				return true
			}
		}
	}
	return false
}

// captionList are the captions whisper writes on noise, learned from the
// subtitles of the videos it was trained on: credits and sign-offs that
// nobody says to a speaker. It is Hark's own short list of common ones in
// the languages of its offline core, each known to come from whisper on
// silence or noise; add one only on the same evidence. A transcript is
// dropped only when it is nothing but these, so "thank you" alone, or a
// request that holds such words, is speech. Entries are compared
// normalised (see normal): case, punctuation and numbers do not matter
// ("Untertitel im Auftrag des ZDF, 2017").
var captionList = []string{
	// English
	"Thanks for watching!",
	"Thank you for watching.",
	"Thank you so much for watching.",
	"Thank you very much for watching.",
	"Please subscribe to my channel.",
	"I'll see you in the next video.",
	"Subtitles by the Amara.org community",
	// German
	"Untertitel im Auftrag des ZDF",
	"Untertitel im Auftrag des ZDF für funk",
	"Untertitel der Amara.org-Community",
	"Vielen Dank fürs Zuschauen!",
	// French
	"Sous-titres réalisés par la communauté d'Amara.org",
	"Sous-titres réalisés para la communauté d'Amara.org", // sic: whisper mixes in the Spanish "para"
	"Sous-titrage ST' 501",
	"Sous-titrage Société Radio-Canada",
	"Merci d'avoir regardé cette vidéo !",
	// Spanish
	"Subtítulos realizados por la comunidad de Amara.org",
	"Subtítulos por la comunidad de Amara.org",
	"¡Gracias por ver el video!",
	"¡Gracias por ver el vídeo!",
}

var captions = func() map[string]bool {
	m := make(map[string]bool, len(captionList))
	for _, c := range captionList {
		m[normal(c)] = true
	}
	return m
}()

// sentenceEndRE ends a sentence: a terminator before a space or the end,
// so "Amara.org" stays whole.
var sentenceEndRE = regexp.MustCompile(`[.!?…]+(\s+|$)`)

// Caption reports text that is only whisper's captions from video
// subtitles ("Thanks for watching!", "Untertitel der Amara.org-Community"),
// one or several, and nothing a person said.
func Caption(text string) bool {
	found := false
	for _, s := range sentenceEndRE.Split(text, -1) {
		n := normal(s)
		if n == "" {
			continue
		}
		if !captions[n] {
			return false
		}
		found = true
	}
	return found
}

// normal is text lower-cased, its words separated by single spaces, with
// punctuation and numbers left out.
func normal(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	words = slices.DeleteFunc(words, func(w string) bool { return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0 })
	return strings.Join(words, " ")
}

// Check returns text trimmed, or voice.ErrNoSpeech (wrapped, with the
// reason) when it is blank, only captions or a loop.
func Check(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch {
	case Blank(text):
		return "", fmt.Errorf("guard: %w: only silence or sound markers", voice.ErrNoSpeech)
	case Caption(text):
		return "", fmt.Errorf("guard: %w: only a caption learned from video subtitles", voice.ErrNoSpeech)
	case Looping(text):
		return "", fmt.Errorf("guard: %w: repeated loop", voice.ErrNoSpeech)
	}
	return text, nil
}

// Engine is a speech-to-text engine: what Transcriber wraps.
type Engine interface {
	Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error)
}

// Transcriber checks every transcript of Engine.
type Transcriber struct {
	Engine Engine
}

// Transcribe transcribes u with the engine and checks the text.
func (g Transcriber) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	tr, err := g.Engine.Transcribe(ctx, u)
	if err != nil {
		return tr, err
	}
	if tr.Text, err = Check(tr.Text); err != nil {
		return voice.Transcript{}, err
	}
	return tr, nil
}
