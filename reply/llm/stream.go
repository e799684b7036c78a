package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
)

// The official client reads every streamed answer through a scanner with
// an 8 MB buffer made up front: one per model call, so ten questions at
// once cost 80 MB on a box with a few hundred. chat reads the same wire
// format the same way (the same request, the same errors, the same quiet
// end when the connection drops, which Chat then names), with a buffer
// that grows only as far as the longest line.

// maxLine is the longest line of an answer read, as the official client's.
const maxLine = 8 << 20

// chat posts req to /api/chat and calls fn with each line of the answer.
func (c *Client) chat(ctx context.Context, req *api.ChatRequest, fn func(api.ChatResponse) error) error {
	if envconfig.UseAuth() || c.host.Hostname() == "ollama.com" {
		return c.api.Chat(ctx, req, fn) // it signs the request
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.host.JoinPath("/api/chat").String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/x-ndjson")
	resp, err := c.hc.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		var e struct {
			Error string `json:"error,omitempty"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			if resp.StatusCode >= http.StatusBadRequest {
				return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(line)}
			}
			return errors.New(string(line))
		}
		switch {
		case resp.StatusCode == http.StatusUnauthorized:
			return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status}
		case resp.StatusCode >= http.StatusBadRequest:
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: e.Error}
		case e.Error != "":
			return errors.New(e.Error)
		}
		var r api.ChatResponse
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil // a connection dropped mid-answer ends as the official client's does
}
