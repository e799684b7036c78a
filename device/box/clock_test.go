package box

import (
	"errors"
	"testing"
	"time"

	"github.com/harkbox/hark/device/clock"
	"github.com/harkbox/hark/device/control"
)

// TestTheAPIOnTheBoxsClock: the box's API reads the box's clock: before it
// is set, a reminder at a time is refused as unavailable (not as a bad
// request), an alarm is listed as held, every time is in the household's
// zone, and the status says the clock is not set.
func TestTheAPIOnTheBoxsClock(t *testing.T) {
	srv, _ := modelServer(t)
	l, res := configure(t, "[assistant]\ntime_zone = \"Europe/Berlin\"\n", map[string]string{"OLLAMA_HOST": srv.URL})
	sim := clock.NewSim(time.Unix(5, 0))
	b, err := Open(l, res, Options{Clock: sim})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	api := b.API()
	ctx := t.Context()
	_, err = api.Alerts.Add(ctx, control.NewAlert{Kind: "reminder", Name: "bins", At: sim.Now().Add(3 * time.Hour)})
	if !errors.Is(err, control.ErrUnavailable) {
		t.Errorf("a reminder at a time before the clock is set: %v, want unavailable", err)
	}
	if _, err := b.alerts.AddAlarm(ctx, "", 7, 0, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Alerts.Add(ctx, control.NewAlert{Kind: "timer", In: 10 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	list, err := api.Alerts.List(ctx, true)
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v, %v", list, err)
	}
	for _, a := range list {
		if a.Zone != "Europe/Berlin" || a.Due.Location().String() != "Europe/Berlin" {
			t.Errorf("%s listed in %q / %v, want Berlin", a.Kind, a.Zone, a.Due.Location())
		}
		switch a.Kind {
		case "alarm":
			if !a.Held || a.Due.Hour() != 7 {
				t.Errorf("the alarm is %+v, want held at 07:00", a)
			}
		case "timer":
			if a.Left <= 9*time.Minute || a.Left > 10*time.Minute {
				t.Errorf("the timer has %v left on the box's clock, want 10 minutes", a.Left)
			}
		}
	}
	st := api.Box.Status(ctx)
	if st.Clock == nil || st.Clock.Synced || st.Clock.Zone != "Europe/Berlin" || st.Clock.Now.Year() != 1970 {
		t.Errorf("status clock %+v, want 1970 in Berlin, not synchronised", st.Clock)
	}
	if ok, why := st.Healthy(); !ok && why != "the pipeline is not armed yet" {
		t.Errorf("an unset clock failed the self-test: %s", why)
	}
}
