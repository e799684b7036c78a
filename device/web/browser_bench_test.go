package web

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BenchmarkPageLoad is each page in headless Chromium over loopback,
// logged in: the time to its first contentful paint, as the browser's own
// performance timeline tells it, and the page's weight: the bytes of the
// document and of every file it loads (style, scripts), as the timeline
// counts them.
func BenchmarkPageLoad(b *testing.B) {
	path := chromium()
	if path == "" {
		b.Skip("chromium is not installed (apt-get install chromium)")
	}
	r := newRig(b)
	r.srv.o.API.Asker, r.srv.o.API.Turns = &talker{}, &talker{}
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	code, _ := r.srv.SetupCode()
	// the session cookie is HttpOnly: set up through the form
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/setup"), chromedp.SendKeys(chromedp.ID("code"), code),
		chromedp.SendKeys(chromedp.ID("password"), "correct horse"), chromedp.SendKeys(chromedp.ID("confirm"), "correct horse"),
		chromedp.Submit(chromedp.CSS(`form`)), chromedp.WaitVisible(chromedp.CSS(`main h1`))); err != nil {
		b.Fatal(err)
	}
	for _, pg := range []struct{ name, path, ready string }{
		{"status", "/", "#answer"}, {"welcome-name", "/setup/name", "#name"}, {"welcome-model", "/setup/model", "#host"},
		{"talk", "/talk", "#q"}, {"settings", "/settings", "#s-audio\\.volume"},
	} {
		b.Run(pg.name, func(b *testing.B) {
			var paint, weight float64
			for b.Loop() {
				if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+pg.path), chromedp.WaitVisible(chromedp.CSS(pg.ready))); err != nil {
					b.Fatal(err)
				}
				fcp, err := chromedp.Run(ctx, chromedp.Poll[float64](`(performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime`, chromedp.WithPollingTimeout(5*time.Second)))
				if err != nil {
					b.Fatal(err)
				}
				w, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"))
					.filter(e => !e.name.includes("/events")).reduce((n, e) => n + (e.decodedBodySize || 0), 0)`))
				if err != nil {
					b.Fatal(err)
				}
				paint += fcp
				weight = w
			}
			b.ReportMetric(paint/float64(b.N), "first-paint-ms")
			b.ReportMetric(weight, "page-bytes")
		})
	}
}
