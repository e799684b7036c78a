package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// unit is one unit of measurement. Linear units convert through factor to
// their category's base unit (meter, gram, liter, meter per second);
// temperatures through offsets.
type unit struct {
	code, category, singular, plural string
	factor                           float64
	aliases                          []string
}

var unitTable = []unit{
	{"mm", "length", "millimeter", "millimeters", 0.001, []string{"millimetre", "millimetres"}},
	{"cm", "length", "centimeter", "centimeters", 0.01, []string{"centimetre", "centimetres", "cms"}},
	{"m", "length", "meter", "meters", 1, []string{"metre", "metres"}},
	{"km", "length", "kilometer", "kilometers", 1000, []string{"kilometre", "kilometres", "kms"}},
	{"in", "length", "inch", "inches", 0.0254, []string{"inch", "\""}},
	{"ft", "length", "foot", "feet", 0.3048, []string{"'"}},
	{"yd", "length", "yard", "yards", 0.9144, []string{"yds"}},
	{"mi", "length", "mile", "miles", 1609.344, nil},
	{"nmi", "length", "nautical mile", "nautical miles", 1852, nil},
	{"mg", "mass", "milligram", "milligrams", 0.001, []string{"milligramme", "milligrammes"}},
	{"g", "mass", "gram", "grams", 1, []string{"gramme", "grammes", "gr"}},
	{"kg", "mass", "kilogram", "kilograms", 1000, []string{"kilo", "kilos", "kilogramme", "kilogrammes", "kgs"}},
	{"t", "mass", "tonne", "tonnes", 1e6, []string{"metric ton", "metric tons"}},
	{"oz", "mass", "ounce", "ounces", 28.349523125, nil},
	{"lb", "mass", "pound", "pounds", 453.59237, []string{"lbs"}},
	{"st", "mass", "stone", "stone", 6350.29318, []string{"stones"}},
	{"ml", "volume", "milliliter", "milliliters", 0.001, []string{"millilitre", "millilitres", "mls"}},
	{"cl", "volume", "centiliter", "centiliters", 0.01, []string{"centilitre", "centilitres"}},
	{"dl", "volume", "deciliter", "deciliters", 0.1, []string{"decilitre", "decilitres"}},
	{"l", "volume", "liter", "liters", 1, []string{"litre", "litres"}},
	{"tsp", "volume", "teaspoon", "teaspoons", 0.00492892159375, nil},
	{"tbsp", "volume", "tablespoon", "tablespoons", 0.01478676478125, nil},
	{"floz", "volume", "fluid ounce", "fluid ounces", 0.0295735295625, []string{"fl oz"}},
	{"cup", "volume", "cup", "cups", 0.2365882365, nil},
	{"pt", "volume", "pint", "pints", 0.473176473, nil},
	{"qt", "volume", "quart", "quarts", 0.946352946, nil},
	{"gal", "volume", "gallon", "gallons", 3.785411784, nil},
	{"m/s", "speed", "meter per second", "meters per second", 1, []string{"metre per second", "metres per second", "mps"}},
	{"km/h", "speed", "kilometer per hour", "kilometers per hour", 1 / 3.6, []string{"kilometre per hour", "kilometres per hour", "kph", "kmh", "km per hour", "kilometers an hour", "kilometres an hour"}},
	{"mph", "speed", "mile per hour", "miles per hour", 0.44704, []string{"miles an hour"}},
	{"kn", "speed", "knot", "knots", 1852.0 / 3600, nil},
	{"ft/s", "speed", "foot per second", "feet per second", 0.3048, nil},
	{"c", "temperature", "degree Celsius", "degrees Celsius", 0, []string{"celsius", "centigrade", "degrees celsius", "degree celsius", "degrees c", "°c"}},
	{"f", "temperature", "degree Fahrenheit", "degrees Fahrenheit", 0, []string{"fahrenheit", "degrees fahrenheit", "degree fahrenheit", "degrees f", "°f"}},
	{"k", "temperature", "kelvin", "kelvin", 0, []string{"kelvins", "degrees kelvin"}},
}

// unitNames maps every spoken or written name of a unit to it.
var unitNames = func() map[string]*unit {
	m := map[string]*unit{}
	for i := range unitTable {
		u := &unitTable[i]
		for _, n := range append([]string{u.code, u.singular, u.plural}, u.aliases...) {
			n = strings.ToLower(n)
			if _, taken := m[n]; !taken || n == u.code {
				m[n] = u
			}
		}
	}
	m["k"] = m["kelvin"] // "k" is kelvin as a unit; "5k" distances are rare on a speaker
	return m
}()

// lookupUnit finds the unit named by the start of words, longest name
// first, and returns it with the words it took.
func lookupUnit(words []string) (*unit, int) {
	for n := min(4, len(words)); n > 0; n-- {
		if u, ok := unitNames[strings.Join(words[:n], " ")]; ok {
			return u, n
		}
	}
	return nil, 0
}

// findUnit finds the unit a name or code names.
func findUnit(name string) (*unit, error) {
	if u, ok := unitNames[strings.ToLower(strings.TrimSpace(name))]; ok {
		return u, nil // "km/h" as written
	}
	words := utterance.Words(utterance.Normalize(name))
	if u, n := lookupUnit(words); u != nil && n == len(words) {
		return u, nil
	}
	return nil, fmt.Errorf("%q is not a unit I know", name)
}

func convertValue(v float64, from, to *unit) float64 {
	if from.category != "temperature" {
		return v * from.factor / to.factor
	}
	c := v
	switch from.code {
	case "f":
		c = (v - 32) * 5 / 9
	case "k":
		c = v - 273.15
	}
	switch to.code {
	case "f":
		return c*9/5 + 32
	case "k":
		return c + 273.15
	}
	return c
}

// Convert is convert_measurement: length, mass, volume, temperature, speed.
func Convert() *command.Command {
	return &command.Command{
		Name:        "convert_measurement",
		Description: "Convert a length, mass, volume, temperature or speed between units.",
		Keywords:    []string{"convert", "how many", "units"},
		Parameters: []command.Parameter{
			{Name: "value", Type: "float", Required: true, Follow: command.Amount},
			{Name: "from_unit", Type: "string", Required: true, Description: "e.g. ft, kg, F, mph", Follow: command.Unit},
			{Name: "to_unit", Type: "string", Required: true, Refinable: true, Follow: command.Target},
		},
		Examples:   []command.Example{{Utterance: "how many centimeters in a foot", Arguments: map[string]any{"value": 1, "from_unit": "ft", "to_unit": "cm"}}},
		Intents:    []string{"convert_measurement"},
		FromIntent: convertFromIntent,
		// Aliases are corrected to unit codes; units of different kinds fail
		// with the units that would fit.
		Validate: func(ctx context.Context, a command.Args) []command.Problem {
			var probs []command.Problem
			from, errFrom := findUnit(a.String("from_unit"))
			to, errTo := findUnit(a.String("to_unit"))
			for _, x := range []struct {
				param string
				u     *unit
				err   error
			}{{"from_unit", from, errFrom}, {"to_unit", to, errTo}} {
				switch {
				case x.err != nil:
					probs = append(probs, command.Problem{Param: x.param, Message: x.err.Error(), Valid: unitCodes("")})
				case x.u.code != a.String(x.param):
					probs = append(probs, command.Problem{Param: x.param, Suggest: x.u.code})
				}
			}
			if from != nil && to != nil && from.category != to.category {
				probs = append(probs, command.Problem{Param: "to_unit",
					Message: fmt.Sprintf("can't convert %s to %s", from.plural, to.plural), Valid: unitCodes(from.category)})
			}
			return probs
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			from, err1 := findUnit(c.Args.String("from_unit"))
			to, err2 := findUnit(c.Args.String("to_unit"))
			if err := errors.Join(err1, err2); err != nil {
				return command.Response{}, err
			}
			v := c.Args.Float("value")
			r := convertValue(v, from, to)
			l := lang(c)
			sr, said := spokenResult(l, r)
			s := l.T("%s %s is %s %s.", l.Number(utterance.FormatNumber(v)), l.Unit(from.code, name(from, v), v == 1),
				sr, l.Unit(to.code, name(to, said), said == 1))
			return command.Said(s, map[string]any{"result": r, "unit": to.code}), nil
		},
	}
}

func unitCodes(category string) []string {
	var out []string
	for _, u := range unitTable {
		if category == "" || u.category == category {
			out = append(out, u.code)
		}
	}
	return out
}

func name(u *unit, v float64) string {
	if v == 1 {
		return u.singular
	}
	return u.plural
}
