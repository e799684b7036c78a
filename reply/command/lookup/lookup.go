// Package lookup is looking things up: web_search (a self-hosted SearXNG's
// JSON API), fetch_page (the readable text of a web page) and wikipedia
// (the summary of a named thing). Every result is attributed, capped in
// size and fenced as untrusted text: the model reads it as data, never as
// instructions.
package lookup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/harkbox/hark/internal/egress"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// Options configure the lookups.
type Options struct {
	// SearXNG is the search server's base URL; empty: no web_search
	// unless Brave is set.
	SearXNG string
	// Brave is the Brave Search API's base URL, used for web_search when
	// there is no SearXNG; its key is the secret BRAVE_API_KEY.
	Brave   string
	Secrets command.Secrets
	// Wikipedia is the base URL, with {lang} for the language; empty: no
	// wikipedia. Default for a real box: https://{lang}.wikipedia.org.
	Wikipedia string
	// FetchPages offers fetch_page.
	FetchPages bool
	// MaxChars caps what a result gives the model; default 3,000.
	MaxChars int
	// MaxBytes caps what is read of any answer; default 2 MiB.
	MaxBytes int64
	// Allow names the hosts and networks of the box's own network that
	// fetch_page may reach; the configured servers' hosts are always
	// allowed, the rest of the local network and the box itself never.
	Allow egress.Policy
	// Client, when set, replaces the client through Allow's dialer (a
	// test's).
	Client *http.Client
}

func (o *Options) defaults() {
	if o.MaxChars == 0 {
		o.MaxChars = 3000
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 2 << 20
	}
	if o.Client == nil {
		o.Client = o.Allow.WithHostsOf(o.SearXNG, o.Brave, strings.ReplaceAll(o.Wikipedia, "{lang}", "en")).Client(10 * time.Second)
	}
}

// Commands are the lookups configured: web_search with a SearXNG,
// wikipedia with its URL, fetch_page when asked for; none otherwise.
func Commands(o Options) []*command.Command {
	o.defaults()
	var out []*command.Command
	switch {
	case o.SearXNG != "":
		out = append(out, webSearch(o, searxng))
	case o.Brave != "":
		out = append(out, webSearch(o, brave))
	}
	if o.FetchPages {
		out = append(out, fetchPage(o))
	}
	if o.Wikipedia != "" {
		out = append(out, wikipedia(o))
	}
	return out
}

// get reads a URL's body, at most max bytes; a bigger answer is cut there.
func get(ctx context.Context, o Options, u string, header ...string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("User-Agent", "hark (a home voice assistant)")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := o.Client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", &statusError{host: req.URL.Host, code: resp.StatusCode}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, o.MaxBytes))
	return b, resp.Header.Get("Content-Type"), err
}

// statusError is an answer other than 200 OK.
type statusError struct {
	host string
	code int
}

func (e *statusError) Error() string { return fmt.Sprintf("%s answered %d", e.host, e.code) }

// status is the HTTP status of a failed get, or 0.
func status(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.code
	}
	return 0
}

func failed(ctx context.Context, what string, err error) command.Response {
	l := locale.Speaking(ctx)
	spoken := l.T("I can't reach %s right now.", l.T(what))
	return command.Response{Kind: command.Failure, Spoken: spoken, Data: map[string]any{"error": err.Error()}}
}

// hit is one search result.
type hit struct{ title, url, text string }

// searcher asks a search service; spoken names it in errors.
type searcher struct {
	spoken string
	secret string // the secret holding its key; "" for none
	search func(ctx context.Context, o Options, key, query string) ([]hit, error)
}

var searxng = searcher{spoken: locale.Key("the search server"), search: func(ctx context.Context, o Options, _, query string) ([]hit, error) {
	b, _, err := get(ctx, o, strings.TrimRight(o.SearXNG, "/")+"/search?format=json&q="+url.QueryEscape(query))
	if err != nil {
		return nil, err
	}
	var r struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not a search answer: %w", err)
	}
	var out []hit
	for _, x := range r.Results {
		out = append(out, hit{x.Title, x.URL, x.Content})
	}
	return out, nil
}}

var brave = searcher{spoken: locale.Key("the search service"), secret: "BRAVE_API_KEY", search: func(ctx context.Context, o Options, key, query string) ([]hit, error) {
	b, _, err := get(ctx, o, strings.TrimRight(o.Brave, "/")+"/res/v1/web/search?count=5&q="+url.QueryEscape(query),
		"Accept", "application/json", "X-Subscription-Token", key)
	if err != nil {
		return nil, err
	}
	var r struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not a search answer: %w", err)
	}
	var out []hit
	for _, x := range r.Web.Results {
		out = append(out, hit{x.Title, x.URL, html.UnescapeString(tags.ReplaceAllString(x.Description, ""))})
	}
	return out, nil
}}

func webSearch(o Options, s searcher) *command.Command {
	c := &command.Command{
		Name:        "web_search",
		Description: "Search the web for current facts, news or anything not known.",
		Keywords:    []string{"search", "look up", "google", "news", "latest"},
		Parameters:  []command.Parameter{{Name: "query", Type: "string", Required: true}},
		Examples:    []command.Example{{Utterance: "who won the match last night", Arguments: map[string]any{"query": "match result last night"}}},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			var key string
			if s.secret != "" && o.Secrets != nil {
				var err error
				if key, err = o.Secrets.Get(ctx, s.secret); err != nil {
					return command.Response{}, fmt.Errorf("lookup: read %s: %w", s.secret, err)
				}
			}
			hits, err := s.search(ctx, o, key, c.Args.String("query"))
			switch code := status(err); {
			case code == http.StatusUnauthorized || code == http.StatusForbidden:
				return command.Response{Kind: command.Failure, Spoken: locale.Speaking(ctx).T("The search service didn't accept the key. Set it again with: hark secrets set %s.", s.secret),
					Data: map[string]any{"error": err.Error()}}, nil
			case err != nil:
				return failed(ctx, s.spoken, err), nil
			case len(hits) == 0:
				return command.Response{Spoken: locale.Speaking(ctx).T("The search found nothing."), Data: map[string]any{"results": 0}}, nil
			}
			var lines []string
			for _, x := range hits[:min(5, len(hits))] {
				lines = append(lines, fmt.Sprintf("- %s (%s): %s", x.title, x.url, x.text))
			}
			return command.Response{Data: map[string]any{"results": command.Fence("a web search", strings.Join(lines, "\n"), o.MaxChars)}}, nil
		},
	}
	if s.secret != "" {
		c.Secrets = []command.Secret{{Key: s.secret, Description: "the search API's key", Required: true}}
	}
	return c
}

var (
	dropBlocks = regexp.MustCompile(`(?is)<(script|style|noscript|svg|head|nav|footer)\b.*?</\s*(script|style|noscript|svg|head|nav|footer)\s*>`)
	tags       = regexp.MustCompile(`(?s)<[^>]*>`)
	spaces     = regexp.MustCompile(`[ \t\r\f\v]+`)
	blankLines = regexp.MustCompile(`\n\s*\n+`)
)

// readable is a page's text: no scripts, styles or markup.
func readable(page string) string {
	page = dropBlocks.ReplaceAllString(page, " ")
	page = regexp.MustCompile(`(?i)<(br|p|div|li|h[1-6]|tr)\b[^>]*>`).ReplaceAllString(page, "\n")
	page = html.UnescapeString(tags.ReplaceAllString(page, " "))
	page = spaces.ReplaceAllString(page, " ")
	return strings.TrimSpace(blankLines.ReplaceAllString(page, "\n"))
}

func fetchPage(o Options) *command.Command {
	return &command.Command{
		Name:        "fetch_page",
		Description: "Read the text of a web page, given its address.",
		Keywords:    []string{"read the page", "open the link", "website"},
		Parameters:  []command.Parameter{{Name: "url", Type: "string", Required: true, Description: "http or https address"}},
		Validate: func(_ context.Context, a command.Args) []command.Problem {
			u, err := url.Parse(a.String("url"))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return []command.Problem{{Param: "url", Message: fmt.Sprintf("%q is not a web address", a.String("url"))}}
			}
			return nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			b, ctype, err := get(ctx, o, c.Args.String("url"))
			if err != nil {
				return failed(ctx, locale.Key("that page"), err), nil
			}
			text := string(b)
			if !strings.Contains(ctype, "text/plain") {
				text = readable(text)
			}
			if text == "" {
				return command.Response{Kind: command.Failure, Spoken: locale.Speaking(ctx).T("That page has no text I can read.")}, nil
			}
			host := c.Args.String("url")
			if u, err := url.Parse(host); err == nil {
				host = u.Host
			}
			return command.Response{Data: map[string]any{"page": command.Fence(host, text, o.MaxChars)}}, nil
		},
	}
}

var langCode = regexp.MustCompile(`^[a-z]{2,3}$`)

func wikipedia(o Options) *command.Command {
	return &command.Command{
		Name:        "wikipedia",
		Description: "The encyclopedia's summary of a named person, place, work or thing.",
		Keywords:    []string{"who was", "who is", "what is", "wikipedia", "tell me about"},
		Parameters: []command.Parameter{
			{Name: "title", Type: "string", Required: true, Description: "the name, e.g. Dune (novel)"},
			{Name: "language", Type: "string", Description: "the encyclopedia's language code, e.g. en, de, fr; default: the language the user spoke"},
		},
		Examples: []command.Example{{Utterance: "who wrote the novel Dune", Arguments: map[string]any{"title": "Dune (novel)", "language": "en"}}},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			lang := strings.ToLower(c.Args.String("language"))
			if !langCode.MatchString(lang) {
				lang = c.Language // the language of the question
			}
			if !langCode.MatchString(lang) {
				lang = "en"
			}
			base := strings.ReplaceAll(o.Wikipedia, "{lang}", lang)
			title := strings.ReplaceAll(strings.TrimSpace(c.Args.String("title")), " ", "_")
			b, _, err := get(ctx, o, strings.TrimRight(base, "/")+"/api/rest_v1/page/summary/"+url.PathEscape(title))
			var r struct {
				Title   string `json:"title"`
				Extract string `json:"extract"`
				Type    string `json:"type"`
			}
			switch {
			case status(err) == http.StatusNotFound:
				return command.Response{Kind: command.Failure, Spoken: locale.Speaking(ctx).T("The encyclopedia has no article by that name.")}, nil
			case err != nil:
				return failed(ctx, locale.Key("the encyclopedia"), err), nil
			case json.Unmarshal(b, &r) != nil || r.Extract == "":
				return failed(ctx, locale.Key("the encyclopedia"), errors.New("not a summary")), nil
			}
			return command.Response{Data: map[string]any{"summary": command.Fence("Wikipedia ("+lang+"): "+r.Title, r.Extract, o.MaxChars)}}, nil
		},
	}
}
