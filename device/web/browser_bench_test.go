package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkPageLoad is the status page in headless Chromium over loopback,
// logged in: the time to its first contentful paint, as the browser's own
// performance timeline tells it, and the page's weight (HTML, CSS and JS
// bytes).
func BenchmarkPageLoad(b *testing.B) {
	path := chromium()
	if path == "" {
		b.Skip("chromium is not installed (apt-get install chromium)")
	}
	r := newRig(b)
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	code, _ := r.srv.SetupCode()
	jar := &cookieJar{}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(srv.URL+"/setup", url.Values{"code": {code}, "password": {"correct horse"}})
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	weight := 0
	for _, p := range []string{"/", "/static/style.css", "/static/live.js"} {
		req, _ := http.NewRequest("GET", srv.URL+p, nil)
		req.AddCookie(jar.c)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		weight += int(n)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login")); err != nil {
		b.Fatal(err)
	}
	// the session cookie is HttpOnly: log in through the form
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), "correct horse"), chromedp.Submit(chromedp.CSS(`form`)), chromedp.WaitVisible(chromedp.CSS(`#state`))); err != nil {
		b.Fatal(err)
	}
	var total float64
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`#state`))); err != nil {
			b.Fatal(err)
		}
		fcp, err := chromedp.Run(ctx, chromedp.Poll[float64](`(performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime`, chromedp.WithPollingTimeout(5*time.Second)))
		if err != nil {
			b.Fatal(err)
		}
		total += fcp
	}
	b.ReportMetric(total/float64(b.N), "first-paint-ms")
	b.ReportMetric(float64(weight), "page-bytes")
}

type cookieJar struct{ c *http.Cookie }

func (j *cookieJar) SetCookies(_ *url.URL, cs []*http.Cookie) {
	for _, c := range cs {
		if c.Name == sessionCookie {
			j.c = c
		}
	}
}
func (j *cookieJar) Cookies(*url.URL) []*http.Cookie {
	if j.c == nil {
		return nil
	}
	return []*http.Cookie{j.c}
}
