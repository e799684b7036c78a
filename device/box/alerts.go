package box

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// alertsResource is the timers, alarms and reminders as the API serves
// them, through the alert service and its rules.
type alertsResource struct{ svc *alert.Service }

var _ control.Alerts = alertsResource{}

// List lists what rings first, whatever its kind (it is what a person
// wants to stop), then what is still to come.
func (s alertsResource) List(ctx context.Context, all bool) ([]control.Alert, error) {
	kinds := []storage.ItemKind{storage.Timer}
	if all {
		kinds = append(kinds, storage.Alarm, storage.Reminder)
	}
	items, err := s.svc.Pending(ctx, kinds...)
	if err != nil {
		return nil, apiError(err)
	}
	ringing := s.svc.Ringing()
	out := make([]control.Alert, 0, len(ringing)+len(items))
	rings := map[string]bool{}
	for _, it := range ringing {
		a := s.alert(it)
		a.Ringing, rings[it.ID] = true, true
		out = append(out, a)
	}
	for _, it := range items {
		if !rings[it.ID] { // a repeating alarm rings and is pending again
			out = append(out, s.alert(it))
		}
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

// Cancel silences what rings, or cancels what is to come, by id or name:
// a ringing item first, then a pending one.
func (s alertsResource) Cancel(ctx context.Context, ref string) error {
	it, err := s.find(ctx, ref)
	if err != nil {
		return err
	}
	if s.svc.StopAlert(it.ID) {
		return nil
	}
	_, err = s.svc.Cancel(ctx, it.ID)
	if errors.Is(err, schedule.ErrNotFound) {
		return fmt.Errorf("%w: no timer, alarm or reminder has the id or name %q", control.ErrNotFound, ref)
	}
	return apiError(err)
}

func (s alertsResource) Stop(context.Context) (bool, error) { return s.svc.StopAlerts(), nil }

// find is the item ref names: the one of that id, else the one ringing or
// pending with that name (in any case). Several of that name are a
// conflict that lists their ids.
func (s alertsResource) find(ctx context.Context, ref string) (storage.Item, error) {
	ref = strings.TrimSpace(ref)
	ringing := s.svc.Ringing()
	pending, err := s.svc.Pending(ctx)
	if err != nil {
		return storage.Item{}, apiError(err)
	}
	for _, it := range append(ringing, pending...) {
		if it.ID == ref {
			return it, nil
		}
	}
	var named []storage.Item
	for _, group := range [][]storage.Item{ringing, pending} {
		for _, it := range group {
			if it.Name != "" && strings.EqualFold(it.Name, ref) && !slices.ContainsFunc(named, func(n storage.Item) bool { return n.ID == it.ID }) {
				named = append(named, it)
			}
		}
		if len(named) > 0 {
			break // what rings is what the name means
		}
	}
	switch len(named) {
	case 1:
		return named[0], nil
	case 0:
		// Perhaps the id of one gone off or cancelled: Cancel says so.
		return storage.Item{ID: ref}, nil
	}
	var ids []string
	for _, it := range named {
		ids = append(ids, it.ID)
	}
	return storage.Item{}, fmt.Errorf("%w: %d are called %q: cancel one by its id (%s)", control.ErrConflict, len(named), ref, strings.Join(ids, ", "))
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
