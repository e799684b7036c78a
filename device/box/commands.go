package box

import (
	"context"
	"fmt"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/storage"
)

// commandsResource is the assistant's commands as the API serves them:
// their parameters, whether their secrets are set, their setup.
type commandsResource struct {
	reg     *command.Registry
	secrets *storage.Secrets
}

var (
	_ control.Commands = commandsResource{}
	_ command.SetupIO  = control.SetupIO(nil)
)

func (c commandsResource) List(ctx context.Context) ([]control.CommandInfo, error) {
	var out []control.CommandInfo
	for _, cmd := range c.reg.Commands() {
		info := control.CommandInfo{Name: cmd.Name, Setup: cmd.Setup != nil}
		for _, p := range cmd.Parameters {
			info.Parameters = append(info.Parameters, control.Param{Name: p.Name, Type: p.Type, Required: p.Required})
		}
		for _, s := range cmd.Secrets {
			v, err := c.secrets.Get(ctx, s.Key)
			state := "set"
			switch {
			case err != nil:
				state = "unreadable"
			case v == "":
				state = "not set"
			}
			info.Secrets = append(info.Secrets, control.SecretState{Key: s.Key, Required: s.Required, State: state})
		}
		out = append(out, info)
	}
	return out, nil
}

func (c commandsResource) Setup(ctx context.Context, name string, io control.SetupIO) error {
	cmd, ok := c.reg.Lookup(name)
	if !ok {
		return fmt.Errorf("%w: no command called %q (hark commands lists them)", control.ErrNotFound, name)
	}
	if cmd.Setup == nil {
		io.Say(cmd.Name + " needs no setup")
		return nil
	}
	return apiError(cmd.Setup(ctx, io))
}
