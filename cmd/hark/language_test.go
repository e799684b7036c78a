package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// The contract: with no model server, the offline core answers in German,
// French and Spanish.
func TestAskOfflineInThreeLanguages(t *testing.T) {
	getenv := vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": t.TempDir()})
	dir := t.TempDir()
	for _, c := range []struct {
		say  string
		want *regexp.Regexp
	}{
		{"stell einen Timer für 5 Minuten", regexp.MustCompile(`^Timer für 5 Minuten gestellt\.\n$`)},
		{"quelle heure est-il", regexp.MustCompile(`^Il est (\d+ heures?( \d+)?|midi|minuit)\.\n$`)},
		{"cuánto es doce por cuatro", regexp.MustCompile(`^12 por 4 (son|es) 48\.\n$`)},
	} {
		code, out, errOut := ask(t, getenv, "ask", "--data", dir, c.say)
		if code != 0 || !c.want.MatchString(out) {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want %v", c.say, code, out, errOut, c.want)
		}
	}
	// The German timer is set, five minutes long, and will ring in German.
	code, out, errOut := ask(t, getenv, "ask", "--json", "--data", dir, "wie lange läuft der Timer noch")
	var res struct {
		Reply string `json:"reply"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Offline bool `json:"offline"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || !res.Offline || len(res.Tools) != 1 || res.Tools[0].Name != "check_timers" ||
		!strings.HasPrefix(res.Reply, "Dein Timer") {
		t.Errorf("check in German: code %d, %+v, err %v, stderr %q", code, res, err, errOut)
	}
}

// The contract: with no model server, sums, conversions, greetings and
// the volume's bounds are answered in the language said, as a person
// says them.
func TestAskOfflineSumsAndSmallTalk(t *testing.T) {
	getenv := vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": t.TempDir()})
	dir := t.TempDir()
	for _, c := range []struct{ say, want string }{
		{"how many grams in a pound", "1 pound is about 454 grams.\n"},
		{"wie viele Gramm sind ein Pfund", "1 Pfund sind ungefähr 454 Gramm.\n"},
		{"cuántos gramos hay en una libra", "1 libra son aproximadamente 454 gramos.\n"},
		{"combien de grammes dans une livre", "1 livre, ça fait environ 454 grammes.\n"},
		{"what is the square root of 16", "The square root of 16 is 4.\n"},
		{"was ist die Wurzel aus 16", "Die Wurzel aus 16 ist 4.\n"},
		{"cuánto es el 15 por ciento de 80", "El 15 por ciento de 80 es 12.\n"},
		{"racine carrée de 16", "La racine carrée de 16, c'est 4.\n"},
		{"hello", "Hello! What can I do for you?\n"},
		{"wer bist du", "Ich bin Jarvis, der Sprachassistent in diesem Lautsprecher.\n"},
		{"quién eres", "Soy Jarvis, el asistente de voz de este altavoz.\n"},
		{"bonjour", "Bonjour ! Que puis-je faire pour toi ?\n"},
		{"volume 120", "Volume goes from 0 to 100.\n"},
	} {
		code, out, errOut := ask(t, getenv, "ask", "--data", dir, c.say)
		if out != c.want {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want %q", c.say, code, out, errOut, c.want)
		}
	}
}
