package web

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserStopsARingingTimer: in Chromium, a timer that starts ringing
// while the memory page is open shows on it without a reload, with its
// Stop; the Stop silences it and brings the person back to the same page;
// the timers page counts the other timer down live.
func TestBrowserStopsARingingTimer(t *testing.T) {
	r := newRig(t)
	srv := httptest.NewServer(r.h)
	t.Cleanup(srv.Close)
	c := startChrome(t, srv.URL)
	b := r.setUp()
	b.post("/timers", url.Values{"kind": {"timer"}, "name": {"tea"}, "minutes": {"4"}})
	b.post("/timers", url.Values{"kind": {"timer"}, "name": {"eggs"}, "minutes": {"9"}})
	login(c, r)

	c.open("/timers")
	first := c.text(`li[data-id="a2"] time.countdown`)
	c.step("watch the eggs count down", chromedp.Poll[chromedp.Void](
		`document.querySelector('li[data-id="a2"] time.countdown').textContent !== `+quote(first),
		chromedp.WithPollingTimeout(5*time.Second)))

	c.open("/memory")
	if !eval[bool](c, `document.getElementById("ringing").hidden`) {
		t.Error("the Stop banner shows with nothing ringing")
	}
	c.step("mark the document", chromedp.Evaluate[chromedp.Void](`window.harkNotReloaded = true`))
	r.house.ring("a1")
	c.step("wait for the ringing banner", chromedp.Poll[chromedp.Void](`!document.getElementById("ringing").hidden`,
		chromedp.WithPollingTimeout(15*time.Second)))
	if what := c.text("#ringing-what"); what != "The tea timer is ringing." {
		t.Errorf("the banner says %q", what)
	}
	if !eval[bool](c, `window.harkNotReloaded === true`) {
		t.Error("the page was reloaded to show what rings")
	}
	c.phone()
	c.noSideways("/memory while a timer rings")
	c.screenshot("ringing-phone")
	c.desktop()
	c.screenshot("ringing-desktop")
	c.click("stop", "#ringing button.stop")
	if loc := run(c, "location", chromedp.Location()); loc != srv.URL+"/memory" {
		t.Errorf("after the Stop the page is %s, want the memory page again", loc)
	}
	if f := c.text(".flash"); f != "Stopped." {
		t.Errorf("after the Stop the page says %q", f)
	}
	if !eval[bool](c, `document.getElementById("ringing").hidden`) {
		t.Error("the banner still shows after the Stop")
	}
	if list, _ := r.house.List(t.Context(), true); len(list) != 1 || list[0].Name != "eggs" {
		t.Errorf("after the Stop the house has %+v", list)
	}
}

// login logs the tab in with the rig's password.
func login(c *chrome, r *rig) {
	c.t.Helper()
	c.open("/login")
	c.step("type the password", chromedp.SendKeys(chromedp.ID("password"), "correct horse"))
	c.click("log in", `form[action="/login"] button`)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
