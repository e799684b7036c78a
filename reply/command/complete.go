package command

import (
	"context"
	"slices"
	"strings"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
)

// Complete reports whether text, heard in lang (a BCP 47 code; "" lets
// the words tell), makes a whole request as it stands, so that the
// microphone may stop listening after a short silence: a command of the
// offline core carries it out (a timer with its duration, "stop", "what
// time is it", "turn on the kitchen light"), it is a word that is a whole
// answer or control on its own ("yes", "pause", "next"), or it is a whole
// question (it ends in a question mark or opens with a question word, has
// three words or more, and does not end on one that needs another after
// it: "what is the weather in"). A command or question that acts on the
// house's devices by place and names no device, room or floor ("turn on
// all the lights", "are any lights on", see Claim.Unplaced) is whole only
// as such a word: the user may be naming the place after a pause.
// Anything else is not known to be whole, and the microphone waits for the
// longer silence. It changes nothing: it is the pipeline's Completer,
// asked at every pause while the user may still be speaking.
func (r *Registry) Complete(ctx context.Context, text, lang string) bool {
	l, ok := locale.Of(lang)
	if !ok {
		if l, ok = locale.Detect(text); !ok {
			l = locale.English
		}
	}
	words := utterance.Words(utterance.Expand(text))
	if len(words) == 0 {
		return false
	}
	// An unplaced request is whole only as a control word: the wrong
	// lights would go on if the microphone stopped before the place.
	u := r.Understand(ctx, l, text)
	if u.OK && !u.Route.Claim.Unplaced && !asks(ctx, u.Route) {
		return true
	}
	canonical := l.Canonical(text)
	if len(words) <= 2 {
		for _, said := range []string{strings.Join(words, " "), utterance.Expand(canonical)} {
			if slices.Contains(wholeWords[l], said) || slices.Contains(wholeWords[locale.English], said) {
				return true
			}
		}
	}
	return !u.OK && wholeQuestion(l, text, words)
}

// asks reports whether a route would be asked back for a parameter ("set a
// timer": for how long?): the user may be saying it still.
func asks(ctx context.Context, rt Route) bool {
	c, args := rt.Command, Args(rt.Claim.Arguments)
	if rt.Refine {
		return false
	}
	asking := map[string]bool{}
	for _, p := range c.Parameters {
		if p.Ask == "" {
			continue
		}
		if p.Required && !args.Has(p.Name) {
			return true
		}
		asking[p.Name] = true
	}
	if len(asking) == 0 || c.Validate == nil {
		return false
	}
	for _, p := range c.Validate(ctx, args) {
		if p.Suggest == nil && asking[p.Param] {
			return true
		}
	}
	return false
}

// wholeQuestion reports a question that is whole as said.
func wholeQuestion(l locale.Lang, text string, words []string) bool {
	asked := strings.HasSuffix(strings.TrimSpace(text), "?") || slices.Contains(questionWords[l], words[0]) ||
		l == locale.Spanish && strings.HasPrefix(strings.TrimSpace(text), "¿")
	return asked && len(words) >= 3 && !slices.Contains(dangling[l], words[len(words)-1])
}

// wholeWords are, per language, the words and pairs that are a whole
// request on their own: answers to the box's questions and the controls
// of what it is doing.
var wholeWords = map[locale.Lang][]string{
	locale.English: {"yes", "no", "yeah", "yep", "nope", "ok", "okay", "sure", "pause", "resume", "continue", "go on",
		"next", "previous", "skip", "again", "repeat", "louder", "quieter", "thanks", "thank you", "no thanks",
		"yes please", "go ahead"},
	locale.French:  {"oui", "non", "pause", "reprends", "continue", "suivant", "précédent", "encore", "merci", "d'accord"},
	locale.German:  {"ja", "nein", "pause", "weiter", "nächster", "nächstes", "zurück", "nochmal", "danke", "okay"},
	locale.Spanish: {"sí", "si", "no", "pausa", "sigue", "continúa", "siguiente", "anterior", "otra vez", "gracias", "vale"},
}

// questionWords open a question in each language.
var questionWords = map[locale.Lang][]string{
	locale.English: {"what", "when", "where", "who", "whom", "whose", "why", "how", "which", "is", "are", "was", "were",
		"do", "does", "did", "can", "could", "will", "would", "should", "shall", "have", "has", "am"},
	locale.French:  {"quel", "quelle", "quels", "quelles", "quand", "où", "qui", "pourquoi", "comment", "combien", "est-ce", "qu'est-ce"},
	locale.German:  {"was", "wann", "wo", "wer", "wen", "wem", "warum", "wieso", "wie", "welche", "welcher", "welches", "ist", "sind", "hast", "kannst", "gibt"},
	locale.Spanish: {"qué", "cuándo", "dónde", "quién", "cómo", "cuál", "cuánto", "cuánta", "cuántos", "cuántas"},
}

// dangling are the words a sentence does not end on: articles,
// prepositions, conjunctions, possessives. A question that ends on one is
// still being asked.
var dangling = map[locale.Lang][]string{
	locale.English: {"a", "an", "the", "to", "for", "of", "in", "on", "at", "by", "with", "from", "about", "into", "like",
		"and", "or", "but", "than", "my", "your", "his", "her", "our", "their", "its", "this", "that", "these", "those",
		"some", "is", "are", "was", "be", "if", "so", "because", "what", "which", "whose", "how", "much", "many"},
	locale.French: {"le", "la", "les", "l'", "un", "une", "des", "du", "de", "d'", "à", "au", "aux", "pour", "par", "avec",
		"dans", "sur", "en", "et", "ou", "mais", "mon", "ma", "mes", "ton", "ta", "tes", "son", "sa", "ses", "ce", "cette", "que", "qui"},
	locale.German: {"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "für", "mit", "von",
		"zu", "zum", "zur", "in", "im", "an", "am", "auf", "und", "oder", "aber", "mein", "meine", "dein", "deine", "wie", "was"},
	locale.Spanish: {"el", "la", "los", "las", "un", "una", "unos", "unas", "de", "del", "a", "al", "para", "por", "con", "en",
		"y", "o", "pero", "mi", "mis", "tu", "tus", "su", "sus", "que", "qué"},
}
