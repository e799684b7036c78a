package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Fact is something the user told Hark to remember: about themselves, a
// standing instruction, or the world.
type Fact struct {
	ID string `json:"id"`
	// Text is what is shown, searched and offered to the model: for a
	// fact holding a secret, with the secret replaced by a placeholder.
	Text string    `json:"text"`
	At   time.Time `json:"at"`
	// Sealed is the whole fact as said, secret included, encrypted with
	// the secrets key; empty for a fact without a secret.
	Sealed []byte `json:"sealed,omitempty"`
}

// Facts is the record of remembered facts.
type Facts struct {
	db      *DB
	secrets *Secrets // seals facts holding a secret; nil: AddSecret fails
}

// Facts returns the facts of db.
func (db *DB) Facts() *Facts { return &Facts{db: db} }

// SealedFacts returns the facts of db, sealing secrets with s's key.
func (db *DB) SealedFacts(s *Secrets) *Facts { return &Facts{db: db, secrets: s} }

// AddSecret stores a fact that holds a secret: shown (the secret replaced
// by a placeholder) in clear, the whole fact as said sealed with the
// secrets key.
func (f *Facts) AddSecret(ctx context.Context, shown, said string, at time.Time) (Fact, error) {
	if f.secrets == nil {
		return Fact{}, fmt.Errorf("storage: remember a secret: no secrets key")
	}
	kept, err := f.kept(ctx, shown, func(old Fact) bool {
		was, err := f.secrets.Unseal(old.Sealed)
		return err == nil && sameWords(was, said)
	})
	if err != nil || kept.ID != "" {
		return kept, err
	}
	sealed, err := f.secrets.Seal(said)
	if err != nil {
		return Fact{}, fmt.Errorf("storage: remember a secret: %w", err)
	}
	fact := Fact{ID: fmt.Sprintf("%016x%04x", uint64(at.UnixNano()), f.db.seq.Add(1)&0xffff), Text: shown, At: at, Sealed: sealed}
	return fact, f.db.put(ctx, "remember fact", factPrefix+fact.ID, fact)
}

// Seal keeps fact, kept in clear, as one holding a secret: shown in
// clear, the whole as said sealed, under its ID and time. It is one
// write: the fact in clear is replaced, never lost.
func (f *Facts) Seal(ctx context.Context, fact Fact, shown string) (Fact, error) {
	if f.secrets == nil {
		return Fact{}, fmt.Errorf("storage: seal a fact: no secrets key")
	}
	if len(fact.Sealed) > 0 {
		return fact, nil
	}
	sealed, err := f.secrets.Seal(fact.Text)
	if err != nil {
		return Fact{}, fmt.Errorf("storage: seal a fact: %w", err)
	}
	fact.Text, fact.Sealed = shown, sealed
	return fact, f.db.put(ctx, "seal fact", factPrefix+fact.ID, fact)
}

// Reveal returns a fact as it was said, its secret included.
func (f *Facts) Reveal(ctx context.Context, fact Fact) (string, error) {
	if len(fact.Sealed) == 0 {
		return fact.Text, nil
	}
	if f.secrets == nil {
		return "", fmt.Errorf("storage: reveal a secret: no secrets key")
	}
	return f.secrets.Unseal(fact.Sealed)
}

const factPrefix = "fact/"

// Add stores a fact and returns it with its ID. A fact already kept in
// the same words (case, spacing and the closing stop aside) is not kept
// twice: it is returned as it is.
func (f *Facts) Add(ctx context.Context, text string, at time.Time) (Fact, error) {
	kept, err := f.kept(ctx, text, func(old Fact) bool { return len(old.Sealed) == 0 })
	if err != nil || kept.ID != "" {
		return kept, err
	}
	fact := Fact{ID: fmt.Sprintf("%016x%04x", uint64(at.UnixNano()), f.db.seq.Add(1)&0xffff), Text: text, At: at}
	return fact, f.db.put(ctx, "remember fact", factPrefix+fact.ID, fact)
}

// once drops, of facts oldest first, those kept twice in the same words
// before Add kept a fact once, keeping the newest of each. Facts with a
// secret are left: the same words may hold another secret.
func once(facts []Fact) []Fact {
	var out []Fact
	for i, f := range facts {
		if len(f.Sealed) == 0 && slices.ContainsFunc(facts[i+1:], func(g Fact) bool { return len(g.Sealed) == 0 && sameWords(f.Text, g.Text) }) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// kept is the fact already kept with text in the same words, when same
// takes it for the same; a Fact without ID when there is none.
func (f *Facts) kept(ctx context.Context, text string, same func(Fact) bool) (Fact, error) {
	all, err := f.All(ctx)
	if err != nil {
		return Fact{}, fmt.Errorf("storage: remember a fact: %w", err)
	}
	for _, old := range all {
		if sameWords(old.Text, text) && same(old) {
			return old, nil
		}
	}
	return Fact{}, nil
}

// sameWords reports whether a and b say the same words: case, spacing and
// a closing stop do not make another fact.
func sameWords(a, b string) bool {
	norm := func(s string) string {
		return strings.Join(strings.Fields(strings.ToLower(strings.TrimRight(strings.TrimSpace(s), ".!"))), " ")
	}
	return norm(a) == norm(b)
}

// Delete removes the fact with id.
func (f *Facts) Delete(ctx context.Context, id string) error {
	return f.db.del(ctx, "forget fact", factPrefix+id)
}

// All returns every fact, oldest first.
func (f *Facts) All(ctx context.Context) ([]Fact, error) {
	var out []Fact
	err := records(ctx, f.db, "read facts", factPrefix, func(_ string, fact Fact) error {
		out = append(out, fact)
		return nil
	})
	return out, err
}

// Search returns up to limit facts holding the most of what query is
// about, best first, newest first among equals. A word of query is held
// by a fact that has it as said or in another form in any language
// HoldsAll knows; among facts holding as much, those holding more words
// as said come first. What a question is about are its content words
// that are function words of no language (FunctionWord); a function word
// of another language than English ("car", "die") weighs less, as the
// search knows no language, and an English function word, which a
// household mixes into every language, not at all: a fact sharing only
// those is not found. A query without content words returns the newest
// facts.
func (f *Facts) Search(ctx context.Context, query string, limit int) ([]Fact, error) {
	all, err := f.All(ctx)
	if err != nil {
		return nil, err
	}
	all = once(all)
	want := map[string]int{}
	for w := range ContentWords(query) {
		if weight := aboutness(w); weight > 0 {
			want[w] = weight
		}
	}
	if len(want) == 0 {
		slices.Reverse(all)
		return all[:min(limit, len(all))], nil
	}
	var hits []hit[Fact]
	for _, fact := range all {
		held, asSaid := 0, 0
		have := ContentWords(fact.Text)
		stems := anyForms(have)
		for w, weight := range want {
			switch {
			case have[w]:
				held += weight
				asSaid++
			case sharesAny(anyForms(map[string]bool{w: true}), stems):
				held += weight
			}
		}
		if held > 0 {
			hits = append(hits, hit[Fact]{fact, held<<8 + asSaid, fact.At})
		}
	}
	return best(hits, limit), nil
}

// aboutness is how much a word (as ContentWords gives it) says of what a
// question in an unknown language is about: 0 for an English function
// word, which a household mixes into every language; 1 for a function
// word of another language, which may be a word of its own in English
// ("car"); 4 for any other word, so that one such word held outweighs
// the few function words of another language a question has.
func aboutness(w string) int {
	switch {
	case FunctionWord(w, "en"):
		return 0
	case slices.ContainsFunc(languages, func(lang string) bool { return FunctionWord(w, lang) }):
		return 1
	}
	return 4
}
