package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
)

// maxLine bounds one line of a streamed answer, as the official client's
// does.
const maxLine = 8 << 20

// chat posts req to /api/chat and hands fn each line of the answer, as
// the official client's Chat does and with the same errors
// (api.StatusError, api.AuthorizationError, the server's error text), but
// reading each line into a buffer that grows with it: the official client
// allocates an 8 MB buffer for every request, which on a box making three
// model calls a turn was 24 MB of garbage a turn, the daemon's resident
// memory doubled and its heap's collections paced by it. Requests that
// need Ollama's signed authorization go through the official client.
func (c *Client) chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	if envconfig.UseAuth() || c.host.Hostname() == "ollama.com" {
		return c.api.Chat(ctx, req, fn)
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
	hr.Header.Set("User-Agent", fmt.Sprintf("hark (%s %s) Go/%s", runtime.GOARCH, runtime.GOOS, runtime.Version()))
	resp, err := c.hc.Do(hr)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	r := bufio.NewReaderSize(resp.Body, 16<<10)
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			if ferr := c.line(resp, line, fn); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			// As the official client: a stream that stops, whole or cut,
			// ends quietly; the caller tells a cut by the missing done.
			return nil
		}
	}
}

// line handles one line of the answer.
func (c *Client) line(resp *http.Response, line []byte, fn api.ChatResponseFunc) error {
	var e struct {
		Error     string `json:"error,omitempty"`
		SigninURL string `json:"signin_url,omitempty"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		if resp.StatusCode >= http.StatusBadRequest {
			return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: string(line)}
		}
		return errors.New(string(line))
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: e.SigninURL}
	case resp.StatusCode >= http.StatusBadRequest:
		return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: e.Error}
	case e.Error != "":
		// The server had taken the request (its status said so before
		// the answer began) and failed while running it: Ollama can only
		// write its error into the stream by then.
		return fmt.Errorf("%w: %s", ErrServerFailed, e.Error)
	}
	var cr api.ChatResponse
	if err := json.Unmarshal(line, &cr); err != nil {
		return err
	}
	return fn(cr)
}

// readLine reads one line without its end (\n or \r\n), however long up to
// maxLine; the last line may end without one.
func readLine(r *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		part, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if long = append(long, part...); len(long) > maxLine {
				return nil, errors.New("llm: a line of the answer is over 8 MB")
			}
			continue
		}
		line := part
		if long != nil {
			line = append(long, part...)
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}
