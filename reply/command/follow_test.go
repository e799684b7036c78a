package command

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
)

// A short "and …" said within the refine window fills one argument of the
// last call, in each language: the place, the day, the operation with its
// number. Anything else is not taken.
func TestAndFollowUpFillsOneArgument(t *testing.T) {
	now := clock
	r := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	ok := func(context.Context, Call) (Response, error) { return Response{Kind: Success, Spoken: "ok"}, nil }
	seven := func(context.Context, Call) (Response, error) { // 3 plus 4
		return Response{Kind: Success, Spoken: "ok", Data: map[string]any{"result": 7.0}}, nil
	}
	units := map[string]bool{"mi": true, "km": true, "m": true, "cm": true, "in": true, "miles": true, "meters": true}
	r.Register(
		&Command{Name: "convert", Description: "d", Run: ok, Parameters: []Parameter{
			{Name: "value", Type: "float", Required: true, Follow: Amount}, {Name: "from_unit", Type: "string", Required: true, Follow: Unit},
			{Name: "to_unit", Type: "string", Required: true, Follow: Target}},
			Validate: func(_ context.Context, a Args) []Problem {
				var out []Problem
				for _, p := range []string{"from_unit", "to_unit"} {
					if !units[a.String(p)] {
						out = append(out, Problem{Param: p, Message: "no unit"})
					}
				}
				return out
			}},
		&Command{Name: "get_weather", Description: "d", Run: ok, Parameters: []Parameter{
			{Name: "location", Type: "string", Follow: Place}, {Name: "day", Type: "string", Default: "today", Follow: Day}}},
		&Command{Name: "calculate", Description: "d", Run: seven, Parameters: []Parameter{
			{Name: "a", Type: "float", Required: true, Follow: Result}, {Name: "operation", Type: "string", Required: true, Follow: Operator},
			{Name: "b", Type: "float", Required: true, Follow: Operand}}},
	)
	ctx := WithClient(t.Context(), Client{ID: "kitchen"})
	weather := map[string]any{"location": "Berlin", "day": "today"}
	sum := map[string]any{"a": 3.0, "operation": "add", "b": 4.0}
	conv := map[string]any{"value": 5.0, "from_unit": "mi", "to_unit": "km"}
	for _, c := range []struct {
		lang locale.Lang
		last string
		args map[string]any
		said string
		want string // the call's arguments; "" for not taken
	}{
		{locale.English, "get_weather", weather, "and in Paris?", "map[day:today location:Paris]"},
		{locale.German, "get_weather", weather, "und in Paris?", "map[day:today location:Paris]"},
		{locale.Spanish, "get_weather", weather, "¿y en París?", "map[day:today location:París]"},
		{locale.French, "get_weather", weather, "et à Paris ?", "map[day:today location:Paris]"},
		{locale.French, "get_weather", weather, "et aux États-Unis ?", "map[day:today location:États-Unis]"},
		{locale.French, "get_weather", weather, "et au Portugal ?", "map[day:today location:Portugal]"},
		{locale.English, "get_weather", weather, "and tomorrow?", "map[day:tomorrow location:Berlin]"},
		{locale.German, "get_weather", weather, "und morgen?", "map[day:tomorrow location:Berlin]"},
		{locale.Spanish, "get_weather", weather, "¿y mañana?", "map[day:tomorrow location:Berlin]"},
		{locale.French, "get_weather", weather, "et demain ?", "map[day:tomorrow location:Berlin]"},
		{locale.English, "get_weather", weather, "and on Monday", "map[day:monday location:Berlin]"},
		{locale.English, "calculate", sum, "and times 3", "map[a:7 b:3 operation:multiply]"},
		{locale.English, "calculate", sum, "and plus 5", "map[a:7 b:5 operation:add]"},
		{locale.German, "calculate", sum, "und mal drei", "map[a:7 b:3 operation:multiply]"},
		{locale.German, "calculate", sum, "und minus 5", "map[a:7 b:5 operation:subtract]"},
		{locale.German, "calculate", sum, "und plus 5", "map[a:7 b:5 operation:add]"},
		{locale.Spanish, "calculate", sum, "y menos 5", "map[a:7 b:5 operation:subtract]"},
		{locale.French, "calculate", sum, "et moins 5", "map[a:7 b:5 operation:subtract]"},
		{locale.English, "calculate", sum, "and minus 5", "map[a:7 b:5 operation:subtract]"},
		{locale.Spanish, "calculate", sum, "y por 3", "map[a:7 b:3 operation:multiply]"},
		{locale.French, "calculate", sum, "et fois 3", "map[a:7 b:3 operation:multiply]"},
		{locale.French, "calculate", sum, "et plus 5", "map[a:7 b:5 operation:add]"},
		// A conversion: another amount, in its unit or another, or
		// another unit to convert to.
		{locale.English, "convert", conv, "and 10 miles?", "map[from_unit:miles to_unit:km value:10]"},
		{locale.English, "convert", conv, "and 10?", "map[from_unit:mi to_unit:km value:10]"},
		{locale.German, "convert", conv, "und 10 Meilen?", "map[from_unit:mi to_unit:km value:10]"},
		{locale.Spanish, "convert", conv, "¿y 10 millas?", "map[from_unit:mi to_unit:km value:10]"},
		{locale.French, "convert", conv, "et 3 centimètres ?", "map[from_unit:cm to_unit:km value:3]"},
		{locale.English, "convert", conv, "and in meters?", "map[from_unit:mi to_unit:meters value:5]"},
		{locale.German, "convert", conv, "und in Metern?", "map[from_unit:mi to_unit:m value:5]"},
		{locale.French, "convert", conv, "et en mètres ?", "map[from_unit:mi to_unit:m value:5]"},
		{locale.Spanish, "convert", conv, "¿y en metros?", "map[from_unit:mi to_unit:m value:5]"},
		{locale.English, "convert", conv, "and in Paris?", ""},
		{locale.English, "convert", conv, "and 10 bananas", ""},
		// Not one argument of the last call: the model's.
		{locale.English, "calculate", sum, "and in Paris", ""},
		{locale.English, "get_weather", weather, "and times 3", ""},
		{locale.English, "get_weather", weather, "and what about the traffic in Paris tonight", ""},
		{locale.English, "get_weather", weather, "in Paris", ""},
		{locale.English, "calculate", sum, "and 5", ""},
	} {
		now = clock
		r.Forget("kitchen")
		r.Call(ctx, c.last, c.args, "")
		now = now.Add(5 * time.Second)
		u := r.Understand(ctx, c.lang, c.said)
		got := ""
		if u.OK && u.Route.Command.Name == c.last {
			got = fmt.Sprint(u.Route.Claim.Arguments)
		}
		if got != c.want {
			t.Errorf("%s %q after %s: got %q (%+v), want %q", c.lang, c.said, c.last, got, u, c.want)
		}
	}
	// Past the window: not taken.
	r.Call(ctx, "get_weather", weather, "")
	now = now.Add(time.Minute)
	if u := r.Understand(ctx, locale.English, "and in Paris?"); u.OK {
		t.Errorf("taken past the refine window: %+v", u)
	}
}

// A follow-up whose own words do not tell its language ("in Paris?": "in"
// is German and English) is in the conversation's: the language of the
// last call it follows, kept with it across processes. A language the
// household set stands, and words that tell win ("und in Paris?" is
// German, as the conversation is, whatever recognition guessed).
func TestFollowUpTakesTheConversationsLanguage(t *testing.T) {
	now := clock
	r := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	ok := func(context.Context, Call) (Response, error) { return Response{Kind: Success, Spoken: "ok"}, nil }
	weather := &Command{Name: "get_weather", Description: "d", Run: ok, Parameters: []Parameter{
		{Name: "location", Type: "string", Follow: Place}, {Name: "day", Type: "string", Default: "today", Follow: Day}}}
	r.Register(weather)
	kitchen := WithClient(t.Context(), Client{ID: "kitchen"})
	r.Call(locale.WithLanguage(kitchen, "de"), "get_weather", map[string]any{"location": "Berlin"}, "")
	now = now.Add(5 * time.Second)
	for _, c := range []struct {
		ctx         context.Context
		heard, text string
		guessed     bool
		want        string
	}{
		{kitchen, "", "in Paris?", true, "de"},
		{kitchen, "en", "in Paris?", true, "de"}, // recognition guessed
		{kitchen, "", "Paris", true, "de"},
		{kitchen, "", "und in Paris?", true, "de"},
		{kitchen, "en", "und in Paris?", true, "de"},                               // its words tell the conversation's
		{kitchen, "", "and in Paris?", true, "en"},                                 // its words tell another
		{kitchen, "", "in Paris?", false, "en"},                                    // the language set stands
		{kitchen, "en", "und in Paris?", false, "en"},                              // the same, heard
		{WithClient(t.Context(), Client{ID: "hall"}), "", "in Paris?", true, "en"}, // another's conversation
	} {
		if got := r.Decide(c.ctx, c.heard, c.text, locale.English, c.guessed); got != c.want {
			t.Errorf("Decide(%s, %q, %q, guessed %v) = %q, want %q", ClientOf(c.ctx).ID, c.heard, c.text, c.guessed, got, c.want)
		}
	}
	if u := r.Understand(kitchen, locale.Lang(r.Decide(kitchen, "", "und in Paris?", locale.English, true)), "und in Paris?"); !u.OK || u.Route.Claim.Arguments["location"] != "Paris" {
		t.Errorf("und in Paris? after a German weather question: %+v, want the weather in Paris", u)
	}

	// Kept with the last call, for the process that continues the conversation.
	last, found := r.Last("kitchen")
	if !found || last.Language != "de" {
		t.Fatalf("Last: %+v, %v; want the call in language de", last, found)
	}
	b, err := json.Marshal(last)
	if err != nil {
		t.Fatal(err)
	}
	var back Last
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	later := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	later.Register(weather)
	later.Resume("kitchen", back)
	if got := later.Decide(kitchen, "", "in Paris?", locale.English, true); got != "de" {
		t.Errorf("after Resume: Decide = %q, want de", got)
	}

	// Past the refine window the conversation's language is let go.
	now = now.Add(time.Minute)
	if got := r.Decide(kitchen, "", "in Paris?", locale.English, true); got != "en" {
		t.Errorf("past the window: Decide = %q, want en", got)
	}
}

// A call awaiting its place takes the place said next, alone or after its
// preposition, in each language; a word that answers or controls, a
// number, or a long sentence is no place.
func TestPlaceAnswersTheQuestion(t *testing.T) {
	now := clock
	r := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	asked := func(context.Context, Call) (Response, error) {
		return Response{Kind: Invalid, Spoken: "For which city?", Problems: []Problem{{Param: "location", Message: "no home"}}}, nil
	}
	r.Register(&Command{Name: "get_weather", Description: "d", Run: asked, Parameters: []Parameter{
		{Name: "location", Type: "string", Follow: Place, Ask: "For which city?"}, {Name: "day", Type: "string", Default: "today", Follow: Day}}})
	ctx := WithClient(t.Context(), Client{ID: "kitchen"})
	weather, _ := r.Lookup("get_weather")
	for _, c := range []struct {
		lang locale.Lang
		said string
		want string // the location; "" for not taken
	}{
		{locale.English, "Paris", "Paris"},
		{locale.English, "in new york", "New York"},
		{locale.German, "in Berlin", "Berlin"},
		{locale.Spanish, "en París", "París"},
		{locale.French, "à Lyon", "Lyon"},
		{locale.English, "no", ""},
		{locale.German, "danke", ""},
		{locale.English, "in 10", ""},
		{locale.English, "i would rather not say that", ""},
		// A place of many words or with its particles is a place; a new
		// request of as many words is none.
		{locale.English, "New York City", "New York City"},
		{locale.French, "Saint-Jean-de-Luz", "Saint-Jean-de-Luz"},
		{locale.German, "Frankfurt am Main", "Frankfurt am Main"},
		{locale.German, "in frankfurt am main", "Frankfurt am Main"},
		{locale.Spanish, "San Sebastián de los Reyes", "San Sebastián de los Reyes"},
		{locale.Spanish, "en Las Palmas de Gran Canaria", "Las Palmas de Gran Canaria"},
		{locale.English, "Stratford upon Avon", "Stratford upon Avon"},
		{locale.English, "The Hague", "The Hague"},
		{locale.English, "tell me a joke", ""},
		{locale.English, "what about you", ""},
		{locale.English, "who are you", ""},
		{locale.English, "forget it", ""},
		{locale.German, "erzähl mir einen Witz", ""},
		{locale.French, "raconte-moi une blague", ""},
		{locale.Spanish, "cuéntame un chiste", ""},
	} {
		if resp := r.RunRoute(ctx, Route{Command: weather, Claim: Claim{Arguments: map[string]any{}}}, "weather"); resp.Kind != FollowUp {
			t.Fatalf("asked %+v, want the question", resp)
		}
		rt, ok := r.placeAnswer(ctx, c.lang, c.said)
		if got, _ := rt.Claim.Arguments["location"].(string); ok != (c.want != "") || got != c.want {
			t.Errorf("%s %q: %v %q, want %q", c.lang, c.said, ok, got, c.want)
		}
	}
	now = now.Add(time.Hour)
	if _, ok := r.placeAnswer(ctx, locale.English, "Paris"); ok {
		t.Errorf("Paris an hour after the question taken")
	}
}
