package storage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSettings(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	var vol int
	if ok, err := db.Settings().Get(t.Context(), "volume", &vol); ok || err != nil {
		t.Fatalf("unset volume: %v %v", ok, err)
	}
	if err := db.Settings().Set(t.Context(), "volume", 65); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open(t, dir)
	defer db.Close()
	if ok, _ := db.Settings().Get(t.Context(), "volume", &vol); !ok || vol != 65 {
		t.Errorf("volume after reopen = %d, %v", vol, ok)
	}
}

func TestScheduleRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	s := db.Schedule()
	s.Put(t.Context(), Item{ID: "b", Kind: Timer, Name: "tea", Created: now, Due: now.Add(5 * time.Minute), Duration: 5 * time.Minute, State: Pending})
	s.Put(t.Context(), Item{ID: "a", Kind: Alarm, Created: now, Due: now.Add(time.Hour), Hour: 11, Days: []time.Weekday{time.Monday}, State: Pending})
	s.Put(t.Context(), Item{ID: "c", Kind: Reminder, Name: "call mom", Created: now, Due: now.Add(time.Minute), State: Pending})
	db.Close()
	db = open(t, dir)
	defer db.Close()
	all, err := db.Schedule().List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range all {
		ids = append(ids, it.ID)
	}
	if !slices.Equal(ids, []string{"c", "b", "a"}) {
		t.Errorf("order by due = %v", ids)
	}
	timers, _ := db.Schedule().List(t.Context(), Timer)
	if len(timers) != 1 || timers[0].Name != "tea" || timers[0].Duration != 5*time.Minute || !timers[0].Active() {
		t.Errorf("timers = %+v", timers)
	}
	if err := db.Schedule().Put(t.Context(), Item{Kind: Timer}); err == nil {
		t.Error("an item without an id was stored")
	}
}

// TestMissedAlertsSurviveReopen: the alerts nobody heard are on disk once
// Put returns, listed oldest first after a reopen, and gone once deleted.
func TestMissedAlertsSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	at := time.Date(2026, 11, 22, 10, 42, 0, 0, time.FixedZone("CET", 3600))
	m := db.Missed()
	tea := MissedAlert{ID: "timer-1@2", Item: Item{ID: "timer-1", Kind: Timer, Name: "tea", Rang: at.Add(time.Minute), State: Done}, At: at.Add(time.Minute)}
	wake := MissedAlert{ID: "alarm-1@1", Item: Item{ID: "alarm-1", Kind: Alarm, Hour: 10, Minute: 42, Rang: at, State: Pending}, At: at, LateBy: 3 * time.Minute}
	for _, a := range []MissedAlert{tea, wake} {
		if err := m.Put(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Put(t.Context(), MissedAlert{Item: Item{Kind: Timer}}); err == nil {
		t.Error("a missed alert without an id was kept")
	}
	db.Close()
	db = open(t, dir)
	defer db.Close()
	got, err := db.Missed().List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != wake.ID || got[1].ID != tea.ID {
		t.Fatalf("after reopen: %+v, want the alarm then the tea timer", got)
	}
	if g := got[0]; !g.At.Equal(at) || g.At.Hour() != 10 || g.LateBy != wake.LateBy || g.Item.Hour != 10 {
		t.Errorf("the alarm read back as %+v, want it as kept (10:42 on the household's clock, 3 minutes late)", g)
	}
	if err := db.Missed().Delete(t.Context(), wake.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.Missed().Delete(t.Context(), "never-kept"); err != nil {
		t.Errorf("deleting one never kept: %v", err)
	}
	got, _ = db.Missed().List(t.Context())
	if len(got) != 1 || got[0].ID != tea.ID {
		t.Errorf("after the alarm was deleted: %+v, want the tea timer", got)
	}
}

func TestFactsSearch(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	f := db.Facts()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Add(t.Context(), "My sister's birthday is on March 3rd", base)
	f.Add(t.Context(), "The spare key is under the blue flower pot", base.Add(time.Hour))
	f.Add(t.Context(), "I like my coffee black", base.Add(2*time.Hour))
	got, _ := f.Search(t.Context(), "where are the keys?", 5)
	if len(got) != 1 || !strings.Contains(got[0].Text, "spare key") {
		t.Errorf("search for keys = %+v", got)
	}
	got, _ = f.Search(t.Context(), "when is my sister's birthday", 5)
	if len(got) != 1 || !strings.Contains(got[0].Text, "March") {
		t.Errorf("search for birthday = %+v", got)
	}
	if got, _ = f.Search(t.Context(), "me", 2); len(got) != 2 || !strings.Contains(got[0].Text, "coffee") {
		t.Errorf("search with no content words = %+v, want the newest two", got)
	}
	all, _ := f.All(t.Context())
	f.Delete(t.Context(), all[0].ID)
	if all, _ = f.All(t.Context()); len(all) != 2 {
		t.Errorf("%d facts after one was forgotten", len(all))
	}
}

func TestContentWordsUnicode(t *testing.T) {
	got := ContentWords("Wo ist der Schlüssel? Les clés! 東京タワー")
	for _, w := range []string{"schlüssel", "clé", "der", "東京タワー"} {
		if !got[w] {
			t.Errorf("ContentWords lacks %q: %v", w, got)
		}
	}
	if got["wo"] {
		t.Error("two-letter word kept")
	}
}

func TestSecretsEncryptedAtRest(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	s := db.Secrets("")
	const value = "sk-live-0123456789abcdef"
	if err := s.Set(t.Context(), "WEATHER_KEY", value); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Nothing in the data directory but the key file holds the value.
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			if bytes.Contains(b, []byte(value)) {
				t.Errorf("%s holds the secret in the clear", path)
			}
		}
		return nil
	})
	if info, err := os.Stat(filepath.Join(dir, "secrets.key")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", info, err)
	}
	db = open(t, dir)
	defer db.Close()
	s = db.Secrets("")
	if got, err := s.Get(t.Context(), "WEATHER_KEY"); err != nil || got != value {
		t.Errorf("Get = %q, %v", got, err)
	}
	if names, _ := s.Names(t.Context()); !slices.Equal(names, []string{"WEATHER_KEY"}) {
		t.Errorf("Names = %v", names)
	}
	// Another key cannot read it.
	other := filepath.Join(t.TempDir(), "other.key")
	os.WriteFile(other, bytes.Repeat([]byte{7}, 32), 0o600)
	if _, err := db.Secrets(other).Get(t.Context(), "WEATHER_KEY"); err == nil || strings.Contains(err.Error(), value) {
		t.Errorf("wrong key: %v", err)
	}
	s.Unset(t.Context(), "WEATHER_KEY")
	if got, err := s.Get(t.Context(), "WEATHER_KEY"); got != "" || err != nil {
		t.Errorf("after Unset: %q %v", got, err)
	}
}

// Told the same thing twice, the box keeps it once: said back, it is said
// once. A secret told again is the same fact only when its secret is too.
func TestFactsToldTwiceKeptOnce(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	f := db.SealedFacts(db.Secrets(""))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, err := f.Add(t.Context(), "The spare key is under the blue pot", base)
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.Add(t.Context(), "the spare key is  under the blue pot.", base.Add(time.Hour))
	if err != nil || again.ID != first.ID {
		t.Errorf("told again: %+v, %v; want the fact already kept, %s", again, err, first.ID)
	}
	for _, said := range []string{"the garage code is 4711", "the garage code is 4711", "the garage code is 0815"} {
		if _, err := f.AddSecret(t.Context(), "the garage code is [SECRET_1]", said, base.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := f.All(t.Context())
	if len(all) != 3 {
		t.Errorf("%d facts kept: %+v; want the key's once and the two garage codes", len(all), all)
	}
}

// Facts kept twice before Add kept them once are found once.
func TestFactsKeptTwiceFoundOnce(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, text := range []string{"the spare key is under the blue pot", "The spare key is under the blue pot.", "the car keys are on the hook"} {
		f := Fact{ID: fmt.Sprintf("%016x0000", i), Text: text, At: base.Add(time.Duration(i) * time.Hour)}
		if err := db.put(t.Context(), "remember fact", factPrefix+f.ID, f); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Facts().Search(t.Context(), "spare key", 5)
	if err != nil || len(got) != 2 || got[0].Text != "The spare key is under the blue pot." {
		t.Errorf("found %+v, %v; want the spare key's newest once, then the car keys", got, err)
	}
}

// The search ranks by what a question is about, not by its function
// words: the fact about the keys comes first though a newer one shares as
// many of the question's words ("the", "are", "with"; "die", "ist"), and
// one that shares only English function words is not found. A word that is a function word in another
// language ("car") still finds its fact, below a fact with a word of no
// language's function words.
func TestFactsSearchRanksByContentWords(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	f := db.Facts()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, text := range []string{"my keys are in the drawer", "the car is in the garage", "the boxes are in the attic", "the bikes are with the neighbours",
		"die Brillen liegen im Flur", "die Katze ist im Garten"} {
		if _, err := f.Add(t.Context(), text, base.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"where are the keys", []string{"my keys are in the drawer"}},
		{"are the keys with the boxes", []string{"the boxes are in the attic", "my keys are in the drawer"}},
		{"car", []string{"the car is in the garage"}},
		{"the car keys", []string{"my keys are in the drawer", "the car is in the garage"}},
		{"wo ist die Brille", []string{"die Brillen liegen im Flur", "die Katze ist im Garten"}},
	} {
		got, err := f.Search(t.Context(), c.query, 5)
		var texts []string
		for _, g := range got {
			texts = append(texts, g.Text)
		}
		if err != nil || !slices.Equal(texts, c.want) {
			t.Errorf("Search(%q) = %q, %v; want %q", c.query, texts, err, c.want)
		}
	}
}
