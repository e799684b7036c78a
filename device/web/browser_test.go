package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/harkbox/hark/device/control"
)

// liveBox is the fake box whose state the test changes while the page
// streams it: the event stream reads it from its own goroutine.
type liveBox struct {
	mu    sync.Mutex
	state string
}

func (b *liveBox) set(state string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state = state
}

func (b *liveBox) Status(ctx context.Context) control.Status {
	b.mu.Lock()
	state := b.state
	b.mu.Unlock()
	return (&box{state: state}).Status(ctx)
}
func (b *liveBox) WaitIdle(context.Context) error { return nil }
func (b *liveBox) SetUpdating(bool, int)          {}

// chromium is the path of Debian's Chromium, or "" when it is not
// installed.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The sizes the page is looked at: a phone held upright and a laptop.
const (
	phoneWidth, phoneHeight     = 390, 844
	desktopWidth, desktopHeight = 1280, 800
)

// chrome is one headless Chromium tab over the page, for one test.
type chrome struct {
	t    *testing.T
	ctx  context.Context
	base string // the page's address
	shot string // where the screenshots go
}

// step runs actions with a deadline of their own, so that a missing
// element fails its step with a message rather than the whole test at its
// end. Steps that ran into the page swapping documents (see run) are run
// again, within that deadline.
func (c *chrome) step(what string, steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	for {
		err := chromedp.Do(ctx, steps...)
		if err == nil {
			return
		}
		if !betweenDocuments(err) || ctx.Err() != nil {
			c.t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// click clicks a link or a form's button like a person and waits for the
// page the server answers with, after its redirect.
func (c *chrome) click(what, button string) {
	c.t.Helper()
	if status := c.clickFor(what, button); status != http.StatusOK {
		c.t.Fatalf("%s: the page answered %d", what, status)
	}
}

// clickFor clicks like click and returns the status the page answered
// with, whatever it is.
func (c *chrome) clickFor(what, button string) int64 {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(button)))
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	return resp.Status
}

// waitFor evaluates expr until it is true, through reloads of the page
// (a Refresh header), or fails the test after d.
func (c *chrome) waitFor(what, expr string, d time.Duration) {
	c.t.Helper()
	d = slack(d)
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(c.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: not within %v (%v)", what, d, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// open goes to a page of the site and waits for it.
func (c *chrome) open(path string) {
	c.t.Helper()
	c.step("open "+path, chromedp.Navigate(c.base+path))
}

// text is the visible text of the first element the CSS selector finds.
// It reads the text in one step in the page, since a live page may
// replace the element between finding it and reading it.
// It asks again while the element is not there yet or the page is between
// two documents (a navigation under way), for up to 15 s.
func (c *chrome) text(sel string) string {
	c.t.Helper()
	expr := "(() => { const e = document.querySelector(" + quote(sel) + "); return e === null ? null : e.textContent })()"
	for deadline := time.Now().Add(slack(15 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Second)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[*string](expr))
		cancel()
		if err == nil && got != nil {
			return *got
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("no such element")
			}
			c.t.Fatalf("the text of %s: %v", sel, err)
		}
	}
}

// slack is how long a wait may take: four times d when the page's server
// runs under emulation (make test's qemu step), where every step is slower.
func slack(d time.Duration) time.Duration {
	if os.Getenv("HARK_EMULATED") != "" {
		return 4 * d
	}
	return d
}

// eval is a JavaScript expression's value.
func eval[T any](c *chrome, expr string) T {
	c.t.Helper()
	return run(c, expr, chromedp.Evaluate[T](expr))
}

// run runs a, asking again for up to 5 s while the page is between two
// documents (the click before it began a navigation the browser has not
// finished swapping in).
func run[T any](c *chrome, what string, a chromedp.Action[T]) T {
	c.t.Helper()
	for deadline := time.Now().Add(slack(5 * time.Second)); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(c.ctx, 20*time.Second)
		v, err := chromedp.Run(ctx, a)
		cancel()
		if err == nil {
			return v
		}
		if !betweenDocuments(err) || time.Now().After(deadline) {
			c.t.Fatalf("%s: %v", what, err)
		}
	}
}

// betweenDocuments reports the error of a script run as the page's
// document is replaced.
func betweenDocuments(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") || strings.Contains(msg, "Execution context was destroyed")
}

// phone makes the tab an upright phone: 390 CSS pixels wide, mobile, touch.
func (c *chrome) phone() {
	c.t.Helper()
	c.step("emulate a phone", chromedp.EmulateViewport(phoneWidth, phoneHeight,
		chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
}

// desktop makes the tab a laptop's window.
func (c *chrome) desktop() {
	c.t.Helper()
	c.step("emulate a desktop", chromedp.EmulateViewport(desktopWidth, desktopHeight))
}

// screenshot saves a full-page PNG of what the tab shows.
func (c *chrome) screenshot(name string) {
	c.t.Helper()
	png := run(c, "screenshot "+name, chromedp.FullScreenshot(100))
	p := filepath.Join(c.shot, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.t.Logf("screenshot: %s", p)
}

// startChrome starts a headless Chromium for the test, over the page at
// base, or skips the test without one (or with -short). The browser stops
// with the test.
func startChrome(t *testing.T, base string) *chrome {
	t.Helper()
	if testing.Short() {
		t.Skip("the browser test starts Chromium: not with -short")
	}
	path := chromium()
	if path == "" {
		t.Skip("chromium is not installed (apt-get install chromium; .ci/deps installs it): neither chromium nor chromium-browser is on PATH")
	}
	shots := os.Getenv("HARK_SCREENSHOTS")
	if shots == "" {
		shots = t.ArtifactDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root
		chromedp.DisableGPU,
		chromedp.WindowSize(desktopWidth, desktopHeight),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancel() })
	// The browser lives as long as the context of its first run: this one,
	// not a step's.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return &chrome{t: t, ctx: bctx, base: base, shot: shots}
}

// noSideways fails when the page is wider than the window: on a phone it
// must be one column with nothing to scroll sideways.
func (c *chrome) noSideways(page string) {
	c.t.Helper()
	w := eval[[]int](c, `[document.documentElement.scrollWidth, window.innerWidth]`)
	if len(w) != 2 || w[0] > w[1] {
		c.t.Errorf("%s scrolls sideways on a phone: [page width, window width] = %v", page, w)
	}
}

// TestBrowser drives the page in a real headless Chromium as a person
// would: the first visit with the setup code, the status page and its live
// state, a timer set and cancelled, a fact forgotten; it looks at the pages
// at a phone's and a desktop's width and saves screenshots of them
// (go test -artifacts keeps them, under -outputdir; HARK_SCREENSHOTS=DIR
// puts them in DIR).
func TestBrowser(t *testing.T) {
	r := newRig(t)
	state := &liveBox{state: "idle"}
	r.srv.o.API.Box = state // before the first request: the handlers read it per request
	srv := httptest.NewServer(r.h)
	t.Cleanup(srv.Close) // after the browser is gone: the event stream ends with its connection
	c := startChrome(t, srv.URL)

	// The first visit: the page asks for the code the speaker says and a
	// password.
	c.open("/")
	if loc := run(c, "location", chromedp.Location()); loc != srv.URL+"/setup" {
		t.Fatalf("the first visit went to %s, want the setup page", loc)
	}
	if h := c.text("main h1"); h != "Set up" {
		t.Errorf("the setup page's heading is %q", h)
	}
	code, pending := r.srv.SetupCode()
	if !pending {
		t.Fatal("no setup code is pending")
	}
	c.step("fill in the setup form",
		chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse"),
		chromedp.SendKeys(chromedp.ID("confirm"), "correct horse"),
	)
	c.click("set up", `form[action="/setup"] button[type="submit"]`)

	// The welcome, left for later; then the status page.
	if loc := run(c, "location", chromedp.Location()); loc != srv.URL+"/setup/name" {
		t.Fatalf("after setting up the page is %s, want the welcome", loc)
	}
	c.open("/")
	if h := c.text("main h1"); h != "Status" {
		t.Errorf("the status page's heading is %q", h)
	}
	if s := c.text("#state"); s != "idle" {
		t.Errorf("the state shows %q, want idle", s)
	}
	if a := c.text("#answer"); a != "Yes: it can hear you and answer you." {
		t.Errorf("the status page leads with %q", a)
	}
	c.step("wait for the event stream", chromedp.Poll[chromedp.Void](`document.documentElement.dataset.live === "state"`, chromedp.WithPollingTimeout(10*time.Second)))
	if cls := eval[string](c, `document.getElementById("answer").className`); cls != "answer ok" {
		t.Errorf("a box that answers is shown as %q after the live update", cls)
	}
	if open := eval[bool](c, `document.querySelector("details.details").open`); open {
		t.Error("the details are open without being asked for")
	}
	c.step("open the details", chromedp.Click(chromedp.CSS("details.details summary")))
	if hl := c.text("#health"); hl != "All checks pass" {
		t.Errorf("the health shows %q", hl)
	}

	// On a phone: one column, nothing to scroll sideways, on every page;
	// the status page's facts stack, each under its name.
	c.phone()
	c.noSideways("/")
	if under := eval[bool](c, `(() => {
		const dt = document.querySelector(".facts dt").getBoundingClientRect(), dd = document.getElementById("state").getBoundingClientRect();
		return dd.left === dt.left && dd.top >= dt.bottom;
	})()`); !under {
		t.Error("on a phone the state is not under its name: the facts are not one column")
	}
	c.screenshot("status-phone")
	for _, p := range pages[1:] {
		c.open(p)
		c.noSideways(p)
	}
	c.desktop()
	c.open("/")
	if beside := eval[bool](c, `(() => {
		const dt = document.querySelector(".facts dt").getBoundingClientRect(), dd = document.getElementById("state").getBoundingClientRect();
		return dd.left > dt.right && Math.abs(dd.top - dt.top) < 2;
	})()`); !beside {
		t.Error("on a desktop the state is not beside its name")
	}
	c.screenshot("status-desktop")

	// The state is live: the box starts listening and the page says so
	// without being reloaded (static/live.js over server-sent events).
	c.step("mark the document", chromedp.Evaluate[chromedp.Void](`window.harkNotReloaded = true`))
	state.set("listening")
	c.step("wait for the live state",
		chromedp.Poll[chromedp.Void](`document.getElementById("state").textContent === "listening"`,
			chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(15*time.Second)))
	if !eval[bool](c, `window.harkNotReloaded === true`) {
		t.Error("the page was reloaded to show the new state")
	}
	state.set("idle")

	// A timer, through the navigation and the form.
	c.click("go to the timers", `nav a[href="/timers"]`)
	if h := c.text("main h1"); h != "Timers, alarms and reminders" {
		t.Errorf("the timers page's heading is %q", h)
	}
	c.step("fill in a timer",
		chromedp.Click(chromedp.CSS(`input[name="kind"][value="timer"]`)),
		chromedp.SendKeys(chromedp.ID("name"), "tea"),
		chromedp.SendKeys(chromedp.ID("minutes"), "4"),
	)
	c.click("set the timer", `form[action="/timers"] button[type="submit"]`)
	if f := c.text(".flash"); !strings.HasPrefix(f, "The timer is set for") {
		t.Errorf("after setting a timer the page says %q", f)
	}
	if li := c.text(".rows li"); !strings.Contains(li, "“tea”") {
		t.Errorf("the running list shows %q, want the tea timer", li)
	}
	c.screenshot("timers-desktop")
	c.phone()
	c.noSideways("/timers with a timer")
	c.screenshot("timers-phone")
	c.desktop()

	c.click("cancel the timer", `button[aria-label^="Cancel the timer tea"]`)
	if f := c.text(".flash"); f != "Cancelled." {
		t.Errorf("after cancelling the page says %q", f)
	}
	if main := c.text("main"); !strings.Contains(main, "Nothing is set.") || strings.Contains(main, "“tea”") {
		t.Errorf("after cancelling the timers page shows:\n%s", main)
	}

	// A fact forgotten.
	c.click("go to the memory", `nav a[href="/memory"]`)
	if main := c.text("main"); !strings.Contains(main, "the cat is called Miso") {
		t.Fatalf("the memory page does not show the fact:\n%s", main)
	}
	c.click("forget the fact", `button[aria-label="Forget: the cat is called Miso"]`)
	if f := c.text(".flash"); f != "Forgotten." {
		t.Errorf("after forgetting the page says %q", f)
	}
	if main := c.text("main"); strings.Contains(main, "the cat is called Miso") || !strings.Contains(main, "I have not been asked to remember anything.") {
		t.Errorf("after forgetting the memory page shows:\n%s", main)
	}

	// A setting, kept and applied by the restart the page offers.
	c.click("go to the settings", `nav a[href="/settings"]`)
	c.step("rename the assistant",
		chromedp.Clear(chromedp.CSS(`input[name="assistant.name"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="assistant.name"]`), "Friday"),
	)
	c.click("save the settings", `form.settings button[type="submit"]`)
	if f := c.text(".flash"); !strings.HasPrefix(f, "Kept for when Hark starts again: its name.") {
		t.Errorf("after saving a setting the page says %q", f)
	}
	c.screenshot("settings-desktop")
	c.click("restart", `form[action="/settings/restart"] button`)
	if r.settings.restarts != 1 || r.settings.running["assistant.name"] != "Friday" {
		t.Errorf("after the restart: %d restarts, name %q", r.settings.restarts, r.settings.running["assistant.name"])
	}

	// An update: checked, installed, its progress live on the page.
	c.open("/updates")
	c.click("check for an update", `form[action="/updates/check"] button`)
	c.click("install it", `form[action="/updates/install"] button`)
	c.step("watch the progress reach 100 %",
		chromedp.Poll[chromedp.Void](`document.getElementById("update-progress").value === 100 &&
			document.getElementById("update-phase").textContent.startsWith("installed")`, chromedp.WithPollingTimeout(15*time.Second)))
	c.screenshot("updates-desktop")
	c.phone()
	c.noSideways("/updates")
	c.screenshot("updates-phone")
	c.desktop()
}
