package command

import (
	"fmt"
	"strings"
)

// Kind is the kind of a parameter value.
type Kind int

// The parameter kinds. DateTime, Date, Time and TimeDelta travel as strings
// on the wire and are parsed into time values before Run sees them.
const (
	String Kind = iota + 1
	Integer
	Float
	Boolean
	Array
	Dict
	DateTime
	Date
	Time
	TimeDelta
)

var kindNames = map[string]Kind{
	"string": String, "str": String,
	"integer": Integer, "int": Integer,
	"float":   Float,
	"boolean": Boolean, "bool": Boolean,
	"array": Array, "list": Array,
	"dict":     Dict,
	"datetime": DateTime, "date": Date, "time": Time, "timedelta": TimeDelta,
}

// itemKinds are the kinds a typed array may hold.
var itemKinds = map[Kind]bool{String: true, Integer: true, Float: true, Boolean: true, DateTime: true, Date: true, Time: true, TimeDelta: true}

func (k Kind) String() string {
	for name, kk := range map[string]Kind{"string": String, "integer": Integer, "float": Float, "boolean": Boolean,
		"array": Array, "dict": Dict, "datetime": DateTime, "date": Date, "time": Time, "timedelta": TimeDelta} {
		if kk == k {
			return name
		}
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Type is a parameter's declared type: a kind, and for a typed array the
// kind of its items.
type Type struct {
	Kind  Kind
	Items Kind // for Array; 0 for an untyped array
}

// ParseType reads a type as commands declare it: "string" or "str",
// "integer" or "int", "float", "boolean" or "bool", "array" or "list",
// "dict", "datetime", "date", "time", "timedelta", and typed arrays written
// "array<int>", "array[int]" or "int[]".
func ParseType(s string) (Type, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	var item string
	switch {
	case strings.HasPrefix(t, "array<") && strings.HasSuffix(t, ">"):
		item = t[len("array<") : len(t)-1]
	case strings.HasPrefix(t, "array[") && strings.HasSuffix(t, "]"):
		item = t[len("array[") : len(t)-1]
	case strings.HasSuffix(t, "[]"):
		item = t[:len(t)-2]
	default:
		if k, ok := kindNames[t]; ok {
			return Type{Kind: k}, nil
		}
		return Type{}, fmt.Errorf("unknown parameter type %q", s)
	}
	k, ok := kindNames[strings.TrimSpace(item)]
	if !ok || !itemKinds[k] {
		return Type{}, fmt.Errorf("unknown parameter type %q (arrays may hold string, int, float, bool, datetime, date, time or timedelta)", s)
	}
	return Type{Kind: Array, Items: k}, nil
}

// schema is the JSON schema of one value of kind k.
func schema(k Kind) map[string]any {
	switch k {
	case String:
		return map[string]any{"type": "string"}
	case Integer:
		return map[string]any{"type": "integer"}
	case Float:
		return map[string]any{"type": "number"}
	case Boolean:
		return map[string]any{"type": "boolean"}
	case Dict:
		return map[string]any{"type": "object"}
	case DateTime:
		return map[string]any{"type": "string", "format": "date-time"}
	case Date:
		return map[string]any{"type": "string", "format": "date"}
	case Time:
		return map[string]any{"type": "string", "format": "time"}
	case TimeDelta:
		return map[string]any{"type": "string", "format": "duration"}
	}
	return map[string]any{"type": "array"}
}

// Schema is the JSON schema of the type.
func (t Type) Schema() map[string]any {
	s := schema(t.Kind)
	if t.Kind == Array && t.Items != 0 {
		s["items"] = schema(t.Items)
	}
	return s
}
