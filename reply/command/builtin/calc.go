package builtin

import (
	"context"
	"math"
	"strings"

	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// Calculate is calculate: one arithmetic operation on two numbers.
func Calculate() *command.Command {
	return &command.Command{
		Name:        "calculate",
		Description: "Arithmetic on two numbers. percent: a percent of b.",
		Keywords:    []string{"plus", "minus", "times", "divided", "percent", "power", "calculate"},
		Parameters: []command.Parameter{
			{Name: "a", Type: "float", Required: true},
			{Name: "operation", Type: "string", Required: true, Enum: []string{"add", "subtract", "multiply", "divide", "power", "percent"}},
			{Name: "b", Type: "float", Required: true, Refinable: true},
		},
		Examples: []command.Example{
			{Utterance: "what's 12 times 4", Arguments: map[string]any{"a": 12, "operation": "multiply", "b": 4}},
			{Utterance: "15 percent of 80", Arguments: map[string]any{"a": 15, "operation": "percent", "b": 80}},
		},
		Rules:      []string{"Map spoken operators: plus=add, minus=subtract, times=multiply, over=divide."},
		Intents:    []string{"calculate"},
		FromIntent: calculateFromIntent,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			a, b, op := c.Args.Float("a"), c.Args.Float("b"), c.Args.String("operation")
			var r float64
			switch op {
			case "add":
				r = a + b
			case "subtract":
				r = a - b
			case "multiply":
				r = a * b
			case "divide":
				if b == 0 {
					return command.Response{Kind: command.Failure, Spoken: l.T("You can't divide by zero."), Data: map[string]any{"error": "division by zero"}}, nil
				}
				r = a / b
			case "power":
				r = math.Pow(a, b)
			case "percent":
				r = a / 100 * b
			}
			if math.IsInf(r, 0) || math.IsNaN(r) {
				return command.Failed(l.T("That number is too big for me.")), nil
			}
			sa, sb, sr := l.Number(utterance.FormatNumber(a)), l.Number(utterance.FormatNumber(b)), l.Number(utterance.FormatNumber(r))
			var s string
			switch op {
			case "add":
				s = l.T("%s plus %s is %s.", sa, sb, sr)
			case "subtract":
				s = l.T("%s minus %s is %s.", sa, sb, sr)
			case "multiply":
				s = l.T("%s times %s is %s.", sa, sb, sr)
			case "divide":
				s = l.T("%s divided by %s is %s.", sa, sb, sr)
			case "power":
				s = l.T("%s to the power of %s is %s.", sa, sb, sr)
			case "percent":
				s = l.T("%s percent of %s is %s.", sa, sb, sr)
			}
			return command.Said(s, map[string]any{"result": r}), nil
		},
	}
}

// infix operators between two numbers, longest first.
var infix = []struct{ words, op string }{
	{"multiplied by", "multiply"}, {"divided by", "divide"}, {"to the power of", "power"}, {"raised to the power of", "power"},
	{"percent of", "percent"}, {"% of", "percent"}, {"plus", "add"}, {"+", "add"}, {"minus", "subtract"}, {"-", "subtract"},
	{"times", "multiply"}, {"x", "multiply"}, {"*", "multiply"}, {"over", "divide"}, {"/", "divide"}, {"÷", "divide"},
	{"×", "multiply"}, {"^", "power"},
}

// prefix forms: "add 3 and 4", "subtract 3 from 10".
var prefixForms = []struct {
	verb, joint, op string
	swap            bool
}{
	{"add", "and", "add", false}, {"add", "to", "add", false}, {"the sum of", "and", "add", false},
	{"subtract", "from", "subtract", true}, {"take", "from", "subtract", true}, {"the difference between", "and", "subtract", false},
	{"multiply", "by", "multiply", false}, {"multiply", "and", "multiply", false}, {"the product of", "and", "multiply", false},
	{"divide", "by", "divide", false},
}

// parseArithmetic reads "what's 12 times 4", "add 3 and 4", "5 squared",
// "15 percent of 80"; the whole utterance must be the sum.
func parseArithmetic(text string) (a float64, op string, b float64, ok bool) {
	t := trim(text)
	for _, lead := range []string{"what is", "how much is", "calculate", "compute", "work out", "what does", "whats", "what are"} {
		if rest, ok := strings.CutPrefix(t, lead+" "); ok {
			t = rest
			break
		}
	}
	t = strings.TrimSuffix(strings.TrimSuffix(t, " equal"), " equals")
	words := utterance.Words(t)
	for _, f := range prefixForms {
		rest, ok := strings.CutPrefix(t, f.verb+" ")
		if !ok {
			continue
		}
		rw := utterance.Words(rest)
		x, n, ok := utterance.Number(rw)
		if !ok || n+1 >= len(rw) || rw[n] != f.joint {
			continue
		}
		y, m, ok := utterance.Number(rw[n+1:])
		if !ok || n+1+m != len(rw) {
			continue
		}
		if f.swap {
			x, y = y, x
		}
		return x, f.op, y, true
	}
	x, n, ok := utterance.Number(words)
	if !ok || words[0] == "a" || words[0] == "an" {
		return 0, "", 0, false
	}
	rest := words[n:]
	if len(rest) == 1 && (rest[0] == "squared" || rest[0] == "cubed") {
		y := 2.0
		if rest[0] == "cubed" {
			y = 3
		}
		return x, "power", y, true
	}
	restText := strings.Join(rest, " ")
	if strings.HasPrefix(restText, "percent of ") || strings.HasPrefix(restText, "% of ") {
		// fine: handled by the infix table
	} else if len(rest) > 0 && strings.HasSuffix(words[n-1], "%") && rest[0] == "of" {
		rest = append([]string{"%"}, rest...)
		restText = strings.Join(rest, " ")
	}
	for _, in := range infix {
		after, ok := strings.CutPrefix(restText, in.words+" ")
		if !ok {
			continue
		}
		aw := utterance.Words(after)
		y, m, ok := utterance.Number(aw)
		if !ok || m != len(aw) || aw[0] == "a" || aw[0] == "an" {
			return 0, "", 0, false
		}
		return x, in.op, y, true
	}
	return 0, "", 0, false
}
