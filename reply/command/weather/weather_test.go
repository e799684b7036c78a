package weather

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// openMeteo answers like Open-Meteo's forecast and geocoding APIs and
// records the queries.
type openMeteo struct {
	*httptest.Server
	mu      sync.Mutex
	queries []url.Values
}

func newOpenMeteo(t *testing.T) *openMeteo {
	o := &openMeteo{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/search", func(w http.ResponseWriter, r *http.Request) {
		o.record(r)
		if r.URL.Query().Get("name") == "Atlantis" {
			w.Write([]byte(`{"generationtime_ms":0.4}`))
			return
		}
		w.Write([]byte(`{"results":[{"id":2988507,"name":"Paris","latitude":48.85341,"longitude":2.3488,"elevation":42.0,"country_code":"FR","timezone":"Europe/Paris","country":"France","admin1":"Île-de-France"}],"generationtime_ms":0.9}`))
	})
	mux.HandleFunc("GET /v1/forecast", func(w http.ResponseWriter, r *http.Request) {
		o.record(r)
		q := r.URL.Query()
		if q.Get("latitude") == "" || q.Get("current") == "" || q.Get("daily") == "" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":true,"reason":"Parameter latitude is missing"}`))
			return
		}
		days := []string{"2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"}
		json.NewEncoder(w).Encode(map[string]any{
			"latitude": 48.86, "longitude": 2.34, "timezone": "Europe/Paris",
			"current_units": map[string]string{"temperature_2m": "°C"},
			"current":       map[string]any{"time": "2026-11-22T10:15", "interval": 900, "temperature_2m": 7.4, "relative_humidity_2m": 81, "weather_code": 3, "wind_speed_10m": 12.2},
			"daily_units":   map[string]string{"temperature_2m_max": "°C"},
			"daily": map[string]any{
				"time": days, "weather_code": []int{3, 61, 0, 1, 2, 45, 95},
				"temperature_2m_max": []float64{9.2, 8.1, 11, 12, 10, 9, 8}, "temperature_2m_min": []float64{3.4, 4.9, 2, 3, 4, 5, -1.6},
				"precipitation_probability_max": []any{10, 80, 0, nil, 5, 30, 90},
			},
		})
	})
	o.Server = httptest.NewServer(mux)
	t.Cleanup(o.Close)
	return o
}

func (o *openMeteo) record(r *http.Request) {
	o.mu.Lock()
	o.queries = append(o.queries, r.URL.Query())
	o.mu.Unlock()
}

type home struct {
	p   *Place
	set *Place
}

func (h *home) Home(context.Context) (Place, bool, error) {
	if h.p == nil {
		return Place{}, false, nil
	}
	return *h.p, true, nil
}
func (h *home) SetHome(_ context.Context, p Place) error { h.set = &p; return nil }

var paris = time.Date(2026, 11, 22, 10, 15, 0, 0, time.FixedZone("CET", 3600))

func registry(t *testing.T, c *Client, h Home) *command.Registry {
	r := command.NewRegistry(command.Options{Now: func() time.Time { return paris }, Location: paris.Location()})
	if err := r.Register(Command(c, h)); err != nil {
		t.Fatal(err)
	}
	return r
}

func ask(t *testing.T, r *command.Registry, text string) command.Response {
	t.Helper()
	u := r.Understand(t.Context(), locale.English, text)
	if !u.OK {
		t.Fatalf("%q not claimed: %s %s", text, u.Reason, u.Detail)
	}
	return r.RunRoute(t.Context(), u.Route, text)
}

func TestWeatherAnswers(t *testing.T) {
	om := newOpenMeteo(t)
	c := New(Options{ForecastURL: om.URL + "/v1/forecast", GeocodeURL: om.URL + "/v1/search"})
	r := registry(t, c, &home{p: &Place{Name: "Lyon", Latitude: 45.75, Longitude: 4.85}})
	tests := []struct{ say, want string }{
		{"what's the weather", "In Lyon it's 7 degrees and overcast. Today's high is 9 and the low 3."},
		{"will it rain tomorrow in Paris", "Tomorrow in Paris: light rain, a high of 8 degrees and a low of 5, with an 80 percent chance of rain."},
		{"what's the forecast for saturday", "On Saturday in Lyon: thunderstorms, a high of 8 degrees and a low of -2, with a 90 percent chance of rain."},
		{"weather in Atlantis", "I couldn't find a place called Atlantis."},
	}
	for _, tt := range tests {
		if got := ask(t, r, tt.say).Spoken; got != tt.want {
			t.Errorf("%q: %q, want %q", tt.say, got, tt.want)
		}
	}
	q := om.queries[0]
	if q.Get("latitude") != "45.7500" || q.Get("timezone") != "auto" || !strings.Contains(q.Get("daily"), "precipitation_probability_max") {
		t.Errorf("forecast query %v", q)
	}
}

// TestWeatherTemplatesLeaveOtherQuestions: the weather is asked only in
// the templates' words; a place is said as written, each word capitalized,
// an accented first letter too.
func TestWeatherTemplatesLeaveOtherQuestions(t *testing.T) {
	r := registry(t, nil, &home{})
	for _, q := range []string{"weather or not we go", "forecast the stock market", "what is the temperature in the living room", "how warm is it in here"} {
		if u := r.Understand(t.Context(), locale.English, q); u.OK {
			t.Errorf("%q was claimed: %v", q, u.Route.Claim.Arguments)
		}
	}
	for _, tt := range []struct{ say, place, day string }{
		{"what is the weather like in new york tomorrow", "New York", "tomorrow"},
		{"weather in ávila", "Ávila", ""},
		{"will it rain on friday in paris", "Paris", "friday"},
	} {
		u := r.Understand(t.Context(), locale.English, tt.say)
		if !u.OK || u.Route.Claim.Arguments["location"] != tt.place || tt.day != "" && u.Route.Claim.Arguments["day"] != tt.day {
			t.Errorf("%q: %v %+v, want %s %s", tt.say, u.OK, u.Route.Claim, tt.place, tt.day)
		}
	}
}

func TestWeatherWithoutHomeAsksWhere(t *testing.T) {
	om := newOpenMeteo(t)
	r := registry(t, New(Options{ForecastURL: om.URL + "/v1/forecast", GeocodeURL: om.URL + "/v1/search"}), &home{})
	if resp := ask(t, r, "what's the weather"); resp.Kind != command.FollowUp || !strings.Contains(resp.Spoken, "For which city?") {
		t.Fatalf("resp %+v, want the question", resp)
	}
	// The city said next answers it.
	if resp := ask(t, r, "Paris"); resp.Kind != command.Success || !strings.HasPrefix(resp.Spoken, "In Paris it's") {
		t.Errorf("Paris after the question: %+v", resp)
	}
	// The model's call is told what is missing, and asks itself.
	if resp := r.Call(t.Context(), "get_weather", map[string]any{}, "what's the weather"); resp.Kind != command.Invalid || !strings.Contains(resp.Spoken, "For which city?") {
		t.Errorf("the model's call: %+v", resp)
	}
}

func TestWeatherOfflineIsAClearError(t *testing.T) {
	dead := httptest.NewServer(nil)
	dead.Close()
	r := registry(t, New(Options{ForecastURL: dead.URL, GeocodeURL: dead.URL}), &home{p: &Place{Name: "Lyon"}})
	if resp := ask(t, r, "what's the weather"); resp.Kind != command.Failure || resp.Spoken != "I can't reach the weather service right now." {
		t.Errorf("resp %+v", resp)
	}
}

func TestWeatherMalformedAnswer(t *testing.T) {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"daily":{"time":["x"]}}`)) }))
	defer bad.Close()
	_, err := New(Options{ForecastURL: bad.URL}).Forecast(t.Context(), Place{})
	if err == nil || !strings.Contains(err.Error(), "malformed") || strings.Count(err.Error(), "weather:") != 1 {
		t.Errorf("err = %v, want one weather: prefix and the word malformed", err)
	}
}

type setupIO struct {
	answers []string
	said    []string
}

func (s *setupIO) Ask(q string) (string, error) {
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}
func (s *setupIO) Say(line string) { s.said = append(s.said, line) }

func TestSetupStoresHome(t *testing.T) {
	om := newOpenMeteo(t)
	h := &home{}
	cmd := Command(New(Options{ForecastURL: om.URL + "/v1/forecast", GeocodeURL: om.URL + "/v1/search"}), h)
	io := &setupIO{answers: []string{"Paris"}}
	if err := cmd.Setup(t.Context(), io); err != nil {
		t.Fatal(err)
	}
	if h.set == nil || h.set.Name != "Paris" || !strings.Contains(io.said[0], "Home set to Paris, France") {
		t.Errorf("home %+v, said %v", h.set, io.said)
	}
}
