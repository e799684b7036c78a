package reply

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llm"
)

// TestNotOllamaIsUnreachable: a web server at the model server's address
// (its page, another application's 404, a body cut short) is no model to
// reach: the box says so in the asker's language, as for a server that is
// down, and the error names the server without its page.
func TestNotOllamaIsUnreachable(t *testing.T) {
	pages := map[string]http.HandlerFunc{
		"nginx 404": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, "<html>\n<head><title>404 Not Found</title></head>\n<body><h1>404 Not Found</h1></body>\n</html>\n")
		},
		"nginx welcome": func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body>It works</body></html>\n")
		},
		"cut JSON": func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"model":"llama3.2:1b","crea`) },
	}
	asks := []struct {
		q    Query
		want string
	}{
		{Query{Text: "who wrote the novel Dune"}, "I didn't understand that, and I can't reach my language model right now."},
		{Query{Text: "wer hat den Roman Dune geschrieben", Language: "de"}, "Sprachmodell"},
	}
	for name, page := range pages {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(page)
			defer srv.Close()
			f := newFixture(t, smallModel, Options{})
			u, _ := url.Parse(srv.URL)
			c, _ := llm.New(llm.Options{Host: u, Model: smallModel.Name})
			f.eng.o.Model, f.eng.o.Aux, f.eng.o.Info = c, c, nil
			for _, a := range asks {
				var said []string
				_, err := f.eng.Reply(t.Context(), a.q, func(s string) { said = append(said, s) })
				if !errors.Is(err, llm.ErrNotOllama) || !strings.Contains(err.Error(), "the server at "+srv.URL+" is not answering as Ollama does") ||
					strings.ContainsAny(err.Error(), "<>\n") {
					t.Errorf("%q: err = %v, want the server named as not Ollama, without its page", a.q.Text, err)
				}
				if len(said) != 1 || !strings.Contains(said[0], a.want) || slices.ContainsFunc(said, func(s string) bool { return strings.ContainsAny(s, "<>{") }) {
					t.Errorf("%q: said %q, want one sentence with %q", a.q.Text, said, a.want)
				}
			}
		})
	}
}
