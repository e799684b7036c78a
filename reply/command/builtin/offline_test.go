package builtin

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// fixture is the built-ins over a real store, at a fixed time.
type fixture struct {
	db    *storage.DB
	reg   *command.Registry
	sched *schedule.Scheduler
	mixer *memMixer
	stops *countAlerts
	now   time.Time
}

type memMixer struct {
	level int
	muted bool
}

func (m *memMixer) Volume(context.Context) (int, bool, error) { return m.level, m.muted, nil }
func (m *memMixer) SetVolume(_ context.Context, l int, muted bool) error {
	m.level, m.muted = l, muted
	return nil
}

// countAlerts is the alerts as the built-ins see them. Its methods lock:
// in a ringing fixture the scheduler's goroutine rings it (ring) while the
// test reads it (rung, isRinging); tests with no such goroutine set and
// read the fields.
type countAlerts struct {
	mu      sync.Mutex
	ringing bool
	stops   int
	rang    []storage.Item // JustRang's
}

// ring is an item going off.
func (a *countAlerts) ring(it storage.Item) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ringing = true
	a.rang = append(a.rang, it)
}

// rung is what has rung, in order.
func (a *countAlerts) rung() []storage.Item {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.rang)
}

// isRinging reports whether something rings.
func (a *countAlerts) isRinging() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ringing
}

func (a *countAlerts) JustRang(kind storage.ItemKind) []storage.Item {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []storage.Item
	for _, it := range a.rang {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	return out
}

func (a *countAlerts) StopAlerts() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stops++
	was := a.ringing
	a.ringing = false
	return was
}

type fixedStatus struct{}

func (fixedStatus) Status(context.Context) DeviceStatus {
	return DeviceStatus{Version: "1.2.3", Uptime: 3 * time.Hour, Addresses: []string{"192.168.1.20"}, DiskUsed: 1 << 30, DiskTotal: 8 << 30, Model: "llama3.2:3b",
		Web: []string{"https://hark.local:8080", "https://192.168.1.20:8080"}}
}

// Sunday 22 November 2026, 10:15 in Berlin.
var berlin, _ = time.LoadLocation("Europe/Berlin")

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{mixer: &memMixer{level: 50}, stops: &countAlerts{}, now: time.Date(2026, 11, 22, 10, 15, 0, 0, berlin)}
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	clock := func() time.Time { return f.now }
	f.sched, _ = schedule.New(schedule.Options{Store: db.Schedule(), Now: clock, Location: berlin})
	f.reg = command.NewRegistry(command.Options{Now: clock, Location: berlin})
	if err := f.reg.Register(All(Deps{Schedule: f.sched, Alerts: f.stops, Mixer: f.mixer, Memory: db.Facts(), Status: fixedStatus{}})...); err != nil {
		t.Fatal(err)
	}
	return f
}

// say runs an utterance down the offline path and returns what would be said.
func (f *fixture) say(t *testing.T, text string) (string, command.Response) {
	t.Helper()
	u := f.reg.Understand(t.Context(), locale.English, text)
	if !u.OK {
		t.Fatalf("%q was not claimed offline: %s %s (%s)", text, u.Intent, u.Reason, u.Detail)
	}
	resp := f.reg.RunRoute(t.Context(), u.Route, text)
	return resp.Spoken, resp
}

var offline = []struct {
	say  string
	cmd  string
	args map[string]any
}{
	// time and date
	{"What time is it?", "get_current_time", map[string]any{"detail": "time"}},
	{"what's the time", "get_current_time", map[string]any{"detail": "time"}},
	{"Hey, what time is it now?", "get_current_time", map[string]any{"detail": "time"}},
	{"tell me the time please", "get_current_time", map[string]any{"detail": "time"}},
	{"What time is it? Thank you very much.", "get_current_time", map[string]any{"detail": "time"}},
	{"What time is it? Thanks a lot.", "get_current_time", map[string]any{"detail": "time"}},
	{"Um, what's the time?", "get_current_time", map[string]any{"detail": "time"}}, // a filler said first
	{"Uh, what day is it today?", "get_current_time", map[string]any{"detail": "day"}},
	{"Hmm, set a timer for, erm, 5 minutes", "set_timer", map[string]any{"duration": 5 * time.Minute}},
	{"what's the date today", "get_current_time", map[string]any{"detail": "date"}},
	{"what is today's date", "get_current_time", map[string]any{"detail": "date"}},
	{"what day is it", "get_current_time", map[string]any{"detail": "day"}},
	{"what day of the week is it", "get_current_time", map[string]any{"detail": "day"}},
	{"what day is it tomorrow", "get_current_time", map[string]any{"detail": "date", "day": "tomorrow"}},
	{"how many days until Christmas", "get_current_time", map[string]any{"detail": "until", "day": "december 25"}},
	{"what's the date next Friday", "get_current_time", map[string]any{"detail": "date", "day": "friday"}},
	// timers
	{"set a timer for 5 minutes", "set_timer", map[string]any{"duration": 5 * time.Minute}},
	{"Set a timer for five minutes.", "set_timer", map[string]any{"duration": 5 * time.Minute}},
	{"set a 10 minute timer", "set_timer", map[string]any{"duration": 10 * time.Minute}},
	{"timer for an hour and a half", "set_timer", map[string]any{"duration": 90 * time.Minute}},
	{"set a pasta timer for 8 minutes", "set_timer", map[string]any{"duration": 8 * time.Minute, "name": "pasta"}},
	{"start a timer called tea for three minutes", "set_timer", map[string]any{"duration": 3 * time.Minute, "name": "tea"}},
	{"could you set a timer for 90 seconds please", "set_timer", map[string]any{"duration": 90 * time.Second}},
	{"set a timer for half an hour", "set_timer", map[string]any{"duration": 30 * time.Minute}},
	{"set an egg timer for 2 and a half minutes", "set_timer", map[string]any{"duration": 150 * time.Second, "name": "egg"}},
	{"5 minute timer", "set_timer", map[string]any{"duration": 5 * time.Minute}},
	{"what timers do I have", "check_timers", map[string]any{}},
	{"how much time is left", "check_timers", map[string]any{}},
	{"how much time is left on the pasta timer", "check_timers", map[string]any{"name": "pasta"}},
	{"check my timers", "check_timers", map[string]any{}},
	{"are there any timers", "check_timers", map[string]any{}},
	{"cancel the timer", "cancel_timer", map[string]any{}},
	{"cancel the pasta timer", "cancel_timer", map[string]any{"name": "pasta"}},
	{"stop the tea timer", "cancel_timer", map[string]any{"name": "tea"}},
	{"cancel all timers", "cancel_timer", map[string]any{"all": true}},
	{"delete all my timers", "cancel_timer", map[string]any{"all": true}},
	// alarms and reminders
	{"set an alarm for 7 am", "set_alarm", map[string]any{"time": "7 am"}},
	{"wake me up at 6:30 tomorrow", "set_alarm", map[string]any{"time": "6:30", "day": "tomorrow"}},
	{"set an alarm for 7:15 on weekdays", "set_alarm", map[string]any{"time": "7:15", "repeat": "monday tuesday wednesday thursday friday"}},
	{"set an alarm at 8 every monday and wednesday", "set_alarm", map[string]any{"time": "8", "repeat": "monday wednesday"}},
	{"wake me up at half past six in the morning", "set_alarm", map[string]any{"time": "half past six in the morning"}},
	{"set an alarm for noon on saturday", "set_alarm", map[string]any{"time": "noon", "day": "saturday"}},
	{"wake me up next monday at 8", "set_alarm", map[string]any{"time": "8", "day": "monday"}},
	{"remind me to call mom at 5 pm", "set_reminder", map[string]any{"message": "call mom", "at": "5 pm"}},
	{"remind me in 20 minutes to check the oven", "set_reminder", map[string]any{"message": "check the oven", "in": 20 * time.Minute}},
	{"remind me tomorrow at 9 to water the plants", "set_reminder", map[string]any{"message": "water the plants", "at": "9", "day": "tomorrow"}},
	{"remind me next monday at 9 to call the doctor", "set_reminder", map[string]any{"message": "call the doctor", "at": "9", "day": "monday"}},
	{"remind me on wednesday next week at 9 to call the doctor", "set_reminder", map[string]any{"message": "call the doctor", "at": "9", "day": "wednesday next week"}},
	{"remind me to call the doctor monday", "set_reminder", map[string]any{"message": "call the doctor", "day": "monday"}},
	{"remind me on the 5th of december at 10 to pay rent", "set_reminder", map[string]any{"message": "pay rent", "day": "december 5", "at": "10"}},
	{"remind me to renew the passport on january 12", "set_reminder", map[string]any{"message": "renew the passport", "day": "january 12"}},
	{"remind me this evening to water the plants", "set_reminder", map[string]any{"message": "water the plants", "day": "today", "at": "7 pm"}},
	{"remind me the day after tomorrow at 9 to pay the taxes", "set_reminder", map[string]any{"message": "pay the taxes", "day": "day after tomorrow", "at": "9"}},
	{"wake me up the day after tomorrow at 6", "set_alarm", map[string]any{"time": "6", "day": "day after tomorrow"}},
	{"remind me to call the doctor on monday morning", "set_reminder", map[string]any{"message": "call the doctor", "day": "monday", "at": "9 am"}},
	{"remind me tomorrow afternoon to water the plants", "set_reminder", map[string]any{"message": "water the plants", "day": "tomorrow", "at": "3 pm"}},
	{"remind me on friday evening at 7 to call dad", "set_reminder", map[string]any{"message": "call dad", "day": "friday", "at": "7 pm"}},
	{"wake me up tuesday next week at 7", "set_alarm", map[string]any{"time": "7", "day": "tuesday next week"}},
	{"remind me on friday at 10 to buy bread", "set_reminder", map[string]any{"message": "buy bread", "at": "10", "day": "friday"}},
	{"remind me monday at 9 to call the doctor", "set_reminder", map[string]any{"message": "call the doctor", "at": "9", "day": "monday"}},
	{"remind me to buy monday's paper", "set_reminder", map[string]any{"message": "buy monday's paper"}},
	{"remind me to take out the trash tonight", "set_reminder", map[string]any{"message": "take out the trash", "day": "tonight", "at": "20:00"}},
	{"set a reminder to buy milk in an hour", "set_reminder", map[string]any{"message": "buy milk", "in": time.Hour}},
	{"what are my reminders", "list_reminders", map[string]any{"kind": "reminders"}},
	{"do I have any alarms", "list_reminders", map[string]any{"kind": "alarms"}},
	{"list my reminders and alarms", "list_reminders", map[string]any{"kind": "all"}},
	{"cancel my reminder to call mom", "cancel_reminder", map[string]any{"kind": "reminder", "which": "call mom"}},
	{"cancel the 7 am alarm", "cancel_reminder", map[string]any{"kind": "alarm", "which": "7 am"}},
	{"turn off my alarm", "cancel_reminder", map[string]any{"kind": "alarm"}},
	{"delete all reminders", "cancel_reminder", map[string]any{"kind": "reminder", "all": true}},
	// volume
	{"volume 50", "control_volume", map[string]any{"action": "set", "level": 50}},
	{"set the volume to 30", "control_volume", map[string]any{"action": "set", "level": 30}},
	{"volume 7", "control_volume", map[string]any{"action": "set", "level": 70}},
	{"set volume to 40 percent", "control_volume", map[string]any{"action": "set", "level": 40}},
	{"louder", "control_volume", map[string]any{"action": "up"}},
	{"turn it up", "control_volume", map[string]any{"action": "up"}},
	{"make it louder", "control_volume", map[string]any{"action": "up"}},
	{"a bit quieter please", "control_volume", map[string]any{"action": "down"}},
	{"turn down the volume", "control_volume", map[string]any{"action": "down"}},
	{"mute", "control_volume", map[string]any{"action": "mute"}},
	{"unmute", "control_volume", map[string]any{"action": "unmute"}},
	{"what's the volume", "control_volume", map[string]any{"action": "get"}},
	// stop
	{"stop", "stop", nil},
	{"Never mind.", "stop", nil},
	{"cancel", "stop", nil},
	{"shut up", "stop", nil},
	{"that's all thanks", "stop", nil},
	// arithmetic
	{"what's 12 times 4", "calculate", map[string]any{"a": 12.0, "operation": "multiply", "b": 4.0}},
	{"what is twelve times four", "calculate", map[string]any{"a": 12.0, "operation": "multiply", "b": 4.0}},
	{"what's 7 plus 8", "calculate", map[string]any{"a": 7.0, "operation": "add", "b": 8.0}},
	{"100 divided by 8", "calculate", map[string]any{"a": 100.0, "operation": "divide", "b": 8.0}},
	{"what is 15 percent of 80", "calculate", map[string]any{"a": 15.0, "operation": "percent", "b": 80.0}},
	{"what's 2 to the power of 10", "calculate", map[string]any{"a": 2.0, "operation": "power", "b": 10.0}},
	{"what is 1,500 minus 250", "calculate", map[string]any{"a": 1500.0, "operation": "subtract", "b": 250.0}},
	{"subtract 3 from 10", "calculate", map[string]any{"a": 10.0, "operation": "subtract", "b": 3.0}},
	{"add twenty one and thirty four", "calculate", map[string]any{"a": 21.0, "operation": "add", "b": 34.0}},
	{"9 squared", "calculate", map[string]any{"a": 9.0, "operation": "power", "b": 2.0}},
	{"what's 6 * 7", "calculate", map[string]any{"a": 6.0, "operation": "multiply", "b": 7.0}},
	{"how much is 2.5 times 4", "calculate", map[string]any{"a": 2.5, "operation": "multiply", "b": 4.0}},
	// conversions
	{"how many centimeters in a foot", "convert_measurement", map[string]any{"value": 1.0, "from_unit": "ft", "to_unit": "cm"}},
	{"how many ounces are in a pound", "convert_measurement", map[string]any{"value": 1.0, "from_unit": "lb", "to_unit": "oz"}},
	{"convert 5 miles to kilometers", "convert_measurement", map[string]any{"value": 5.0, "from_unit": "mi", "to_unit": "km"}},
	{"what is 100 fahrenheit in celsius", "convert_measurement", map[string]any{"value": 100.0, "from_unit": "f", "to_unit": "c"}},
	{"what's 20 degrees celsius in fahrenheit", "convert_measurement", map[string]any{"value": 20.0, "from_unit": "c", "to_unit": "f"}},
	{"60 miles per hour in kilometers per hour", "convert_measurement", map[string]any{"value": 60.0, "from_unit": "mph", "to_unit": "km/h"}},
	{"how many cups in a liter", "convert_measurement", map[string]any{"value": 1.0, "from_unit": "l", "to_unit": "cup"}},
	{"convert two kilos to pounds", "convert_measurement", map[string]any{"value": 2.0, "from_unit": "kg", "to_unit": "lb"}},
	{"how many feet in a mile", "convert_measurement", map[string]any{"value": 1.0, "from_unit": "mi", "to_unit": "ft"}},
	// memory
	{"remember that the spare key is under the mat", "remember", map[string]any{"fact": "the spare key is under the mat"}},
	{"what do you remember about the spare key", "search_memory", map[string]any{"query": "the spare key"}},
	{"forget that the spare key is under the mat", "forget", map[string]any{"fact": "the spare key is under the mat"}},
	{"what do you know about me", "search_memory", map[string]any{"query": "me"}},
	// status
	{"what's your ip address", "device_status", map[string]any{"detail": "ip"}},
	{"status report", "device_status", map[string]any{"detail": "all"}},
}

func TestOfflineUtterances(t *testing.T) {
	if len(offline) < 60 {
		t.Fatalf("only %d offline utterances; the table must hold at least 60", len(offline))
	}
	f := newFixture(t)
	for _, tt := range offline {
		u := f.reg.Understand(t.Context(), locale.English, tt.say)
		if !u.OK {
			t.Errorf("%q: not claimed (%s %s: %s), want %s", tt.say, u.Intent, u.Reason, u.Detail, tt.cmd)
			continue
		}
		rt := u.Route
		if rt.Command.Name != tt.cmd || !sameArgs(rt.Claim.Arguments, tt.args) {
			t.Errorf("%q: %s %v, want %s %v", tt.say, rt.Command.Name, rt.Claim.Arguments, tt.cmd, tt.args)
		}
	}
}

func sameArgs(got, want map[string]any) bool {
	if len(got) == 0 && len(want) == 0 {
		return true
	}
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g := got[k]
		if gi, ok := g.(int); ok {
			g = float64(gi)
		}
		if wi, ok := w.(int); ok {
			w = float64(wi)
		}
		if !reflect.DeepEqual(g, w) {
			return false
		}
	}
	return true
}

// Questions the offline path must leave to the model.
func TestOfflineLeavesTheRestToTheModel(t *testing.T) {
	f := newFixture(t)
	for _, q := range []string{
		"what is the capital of France", "tell me a joke", "who wrote Dune", "what's 12 times the speed of light",
		"how many people live in Berlin", "stop the war", "what do you know about black holes", "remember when we met",
		"set the table", "what time does the bakery open", "how do I convert a pdf to word", "cancel my subscription",
		"play some music", "what is love", "is it going to be a good day", "what's the weather in my heart",
		// A reminder to repeat: the schedule keeps one-off reminders only,
		// so none is set once with "every day" in its message.
		"remind me every day at 8 to take my pills", "remind me to water the plants every Sunday at 10",
		"remind me daily at 9 pm to lock the door",
		"remind me to buy flowers for sunday",    // the day is the flowers', not when: asked by the model
		"wake me up at 7 on saturday and sunday", // once on each, or every weekend: the model asks
		"remind me mondays at 9 to call the doctor", "remind me on fridays at 10 to buy bread",
		// Two requests: a length of time joined by "and" is one, these are two.
		"remind me in 10 minutes to call mom and set a timer for 5 minutes",
	} {
		if u := f.reg.Understand(t.Context(), locale.English, q); u.OK {
			t.Errorf("%q was claimed by %s %v", q, u.Route.Command.Name, u.Route.Claim.Arguments)
		}
	}
}

func TestOfflineAnswers(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ say, want string }{
		{"what time is it", "It's 10:15 AM."},
		{"what's the date", "It's Sunday, November 22nd, 2026."},
		{"what's 12 times 4", "12 times 4 is 48."},
		{"what is 15 percent of 80", "15 percent of 80 is 12."},
		{"100 divided by 8", "100 divided by 8 is 12.5."},
		{"what's 5 divided by 0", "You can't divide by zero."},
		{"how many centimeters in a foot", "1 foot is 30.48 centimeters."},
		{"what is 100 fahrenheit in celsius", "100 degrees Fahrenheit is about 37.8 degrees Celsius."},
		{"how many grams in a pound", "1 pound is about 454 grams."},
		{"2 kilograms in ounces", "2 kilograms is about 70.5 ounces."},
		{"10 divided by 3", "10 divided by 3 is about 3.33."},
		{"9 divided by 4", "9 divided by 4 is 2.25."},
		{"set a timer for 5 minutes", "Timer set for 5 minutes."},
		{"set a pasta timer for 8 minutes", "Pasta timer set for 8 minutes."},
		{"what timers do I have", "You have 2 timers: one with 5 minutes left and the pasta timer with 8 minutes left."},
		{"cancel the timer", "You have 2 timers. Which one: the timer for 5 minutes or pasta, or all of them?"},
		{"cancel the pasta timer", "Cancelled the pasta timer."},
		{"how much time is left", "Your timer has 5 minutes left."},
		{"set an alarm for 7 am", "Alarm set for 7:00 AM tomorrow."},
		{"set an alarm for 8", "Alarm set for 8:00 AM tomorrow."}, // 5 to 11 unsaid: a wake-up
		{"set an alarm for 3", "Alarm set for 3:00 PM today."},    // else the sooner
		{"wake me up at 6:30 on weekdays", "Alarm set for 6:30 AM on weekdays."},
		{"Wake me up at 6.30 on Saturday.", "Alarm set for 6:30 AM on Saturday."}, // as whisper writes it
		{"remind me to call my mom at 5 pm", "OK, I'll remind you to call your mom at 5:00 PM today."},
		{"remind me in 20 minutes to check the oven", "OK, I'll remind you to check the oven in 20 minutes."},
		{"what are my reminders", "You have 2 reminders: check the oven at 10:35 AM today and call your mom at 5:00 PM today."},
		{"cancel my reminder to call mom", "Cancelled the reminder to call your mom at 5:00 PM today."},
		{"volume 30", "Volume 30."},
		{"louder", "Volume 40."},
		{"what's the volume", "The volume is 40."},
		{"remember that my sister's birthday is on March 3rd", "OK, I'll remember that."},
		{"what do you remember about my sister's birthday", "You told me: your sister's birthday is on March 3rd."},
		{"what's your ip address", "My IP address is 192.168.1.20. To set me up, open 192.168.1.20:8080 in your browser."},
		{"what's your web address", "Open hark.local:8080 in your browser, or 192.168.1.20:8080."},
	}
	for _, tt := range tests {
		if got, _ := f.say(t, tt.say); got != tt.want {
			t.Errorf("%q: said %q, want %q", tt.say, got, tt.want)
		}
	}
}

func TestRefiningByVoice(t *testing.T) {
	f := newFixture(t)
	f.say(t, "set a timer for 5 minutes")
	f.now = f.now.Add(3 * time.Second)
	got, _ := f.say(t, "actually ten minutes")
	if got != "OK, the timer is now 10 minutes." {
		t.Errorf("refinement said %q", got)
	}
	timers, _ := f.sched.Pending(t.Context(), storage.Timer)
	if len(timers) != 1 || timers[0].Duration != 10*time.Minute {
		t.Errorf("timers after the refinement: %+v, want the one timer changed", timers)
	}
	f.say(t, "volume 50")
	for _, step := range []struct{ say, want string }{{"more", "Volume 60."}, {"a bit more", "Volume 70."}, {"less", "Volume 60."}, {"make it 20", "Volume 20."}, {"make it louder", "Volume 30."}} {
		if got, _ := f.say(t, step.say); got != step.want {
			t.Errorf("%q after a volume change: %q, want %q", step.say, got, step.want)
		}
	}
}

// TestCorrectingWithANumber: a correction often says only the number
// ("no, fifteen", "no, I said 15"): it is in the unit the timer was set in,
// hours for a timer of hours.
func TestCorrectingWithANumber(t *testing.T) {
	for _, tt := range []struct {
		set, say string
		want     time.Duration
		said     string
	}{
		{"set a timer for 5 minutes", "actually 15", 15 * time.Minute, "OK, the timer is now 15 minutes."},
		{"set a timer for 5 minutes", "no, 20", 20 * time.Minute, "OK, the timer is now 20 minutes."},
		{"set a timer for 5 minutes", "make it 10", 10 * time.Minute, "OK, the timer is now 10 minutes."},
		{"set a timer for 5 minutes", "no, I said 15", 15 * time.Minute, "OK, the timer is now 15 minutes."},
		{"set a timer for 5 minutes", "I said fifteen minutes", 15 * time.Minute, "OK, the timer is now 15 minutes."},
		{"set a timer for 30 seconds", "make it 45", 45 * time.Second, "OK, the timer is now 45 seconds."},
		{"set a timer for an hour and a half", "make it 2", 2 * time.Hour, "OK, the timer is now 2 hours."},
		{"set a pasta timer for 8 minutes", "no, nine", 9 * time.Minute, "OK, the pasta timer is now 9 minutes."},
	} {
		f := newFixture(t)
		f.say(t, tt.set)
		f.now = f.now.Add(3 * time.Second)
		u := f.reg.Understand(t.Context(), locale.English, tt.say)
		if !u.OK {
			t.Errorf("%q after %q was not understood: %s %s", tt.say, tt.set, u.Reason, u.Detail)
			continue
		}
		said := f.reg.RunRoute(t.Context(), u.Route, tt.say).Spoken
		timers, _ := f.sched.Pending(t.Context(), storage.Timer)
		if said != tt.said || len(timers) != 1 || timers[0].Duration != tt.want {
			t.Errorf("%q after %q: said %q, timers %+v; want %q and one timer of %v", tt.say, tt.set, said, timers, tt.said, tt.want)
		}
	}
}

func TestStopEndsConversationAndRinging(t *testing.T) {
	f := newFixture(t)
	f.stops.ringing = true
	got, resp := f.say(t, "stop")
	if got != "" || !resp.EndConversation || f.stops.ringing {
		t.Errorf("stop said %q, ended=%v, still ringing=%v", got, resp.EndConversation, f.stops.ringing)
	}
	f.stops.ringing = true
	if got, _ := f.say(t, "stop the timer"); got != "" || f.stops.ringing {
		t.Errorf("'stop the timer' while ringing with no timer left said %q", got)
	}
}

// TestStopFromElsewhere: a phone's "stop" ends its own conversation and
// leaves the kitchen ringing; naming the ringing silences it, and the phone
// is told so.
func TestStopFromElsewhere(t *testing.T) {
	f := newFixture(t)
	phone := command.WithClient(t.Context(), command.Client{ID: "ask:1"})
	run := func(text string) command.Response {
		u := f.reg.Understand(phone, locale.English, text)
		if !u.OK {
			t.Fatalf("%q was not understood offline: %s %s", text, u.Reason, u.Detail)
		}
		return f.reg.RunRoute(phone, u.Route, text)
	}
	for _, tc := range []struct {
		say       string
		silenced  bool
		confirmed string
	}{
		{"stop", false, ""},
		{"never mind", false, ""},
		{"stop the alarm", true, "The ringing has stopped."},
		{"stop ringing", true, "The ringing has stopped."},
		{"stop the timer", true, "The ringing has stopped."},
	} {
		f.stops.ringing = true
		resp := run(tc.say)
		if !f.stops.ringing != tc.silenced || resp.Spoken != tc.confirmed {
			t.Errorf("%q from a phone: silenced %v, said %q; want silenced %v, %q", tc.say, !f.stops.ringing, resp.Spoken, tc.silenced, tc.confirmed)
		}
	}
}

func TestMuteIsSilent(t *testing.T) {
	f := newFixture(t)
	if got, _ := f.say(t, "mute"); got != "" || !f.mixer.muted {
		t.Errorf("mute said %q, muted=%v", got, f.mixer.muted)
	}
	if got, _ := f.say(t, "unmute"); got != "Sound is back on." || f.mixer.muted {
		t.Errorf("unmute said %q", got)
	}
}

func TestToolSchemaSize(t *testing.T) {
	f := newFixture(t)
	total, tools := 0, 0
	var sizes []string
	for _, c := range f.reg.Commands() {
		if c.Hidden { // the offline path's alone: not a tool
			continue
		}
		n := len(c.ToolJSON())
		total, tools = total+n, tools+1
		sizes = append(sizes, fmt.Sprintf("%s=%d", c.Name, n))
	}
	sort.Strings(sizes)
	t.Logf("tool schema: %d characters for %d built-ins (%s)", total, tools, strings.Join(sizes, " "))
	if tools != 19 { // snooze is the 19th: one small tool, offered when the router picks it
		t.Errorf("%d built-ins offered to the model, want 19 (get_weather is registered by the wiring)", tools)
	}
}

// A fact that holds every word asked about is the answer: the others that
// share a word of it are left out; with none whole, the nearest are said.
func TestSearchMemoryKeepsTheWholeMatch(t *testing.T) {
	f := newFixture(t)
	for _, fact := range []string{"remember that the spare key is under the blue pot", "remember that my car keys are in the kitchen drawer"} {
		f.say(t, fact)
	}
	for _, c := range []struct{ ask, want string }{
		{"what do you remember about the spare key", "You told me: the spare key is under the blue pot."},
		{"what do you remember about keys", "You told me: the spare key is under the blue pot. And your car keys are in the kitchen drawer."},
		{"what do you remember about the house key", "You told me: the spare key is under the blue pot. And your car keys are in the kitchen drawer."},
	} {
		if said, _ := f.say(t, c.ask); said != c.want {
			t.Errorf("%q: said %q, want %q", c.ask, said, c.want)
		}
	}
}
