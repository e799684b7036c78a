package builtin

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
)

// TestACorrectionReplacesTheFact: told again where a thing is, the box
// keeps the new place instead of the old one, says which it forgot, and
// reads back the new place alone, in every language. Told again a secret
// of the same name (the wifi password changed), it keeps the new secret
// alone and says neither.
func TestACorrectionReplacesTheFact(t *testing.T) {
	for _, tt := range []struct {
		l                       locale.Lang
		before, after, ask      string
		wantAfter, wantAnswered string
	}{
		{locale.English, "remember that my keys are in the blue bowl", "remember that my keys are in the drawer now", "what do you remember about my keys",
			"OK, I'll remember that, and I've forgotten the old one: your keys are in the blue bowl.", "You told me: your keys are in the drawer now."},
		{locale.German, "merk dir, dass meine Schlüssel in der blauen Schale sind", "merk dir, dass meine Schlüssel in der Schublade sind", "was weißt du über meine Schlüssel",
			"OK, ich merke es mir und habe das Alte vergessen: deine Schlüssel sind in der blauen Schale.", "Du hast mir gesagt: deine Schlüssel sind in der Schublade."},
		{locale.Spanish, "recuerda que mis llaves están en el cajón", "recuerda que mis llaves están en la mesa", "qué sabes de mis llaves",
			"Vale, lo recordaré, y he olvidado lo anterior: tus llaves están en el cajón.", "Me dijiste: tus llaves están en la mesa."},
		{locale.French, "souviens-toi que mes clés sont dans le tiroir", "retiens que mes clés sont sur la table", "que sais-tu de mes clés",
			"D'accord, je m'en souviendrai, et j'ai oublié l'ancienne : tes clés sont dans le tiroir.", "Tu m'as dit : tes clés sont sur la table."},
		{locale.English, "remember that the wifi password is Tulip-Harbor-77", "remember that the wifi password is Sunflower-Field-42", "what do you remember about the wifi password",
			"OK, I'll remember that, and keep it secret. I've forgotten the old one.", "You told me: the wifi password is Sunflower-Field-42."},
	} {
		f := newSealedFixture(t)
		f.sayIn(t, tt.l, tt.before)
		if r := f.sayIn(t, tt.l, tt.after); r.Spoken != tt.wantAfter {
			t.Errorf("%s %q after %q: said %q, want %q", tt.l, tt.after, tt.before, r.Spoken, tt.wantAfter)
		}
		if r := f.sayIn(t, tt.l, tt.ask); r.Spoken != tt.wantAnswered {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.ask, r.Spoken, tt.wantAnswered)
		}
	}
}

// TestNotEveryNewFactIsACorrection: a fact about another thing (the car
// keys beside the keys), or saying another thing of the same one (what
// the sister does beside her name), is kept beside the old one.
func TestNotEveryNewFactIsACorrection(t *testing.T) {
	for _, tt := range []struct {
		tell []string
		ask  string
		want []string
	}{
		{[]string{"remember that my keys are in the drawer", "remember that my car keys are in the car"}, "what do you remember about my keys",
			[]string{"your keys are in the drawer"}},
		{[]string{"remember that my sister is called Eva", "remember that my sister is a nurse"}, "what do you remember about my sister",
			[]string{"your sister is called Eva", "your sister is a nurse"}},
		{[]string{"remember that the kids are at school until three", "remember that the dog is in the garden"}, "what do you remember about the kids",
			[]string{"the kids are at school until three"}},
		// A place said with a time or a day is when as much as where: a
		// party on Saturday is still on Saturday when it is at Tom's.
		{[]string{"remember that the party is on Saturday", "remember that the party is at Tom's house"}, "what do you remember about the party",
			[]string{"the party is on Saturday", "the party is at Tom's house"}},
		{[]string{"remember that the kids are at school until three", "remember that the kids are at football on Tuesdays"}, "what do you remember about the kids",
			[]string{"the kids are at school until three", "the kids are at football on Tuesdays"}},
		{[]string{"remember that the meeting is at 3", "remember that the meeting is in the big room"}, "what do you remember about the meeting",
			[]string{"the meeting is at 3", "the meeting is in the big room"}},
	} {
		f := newFixture(t)
		for _, s := range tt.tell {
			if said, _ := f.say(t, s); said != "OK, I'll remember that." {
				t.Errorf("%q after %q: said %q, want it remembered alone", s, tt.tell, said)
			}
		}
		said, _ := f.say(t, tt.ask)
		for _, w := range tt.want {
			if !strings.Contains(said, w) {
				t.Errorf("%q after %q: said %q, want it to hold %q", tt.ask, tt.tell, said, w)
			}
		}
	}
}

// TestMyThingsBeforeOthers: asked about "my keys", the box reads back the
// household's own keys, not Tom's and Anna's beside them; asked about
// Tom's, Tom's; asked about keys, all of them.
func TestMyThingsBeforeOthers(t *testing.T) {
	for _, tt := range []struct {
		l                locale.Lang
		tell             []string
		ask, want        string
		askOther, wantOf string
	}{
		{locale.English, []string{"remember that my keys are in the drawer", "remember that Tom's keys are in his bag", "remember that Anna's keys are on the hook"},
			"what did I tell you about my keys", "You told me: your keys are in the drawer.",
			"what did I tell you about Tom's keys", "You told me: tom's keys are in his bag."},
		{locale.Spanish, []string{"recuerda que mis llaves están en el cajón", "recuerda que las llaves de Tomás están en su bolso"},
			"qué sabes de mis llaves", "Me dijiste: tus llaves están en el cajón.",
			"qué sabes de las llaves de Tomás", "Me dijiste: las llaves de Tomás están en su bolso."},
		{locale.French, []string{"souviens-toi que mes clés sont dans le tiroir", "souviens-toi que les clés de Thomas sont dans son sac"},
			"que sais-tu de mes clés", "Tu m'as dit : tes clés sont dans le tiroir.",
			"que sais-tu des clés de Thomas", "Tu m'as dit : les clés de Thomas sont dans son sac."},
	} {
		f := newFixture(t)
		for _, s := range tt.tell {
			f.sayIn(t, tt.l, s)
		}
		if r := f.sayIn(t, tt.l, tt.ask); r.Spoken != tt.want {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.ask, r.Spoken, tt.want)
		}
		if r := f.sayIn(t, tt.l, tt.askOther); r.Spoken != tt.wantOf {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.askOther, r.Spoken, tt.wantOf)
		}
	}
}

// TestPlaced: a fact saying where a thing is splits into the thing and
// its place, the verb in the middle or, in a German clause left in the
// order of "dass", at the end.
func TestPlaced(t *testing.T) {
	for _, tt := range []struct {
		l                  locale.Lang
		fact, thing, place string
		ok                 bool
	}{
		{locale.English, "my keys are in the drawer now", "my keys", "in the drawer now", true},
		{locale.English, "my keys are now in the drawer", "my keys", "in the drawer", true},
		{locale.English, "my sister is a nurse", "", "", false},
		{locale.German, "meine Schlüssel sind in der Schublade", "meine Schlüssel", "in der Schublade", true},
		{locale.German, "meine Schlüssel in der Schublade liegen", "meine Schlüssel", "in der Schublade", true},
		{locale.German, "meine Schlüssel jetzt in der Schublade liegen", "meine Schlüssel", "in der Schublade", true},
		{locale.German, "meine Schwester Ärztin ist", "", "", false},
		{locale.Spanish, "mis llaves están ahora en la mesa", "mis llaves", "en la mesa", true},
		{locale.French, "mes clés sont sur la table", "mes clés", "sur la table", true},
	} {
		thing, place, ok := placed(tt.l, tt.fact)
		if thing != tt.thing || place != tt.place || ok != tt.ok {
			t.Errorf("placed(%s, %q) = %q, %q, %v; want %q, %q, %v", tt.l, tt.fact, thing, place, ok, tt.thing, tt.place, tt.ok)
		}
	}
}

// TestRememberWithoutThat: "remember my bike is in the shed" is a fact
// told as one says it, without "that", and kept with its "my"; "remember
// the password for the wifi" states nothing and is not taken for a fact.
func TestRememberWithoutThat(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ say, want string }{
		{"remember my bike is in the shed", "OK, I'll remember that."},
		{"what do you remember about my bike", "You told me: your bike is in the shed."},
		{"remember the bins are collected on Tuesday", "OK, I'll remember that."},
		{"please remember our door is painted green", "OK, I'll remember that."},
		{"what do you remember about our door", "You told me: your door is painted green."},
		{"what do you remember about the bins", "You told me: the bins are collected on Tuesday."},
	} {
		if r := f.sayIn(t, locale.English, c.say); r.Spoken != c.want {
			t.Errorf("%q: said %q, want %q", c.say, r.Spoken, c.want)
		}
	}
	for _, s := range []string{"remember the password for the wifi", "remember my birthday", "please remember my keys"} {
		if u := f.reg.Understand(t.Context(), locale.English, s); u.OK && u.Intent == "remember" {
			t.Errorf("%q was taken for a fact to remember", s)
		}
	}
}
