package locale

import "testing"

// TestMainClause: a German clause told after "dass" is put in the order of
// a main clause when its first part and verb are plain, and left as said
// otherwise.
func TestMainClause(t *testing.T) {
	for _, tt := range []struct {
		l                  Lang
		said, clause, want string
	}{
		{German, "merk dir, dass der Schlüssel unter der Matte liegt", "der Schlüssel unter der Matte liegt", "der Schlüssel liegt unter der Matte"},
		{German, "merk dir dass die neue Nachbarin in Köln wohnt", "die neue Nachbarin in Köln wohnt", "die neue Nachbarin wohnt in Köln"},
		{German, "merk dir, dass Tante Erna im Mai Geburtstag hat.", "Tante Erna im Mai Geburtstag hat.", "Tante Erna hat im Mai Geburtstag."},
		{German, "merk dir, dass ich Erdnüsse nicht vertrage", "ich Erdnüsse nicht vertrage", "ich vertrage Erdnüsse nicht"},
		// a capital word with digits after the noun is no name: a password
		{German, "merk dir, dass unser WLAN-Passwort Tr0ub4dor3x ist", "unser WLAN-Passwort Tr0ub4dor3x ist", "unser WLAN-Passwort ist Tr0ub4dor3x"},
		{German, "vergiss nicht, dass das Paket abgeholt werden muss", "das Paket abgeholt werden muss", "das Paket muss abgeholt werden"},
		// as said: a main clause, a separable verb, a first part not plain,
		// a name that may be the first part's or the verb's, another
		// language
		{German, "merk dir dass die Nachbarin Julia heißt", "die Nachbarin Julia heißt", "die Nachbarin Julia heißt"},
		{German, "merk dir: der Schlüssel liegt unter der Matte", "der Schlüssel liegt unter der Matte", "der Schlüssel liegt unter der Matte"},
		{German, "merk dir, dass der Bus um acht abfährt", "der Bus um acht abfährt", "der Bus um acht abfährt"},
		{German, "merk dir, dass morgen der Klempner kommt", "morgen der Klempner kommt", "morgen der Klempner kommt"},
		{German, "merk dir, dass der Schlüssel liegt", "der Schlüssel liegt", "der Schlüssel liegt"},
		// the first part's own attribute after it ("von meinem Auto", a
		// genitive) could be the verb's too: as said; and a last word that
		// is no verb
		{German, "merk dir, dass die Schlüssel von meinem Auto in der Schublade liegen", "die Schlüssel von meinem Auto in der Schublade liegen", "die Schlüssel von meinem Auto in der Schublade liegen"},
		{German, "merk dir, dass die Tür der Garage offen bleibt", "die Tür der Garage offen bleibt", "die Tür der Garage offen bleibt"},
		{German, "merk dir, dass das WLAN-Passwort ist und so", "das WLAN-Passwort ist und so", "das WLAN-Passwort ist und so"},
		{German, "merk dir, dass der Termin am Montag ist oder so", "der Termin am Montag ist oder so", "der Termin am Montag ist oder so"},
		{French, "retiens que la clé est sous le paillasson", "la clé est sous le paillasson", "la clé est sous le paillasson"},
	} {
		if got := tt.l.MainClause(tt.said, tt.clause); got != tt.want {
			t.Errorf("%s %q: got %q, want %q", tt.l, tt.said, got, tt.want)
		}
	}
}
