package intent

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Source is one language's sentence templates in the form Hark ships
// them: what HassIL's YAML files say, merged per language, with nothing
// Hark does not match on (the response texts). The generator writes it from
// Home Assistant's intent data and Hark's own template files; Load reads
// it back.
type Source struct {
	Language string `json:"language"`
	// Intents are the intents by name, each with its blocks of sentences.
	Intents map[string]SourceIntent `json:"intents"`
	// Lists and Rules are shared by every intent of the language.
	Lists map[string]SourceList `json:"lists,omitempty"`
	Rules map[string]string     `json:"expansion_rules,omitempty"`
	// MoreRules are alternatives for rules of the templates this source
	// is merged into: Hark's own ways of saying what Home Assistant's
	// rules say ("enciendan" beside its "enciende"), given without
	// restating those rules. Merge widens the rule of each name with them.
	MoreRules map[string]string `json:"more_expansion_rules,omitempty"`
	// SkipWords are removed from what was said before matching.
	SkipWords []string `json:"skip_words,omitempty"`
	// LeadWords are removed from the start of what was said before
	// matching, with the skip words around them, and kept elsewhere:
	// "so", "well", "also", which may be part of a message.
	LeadWords []string `json:"lead_words,omitempty"`
	// IgnoreWhitespace is HassIL's setting for languages written without
	// spaces; Hark's matcher does not support it.
	IgnoreWhitespace bool `json:"ignore_whitespace,omitempty"`
}

// SourceIntent is one intent's blocks of sentences.
type SourceIntent struct {
	Data []SourceData `json:"data"`
}

// SourceData is a block of sentences that share fixed slots, a response,
// context conditions, and their own rules and lists.
type SourceData struct {
	Sentences []string `json:"sentences"`
	// Slots are set on every match of the block, unless the sentence
	// itself filled them.
	Slots map[string]any `json:"slots,omitempty"`
	// Response names the intent's response for a match.
	Response string `json:"response,omitempty"`
	// RequiresContext must all hold of the match's context; a value may be
	// a value, a list of values, null (any value), or {value, slot} where
	// slot copies the context's value into a slot. ExcludesContext must
	// not hold.
	RequiresContext map[string]any        `json:"requires_context,omitempty"`
	ExcludesContext map[string]any        `json:"excludes_context,omitempty"`
	Rules           map[string]string     `json:"expansion_rules,omitempty"`
	Lists           map[string]SourceList `json:"lists,omitempty"`
	// RequiredKeywords, when set, must share a word with what was said.
	RequiredKeywords []string       `json:"required_keywords,omitempty"`
	Metadata         map[string]any `json:"metadata,omitempty"`
}

// SourceList is a list of values: text values, a number range, or a
// wildcard that takes any words.
type SourceList struct {
	Values   []SourceValue `json:"values,omitempty"`
	Range    *SourceRange  `json:"range,omitempty"`
	Wildcard bool          `json:"wildcard,omitempty"`
}

// SourceValue is one value of a list: the words that say it (plain text
// or a template), the value it puts in the slot (the words said when
// absent: a list of plain strings has each string as its own Out), and
// context it adds to the match.
type SourceValue struct {
	In       string         `json:"in"`
	Out      any            `json:"out,omitempty"`
	Context  map[string]any `json:"context,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// SourceRange is a range of numbers, said in digits or words.
type SourceRange struct {
	Type string `json:"type,omitempty"`
	From int    `json:"from"`
	To   int    `json:"to"`
	Step int    `json:"step,omitempty"`
	// Fractions is "halves" or "tenths" for numbers between the steps.
	Fractions  string   `json:"fractions,omitempty"`
	Multiplier *float64 `json:"multiplier,omitempty"`
	// NoDigits and NoWords turn off reading the number in digits or in
	// words; both are read by default.
	NoDigits bool `json:"no_digits,omitempty"`
	NoWords  bool `json:"no_words,omitempty"`
}

// Merge adds o's intents, lists, rules and skip words to s: an intent
// both have gets o's blocks after s's; o's lists and rules replace s's of
// the same name; o's more rules are alternatives added to s's rules of
// their names (the rule itself, where s has none).
func (s *Source) Merge(o Source) {
	if s.Intents == nil {
		s.Intents = map[string]SourceIntent{}
	}
	for name, in := range o.Intents {
		cur := s.Intents[name]
		cur.Data = append(cur.Data, in.Data...)
		s.Intents[name] = cur
	}
	if s.Lists == nil {
		s.Lists = map[string]SourceList{}
	}
	maps.Copy(s.Lists, o.Lists)
	if s.Rules == nil {
		s.Rules = map[string]string{}
	}
	maps.Copy(s.Rules, o.Rules)
	for name, alt := range o.MoreRules {
		if old, ok := s.Rules[name]; ok {
			alt = "(" + old + "|" + alt + ")"
		}
		s.Rules[name] = alt
	}
	for _, w := range o.SkipWords {
		if !slices.Contains(s.SkipWords, w) {
			s.SkipWords = append(s.SkipWords, w)
		}
	}
	for _, w := range o.LeadWords {
		if !slices.Contains(s.LeadWords, w) {
			s.LeadWords = append(s.LeadWords, w)
		}
	}
	s.IgnoreWhitespace = s.IgnoreWhitespace || o.IgnoreWhitespace
}

// Encode writes s compactly: JSON (its maps in key order), gzipped with
// no time stamp, so the same source always gives the same bytes.
func (s Source) Encode(w io.Writer) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("intent: encode %s: %w", s.Language, err)
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write(b); err != nil {
		return fmt.Errorf("intent: encode %s: %w", s.Language, err)
	}
	return zw.Close()
}

// DecodeSource reads what Encode wrote.
func DecodeSource(r io.Reader) (Source, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return Source{}, fmt.Errorf("intent: decode: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return Source{}, fmt.Errorf("intent: decode: %w", err)
	}
	var s Source
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&s); err != nil {
		return Source{}, fmt.Errorf("intent: decode: %w", err)
	}
	fixNumbers(&s)
	return s, nil
}

// fixNumbers turns the JSON numbers of slot values into float64 (every
// number a match carries is one) and leaves strings as they are.
func fixNumbers(s *Source) {
	fixList := func(l SourceList) {
		for i := range l.Values {
			l.Values[i].Out = number(l.Values[i].Out)
			fixMap(l.Values[i].Context)
		}
	}
	for _, l := range s.Lists {
		fixList(l)
	}
	for _, in := range s.Intents {
		for _, d := range in.Data {
			fixMap(d.Slots)
			fixMap(d.RequiresContext)
			fixMap(d.ExcludesContext)
			for _, l := range d.Lists {
				fixList(l)
			}
		}
	}
}

func fixMap(m map[string]any) {
	for k, v := range m {
		m[k] = number(v)
	}
}

func number(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case []any:
		for i := range x {
			x[i] = number(x[i])
		}
	case map[string]any:
		fixMap(x)
	}
	return v
}
