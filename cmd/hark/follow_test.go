package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// hark ask --continue takes up what the last hark ask left for a
// follow-up, with no model server: the timer it set ("make it 10
// minutes"), the question it asked ("For how long?"). Without --continue
// a question carries nothing.
func TestAskContinueFollowsUpOffline(t *testing.T) {
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"set a timer for 5 minutes"}, 0, "Timer set for 5 minutes.\n"},
		{[]string{"--continue", "make it 10 minutes"}, 0, "OK, the timer is now 10 minutes.\n"},
		{[]string{"set a timer"}, 0, "For how long?\n"},
		{[]string{"--continue", "5 minutes"}, 0, "Timer set for 5 minutes.\n"},
		{[]string{"make it 20 minutes"}, 1, "I didn't understand that, and I can't reach my language model right now.\n"},
		{[]string{"what is 3 plus 4"}, 0, "3 plus 4 is 7.\n"},
		{[]string{"--continue", "and times 3"}, 0, "7 times 3 is 21.\n"},
		// An operation said after a sum works on its result in each
		// language; "und minus 5" is no change of the number to -5.
		{[]string{"was ist 3 plus 4"}, 0, "3 plus 4 ist 7.\n"},
		{[]string{"--continue", "und mal 3"}, 0, "7 mal 3 ist 21.\n"},
		{[]string{"--continue", "und minus 5"}, 0, "21 minus 5 ist 16.\n"},
		{[]string{"combien font 3 plus 4"}, 0, "3 plus 4 égale 7.\n"},
		{[]string{"--continue", "et moins 5"}, 0, "7 moins 5 égale 2.\n"},
		// Another amount, or another unit, after a conversion.
		{[]string{"convert 5 miles to kilometers"}, 0, "5 miles is about 8.05 kilometers.\n"},
		{[]string{"--continue", "and 10 miles?"}, 0, "10 miles is about 16.1 kilometers.\n"},
		{[]string{"--continue", "and in meters?"}, 0, "10 miles is 16093.44 meters.\n"},
		{[]string{"wie viele Zentimeter sind 3 Zoll"}, 0, "3 Zoll sind 7,62 Zentimeter.\n"},
		{[]string{"--continue", "und 5 Zoll?"}, 0, "5 Zoll sind 12,7 Zentimeter.\n"},
		{[]string{"--continue", "und in Metern?"}, 0, "5 Zoll sind 0,127 Meter.\n"},
	} {
		code, out, errOut := ask(t, getenv, append([]string{"ask", "--data", dir}, c.args...)...)
		if code != c.code || out != c.want {
			t.Errorf("hark ask %q: code %d, stdout %q (stderr %q); want %d, %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
	code, out, _ := ask(t, getenv, "timers", "--data", dir)
	if code != 0 || strings.Count(out, "\ntimer ") != 2 || !strings.Contains(out, "  9m") && !strings.Contains(out, "  10m") {
		t.Errorf("hark timers: code %d\n%s\nwant two timers, the first changed", code, out)
	}
}

// fakeWeather serves Open-Meteo's search and forecast for any place, and
// is the path of a configuration that asks it.
func fakeWeather(t *testing.T) string {
	t.Helper()
	wx := http.NewServeMux()
	wx.HandleFunc("GET /v1/search", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"results": []any{map[string]any{"name": r.URL.Query().Get("name"), "latitude": 52.5, "longitude": 13.4, "country_code": "DE", "timezone": "UTC"}}})
	})
	wx.HandleFunc("GET /v1/forecast", func(w http.ResponseWriter, r *http.Request) {
		today := time.Now().UTC()
		days := []string{today.Format(time.DateOnly), today.AddDate(0, 0, 1).Format(time.DateOnly)}
		json.NewEncoder(w).Encode(map[string]any{"timezone": "UTC",
			"current": map[string]any{"time": today.Format("2006-01-02T15:04"), "temperature_2m": 7.4, "weather_code": 3},
			"daily":   map[string]any{"time": days, "weather_code": []int{3, 61}, "temperature_2m_max": []float64{9, 8}, "temperature_2m_min": []float64{3, 5}, "precipitation_probability_max": []int{10, 80}}})
	})
	srv := httptest.NewServer(wx)
	t.Cleanup(srv.Close)
	cfg := filepath.Join(t.TempDir(), "hark.toml")
	if err := os.WriteFile(cfg, []byte("[weather]\nforecast_url = \""+srv.URL+"/v1/forecast\"\ngeocode_url = \""+srv.URL+"/v1/search\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// A weather conversation goes on by hark ask --continue, with no model
// server, in the conversation's language: a follow-up whose words tell no
// language ("und in Paris?" after a German question, typed, the box's
// language left to "auto") is answered in German about Paris; the
// weather asked with no home set asks back for the city, and the city
// said alone or after its preposition answers it.
func TestAskContinueWeather(t *testing.T) {
	cfg := fakeWeather(t)
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	type turn struct{ said, want string } // want: the answer begins so
	for _, conversation := range [][]turn{
		{{"wie ist das Wetter in Berlin", "In Berlin sind es 7 Grad"}, {"und in Paris?", "In Paris sind es 7 Grad"}, {"und morgen?", "Morgen in Paris"}},
		{{"what's the weather", "For which city?"}, {"Paris", "In Paris it's 7 degrees"}},
		{{"what's the weather", "For which city?"}, {"in Paris", "In Paris it's 7 degrees"}},
		{{"wie ist das Wetter", "Für welche Stadt?"}, {"Paris", "In Paris sind es 7 Grad"}},
		{{"wie ist das Wetter", "Für welche Stadt?"}, {"in Berlin", "In Berlin sind es 7 Grad"}},
		{{"qué tiempo hace", "¿Para qué ciudad?"}, {"en París", "En París"}},
		{{"quel temps fait-il", "Pour quelle ville ?"}, {"Paris", "À Paris"}},
		{{"quel temps fait-il", "Pour quelle ville ?"}, {"Saint-Jean-de-Luz", "À Saint-Jean-de-Luz,"}},
		{{"qué tiempo hace", "¿Para qué ciudad?"}, {"San Sebastián de los Reyes", "En San Sebastián de los Reyes hace"}},
		{{"wie ist das Wetter", "Für welche Stadt?"}, {"frankfurt am main", "In Frankfurt am Main sind es"}},
	} {
		dir := t.TempDir()
		for i, c := range conversation {
			args := []string{"--config", cfg, "ask", "--data", dir, c.said}
			if i > 0 {
				args = slices.Insert(args, len(args)-1, "--continue")
			}
			code, out, errOut := ask(t, getenv, args...)
			if code != 0 || !strings.HasPrefix(out, c.want) {
				t.Errorf("hark ask %q (turn %d of %q): code %d, stdout %q (stderr %q); want it to begin %q", c.said, i+1, conversation[0].said, code, out, errOut, c.want)
				break
			}
		}
	}
}

// A number said alone answers "For how long?" of a timer in minutes, in
// each language; a length with its unit still counts in that unit.
func TestAskContinueTakesABareNumberAsMinutes(t *testing.T) {
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	for _, c := range []struct {
		ask, answer, want string
	}{
		{"set a timer", "ten", "Timer set for 10 minutes.\n"},
		{"set a timer", "10", "Timer set for 10 minutes.\n"},
		{"set a timer", "5 minutes", "Timer set for 5 minutes.\n"},
		{"set a timer", "30 seconds", "Timer set for 30 seconds.\n"},
		{"stell einen Timer", "zehn", "Timer für 10 Minuten gestellt.\n"},
		{"pon un temporizador", "diez", "Temporizador programado para 10 minutos.\n"},
		{"mets un minuteur", "dix", "Minuteur réglé sur 10 minutes.\n"},
	} {
		dir := t.TempDir()
		code, asked, errOut := ask(t, getenv, "ask", "--data", dir, c.ask)
		if code != 0 {
			t.Errorf("hark ask %q: code %d, stdout %q (stderr %q)", c.ask, code, asked, errOut)
			continue
		}
		code, out, errOut := ask(t, getenv, "ask", "--data", dir, "--continue", c.answer)
		if code != 0 || out != c.want {
			t.Errorf("hark ask --continue %q after %q (asked %q): code %d, stdout %q (stderr %q); want %q", c.answer, c.ask, asked, code, out, errOut, c.want)
		}
	}
}
