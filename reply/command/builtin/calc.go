package builtin

import (
	"context"
	"math"
	"strconv"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// spokenResult says a computed value as a person would, with "about"
// when it had to be rounded for that, and returns the value said. The
// command's data keeps the value in full.
func spokenResult(l locale.Lang, v float64) (string, float64) {
	s, rounded := utterance.SpokenNumber(v)
	said, err := strconv.ParseFloat(s, 64)
	if err != nil {
		said = v
	}
	if rounded {
		return l.T("about %s", l.Number(s)), said
	}
	return l.Number(s), said
}

// Calculate is calculate: one arithmetic operation on two numbers.
func Calculate() *command.Command {
	return &command.Command{
		Name:        "calculate",
		Description: "Arithmetic on two numbers. percent: a percent of b.",
		Keywords:    []string{"plus", "minus", "times", "divided", "percent", "power", "calculate", "combine", "altogether", "in total", "add up", "sum of"},
		Parameters: []command.Parameter{
			{Name: "a", Type: "float", Required: true, Follow: command.Result},
			{Name: "operation", Type: "string", Required: true, Follow: command.Operator, Enum: []string{"add", "subtract", "multiply", "divide", "power", "percent", "root"},
				Description: "root: the square (b=2) or cube (b=3) root of a"},
			{Name: "b", Type: "float", Required: true, Refinable: true, Follow: command.Operand},
		},
		Examples: []command.Example{
			{Utterance: "what's 12 times 4", Arguments: map[string]any{"a": 12, "operation": "multiply", "b": 4}},
			{Utterance: "15 percent of 80", Arguments: map[string]any{"a": 15, "operation": "percent", "b": 80}},
		},
		Rules:      []string{"Map spoken operators: plus=add, minus=subtract, times=multiply, over=divide."},
		Intents:    []string{"calculate"},
		FromIntent: calculateFromIntent,
		Validate: func(ctx context.Context, a command.Args) []command.Problem {
			if a.String("operation") == "root" && a.Float("b") != 2 && a.Float("b") != 3 {
				return []command.Problem{{Param: "b", Message: "a root is square (2) or cube (3)", Valid: []string{"2", "3"}}}
			}
			return nil
		},
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
			case "root":
				if b == 2 && a < 0 {
					return command.Response{Kind: command.Failure, Spoken: l.T("A negative number has no square root."), Data: map[string]any{"error": "square root of a negative number"}}, nil
				}
				r = math.Sqrt(a)
				if b == 3 {
					r = math.Cbrt(a)
				}
			}
			if math.IsInf(r, 0) || math.IsNaN(r) {
				return command.Failed(l.T("That number is too big for me.")), nil
			}
			sa, sb := l.Number(utterance.FormatNumber(a)), l.Number(utterance.FormatNumber(b))
			sr, _ := spokenResult(l, r)
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
			case "root":
				s = l.T("The square root of %s is %s.", sa, sr)
				if b == 3 {
					s = l.T("The cube root of %s is %s.", sa, sr)
				}
			}
			return command.Said(s, map[string]any{"result": r}), nil
		},
	}
}
