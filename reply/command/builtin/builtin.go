// Package builtin holds the commands every Hark has: the time, arithmetic
// and unit conversion, timers, alarms and reminders, the volume, stop, the
// memory tools and the device's status. Each carries out intents of the
// sentence templates (locale/intent: Home Assistant's for timers, the time,
// the volume and nevermind; Hark's own, named as the commands, for the
// rest), so the offline path answers them without a model in English,
// German, French and Spanish; the model reaches them as tools for
// everything else.
package builtin

import (
	"strings"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// padded wraps text in spaces so phrases match whole words.
func padded(text string) string { return " " + text + " " }

// hasPhrase reports whether text contains any of the phrases as whole words.
func hasPhrase(text string, phrases ...string) bool {
	p := padded(text)
	for _, ph := range phrases {
		if strings.Contains(p, " "+ph+" ") {
			return true
		}
	}
	return false
}

// politeness is trimmed from both ends of an utterance before matching.
var (
	leads = []string{
		"hey", "ok", "okay", "so", "please", "can you", "could you", "would you", "will you",
		"can i ask", "i want to know", "i would like to know", "tell me", "do you know",
		"i want you to", "i would like you to", "i need you to", "go ahead and", "now", "and",
	}
	tails = []string{"please", "thanks", "thank you", "now", "for me", "right now"}
)

// trim removes politeness around a normalized utterance.
func trim(text string) string {
	for changed := true; changed; {
		changed = false
		for _, l := range leads {
			if rest, ok := strings.CutPrefix(text, l+" "); ok {
				text, changed = rest, true
			}
		}
		for _, t := range tails {
			if rest, ok := strings.CutSuffix(text, " "+t); ok {
				text, changed = rest, true
			}
		}
	}
	return text
}

// oneOf reports whether the trimmed text is exactly one of the phrases.
func oneOf(text string, phrases ...string) bool {
	t := trim(text)
	for _, p := range phrases {
		if t == p {
			return true
		}
	}
	return false
}

// claim is a pre-route result with arguments.
func claim(args map[string]any) (command.Claim, bool) {
	return command.Claim{Arguments: args}, true
}

var noClaim = command.Claim{}

// lang is the language a call is answered in.
func lang(c command.Call) locale.Lang {
	l, _ := locale.Of(c.Language)
	return l
}

// asSaid is part, which a pre-route read from the normalized (lowercased)
// utterance, as the user said or typed it; part itself when it is not
// found there.
func asSaid(utterance, part string) string {
	i := strings.Index(strings.ToLower(utterance), part)
	if i < 0 || len(utterance) < i+len(part) || !strings.EqualFold(utterance[i:i+len(part)], part) {
		return part
	}
	return utterance[i : i+len(part)]
}
