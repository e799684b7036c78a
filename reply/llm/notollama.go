package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// notOllama is a server at the model server's address that answers, but
// not as Ollama does. Its words name the server and what it answered,
// with at most a short excerpt cleaned of markup and control characters:
// they go to logs and to the asker's screen, never to the speaker.
type notOllama struct {
	server string // the server's URL, redacted
	what   string // "it answered 404 Not Found with an HTML page (…)"
}

func (e *notOllama) Error() string {
	return fmt.Sprintf("the server at %s is not answering as Ollama does: %s", e.server, e.what)
}

func (e *notOllama) Unwrap() []error { return []error{ErrNotOllama, ErrUnreachable} }

// NotOllama is the error for a server at host that answers, but not as
// Ollama does; what says how ("it answered without a version").
func NotOllama(host *url.URL, what string) error {
	return &notOllama{server: redacted(host), what: what}
}

// notOllama is the error for the client's server answering a success
// that is not Ollama's: JSON of another application, or nothing, that
// the official client reads as an answer with nothing in it. what says
// what it lacks.
func (c *Client) notOllama(what string) error {
	return &notOllama{server: redacted(c.host), what: what}
}

// ollamaShow reports whether a show's answer tells what Ollama always
// tells of a model: its Modelfile, when it was made, its template, its
// details, capabilities or model info. Another application's JSON tells
// none of it.
func ollamaShow(r *api.ShowResponse) bool {
	return r.Modelfile != "" || !r.ModifiedAt.IsZero() || r.Template != "" || r.Details.Format != "" ||
		r.Details.Family != "" || len(r.Capabilities) > 0 || r.ModelInfo != nil
}

// Explain maps a failure of the official client's call op to the server
// at host to this package's errors, as a Client's own calls do: for a
// caller that uses the official client directly.
func Explain(host *url.URL, op string, err error) error {
	return (&Client{host: host}).classify(op, err)
}

// notOllamaBody is the error for a server that answered status with body,
// which is not Ollama's.
func notOllamaBody(host *url.URL, status string, body []byte) error {
	return &notOllama{server: redacted(host), what: fmt.Sprintf("it answered %s with %s", status, describe(body))}
}

// statusLine is a status as net/http writes it: "404 Not Found".
func statusLine(code int) string {
	return strings.TrimSpace(fmt.Sprintf("%d %s", code, http.StatusText(code)))
}

func redacted(host *url.URL) string {
	if host == nil {
		return "the configured address"
	}
	return host.Redacted()
}

// ollamaError reads an error body as Ollama writes one: a JSON object
// with a non-empty "error". ok is false for any other body.
func ollamaError(body []byte) (msg string, ok bool) {
	var e struct {
		Error *string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == nil || *e.Error == "" {
		return "", false
	}
	return *e.Error, true
}

// ollamaLine reports whether line is a line of Ollama's chat answer: a
// JSON object with its "done", which Ollama writes in every one, or its
// error.
func ollamaLine(line []byte) bool {
	var c struct {
		Done  *bool   `json:"done"`
		Error *string `json:"error"`
	}
	return json.Unmarshal(line, &c) == nil && (c.Done != nil || c.Error != nil && *c.Error != "")
}

// rawMessage reports whether an error message the official client read
// is a body it could not read as Ollama's (it then gives the body whole)
// rather than Ollama's one-line message: empty, markup, JSON, or more
// than one line, or with control characters.
func rawMessage(msg string) bool {
	t := strings.TrimSpace(msg)
	return t == "" || strings.ContainsAny(t[:1], "<{[") || !utf8.ValidString(msg) ||
		strings.ContainsFunc(msg, unicode.IsControl)
}

var (
	title = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	tag   = regexp.MustCompile(`(?s)<[^>]*>?`)
	// markupAside is what a page shows no reader: its styles and scripts.
	markupAside = regexp.MustCompile(`(?is)<(style|script)[^>]*>.*?</(style|script)>`)
)

// excerptRunes bounds a body's excerpt.
const excerptRunes = 80

// describe says what kind of body this is, with a short excerpt of it.
func describe(body []byte) string {
	t := bytes.TrimSpace(body)
	switch {
	case len(t) == 0:
		return "an empty body"
	case t[0] == '<':
		text := t
		if m := title.FindSubmatch(t); m != nil {
			text = m[1]
		} else {
			text = tag.ReplaceAll(markupAside.ReplaceAll(t, nil), []byte(" "))
		}
		if x := excerpt(text); x != "" {
			return fmt.Sprintf("an HTML page (%q)", x)
		}
		return "an HTML page"
	case t[0] == '{' || t[0] == '[':
		return fmt.Sprintf("JSON that is not Ollama's (%q)", excerpt(t))
	}
	return fmt.Sprintf("text (%q)", excerpt(t))
}

// excerpt is the start of s on one line: runs of blanks made one space,
// control characters and invalid bytes dropped, at most excerptRunes
// runes, cut at a word's end with an ellipsis when longer.
func excerpt(s []byte) string {
	var b strings.Builder
	n, space := 0, false
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		s = s[size:]
		switch {
		case r == utf8.RuneError && size <= 1:
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || !unicode.IsPrint(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		if n == excerptRunes {
			out := b.String()
			if i := strings.LastIndexByte(out, ' '); i > 0 {
				out = out[:i]
			}
			return strings.TrimRight(out, " ") + "…"
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
