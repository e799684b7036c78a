package builtin

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/redact"
	"github.com/harkbox/hark/storage"
)

// Memory is the store of remembered facts; *storage.Facts is one.
type Memory interface {
	Add(ctx context.Context, text string, at time.Time) (storage.Fact, error)
	// AddSecret keeps a fact holding a secret: shown has the secret
	// replaced by a placeholder, said (the whole fact) is kept encrypted.
	AddSecret(ctx context.Context, shown, said string, at time.Time) (storage.Fact, error)
	// Reveal returns a fact as it was said, its secret included.
	Reveal(ctx context.Context, f storage.Fact) (string, error)
	Search(ctx context.Context, query string, limit int) ([]storage.Fact, error)
	Delete(ctx context.Context, id string) error
}

// Diary is the record of past conversations; *storage.Diary is one.
type Diary interface {
	Search(ctx context.Context, keywords []string, from, to time.Time, limit int) ([]storage.DiaryEntry, error)
}

// secretWords are what a request for a remembered secret names, in
// English; redact.NamesSecret knows the names in every language.
var secretWords = []string{"password", "passcode", "passphrase", "code", "pin", "combination", "combo", "cvv", "cvc", "key", "token", "number"}

// placeholder is a redacted secret in a fact's shown text.
var placeholder = regexp.MustCompile(`\[(?:EMAIL|PHONE|CARD|IBAN|SECRET)_\d+\]`)

// Remember is remember: store a fact the user states.
func Remember(m Memory) *command.Command {
	return &command.Command{
		Name:        "remember",
		Description: "Store a fact the user asks to be remembered: about them, an instruction, or the world.",
		Keywords:    []string{"remember", "note"},
		Parameters:  []command.Parameter{{Name: "fact", Type: "string", Required: true, Description: "the fact, in the user's words"}},
		Intents:     []string{"remember"},
		FromIntent:  rememberFromIntent,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			// Kept as said, a password's case included; a German fact
			// told after "dass" in the order of a main clause, as it is
			// read back.
			fact := lang(c).MainClause(c.Utterance, asSaid(c.Utterance, c.Args.String("fact")))
			// A fact that holds a secret (a password, a code, a card) is
			// kept sealed: shown and searched with a placeholder, said back
			// only when asked for.
			l := lang(c)
			if shown, kinds := redact.New().Redact(fact); len(kinds) > 0 {
				old, err := oldSecrets(ctx, m, shown, fact)
				if err != nil {
					return command.Response{}, err
				}
				f, err := m.AddSecret(ctx, shown, fact, c.Now)
				if err != nil {
					return command.Response{}, err
				}
				if err := forgetOld(ctx, m, old, f); err != nil {
					return command.Response{}, err
				}
				data := map[string]any{"fact_id": f.ID, "secret": true}
				if len(old) > 0 {
					data["replaced"] = texts(old)
					return command.Said(l.T("OK, I'll remember that, and keep it secret. I've forgotten the old one."), data), nil
				}
				return command.Said(l.T("OK, I'll remember that, and keep it secret."), data), nil
			}
			old, err := oldPlaces(ctx, m, l, c.Language, fact)
			if err != nil {
				return command.Response{}, err
			}
			f, err := m.Add(ctx, fact, c.Now)
			if err != nil {
				return command.Response{}, err
			}
			if err := forgetOld(ctx, m, old, f); err != nil {
				return command.Response{}, err
			}
			if len(old) > 0 {
				return command.Said(l.T("OK, I'll remember that, and I've forgotten the old one: %s.", l.And(spoken(l, old))),
					map[string]any{"fact_id": f.ID, "replaced": texts(old)}), nil
			}
			return command.Said(l.T("OK, I'll remember that."), map[string]any{"fact_id": f.ID}), nil
		},
	}
}

// A fact told again with a new value corrects the one kept: the keys are
// in the drawer now, not in the blue bowl; the wifi password changed. The
// new fact is kept first and the old one forgotten after, so that a power
// cut between the two loses neither. Only two kinds of fact are taken for
// corrections, as a household must never lose a fact it did not mean to:
// where a thing is (the same thing, said to be at another place), and a
// secret of the same name. What else is said of a thing ("my sister is a
// nurse" beside "my sister is called Eva") is kept beside.

// forgetOld forgets the facts old, which kept replaces; kept itself is
// not forgotten when the store returned it as one of them.
func forgetOld(ctx context.Context, m Memory, old []storage.Fact, kept storage.Fact) error {
	for _, o := range old {
		if o.ID == kept.ID {
			continue
		}
		if err := m.Delete(ctx, o.ID); err != nil {
			return err
		}
	}
	return nil
}

// oldSecrets are the facts holding a secret that said, shown as shown,
// replaces: those shown in the same words with another secret.
func oldSecrets(ctx context.Context, m Memory, shown, said string) ([]storage.Fact, error) {
	hits, err := m.Search(ctx, shown, forgetLimit)
	if err != nil {
		return nil, err
	}
	var out []storage.Fact
	for _, h := range hits {
		if len(h.Sealed) == 0 || !sameFact(h.Text, shown) {
			continue
		}
		was, err := m.Reveal(ctx, h)
		if err != nil {
			return nil, err
		}
		if !sameFact(was, said) {
			out = append(out, h)
		}
	}
	return out, nil
}

// oldPlaces are the facts, without a secret, that say the thing fact
// places is at another place, in language l (code lang).
func oldPlaces(ctx context.Context, m Memory, l locale.Lang, lang, fact string) ([]storage.Fact, error) {
	thing, at, ok := placed(l, fact)
	if !ok || when(l, at) {
		return nil, nil
	}
	about := topic(thing, lang)
	if about == "" {
		return nil, nil
	}
	hits, err := m.Search(ctx, about, forgetLimit)
	if err != nil {
		return nil, err
	}
	var out []storage.Fact
	for _, h := range hits {
		was, wasAt, ok := placed(l, h.Text)
		if len(h.Sealed) > 0 || !ok || sameFact(wasAt, at) || when(l, wasAt) || topic(was, lang) == "" {
			continue
		}
		if storage.HoldsAll(was, thing, lang) && storage.HoldsAll(thing, was, lang) {
			out = append(out, h)
		}
	}
	return out, nil
}

// placed splits a fact that says where a thing is ("my keys are in the
// drawer") into the thing and its place, in language l: at the first
// verb of being or lying, followed (a word such as "now" aside) by a
// preposition of place, or in German ending the clause (verbLast). ok is
// false for a fact of another kind.
func placed(l locale.Lang, fact string) (thing, place string, ok bool) {
	words := strings.Fields(fact)
	lower := func(w string) string { return strings.ToLower(strings.Trim(w, ".,;:!?")) }
	for i, w := range words {
		if !beings[l][lower(w)] {
			continue
		}
		rest := words[i+1:]
		for len(rest) > 0 && stillWords[l][lower(rest[0])] {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return verbLast(l, words[:i])
		}
		if !placeWords[l][lower(rest[0])] {
			return "", "", false
		}
		return strings.Join(words[:i], " "), strings.Join(rest, " "), true
	}
	return "", "", false
}

// verbLast splits the words before a verb of being that ends a German
// clause still in the order it had after "dass" ("meine Schlüssel jetzt
// in der Schublade liegen") into the thing and its place.
func verbLast(l locale.Lang, words []string) (thing, place string, ok bool) {
	if l != locale.German {
		return "", "", false
	}
	lower := func(w string) string { return strings.ToLower(strings.Trim(w, ".,;:!?")) }
	for j, w := range words {
		if !placeWords[l][lower(w)] {
			continue
		}
		k := j
		for k > 0 && stillWords[l][lower(words[k-1])] {
			k--
		}
		if k == 0 {
			return "", "", false
		}
		return strings.Join(words[:k], " "), strings.Join(words[j:], " "), true
	}
	return "", "", false
}

// when reports whether a place said in l also says a time or a day ("at
// 3", "on Saturday", "at school until three"): such a fact tells when as
// much as where, and another place told later is another fact beside it
// (the party on Saturday is at Tom's), never its correction.
func when(l locale.Lang, place string) bool {
	if strings.ContainsAny(place, "0123456789") {
		return true
	}
	words := strings.Fields(l.DaySaid(place))
	if utterance.FindDays(words).Found {
		return true
	}
	if _, _, _, ok := utterance.FindClock(words, "at", "until", "till", "by", "from"); ok {
		return true
	}
	return slices.ContainsFunc(words, func(w string) bool { return untilWords[w] })
}

// untilWords bound a time in the four languages.
var untilWords = wordSet("until till bis hasta jusqu jusqu'à jusqu'au")

// sameFact reports whether a and b say the same words, case, spacing and
// a closing stop aside.
func sameFact(a, b string) bool {
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.ToLower(strings.TrimRight(strings.TrimSpace(s), ".!"))), " ")
	}
	return norm(a) == norm(b)
}

// beings are, by language, the verbs that say where a thing is.
var beings = map[locale.Lang]map[string]bool{
	locale.English: wordSet("is are was were"),
	locale.German:  wordSet("ist sind liegt liegen steht stehen hängt hängen"),
	locale.Spanish: wordSet("está están esta estan"),
	locale.French:  wordSet("est sont"),
}

// stillWords may stand between the verb and the place: "are now in".
var stillWords = map[locale.Lang]map[string]bool{
	locale.English: wordSet("now still actually"),
	locale.German:  wordSet("jetzt nun noch immer"),
	locale.Spanish: wordSet("ahora todavía"),
	locale.French:  wordSet("maintenant toujours désormais"),
}

// placeWords are, by language, the prepositions of place.
var placeWords = map[locale.Lang]map[string]bool{
	locale.English: wordSet("in on under at behind beside next inside near by above below with upstairs downstairs outside"),
	locale.German:  wordSet("in im auf unter hinter neben bei beim am an vor über zwischen oben unten draußen"),
	locale.Spanish: wordSet("en sobre debajo encima detrás junto al con cerca dentro fuera"),
	locale.French:  wordSet("dans sur sous derrière à au aux chez près devant avec en"),
}

func wordSet(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// rememberFromIntent takes a fact of two words or more: one word alone
// ("remember that password") names a thing, with "that" pointing at it,
// and is no fact to store.
//
// A fact told without "that" ("remember my bike is in the shed") is kept
// with the word that opened it, and only when it states something with a
// verb of being: "remember the password for the wifi" asks for a thing,
// it tells none.
func rememberFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	fact := m.String("fact")
	if m.Has("bare") {
		_, after, ok := strings.Cut(strings.ToLower(m.Said), "remember ")
		if !ok {
			return command.Claim{}, command.Unresolved("fact", "no fact: "+m.Said)
		}
		fact = strings.Trim(after, " ,.!?")
		if !slices.ContainsFunc(strings.Fields(strings.ToLower(fact)), func(w string) bool { return beings[locale.English][strings.Trim(w, ".,!?")] }) {
			return command.Claim{}, command.Unresolved("fact", "states nothing: "+fact)
		}
	}
	if len(strings.Fields(fact)) < 2 {
		return command.Claim{}, command.Unresolved("fact", "one word is no fact: "+fact)
	}
	return command.Claim{Arguments: map[string]any{"fact": fact}}, nil
}

// Forget is forget: remove a remembered fact. A household must never
// lose a fact it did not mean, so forget deletes only the one fact that
// holds every content word asked for (storage.HoldsAll), a fact holding a
// secret as it was said; when several hold them, or one holds only some,
// it deletes none and names them, or the closest.
func Forget(m Memory) *command.Command {
	return &command.Command{
		Name:        "forget",
		Description: "Remove a fact the user no longer wants remembered.",
		Keywords:    []string{"forget"},
		Parameters:  []command.Parameter{{Name: "fact", Type: "string", Required: true, Description: "words of the fact"}},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			q := c.Args.String("fact")
			l := lang(c)
			about := topic(q, c.Language)
			if about == "" { // "forget about it" names no fact
				return command.Said(l.T("I don't remember anything like that."), map[string]any{"forgotten": 0}), nil
			}
			hits, err := m.Search(ctx, about, forgetLimit)
			if err != nil {
				return command.Response{}, err
			}
			var held, near []storage.Fact
			for _, h := range hits {
				said := h.Text
				if len(h.Sealed) > 0 {
					if said, err = m.Reveal(ctx, h); err != nil {
						return command.Response{}, err
					}
				}
				switch n, _ := storage.Shared(said, q, c.Language); {
				case storage.HoldsAll(said, q, c.Language):
					held = append(held, h)
				case n > 0:
					near = append(near, h)
				}
			}
			switch {
			case len(held) == 1:
				if err := m.Delete(ctx, held[0].ID); err != nil {
					return command.Response{}, err
				}
				return command.Said(l.T("OK, I've forgotten that."), map[string]any{"forgotten": 1, "fact": held[0].Text}), nil
			case len(held) > 1:
				held = held[:min(3, len(held))]
				return command.Said(l.T("I didn't forget anything, because more than one thing I remember fits: %s. Tell me more about the one to forget.",
					l.And(spoken(l, held))), map[string]any{"forgotten": 0, "matches": texts(held)}), nil
			case len(near) > 0:
				return command.Said(l.T("I didn't forget anything: nothing I remember has all those words. The closest is that %s.",
					spoken(l, near[:1])[0]), map[string]any{"forgotten": 0, "closest": near[0].Text}), nil
			}
			return command.Said(l.T("I don't remember anything like that."), map[string]any{"forgotten": 0}), nil
		},
	}
}

// forgetLimit is how many facts forget weighs: enough to tell the one
// fact holding the words asked for from several.
const forgetLimit = 10

// spoken are facts as said back to the household: its words turned
// ("my" is "your"), a secret in them named, never said.
func spoken(l locale.Lang, facts []storage.Fact) []string {
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = placeholder.ReplaceAllString(f.Text, l.T("a secret"))
	}
	return quoted(l, out)
}

// texts are facts' shown texts, a secret in them a placeholder.
func texts(facts []storage.Fact) []string {
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = f.Text
	}
	return out
}

// SearchMemory is search_memory: what the user told Hark to remember.
// SearchMemory is search_memory: the facts the user asked to be
// remembered, and what was talked about in past conversations (the diary;
// nil for none): "do you remember when we talked about Paris".
func SearchMemory(m Memory, diary Diary) *command.Command {
	return &command.Command{
		Name:        "search_memory",
		Description: "Look up facts the user asked to be remembered, and past conversations.",
		Keywords:    []string{"remember", "told you", "memory"},
		Parameters:  []command.Parameter{{Name: "query", Type: "string", Required: true, Description: "keywords"}},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			q := c.Args.String("query")
			aboutMe := oneOf(q, "me", "myself", "i", "you know about me")
			// Searched by its content words: a fact sharing "the" alone
			// is not about what was asked.
			limit, search := 3, topic(q, c.Language)
			if aboutMe {
				limit, search = 20, q // newest first, then keep those about the user
			}
			hits, err := m.Search(ctx, search, limit)
			if err != nil {
				return command.Response{}, err
			}
			if aboutMe {
				hits = aboutUser(hits, lang(c))
				hits = hits[:min(3, len(hits))]
			} else {
				hits = whole(hits, q, c.Language)
				if ours(q+" "+c.Utterance, lang(c)) {
					hits = mineFirst(hits, lang(c))
				}
			}
			// A secret is said only when the request names one ("what is my
			// wifi password"), never on "what do you know about me".
			explicit := !aboutMe && (hasPhrase(strings.ToLower(q), secretWords...) || hasPhrase(strings.ToLower(c.Utterance), secretWords...) ||
				redact.NamesSecret(q) || redact.NamesSecret(c.Utterance))
			var facts, revealed []string
			for _, h := range hits {
				text := h.Text
				if len(h.Sealed) > 0 && explicit {
					said, err := m.Reveal(ctx, h)
					if err != nil {
						return command.Response{}, err
					}
					text = said
					revealed = append(revealed, secretsOf(said)...)
				}
				facts = append(facts, text)
			}
			data := map[string]any{"facts": facts}
			l := lang(c)
			talks, err := pastTalks(ctx, diary, q, aboutMe)
			if err != nil {
				return command.Response{}, err
			}
			var said []string
			if len(facts) > 0 {
				spoken := make([]string, len(facts))
				for i, f := range facts {
					spoken[i] = placeholder.ReplaceAllString(f, l.T("a secret"))
				}
				said = append(said, l.T("You told me: %s.", strings.Join(quoted(l, spoken), l.T(". And "))))
			}
			var conversations []map[string]any
			for _, e := range talks {
				conversations = append(conversations, map[string]any{"date": e.Date.Format("2006-01-02"), "summary": e.Summary})
				said = append(said, l.T("On %s we talked about this: %s", l.Date(e.Date), strings.TrimSpace(e.Summary)))
			}
			if len(conversations) > 0 {
				data["conversations"] = conversations
			}
			if len(said) == 0 {
				return command.Said(l.T("I don't remember anything about that."), data), nil
			}
			resp := command.Said(strings.Join(said, " "), data)
			resp.Reveal = revealed
			return resp, nil
		},
	}
}

// whole keeps, of facts found for query (best first), those that hold
// every word of it (storage.HoldsAll) when one does: beside the spare
// key's place, the car keys' is not what was asked. When none does, it
// keeps those holding a content word of it in language lang: the search
// knows no language, and "plane" is no German "Plan".
func whole(hits []storage.Fact, query, lang string) []storage.Fact {
	holds := func(f storage.Fact) bool { return storage.HoldsAll(f.Text, query, lang) }
	if !slices.ContainsFunc(hits, holds) {
		holds = func(f storage.Fact) bool { n, _ := storage.Shared(f.Text, query, lang); return n > 0 }
	}
	return slices.DeleteFunc(hits, func(f storage.Fact) bool { return !holds(f) })
}

// topic is what query asks about: its content words without the function
// words of language lang (storage.FunctionWord), to search by. A query
// of function words alone ("what do you remember about them") asks, as
// one of none ("about it"), for the newest facts.
func topic(query, lang string) string {
	var out []string
	for w := range storage.ContentWords(query) {
		if !storage.FunctionWord(w, lang) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// selfWords are the words with which a household speaks of itself, one
// person or all of them, in each language: a fact holding one is about
// the household ("my bike", "unser WLAN-Passwort", "nuestra casa").
var selfWords = map[locale.Lang][]string{
	locale.English: {"i", "my", "me", "mine", "myself", "we", "our", "us", "ours"},
	locale.German: {"ich", "mein", "meine", "meinen", "meinem", "meiner", "meines", "mich", "mir",
		"wir", "unser", "unsere", "unseren", "unserem", "unserer", "unseres", "uns"},
	locale.Spanish: {"yo", "mi", "mis", "me", "mío", "mía", "míos", "mías",
		"nosotros", "nosotras", "nuestro", "nuestra", "nuestros", "nuestras", "nos"},
	locale.French: {"je", "j", "mon", "ma", "mes", "moi", "me", "m", "nous", "notre", "nos"},
}

// possessives are the words with which a household says a thing is its
// own, in each language.
var possessives = map[locale.Lang][]string{
	locale.English: {"my", "our", "mine", "ours"},
	locale.German:  {"mein", "meine", "meinen", "meinem", "meiner", "meines", "unser", "unsere", "unseren", "unserem", "unserer", "unseres"},
	locale.Spanish: {"mi", "mis", "nuestro", "nuestra", "nuestros", "nuestras"},
	locale.French:  {"mon", "ma", "mes", "notre", "nos"},
}

// ours reports whether said, in language l, names a thing the household's
// own ("my keys", "mis llaves").
func ours(said string, l locale.Lang) bool {
	own := possessives[l]
	if own == nil {
		own = possessives[locale.English]
	}
	words := strings.FieldsFunc(strings.ToLower(said), func(r rune) bool { return !unicode.IsLetter(r) })
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(own, w) })
}

// mineFirst keeps, of facts that answer a question about the household's
// own thing, those the household told about itself, when one did: asked
// about "my keys", Tom's keys are not the answer.
func mineFirst(facts []storage.Fact, l locale.Lang) []storage.Fact {
	if mine := aboutUser(facts, l); len(mine) > 0 {
		return mine
	}
	return facts
}

// aboutUser keeps facts the household stated about itself, in language l.
func aboutUser(facts []storage.Fact, l locale.Lang) []storage.Fact {
	self := selfWords[l]
	if self == nil {
		self = selfWords[locale.English]
	}
	var out []storage.Fact
	for _, f := range facts {
		words := strings.FieldsFunc(strings.ToLower(f.Text), func(r rune) bool { return !unicode.IsLetter(r) })
		if slices.ContainsFunc(words, func(w string) bool { return slices.Contains(self, w) }) {
			out = append(out, f)
		}
	}
	return out
}

func quoted(l locale.Lang, facts []string) []string {
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = l.Yours(strings.TrimSuffix(strings.ToLower(f[:1])+f[1:], "."))
	}
	return out
}

// secretsOf is the secret values in a fact as said: what redaction would
// replace.
func secretsOf(said string) []string {
	r := redact.New()
	shown, _ := r.Redact(said)
	var out []string
	for _, p := range placeholder.FindAllString(shown, -1) {
		out = append(out, r.Restore(p))
	}
	return out
}

// talkWords say that a question is about a past conversation, not a
// fact: they are not what was talked about.
var talkWords = map[string]bool{"when": true, "we": true, "talked": true, "talk": true, "spoke": true, "said": true,
	"discussed": true, "about": true, "conversation": true, "chatted": true, "last": true, "time": true}

// pastTalks are up to two past conversations whose summaries name what
// the question is about.
func pastTalks(ctx context.Context, diary Diary, q string, aboutMe bool) ([]storage.DiaryEntry, error) {
	if diary == nil || aboutMe {
		return nil, nil
	}
	var keywords []string
	for w := range storage.ContentWords(q) {
		if !talkWords[w] {
			keywords = append(keywords, w)
		}
	}
	if len(keywords) == 0 {
		return nil, nil
	}
	return diary.Search(ctx, keywords, time.Time{}, time.Time{}, 2)
}
