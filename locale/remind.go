package locale

import (
	"regexp"
	"slices"
	"strings"
)

// Remind is what a reminder's message is, as said: what Hark says back
// around it.
type Remind int

const (
	// RemindTask is something to do: "to call mom", "sacar el horno".
	RemindTask Remind = iota
	// RemindThing is a thing to think of: "about the oven", "an den Ofen",
	// "lo del horno".
	RemindThing
	// RemindClause is a fact or an infinitive clause said after "that" or
	// German "daran": "that I have a meeting", "daran, dass die Wäsche
	// fertig ist", "daran, den Müll rauszubringen".
	RemindClause
)

// thingLinks and clauseLinks are the words before a reminder's message
// that make it a thing or a clause in each language.
var (
	thingLinks  = map[Lang][]string{English: {"about", "of"}, German: {"an"}}
	clauseLinks = map[Lang][]string{English: {"that"}, German: {"daran"}, French: {"que", "qu'"}}
)

// determiners lead a noun said with no link before it: in Spanish and
// French a task starts with its verb, so "el horno", "le four" is a thing.
var determiners = map[Lang][]string{
	Spanish: {"el", "la", "los", "las", "lo", "un", "una", "unos", "unas", "mi", "mis", "tu", "tus", "su", "sus", "nuestro", "nuestra"},
	French:  {"le", "la", "les", "l'", "un", "une", "des", "du", "mon", "ma", "mes", "ton", "ta", "tes", "notre", "nos"},
}

// firstPerson starts a clause that would need its verb changed to be said
// back ("que je dois appeler"): such a message stays a task, quoted.
var firstPerson = []string{"je", "j'", "nous", "on"}

// zuInfinitive ends a German task said as an infinitive with "zu":
// "anzurufen", "zu kaufen".
var zuInfinitive = regexp.MustCompile(`(^|\s)(zu \S+|\S+zu\S+en)$`)

// RemindOf reads how message, the words of a reminder, was said in said,
// the whole utterance: a thing, a clause or a task. A message not found in
// said (the model's own words) is a task.
func (l Lang) RemindOf(said, message string) Remind {
	said = strings.ToLower(said)
	msg := strings.ToLower(strings.TrimSpace(message))
	words := strings.Fields(msg)
	if len(words) == 0 {
		return RemindTask
	}
	i := strings.Index(said, msg)
	if i < 0 {
		return RemindTask
	}
	before := strings.Fields(strings.NewReplacer(",", " ", ":", " ").Replace(said[:i]))
	link := ""
	if len(before) > 0 {
		link = before[len(before)-1]
	}
	if l == French && strings.HasSuffix(said[:i], "qu'") {
		link = "qu'"
	}
	switch {
	case slices.Contains(thingLinks[l], link):
		return RemindThing
	case l == German && (words[0] == "dass" || zuInfinitive.MatchString(msg)):
		return RemindClause
	case slices.Contains(clauseLinks[l], link) && !slices.Contains(firstPerson, words[0]) && !strings.HasPrefix(words[0], "j'"):
		return RemindClause
	case slices.Contains(determiners[l], words[0]) || l == French && strings.HasPrefix(words[0], "l'"):
		if link == "" || !slices.Contains(clauseLinks[l], link) && !slices.Contains(reminderLinks[l], link) {
			return RemindThing
		}
	}
	return RemindTask
}
