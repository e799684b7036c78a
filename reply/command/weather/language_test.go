package weather

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
)

// TestLanguagesAskTheWeather: the weather asked in German, French and
// Spanish reaches get_weather as in English.
func TestLanguagesAskTheWeather(t *testing.T) {
	r := registry(t, nil, &home{})
	for _, c := range []struct {
		l         locale.Lang
		say, args string
	}{
		{locale.German, "Wie wird das Wetter morgen in Berlin?", "map[day:tomorrow location:Berlin]"},
		{locale.German, "wie ist das Wetter", "map[]"},
		{locale.German, "regnet es am Freitag", "map[day:friday]"},
		{locale.French, "quel temps fait-il à Lyon", "map[location:Lyon]"},
		{locale.French, "la météo de demain", "map[day:tomorrow]"},
		{locale.German, "erzähl mir was über das Wetter", ""},
		{locale.French, "quel temps fera-t-il demain", "map[day:tomorrow]"},
		{locale.Spanish, "qué tiempo hace en Madrid", "map[location:Madrid]"},
		// A country after the preposition French gives it.
		{locale.French, "quel temps fait-il en Espagne", "map[location:Espagne]"},
		{locale.French, "quel temps fait-il au Canada", "map[location:Canada]"},
		{locale.French, "la météo aux États-Unis", "map[location:États-Unis]"},
		{locale.French, "quelle est la météo au Portugal demain", "map[day:tomorrow location:Portugal]"},
		{locale.French, "météo de demain à Nice", "map[day:tomorrow location:Nice]"},
		{locale.English, "do I need an umbrella tomorrow in Dublin", "map[day:tomorrow location:Dublin]"},
		{locale.English, "what will the weather be on monday in Rome", "map[day:monday location:Rome]"},
		{locale.German, "Wettervorhersage für Dresden", "map[location:Dresden]"},
		{locale.German, "wird es am Samstag in Köln schneien", "map[day:saturday location:Köln]"},
		{locale.Spanish, "cuál es el pronóstico para el lunes en Valencia", "map[day:monday location:Valencia]"},
		{locale.Spanish, "va a llover mañana", "map[day:tomorrow]"},
	} {
		u := r.Understand(t.Context(), c.l, c.say)
		got := ""
		if u.OK {
			got = fmt.Sprint(u.Route.Claim.Arguments)
		}
		if got != c.args {
			t.Errorf("%s %q: %q (%s %s), want %q", c.l, c.say, got, u.Reason, u.Detail, c.args)
		}
	}
}

// TestAnswerInTheLanguage: the forecast is said in the language asked in,
// while the model's data stays the same.
func TestAnswerInTheLanguage(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	f := Forecast{Place: Place{Name: "Berlin"}, Temperature: 7.4, Code: 3, TemperatureUnit: "degrees", Days: []Day{
		{Date: now, Code: 3, Max: 9, Min: 2, RainChance: 10},
		{Date: now.AddDate(0, 0, 1), Code: 61, Max: 8.6, Min: 1.2, RainChance: 60},
	}}
	for l, want := range map[locale.Lang]string{
		locale.English: "Tomorrow in Berlin: light rain, a high of 9 degrees and a low of 1, with a 60 percent chance of rain.",
		locale.German:  "Morgen in Berlin: leichter Regen, höchstens 9 Grad und mindestens 1, mit 60 Prozent Regenwahrscheinlichkeit.",
		locale.French:  "Demain à Berlin : pluie légère, maximum 9 degrés et minimum 1, avec 60 pour cent de risque de pluie.",
		locale.Spanish: "Mañana en Berlin: lluvia ligera, máxima de 9 grados y mínima de 1, con un 60 por ciento de probabilidad de lluvia.",
	} {
		resp, err := answer(l, f, "tomorrow", now)
		if err != nil || resp.Spoken != want || resp.Data["conditions"] != "light rain" {
			t.Errorf("%s: %q (data %v), want %q", l, resp.Spoken, resp.Data["conditions"], want)
		}
	}
	if resp, _ := answer(locale.German, f, "", now); resp.Spoken != "In Berlin sind es 7 Grad, bedeckt. Heute höchstens 9 und mindestens 2." {
		t.Errorf("German today: %q", resp.Spoken)
	}
}

// TestAnswerSaysTheCountrysPreposition: a country asked about is said
// after the preposition its name takes in each language, named as the
// geocoder names it in that language.
func TestAnswerSaysTheCountrysPreposition(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	days := []Day{{Date: now, Code: 0, Max: 20, Min: 10}, {Date: now.AddDate(0, 0, 1), Code: 0, Max: 20, Min: 10}}
	for _, c := range []struct {
		l          locale.Lang
		place      Place
		day, begin string
	}{
		{locale.French, Place{Name: "Espagne", CountryCode: "ES", FeatureCode: "PCLI"}, "", "En Espagne, il fait"},
		{locale.French, Place{Name: "Portugal", CountryCode: "PT", FeatureCode: "PCLI"}, "tomorrow", "Demain au Portugal :"},
		{locale.French, Place{Name: "États-Unis", CountryCode: "US", FeatureCode: "PCLI"}, "", "Aux États-Unis, il fait"},
		{locale.French, Place{Name: "Madrid", CountryCode: "ES", FeatureCode: "PPLC"}, "", "À Madrid, il fait"},
		{locale.German, Place{Name: "Schweiz", CountryCode: "CH", FeatureCode: "PCLI"}, "", "In der Schweiz sind es"},
		{locale.German, Place{Name: "Vereinigte Staaten", CountryCode: "US", FeatureCode: "PCLI"}, "tomorrow", "Morgen in den Vereinigten Staaten:"},
		{locale.Spanish, Place{Name: "Francia", CountryCode: "FR", FeatureCode: "PCLI"}, "", "En Francia hace"},
		{locale.English, Place{Name: "United States", CountryCode: "US", FeatureCode: "PCLI"}, "", "In the United States it's"},
	} {
		f := Forecast{Place: c.place, Temperature: 15, TemperatureUnit: "degrees", Days: days}
		resp, err := answer(c.l, f, c.day, now)
		if err != nil || !strings.HasPrefix(resp.Spoken, c.begin) {
			t.Errorf("%s %s %q: %q, want it to begin %q", c.l, c.place.Name, c.day, resp.Spoken, c.begin)
		}
	}
}

// TestGeocodeInTheTurnsLanguage: the place is looked up in the language
// of the turn, so that it is named back in that language.
func TestGeocodeInTheTurnsLanguage(t *testing.T) {
	om := newOpenMeteo(t)
	c := New(Options{ForecastURL: om.URL + "/v1/forecast", GeocodeURL: om.URL + "/v1/search"})
	if _, err := c.Geocode(locale.WithLanguage(t.Context(), "fr"), "Espagne"); err != nil {
		t.Fatal(err)
	}
	if got := om.queries[0].Get("language"); got != "fr" {
		t.Errorf("geocoding language %q, want fr", got)
	}
}

// TestGeocodeWithoutTheArticle: a country said with its article ("in der
// Schweiz", "in the United States") is found without it when the
// geocoder knows no place of the words as said; a place whose name holds
// its article ("Los Angeles") is found as said.
func TestGeocodeWithoutTheArticle(t *testing.T) {
	known := map[string]string{"Schweiz": "CH", "United States": "US", "Los Angeles": "US"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.URL.Query().Get("name")
		if code, ok := known[name]; ok {
			json.NewEncoder(w).Encode(map[string]any{"results": []any{map[string]any{"name": name, "country_code": code}}})
			return
		}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c := New(Options{GeocodeURL: srv.URL})
	for said, want := range map[string]string{"Der Schweiz": "Schweiz", "The United States": "United States", "Los Angeles": "Los Angeles"} {
		if p, err := c.Geocode(t.Context(), said); err != nil || p.Name != want {
			t.Errorf("Geocode(%q) = %q, %v; want %q", said, p.Name, err, want)
		}
	}
	if _, err := c.Geocode(t.Context(), "The Atlantis"); !errors.Is(err, ErrNoPlace) {
		t.Errorf("Geocode(The Atlantis): %v, want ErrNoPlace", err)
	}
}
