package box

import (
	"context"
	"errors"
	"fmt"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// alertsResource is the timers, alarms and reminders as the API serves
// them, through the alert service and its rules.
type alertsResource struct{ svc *alert.Service }

var _ control.Alerts = alertsResource{}

func (s alertsResource) List(ctx context.Context, all bool) ([]control.Alert, error) {
	kinds := []storage.ItemKind{storage.Timer}
	if all {
		kinds = append(kinds, storage.Alarm, storage.Reminder)
	}
	items, err := s.svc.Pending(ctx, kinds...)
	if err != nil {
		return nil, apiError(err)
	}
	out := make([]control.Alert, 0, len(items))
	for _, it := range items {
		out = append(out, s.alert(it))
	}
	return out, nil
}

// alert is an item as the API shows it: its times in the box's zone.
func (s alertsResource) alert(it storage.Item) control.Alert {
	loc := s.svc.Location()
	return control.Alert{ID: it.ID, Kind: string(it.Kind), Name: it.Name, Due: it.Due.In(loc), Zone: loc.String(),
		Left: it.Due.Sub(s.svc.Now()), Repeats: it.Kind == storage.Alarm && len(it.Days) > 0, Held: it.Held}
}

func (s alertsResource) Add(ctx context.Context, na control.NewAlert) (control.Alert, error) {
	it, err := s.svc.Set(ctx, alert.Request{Kind: storage.ItemKind(na.Kind), Name: na.Name, In: na.In, At: na.At})
	if err != nil {
		return control.Alert{}, apiError(err)
	}
	return s.alert(it), nil
}

func (s alertsResource) Cancel(ctx context.Context, id string) error {
	_, err := s.svc.Cancel(ctx, id)
	return apiError(err)
}

// apiError marks the parts' errors for the API's status codes.
func apiError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrLocked), errors.Is(err, schedule.ErrNotPending):
		return fmt.Errorf("%w: %w", control.ErrConflict, err)
	case errors.Is(err, schedule.ErrInvalid):
		return fmt.Errorf("%w: %w", control.ErrInvalid, err)
	case errors.Is(err, schedule.ErrNotFound):
		return fmt.Errorf("%w: %w", control.ErrNotFound, err)
	case errors.Is(err, storage.ErrFull):
		return fmt.Errorf("%w: %w", control.ErrFull, err)
	case errors.Is(err, schedule.ErrClockNotSet):
		return fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	return err
}
