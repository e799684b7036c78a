package storage

import (
	"testing"
	"time"
)

// A fact holds a question's word in another form of the same word: the
// endings of inflection each language has, nothing more.
func TestHoldsAll(t *testing.T) {
	for _, c := range []struct {
		lang, fact, asked string
		want              bool
	}{
		{"en", "my car is parked on level 3", "park", true},
		{"en", "I'm parking on level 3", "parked", true},
		{"en", "I planted the tomatoes on 4 April", "plant tomatoes", true},
		{"en", "the boxes of screws are in the shed", "box screws", true},
		{"en", "my glasses are on the desk", "glass", true},
		{"en", "we went shopping on Friday", "shop friday", true},
		{"en", "the boxes were stored in the attic", "store attic", true},
		{"en", "we went hiking in May", "hike", true},
		{"en", "Mum's birthday is on 3 May", "mum birthday", true},
		{"en", "the spare key is under the blue pot", "spare key", true},
		{"en", "the batteries are in the kitchen drawer", "battery", true},
		{"en", "the spare battery is in the drawer", "batteries", true},
		{"en", "the puppies sleep in the basket", "puppy", true},
		{"en", "the spare key is under the blue pot", "spare battery", false},
		{"de", "die Brillen liegen im Flur", "brille", true},
		{"de", "wir reisen im Juni", "reise", true},
		{"de", "die Taschen sind im Schrank", "tasche", true},
		{"es", "las canciones de Ana están en el disco", "canción ana", true},
		{"es", "las flores están en la ventana", "flor", true},
		{"es", "el coche está aparcado en la planta 3", "aparcar coche", true},
		{"fr", "la voiture est stationnée au niveau 3", "stationné voiture", true},
		{"fr", "l'entrée est à gauche", "entrer", true},
		{"", "nothing asked is held by any fact", "", true},

		// Near misses: the same letters, another word.
		{"en", "the plan is on the fridge", "plane", false},
		{"en", "the spine of the book is torn", "spin", false},
		{"en", "the ear drops are in the bathroom", "earring", false},
		{"en", "the class is on even weeks", "evening class", false},
		{"en", "the universe poster is rolled up", "university", false},
		{"en", "the wick is burnt", "wicked", false},
		{"en", "the bus is late", "bush", false},
		{"en", "the movie is on the shelf", "move", false},
		{"en", "the cookies are in the tin", "cook", false},
		{"de", "wir fahren nach Berlin", "nacht", false},
		{"de", "wir machen Urlaub", "macht", false},
		{"de", "das Bett ist frisch bezogen", "beten", false},
		{"de", "der Tee ist herb", "herbst", false},
		{"es", "la llave del puerto está en el cajón", "llave puerta", false},
		{"es", "la sal está en el armario", "salida", false},
		{"es", "la casa es azul", "casado", false},
		{"fr", "le billet est à la gare", "billet garé", false},
		{"fr", "le bateau est au port", "porte", false},
		{"fr", "on va restaurer la chaise", "restaurant", false},
		// A word of another language's ending is its own in this one.
		{"en", "the garden is behind the house", "garten", false},
	} {
		if got := HoldsAll(c.fact, c.asked, c.lang); got != c.want {
			t.Errorf("HoldsAll(%q, %q, %q) = %v, want %v", c.fact, c.asked, c.lang, got, c.want)
		}
	}
}

// Counting what a fact holds of a question, for a partial match: its
// content words only, the function words of the language (and English's,
// which a household mixes in) aside.
func TestShared(t *testing.T) {
	for _, c := range []struct {
		lang, fact, asked string
		n, of             int
	}{
		{"en", "my car is parked on level 3", "where did I park the red car", 2, 3}, // park, red, car: park and car held
		{"en", "the plan is on the fridge", "the plane", 0, 1},
		{"", "the plan is on the fridge", "the plane", 0, 1},
		{"de", "das Auto steht in der Garage", "das Flugzeug", 0, 1},
		{"de", "das Auto steht in der Garage", "the Flugzeug", 0, 1},
		{"es", "las llaves están en el cajón", "las bicis", 0, 1},
		{"fr", "les clés sont dans le tiroir", "les vélos", 0, 1},
		{"fr", "les clés sont dans le tiroir", "les clés", 1, 1},
		// Another language's function word is a word in this one.
		{"en", "the car is in the garage", "car", 1, 1},
		{"en", "the dog will die", "die", 1, 1},
	} {
		if n, of := Shared(c.fact, c.asked, c.lang); n != c.n || of != c.of {
			t.Errorf("Shared(%q, %q, %q) = %d of %d, want %d of %d", c.fact, c.asked, c.lang, n, of, c.n, c.of)
		}
	}
}

// The search finds a fact by another form of its words, and ranks one
// holding the very words above it.
func TestFactsSearchFindsOtherForms(t *testing.T) {
	db := open(t, t.TempDir())
	t.Cleanup(func() { db.Close() })
	f := db.Facts()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for i, text := range []string{"my car is parked on level 3", "the park closes at dusk", "the car keys are in the drawer"} {
		if _, err := f.Add(t.Context(), text, at.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.Search(t.Context(), "parked", 3)
	if err != nil || len(got) != 2 || got[0].Text != "my car is parked on level 3" || got[1].Text != "the park closes at dusk" {
		t.Errorf("Search(parked) = %v, %v; want the parked car first, then the park", got, err)
	}
	got, _ = f.Search(t.Context(), "park car", 1)
	if len(got) != 1 || got[0].Text != "my car is parked on level 3" {
		t.Errorf("Search(park car) = %v, want the parked car", got)
	}
}
