package intenttest

import (
	"fmt"

	"github.com/harkbox/hark/locale/intent"
)

// Lists are the house's {name}, {area} and {floor} lists as Home
// Assistant's test harness builds them: every name a template gives, the
// name as the value, an entity's domain and attributes as its context.
func (h House) Lists() map[string]*intent.List {
	var names, areas, floors []intent.Value
	for _, e := range h.Entities {
		ctx := map[string]any{"domain": e.Domain()}
		for k, v := range e.Attributes {
			ctx[k] = scalar(v)
		}
		for _, n := range intent.Expand(e.Name) {
			names = append(names, intent.Value{Text: n, Out: n, Context: ctx})
		}
	}
	for _, a := range h.Areas {
		for _, n := range intent.Expand(a.Name) {
			areas = append(areas, intent.Value{Text: n, Out: n})
		}
	}
	for _, f := range h.Floors {
		for _, n := range intent.Expand(f.Name) {
			floors = append(floors, intent.Value{Text: n, Out: n})
		}
	}
	return map[string]*intent.List{"name": intent.NewList(names), "area": intent.NewList(areas), "floor": intent.NewList(floors)}
}

func scalar(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case string, float64, bool:
		return x
	}
	return fmt.Sprint(v)
}
