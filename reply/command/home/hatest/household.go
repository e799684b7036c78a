package hatest

import (
	"context"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/home"
)

// Household is the registry of a box in the Small house, standing in the
// kitchen: the offline core's built-in commands and Home Assistant's,
// stop last as the box has them (the box adds the weather and the web
// lookups, which need a network). It is the judgement of whole requests
// the pipeline gets on such a box. The house is read once, here,
// and kept for a day: a test's simulated clock (synctest) never makes it
// stale, and no request leaves the test's own goroutine for it later.
func Household(tb testing.TB) *command.Registry {
	ha := Small(tb)
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

// secrets are the secrets that point Hark at a Home Assistant.
type secrets map[string]string

func (s secrets) Get(_ context.Context, k string) (string, error) { return s[k], nil }
