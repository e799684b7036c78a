package weather

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// Home is where the user lives, when known: from the configuration or set
// up with `hark commands setup get_weather`.
type Home interface {
	Home(ctx context.Context) (Place, bool, error)
	SetHome(ctx context.Context, p Place) error
}

// askCity is asked when no place is said and no home is set; the city
// said next answers it.
var askCity = locale.Key("For which city? You can also set your home with: hark commands setup get_weather.")

// Command is get_weather.
func Command(c *Client, home Home) *command.Command {
	return &command.Command{
		Name:        "get_weather",
		Description: "Current weather or the forecast for up to a week, at home or a named place.",
		Keywords:    []string{"weather", "rain", "temperature", "forecast", "cold", "hot"},
		Parameters: []command.Parameter{
			{Name: "location", Type: "string", Description: "city; omit for home", Follow: command.Place, Ask: askCity},
			{Name: "day", Type: "string", Default: "today", Refinable: true, Follow: command.Day, Description: "today, tomorrow, a weekday or YYYY-MM-DD"},
		},
		Examples: []command.Example{{Utterance: "will it rain tomorrow in Paris", Arguments: map[string]any{"location": "Paris", "day": "tomorrow"}}},
		// Home Assistant's "what's the weather" with no weather entity
		// named is the forecast; Hark's own templates add the place and
		// the day (get_weather's slots).
		Intents: []string{"HassGetWeather", "get_weather"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if m.Has("name") {
				return command.Claim{}, command.ErrNotMine // a weather entity of the house
			}
			args := map[string]any{}
			if p := strings.TrimSpace(m.String("location")); p != "" {
				args["location"] = command.Titled(p)
			}
			if d := m.String("day"); d != "" {
				args["day"] = d
			}
			return command.Claim{Arguments: args}, nil
		},
		Run: func(ctx context.Context, call command.Call) (command.Response, error) {
			var p Place
			if loc := call.Args.String("location"); loc != "" {
				var err error
				if p, err = c.Geocode(ctx, loc); err != nil {
					return failure(ctx, err, loc), nil
				}
			} else {
				var ok bool
				var err error
				if p, ok, err = home.Home(ctx); err != nil {
					return failure(ctx, err, ""), nil
				} else if !ok {
					return command.Response{Kind: command.Invalid, Spoken: locale.Speaking(ctx).T(askCity),
						Problems: []command.Problem{{Param: "location", Message: "no location said and no home set"}}}, nil
				}
			}
			f, err := c.Forecast(ctx, p)
			if err != nil {
				return failure(ctx, err, ""), nil
			}
			return answer(locale.Speaking(ctx), f, call.Args.String("day"), call.Now)
		},
		Setup: func(ctx context.Context, io command.SetupIO) error {
			name, err := io.Ask("Which city or town is this speaker in?")
			if err != nil {
				return err
			}
			p, err := c.Geocode(ctx, strings.TrimSpace(name))
			if err != nil {
				return err
			}
			if err := home.SetHome(ctx, p); err != nil {
				return err
			}
			io.Say(fmt.Sprintf("Home set to %s, %s (%.2f, %.2f).", p.Name, p.Country, p.Latitude, p.Longitude))
			return nil
		},
	}
}

func failure(ctx context.Context, err error, place string) command.Response {
	l := locale.Speaking(ctx)
	if errors.Is(err, ErrNoPlace) {
		return command.Response{Kind: command.Failure, Spoken: l.T("I couldn't find a place called %s.", place), Data: map[string]any{"error": err.Error()}}
	}
	return command.Response{Kind: command.Failure, Spoken: l.T("I can't reach the weather service right now."), Data: map[string]any{"error": err.Error()}}
}

// answer describes the day asked about.
func answer(l locale.Lang, f Forecast, day string, now time.Time) (command.Response, error) {
	target := now
	switch day {
	case "", "today", "now", "tonight":
	case "tomorrow":
		target = now.AddDate(0, 0, 1)
	default:
		if t, err := time.Parse("2006-01-02", day); err == nil {
			target = t
		} else if d := utterance.FindDays([]string{strings.ToLower(day)}); len(d.Days) == 1 {
			for i := 0; i < 7; i++ {
				if t := now.AddDate(0, 0, i); t.Weekday() == d.Days[0] {
					target = t
					break
				}
			}
		} else {
			return command.Response{Kind: command.Invalid, Spoken: l.T("For which day?"), Problems: []command.Problem{{Param: "day", Message: fmt.Sprintf("%q is not a day", day)}}}, nil
		}
	}
	var fd *Day
	for i := range f.Days {
		if f.Days[i].Date.Format("2006-01-02") == target.Format("2006-01-02") {
			fd = &f.Days[i]
		}
	}
	if fd == nil {
		return command.Response{Kind: command.Failure, Spoken: l.T("I only have the forecast for the coming week.")}, nil
	}
	data := map[string]any{
		"place": f.Place.Name, "country": f.Place.Country, "date": fd.Date.Format("2006-01-02"),
		"high": fd.Max, "low": fd.Min, "conditions": Describe(fd.Code), "rain_chance_percent": fd.RainChance,
		"temperature_unit": f.TemperatureUnit,
	}
	rain := ""
	if fd.RainChance >= 20 {
		rain = l.T(map[string]string{"a": locale.Key(", with a %d percent chance of rain"), "an": locale.Key(", with an %d percent chance of rain")}[article(fd.RainChance)], fd.RainChance)
	}
	var s string
	if target.Equal(now) {
		data["now_temperature"], data["now_conditions"], data["wind"] = f.Temperature, Describe(f.Code), f.Wind
		s = l.T("%s it's %s %s and %s. Today's high is %s and the low %s%s.", capital(f.Place.in(l)),
			l.Number(round(f.Temperature)), l.T(f.TemperatureUnit), l.T(Describe(f.Code)), l.Number(round(fd.Max)), l.Number(round(fd.Min)), rain)
	} else {
		when := l.T("Tomorrow")
		if target.Sub(now) > 36*time.Hour {
			when = l.T("On %s", l.Weekday(target.Weekday()))
		}
		s = l.T("%s %s: %s, a high of %s %s and a low of %s%s.", when, f.Place.in(l),
			l.T(Describe(fd.Code)), l.Number(round(fd.Max)), l.T(f.TemperatureUnit), l.Number(round(fd.Min)), rain)
	}
	return command.Said(s, data), nil
}

// article is "an" before numbers said with a vowel sound (8, 11, 18, 80-89).
func article(n int) string {
	if n == 8 || n == 11 || n == 18 || n >= 80 && n <= 89 {
		return "an"
	}
	return "a"
}

// capital is s with its first letter a capital, to begin a sentence.
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
