package box

import (
	"context"
	"fmt"
	"strings"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/storage"
)

// secretsResource is the commands' credentials as the API serves them:
// names out, values in, never out.
type secretsResource struct{ s *storage.Secrets }

var _ control.Secrets = secretsResource{}

func (s secretsResource) Names(ctx context.Context) ([]string, error) {
	n, err := s.s.Names(ctx)
	return n, apiError(err)
}

func (s secretsResource) Set(ctx context.Context, name, value string) error {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "/ \t\n") {
		return fmt.Errorf("%w: %q is not a secret's name (letters, digits and _ only)", control.ErrInvalid, name)
	}
	return apiError(s.s.Set(ctx, name, value))
}

func (s secretsResource) Unset(ctx context.Context, name string) error {
	return apiError(s.s.Unset(ctx, name))
}
