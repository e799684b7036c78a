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
