package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	if resp.StatusCode >= http.StatusBadRequest {
		return c.refused(resp)
	}
	r := bufio.NewReaderSize(resp.Body, 16<<10)
	lines := 0 // of Ollama's answer
	for {
		line, err := readLine(r)
		if err != nil && !errors.Is(err, io.EOF) {
			// As the official client: a stream that breaks ends quietly,
			// the line it broke in dropped; the caller tells a cut by the
			// missing done.
			return nil
		}
		if len(line) > 0 {
			if !ollamaLine(line) {
				if lines > 0 && err != nil {
					return nil // the last line, cut off: as a break
				}
				// Not Ollama's answer: a web page, another application's
				// reply. What follows the line helps name it.
				more, _ := io.ReadAll(io.LimitReader(r, 4<<10))
				return notOllamaBody(c.host, resp.Status, append(append(line, '\n'), more...))
			}
			lines++
			if ferr := c.line(line, fn); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			if lines == 0 {
				return notOllamaBody(c.host, resp.Status, nil)
			}
			return nil
		}
	}
}

// refused reads an answer with an error status: Ollama's error, as the
// official client gives it, or, for a body that is not one, the server
// named as not answering as Ollama does.
func (c *Client) refused(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg, ok := ollamaError(body)
	switch {
	case resp.StatusCode == http.StatusUnauthorized && json.Valid(body):
		var e api.AuthorizationError
		json.Unmarshal(body, &e)
		return api.AuthorizationError{StatusCode: resp.StatusCode, Status: resp.Status, SigninURL: e.SigninURL}
	case !ok:
		return notOllamaBody(c.host, resp.Status, body)
	}
	return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: msg}
}

// line handles one line of Ollama's answer.
func (c *Client) line(line []byte, fn api.ChatResponseFunc) error {
	if msg, ok := ollamaError(line); ok {
		// The server had taken the request (its status said so before
		// the answer began) and failed while running it: Ollama can only
		// write its error into the stream by then.
		return fmt.Errorf("%w: %s", ErrServerFailed, msg)
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
