// Package weather is the get_weather command: current conditions and the
// forecast from Open-Meteo (https://open-meteo.com), which needs no account,
// with places found through Open-Meteo's geocoding API. Both base URLs are
// options, so tests and a local mirror can stand in.
package weather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
)

// Default API locations.
const (
	ForecastURL = "https://api.open-meteo.com/v1/forecast"
	GeocodeURL  = "https://geocoding-api.open-meteo.com/v1/search"
)

// Options configure a Client.
type Options struct {
	ForecastURL, GeocodeURL string
	// Units is "metric" (°C, km/h; the default) or "imperial" (°F, mph).
	Units string
	// Language for place names; default the turn's language
	// (locale.LanguageOf), else "en".
	Language   string
	HTTPClient *http.Client
	// Timeout bounds each request; default 8 s.
	Timeout time.Duration
}

// Client asks Open-Meteo.
type Client struct{ o Options }

// New returns a Client.
func New(o Options) *Client {
	if o.ForecastURL == "" {
		o.ForecastURL = ForecastURL
	}
	if o.GeocodeURL == "" {
		o.GeocodeURL = GeocodeURL
	}
	if o.Units == "" {
		o.Units = "metric"
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Timeout == 0 {
		o.Timeout = 8 * time.Second
	}
	return &Client{o: o}
}

// Place is a located place.
type Place struct {
	Name    string `json:"name"`
	Admin1  string `json:"admin1,omitempty"`
	Country string `json:"country,omitempty"`
	// CountryCode is the ISO 3166-1 code of the country the place is in.
	CountryCode string `json:"country_code,omitempty"`
	// FeatureCode is the GeoNames kind of place: "PPL…" a town, "PCL…"
	// a country.
	FeatureCode string  `json:"feature_code,omitempty"`
	Latitude    float64 `json:"latitude"`
	Longitude   float64 `json:"longitude"`
	TimeZone    string  `json:"timezone,omitempty"`
}

// IsCountry reports whether the place is a country itself.
func (p Place) IsCountry() bool { return strings.HasPrefix(p.FeatureCode, "PCL") }

// in says the place after its preposition in l: "in Paris", "en Espagne".
func (p Place) in(l locale.Lang) string {
	country := ""
	if p.IsCountry() {
		country = p.CountryCode
	}
	return l.In(p.Name, country)
}

// ErrNoPlace reports a place name the geocoder does not know.
var ErrNoPlace = errors.New("weather: no such place")

// ErrUnavailable reports that the weather service could not be reached or
// failed.
var ErrUnavailable = errors.New("weather: weather service unavailable")

func (c *Client) get(ctx context.Context, base string, q url.Values, v any) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Reason string `json:"reason"`
		}
		json.Unmarshal(body, &e)
		return fmt.Errorf("%w: HTTP %d %s", ErrUnavailable, resp.StatusCode, e.Reason)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: malformed answer: %w", ErrUnavailable, err)
	}
	return nil
}

// Geocode finds the place best matching name. A name the geocoder knows
// no place of that begins with an article ("der Schweiz", "the United
// States", said after "in") is looked up again without it; "Los
// Angeles" is found as said.
func (c *Client) Geocode(ctx context.Context, name string) (Place, error) {
	p, err := c.geocode(ctx, name)
	if first, rest, ok := strings.Cut(strings.TrimSpace(name), " "); ok && errors.Is(err, ErrNoPlace) && articles[strings.ToLower(first)] {
		if q, err2 := c.geocode(ctx, rest); err2 == nil {
			return q, nil
		}
	}
	return p, err
}

// articles are the definite articles a place may be said with in the
// languages Hark speaks.
var articles = map[string]bool{"the": true, "der": true, "die": true, "das": true, "den": true, "dem": true,
	"le": true, "la": true, "les": true, "el": true, "los": true, "las": true}

func (c *Client) geocode(ctx context.Context, name string) (Place, error) {
	var r struct {
		Results []Place `json:"results"`
	}
	lang := c.o.Language
	if lang == "" {
		lang = locale.LanguageOf(ctx)
	}
	if lang == "" {
		lang = "en"
	}
	q := url.Values{"name": {name}, "count": {"1"}, "language": {lang}, "format": {"json"}}
	if err := c.get(ctx, c.o.GeocodeURL, q, &r); err != nil {
		return Place{}, err
	}
	if len(r.Results) == 0 {
		return Place{}, fmt.Errorf("weather: %q: %w", name, ErrNoPlace)
	}
	return r.Results[0], nil
}

// Day is one day of the forecast.
type Day struct {
	Date       time.Time
	Code       int
	Max, Min   float64
	RainChance int // percent
}

// Forecast is the weather at a place.
type Forecast struct {
	Place                     Place
	Temperature, Wind         float64
	Humidity, Code            int
	Days                      []Day
	TemperatureUnit, WindUnit string
}

// Forecast asks for the current conditions and the next seven days.
func (c *Client) Forecast(ctx context.Context, p Place) (Forecast, error) {
	q := url.Values{
		"latitude":      {strconv.FormatFloat(p.Latitude, 'f', 4, 64)},
		"longitude":     {strconv.FormatFloat(p.Longitude, 'f', 4, 64)},
		"current":       {"temperature_2m,relative_humidity_2m,weather_code,wind_speed_10m"},
		"daily":         {"weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max"},
		"timezone":      {"auto"},
		"forecast_days": {"7"},
	}
	f := Forecast{Place: p, TemperatureUnit: locale.Key("degrees"), WindUnit: "kilometers per hour"}
	if c.o.Units == "imperial" {
		q.Set("temperature_unit", "fahrenheit")
		q.Set("wind_speed_unit", "mph")
		f.WindUnit = "miles per hour"
	}
	var r struct {
		Current struct {
			Temperature float64 `json:"temperature_2m"`
			Humidity    int     `json:"relative_humidity_2m"`
			Code        int     `json:"weather_code"`
			Wind        float64 `json:"wind_speed_10m"`
		} `json:"current"`
		Daily struct {
			Time       []string   `json:"time"`
			Code       []int      `json:"weather_code"`
			Max        []float64  `json:"temperature_2m_max"`
			Min        []float64  `json:"temperature_2m_min"`
			RainChance []*float64 `json:"precipitation_probability_max"`
		} `json:"daily"`
	}
	if err := c.get(ctx, c.o.ForecastURL, q, &r); err != nil {
		return Forecast{}, err
	}
	f.Temperature, f.Humidity, f.Code, f.Wind = r.Current.Temperature, r.Current.Humidity, r.Current.Code, r.Current.Wind
	d := r.Daily
	if len(d.Code) != len(d.Time) || len(d.Max) != len(d.Time) || len(d.Min) != len(d.Time) {
		return Forecast{}, fmt.Errorf("%w: malformed daily forecast", ErrUnavailable)
	}
	for i, day := range d.Time {
		t, err := time.Parse("2006-01-02", day)
		if err != nil {
			return Forecast{}, fmt.Errorf("%w: malformed date %q", ErrUnavailable, day)
		}
		rain := 0
		if i < len(d.RainChance) && d.RainChance[i] != nil {
			rain = int(*d.RainChance[i])
		}
		f.Days = append(f.Days, Day{Date: t, Code: d.Code[i], Max: d.Max[i], Min: d.Min[i], RainChance: rain})
	}
	return f, nil
}

// Describe names a WMO weather code the way a person says it.
func Describe(code int) string {
	switch code {
	case 0:
		return locale.Key("clear")
	case 1:
		return locale.Key("mostly clear")
	case 2:
		return locale.Key("partly cloudy")
	case 3:
		return locale.Key("overcast")
	case 45, 48:
		return locale.Key("foggy")
	case 51, 53, 55:
		return locale.Key("drizzly")
	case 56, 57:
		return locale.Key("freezing drizzle")
	case 61:
		return locale.Key("light rain")
	case 63:
		return locale.Key("rainy")
	case 65:
		return locale.Key("heavy rain")
	case 66, 67:
		return locale.Key("freezing rain")
	case 71:
		return locale.Key("light snow")
	case 73, 75, 77:
		return locale.Key("snowy")
	case 80, 81:
		return locale.Key("rain showers")
	case 82:
		return locale.Key("violent rain showers")
	case 85, 86:
		return locale.Key("snow showers")
	case 95:
		return locale.Key("thunderstorms")
	case 96, 99:
		return locale.Key("thunderstorms with hail")
	}
	return locale.Key("unsettled")
}

func round(v float64) string { return strconv.Itoa(int(v + 0.5*sign(v))) }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}
