package endpointtest

import (
	"context"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// Household is the judgement of whole requests of a box in a house, as
// the wiring gives it to the pipeline: the offline core's commands and
// Home Assistant's, over a house (hatest.Small) that has the rooms, floors
// and lights the corpus's sentences name, the box standing in the kitchen.
// The house is read once, before the corpus runs, and kept: the corpus's
// simulated clock never makes it stale.
func Household(tb testing.TB) *command.Registry {
	ha := hatest.Small(tb)
	keys := secrets(ha.Secrets())
	c := home.NewClient(keys)
	c.Refresh = 24 * time.Hour
	if _, err := c.House(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	reg := command.NewRegistry(command.Options{Secrets: keys, Lists: c, Area: "Kitchen"})
	cmds := builtin.All(builtin.Deps{})
	cmds = append(cmds[:len(cmds)-1:len(cmds)-1], home.Control(c), home.State(c), home.Service(c), home.Query(c), cmds[len(cmds)-1])
	if err := reg.Register(cmds...); err != nil {
		tb.Fatal(err)
	}
	return reg
}

type secrets map[string]string

func (s secrets) Get(_ context.Context, k string) (string, error) { return s[k], nil }
