// Package guard keeps speech recognizers' habits on noise from reaching the
// reply. Text that is only blank-audio markers or bracketed sound
// descriptions ("[BLANK_AUDIO]", "(wind blowing)", "♪"), or one phrase
// repeated over and over, is voice.ErrNoSpeech: the box goes back to idle
// instead of answering noise. Transcriber wraps any speech-to-text engine
// (whisper.cpp in process, a Wyoming server) with these checks; an engine
// that knows more (whisper's no-speech probabilities) checks that itself.
package guard

import (
	"context"
	"fmt"
	"regexp"
	"strings"

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

// Check returns text trimmed, or voice.ErrNoSpeech (wrapped, with the
// reason) when it is blank or a loop.
func Check(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch {
	case Blank(text):
		return "", fmt.Errorf("guard: %w: only silence or sound markers", voice.ErrNoSpeech)
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
