package redact

import (
	"slices"
	"strings"
	"testing"
)

// TestHouseholdSecretsInEachLanguage: a wifi password, a door's, a
// garage's or an alarm's code, a PIN, an account's password and a safe's
// combination are hidden when said in English, German, Spanish or French,
// the name of the secret before its value, with what it belongs to
// between ("the code of the door is ..."), in a German clause after
// "dass" too (the value before "ist").
func TestHouseholdSecretsInEachLanguage(t *testing.T) {
	for _, tt := range []struct{ lang, in, value string }{
		{"en", "the wifi password is hunter2", "hunter2"},
		{"en", "the password for the wifi is hunter2", "hunter2"},
		{"en", "the password of my email account is Tr0ub4dor", "Tr0ub4dor"},
		{"en", "the door code is 4711", "4711"},
		{"en", "the code for the garage is 4711", "4711"},
		{"en", "the pin for my bank card is 1234", "1234"},
		{"en", "the combination to the safe is 12-34-56", "12-34-56"},

		{"de", "das WLAN-Passwort ist hunter2", "hunter2"},
		{"de", "Das Passwort vom WLAN lautet hunter2.", "hunter2"},
		{"de", "das WLAN-Passwort lautet: hunter2", "hunter2"},
		{"de", "merk dir, dass das WLAN-Passwort hunter2 ist", "hunter2"},
		{"de", "merk dir, dass das Passwort vom WLAN hunter2 ist.", "hunter2"},
		{"de", "der WLAN-Schlüssel ist hunter2", "hunter2"},
		{"de", "mein Netflix-Kennwort ist Tr0ub4dor", "Tr0ub4dor"},
		{"de", "das Passwort für mein E-Mail-Konto ist Tr0ub4dor", "Tr0ub4dor"},
		{"de", "der Türcode ist 4711", "4711"},
		{"de", "der Code der Haustür ist 4711", "4711"},
		{"de", "der Garagencode ist 4711", "4711"},
		{"de", "der Alarmcode lautet 4711", "4711"},
		{"de", "die PIN ist 1234", "1234"},
		{"de", "die PIN meiner Bankkarte ist 1234", "1234"},
		{"de", "die Kombination des Tresors ist 12-34-56", "12-34-56"},
		{"de", "die Tresorkombination ist 12-34-56", "12-34-56"},

		{"es", "la contraseña del wifi es hunter2", "hunter2"},
		{"es", "recuerda que la contraseña del wifi es hunter2", "hunter2"},
		{"es", "la clave del wifi es hunter2", "hunter2"},
		{"es", "la contraseña wifi es hunter2", "hunter2"},
		{"es", "la contraseña de mi cuenta de correo es Tr0ub4dor", "Tr0ub4dor"},
		{"es", "el código de la puerta es 4711", "4711"},
		{"es", "El código del garaje es 4711.", "4711"},
		{"es", "el código de la alarma es 4711", "4711"},
		{"es", "el pin de mi tarjeta es 1234", "1234"},
		{"es", "mi pin es 1234", "1234"},
		{"es", "la combinación de la caja fuerte es 12-34-56", "12-34-56"},

		{"fr", "le mot de passe du wifi est hunter2", "hunter2"},
		{"fr", "retiens que le mot de passe du wifi est hunter2", "hunter2"},
		{"fr", "le code wifi est hunter2", "hunter2"},
		{"fr", "la clé wifi est hunter2", "hunter2"},
		{"fr", "le code de la porte est 4711", "4711"},
		{"fr", "Le code du garage est 4711.", "4711"},
		{"fr", "le code de l'alarme est 4711", "4711"},
		{"fr", "le code d'accès est 4711", "4711"},
		{"fr", "mon code PIN est 1234", "1234"},
		{"fr", "le mot de passe de mon compte Netflix est Tr0ub4dor", "Tr0ub4dor"},
		{"fr", "la combinaison du coffre-fort est 12-34-56", "12-34-56"},
	} {
		got, kinds := New().Redact(tt.in)
		if strings.Contains(got, tt.value) || !slices.Contains(kinds, Secret) || !strings.Contains(got, "[SECRET_1]") {
			t.Errorf("%s: Redact(%q) = %q %v, want %q hidden", tt.lang, tt.in, got, kinds, tt.value)
			continue
		}
		if again, k := New().Redact(got); again != got || len(k) > 0 {
			t.Errorf("%s: Redact(%q) = %q %v, want it unchanged", tt.lang, got, again, k)
		}
		r := New()
		shown, _ := r.Redact(tt.in)
		if back := r.Restore(shown); back != tt.in {
			t.Errorf("%s: Restore(%q) = %q, want %q", tt.lang, shown, back, tt.in)
		}
	}
}

// TestTalkAboutSecretsInEachLanguage: a sentence that names a secret but
// holds no value after its name, or names a code that is no secret (a
// postcode, an error's, a discount's), is left as it is.
func TestTalkAboutSecretsInEachLanguage(t *testing.T) {
	for _, s := range []string{
		"the password reset was annoying",
		"the password for the wifi is wrong",
		"the code of conduct is important",
		"the discount code for the shop is 1234",
		"I forgot the wifi password",

		"das Passwort ist falsch",
		"ich habe das WLAN-Passwort vergessen",
		"merk dir, dass das Passwort falsch ist",
		"das Passwort zurückzusetzen war nervig",
		"der Fehlercode ist 404",
		"der Rabattcode ist 2024",
		"die Postleitzahl ist 10115",
		"der Schlüssel ist unter der Matte",

		"la contraseña es incorrecta",
		"olvidé la contraseña del wifi",
		"el código postal es 28001",
		"el código de descuento es 1234",
		"la clave del éxito es la paciencia",
		"restablecer la contraseña fue molesto",

		"le mot de passe est faux",
		"j'ai oublié le mot de passe du wifi",
		"le code postal est 75001",
		"le code promo est 2024",
		"le code de réduction est 1234",
		"le code de la route est difficile",
		"la clé est sous le paillasson",
	} {
		if got, kinds := New().Redact(s); got != s {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", s, got, kinds)
		}
	}
}

// TestNamesSecret: a question names a secret in each language; one about
// something else, a postcode or a key of no network does not.
func TestNamesSecret(t *testing.T) {
	for s, want := range map[string]bool{
		"what is the wifi password": true, "wie ist der Türcode": true, "was weißt du über das WLAN-Passwort": true,
		"cuál es la contraseña del wifi": true, "qué sabes del código de la puerta": true,
		"quel est le mot de passe du wifi": true, "quelle est la clé wifi": true, "die PIN meiner Karte": true,
		"what is my bike's colour": false, "wie ist die Postleitzahl": false, "où est la clé": false,
		"qué sabes de mí": false, "passe-moi le sel": false,
	} {
		if got := NamesSecret(s); got != want {
			t.Errorf("NamesSecret(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestValueBeforeItsName: a secret said with its value first, then "is"
// and the secret's name ending the sentence ("hunter2 is the wifi
// password"), is hidden in each language when the value looks like one:
// it holds a digit, or is no plain word. Talk in which the name goes on
// into something else ("the password reset page"), a plain word or a
// pronoun before "is", a question, a code without a digit, are left as
// they are.
func TestValueBeforeItsName(t *testing.T) {
	for _, tt := range []struct{ in, value string }{
		{"hunter2 is the wifi password", "hunter2"},
		{"4711 is the door code", "4711"},
		{"remember that 4711 is the code for the garage.", "4711"},
		{"Tr0ub4dor is my email password", "Tr0ub4dor"},
		{"hunter2 ist das WLAN-Passwort", "hunter2"},
		{"merk dir, dass hunter2 das WLAN-Passwort ist", "hunter2"},
		{"merk dir, dass 4711 der Code der Haustür ist.", "4711"},
		{"merk dir: 4711 ist der Türcode", "4711"},
		{"hunter2 es la contraseña del wifi", "hunter2"},
		{"recuerda que 4711 es el código de la puerta", "4711"},
		{"hunter2 est le mot de passe du wifi", "hunter2"},
		{"4711 est le code de la porte.", "4711"},
	} {
		got, kinds := New().Redact(tt.in)
		if strings.Contains(got, tt.value) || !slices.Equal(kinds, []Kind{Secret}) || !strings.Contains(got, "[SECRET_1]") {
			t.Errorf("Redact(%q) = %q %v, want %q hidden", tt.in, got, kinds, tt.value)
			continue
		}
		if again, k := New().Redact(got); again != got || len(k) > 0 {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", got, again, k)
		}
		r := New()
		shown, _ := r.Redact(tt.in)
		if back := r.Restore(shown); back != tt.in {
			t.Errorf("Restore(%q) = %q, want %q", shown, back, tt.in)
		}
	}
	for _, s := range []string{
		"this is the password reset page",
		"that is the door code question",
		"what is the wifi password",
		"which is the door code?",
		"this is the wifi password",
		"hunter2 is not the wifi password",
		"hunter2 is the wifi password reset link",
		"ABCD is the door code",
		"das ist das WLAN-Passwort",
		"hunter2 ist nicht das WLAN-Passwort",
		"merk dir, dass das das WLAN-Passwort ist",
		"merk dir, dass hunter2 nicht das WLAN-Passwort ist",
		"cuál es la contraseña del wifi",
		"esto es la contraseña del wifi",
		"quel est le mot de passe du wifi",
		"c'est le mot de passe du wifi",
		"the card 2 is the code of conduct",
	} {
		if got, kinds := New().Redact(s); got != s {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", s, got, kinds)
		}
	}
}

// TestFunctionWordsAreNoValue: a function word after a secret's name and
// its verb ("und", "and", "y", "et", "so", "also") is a word of the
// sentence going on, never the secret; a value after the name is hidden
// still.
func TestFunctionWordsAreNoValue(t *testing.T) {
	for _, s := range []string{
		"merk dir, dass das WLAN-Passwort ist und so",
		"das WLAN-Passwort ist also kompliziert",
		"das Passwort ist halt lang",
		"the wifi password is so long",
		"the password is also on the router",
		"the wifi password is and was a pain",
		"la contraseña del wifi es y será complicada",
		"la contraseña es pues larga",
		"le mot de passe du wifi est donc compliqué",
		"le mot de passe est et restera long",
		"le mot de passe est aussi sur la box",
	} {
		if got, kinds := New().Redact(s); got != s {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", s, got, kinds)
		}
	}
	for _, tt := range []struct{ in, value string }{
		{"das WLAN-Passwort ist hunter2 und so", "hunter2"},
		{"the wifi password is hunter2 and so on", "hunter2"},
		{"la contraseña del wifi es hunter2 y ya", "hunter2"},
		{"le mot de passe du wifi est hunter2 et voilà", "hunter2"},
	} {
		if got, _ := New().Redact(tt.in); strings.Contains(got, tt.value) || !strings.Contains(got, "[SECRET_1]") {
			t.Errorf("Redact(%q) = %q, want %q hidden", tt.in, got, tt.value)
		}
	}
}

// TestPastTenseTalkAboutASecret: after a secret's name and a past verb
// ("was", "war", "era", "était") a word of lower-case letters alone
// describes the secret ("the password was annoying to type"); a value
// that looks like a secret (a digit, a mark, a capital), or is quoted,
// is hidden still, as one after "is" is whatever it looks like.
func TestPastTenseTalkAboutASecret(t *testing.T) {
	for _, s := range []string{
		"the wifi password was annoying to type",
		"the password was wrong",
		"the password was annoying",
		"the old wifi password was long.",
		"das WLAN-Passwort war nervig",
		"la contraseña del wifi era larga",
		"le mot de passe du wifi était compliqué",
	} {
		if got, kinds := New().Redact(s); got != s {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", s, got, kinds)
		}
	}
	for _, tt := range []struct{ in, value string }{
		{"the wifi password was hunter2", "hunter2"},
		{"my password was hunter2", "hunter2"},
		{"the wifi password was Tr0ub4dor", "Tr0ub4dor"},
		{"the wifi password was 'swordfish'", "swordfish"},
		{`the wifi password was "swordfish"`, "swordfish"},
		{"the wifi password was Swordfish", "Swordfish"},
		{"the wifi password was sword-fish", "sword-fish"},
		{"the wifi password is swordfish", "swordfish"},
		{"das WLAN-Passwort war Sonnenblume", "Sonnenblume"},
		{"la contraseña del wifi era girasol7", "girasol7"},
		{"le mot de passe du wifi était tournesol7", "tournesol7"},
	} {
		got, _ := New().Redact(tt.in)
		if strings.Contains(got, tt.value) || !strings.Contains(got, "[SECRET_1]") {
			t.Errorf("Redact(%q) = %q, want %q hidden", tt.in, got, tt.value)
			continue
		}
		if again, k := New().Redact(got); again != got || len(k) > 0 {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", got, again, k)
		}
	}
}

// TestPlainWordBeforeItsName: a plain word said before a secret's name is
// its value when the sentence, or the clause after "that", "dass", "que",
// is that word, "is" and the name alone ("swordfish is the wifi
// password"), in each language; a pronoun, a question word or a word
// that points at what follows there is no value, nor a plain word after
// a past verb.
func TestPlainWordBeforeItsName(t *testing.T) {
	for _, tt := range []struct{ in, value string }{
		{"swordfish is the wifi password", "swordfish"},
		{"Swordfish is the wifi password.", "Swordfish"},
		{"remember that swordfish is the wifi password", "swordfish"},
		{"swordfish is our wifi password", "swordfish"},
		{"swordfish ist das WLAN-Passwort", "swordfish"},
		{"merk dir, dass Schwertfisch das WLAN-Passwort ist", "Schwertfisch"},
		{"espadón es la contraseña del wifi", "espadón"},
		{"recuerda que espadón es la contraseña del wifi", "espadón"},
		{"espadon est le mot de passe du wifi", "espadon"},
	} {
		got, kinds := New().Redact(tt.in)
		if strings.Contains(got, tt.value) || !slices.Equal(kinds, []Kind{Secret}) {
			t.Errorf("Redact(%q) = %q %v, want %q hidden", tt.in, got, kinds, tt.value)
			continue
		}
		if again, k := New().Redact(got); again != got || len(k) > 0 {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", got, again, k)
		}
		r := New()
		if shown, _ := r.Redact(tt.in); r.Restore(shown) != tt.in {
			t.Errorf("Restore(%q) = %q, want %q", shown, r.Restore(shown), tt.in)
		}
	}
	for _, s := range []string{
		"this is the wifi password",
		"it is the wifi password",
		"here is the wifi password.",
		"Below is the wifi password.",
		"Next is the wifi password.",
		"mine is the wifi password",
		"which is the wifi password?",
		"what is the wifi password",
		"swordfish is the wifi password?",
		"swordfish was the wifi password",
		"swordfish is not the wifi password",
		"the swordfish is the wifi password",
		"swordfish is the door code",
		"das ist das WLAN-Passwort",
		"hier ist das WLAN-Passwort",
		"was ist das WLAN-Passwort",
		"merk dir, dass das das WLAN-Passwort ist",
		"esto es la contraseña del wifi",
		"esta es la contraseña del wifi",
		"aquí está la contraseña del wifi",
		"cuál es la contraseña del wifi",
		"ceci est le mot de passe du wifi",
		"voici le mot de passe du wifi",
		"quel est le mot de passe du wifi",
	} {
		if got, kinds := New().Redact(s); got != s {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", s, got, kinds)
		}
	}
}
