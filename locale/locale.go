// Package locale is what Hark says and hears in each language it speaks
// offline: English, German, French and Spanish. It holds the message
// catalogue of every fixed sentence (keyed by the English sentence, through
// golang.org/x/text/message), the way each language says durations, times
// of day, dates and lists, the detection of a typed utterance's language,
// and the readers of what German, French and Spanish say as quantities
// (numbers, durations, times of day, days, units) into the English the
// commands read; the sentences themselves are matched by locale/intent.
package locale

import (
	"context"
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Lang is a language Hark speaks offline, by its ISO 639-1 code.
type Lang string

// The languages of the offline core.
const (
	English Lang = "en"
	German  Lang = "de"
	French  Lang = "fr"
	Spanish Lang = "es"
)

// All lists the languages of the offline core, English first.
var All = []Lang{English, German, French, Spanish}

// Of returns the offline language of a BCP 47 code ("de", "de-CH",
// "fr_FR"), and whether Hark has one for it; an empty or unknown code is
// English, reported as not known.
func Of(code string) (Lang, bool) {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(code)), "-")
	base, _, _ = strings.Cut(base, "_")
	for _, l := range All {
		if string(l) == base {
			return l, true
		}
	}
	return English, false
}

type key struct{}

// With returns ctx carrying the language of the turn.
func With(ctx context.Context, l Lang) context.Context { return context.WithValue(ctx, key{}, l) }

// From returns the language With put in ctx, or English.
func From(ctx context.Context) Lang {
	if l, ok := ctx.Value(key{}).(Lang); ok {
		return l
	}
	return English
}

var (
	printersOnce sync.Once
	printers     map[Lang]*message.Printer
)

// catalogue builds the message catalogue from the tables of each language.
func catalogue() {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for l, table := range tables {
		tag := language.MustParse(string(l))
		for k, v := range table {
			if err := b.SetString(tag, k, v); err != nil {
				panic("locale: catalogue entry " + k + ": " + err.Error())
			}
		}
	}
	printers = map[Lang]*message.Printer{}
	for _, l := range All {
		printers[l] = message.NewPrinter(language.MustParse(string(l)), message.Catalog(b))
	}
}

// T formats the fixed sentence key (its English wording, a fmt format) in
// l, with args. A key with no translation in l is said in English; the
// catalogue test keeps that from happening to any sentence Hark says.
func (l Lang) T(key string, args ...any) string {
	printersOnce.Do(catalogue)
	p, ok := printers[l]
	if !ok {
		p = printers[English]
	}
	return p.Sprintf(key, args...)
}

// tables are the translations of each language but English, by key.
var tables = map[Lang]map[string]string{German: de, French: fr, Spanish: es}

// Key marks a sentence key handed to T through a variable, so the
// catalogue test finds it: l.T(Key("..."))'s key is Key's argument.
func Key(s string) string { return s }
