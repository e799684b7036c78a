package reply

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
)

// downModel points the fixture's models at a server that is not there.
func downModel(t *testing.T, f *fixture) {
	c, err := llm.New(llm.Options{Host: deadHost(t), Model: "x"})
	if err != nil {
		t.Fatal(err)
	}
	f.eng.o.Model, f.eng.o.Aux, f.eng.o.Info = c, c, nil
}

// What the household told the box is on its card: with the model server
// down, a question about it is answered from there, after saying the
// model is out of reach.
func TestModelDownAnswersFromMemory(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	downModel(t, f)
	for _, fact := range []string{"remember that the spare key is under the blue pot", "remember that the plumber's number is 555 0142",
		"remember that my car keys are in the kitchen drawer", "remember that the wifi password is Tulip-Harbor-77"} {
		if _, said, err := f.ask(t, fact); err != nil || len(said) == 0 {
			t.Fatalf("%q: said %q, err %v", fact, said, err)
		}
	}
	for _, c := range []struct {
		ask  string
		want []string
	}{
		{"where is the spare key", []string{"I can't reach my language model right now.", "You told me: the spare key is under the blue pot."}},
		{"what's the plumber's number", []string{"I can't reach my language model right now.", "You told me: the plumber's number is 555 0142."}},
		{"where are my car keys", []string{"I can't reach my language model right now.", "You told me: your car keys are in the kitchen drawer."}},
		// A secret is said when the question names it, as search_memory does.
		{"what's the wifi password", []string{"I can't reach my language model right now.", "You told me: the wifi password is Tulip-Harbor-77."}},
		// Not every word of the question is in a fact: no guess.
		{"where is the spare battery", []string{"I didn't understand that, and I can't reach my language model right now."}},
		{"who wrote the novel Dune", []string{"I didn't understand that, and I can't reach my language model right now."}},
	} {
		res, said, err := f.ask(t, c.ask)
		if !errors.Is(err, llm.ErrUnreachable) || !slices.Equal(said, c.want) {
			t.Errorf("%q: said %q, err %v; want %q and the model unreachable", c.ask, said, err, c.want)
			continue
		}
		if len(c.want) == 2 && (len(res.Tools) != 1 || res.Tools[0].Name != "search_memory") {
			t.Errorf("%q: tools %+v, want the one search_memory it answered with", c.ask, res.Tools)
		}
	}
}

// The household's own language: its question words are no fact's words.
func TestModelDownAnswersFromMemoryInItsLanguage(t *testing.T) {
	for _, c := range []struct{ lang, fact, ask, want string }{
		{"de", "merk dir, dass der Ersatzschlüssel unter dem blauen Topf liegt", "wo ist der Ersatzschlüssel", "Du hast mir gesagt: der Ersatzschlüssel liegt unter dem blauen Topf."},
		{"es", "recuerda que la llave de repuesto está debajo de la maceta azul", "dónde está la llave de repuesto", "Me dijiste: la llave de repuesto está debajo de la maceta azul."},
		{"fr", "souviens-toi que la clé de secours est sous le pot bleu", "où est la clé de secours", "Tu m'as dit : la clé de secours est sous le pot bleu."},
	} {
		f := newFixture(t, smallModel, Options{})
		downModel(t, f)
		if _, err := f.eng.Reply(t.Context(), Query{Text: c.fact, Language: c.lang}, func(string) {}); err != nil {
			t.Fatal(err)
		}
		var said []string
		_, err := f.eng.Reply(t.Context(), Query{Text: c.ask, Language: c.lang}, func(s string) { said = append(said, s) })
		if !errors.Is(err, llm.ErrUnreachable) || len(said) != 2 || said[1] != c.want {
			t.Errorf("%s: said %q, err %v; want the apology and %q", c.lang, said, err, c.want)
		}
	}
}

// On the box's own CPU the memory search has its stand-in, which looks
// only when the request is about something said before ("remember", "did
// I"): a question a remembered fact answers whole is one too, so the
// model is given the fact, as the box answers it with the model down.
func TestStandInGivesTheModelTheFactThatAnswers(t *testing.T) {
	meter := cost.NewMeter()
	c := &settable{now: clock}
	f := newFixture(t, boxCPU, Options{Meter: meter, PlannerOff: true, Now: c.Now})
	meter.Set(cost.Key(f.srv.URL, boxCPU.Name), cost.Rates{Prompt: 40, Gen: 15, CharsPerToken: 4, Samples: 5})
	if _, _, err := f.ask(t, "remember that the spare key is under the blue pot"); err != nil {
		t.Fatal(err)
	}
	c.pass(3 * 24 * time.Hour) // another day: nothing of that conversation is in this one
	f.model.on(kindChat, ollamatest.Reply{Content: "Under the blue pot."})
	res, said, err := f.ask(t, "where is the spare key")
	if err != nil || !slices.Contains(res.StandIns, "memory terms") {
		t.Fatalf("said %q, stand-ins %v, err %v; want the memory search's stand-in", said, res.StandIns, err)
	}
	chat := f.srv.Chats()[len(f.srv.Chats())-1]
	var prompt strings.Builder
	for _, m := range chat.Messages {
		prompt.WriteString(m.Content + "\n")
	}
	if !strings.Contains(prompt.String(), "under the blue pot") {
		t.Errorf("the model was not given the fact that answers the question:\n%s", prompt.String())
	}
}

// A question asked in other forms of the words the household told the box
// ("park" for "parked") is answered from the fact that holds them; a fact
// sharing only the look of a word ("plan" for "plane") is no answer.
func TestModelDownAnswersInOtherFormsOfTheWords(t *testing.T) {
	const none = ""
	for _, c := range []struct{ lang, fact, ask, want string }{
		{"en", "remember that my car is parked on level 3", "where did I park", "You told me: your car is parked on level 3."},
		{"en", "remember that Mum's birthday is on 3 May", "when is mum's birthday", "You told me: mum's birthday is on 3 May."},
		{"en", "remember that I planted the tomatoes on 4 April", "when did I plant the tomatoes", "You told me: you planted the tomatoes on 4 April."},
		{"en", "remember that the boxes of screws are in the shed", "where is the box of screws", "You told me: the boxes of screws are in the shed."},
		{"de", "merk dir, dass die Brillen im Flur liegen", "wo ist meine Brille", "Du hast mir gesagt: die Brillen liegen im Flur."},
		{"es", "recuerda que las canciones de Ana están en el disco azul", "dónde está la canción de Ana", "Me dijiste: las canciones de Ana están en el disco azul."},
		{"fr", "souviens-toi que la voiture est stationnée au niveau 3", "où ai-je stationné la voiture", "Tu m'as dit : la voiture est stationnée au niveau 3."},
		// Near misses: no guess.
		{"en", "remember that the plan is on the fridge", "where is the plane", none},
		{"en", "remember that the ear drops are in the bathroom", "where are the earrings", none},
		{"en", "remember that the class is on even weeks", "when is the evening class", none},
		{"de", "merk dir, dass wir nach Berlin fahren", "wann beginnt die Nacht", none},
		{"es", "recuerda que la llave del puerto está en el cajón", "dónde está la llave de la puerta", none},
		{"fr", "souviens-toi que le billet est à la gare", "où est le billet garé", none},
	} {
		f := newFixture(t, smallModel, Options{})
		downModel(t, f)
		if _, err := f.eng.Reply(t.Context(), Query{Text: c.fact, Language: c.lang}, func(string) {}); err != nil {
			t.Fatal(err)
		}
		var said []string
		_, err := f.eng.Reply(t.Context(), Query{Text: c.ask, Language: c.lang}, func(s string) { said = append(said, s) })
		if !errors.Is(err, llm.ErrUnreachable) {
			t.Errorf("%s %q: err %v, want the model unreachable", c.lang, c.ask, err)
			continue
		}
		switch {
		case c.want == none && len(said) != 1:
			t.Errorf("%s %q after %q: said %q, want the apology alone", c.lang, c.ask, c.fact, said)
		case c.want != none && (len(said) != 2 || said[1] != c.want):
			t.Errorf("%s %q after %q: said %q, want the apology and %q", c.lang, c.ask, c.fact, said, c.want)
		}
	}
}
